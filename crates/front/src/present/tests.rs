use std::time::Duration;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::*;
use crate::action::{Press, TableAction};
use crate::games::{hand, table};
use kozyr_cards::{Card, CardSet, PerSeat, Seat};
use kozyr_game::{Game, GameAction, GameEvent, GameKind, GameOptions, GameView};
use kozyr_hearts as h;
use kozyr_i18n::Lang;
use kozyr_kozel::{self as k, Action, Event};
use kozyr_table::TableId;
use kozyr_test_kit::fakebot::{
    MAX_BUTTONS, MAX_BUTTONS_PER_ROW, MAX_CALLBACK_DATA, MAX_TEXT_LEN, parse_html, utf16_len,
};

fn seat(i: u8) -> Seat {
    Seat::new(i).unwrap()
}

/// Names that try everything: markup, quotes, long words, emoji, blanks.
const HOSTILE: [&str; 4] = [
    "<b>Bob & \"Co\"</b>",
    "ЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖ",
    "👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦",
    "   \u{0007}  ",
];

fn info(version: u64, hostile: bool) -> TableInfo {
    let seats = PerSeat::from_fn(|s| {
        Some(if hostile {
            Occupant::human(HOSTILE[s.index()])
        } else {
            Occupant::human(["Alice", "Bob", "Carol", "Dave"][s.index()])
        })
    });
    TableInfo {
        table: TableId(i64::MAX),
        version,
        game: GameKind::Kozel,
        seats,
        turn_allowance: None,
        last_trick: None,
        last_deal: None,
    }
}

/// Checks a screen against Telegram's limits as the fake server would
/// (and a bit stricter: the HTML source also fits), and against Discord's
/// 2,000 characters.
fn check_limits(r: &Screen) {
    let html = r.rich().html();
    let parsed = parse_html(&html).unwrap_or_else(|e| panic!("{e}\n{html}"));
    assert!(
        utf16_len(&parsed.text) <= MAX_TEXT_LEN,
        "too long: {}",
        parsed.text.len()
    );
    assert!(html.chars().count() <= MAX_TEXT_LEN);
    assert!(r.rich().plain().chars().count() <= 2000);
    assert!(!parsed.text.trim().is_empty());
    let total: usize = r.keyboard.rows.iter().map(Vec::len).sum();
    assert!(total <= MAX_BUTTONS);
    for row in &r.keyboard.rows {
        assert!(!row.is_empty() && row.len() <= MAX_BUTTONS_PER_ROW);
        for b in row {
            assert!(!b.label.trim().is_empty());
        }
    }
    for press in r.presses() {
        let data = press.encode();
        assert!(data.len() <= MAX_CALLBACK_DATA, "{data}");
        assert!(Press::parse(&data).is_ok(), "{data}");
    }
}

fn kozel_actions(legal: &[GameAction]) -> Vec<Action> {
    legal.iter().filter_map(|a| a.kozel()).collect()
}

fn hearts_actions(legal: &[GameAction]) -> Vec<h::Action> {
    legal.iter().filter_map(|a| a.hearts()).collect()
}

fn kozel_view(view: GameView) -> k::SeriesView {
    match view {
        GameView::Kozel(v) => v,
        other => panic!("not Kozel: {other:?}"),
    }
}

fn hearts_view(view: GameView) -> h::View {
    match view {
        GameView::Hearts(v) => v,
        other => panic!("not Hearts: {other:?}"),
    }
}

fn decoded(r: &Screen) -> Vec<TableAction> {
    r.presses()
        .map(|p| match p {
            Press::Table { action, .. } => action,
            other => panic!("{other:?}"),
        })
        .collect()
}

