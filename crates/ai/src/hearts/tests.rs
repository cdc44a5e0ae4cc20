//! Hearts agents return only legal actions, see only what their seat saw,
//! and sampled deals agree with the seat's view.

use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use super::sample::Sampler;
use super::*;
use crate::arena::{self, ArenaOptions};
use crate::{AgentConfig, AgentKind};
use kozyr_cards::{Card, CardSet, PerSeat};
use kozyr_game::{GameKind, GameOptions};
use kozyr_hearts::{Deal, HeartsOptions, Phase};

fn test_agents(seed: u64) -> Vec<(&'static str, Box<HeartsAgent>)> {
    crate::every_agent::<Match>(seed, 3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// At random moments of random games, every agent answers with a legal
    /// action, and sampled deals agree with what the seat saw.
    #[test]
    fn agents_choose_legal_actions_and_samples_agree_with_the_view(seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // Half the games under the common rule: samples must break hearts as the table does.
        let options = HeartsOptions { shoot_the_moon: true, end_score: 30, any_heart_breaks: seed % 2 == 0 };
        let mut game = Match::new(options, seed);
        let mut log = DealLog::default();
        let mut agents = test_agents(seed);
        let mut asked = 0;
        while let Some(seat) = game.awaiting().next() {
            let legal = game.legal_actions(seat);
            if rng.random_bool(0.15) && asked < 12 {
                asked += 1;
                let seen = log.observation(&game, seat);
                for (name, agent) in &mut agents {
                    let a = agent.choose(&seen, &legal);
                    prop_assert!(legal.contains(&a), "{name} chose {a:?}");
                }
                let sampler = Sampler::new(&seen);
                for _ in 0..4 {
                    let world = sampler.sample(&mut rng).expect("a sample");
                    prop_assert_eq!(world.view(seat), seen.view.deal);
                    prop_assert_eq!(world.invariant_violation(), None);
                }
            }
            let a = legal[rng.random_range(0..legal.len())];
            log.record(&game.apply(seat, a).unwrap());
        }
    }
}

/// A deal's plays so far, replayable on another deck.
fn replay(hands: PerSeat<CardSet>, moves: &[(Seat, Action)]) -> Option<(Deal, Vec<Event>)> {
    let mut deal = Deal::from_hands(hands, Seat::ALL[0], 1).ok()?;
    let mut events = Vec::new();
    for &(s, a) in moves {
        deal.apply_into(s, a, &mut events).ok()?;
    }
    Some((deal, events))
}

fn observe(deal: &Deal, events: &[Event], seat: Seat) -> Observation {
    let game = Match::from_deal(HeartsOptions::default(), 1, *deal, PerSeat([0; 4])).unwrap();
    Observation {
        view: game.view(seat),
        history: events.iter().map(|e| e.seen_by(seat)).collect(),
    }
}

/// Changes every card `seat` has not seen — the other hands, the passes
/// between other seats — and checks the agents' input and choice stay the same.
#[test]
fn agents_never_see_hidden_cards() {
    let mut changed = 0;
    for seed in 0..30u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut cards: Vec<Card> = CardSet::FULL.iter().collect();
        cards.shuffle(&mut rng);
        let hands = PerSeat::from_fn(|s| cards[s.index() * 13..][..13].iter().collect());
        let (mut deal, _) = replay(hands, &[]).unwrap();
        let mut moves = Vec::new();
        for _ in 0..rng.random_range(0..40) {
            let Some(s) = deal.awaiting().next() else {
                break;
            };
            let legal = deal.legal_actions(s);
            let a = legal[rng.random_range(0..legal.len())];
            deal.apply(s, a).unwrap();
            moves.push((s, a));
        }
        let Some(me) = deal.awaiting().find(|_| true) else {
            continue;
        };
        let (deal, events) = replay(hands, &moves).unwrap();
        // What `me` has seen: its cards as dealt and received, every card played.
        let mut seen_cards = deal.dealt()[me] | deal.played();
        seen_cards |= deal.received(me).unwrap_or_default();
        // Relabel within each suit, so that who may follow suit is unchanged.
        let mut hidden: Vec<Card> = Vec::new();
        let mut relabelled: Vec<Card> = Vec::new();
        for suit in kozyr_cards::Suit::ALL {
            let mut of_suit: Vec<Card> = (!seen_cards).of_suit(suit).iter().collect();
            hidden.extend(&of_suit);
            of_suit.shuffle(&mut rng);
            relabelled.extend(of_suit);
        }
        let map = |c: Card| {
            hidden
                .iter()
                .position(|&h| h == c)
                .map_or(c, |i| relabelled[i])
        };
        let map_set = |s: CardSet| s.iter().map(map).collect::<CardSet>();
        let other_hands = hands.map(|&h| map_set(h));
        let other_moves: Vec<(Seat, Action)> = moves
            .iter()
            .map(|&(s, a)| match a {
                Action::PassCards(c) => (s, Action::PassCards(map_set(c))),
                a => (s, a),
            })
            .collect();
        // Swapping the hidden queen of spades for a blank spade can make a
        // first-trick discard illegal for its holder; such worlds are skipped.
        let Some((other_deal, other_events)) = replay(other_hands, &other_moves) else {
            continue;
        };
        if other_deal != deal {
            changed += 1;
        }
        let seen = observe(&deal, &events, me);
        assert_eq!(seen, observe(&other_deal, &other_events, me), "seed {seed}");
        let legal = deal.legal_actions(me);
        for ((name, a), (_, b)) in test_agents(seed).iter_mut().zip(&mut test_agents(seed)) {
            assert_eq!(
                a.choose(&seen, &legal),
                b.choose(&observe(&other_deal, &other_events, me), &legal),
                "{name} at seed {seed}"
            );
        }
    }
    assert!(
        changed > 10,
        "hidden cards were actually changed ({changed})"
    );
}

