//! Issue 11, the play and presentation points, end to end: the fake Bot
//! API, the real teloxide client, handler tree, table service and store.
//! People press only buttons the bot drew (a press needs a message showing
//! that button) and the tests read what the group and the hands show.
//!
//! - every completed trick stays shown with its cards, taker and points
//!   (Hearts and Kozel, passes face down) in the group and in the hands;
//! - a Hearts card plays with one press, unplayable cards are marked and
//!   refused; Kozel offers Lead/Beat/Pass only for a selection that makes
//!   that move;
//! - the next deal's table does not show the last deal's trick, and every
//!   hand shows the deal's result with the next deal's cards;
//! - an AI seat declares a Kozel molodka out of turn;
//! - the Hearts "any heart breaks hearts" setting from `/settings`.

use std::sync::Arc;
use std::time::Duration;

use kozyr::cards::{Card, CardSet, Seat};
use kozyr::front::action::{Press, TableAction};
use kozyr::game::{Game, GameAction, GameView};
use kozyr::table::{Table, TrickCards, TrickTaken};
use kozyr::{hearts, kozel};
use kozyr_test_kit::fakebot::FakeMessage;

use crate::support::fast_tuning;
use crate::support::telegram::{Setup, World, card_toggle, deal_no, real_limits, strict_fake};

/// The name the bot shows for a seat: the person's (in its bidi
/// isolate), or the AI player's.
fn name(t: &Table, seat: Seat) -> String {
    t.seats()[seat].person().map_or_else(
        || "🤖 AI 1".to_owned(),
        |p| format!("\u{2068}{}\u{2069}", p.name),
    )
}

/// Whether `text` shows `trick` as the bot draws it: who took it and its
/// points, then one line with every play: the player's name and its cards,
/// passed cards face down.
fn shows_trick(text: &str, t: &Table, trick: &TrickTaken) -> bool {
    let points = match trick.points {
        1 => "1 point".to_owned(),
        n => format!("{n} points"),
    };
    let head = format!("Last trick: {} took {points}.", name(t, trick.winner));
    let Some(at) = text.find(&head) else {
        return false;
    };
    let Some(plays) = text[at + head.len()..].lines().nth(1) else {
        return false;
    };
    let backs: u32 = trick
        .plays
        .iter()
        .map(|p| match p.cards {
            TrickCards::FaceDown(n) => n,
            TrickCards::FaceUp(_) => 0,
        })
        .sum();
    trick.plays.len() == plays.split(" · ").count()
        && plays.matches('🂠').count() == backs as usize
        && trick.plays.iter().all(|p| {
            plays.contains(&name(t, p.seat))
                && match p.cards {
                    TrickCards::FaceUp(cards) => cards.iter().all(|c| plays.contains(&c.glyph())),
                    TrickCards::FaceDown(_) => true,
                }
        })
}

/// The group's table message (the one edited as the game goes).
fn is_table(m: &FakeMessage, title: &str) -> bool {
    m.text.starts_with(title)
}