/// Plays random games of both kinds and renders every seat's hand and the
/// table at every step, in every language, with ordinary and hostile names.
#[test]
fn every_rendering_of_random_games_fits_telegram() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut steps_of = [0usize; 2];
    for series in 0..16u64 {
        let kind = GameKind::ALL[(series % 2) as usize];
        let mut game = Game::new(kind, GameOptions::default(), series);
        let hostile = series % 4 >= 2;
        let lang = Lang::ALL[(series / 2 % 4) as usize];
        let mut t = info(0, hostile);
        t.game = kind;
        // Cards only some seats may know: (who may see them, the cards).
        let mut secret: Vec<(Vec<Seat>, CardSet)> = Vec::new();
        let mut tricks = kozyr_table::Tricks::default();
        let mut steps = 0;
        while !game.is_over() && steps < 700 {
            steps += 1;
            t.version += 1;
            t.turn_allowance =
                (steps % 3 == 0).then(|| Duration::from_secs(rng.random_range(5..86_400)));
            let public = table(lang, &t, &game.view(seat(0)));
            check_limits(&public);
            assert!(
                public.keyboard.is_empty(),
                "the table message has no buttons"
            );
            let public_text = parse_html(&public.text).unwrap().text;
            // The previous deal's last trick, shown in hands with the new
            // cards: public, though the same cards are dealt again.
            let old_deal: CardSet = t
                .last_deal
                .iter()
                .flat_map(|d| d.last_trick.iter())
                .flat_map(|trick| trick.plays.iter())
                .filter_map(|p| match p.cards {
                    kozyr_table::TrickCards::FaceUp(c) => Some(c),
                    kozyr_table::TrickCards::FaceDown(_) => None,
                })
                .flat_map(CardSet::iter)
                .collect();
            for s in Seat::ALL {
                let view = game.view(s);
                let legal = game.legal_actions(s);
                let (hand_cards, exempt) = match &view {
                    GameView::Kozel(v) => (v.deal.hand, Some(v.deal.trump_card)),
                    GameView::Hearts(v) => (v.deal.hand, None),
                };
                let selection: CardSet =
                    hand_cards.iter().filter(|_| rng.random_bool(0.3)).collect();
                let h = HandInfo {
                    table: &t,
                    group_title: HOSTILE[0],
                    seat: s,
                    selection,
                    layout: [
                        HandLayout::PrivateChat,
                        HandLayout::UnderTable,
                        HandLayout::MiniApp,
                    ][rng.random_range(0..3)],
                };
                let r = hand(lang, &h, &view, &legal);
                check_limits(&r);
                match &view {
                    GameView::Kozel(v)
                        if h.layout.one_tap()
                            && v.deal.width == 1
                            && legal
                                .iter()
                                .any(|a| matches!(a, GameAction::Kozel(Action::Pass(_)))) =>
                    {
                        check_one_tap_buttons(&r, &kozel_actions(&legal), v.deal.hand)
                    }
                    GameView::Kozel(_) => check_buttons(&r, &kozel_actions(&legal), selection),
                    GameView::Hearts(_) => {
                        check_hearts_buttons(&r, &hearts_actions(&legal), selection)
                    }
                }
                // Nothing private reaches the group, nor another seat.
                for c in hand_cards.iter().filter(|&c| Some(c) != exempt) {
                    assert!(!public_text.contains(&c.glyph()), "{c} leaked to the group");
                }
                let text = parse_html(&r.text).unwrap().text;
                for (allowed, cards) in &secret {
                    for c in cards.iter().filter(|&c| Some(c) != exempt) {
                        assert!(!public_text.contains(&c.glyph()), "{c} leaked to the group");
                        if !allowed.contains(&s) && !old_deal.contains(c) {
                            assert!(!text.contains(&c.glyph()), "{c} leaked to {s}");
                        }
                    }
                }
            }
            // Someone acts at random: whoever is awaited, or a molodka out of turn.
            let molodka = Seat::ALL.into_iter().find(|&s| {
                game.legal_actions(s)
                    .contains(&GameAction::Kozel(Action::Molodka))
            });
            let awaited = game.awaiting();
            let seat_to_act = molodka.filter(|_| rng.random_bool(0.3)).or_else(|| {
                (!awaited.is_empty()).then(|| awaited[rng.random_range(0..awaited.len())])
            });
            let Some(s) = seat_to_act else { break };
            let legal = game.legal_actions(s);
            let action = legal[rng.random_range(0..legal.len())];
            for e in game.apply(s, action).unwrap() {
                // The tricks as the table keeps them: the screens show them.
                tricks.follow(&e);
                t.last_trick = tricks.last_trick.clone();
                t.last_deal = tricks.last_deal.clone();
                match e {
                    GameEvent::Kozel(Event::Pass { seat, cards }) => {
                        secret.push((vec![seat], cards))
                    }
                    GameEvent::Kozel(Event::Trick { .. }) => secret.clear(),
                    GameEvent::Kozel(Event::Molodka { .. }) => secret.clear(),
                    GameEvent::Kozel(Event::DealOver(r)) => {
                        check_limits(&kozel::deal_over(lang, &t, 1, &r, [4, 10]));
                    }
                    GameEvent::Kozel(Event::SeriesOver { goat, with_eggs }) => {
                        check_limits(&kozel::series_over(lang, &t, goat, with_eggs, [12, 4]));
                    }
                    GameEvent::Hearts(h::Event::Passed { seat, cards, .. }) => {
                        secret.push((vec![seat], cards));
                    }
                    // Once exchanged, the receiver holds them: fair to show.
                    GameEvent::Hearts(h::Event::CardsExchanged { .. }) => secret.clear(),
                    GameEvent::Hearts(h::Event::DealOver {
                        deal,
                        deal_points,
                        total_points,
                        moon_shooter,
                    }) => {
                        let r = hearts::deal_over(
                            lang,
                            &t,
                            deal,
                            deal_points,
                            total_points,
                            moon_shooter,
                            100,
                        );
                        check_limits(&r);
                    }
                    GameEvent::Hearts(h::Event::GameOver { ranking }) => {
                        check_limits(&hearts::game_over(lang, &t, &ranking));
                    }
                    _ => {}
                }
            }
        }
        steps_of[(series % 2) as usize] += steps;
        // The final state renders too.
        check_limits(&table(lang, &t, &game.view(seat(1))));
    }
    assert!(
        steps_of[0] > 1000 && steps_of[1] > 3000,
        "steps per game: {steps_of:?}"
    );
}

