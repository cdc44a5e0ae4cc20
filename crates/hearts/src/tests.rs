//! Rules as data: each table row sets up a deal, plays a script and checks
//! one action; property tests drive random games, legal and illegal.

use proptest::prelude::*;

use super::*;
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};

fn seat(i: u8) -> Seat {
    Seat::ALL[i as usize]
}

fn card(s: &str) -> Card {
    s.parse().unwrap()
}

fn cards(s: &str) -> CardSet {
    s.parse().unwrap()
}

/// Four hands of 13 cards, written out in full.
type Layout = [&'static str; 4];

/// Seat 0 leads 2♣; seat 2 wins the first trick with A♣ and then holds
/// hearts, clubs and A♦; seat 3 holds one heart, the other spades.
const MIXED: Layout = [
    "2C 3C 4C 3H 4H 5H AS 2D 3D 4D 5D 6D 7D",
    "5C 6C 7C 8C 6H 7H 8H 8D 9D TD JD QD KD",
    "9C TC JC QC KC AC 9H TH JH QH KH AH AD",
    "2H 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
];

/// Seat 1 is void in clubs and holds hearts, Q♠ and one safe card (K♦);
/// seat 2 is void in clubs with hearts and spades.
const FIRST: Layout = [
    "2C 3C 4C 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
    "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KD",
    "KH AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS",
    "5C 6C 7C 8C 9C TC JC QC KC AC AS QD AD",
];

/// One suit each: seat 3 holds the clubs, so it leads every trick, wins
/// them all and takes all 26 points whatever anyone plays.
const BY_SUIT: Layout = [
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
];

/// Seat 0 holds nothing but Q♠ and hearts; seat 1 holds A♥ and spades.
const ONLY_POINTS: Layout = [
    "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
];

/// Seat 2 wins the first two tricks (A♣, A♦) and is then left with hearts
/// only; seat 1 holds K♥ A♥ among clubs and spades.
const ONLY_HEARTS: Layout = [
    "2C 3C 4C 5C 2D 3D 4D 5D 6D 7D 8D 9D TD",
    "6C 7C 8C 9C TC KH AH 2S 3S 4S 5S 6S 7S",
    "AC AD 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
    "JC QC KC 8S 9S TS JS QS KS AS JD QD KD",
];

/// (layout, script, seat, card it plays, expected outcome)
type Row = (
    Layout,
    &'static str,
    u8,
    &'static str,
    Result<(), RuleError>,
);

/// A deal from `layout` with seat 0 dealing.
fn deal(layout: Layout, number: u32) -> Deal {
    let hands = PerSeat(layout.map(cards));
    Deal::from_hands(hands, seat(0), number).unwrap()
}

/// Plays `script`: each card by whichever seat is to play.
fn play_script(deal: &mut Deal, script: &str) {
    for c in script.split_whitespace() {
        let s = deal.to_act().expect("someone is to play");
        if let Err(e) = deal.apply(s, Action::Play(card(c))) {
            panic!("script card {c} by seat {s}: {e}");
        }
    }
}

/// Sets up a no-pass deal, plays `script`, then checks that `seat`
/// playing `card` gives `expect` — and that a refusal changed nothing and
/// matches the enumerated legal plays.
fn check(layout: Layout, script: &str, by: u8, play: &str, expect: Result<(), RuleError>) {
    let mut d = deal(layout, 4);
    play_script(&mut d, script);
    let before = d;
    let action = Action::Play(card(play));
    let got = d.apply(seat(by), action).map(|_| ());
    assert_eq!(got, expect, "after `{script}`, seat {by} plays {play}");
    assert_eq!(
        before.legal_actions(seat(by)).contains(&action),
        expect.is_ok(),
        "legal_actions disagrees for {play}"
    );
    if expect.is_err() {
        assert_eq!(d, before, "a refused action changed the deal");
    }
}

#[test]
fn two_of_clubs_leads() {
    use RuleError::*;
    let rows: &[Row] = &[
        (MIXED, "", 0, "2C", Ok(())),
        (MIXED, "", 0, "3C", Err(MustLeadTwoOfClubs)),
        (MIXED, "", 0, "2D", Err(MustLeadTwoOfClubs)),
        (MIXED, "", 1, "5C", Err(NotYourTurn)),
        (BY_SUIT, "", 3, "2C", Ok(())),
        (BY_SUIT, "", 0, "2S", Err(NotYourTurn)),
        (BY_SUIT, "", 3, "3C", Err(MustLeadTwoOfClubs)),
        (BY_SUIT, "", 3, "2H", Err(NotInHand { card: card("2H") })),
    ];
    for &(layout, script, by, play, expect) in rows {
        check(layout, script, by, play, expect);
    }
}

#[test]
fn follow_suit() {
    use RuleError::*;
    let clubs = Err(MustFollowSuit { suit: Suit::Clubs });
    let diamonds = Err(MustFollowSuit {
        suit: Suit::Diamonds,
    });
    let rows: &[Row] = &[
        (MIXED, "2C", 1, "5C", Ok(())),
        (MIXED, "2C", 1, "8D", clubs),
        (MIXED, "2C 5C", 2, "AD", clubs),
        (MIXED, "2C 5C", 2, "AC", Ok(())),
        (MIXED, "2C 5C AC", 3, "2S", Ok(())),
        (MIXED, "2C 5C AC 2S AD", 3, "QS", Ok(())),
        (MIXED, "2C 5C AC 2S AD QS", 0, "AS", diamonds),
        (MIXED, "2C 5C AC 2S AD QS", 0, "3H", diamonds),
        (MIXED, "2C 5C AC 2S AD QS", 0, "2D", Ok(())),
        (MIXED, "2C 5C AC 2S AD QS", 1, "8D", Err(NotYourTurn)),
    ];
    for &(layout, script, by, play, expect) in rows {
        check(layout, script, by, play, expect);
    }
}

#[test]
fn no_points_on_the_first_trick_unless_nothing_else() {
    use RuleError::*;
    let rows: &[Row] = &[
        // Void in clubs with a safe card: no heart, no Q♠.
        (FIRST, "2C", 1, "2H", Err(NoPointsOnFirstTrick)),
        (FIRST, "2C", 1, "QS", Err(NoPointsOnFirstTrick)),
        (FIRST, "2C", 1, "KD", Ok(())),
        (FIRST, "2C KD", 2, "KH", Err(NoPointsOnFirstTrick)),
        (FIRST, "2C KD", 2, "2S", Ok(())),
        (BY_SUIT, "2C", 0, "QS", Err(NoPointsOnFirstTrick)),
        (BY_SUIT, "2C", 0, "AS", Ok(())),
        // Nothing but hearts: a heart it is.
        (BY_SUIT, "2C 2S", 1, "AH", Ok(())),
        // Nothing but hearts and Q♠: either may go.
        (ONLY_POINTS, "2C", 0, "QS", Ok(())),
        (ONLY_POINTS, "2C", 0, "2H", Ok(())),
        (ONLY_POINTS, "2C 2H", 1, "AH", Err(NoPointsOnFirstTrick)),
        (ONLY_POINTS, "2C QS", 1, "2S", Ok(())),
        // Following suit is never restricted: clubs hold no points.
        (
            FIRST,
            "2C KD 2S",
            3,
            "AS",
            Err(MustFollowSuit { suit: Suit::Clubs }),
        ),
        // The ban ends with the first trick.
        (MIXED, "2C 5C AC 2S AD", 3, "2H", Ok(())),
    ];
    for &(layout, script, by, play, expect) in rows {
        check(layout, script, by, play, expect);
    }
}

#[test]
fn hearts_must_be_broken_before_they_are_led() {
    use RuleError::*;
    let rows: &[Row] = &[
        (MIXED, "2C 5C AC 2S", 2, "AH", Err(HeartsNotBroken)),
        (MIXED, "2C 5C AC 2S", 2, "AD", Ok(())),
        // Q♠ discarded on a diamond does not break hearts.
        (
            MIXED,
            "2C 5C AC 2S AD QS 2D 8D",
            2,
            "AH",
            Err(HeartsNotBroken),
        ),
        // 2♥ discarded on a diamond does.
        (MIXED, "2C 5C AC 2S AD 2H 2D 8D", 2, "AH", Ok(())),
        (ONLY_HEARTS, "2C 6C AC JC", 2, "2H", Err(HeartsNotBroken)),
        // A leader holding only hearts may lead one anyway.
        (ONLY_HEARTS, "2C 6C AC JC AD JD 2D 2S", 2, "2H", Ok(())),
        // Leading hearts that way breaks nothing: only a discard does.
        (
            ONLY_HEARTS,
            "2C 6C AC JC AD JD 2D 2S 2H 8S 3D KH",
            1,
            "AH",
            Err(HeartsNotBroken),
        ),
        (
            ONLY_HEARTS,
            "2C 6C AC JC AD JD 2D 2S 2H 8S 3D KH",
            1,
            "7C",
            Ok(()),
        ),
    ];
    for &(layout, script, by, play, expect) in rows {
        check(layout, script, by, play, expect);
    }
}

#[test]
fn breaking_hearts_is_a_heart_discarded_on_another_suit() {
    // (layout, script, hearts broken afterwards)
    let rows: &[(Layout, &str, bool)] = &[
        (MIXED, "2C 5C AC 2S", false),
        (MIXED, "2C 5C AC 2S AD QS", false),
        (MIXED, "2C 5C AC 2S AD 2H", true),
        // Discarding a heart on the first trick, allowed with nothing else, breaks them.
        (ONLY_POINTS, "2C 2H", true),
        (ONLY_POINTS, "2C QS", false),
        (BY_SUIT, "2C 2S AH", true),
        // Hearts led and followed are not a discard.
        (ONLY_HEARTS, "2C 6C AC JC AD JD 2D 2S 2H 8S 3D KH", false),
    ];
    for &(layout, script, broken) in rows {
        let mut d = deal(layout, 4);
        play_script(&mut d, script);
        assert_eq!(d.hearts_broken(), broken, "after `{script}`");
        assert_eq!(d.view(seat(0)).hearts_broken, broken);
    }
}

#[test]
fn with_the_common_rule_any_heart_played_breaks_hearts() {
    // (layout, script, broken afterwards under the seed's rule, under the common one)
    let rows: &[(Layout, &str, bool, bool)] = &[
        (MIXED, "2C 5C AC 2S", false, false),
        (MIXED, "2C 5C AC 2S AD QS", false, false),
        (MIXED, "2C 5C AC 2S AD 2H", true, true),
        (ONLY_POINTS, "2C 2H", true, true),
        // A heart led by a hand of only hearts: the common rule breaks them.
        (ONLY_HEARTS, "2C 6C AC JC AD JD 2D 2S 2H", false, true),
        (
            ONLY_HEARTS,
            "2C 6C AC JC AD JD 2D 2S 2H 8S 3D KH",
            false,
            true,
        ),
    ];
    for &(layout, script, seed_rule, common_rule) in rows {
        for (any, broken) in [(false, seed_rule), (true, common_rule)] {
            let mut d = deal(layout, 4).with_any_heart_breaks(any);
            play_script(&mut d, script);
            assert_eq!(d.hearts_broken(), broken, "after `{script}` (any: {any})");
            assert_eq!(d.view(seat(0)).hearts_broken, broken);
        }
    }
    // So the next leader may lead a heart, which the seed's rule refuses.
    let script = "2C 6C AC JC AD JD 2D 2S 2H 8S 3D KH";
    for (any, expect) in [(false, Err(RuleError::HeartsNotBroken)), (true, Ok(()))] {
        let mut d = deal(ONLY_HEARTS, 4).with_any_heart_breaks(any);
        play_script(&mut d, script);
        let before = d;
        let got = d.apply(seat(1), Action::Play(card("AH"))).map(|_| ());
        assert_eq!(got, expect, "any: {any}");
        if got.is_err() {
            assert_eq!(d, before, "a refusal changes nothing");
        }
        assert_eq!(
            d.legal_plays(seat(1)).contains(card("AH")) || got.is_ok(),
            any,
            "the legal plays agree"
        );
    }
}

#[test]
fn the_match_deals_every_deal_under_the_tables_rule() {
    let options = HeartsOptions {
        any_heart_breaks: true,
        ..HeartsOptions::default()
    };
    let mut game = Match::new(options, 4);
    assert!(game.deal().any_heart_breaks());
    assert!(
        !Match::new(HeartsOptions::default(), 4)
            .deal()
            .any_heart_breaks()
    );
    // Into the second deal: the rule stays.
    while game.deal().number() == 1 {
        let s = game.awaiting().next().unwrap();
        let a = game.legal_actions(s)[0];
        game.apply(s, a).unwrap();
    }
    assert!(game.deal().any_heart_breaks());
    // Stored and loaded with the rule; older snapshots without it load off.
    let json = serde_json::to_string(&game).unwrap();
    assert_eq!(serde_json::from_str::<Match>(&json).unwrap(), game);
    let old = json.replace(",\"any_heart_breaks\":true", "");
    let loaded: Match = serde_json::from_str(&old).unwrap();
    assert!(!loaded.deal().any_heart_breaks());
    assert!(!loaded.options().any_heart_breaks);
}

#[test]
fn the_highest_card_of_the_led_suit_wins_and_leads_next() {
    // (layout, script of one or two tricks, winner of the last trick, its points)
    let rows: &[(Layout, &str, u8, u32)] = &[
        (MIXED, "2C 5C AC 2S", 2, 0),
        (MIXED, "2C 5C AC 2S AD QS 2D 8D", 2, 13),
        (MIXED, "2C 5C AC 2S AD 2H 2D KD", 2, 1),
        (FIRST, "2C KD 2S AC", 3, 0),
        (BY_SUIT, "2C AS AH AD", 3, 1),
        (ONLY_HEARTS, "2C 6C AC JC AD JD 2D 2S 2H 8S 3D KH", 1, 2),
    ];
    for &(layout, script, winner, points) in rows {
        let mut d = deal(layout, 4);
        play_script(&mut d, script);
        let last = d.last_trick().unwrap();
        assert_eq!(
            (last.winner, last.points),
            (seat(winner), points),
            "`{script}`"
        );
        assert_eq!(d.leader(), seat(winner));
        assert_eq!(d.to_act(), Some(seat(winner)));
        assert_eq!(d.points_taken()[seat(winner)], points);
    }
}

#[test]
fn passing_cycles_left_right_across_none() {
    use PassDirection::*;
    // (deal number, direction, receiver of seats 0..4)
    let rows: &[(u32, PassDirection, Option<[u8; 4]>)] = &[
        (1, Left, Some([1, 2, 3, 0])),
        (2, Right, Some([3, 0, 1, 2])),
        (3, Across, Some([2, 3, 0, 1])),
        (4, None, Option::None),
        (5, Left, Some([1, 2, 3, 0])),
        (6, Right, Some([3, 0, 1, 2])),
        (7, Across, Some([2, 3, 0, 1])),
        (8, None, Option::None),
        (9, Left, Some([1, 2, 3, 0])),
    ];
    for &(number, direction, receivers) in rows {
        let mut d = deal(MIXED, number);
        assert_eq!(d.pass_direction(), direction, "deal {number}");
        let Some(receivers) = receivers else {
            assert_eq!(d.phase(), Phase::Playing);
            let any3 = d.hand(seat(0)).iter().take(3).collect();
            assert_eq!(
                d.check(seat(0), Action::PassCards(any3)),
                Err(RuleError::NotPassing)
            );
            assert_eq!(d.received(seat(0)), Option::None);
            continue;
        };
        assert_eq!(d.phase(), Phase::Passing);
        // Everyone passes their three highest cards by index.
        let passes = PerSeat::from_fn(|s| d.hand(s).iter().skip(10).collect::<CardSet>());
        let mut events = Vec::new();
        for s in Seat::ALL {
            assert_eq!(d.to_act(), Option::None, "nobody's turn while passing");
            d.apply_into(s, Action::PassCards(passes[s]), &mut events)
                .unwrap();
        }
        assert_eq!(d.phase(), Phase::Playing);
        for s in Seat::ALL {
            let to = seat(receivers[s.index()]);
            assert_eq!(direction.target(s), Some(to));
            assert_eq!(direction.source(to), Some(s));
            assert_eq!(d.hand(to), (d.dealt()[to] - passes[to]) | passes[s]);
            assert_eq!(d.received(to), Some(passes[s]));
            assert_eq!(d.view(to).received, Some(passes[s]));
            assert_eq!(d.view(s).passed, Some(passes[s]));
            assert!(events.contains(&Event::Passed {
                seat: s,
                to,
                cards: passes[s]
            }));
        }
        let leader = d.to_act().unwrap();
        assert!(d.hand(leader).contains(TWO_OF_CLUBS));
        assert_eq!(
            events.last(),
            Some(&Event::CardsExchanged {
                received: PerSeat::from_fn(|s| d.received(s).unwrap()),
                leader
            })
        );
    }
}

#[test]
fn seen_events_show_a_pass_only_to_its_giver_and_then_its_receiver() {
    let mut d = deal(MIXED, 1);
    let passes = PerSeat::from_fn(|s| d.hand(s).iter().take(3).collect::<CardSet>());
    let mut events = Vec::new();
    for s in Seat::ALL {
        d.apply_into(s, Action::PassCards(passes[s]), &mut events)
            .unwrap();
    }
    let lead = d.to_act().unwrap();
    d.apply_into(lead, Action::Play(TWO_OF_CLUBS), &mut events)
        .unwrap();
    for by in Seat::ALL {
        let seen: Vec<SeenEvent> = events.iter().map(|e| e.seen_by(by)).collect();
        let expect: Vec<SeenEvent> = Seat::ALL
            .into_iter()
            .map(|s| SeenEvent::Passed {
                seat: s,
                to: s.next(),
                cards: (s == by).then_some(passes[s]),
            })
            .chain([
                SeenEvent::CardsExchanged {
                    received: Some(passes[by.prev()]),
                    leader: lead,
                },
                SeenEvent::Play {
                    seat: lead,
                    card: TWO_OF_CLUBS,
                },
            ])
            .collect();
        assert_eq!(seen, expect, "seen by {by}");
    }
    let public: Vec<SeenEvent> = events.iter().map(Event::public).collect();
    assert!(matches!(
        public[4],
        SeenEvent::CardsExchanged { received: None, .. }
    ));
    assert!(
        public[..4]
            .iter()
            .all(|e| matches!(e, SeenEvent::Passed { cards: None, .. }))
    );
}

#[test]
fn passing_errors() {
    use RuleError::*;
    // (cards to pass by seat 0 of MIXED on deal 1, expected)
    let rows: &[(&str, Result<(), RuleError>)] = &[
        ("2C 3C 4C", Ok(())),
        ("AS 7D 3H", Ok(())),
        ("2C 3C", Err(WrongPassCount { got: 2 })),
        ("2C 3C 4C 3H", Err(WrongPassCount { got: 4 })),
        ("", Err(WrongPassCount { got: 0 })),
        ("2C 3C AH", Err(NotInHand { card: card("AH") })),
    ];
    for &(pass, expect) in rows {
        let mut d = deal(MIXED, 1);
        let before = d;
        assert_eq!(
            d.apply(seat(0), Action::PassCards(cards(pass))).map(|_| ()),
            expect,
            "{pass}"
        );
        if expect.is_err() {
            assert_eq!(d, before);
        }
    }
    let mut d = deal(MIXED, 1);
    d.apply(seat(0), Action::PassCards(cards("2C 3C 4C")))
        .unwrap();
    assert_eq!(
        d.check(seat(0), Action::PassCards(cards("2D 3D 4D"))),
        Err(AlreadyPassed)
    );
    assert_eq!(
        d.check(seat(1), Action::Play(card("5C"))),
        Err(StillPassing)
    );
    assert_eq!(
        d.check(seat(0), Action::Play(card("2D"))),
        Err(StillPassing)
    );
    assert_eq!(
        d.awaiting().collect::<Vec<_>>(),
        [seat(1), seat(2), seat(3)]
    );
    // The passed cards are gone from the hand and not yet anywhere else.
    assert_eq!(d.hand(seat(0)).len(), 10);
    assert_eq!(d.hand(seat(1)).len(), 13);
    assert_eq!(d.view(seat(1)).passed, Option::None);
    assert_eq!(
        d.view(seat(1)).has_passed,
        PerSeat([true, false, false, false])
    );
    assert_eq!(d.view(seat(1)).leader, Option::None);
}

#[test]
fn the_new_holder_of_the_two_of_clubs_leads() {
    let mut d = deal(MIXED, 1);
    // Seat 0 passes 2♣ to seat 1 (left).
    for (s, pass) in [
        (0, "2C 3C 4C"),
        (1, "5C 6C 7C"),
        (2, "9C TC JC"),
        (3, "2S 3S 4S"),
    ] {
        d.apply(seat(s), Action::PassCards(cards(pass))).unwrap();
    }
    assert_eq!(d.to_act(), Some(seat(1)));
    assert_eq!(d.legal_plays(seat(1)), cards("2C"));
    assert_eq!(
        d.check(seat(0), Action::Play(card("2D"))),
        Err(RuleError::NotYourTurn)
    );
}

/// Plays the rest of the deal (and of any later deals, up to the end of
/// the game) with each seat's first legal action; returns all events.
fn play_out(m: &mut Match, deals: usize) -> Vec<Event> {
    let mut events = Vec::new();
    let mut finished = 0;
    while !m.is_over() && finished < deals {
        let s = m.awaiting().next().unwrap();
        let a = m.legal_actions(s)[0];
        let n = events.len();
        m.apply_into(s, a, &mut events).unwrap();
        finished += events[n..]
            .iter()
            .filter(|e| matches!(e, Event::DealOver { .. }))
            .count();
    }
    events
}

/// (deal, deal points, total points, moon shooter) of a `DealOver` event.
type DealOverFields = (u32, [u32; 4], [u32; 4], Option<Seat>);

fn deal_over(events: &[Event]) -> Option<DealOverFields> {
    events.iter().find_map(|e| match *e {
        Event::DealOver {
            deal,
            deal_points,
            total_points,
            moon_shooter,
        } => Some((deal, deal_points.0, total_points.0, moon_shooter)),
        _ => Option::None,
    })
}

#[test]
fn shooting_the_moon() {
    // Seat 3 takes all 26 in BY_SUIT. (option on, deal points, moon shooter)
    let rows: &[(bool, [u32; 4], Option<u8>)] = &[
        (false, [0, 0, 0, 26], Option::None),
        (true, [26, 26, 26, 0], Some(3)),
    ];
    for &(moon, points, shooter) in rows {
        let options = HeartsOptions {
            shoot_the_moon: moon,
            end_score: 100,
            any_heart_breaks: false,
        };
        let mut m = Match::from_deal(options, 9, deal(BY_SUIT, 4), PerSeat([5, 6, 7, 8])).unwrap();
        let events = play_out(&mut m, 1);
        let totals = [5 + points[0], 6 + points[1], 7 + points[2], 8 + points[3]];
        assert_eq!(
            deal_over(&events),
            Some((4, points, totals, shooter.map(seat))),
            "moon {moon}"
        );
        assert_eq!(m.results()[0].taken, PerSeat([0, 0, 0, 26]));
        assert_eq!(m.totals().0, totals);
        // The next deal is dealt: number 5 passes left, the dealer moves on.
        assert_eq!(m.deal_no(), 5);
        assert_eq!(m.deal().dealer(), seat(1));
        assert_eq!(m.deal().phase(), Phase::Passing);
        assert!(events.contains(&Event::DealStarted {
            deal: 5,
            dealer: seat(1),
            pass_direction: PassDirection::Left
        }));
    }
    // Without a single seat taking everything, the option changes nothing.
    for (taken, moon) in [([0, 13, 0, 13], true), ([26, 0, 0, 0], false)] {
        let s = score_deal(PerSeat(taken), moon);
        assert_eq!((s.points.0, s.moon_shooter), (taken, Option::None));
    }
}

#[test]
fn the_game_ends_when_someone_reaches_the_end_score() {
    // BY_SUIT gives seat 3 all 26 points. Rows: (moon, end score, totals
    // before, totals after, the ranking as (place, seat) or None to go on).
    type Row = (bool, u32, [u32; 4], [u32; 4], Option<[(u8, u8); 4]>);
    let rows: &[Row] = &[
        (false, 100, [0, 0, 0, 0], [0, 0, 0, 26], Option::None),
        (false, 100, [10, 20, 30, 73], [10, 20, 30, 99], Option::None),
        (
            false,
            100,
            [10, 20, 30, 74],
            [10, 20, 30, 100],
            Some([(1, 0), (2, 1), (3, 2), (4, 3)]),
        ),
        (
            false,
            100,
            [74, 99, 74, 80],
            [74, 99, 74, 106],
            Some([(1, 0), (1, 2), (3, 1), (4, 3)]),
        ),
        (
            false,
            100,
            [40, 40, 40, 74],
            [40, 40, 40, 100],
            Some([(1, 0), (1, 1), (1, 2), (4, 3)]),
        ),
        (
            false,
            50,
            [0, 0, 0, 30],
            [0, 0, 0, 56],
            Some([(1, 0), (1, 1), (1, 2), (4, 3)]),
        ),
        (
            true,
            100,
            [74, 99, 74, 80],
            [100, 125, 100, 80],
            Some([(1, 3), (2, 0), (2, 2), (4, 1)]),
        ),
        (true, 100, [73, 50, 60, 99], [99, 76, 86, 99], Option::None),
        (
            true,
            100,
            [74, 74, 74, 100],
            [100, 100, 100, 100],
            Some([(1, 0), (1, 1), (1, 2), (1, 3)]),
        ),
    ];
    for &(moon, end_score, before, after, ranking) in rows {
        let options = HeartsOptions {
            shoot_the_moon: moon,
            end_score,
            any_heart_breaks: false,
        };
        let mut m = Match::from_deal(options, 3, deal(BY_SUIT, 4), PerSeat(before)).unwrap();
        let events = play_out(&mut m, 1);
        let row = format!("{moon} {end_score} {before:?}");
        assert_eq!(m.totals().0, after, "{row}");
        let expected = ranking.map(|r| r.map(|(place, s)| (place, seat(s), after[s as usize])));
        let got = m
            .ranking()
            .map(|r| r.map(|st| (st.place, st.seat, st.total)));
        assert_eq!(got, expected, "{row}");
        assert_eq!(m.is_over(), expected.is_some());
        let game_over = events.iter().find_map(|e| match e {
            Event::GameOver { ranking } => Some(*ranking),
            _ => Option::None,
        });
        assert_eq!(game_over, m.ranking(), "{row}");
        if m.is_over() {
            assert_eq!(m.deal_no(), 4, "no new deal after the last");
            assert_eq!(m.awaiting().count(), 0);
            let any = Action::Play(card("2C"));
            assert_eq!(m.check(seat(3), any), Err(RuleError::GameOver));
            assert!(m.legal_actions(seat(3)).is_empty());
        }
    }
}

#[test]
fn ranking_places_share_ties() {
    // (totals, (place, seat) fewest first)
    type Row = ([u32; 4], [(u8, u8); 4]);
    let rows: &[Row] = &[
        ([1, 2, 3, 4], [(1, 0), (2, 1), (3, 2), (4, 3)]),
        ([104, 3, 77, 3], [(1, 1), (1, 3), (3, 2), (4, 0)]),
        ([50, 50, 50, 50], [(1, 0), (1, 1), (1, 2), (1, 3)]),
        ([9, 100, 100, 9], [(1, 0), (1, 3), (3, 1), (3, 2)]),
        ([0, 26, 26, 26], [(1, 0), (2, 1), (2, 2), (2, 3)]),
    ];
    for &(totals, expected) in rows {
        let got = rank(PerSeat(totals)).map(|s| (s.place, s.seat.index() as u8, s.total));
        assert_eq!(
            got,
            expected.map(|(p, s)| (p, s, totals[s as usize])),
            "{totals:?}"
        );
    }
}

#[test]
fn a_new_match_deals_deal_one_passing_left_and_cycles() {
    let options = HeartsOptions {
        shoot_the_moon: false,
        end_score: 10_000,
        any_heart_breaks: false,
    };
    let mut m = Match::new(options, 77);
    assert_eq!(m.deal_no(), 1);
    assert_eq!(m.deal().pass_direction(), PassDirection::Left);
    assert_eq!(m.awaiting().count(), 4);
    let first_dealer = m.deal().dealer();
    let events = play_out(&mut m, 9);
    let started: Vec<(u32, Seat, PassDirection)> = events
        .iter()
        .filter_map(|e| match *e {
            Event::DealStarted {
                deal,
                dealer,
                pass_direction,
            } => Some((deal, dealer, pass_direction)),
            _ => Option::None,
        })
        .collect();
    assert_eq!(started.len(), 9);
    for (i, &(deal, dealer, direction)) in started.iter().enumerate() {
        let number = i as u32 + 2;
        assert_eq!(deal, number);
        assert_eq!(dealer, first_dealer.offset((i + 1) as u8));
        assert_eq!(direction, PassDirection::CYCLE[(i + 1) % 4]);
    }
    // Same seed, same actions, same game.
    let mut again = Match::new(options, 77);
    assert_eq!(play_out(&mut again, 9), events);
    assert_eq!(again, m);
    let other = Match::new(options, 78);
    assert_ne!(other.deal().dealt(), Match::new(options, 77).deal().dealt());
}

#[test]
fn views_show_only_what_a_seat_may_know() {
    let mut d = deal(MIXED, 1);
    d.apply(seat(0), Action::PassCards(cards("2C 3C 4C")))
        .unwrap();
    let v1 = d.view(seat(1));
    assert_eq!(v1.hand, d.hand(seat(1)));
    assert_eq!((v1.passed, v1.received), (Option::None, Option::None));
    for s in [1, 2, 3] {
        d.apply(
            seat(s),
            Action::PassCards(d.hand(seat(s)).iter().take(3).collect()),
        )
        .unwrap();
    }
    play_script(&mut d, "2C");
    let v = d.view(seat(2));
    assert_eq!(v.hand, d.hand(seat(2)));
    assert_eq!(v.received, d.received(seat(2)));
    assert_eq!(v.passed, d.passed(seat(2)));
    assert_eq!(v.table, PerSeat([None, Some(card("2C")), None, None]));
    assert_eq!(v.leader, Some(seat(1)));
    assert_eq!(v.to_act, Some(seat(2)));
    assert_eq!(v.hand_sizes, PerSeat([13, 12, 13, 13]));
    assert_eq!(v.played, cards("2C"));
    // Nothing in the view names another seat's cards, except those it passed.
    let json = serde_json::to_string(&v).unwrap();
    for other in [0, 1, 3] {
        for c in d.hand(seat(other)) - v.passed.unwrap() {
            assert!(
                !json.contains(&format!("\"{c}\"")),
                "{c} of seat {other} leaks"
            );
        }
    }
}

#[test]
fn snapshots_round_trip_and_damaged_ones_are_refused() {
    let mut m = Match::new(HeartsOptions::default(), 5);
    let _ = play_out(&mut m, 2);
    for s in Seat::ALL {
        if m.may_act(s) {
            let a = m.legal_actions(s)[0];
            m.apply(s, a).unwrap();
        }
    }
    let json = serde_json::to_string(&m).unwrap();
    assert_eq!(serde_json::from_str::<Match>(&json).unwrap(), m);
    // Give seat 0 a card that seat 1 holds.
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let stolen = m.deal().hand(seat(1)).first().unwrap().to_string();
    v["deal"]["hands"][0]
        .as_array_mut()
        .unwrap()
        .push(stolen.into());
    assert!(serde_json::from_value::<Match>(v).is_err());
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["deal"]["count"] = 9.into();
    assert!(serde_json::from_value::<Match>(v).is_err());
}

// ---------------------------------------------------------------------------
// Properties

/// One step of a random game: either a legal action picked by index, or an
/// arbitrary (mostly illegal) action from arbitrary bits.
#[derive(Clone, Debug)]
enum Step {
    Legal(usize),
    Play(u8, u8),
    Pass(u8, u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => any::<usize>().prop_map(Step::Legal),
        1 => (0u8..4, 0u8..64).prop_map(|(s, c)| Step::Play(s, c)),
        1 => (0u8..4, any::<u64>()).prop_map(|(s, b)| Step::Pass(s, b)),
    ]
}

/// A pass that is sometimes three cards of the hand, sometimes not.
fn arbitrary_pass(m: &Match, s: Seat, bits: u64) -> CardSet {
    let hand: Vec<Card> = m.deal().hand(s).iter().collect();
    let mut set = CardSet::EMPTY;
    if bits & 3 == 0 || hand.is_empty() {
        return CardSet::from_bits_truncate(bits >> 2);
    }
    for k in 0..(bits >> 2) % 5 {
        set.insert(hand[(bits >> (8 + 8 * k)) as usize % hand.len()]);
    }
    set
}

fn check_state(m: &Match) {
    let d = m.deal();
    assert_eq!(d.invariant_violation(), Option::None);
    // Every card is in exactly one place (also checked by the invariant,
    // restated here from the public API).
    let mut seen = 0u32;
    let mut all = CardSet::EMPTY;
    for s in Seat::ALL {
        let pending = if d.phase() == Phase::Passing {
            d.passed(s).unwrap_or_default()
        } else {
            CardSet::EMPTY
        };
        for part in [d.hand(s), d.taken(s), pending] {
            seen += part.len();
            all |= part;
        }
    }
    let table: CardSet = d.trick().iter().collect();
    assert_eq!(seen + table.len(), 52);
    assert_eq!(all | table, CardSet::FULL);
    // Enumerated legal actions are exactly the accepted ones.
    for s in Seat::ALL {
        let legal = m.legal_actions(s);
        for &a in &legal {
            assert_eq!(m.check(s, a), Ok(()), "{a:?} enumerated but refused");
            let mut copy = *d;
            assert!(copy.apply(s, a).is_ok());
        }
        for c in CardSet::FULL {
            let a = Action::Play(c);
            assert_eq!(m.check(s, a).is_ok(), legal.contains(&a), "{a:?} by {s}");
        }
        assert_eq!(m.may_act(s), !legal.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_rule(
        seed in any::<u64>(),
        moon in any::<bool>(),
        end_score in 1u32..160,
        steps in prop::collection::vec(step(), 1..500),
    ) {
        let mut m = Match::new(HeartsOptions { shoot_the_moon: moon, end_score, any_heart_breaks: false }, seed);
        let mut events = Vec::new();
        for step in steps {
            let (s, a) = match step {
                Step::Legal(i) => {
                    let Some(s) = m.awaiting().nth(i % 4).or_else(|| m.awaiting().next()) else { break };
                    let legal = m.legal_actions(s);
                    (s, legal[(i >> 2) % legal.len()])
                }
                Step::Play(s, c) => (seat(s), Action::Play(Card::from_index(c).unwrap_or(TWO_OF_CLUBS))),
                Step::Pass(s, bits) => (seat(s), Action::PassCards(arbitrary_pass(&m, seat(s), bits))),
            };
            let legal = m.legal_actions(s).contains(&a);
            let before = m.clone();
            let n = events.len();
            match m.apply_into(s, a, &mut events) {
                Ok(()) => {
                    prop_assert!(legal, "{:?} accepted but not enumerated", a);
                    prop_assert!(events.len() > n);
                }
                Err(_) => {
                    prop_assert!(!legal, "{:?} enumerated but refused", a);
                    prop_assert_eq!(&m, &before);
                    prop_assert_eq!(events.len(), n);
                }
            }
            for e in &events[n..] {
                if let Event::DealOver { deal_points, moon_shooter, .. } = e {
                    let sum: u32 = deal_points.0.iter().sum();
                    let expected = if moon_shooter.is_some() { 78 } else { 26 };
                    prop_assert_eq!(sum, expected);
                    prop_assert!(moon || moon_shooter.is_none());
                }
            }
            check_state(&m);
        }
        // Totals are the sum of the deals' points.
        let sum = m.results().iter().fold([0u32; 4], |mut acc, r| {
            for s in Seat::ALL { acc[s.index()] += r.points[s]; }
            acc
        });
        prop_assert_eq!(sum, m.totals().0);
        prop_assert_eq!(m.is_over(), m.totals().0.iter().any(|&t| t >= end_score) && !m.results().is_empty());
    }

    #[test]
    fn damaged_snapshots_never_panic(seed in any::<u64>(), plays in 0usize..60, field in 0usize..14, value in any::<i64>()) {
        let mut m = Match::new(HeartsOptions::default(), seed);
        for i in 0..plays {
            let Some(s) = m.awaiting().next() else { break };
            let legal = m.legal_actions(s);
            m.apply(s, legal[(i * 7919) % legal.len()]).unwrap();
        }
        let mut v = serde_json::to_value(m.deal()).unwrap();
        let key = v.as_object().unwrap().keys().nth(field).cloned().unwrap();
        v[&key] = match value % 3 {
            0 => value.into(),
            1 => serde_json::json!([value, "2C", null]),
            _ => serde_json::json!(null),
        };
        if let Ok(d) = serde_json::from_value::<Deal>(v) {
            prop_assert_eq!(d.invariant_violation(), Option::None);
            let mut d = d;
            loop {
                let Some(s) = d.awaiting().next() else { break };
                let a = d.legal_actions(s)[0];
                prop_assert!(d.apply(s, a).is_ok());
            }
        }
    }
}