fn card_of(b: &kozyr_test_kit::fakebot::Button) -> Option<(TableAction, Card)> {
    match b.callback_data().map(Press::parse) {
        Some(Ok(Press::Table { action, .. })) => action.card().map(|c| (action, c)),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hearts_one_press_plays_every_trick_shown_and_the_deal_result_in_every_hand() {
    let mut w = World::new().await;
    let id = w.open("/hearts", false).await;
    let mut t = w.table(id).await;
    // Passing: three cards selected, then Pass 3.
    while matches!(t.game().unwrap().public_view(), GameView::Hearts(v) if v.deal.phase == hearts::Phase::Passing)
    {
        t = w.play(&t).await;
    }

    // The lead of the first trick: every card of the hand is on a button
    // that plays it; all but the 2♣ are marked, and pressing one is
    // refused with the reason and changes nothing.
    let leader = t.awaiting()[0];
    let i = leader.index();
    let hand = w.hand_at(i, id, t.version()).await;
    assert!(
        hand.text.contains("Your turn: tap a card to play it."),
        "{}",
        hand.text
    );
    assert!(hand.text.contains("Cards marked ✗ cannot be played now."));
    let GameView::Hearts(view) = t.game().unwrap().view(leader) else {
        panic!()
    };
    let legal = t.game().unwrap().legal_actions(leader);
    let mut on_buttons = CardSet::EMPTY;
    for b in hand.keyboard.as_ref().unwrap().buttons() {
        let Some((action, c)) = card_of(b) else {
            continue;
        };
        assert_eq!(action, TableAction::HeartsPlay(c), "one press plays {c}");
        let playable = legal.contains(&GameAction::Hearts(hearts::Action::Play(c)));
        assert_eq!(b.text.starts_with('✗'), !playable, "{}", b.text);
        on_buttons.insert(c);
    }
    assert_eq!(
        on_buttons, view.deal.hand,
        "every card of the hand stays on its button"
    );
    let barred = view.deal.hand.iter().find(|c| c.glyph() != "2♣").unwrap();
    let data = Press::Table {
        table: id,
        version: t.version(),
        action: TableAction::HeartsPlay(barred),
    }
    .encode();
    let popup = w.press(w.users[i], w.dm(i), &data).await;
    assert_eq!(
        popup.as_deref(),
        Some("The first trick starts with the 2♣.")
    );
    assert_eq!(
        w.table(id).await.version(),
        t.version(),
        "a refused card changes nothing"
    );
    // Another seat's card on the leader's turn: not your turn.
    let other = leader.next().index();
    let theirs = w.hand_at(other, id, t.version()).await;
    let (action, _) = theirs
        .keyboard
        .as_ref()
        .unwrap()
        .buttons()
        .find_map(card_of)
        .unwrap();
    let data = Press::Table {
        table: id,
        version: t.version(),
        action,
    }
    .encode();
    assert!(w.press(w.users[other], w.dm(other), &data).await.is_some());
    assert_eq!(w.table(id).await.version(), t.version());

    // The first trick, four one-press plays; then it stays on the table
    // message and in every hand, all four cards, the taker and points...
    for _ in 0..4 {
        t = w.play(&t).await;
    }
    let trick = t.last_trick().unwrap().clone();
    assert_eq!(trick.plays.len(), 4);
    w.shown(w.group, "the first trick", |m| {
        is_table(m, "Hearts · deal 1") && shows_trick(&m.text, &t, &trick)
    })
    .await;
    for s in 0..4 {
        w.shown(w.dm(s), "the first trick in the hand", |m| {
            shows_trick(&m.text, &t, &trick)
        })
        .await;
    }
    // ...also once the next trick has begun.
    t = w.play(&t).await;
    let begun = t.clone();
    w.shown(w.group, "the first trick after the next lead", |m| {
        is_table(m, "Hearts · deal 1")
            && shows_trick(&m.text, &begun, &trick)
            && m.text.contains(": ")
    })
    .await;
    for s in 0..4 {
        w.hand_at(s, id, begun.version()).await;
        let m = w.hand_at(s, id, begun.version()).await;
        assert!(shows_trick(&m.text, &begun, &trick), "{}", m.text);
    }

    // To the end of the deal: every trick is shown once taken.
    while deal_no(&t) == 1 {
        let before = t.clone();
        t = w.play(&t).await;
        if deal_no(&t) == 1
            && let Some(taken) = t.last_trick().filter(|l| Some(*l) != before.last_trick())
        {
            let now = t.clone();
            let taken = taken.clone();
            w.shown(w.group, "a trick", |m| {
                is_table(m, "Hearts · deal 1") && shows_trick(&m.text, &now, &taken)
            })
            .await;
        }
    }
    // Deal 2: its table shows no trick of deal 1; the group's "Deal 1 is
    // over" shows the last one, the 13th card included; every hand shows
    // the result with deal 2's cards.
    let end = t.last_deal().unwrap().clone();
    let last = end.last_trick.clone().unwrap();
    assert!(t.last_trick().is_none());
    w.shown(w.group, "deal 1's result with its last trick", |m| {
        m.text.starts_with("Deal 1 is over") && shows_trick(&m.text, &t, &last)
    })
    .await;
    let table2 = w
        .shown(w.group, "deal 2's table", |m| {
            is_table(m, "Hearts · deal 2")
        })
        .await;
    assert!(!table2.text.contains("Last trick"), "{}", table2.text);
    for s in 0..4 {
        let m = w.hand_at(s, id, t.version()).await;
        assert!(m.text.contains("Deal 1 is over"), "{}", m.text);
        assert!(shows_trick(&m.text, &t, &last), "{}", m.text);
        let cards = m
            .keyboard
            .as_ref()
            .unwrap()
            .buttons()
            .filter_map(card_of)
            .count();
        assert_eq!(cards, 13, "deal 2's cards come with the result");
    }
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kozel_moves_appear_for_the_selection_and_tricks_stay_shown_with_passes_face_down() {
    let mut w = World::new().await;
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;

    // The lead: no Lead button until a card is selected.
    let leader = t.awaiting()[0].index();
    let hand = w.hand_at(leader, id, t.version()).await;
    let actions = |m: &FakeMessage| -> Vec<TableAction> {
        m.keyboard
            .as_ref()
            .unwrap()
            .buttons()
            .filter_map(|b| match b.callback_data().map(Press::parse) {
                Some(Ok(Press::Table { action, .. })) if action.card().is_none() => Some(action),
                _ => None,
            })
            .collect()
    };
    assert!(
        !actions(&hand)
            .iter()
            .any(|a| matches!(a, TableAction::Lead(_)))
    );

    let (mut beats_seen, mut passes_seen, mut tricks) = (0, 0, 0);
    while deal_no(&t) == 1 {
        let seat = t.awaiting()[0];
        let game = t.game().unwrap();
        let width = match game.public_view() {
            GameView::Kozel(v) => v.deal.width,
            GameView::Hearts(_) => unreachable!(),
        };
        if width == 1 {
            // An answer of one card: each card is a discard, and each card
            // that beats is a beat too, all one tap.
            let legal = game.legal_actions(seat);
            let m = w.hand_at(seat.index(), id, t.version()).await;
            let mut drawn = actions(&m);
            drawn.retain(|a| matches!(a, TableAction::Beat(_) | TableAction::Pass(_)));
            let mut offered: Vec<TableAction> = legal
                .iter()
                .filter_map(|a| match *a {
                    GameAction::Kozel(kozel::Action::Beat(s)) => Some(TableAction::Beat(s)),
                    GameAction::Kozel(kozel::Action::Pass(s)) => Some(TableAction::Pass(s)),
                    _ => None,
                })
                .collect();
            let key = |a: &TableAction| format!("{a:?}");
            drawn.sort_by_key(key);
            offered.sort_by_key(key);
            assert_eq!(drawn, offered, "{}", m.text);
            assert!(!m.text.contains("Selected: "), "{}", m.text);
            if legal
                .iter()
                .any(|a| matches!(a, GameAction::Kozel(kozel::Action::Beat(_))))
            {
                beats_seen += 1;
            } else {
                passes_seen += 1;
            }
        } else if width > 0 {
            // An answer: whatever cards are selected, Beat is offered
            // exactly when they beat (select a non-beating set first).
            let legal = game.legal_actions(seat);
            let pass = legal.iter().find_map(|a| match a {
                GameAction::Kozel(kozel::Action::Pass(s))
                    if !legal.contains(&GameAction::Kozel(kozel::Action::Beat(*s))) =>
                {
                    Some(*s)
                }
                _ => None,
            });
            if let Some(s) = pass.filter(|_| passes_seen < 3) {
                let i = seat.index();
                let data = |action| {
                    Press::Table {
                        table: id,
                        version: t.version(),
                        action,
                    }
                    .encode()
                };
                for c in s.iter() {
                    assert_eq!(
                        w.press(w.users[i], w.dm(i), &data(TableAction::Toggle(c)))
                            .await,
                        None
                    );
                }
                let shown = w
                    .shown(w.dm(i), "the Pass button", |m| {
                        m.keyboard
                            .as_ref()
                            .is_some_and(|k| k.with_data(&data(TableAction::Pass(s))).is_some())
                    })
                    .await;
                assert!(
                    !actions(&shown)
                        .iter()
                        .any(|a| matches!(a, TableAction::Beat(_))),
                    "no Beat for cards that do not beat"
                );
                passes_seen += 1;
                // Unselect them again; the move below selects its own.
                for c in s.iter() {
                    assert_eq!(
                        w.press(w.users[i], w.dm(i), &data(TableAction::Toggle(c)))
                            .await,
                        None
                    );
                }
            }
            if legal
                .iter()
                .any(|a| matches!(a, GameAction::Kozel(kozel::Action::Beat(_))))
            {
                beats_seen += 1; // `play` beats, through the Beat button it needs to see
            }
        }
        let before = t.clone();
        t = w.play(&t).await;
        if deal_no(&t) == 1
            && let Some(taken) = t.last_trick().filter(|l| Some(*l) != before.last_trick())
        {
            tricks += 1;
            let now = t.clone();
            let taken = taken.clone();
            assert_eq!(taken.plays.len(), 4, "the lead and every answer");
            w.shown(w.group, "the trick", |m| {
                is_table(m, "Kozel · deal 1") && shows_trick(&m.text, &now, &taken)
            })
            .await;
            for s in 0..4 {
                let m = w.hand_at(s, id, now.version()).await;
                assert!(shows_trick(&m.text, &now, &taken), "{}", m.text);
            }
        }
    }
    assert!(
        tricks >= 3 && beats_seen > 0 && passes_seen > 0,
        "{tricks} {beats_seen} {passes_seen}"
    );
    // Deal 2 opens without deal 1's trick; the hands show deal 1's result.
    let last = t.last_deal().unwrap().last_trick.clone().unwrap();
    w.shown(w.group, "deal 1's end with its last trick", |m| {
        m.text.starts_with("Deal 1 is over") && shows_trick(&m.text, &t, &last)
    })
    .await;
    let table2 = w
        .shown(w.group, "deal 2's table", |m| is_table(m, "Kozel · deal 2"))
        .await;
    assert!(!table2.text.contains("Last trick"), "{}", table2.text);
    for s in 0..4 {
        let m = w.hand_at(s, id, t.version()).await;
        assert!(m.text.contains("Deal 1 is over"), "{}", m.text);
        assert!(shows_trick(&m.text, &t, &last), "{}", m.text);
    }
    // The first trick of deal 2 replaces the result in the hands.
    while t.last_trick().is_none() {
        t = w.play(&t).await;
    }
    for s in 0..4 {
        let m = w.hand_at(s, id, t.version()).await;
        assert!(!m.text.contains("Deal 1 is over"), "{}", m.text);
    }
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ai_player_declares_its_molodka_out_of_turn() {
    // Series seed 395: Ann (seat 0) leads, the fourth seat holds four
    // cards of one suit. The AI player there plays them before anyone moves.
    let mut tuning = fast_tuning();
    tuning.service.seed = Some(395);
    tuning.agent = Arc::new(kozyr::ai::TableAgent::of(
        kozyr::ai::AgentKind::Search,
        kozyr::ai::AgentConfig::default(),
    ));
    let mut w = World::with(Setup::tuned(tuning)).await;
    let id = w.open("/kozel", true).await;
    let t = w.table(id).await;
    let ai = Seat::new(3).unwrap();
    assert_eq!(t.seats()[ai], kozyr::table::SeatState::Ai);
    let table = w
        .shown(w.group, "the molodka", |m| {
            is_table(m, "Kozel · deal 1") && m.text.contains("Molodka by 🤖 AI 1!")
        })
        .await;
    assert!(table.text.contains("🤖 AI 1: "), "{}", table.text);
    let t = w.table(id).await;
    assert_eq!(t.trick()[0].seat, ai, "nobody moved before it");
    assert!(!t.awaiting().contains(&ai));
    let ann = w.hand_at(0, id, t.version()).await;
    assert!(!ann.text.contains("lead one or more"), "{}", ann.text);
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hearts_any_heart_breaks_is_a_setting() {
    let mut w = World::new().await;
    // A table in its lobby takes the chat's settings.
    w.fake.user_says(w.group, w.users[0], "/hearts").unwrap();
    w.shown(w.group, "the lobby", |m| m.keyboard.is_some())
        .await;
    w.fake.user_says(w.group, w.users[0], "/settings").unwrap();
    let settings = w
        .shown(w.group, "the settings", |m| m.text.starts_with("Settings"))
        .await;
    assert!(
        settings
            .text
            .contains("Hearts are broken only by a heart played off-suit"),
        "the seed's rule is the default: {}",
        settings.text
    );
    let popup = w
        .press_label(w.users[0], "Hearts break: off-suit only")
        .await;
    assert_eq!(popup.as_deref(), Some("Saved."));
    w.fake.user_says(w.group, w.users[0], "/settings").unwrap();
    w.shown(w.group, "the changed setting", |m| {
        m.text.starts_with("Settings") && m.text.contains("Hearts are broken by any heart played")
    })
    .await;
    // The table plays by it, stored with its settings.
    let id = w.seat_and_start(false).await;
    let t = w.table(id).await;
    assert!(t.settings().options.hearts.any_heart_breaks);
    let Some(Game::Hearts(m)) = t.game() else {
        panic!()
    };
    assert!(m.options().any_heart_breaks && m.deal().any_heart_breaks());
    w.stop().await;
}

/// Issue 28: a tap on a card while the hand is being redrawn for another
/// person's move. Right after each move is answered, a person who is not
/// to act next taps a card on their hand as it shows then (the redraw for
/// the move is queued or on its way); once their hand is quiet it shows
/// the move and the card ticked. Tapped again the same way, it shows the
/// card unticked. The issue saw 1 race in 4 leave the card selected with a
/// hand that never showed it; here every tap (8 of 8, each before the
/// hand showed the move) is shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_tapped_while_the_hand_is_redrawn_for_another_move_is_shown() {
    tap_races(World::new().await).await;
}

/// The same under Telegram's limits, where a redraw waits its private
/// chat's second and the tap lands while it waits or is on its way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_telegrams_limits_a_card_tapped_during_a_redraw_is_shown() {
    let setup = Setup {
        fake: strict_fake(),
        ..Setup::tuned(real_limits())
    };
    tap_races(World::with(setup).await).await;
}

async fn tap_races(mut w: World) {
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    let (mut races, mut mid_redraw) = (0, 0);
    while deal_no(&t) == 1 && races < 8 {
        let mover = t.awaiting()[0].index();
        let tapper = (mover + 2) % 4;
        // The card: the first in the hand as it shows now.
        let before = w.hand_at(tapper, id, t.version()).await;
        let card = before
            .keyboard
            .as_ref()
            .unwrap()
            .buttons()
            .find_map(card_toggle)
            .expect("a card button");
        let next = w.play(&t).await;
        for tick in [true, false] {
            // At once, on the message as it showed (a tap needs a button
            // that is shown: the message may have been redrawn since).
            let shown = w.hand_now(tapper).expect("a hand");
            let data = shown
                .keyboard
                .as_ref()
                .unwrap()
                .buttons()
                .find(|b| card_toggle(b) == Some(card))
                .and_then(|b| b.callback_data().map(str::to_owned))
                .expect("the card's button");
            let shown_at = shown.keyboard.as_ref().and_then(|k| {
                k.buttons()
                    .find_map(|b| match b.callback_data().map(Press::parse) {
                        Some(Ok(Press::Table { version, .. })) => Some(version),
                        _ => None,
                    })
            });
            if tick && shown_at < Some(next.version()) {
                mid_redraw += 1;
            }
            let q = w
                .fake
                .press(w.users[tapper], w.dm(tapper), shown.id, &data)
                .unwrap();
            assert_eq!(w.answer(&q).await, None, "the tap is answered");
            let version = w.table(id).await.version();
            let ticked = |m: &FakeMessage| {
                m.keyboard.as_ref().is_some_and(|k| {
                    k.buttons()
                        .any(|b| card_toggle(b) == Some(card) && b.text.starts_with('✓') == tick)
                        && k.buttons().any(|b| {
                            matches!(b.callback_data().map(Press::parse),
                            Some(Ok(Press::Table { version: v, .. })) if v >= version)
                        })
                })
            };
            w.fake
                .wait_for(Duration::from_secs(10), |_| {
                    w.hand_now(tapper).filter(|m| ticked(m)).map(drop)
                })
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "race {races}: the hand never shows {card} {} at version {version}: {:?}",
                        if tick { "ticked" } else { "unticked" },
                        w.hand_now(tapper).map(|m| m.text)
                    )
                });
        }
        races += 1;
        t = next;
    }
    assert!(races >= 4, "only {races} races in the deal");
    println!("{races} taps, {mid_redraw} before the hand showed the move");
    assert!(
        mid_redraw >= 1,
        "no tap came before the redraw: no race was run"
    );
    w.stop().await;
}