/// The action buttons are exactly those that apply, and carry the selection.
fn check_buttons(r: &Screen, legal: &[Action], selection: CardSet) {
    let actions = decoded(r);
    let has = |f: fn(&TableAction) -> bool| actions.iter().any(f);
    let can = |f: fn(&Action) -> bool| legal.iter().any(f);
    // A move button shows exactly when the selection makes that move.
    assert_eq!(
        has(|a| matches!(a, TableAction::Lead(_))),
        legal.contains(&Action::Lead(selection))
    );
    assert_eq!(
        has(|a| matches!(a, TableAction::Pass(_))),
        legal.contains(&Action::Pass(selection))
    );
    assert_eq!(
        has(|a| matches!(a, TableAction::Beat(_))),
        legal.contains(&Action::Beat(selection))
    );
    assert_eq!(
        has(|a| matches!(a, TableAction::Molodka)),
        can(|a| matches!(a, Action::Molodka))
    );
    assert_eq!(
        has(|a| matches!(a, TableAction::Clear)),
        !selection.is_empty()
    );
    for a in &actions {
        if let TableAction::Lead(s) | TableAction::Beat(s) | TableAction::Pass(s) = a {
            assert_eq!(*s, selection);
        }
    }
}

/// A chat hand's answer of one card: every legal one-card beat and
/// discard is a button of its own (beats first), whatever was selected;
/// there is nothing to select, clear or lead.
fn check_one_tap_buttons(r: &Screen, legal: &[Action], hand: CardSet) {
    let actions = decoded(r);
    let wanted: Vec<TableAction> = legal
        .iter()
        .filter_map(|a| match *a {
            Action::Beat(s) => Some(TableAction::Beat(s)),
            _ => None,
        })
        .chain(legal.iter().filter_map(|a| match *a {
            Action::Pass(s) => Some(TableAction::Pass(s)),
            _ => None,
        }))
        .collect();
    let moves: Vec<TableAction> = actions
        .iter()
        .copied()
        .filter(|a| matches!(a, TableAction::Beat(_) | TableAction::Pass(_)))
        .collect();
    let sorted = |mut v: Vec<TableAction>| {
        v.sort_by_key(|a| format!("{a:?}"));
        v
    };
    assert_eq!(sorted(moves.clone()), sorted(wanted));
    // Beats come before discards, and each names one card of the hand.
    let first_pass = moves.iter().position(|a| matches!(a, TableAction::Pass(_)));
    let last_beat = moves
        .iter()
        .rposition(|a| matches!(a, TableAction::Beat(_)));
    if let (Some(p), Some(b)) = (first_pass, last_beat) {
        assert!(b < p, "{moves:?}");
    }
    for a in &moves {
        if let TableAction::Beat(s) | TableAction::Pass(s) = a {
            assert!(s.len() == 1 && hand.contains(s.first().unwrap()), "{a:?}");
        }
    }
    assert!(!actions.iter().any(|a| matches!(
        a,
        TableAction::Toggle(_) | TableAction::Clear | TableAction::Lead(_)
    )));
    assert_eq!(
        actions.contains(&TableAction::Molodka),
        legal.contains(&Action::Molodka)
    );
}

/// Hearts: Pass 3 while passing; in play every card of the hand is a Play
/// button (marked when it may not be played now); Clear with a selection,
/// nothing of Kozel's.
fn check_hearts_buttons(r: &Screen, legal: &[h::Action], selection: CardSet) {
    let actions = decoded(r);
    let may_pass = legal.iter().any(|a| matches!(a, h::Action::PassCards(_)));
    let may_play = legal.iter().any(|a| matches!(a, h::Action::Play(_)));
    let passes: Vec<_> = actions
        .iter()
        .copied()
        .filter(|a| matches!(a, TableAction::HeartsPass(_)))
        .collect();
    let expected: &[TableAction] = if may_pass {
        &[TableAction::HeartsPass(selection)]
    } else {
        &[]
    };
    assert_eq!(passes, expected);
    let plays: Vec<_> = actions
        .iter()
        .copied()
        .filter(|a| matches!(a, TableAction::HeartsPlay(_)))
        .collect();
    let toggles = actions
        .iter()
        .filter(|a| matches!(a, TableAction::Toggle(_)))
        .count();
    if may_pass || (plays.is_empty() && toggles > 0) {
        assert!(plays.is_empty(), "passing selects cards");
    } else {
        assert_eq!(toggles, 0, "in play a card's button plays it");
    }
    // Every card button carries its card; the marked ones are exactly the
    // cards that may not be played on the seat's turn.
    for b in r.keyboard.buttons() {
        let crate::screen::ButtonTarget::Press(Press::Table { action, .. }) = b.target else {
            continue;
        };
        if let TableAction::HeartsPlay(c) = action {
            let playable = legal.contains(&h::Action::Play(c));
            assert_eq!(
                b.label.starts_with('✗'),
                may_play && !playable,
                "{}",
                b.label
            );
        }
    }
    assert_eq!(actions.contains(&TableAction::Clear), !selection.is_empty());
    assert!(!actions.iter().any(|a| matches!(
        a,
        TableAction::Lead(_) | TableAction::Beat(_) | TableAction::Pass(_) | TableAction::Molodka
    )));
}

