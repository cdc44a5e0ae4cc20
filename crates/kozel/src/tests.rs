//! Rules tests: each rule of `docs/RULES.md` as data through `check`, then
//! property tests over random play.

use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::*;
use kozyr_cards::{Card, CardSet, Seat};

fn seat(i: u8) -> Seat {
    Seat::new(i).unwrap()
}

fn cards(s: &str) -> CardSet {
    s.parse().unwrap()
}

/// A deal with exact hands. `stock` lists the top of the stock; the other
/// cards follow in index order. Trump is the suit of `trump` (which must be
/// in the stock; it is moved to position 5).
fn deal_with(dealer: u8, leader: u8, hands: [&str; 4], stock: &str, trump: &str) -> Deal {
    let dealer = seat(dealer);
    let hands = hands.map(cards);
    let trump: Card = trump.parse().unwrap();
    let mut stock_cards: Vec<Card> = stock
        .split_whitespace()
        .map(|c| c.parse().unwrap())
        .collect();
    let used = hands.iter().fold(CardSet::EMPTY, |a, &h| a | h) | stock_cards.iter().collect();
    stock_cards.extend((deck() - used).iter().filter(|&c| c != trump));
    if !stock_cards.contains(&trump) {
        stock_cards.insert(5, trump);
    }
    assert_eq!(stock_cards.len(), 20, "stock must hold 20 cards");
    let pos = stock_cards.iter().position(|&c| c == trump).unwrap();
    assert!(
        (5..15).contains(&pos),
        "put the trump card in the middle of the stock"
    );
    let mut order = [[Card::new(kozyr_cards::Rank::Six, kozyr_cards::Suit::Spades); 4]; 4];
    for (s, h) in hands.iter().enumerate() {
        assert_eq!(h.len(), 4);
        for (i, c) in h.iter().enumerate() {
            order[s][i] = c;
        }
    }
    let mut deck_cards = Vec::new();
    for i in 0..16 {
        let s = dealer.offset(1 + (i % 4) as u8);
        deck_cards.push(order[s.index()][i / 4]);
    }
    deck_cards.extend(stock_cards);
    let deck = Deck::new(deck_cards.try_into().unwrap(), pos as u8).unwrap();
    Deal::new(dealer, seat(leader), deck)
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Lead(u8, &'static str),
    Beat(u8, &'static str),
    Pass(u8, &'static str),
    Molodka(u8),
}

fn action(step: Step) -> (Seat, Action) {
    match step {
        Step::Lead(s, c) => (seat(s), Action::Lead(cards(c))),
        Step::Beat(s, c) => (seat(s), Action::Beat(cards(c))),
        Step::Pass(s, c) => (seat(s), Action::Pass(cards(c))),
        Step::Molodka(s) => (seat(s), Action::Molodka),
    }
}

/// Plays `steps` (all must be accepted), then `last`, and compares what
/// `last` gives with `expect`: `Ok(events)` rendered with `{:?}`, or the error.
fn check(mut deal: Deal, steps: &[Step], last: Step, expect: Result<&str, RuleError>) -> Deal {
    for &s in steps {
        let (seat, a) = action(s);
        deal.apply(seat, a)
            .unwrap_or_else(|e| panic!("{s:?} refused: {e}"));
        deal.assert_invariants();
    }
    let before = deal.clone();
    let (seat, a) = action(last);
    let got = deal.apply(seat, a);
    match (&got, &expect) {
        (Ok(events), Ok(text)) => {
            let rendered: Vec<String> = events.iter().map(render).collect();
            assert_eq!(rendered.join("; "), *text, "after {last:?}");
        }
        (Err(e), Err(want)) => {
            assert_eq!(e, want);
            assert_eq!(deal, before, "a rejected action must change nothing");
        }
        _ => panic!("{last:?}: expected {expect:?}, got {got:?}"),
    }
    deal.assert_invariants();
    deal
}

fn render(e: &Event) -> String {
    match e {
        Event::Lead { seat, cards } => format!("lead {seat} {cards}"),
        Event::Beat { seat, cards } => format!("beat {seat} {cards}"),
        Event::Pass { seat, cards } => format!("pass {seat} {cards}"),
        Event::Molodka { seat, cards } => format!("molodka {seat} {cards}"),
        Event::Trick {
            winner,
            cards,
            points,
        } => format!("trick {winner} {}c {points}p", cards.len()),
        Event::Draw { seat, card } => format!("draw {seat} {card}"),
        other => format!("{other:?}"),
    }
}

// Hands used by most tests: trump is hearts (the 9♥ in the stock).
const HANDS: [&str; 4] = ["6S 9S QS AD", "7S KS 7H 6D", "8S JS 8D 9D", "TS 6C 7C 8C"];

fn basic() -> Deal {
    deal_with(3, 0, HANDS, "", "9H")
}

#[test]
fn beat_and_pass_cases() {
    use Step::*;
    let lead = [Lead(0, "9S")];
    let target = |c| Err(RuleError::CannotBeat { target: cards(c) });
    // Same suit and higher beats; the ten ranks above the king.
    check(basic(), &lead, Beat(1, "KS"), Ok("beat 1 KS"));
    check(
        basic(),
        &[Lead(0, "QS"), Pass(1, "6D"), Pass(2, "8D")],
        Beat(3, "TS"),
        Ok("beat 3 TS; trick 3 4c 13p; draw 3 AS; draw 0 6H; draw 1 8H; draw 2 TH"),
    );
    // Lower of the same suit cannot beat.
    check(basic(), &lead, Beat(1, "7S"), target("9S"));
    // Any trump beats a non-trump.
    check(basic(), &[Lead(0, "AD")], Beat(1, "7H"), Ok("beat 1 7H"));
    // Different non-trump suits cannot be compared.
    check(basic(), &lead, Beat(1, "6D"), target("9S"));
    check(
        basic(),
        &[Lead(0, "AD"), Pass(1, "6D")],
        Beat(2, "8S"),
        target("AD"),
    );
    // A beat must beat the play that currently wins, not the lead.
    check(
        basic(),
        &[Lead(0, "6S"), Beat(1, "KS")],
        Beat(2, "JS"),
        target("KS"),
    );
    // Multi-card beats: any one-to-one pairing counts, in any order.
    check(
        basic(),
        &[Lead(0, "9S QS")],
        Beat(1, "KS 7H"),
        Ok("beat 1 KS 7H"),
    );
    check(
        basic(),
        &[Lead(0, "QS 6S")],
        Beat(1, "7S 7H"),
        Ok("beat 1 7S 7H"),
    );
    // K♠ beats both, but 7♠ beats neither: no pairing works.
    check(
        basic(),
        &[Lead(0, "9S QS")],
        Beat(1, "KS 7S"),
        target("9S QS"),
    );
    // Wrong number of cards.
    let wrong = Err(RuleError::WrongCount {
        expected: 2,
        got: 1,
    });
    check(basic(), &[Lead(0, "9S QS")], Beat(1, "KS"), wrong.clone());
    check(basic(), &[Lead(0, "9S QS")], Pass(1, "KS"), wrong);
    // Passing is always allowed, even with cards that could beat.
    let d = check(basic(), &lead, Pass(1, "KS"), Ok("pass 1 KS"));
    let v = d.view(seat(2));
    assert_eq!(v.table[seat(1)], Some(TableCards::FaceDown(1)));
    assert_eq!(v.my_passed, CardSet::EMPTY);
    assert_eq!(v.winning, Some((seat(0), cards("9S"))));
    assert_eq!(d.view(seat(1)).my_passed, cards("KS"));
}

#[test]
fn turn_and_shape_errors() {
    use Step::*;
    check(basic(), &[], Lead(1, "7S"), Err(RuleError::NotYourTurn));
    check(basic(), &[], Beat(0, "9S"), Err(RuleError::NothingLed));
    check(
        basic(),
        &[],
        Lead(0, "9S QS 6D"),
        Err(RuleError::NotInHand {
            card: "6D".parse().unwrap(),
        }),
    );
    check(basic(), &[], Lead(0, ""), Err(RuleError::NoCards));
    check(
        deal_with(3, 1, HANDS, "", "9H"),
        &[],
        Lead(1, "7S 7H"),
        Err(RuleError::MixedSuits),
    );
    check(
        basic(),
        &[Lead(0, "9S")],
        Lead(1, "7S"),
        Err(RuleError::AlreadyLed),
    );
    check(
        basic(),
        &[Lead(0, "9S")],
        Beat(2, "JS"),
        Err(RuleError::NotYourTurn),
    );
    check(basic(), &[], Molodka(0), Err(RuleError::NoMolodka));
}

#[test]
fn trick_goes_to_the_last_beat_and_everyone_draws() {
    use Step::*;
    let d = check(
        basic(),
        &[Lead(0, "9S QS"), Beat(1, "KS 7H"), Pass(2, "8S 8D")],
        Pass(3, "6C 7C"),
        // Seat 1 takes 8 cards (Q=3, K=4); draws start with the winner and
        // the revealed 9♥ is drawn like any other card.
        Ok(
            "pass 3 6C 7C; trick 1 8c 7p; draw 1 AS; draw 2 6H; draw 3 8H; draw 0 TH; draw 1 JH; draw 2 9H; draw 3 QH; draw 0 KH",
        ),
    );
    assert_eq!(d.to_act(), Some(seat(1)));
    assert_eq!(d.pile(Team::of(seat(1))).len(), 8);
    assert_eq!(d.stock_len(), 12);
}

#[test]
fn seen_events_hide_other_seats_passes_draws_and_taken_cards() {
    let mut d = basic();
    let mut events = Vec::new();
    for (s, a) in [
        (0, Action::Lead(cards("9S QS"))),
        (1, Action::Beat(cards("KS 7H"))),
        (2, Action::Pass(cards("8S 8D"))),
        (3, Action::Pass(cards("6C 7C"))),
    ] {
        d.apply_into(seat(s), a, &mut events).unwrap();
    }
    let seen = |by: Option<u8>| -> String {
        let rendered: Vec<String> = events
            .iter()
            .take(7)
            .map(
                |e| match by.map_or_else(|| e.public(), |s| e.seen_by(seat(s))) {
                    SeenEvent::Lead { seat, cards } => format!("lead {seat} {cards}"),
                    SeenEvent::Beat { seat, cards } => format!("beat {seat} {cards}"),
                    SeenEvent::Pass { seat, count, cards } => match cards {
                        Some(c) => format!("pass {seat} {c}"),
                        None => format!("pass {seat} {count}x"),
                    },
                    SeenEvent::Trick { winner, count } => format!("trick {winner} {count}c"),
                    SeenEvent::Draw { seat, card } => match card {
                        Some(c) => format!("draw {seat} {c}"),
                        None => format!("draw {seat} ?"),
                    },
                    other => format!("{other:?}"),
                },
            )
            .collect();
        rendered.join("; ")
    };
    let head = "lead 0 9S QS; beat 1 KS 7H";
    assert_eq!(
        seen(Some(2)),
        format!("{head}; pass 2 8S 8D; pass 3 2x; trick 1 8c; draw 1 ?; draw 2 6H"),
    );
    assert_eq!(
        seen(Some(1)),
        format!("{head}; pass 2 2x; pass 3 2x; trick 1 8c; draw 1 AS; draw 2 ?"),
    );
    assert_eq!(
        seen(None),
        format!("{head}; pass 2 2x; pass 3 2x; trick 1 8c; draw 1 ?; draw 2 ?"),
    );
    // Everything that is public stays as it was.
    let over = Event::SeriesOver {
        goat: Team::ALL[1],
        with_eggs: true,
    };
    assert_eq!(
        over.seen_by(seat(0)),
        SeenEvent::SeriesOver {
            goat: Team::ALL[1],
            with_eggs: true
        }
    );
}

#[test]
fn draws_when_the_stock_runs_short() {
    // Single-card tricks take the stock from 20 down to 4 cards; then a
    // two-card trick can refill only one card each: hands stay equal, at 3.
    let mut d = basic();
    let single = |a: &Action| matches!(a, Action::Lead(c) | Action::Pass(c) if c.len() == 1);
    while d.stock_len() > 4 {
        let s = d.to_act().unwrap();
        let a = d.legal_actions(s).into_iter().find(single).unwrap();
        d.apply(s, a).unwrap();
        d.assert_invariants();
    }
    assert!(Seat::ALL.iter().all(|&s| d.hand(s).len() == 4));
    let leader = d.to_act().unwrap();
    let pair = d
        .legal_actions(leader)
        .into_iter()
        .find(|a| matches!(a, Action::Lead(c) if c.len() == 2));
    let pair = pair.expect("this deal has a two-card lead here");
    let mut events = d.apply(leader, pair).unwrap();
    for s in leader.clockwise().skip(1) {
        let pass = d
            .legal_actions(s)
            .into_iter()
            .find(|a| matches!(a, Action::Pass(_)))
            .unwrap();
        events.extend(d.apply(s, pass).unwrap());
    }
    let draws = events
        .iter()
        .filter(|e| matches!(e, Event::Draw { .. }))
        .count();
    assert_eq!(draws, 4);
    assert_eq!(d.stock_len(), 0);
    assert!(Seat::ALL.iter().all(|&s| d.hand(s).len() == 3));
    d.assert_invariants();
}

// Molodka hands: seat 2 holds four diamonds, seat 3 four clubs.
const MOLODKA: [&str; 4] = ["6S 9S AS 6H", "7S KS 7H 6D", "7D 8D 9D JD", "6C 7C 8C 9C"];

fn molodka_deal(leader: u8) -> Deal {
    deal_with(leader.wrapping_add(3) % 4, leader, MOLODKA, "", "9H")
}

#[test]
fn molodka_cases() {
    use Step::*;
    // Before any play, out of turn.
    let d = check(
        molodka_deal(0),
        &[],
        Molodka(2),
        Ok("molodka 2 7D 8D 9D JD"),
    );
    assert_eq!(d.to_act(), Some(seat(3)));
    assert_eq!(d.view(seat(0)).width, 4);
    // After plays: the table goes back to its owners.
    let d = check(
        molodka_deal(0),
        &[Lead(0, "9S"), Beat(1, "KS")],
        Molodka(2),
        Ok("molodka 2 7D 8D 9D JD"),
    );
    assert_eq!(d.hand(seat(0)), cards("6S 9S AS 6H"));
    assert_eq!(d.hand(seat(1)), cards("7S KS 7H 6D"));
    // Passed cards go back too.
    let d = check(
        molodka_deal(0),
        &[Lead(0, "9S"), Pass(1, "6D")],
        Molodka(3),
        Ok("molodka 3 6C 7C 8C 9C"),
    );
    assert_eq!(d.hand(seat(1)), cards("7S KS 7H 6D"));
    assert_eq!(d.to_act(), Some(seat(0)));
    // Priority: seat 2 is closer to the leader (0) than seat 3, so it overrides.
    let d = check(
        molodka_deal(0),
        &[Molodka(3)],
        Molodka(2),
        Ok("molodka 2 7D 8D 9D JD"),
    );
    assert_eq!(d.hand(seat(3)), cards("6C 7C 8C 9C"));
    assert_eq!(d.to_act(), Some(seat(3)));
    // ... even after others answered seat 3's molodka.
    check(
        molodka_deal(0),
        &[Molodka(3), Pass(0, "6S 9S AS 6H")],
        Molodka(2),
        Ok("molodka 2 7D 8D 9D JD"),
    );
    // No override by a player farther from the leader.
    check(
        molodka_deal(0),
        &[Molodka(2)],
        Molodka(3),
        Err(RuleError::MolodkaOutranked),
    );
    // With seat 3 leading, seat 3 is first and seat 2 last in priority.
    check(
        molodka_deal(3),
        &[Molodka(2)],
        Molodka(3),
        Ok("molodka 3 6C 7C 8C 9C"),
    );
    check(
        molodka_deal(3),
        &[Lead(3, "6C 7C 8C 9C")],
        Molodka(2),
        Err(RuleError::MolodkaOutranked),
    );
    // The leader's four-card lead of one suit is a molodka.
    check(
        molodka_deal(2),
        &[],
        Lead(2, "7D 8D 9D JD"),
        Ok("molodka 2 7D 8D 9D JD"),
    );
    check(
        molodka_deal(2),
        &[],
        Molodka(2),
        Ok("molodka 2 7D 8D 9D JD"),
    );
    // Answering a molodka: four cards each, beat or pass.
    let d = check(
        molodka_deal(2),
        &[Molodka(2), Pass(3, "6C 7C 8C 9C"), Pass(0, "6S 9S AS 6H")],
        Pass(1, "7S KS 7H 6D"),
        Ok(
            "pass 1 7S KS 7H 6D; trick 2 16c 17p; draw 2 8S; draw 3 TS; draw 0 JS; draw 1 QS; draw 2 8H; draw 3 9H; draw 0 TH; draw 1 JH; draw 2 QH; draw 3 KH; draw 0 AH; draw 1 TD; draw 2 QD; draw 3 KD; draw 0 AD; draw 1 TC",
        ),
    );
    assert_eq!(d.to_act(), Some(seat(2)));
    // A hand that is not four of one suit holds no molodka; nor does one after playing.
    check(molodka_deal(0), &[], Molodka(1), Err(RuleError::NoMolodka));
    check(
        molodka_deal(1),
        &[Lead(1, "7S"), Pass(2, "7D")],
        Molodka(2),
        Err(RuleError::NoMolodka),
    );
}

#[test]
fn molodka_is_legal_out_of_turn_and_listed() {
    let d = molodka_deal(0);
    assert_eq!(d.legal_actions(seat(2)), vec![Action::Molodka]);
    assert!(d.legal_actions(seat(1)).is_empty());
    assert_eq!(
        d.seats_that_may_act().collect::<Vec<_>>(),
        vec![seat(0), seat(2), seat(3)]
    );
}

#[test]
fn deal_scoring() {
    let s = seat(0);
    type Case = ([u32; 2], [u32; 2], [u32; 2], bool);
    let cases: &[Case] = &[
        ([61, 59], [3, 2], [0, 2], false),
        ([59, 61], [3, 2], [2, 0], false),
        ([89, 31], [5, 1], [0, 2], false),
        ([90, 30], [5, 1], [0, 4], false),
        ([120, 0], [8, 1], [0, 4], false),
        ([120, 0], [9, 0], [0, 6], false),
        ([0, 120], [0, 5], [6, 0], false),
        ([60, 60], [4, 4], [0, 0], true),
    ];
    for &(pts, tricks, defeat, eggs) in cases {
        let r = DealResult::score(pts, tricks, s);
        assert_eq!(
            (r.defeat_points, r.eggs),
            (defeat, eggs),
            "{pts:?} {tricks:?}"
        );
    }
}

/// Plays the current deal of `series` to its end with seeded random choices.
fn play_out_deal(series: &mut Series, rng: &mut Xoshiro256PlusPlus) -> Vec<Event> {
    let deal_no = series.deal_no();
    let mut events = Vec::new();
    while series.deal_no() == deal_no && !series.is_over() {
        let s = series.to_act().unwrap();
        let legal = series.legal_actions(s);
        let a = legal[rng.random_range(0..legal.len())];
        series.apply_into(s, a, &mut events).unwrap();
    }
    events
}

#[test]
fn next_deal_dealer_and_leader() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut series = Series::new(9);
    let first = series.deal().clone();
    assert_eq!(first.first_leader(), first.dealer().next());
    let events = play_out_deal(&mut series, &mut rng);
    let last_winner = events.iter().rev().find_map(|e| match e {
        Event::Trick { winner, .. } => Some(*winner),
        _ => None,
    });
    assert_eq!(series.deal_no(), 2);
    assert_eq!(series.deal().dealer(), first.dealer().next());
    assert_eq!(Some(series.deal().first_leader()), last_winner);
    assert_eq!(series.deal().to_act(), last_winner);
    assert!(matches!(
        events.last(),
        Some(Event::DealStarted { deal: 2, .. })
    ));
}

#[test]
fn series_ends_at_twelve_with_the_goat() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for (start, eggs, want_eggs) in [([10, 0], false, false), ([11, 4], true, true)] {
        let mut series = Series::new(17);
        series.defeat_points = start;
        series.eggs_seen = eggs;
        let mut all = Vec::new();
        while !series.is_over() {
            all.extend(play_out_deal(&mut series, &mut rng));
        }
        let d = series.defeat_points();
        let goat = series.goat().unwrap();
        assert!(d[goat.index()] >= SERIES_LOSS);
        assert!(d[goat.other().index()] < SERIES_LOSS);
        let over = all.iter().find_map(|e| match e {
            Event::SeriesOver { goat, with_eggs } => Some((*goat, *with_eggs)),
            _ => None,
        });
        let saw_eggs = want_eggs || series.results().iter().any(|r| r.eggs);
        assert_eq!(over, Some((goat, saw_eggs)));
        assert_eq!(series.legal_actions(Seat::ALL[0]), vec![]);
        assert_eq!(
            series.apply(Seat::ALL[0], Action::Molodka),
            Err(RuleError::SeriesOver)
        );
    }
}

#[test]
fn same_seed_same_series() {
    assert_eq!(Series::new(1234), Series::new(1234));
    assert_ne!(Series::new(1234).deal(), Series::new(1235).deal());
}

#[test]
fn view_hides_other_hands_and_the_stock() {
    let d = basic();
    let json = serde_json::to_string(&d.view(seat(1))).unwrap();
    for other in ["AS", "JS", "TS"] {
        assert!(!json.contains(other), "seat 1's view leaks {other}: {json}");
    }
    assert!(json.contains("KS"));
}

/// A random action, legal or not, for a random seat.
fn random_action(deal: &Deal, rng: &mut Xoshiro256PlusPlus) -> (Seat, Action) {
    let s = Seat::ALL[rng.random_range(0..4usize)];
    let pool = if rng.random_bool(0.8) {
        deal.hand(s)
    } else {
        deck()
    };
    let subset: CardSet = pool.iter().filter(|_| rng.random_bool(0.4)).collect();
    let a = match rng.random_range(0..4) {
        0 => Action::Lead(subset),
        1 => Action::Beat(subset),
        2 => Action::Pass(subset),
        _ => Action::Molodka,
    };
    (s, a)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random actions, legal or not: the engine never panics, a rejection
    /// changes nothing, acceptance matches enumeration exactly, the 36
    /// cards are always all present once, and the deal always ends with
    /// 120 points shared.
    #[test]
    fn random_play_keeps_every_invariant(seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut series = Series::new(seed);
        let mut steps = 0;
        while series.deal_no() == 1 {
            steps += 1;
            prop_assert!(steps < 20_000, "the deal must end");
            let deal = series.deal().clone();
            let (s, a) = random_action(&deal, &mut rng);
            let legal = deal.legal_actions(s);
            let before = series.clone();
            match series.apply(s, a) {
                Ok(_) => prop_assert!(legal.contains(&a), "{a:?} accepted but not enumerated"),
                Err(_) => {
                    prop_assert!(!legal.contains(&a), "{a:?} enumerated but refused");
                    prop_assert_eq!(&series, &before);
                }
            }
            if series.deal_no() == 1 {
                series.deal().assert_invariants();
                // Every position play reaches survives a snapshot.
                let json = serde_json::to_string(series.deal()).unwrap();
                prop_assert_eq!(&serde_json::from_str::<Deal>(&json).unwrap(), series.deal());
            }
            // Every enumerated action is accepted.
            for &la in &legal {
                let mut probe = deal.clone();
                prop_assert!(probe.apply(s, la).is_ok());
            }
            // Push the deal forward now and then so it ends.
            if let Some(t) = series.to_act().filter(|_| steps % 3 == 0 && series.deal_no() == 1) {
                let l = series.legal_actions(t);
                let a = l[rng.random_range(0..l.len())];
                series.apply(t, a).unwrap();
            }
        }
        let r = series.results()[0];
        prop_assert_eq!(r.team_points[0] + r.team_points[1], DEAL_POINTS);
    }
}

/// A snapshot holding an impossible deal is refused when it is read, with
/// the broken invariant named, instead of failing somewhere in play.
#[test]
fn impossible_deals_fail_to_deserialize() {
    use serde_json::{Value, json};

    let series = Series::new(5);
    let good = serde_json::to_value(series.deal()).unwrap();
    assert_eq!(
        &serde_json::from_value::<Deal>(good.clone()).unwrap(),
        series.deal()
    );
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        edit(&mut v);
        serde_json::from_value::<Deal>(v)
            .expect_err("an impossible deal")
            .to_string()
    };
    let card = |v: &Value, path: &str, i: usize| v.pointer(path).unwrap()[i].clone();
    fn hand(v: &mut Value, seat: usize) -> &mut Vec<Value> {
        v["hands"][seat].as_array_mut().unwrap()
    }

    // A card of seat 0's hand also in seat 1's hand: 37 cards.
    let dup = refused(&|v| {
        let c = card(v, "/hands/0", 0);
        hand(v, 1)[0] = c;
    });
    assert!(dup.contains("each once"), "{dup}");
    // A card gone from seat 0's hand: 35 cards.
    let missing = refused(&|v| {
        hand(v, 0).pop();
    });
    assert!(missing.contains("each once"), "{missing}");
    // Every card once, but seat 0 holds five and seat 1 three.
    let sizes = refused(&|v| {
        let c = hand(v, 1).pop().unwrap();
        hand(v, 0).push(c);
    });
    assert!(sizes.contains("differ in size"), "{sizes}");
    // The same in the hands as dealt.
    let dealt = refused(&|v| {
        let c = v["dealt"][1].as_array_mut().unwrap().pop().unwrap();
        v["dealt"][0].as_array_mut().unwrap().push(c);
    });
    assert!(dealt.contains("dealt 4 cards"), "{dealt}");
    // A stock card twice, the top one.
    let stock = refused(&|v| {
        let c = card(v, "/stock", 0);
        v["stock"][19] = c;
    });
    assert!(stock.contains("each once"), "{stock}");
    // More drawn than there was.
    let drawn = refused(&|v| v["drawn"] = json!(21));
    assert!(drawn.contains("more cards drawn"), "{drawn}");
    // A revealed card that is not in the stock.
    let trump = refused(&|v| {
        let c = card(v, "/hands/0", 0);
        v["trump_card"] = c;
    });
    assert!(trump.contains("revealed card"), "{trump}");
    for why in [&dup, &missing, &sizes, &dealt, &stock, &drawn, &trump] {
        assert!(why.starts_with("inconsistent Kozel deal: "), "{why}");
    }

    // A series snapshot carrying such a deal is refused too.
    let mut snapshot = serde_json::to_value(&series).unwrap();
    snapshot["deal"]["hands"][0].as_array_mut().unwrap().pop();
    let err = serde_json::from_value::<Series>(snapshot).unwrap_err();
    assert!(err.to_string().contains("inconsistent Kozel deal"), "{err}");
}
