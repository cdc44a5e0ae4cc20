//! An independent checker for Hearts deal records.
//!
//! Records come from `kozyr::sim::hearts::play_game`; everything after that
//! is re-derived here from the JSON alone with this file's own card logic,
//! without calling `kozyr::hearts`'s rule code: the deal, the passes, every
//! play against every rule, trick winners and points, deal and running
//! totals, shooting the moon and the end of the game.

use std::collections::BTreeSet;

use kozyr::ai::hearts::Observation;
use kozyr::cards::Seat;
use kozyr::hearts::{Action, HeartsOptions};
use kozyr::sim::hearts::{game_seed, play_game, random_chooser};
use serde_json::Value;

/// A card as this checker sees it: rank 0 (two) … 12 (ace), suit letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct C {
    suit: char,
    rank: u8,
}

impl C {
    fn parse(v: &Value) -> C {
        let s = v
            .as_str()
            .unwrap_or_else(|| panic!("card is not a string: {v}"));
        let b: Vec<char> = s.chars().collect();
        assert_eq!(b.len(), 2, "card {s:?}");
        let rank = "23456789TJQKA"
            .find(b[0])
            .unwrap_or_else(|| panic!("bad rank in {s:?}")) as u8;
        assert!("SHDC".contains(b[1]), "bad suit in {s:?}");
        C { suit: b[1], rank }
    }

    fn points(self) -> u32 {
        match (self.suit, self.rank) {
            ('H', _) => 1,
            ('S', 10) => 13,
            _ => 0,
        }
    }

    fn is_point(self) -> bool {
        self.points() > 0
    }
}

const TWO_OF_CLUBS: C = C { suit: 'C', rank: 0 };

fn cards(v: &Value) -> Vec<C> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a card list: {v}"))
        .iter()
        .map(C::parse)
        .collect()
}

fn seat(v: &Value) -> usize {
    let s = v.as_u64().unwrap_or_else(|| panic!("not a seat: {v}"));
    assert!(s < 4, "seat {s}");
    s as usize
}

fn four_u32(v: &Value) -> [u32; 4] {
    let a = v
        .as_array()
        .unwrap_or_else(|| panic!("not four numbers: {v}"));
    assert_eq!(a.len(), 4);
    std::array::from_fn(|i| a[i].as_u64().unwrap() as u32)
}

/// What the checker carries from one deal of a game to the next.
struct GameSoFar {
    series: u64,
    deal: u64,
    dealer: usize,
    totals: [u32; 4],
    over: bool,
}