/// A deal with known hands, through the engine's checked constructor.
fn known_deal() -> Game {
    // The series with seed 3 is as good as any; what matters is that the
    // tests below read its state rather than assume it.
    Game::new(GameKind::Kozel, GameOptions::default(), 3)
}

#[test]
fn the_hand_message_reads_right() {
    let mut game = known_deal();
    let t = info(5, false);
    let leader = game.awaiting()[0];
    let v = kozel_view(game.view(leader));
    let hand_cards = v.deal.hand;
    let trump = v.deal.trump_card;
    let first = kozel::sorted(hand_cards, trump.suit())[0];
    let h = HandInfo {
        table: &t,
        group_title: "Friday <night>",
        seat: leader,
        selection: CardSet::single(first),
        layout: HandLayout::MiniApp,
    };
    let r = hand(
        Lang::En,
        &h,
        &game.view(leader),
        &game.legal_actions(leader),
    );
    let text = parse_html(&r.text).unwrap().text;
    assert!(
        text.starts_with("Kozel · \u{2068}Friday <night>\u{2069}\n"),
        "{text}"
    );
    assert!(r.text.contains("\u{2068}Friday &lt;night&gt;\u{2069}"));
    assert!(
        text.contains(&format!("Trump: {} (", trump.glyph())),
        "{text}"
    );
    assert!(text.contains("Stock: 20 cards"));
    assert!(text.contains("👉 Your turn: lead one or more cards of one suit."));
    assert!(text.contains(&format!("Selected: {}", first.glyph())));
    // Four cards, the selected one ticked, trumps starred; then the actions.
    let rows = &r.keyboard.rows;
    assert_eq!(rows[0].len(), 4);
    assert_eq!(
        rows[0][0].label.trim_end_matches('★'),
        format!("✓{}", first.glyph())
    );
    assert!(
        rows[0]
            .iter()
            .all(|b| b.label.ends_with('★') == b.label.contains(trump.suit().glyph()))
    );
    let labels: Vec<&str> = rows[1].iter().map(|b| b.label.as_str()).collect();
    assert!(
        labels.starts_with(&["Lead"]) && labels.ends_with(&["Clear"]),
        "{labels:?}"
    );
    assert_eq!(decoded(&r).last(), Some(&TableAction::Clear));
    assert!(decoded(&r).contains(&TableAction::Lead(CardSet::single(first))));

    // Everyone else waits for the leader and has no Lead/Beat/Pass.
    let other = leader.next();
    let r = hand(
        Lang::Ru,
        &HandInfo {
            seat: other,
            selection: CardSet::EMPTY,
            layout: HandLayout::MiniApp,
            ..h
        },
        &game.view(other),
        &game.legal_actions(other),
    );
    let text = parse_html(&r.text).unwrap().text;
    assert!(
        text.contains(&format!("Ждём: {}.", t.name(Lang::Ru, leader))),
        "{text}"
    );
    assert!(!decoded(&r).iter().any(|a| matches!(
        a,
        TableAction::Lead(_) | TableAction::Beat(_) | TableAction::Pass(_)
    )));

    // After a one-card lead, the next player sees how to answer and what beats.
    game.apply(
        leader,
        GameAction::Kozel(Action::Lead(CardSet::single(first))),
    )
    .unwrap();
    let legal = kozel_actions(&game.legal_actions(other));
    let v = kozel_view(game.view(other));
    let beats = kozel::beat_options(&legal, trump.suit());
    let r = hand(
        Lang::En,
        &HandInfo {
            seat: other,
            selection: CardSet::EMPTY,
            layout: HandLayout::MiniApp,
            ..h
        },
        &game.view(other),
        &game.legal_actions(other),
    );
    let text = parse_html(&r.text).unwrap().text;
    assert!(
        text.contains("👉 Your turn: beat or discard 1 card."),
        "{text}"
    );
    assert!(text.contains(&format!("{}: {}", t.name(Lang::En, leader), first.glyph())));
    if beats.is_empty() {
        assert!(text.contains("Nothing can beat it: discard 1 card."));
        assert!(
            !decoded(&r)
                .iter()
                .any(|a| matches!(a, TableAction::Beat(_)))
        );
    } else {
        let cheapest = kozel::sorted(beats[0], trump.suit())[0].glyph();
        assert!(text.contains(&format!("Can beat: {cheapest}")), "{text}");
        // Selecting a beating card says so.
        let sel = beats[0];
        let r = hand(
            Lang::En,
            &HandInfo {
                seat: other,
                selection: sel,
                layout: HandLayout::MiniApp,
                ..h
            },
            &game.view(other),
            &game.legal_actions(other),
        );
        assert!(r.text.contains("✓ Your selection beats."));
        assert!(decoded(&r).contains(&TableAction::Beat(sel)));
    }
    // A non-beating selection can be passed.
    if let Some(c) = v
        .deal
        .hand
        .iter()
        .find(|&c| !beats.contains(&CardSet::single(c)))
    {
        let r = hand(
            Lang::En,
            &HandInfo {
                seat: other,
                selection: CardSet::single(c),
                layout: HandLayout::MiniApp,
                ..h
            },
            &game.view(other),
            &game.legal_actions(other),
        );
        assert!(
            r.text
                .contains("Your selection does not beat; you can discard it.")
        );
    }
}