#[test]
fn samples_respect_voids_and_passed_cards() {
    // Deal 1 passes left. Play on until someone shows out, then sample.
    for seed in 0..20u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut game = Match::new(HeartsOptions::default(), seed);
        let mut log = DealLog::default();
        let mut shown_out = None;
        while let Some(seat) = game.awaiting().next() {
            let legal = game.legal_actions(seat);
            let a = legal[rng.random_range(0..legal.len())];
            let led = game.deal().led_suit();
            log.record(&game.apply(seat, a).unwrap());
            if let (Some(led), Action::Play(c)) = (led, a)
                && c.suit() != led
            {
                shown_out = Some((seat, led));
            }
            if shown_out.is_some() && game.deal().phase() == Phase::Playing {
                break;
            }
        }
        let Some((void_seat, suit)) = shown_out else {
            continue;
        };
        let Some(me) = game.awaiting().next().filter(|&s| s != void_seat) else {
            continue;
        };
        let seen = log.observation(&game, me);
        let passed = seen.view.deal.passed.unwrap();
        let target = me.next();
        let sampler = Sampler::new(&seen);
        for _ in 0..20 {
            let world = sampler.sample(&mut rng).unwrap();
            assert!(world.hand(void_seat).of_suit(suit).is_empty());
            let unplayed = passed - world.played();
            assert!(unplayed.is_subset(world.hand(target)));
        }
    }
}

#[test]
fn deterministic_mode_gives_identical_matches() {
    let opts = |jobs| ArenaOptions {
        game: GameKind::Hearts,
        players: [
            AgentKind::Search,
            AgentKind::Heuristic,
            AgentKind::Random,
            AgentKind::Heuristic,
        ],
        series: 2,
        seed: 4,
        config: AgentConfig::deterministic(2),
        options: GameOptions {
            hearts: HeartsOptions {
                shoot_the_moon: false,
                end_score: 26,
                any_heart_breaks: false,
            },
        },
        jobs,
    };
    let strip = |r: arena::HeartsReport| (r.deals, r.points, r.difference);
    let one = strip(arena::hearts(&opts(1)).unwrap());
    assert_eq!(one, strip(arena::hearts(&opts(2)).unwrap()));
    assert!(one.0 >= 2);
}