/// Checks one record against the rules and the previous deal of its game.
fn check_record(r: &Value, options: (bool, u32), prev: Option<&GameSoFar>) -> GameSoFar {
    let (moon_option, end_score) = options;
    assert_eq!(r["game"], "hearts");
    assert!(r["table"].is_string());
    assert_eq!(r["options"]["shoot_the_moon"], moon_option);
    assert_eq!(r["options"]["end_score"], end_score);
    // The common rule: any heart played breaks hearts, not only a discard.
    let any_heart_breaks = r["options"]["any_heart_breaks"].as_bool().unwrap_or(false);
    let series = r["series"].as_u64().unwrap();
    let deal = r["deal"].as_u64().unwrap();
    let dealer = seat(&r["dealer"]);
    let prev_totals = match prev {
        Some(p) if p.series == series => {
            assert!(!p.over, "a deal after the game ended");
            assert_eq!(deal, p.deal + 1, "deals are numbered in order");
            assert_eq!(dealer, (p.dealer + 1) % 4, "the dealer moves clockwise");
            p.totals
        }
        _ => {
            if let Some(p) = prev {
                assert!(p.over, "game {} stopped before its end", p.series);
                assert_eq!(series, p.series + 1);
            }
            assert_eq!(deal, 1, "a game starts with deal 1");
            [0; 4]
        }
    };

    // The deal: 4 × 13 cards, the 52 each once.
    let mut hands: Vec<Vec<C>> = r["hands"].as_array().unwrap().iter().map(cards).collect();
    assert_eq!(hands.len(), 4);
    let all: BTreeSet<C> = hands.iter().flatten().copied().collect();
    assert!(hands.iter().all(|h| h.len() == 13));
    assert_eq!(all.len(), 52);

    // Passing: left, right, across, none by deal number.
    let expected = ["left", "right", "across", "none"][((deal - 1) % 4) as usize];
    assert_eq!(r["pass_direction"], expected);
    let passes: Vec<Vec<C>> = r["passes"].as_array().unwrap().iter().map(cards).collect();
    if expected == "none" {
        assert!(passes.is_empty(), "no passes on a no-pass deal");
    } else {
        assert_eq!(passes.len(), 4);
        let shift = match expected {
            "left" => 1,
            "right" => 3,
            _ => 2,
        };
        for (s, p) in passes.iter().enumerate() {
            let distinct: BTreeSet<C> = p.iter().copied().collect();
            assert_eq!(distinct.len(), 3, "seat {s} passes 3 different cards");
            assert!(
                p.iter().all(|c| hands[s].contains(c)),
                "seat {s} passes its own cards"
            );
        }
        for (s, p) in passes.iter().enumerate() {
            hands[s].retain(|c| !p.contains(c));
            hands[(s + shift) % 4].extend(p);
        }
        assert!(hands.iter().all(|h| h.len() == 13));
    }

    // The play.
    let events = r["events"].as_array().unwrap();
    assert_eq!(
        events.len(),
        13 * 5,
        "13 tricks of 4 plays and a trick event"
    );
    let mut leader = (0..4).find(|&s| hands[s].contains(&TWO_OF_CLUBS)).unwrap();
    let mut broken = false;
    let mut taken = [0u32; 4];
    for (t, trick) in events.chunks(5).enumerate() {
        let first = t == 0;
        let mut played: Vec<(usize, C)> = Vec::new();
        let mut broken_now = false;
        for (i, e) in trick[..4].iter().enumerate() {
            assert_eq!(e["kind"], "play", "trick {t}: {e}");
            assert_eq!(
                e.as_object().unwrap().len(),
                3,
                "play events are kind, seat, card"
            );
            let s = seat(&e["seat"]);
            let c = C::parse(&e["card"]);
            assert_eq!(
                s,
                (leader + i) % 4,
                "trick {t}: plays go clockwise from the leader"
            );
            let hand = &hands[s];
            assert!(
                hand.contains(&c),
                "trick {t}: seat {s} plays {c:?} it does not hold"
            );
            match played.first() {
                None if first => assert_eq!(c, TWO_OF_CLUBS, "the 2♣ leads the first trick"),
                None => {
                    if c.suit == 'H' && !broken {
                        assert!(
                            hand.iter().all(|c| c.suit == 'H'),
                            "trick {t}: hearts led before broken by a hand with other suits"
                        );
                    }
                }
                Some(&(_, lead)) => {
                    let can_follow = hand.iter().any(|h| h.suit == lead.suit);
                    if can_follow {
                        assert_eq!(c.suit, lead.suit, "trick {t}: seat {s} must follow suit");
                    } else {
                        if first && c.is_point() {
                            assert!(
                                hand.iter().all(|h| h.is_point()),
                                "trick {t}: points on the first trick with a choice"
                            );
                        }
                        broken_now |= c.suit == 'H';
                    }
                }
            }
            broken_now |= any_heart_breaks && c.suit == 'H';
            hands[s].retain(|&h| h != c);
            played.push((s, c));
        }
        let lead = played[0].1;
        let (winner, _) = played
            .iter()
            .filter(|(_, c)| c.suit == lead.suit)
            .max_by_key(|(_, c)| c.rank)
            .copied()
            .unwrap();
        let points: u32 = played.iter().map(|(_, c)| c.points()).sum();
        let e = &trick[4];
        assert_eq!(e["kind"], "trick");
        assert_eq!(
            e.as_object().unwrap().len(),
            3,
            "trick events are kind, winner, points"
        );
        assert_eq!(
            seat(&e["winner"]),
            winner,
            "trick {t}: highest of the led suit wins"
        );
        assert_eq!(e["points"], points, "trick {t}: points");
        taken[winner] += points;
        leader = winner;
        broken |= broken_now;
    }
    assert!(hands.iter().all(Vec::is_empty));

    // Scoring.
    assert_eq!(taken.iter().sum::<u32>(), 26);
    let shooter = (0..4).find(|&s| taken[s] == 26).filter(|_| moon_option);
    let expected_points: [u32; 4] = match shooter {
        Some(m) => std::array::from_fn(|s| if s == m { 0 } else { 26 }),
        None => taken,
    };
    assert_eq!(four_u32(&r["deal_points"]), expected_points);
    let totals: [u32; 4] = std::array::from_fn(|s| prev_totals[s] + expected_points[s]);
    assert_eq!(four_u32(&r["total_points"]), totals);
    let over = totals.iter().any(|&t| t >= end_score);
    assert_eq!(r["game_over"], over);
    GameSoFar {
        series,
        deal,
        dealer,
        totals,
        over,
    }
}