#[test]
fn the_table_message_shows_turn_timer_trick_and_score() {
    let mut game = known_deal();
    let leader = game.awaiting()[0];
    let v = kozel_view(game.view(leader));
    let card = v.deal.hand.first().unwrap();
    game.apply(
        leader,
        GameAction::Kozel(Action::Lead(CardSet::single(card))),
    )
    .unwrap();
    let mut t = info(1, false);
    t.turn_allowance = Some(Duration::from_secs(45));
    t.last_trick = Some(kozyr_table::TrickTaken {
        winner: seat(2),
        points: 21,
        plays: Vec::new(),
    });
    let r = table(Lang::En, &t, &game.view(seat(0)));
    let text = parse_html(&r.text).unwrap().text;
    let next = t.name(Lang::En, leader.next());
    assert!(text.starts_with("Kozel · deal 1\nTrump: "), "{text}");
    assert!(
        text.contains(&format!("Turn: {next} · ⏳ 45 s a move")),
        "{text}"
    );
    assert!(
        r.text.contains(&format!("<b>{}</b>", card.glyph())),
        "the winning play is bold"
    );
    let text = unisolated(&text);
    assert!(text.contains("Last trick: Carol took 21 points."));
    assert!(text.contains("Alice and Carol: 0 tricks · Bob and Dave: 0 tricks"));
    assert!(text.contains(
        "Series (at 12 defeat points a team is the goat):\nAlice and Carol: 0\nBob and Dave: 0"
    ));
    // The other languages have their plural forms.
    let ru = unisolated(
        &parse_html(&table(Lang::Ru, &t, &game.view(seat(0))).text)
            .unwrap()
            .text,
    );
    assert!(ru.contains("Прошлая взятка: Carol, 21 очко."), "{ru}");
    let ro = unisolated(
        &parse_html(&table(Lang::Ro, &t, &game.view(seat(0))).text)
            .unwrap()
            .text,
    );
    assert!(
        ro.contains("Ultima levată: Carol a luat 21 de puncte."),
        "{ro}"
    );
}

#[test]
fn passed_cards_show_as_backs() {
    let mut game = known_deal();
    let leader = game.awaiting()[0];
    let v = kozel_view(game.view(leader));
    let card = v.deal.hand.first().unwrap();
    game.apply(
        leader,
        GameAction::Kozel(Action::Lead(CardSet::single(card))),
    )
    .unwrap();
    let next = leader.next();
    let nv = kozel_view(game.view(next));
    let pass = nv.deal.hand.first().unwrap();
    game.apply(next, GameAction::Kozel(Action::Pass(CardSet::single(pass))))
        .unwrap();
    let t = info(2, false);
    let public = parse_html(&table(Lang::En, &t, &game.view(seat(0))).text)
        .unwrap()
        .text;
    assert!(
        public.contains(&format!("{}: 🂠 (discarded)", t.name(Lang::En, next))),
        "{public}"
    );
    let mine = hand(
        Lang::En,
        &HandInfo {
            table: &t,
            group_title: "g",
            seat: next,
            selection: CardSet::EMPTY,
            layout: HandLayout::MiniApp,
        },
        &game.view(next),
        &game.legal_actions(next),
    );
    assert!(
        mine.text
            .contains(&format!("You discarded face down: {}", pass.glyph()))
    );
}

#[test]
fn results_name_the_teams_and_the_goat() {
    let t = info(1, false);
    let r = k::DealResult::score([60, 60], [3, 2], seat(0));
    let text = unisolated(
        &parse_html(&kozel::deal_over(Lang::En, &t, 4, &r, [6, 8]).text)
            .unwrap()
            .text,
    );
    assert_eq!(
        text,
        "Deal 4 is over\nAlice and Carol: 60 points, 3 tricks\nBob and Dave: 60 points, 2 tricks\n\
         🥚 Eggs! 60 : 60 — nobody gets defeat points.\nSeries: Alice and Carol 6 : 8 Bob and Dave"
    );
    let r = k::DealResult::score([120, 0], [5, 0], seat(0));
    let text = unisolated(
        &parse_html(&kozel::deal_over(Lang::Ru, &t, 2, &r, [0, 6]).text)
            .unwrap()
            .text,
    );
    assert!(
        text.contains("Bob и Dave не взяли ни одной взятки."),
        "{text}"
    );
    assert!(
        text.contains("Bob и Dave получают 6 штрафных очков."),
        "{text}"
    );
    let goat = kozel::series_over(Lang::Pt, &t, k::Team::of(seat(1)), true, [4, 12]);
    assert!(
        unisolated(&parse_html(&goat.text).unwrap().text)
            .ends_with("🐐🥚 Bob e Dave são o bode com bolas!")
    );
    let goat = kozel::series_over(Lang::En, &t, k::Team::of(seat(0)), false, [12, 2]);
    assert!(
        unisolated(&parse_html(&goat.text).unwrap().text)
            .ends_with("🐐 Alice and Carol are the goat!")
    );
}

#[test]
fn every_rule_error_has_a_short_popup() {
    let c: Card = "TS".parse().unwrap();
    let errors = [
        k::RuleError::NotYourTurn,
        k::RuleError::DealOver,
        k::RuleError::SeriesOver,
        k::RuleError::NotInHand { card: c },
        k::RuleError::NoCards,
        k::RuleError::MixedSuits,
        k::RuleError::AlreadyLed,
        k::RuleError::NothingLed,
        k::RuleError::WrongCount {
            expected: 2,
            got: 1,
        },
        k::RuleError::CannotBeat {
            target: "KS QS".parse().unwrap(),
        },
        k::RuleError::NoMolodka,
        k::RuleError::MolodkaOutranked,
    ];
    for lang in Lang::ALL {
        let mut seen = std::collections::BTreeSet::new();
        for e in &errors {
            let text = rule_error(lang, &kozyr_game::GameError::Kozel(e.clone()));
            assert!(!text.is_empty() && text.chars().count() <= 200, "{text}");
            assert!(seen.insert(text), "two errors read the same in {lang}");
        }
        assert!(!rule_error(lang, &kozyr_game::GameError::WrongGame).is_empty());
    }
    assert_eq!(
        rule_error(
            Lang::En,
            &kozyr_game::GameError::Kozel(k::RuleError::CannotBeat {
                target: "KS QS".parse().unwrap()
            })
        ),
        "These cards cannot beat Q♠ K♠."
    );
    assert_eq!(
        rule_error(
            Lang::Ru,
            &kozyr_game::GameError::Kozel(k::RuleError::WrongCount {
                expected: 2,
                got: 1
            })
        ),
        "Нужно ровно 2 карты, а не 1."
    );
}

#[test]
fn a_stand_in_hand_offers_only_take_back() {
    let game = known_deal();
    let mut t = info(1, false);
    t.seats[seat(0)] = Some(Occupant::StandIn {
        name: "Alice".into(),
    });
    let r = hand(
        Lang::En,
        &HandInfo {
            table: &t,
            group_title: "g",
            seat: seat(0),
            selection: CardSet::EMPTY,
            layout: HandLayout::MiniApp,
        },
        &game.view(seat(0)),
        &game.legal_actions(seat(0)),
    );
    assert_eq!(decoded(&r), [TableAction::TakeBack]);
    assert!(r.text.contains("An AI player is playing for you."));
    assert_eq!(t.name(Lang::En, seat(0)), "🤖 for \u{2068}Alice\u{2069}");
}

#[test]
fn names_are_cleaned_and_cut() {
    assert_eq!(
        Occupant::human("  \u{0007}Ann\u{200b} ").display(Lang::En),
        "\u{2068}Ann\u{200b}\u{2069}"
    );
    assert_eq!(Occupant::human(" \n ").display(Lang::En), "?");
    let long = Occupant::human("x".repeat(64)).display(Lang::En);
    // 32 shown, in their isolate.
    assert_eq!(long.chars().count(), 34);
    assert!(long.ends_with("…\u{2069}"));
    // Whole seconds begun: a reminder due at 15 s and sent 20 ms late
    // still says 15 s; an allowance reads as it was set.
    assert_eq!(shown_seconds(Duration::from_millis(14_980)), 15);
    assert_eq!(shown_seconds(Duration::from_secs(60)), 60);
    assert_eq!(shown_seconds(Duration::from_secs(45)), 45);
    assert_eq!(shown_seconds(Duration::from_millis(8_000)), 8);
    assert_eq!(shown_seconds(Duration::ZERO), 0);
}

fn hearts_info() -> TableInfo {
    TableInfo {
        game: GameKind::Hearts,
        ..info(1, false)
    }
}