/// A chooser that makes moons likely: seat 0 plays its highest legal card
/// and passes its lowest, everyone else plays and passes at random.
fn moon_hunter(seed: u64) -> impl FnMut(Seat, &Observation, &[Action]) -> Action {
    let mut random = random_chooser(seed);
    move |seat, view, legal| {
        if seat.index() != 0 {
            return random(seat, view, legal);
        }
        let rank = |a: &Action| match a {
            Action::Play(c) => c.rank() as u32,
            Action::PassCards(cs) => 100 - cs.iter().map(|c| c.rank() as u32).sum::<u32>(),
        };
        legal.iter().copied().max_by_key(rank).unwrap()
    }
}

#[test]
fn records_follow_every_rule() {
    // (games, moon option, end score, use the moon hunter, any heart breaks)
    let runs = [
        (200, false, 100, false, false),
        (60, true, 100, false, false),
        (40, true, 100, true, false),
        (40, false, 60, true, false),
        (40, false, 100, false, true),
    ];
    let mut moons = 0;
    let mut hundreds = 0;
    for (run, &(games, moon, end_score, hunter, any)) in runs.iter().enumerate() {
        let options = HeartsOptions {
            shoot_the_moon: moon,
            end_score,
            any_heart_breaks: any,
        };
        let mut prev: Option<GameSoFar> = None;
        for series in 1..=games {
            let seed = game_seed(run as u64, series);
            let result = if hunter {
                play_game("check", series, options, seed, moon_hunter(seed))
            } else {
                play_game("check", series, options, seed, random_chooser(seed))
            };
            for record in result.unwrap() {
                let line = serde_json::to_string(&record).unwrap();
                assert!(!line.contains('\n'));
                let v: Value = serde_json::from_str(&line).unwrap();
                // Exactly the record's fields, in the documented order.
                let fields = [
                    "game",
                    "table",
                    "series",
                    "deal",
                    "dealer",
                    "options",
                    "hands",
                    "pass_direction",
                    "passes",
                    "events",
                    "deal_points",
                    "total_points",
                    "game_over",
                ];
                assert_eq!(v.as_object().unwrap().len(), fields.len());
                let at: Vec<Option<usize>> = fields
                    .iter()
                    .map(|f| line.find(&format!("\"{f}\":")))
                    .collect();
                assert!(at.iter().all(Option::is_some), "{line}");
                assert!(at.windows(2).all(|w| w[0] < w[1]), "field order in {line}");
                let state = check_record(&v, (moon, end_score), prev.as_ref());
                let deal_points = four_u32(&v["deal_points"]);
                if deal_points.iter().sum::<u32>() == 78 {
                    moons += 1;
                }
                hundreds += u32::from(state.over);
                prev = Some(state);
            }
        }
        assert!(
            prev.is_some_and(|p| p.over),
            "the last game of run {run} ended"
        );
    }
    assert_eq!(hundreds, 380, "every game ends exactly once");
    assert!(
        moons > 0,
        "no moon was shot; the moon branch went unchecked"
    );
}

#[test]
fn the_checker_catches_a_broken_record() {
    let options = HeartsOptions::default();
    let records = play_game("check", 1, options, 3, random_chooser(3)).unwrap();
    let good = serde_json::to_value(&records[0]).unwrap();
    check_record(&good, (false, 100), None);
    // Swap the first two plays of the second trick: out of turn.
    let mut swapped = good.clone();
    let events = swapped["events"].as_array_mut().unwrap();
    events.swap(5, 6);
    let result = std::panic::catch_unwind(|| check_record(&swapped, (false, 100), None));
    assert!(result.is_err(), "an out-of-turn record passed");
    // Claim the first trick for the wrong seat.
    let mut wrong = good.clone();
    let winner = seat(&wrong["events"][4]["winner"]);
    wrong["events"][4]["winner"] = ((winner + 1) % 4).into();
    let result = std::panic::catch_unwind(|| check_record(&wrong, (false, 100), None));
    assert!(result.is_err(), "a wrong trick winner passed");
}