#[test]
fn hearts_passing_and_playing_read_right() {
    let mut game = Game::new(GameKind::Hearts, GameOptions::default(), 5);
    let t = hearts_info();
    let alice = seat(0);
    let three_of = |game: &Game, s| -> CardSet {
        hearts::sorted(hearts_view(game.view(s)).deal.hand)
            .into_iter()
            .take(3)
            .collect()
    };
    let hand_of = |game: &Game, s, selection| {
        let h = HandInfo {
            table: &t,
            group_title: "Friday",
            seat: s,
            selection,
            layout: HandLayout::MiniApp,
        };
        hand(Lang::En, &h, &game.view(s), &game.legal_actions(s))
    };
    let text = |r: &Screen| parse_html(&r.text).unwrap().text;

    let three = three_of(&game, alice);
    let r = hand_of(&game, alice, three);
    assert!(
        text(&r).starts_with("Hearts · \u{2068}Friday\u{2069}\n"),
        "{}",
        text(&r)
    );
    assert!(text(&r).contains("Choose three cards to pass to the left."));
    let rows: Vec<usize> = r.keyboard.rows.iter().map(Vec::len).collect();
    assert_eq!(
        rows,
        [5, 5, 3, 2],
        "13 cards in rows of five, then Pass 3 and Clear"
    );
    assert_eq!(
        decoded(&r)[13..],
        [TableAction::HeartsPass(three), TableAction::Clear]
    );
    let public = text(&table(Lang::En, &t, &game.view(alice)));
    assert!(
        public.contains("Passing three cards to the left: waiting for 4 players."),
        "{public}"
    );
    assert!(
        unisolated(&public).contains("Totals (the game ends at 100):\nAlice: 0 points"),
        "{public}"
    );

    game.apply(alice, GameAction::Hearts(h::Action::PassCards(three)))
        .unwrap();
    let r = hand_of(&game, alice, CardSet::EMPTY);
    assert!(text(&r).contains(&format!(
            "You passed {}; waiting for the others.",
            hearts::sorted(three)
                .iter()
                .map(|c| c.glyph())
                .collect::<Vec<_>>()
                .join(" ")
        )));
    assert!(
        !decoded(&r)
            .iter()
            .any(|a| matches!(a, TableAction::HeartsPass(_)))
    );
    let ru = unisolated(
        &parse_html(&table(Lang::Ru, &t, &game.view(alice)).text)
            .unwrap()
            .text,
    );
    assert!(
        ru.contains("Передаём три карты налево: ждём 3 игроков."),
        "{ru}"
    );
    for s in Seat::ALL.into_iter().skip(1) {
        let three = three_of(&game, s);
        game.apply(s, GameAction::Hearts(h::Action::PassCards(three)))
            .unwrap();
    }

    let leader = game.awaiting()[0];
    let two: Card = "2C".parse().unwrap();
    let r = hand_of(&game, leader, CardSet::EMPTY);
    assert!(text(&r).contains("You received: "), "{}", text(&r));
    assert!(text(&r).contains("👉 Your turn: tap a card to play it."));
    assert!(text(&r).contains("Cards marked ✗ cannot be played now."));
    // One press plays: every card of the hand is a Play button, and only
    // the 2♣ may lead the first trick, so every other card is marked.
    let hand = hearts_view(game.view(leader)).deal.hand;
    let plays: Vec<_> = decoded(&r)
        .into_iter()
        .filter_map(|a| match a {
            TableAction::HeartsPlay(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(plays.iter().copied().collect::<CardSet>(), hand);
    for b in r.keyboard.buttons() {
        let marked = b.label.starts_with('✗');
        assert_eq!(marked, b.label != two.glyph(), "{}", b.label);
    }
    // On another's turn the cards still play (the press is refused: not
    // your turn), unmarked.
    let r = hand_of(&game, leader.next(), CardSet::EMPTY);
    assert!(
        decoded(&r)
            .iter()
            .all(|a| matches!(a, TableAction::HeartsPlay(_)))
    );
    assert!(r.keyboard.buttons().all(|b| !b.label.starts_with('✗')));
    game.apply(leader, GameAction::Hearts(h::Action::Play(two)))
        .unwrap();
    let public = text(&table(Lang::En, &t, &game.view(alice)));
    let name = |s| t.name(Lang::En, s);
    assert!(
        public.contains(&format!("Turn: {}", name(leader.next()))),
        "{public}"
    );
    assert!(
        public.contains(&format!("{}: 2♣", name(leader))),
        "{public}"
    );
    let waiting = text(&hand_of(&game, leader, CardSet::EMPTY));
    assert!(
        waiting.contains(&format!("Waiting for {}.", name(leader.next()))),
        "{waiting}"
    );
}

#[test]
fn hearts_results_and_popups() {
    let t = hearts_info();
    let r = hearts::deal_over(
        Lang::En,
        &t,
        3,
        PerSeat([0, 26, 26, 26]),
        PerSeat([10, 40, 52, 99]),
        Some(seat(0)),
        100,
    );
    let text = unisolated(&parse_html(&r.text).unwrap().text);
    assert_eq!(
        text,
        "Deal 3 is over\n🌙 Alice shot the moon!\nAlice: 0 points this deal\nBob: 26 points this deal\n\
         Carol: 26 points this deal\nDave: 26 points this deal\n\nTotals (the game ends at 100):\n\
         Alice: 10 points\nBob: 40 points\nCarol: 52 points\nDave: 99 points"
    );
    let ranking = h::rank(PerSeat([74, 74, 106, 99]));
    let over = unisolated(
        &parse_html(&hearts::game_over(Lang::Ro, &t, &ranking).text)
            .unwrap()
            .text,
    );
    assert!(over.starts_with("Jocul s-a terminat\n1. Alice — 74 de puncte\n1. Bob — 74 de puncte\n3. Dave — 99 de puncte\n4. Carol — 106 puncte"), "{over}");
    assert!(
        over.ends_with("🏆 Câștigă Alice!\n🏆 Câștigă Bob!"),
        "{over}"
    );

    let c: Card = "QS".parse().unwrap();
    let errors = [
        h::RuleError::NotYourTurn,
        h::RuleError::GameOver,
        h::RuleError::DealOver,
        h::RuleError::NotInHand { card: c },
        h::RuleError::WrongPassCount { got: 2 },
        h::RuleError::AlreadyPassed,
        h::RuleError::NotPassing,
        h::RuleError::StillPassing,
        h::RuleError::MustLeadTwoOfClubs,
        h::RuleError::MustFollowSuit {
            suit: kozyr_cards::Suit::Diamonds,
        },
        h::RuleError::NoPointsOnFirstTrick,
        h::RuleError::HeartsNotBroken,
    ];
    for lang in Lang::ALL {
        let mut seen = std::collections::BTreeSet::new();
        for e in errors {
            let text = rule_error(lang, &kozyr_game::GameError::Hearts(e));
            assert!(!text.is_empty() && text.chars().count() <= 200, "{text}");
            assert!(seen.insert(text), "two errors read the same in {lang}");
        }
    }
    assert_eq!(
        rule_error(
            Lang::Pt,
            &kozyr_game::GameError::Hearts(h::RuleError::MustFollowSuit {
                suit: kozyr_cards::Suit::Diamonds
            })
        ),
        "Siga o naipe: jogue ouros."
    );
}

#[test]
fn a_name_is_isolated_and_cannot_end_its_isolation() {
    // An override in a name turns nothing after it around.
    assert_eq!(
        super::clean_name("\u{202E}Eve"),
        "\u{2068}\u{202E}Eve\u{2069}"
    );
    // A name's own isolate marks are dropped: it cannot close ours early.
    assert_eq!(
        super::clean_name("Eve\u{2069}\u{202E}x"),
        "\u{2068}Eve\u{202E}x\u{2069}"
    );
    assert_eq!(super::clean_name(" \u{2068} "), "?");
}

/// `text` without the bidi isolation around names, for checks of the
/// wording (the isolation itself is checked where names are cleaned and in
/// the snapshots).
fn unisolated(text: &str) -> String {
    text.replace(['\u{2068}', '\u{2069}'], "")
}

/// A hand that waits under the table's message (Discord) leaves out what
/// that message shows and names no version: a move of another seat within
/// the trick does not change it, where the same hand in a private chat
/// shows the move. Once it is the seat's turn it shows the table again.
#[test]
fn a_hand_waiting_under_the_table_is_not_redrawn_for_anothers_move() {
    let mut game = known_deal();
    let leader = game.awaiting()[0];
    let answerer = leader.next();
    let waiter = answerer.next().next();
    let draw = |game: &Game, version: u64, layout: HandLayout, seat: Seat| {
        let t = info(version, false);
        let h = HandInfo {
            table: &t,
            group_title: "g",
            seat,
            selection: CardSet::EMPTY,
            layout,
        };
        hand(Lang::En, &h, &game.view(seat), &game.legal_actions(seat))
    };
    let lead = kozel_view(game.view(leader)).deal.hand.first().unwrap();
    game.apply(
        leader,
        GameAction::Kozel(Action::Lead(CardSet::single(lead))),
    )
    .unwrap();
    let before = |layout| draw(&game, 1, layout, waiter);
    let (under, private) = (
        before(HandLayout::UnderTable),
        before(HandLayout::PrivateChat),
    );
    assert!(!under.text.contains(&lead.glyph()), "{}", under.text);
    assert!(private.text.contains(&lead.glyph()), "{}", private.text);
    let answer = game.safe_action(answerer).unwrap();
    game.apply(answerer, answer).unwrap();
    assert_eq!(draw(&game, 2, HandLayout::UnderTable, waiter), under);
    assert_ne!(draw(&game, 2, HandLayout::PrivateChat, waiter), private);
    // The seat whose turn it is now sees the lead under the table too.
    let next = game.awaiting()[0];
    let theirs = draw(&game, 2, HandLayout::UnderTable, next);
    assert!(theirs.text.contains(&lead.glyph()), "{}", theirs.text);
    assert!(theirs.text.contains("Your turn"), "{}", theirs.text);
}

/// Hearts too: a hand that waits under the table is not edited for another
/// seat's play within the trick, where a private chat's hand shows it.
#[test]
fn a_hearts_hand_waiting_under_the_table_is_not_redrawn_for_anothers_play() {
    let mut game = Game::new(GameKind::Hearts, GameOptions::default(), 5);
    // Through the passing to the first lead.
    while !game
        .legal_actions(game.awaiting()[0])
        .iter()
        .any(|a| matches!(a, GameAction::Hearts(h::Action::Play(_))))
    {
        let s = game.awaiting()[0];
        game.apply(s, game.safe_action(s).unwrap()).unwrap();
    }
    let leader = game.awaiting()[0];
    game.apply(leader, game.safe_action(leader).unwrap())
        .unwrap();
    let waiter = game.awaiting()[0].next().next();
    let draw = |game: &Game, version: u64, layout: HandLayout| {
        let t = info(version, false);
        let h = HandInfo {
            table: &t,
            group_title: "g",
            seat: waiter,
            selection: CardSet::EMPTY,
            layout,
        };
        hand(
            Lang::En,
            &h,
            &game.view(waiter),
            &game.legal_actions(waiter),
        )
    };
    let under = draw(&game, 1, HandLayout::UnderTable);
    let private = draw(&game, 1, HandLayout::PrivateChat);
    assert!(!under.text.contains("Waiting for"), "{}", under.text);
    assert!(private.text.contains("Waiting for"), "{}", private.text);
    let s = game.awaiting()[0];
    game.apply(s, game.safe_action(s).unwrap()).unwrap();
    assert_eq!(draw(&game, 2, HandLayout::UnderTable), under);
    assert_ne!(draw(&game, 2, HandLayout::PrivateChat), private);
}
