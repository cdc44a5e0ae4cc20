//! Issue 11, points 6, 7 and 8, end to end through the fake Bot API, the
//! real teloxide client, handler tree, scheduler, table service and store.
//! People press only buttons the bot drew, and the tests read what the
//! group and the hands show.
//!
//! - the turn timer: the group table and the acting person's hand state the
//!   same full allowance, however late the paced group edit goes out, and
//!   a later render in the same turn says the same;
//! - ticks: quick taps (faster than a private chat's one edit a second),
//!   some twice, while other seats move, settle on exactly the cards
//!   tapped an odd number of times, every tap answered; a new deal starts
//!   with nothing ticked, even a card of the last move dealt again;
//! - menus: `/new`, `/settings`, `/lang` and the `/stop` prompt keep no
//!   working buttons once their job is done; an old button of a closed
//!   menu changes nothing and says so.

use std::time::{Duration, Instant};

use kozyr::cards::{CardSet, Seat};
use kozyr::game::{Game, GameAction, GameKind, GameOptions, GameView};
use kozyr::kozel;
use kozyr::table::Table;
use kozyr::telegram::bot::Tuning;
use kozyr_test_kit::fakebot::{FakeBotConfig, FakeMessage, LimitHits};
use teloxide::types::{ChatId, MessageId, UserId};

use crate::support::fast_tuning;
use crate::support::telegram::{
    NAMES, Setup, World, card_toggle, policy, real_limits, strict_fake,
};

/// Paced outputs take seconds (3 s between group edits, 1 s in a private
/// chat), so waits are generous.
const WAIT: Duration = Duration::from_secs(20);

/// The bot against a fake set up by `fake`, with `turn_secs` of turn
/// timer for new tables (`None`: no timer).
async fn world(fake: FakeBotConfig, tuning: Tuning, turn_secs: Option<u32>) -> World {
    World::with(Setup {
        fake,
        tuning,
        turn_secs,
        wait: WAIT,
        ..Setup::default()
    })
    .await
}

/// A fake without limits.
fn lenient() -> FakeBotConfig {
    Setup::default().fake
}

fn deal_no(game: &Game) -> u32 {
    match game.public_view() {
        GameView::Kozel(v) => v.deal_no,
        GameView::Hearts(v) => v.results.len() as u32 + 1,
    }
}

fn kozel_hand(game: &Game, seat: Seat) -> CardSet {
    match game.view(seat) {
        GameView::Kozel(v) => v.deal.hand,
        GameView::Hearts(_) => unreachable!(),
    }
}

/// The cards a hand message shows ticked, from its buttons ("✓7♠").
fn ticked(m: &FakeMessage) -> CardSet {
    let mut out = CardSet::EMPTY;
    for b in m.keyboard.iter().flat_map(|k| k.buttons()) {
        if let Some(c) = card_toggle(b)
            && b.text.starts_with('✓')
        {
            out.insert(c);
        }
    }
    out
}

/// The button data that toggles `card` on message `m`, if it shows one.
fn toggle_on(m: &FakeMessage, card: kozyr::cards::Card) -> Option<String> {
    m.keyboard
        .as_ref()?
        .buttons()
        .find(|b| card_toggle(b) == Some(card))
        .and_then(|b| b.callback_data().map(str::to_owned))
}

// ------------------------------------------------------------- point 7 --

/// Issue 11, point 7: the group table and the acting person's hand state
/// the same full allowance for the turn, also when the paced group edit
/// goes out seconds after the turn began, and a later render in the same
/// turn says the same: nothing pretends to count down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_group_and_the_hand_state_the_same_full_allowance() {
    let mut w = world(strict_fake(), real_limits(), Some(60)).await;
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    let allowance = "⏳ 60 s a move";
    let in_hand = "⏳ You have 60 s a move.";
    let turn_line = |t: &Table| {
        format!(
            "Turn: \u{2068}{}\u{2069} · {allowance}",
            NAMES[t.awaiting()[0].index()]
        )
    };

    // The first turn: the table and the leader's hand; the others' hands
    // state no allowance (it is not their move).
    let first = turn_line(&t);
    w.shown(w.group, "the first turn with its allowance", |m| {
        m.text.starts_with("Kozel · deal 1") && m.text.contains(&first)
    })
    .await;
    let leader = t.awaiting()[0].index();
    for s in 0..4 {
        let m = w.hand_at(s, id, t.version()).await;
        assert_eq!(
            m.text.contains(in_hand),
            s == leader,
            "seat {s}: {}",
            m.text
        );
        assert!(!m.text.contains("left"), "{}", m.text);
    }

    // Three moves, one after another: after each, the group edit showing
    // the next turn goes out when the group's pacing lets it (3 s between
    // edits), seconds after the turn began. It still states the full
    // allowance, as does the hand of whoever must act.
    let mut delays = Vec::new();
    for _ in 0..3 {
        t = w.play(&t).await;
        let moved = Instant::now();
        let line = turn_line(&t);
        let msg = w
            .shown(w.group, "the next turn with its allowance", |m| {
                m.text.starts_with("Kozel · deal 1") && m.text.contains(&line)
            })
            .await;
        delays.push(moved.elapsed());
        assert!(!msg.text.contains(" s left"), "{}", msg.text);
        let actor = t.awaiting()[0].index();
        let hand = w.hand_at(actor, id, t.version()).await;
        assert!(hand.text.contains(in_hand), "{}", hand.text);
    }
    assert!(
        delays.iter().any(|d| *d >= Duration::from_secs(2)),
        "a group edit went out seconds after its turn began: {delays:?}"
    );

    // A later render in the same turn: the person taps a card; the hand
    // shows it ticked and the same allowance; the table has not changed.
    // On to a lead, whose cards are selected (an answer of one card is
    // played with one tap).
    let leads = |t: &Table| {
        t.game()
            .unwrap()
            .legal_actions(t.awaiting()[0])
            .iter()
            .any(|a| matches!(a, GameAction::Kozel(kozel::Action::Lead(_))))
    };
    while !leads(&t) {
        t = w.play(&t).await;
    }
    let actor = t.awaiting()[0].index();
    let hand = w.hand_at(actor, id, t.version()).await;
    let card = kozel_hand(t.game().unwrap(), t.awaiting()[0])
        .iter()
        .next()
        .unwrap();
    let data = toggle_on(&hand, card).unwrap();
    assert_eq!(
        w.press_on(w.users[actor], w.dm(actor), hand.id, &data)
            .await,
        None
    );
    let again = w
        .shown(w.dm(actor), "the hand with the card ticked", |m| {
            m.id == hand.id && ticked(m).contains(card)
        })
        .await;
    assert!(again.text.contains(in_hand), "{}", again.text);
    tokio::time::sleep(Duration::from_secs(4)).await;
    let table = w
        .shown(w.group, "the table", |m| {
            m.text.starts_with("Kozel · deal 1")
        })
        .await;
    assert!(table.text.contains(&turn_line(&t)), "{}", table.text);
    assert_eq!(w.table(id).await.version(), t.version());
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
    assert_eq!(
        w.fake.limit_hits(),
        LimitHits::default(),
        "429s from the fake"
    );
}

// ------------------------------------------------------------- point 8 --

/// Issue 11, point 8: a person taps cards faster than their private chat
/// may be edited (one edit a second), some twice, while the other seats
/// move and their hand is redrawn for it; every tap is answered, and when
/// things settle the hand shows ticked exactly the cards tapped an odd
/// number of times. At a human pace, a tap shows at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_taps_settle_on_exactly_the_cards_tapped_an_odd_number_of_times() {
    let mut w = world(strict_fake(), real_limits(), None).await;
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    // The tapper acts last: two seats move meanwhile, and it is still not
    // their turn (an answer of one card is played with one tap and shows
    // no selection).
    let leader = t.awaiting()[0];
    let tapper = leader.next().next().next();
    let i = tapper.index();
    let cards: Vec<_> = kozel_hand(t.game().unwrap(), tapper).iter().collect();
    assert_eq!(cards.len(), 4);
    w.hand_at(i, id, t.version()).await;
    let outputs_before = w.fake.outputs(w.dm(i)).len();

    // Taps on whatever hand message the person sees, 150 ms apart.
    let mut counts = [0u32; 4];
    let mut queries = Vec::new();
    let bursts: [&[usize]; 3] = [&[0, 1, 0, 2], &[1, 3, 0], &[3, 2, 2]];
    for (b, burst) in bursts.iter().enumerate() {
        for &k in *burst {
            let m = w.hand_now(i).unwrap();
            let data = toggle_on(&m, cards[k]).unwrap();
            queries.push(w.fake.press(w.users[i], w.dm(i), m.id, &data).unwrap());
            counts[k] += 1;
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        // Another seat moves while the taps are still being drawn: the
        // tapper's hand is redrawn for the new trick too.
        if b < 2 {
            t = w.play(&t).await;
        }
    }
    for q in &queries {
        assert_eq!(
            w.answer(q).await,
            None,
            "a tap is answered without a refusal"
        );
    }
    let expected: CardSet = cards
        .iter()
        .zip(counts)
        .filter(|(_, n)| n % 2 == 1)
        .map(|(c, _)| *c)
        .collect();
    assert_eq!(expected.len(), 2, "{counts:?}");
    let settled = |w: &World| w.hand_now(i).filter(|m| ticked(m) == expected);
    let m = w
        .fake
        .wait_for(WAIT, |_| settled(&w))
        .await
        .unwrap_or_else(|_| panic!("the hand never showed {expected:?}: {:?}", w.hand_now(i)));
    assert!(m.text.contains("Selected: "), "{}", m.text);
    // The taps came faster than the chat may be edited: they coalesced.
    let drawn = w.fake.outputs(w.dm(i)).len() - outputs_before;
    assert!(
        drawn < queries.len(),
        "{drawn} outputs for {} taps",
        queries.len()
    );
    // Settled: nothing drawn later takes the ticks back.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let m = w.hand_now(i).unwrap();
    assert_eq!(ticked(&m), expected, "{}", m.text);

    // One more tap at a human pace shows on the hand.
    let data = toggle_on(&m, cards[1]).unwrap();
    let before = m.edits;
    assert_eq!(w.press_on(w.users[i], w.dm(i), m.id, &data).await, None);
    let mut now = expected;
    now.insert(cards[1]);
    let shown = w
        .shown(w.dm(i), "the tapped card ticked", |m| ticked(m) == now)
        .await;
    assert!(shown.edits > before);
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
    assert_eq!(
        w.fake.limit_hits(),
        LimitHits::default(),
        "429s from the fake"
    );
}

/// How the first deal's last move is made in [`deal_two_starts_unticked`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastMove {
    /// The person selects the cards and presses the move's button.
    Pressed,
    /// The person selects a card and waits: the turn timer runs out and
    /// the safe move is played for them (the selection stays theirs).
    TimedOut,
}

/// The first series seed from `from` on whose first deal, played by
/// [`policy`], the last move is the game's safe move and is made by a seat
/// that is dealt one of that move's cards again in the second deal:
/// (seed, seat, the card, how many moves the deal takes).
fn seed_with_a_card_dealt_again(from: u64) -> (u64, Seat, kozyr::cards::Card, usize) {
    for seed in from..from + 5_000 {
        let mut game = Game::new(GameKind::Kozel, GameOptions::default(), seed);
        let mut last = None;
        let mut moves = 0;
        while deal_no(&game) == 1 {
            moves += 1;
            let seat = game.awaiting()[0];
            let action = policy(&game, seat);
            let safe = game.safe_action(seat) == Some(action);
            game.apply(seat, action).unwrap();
            last = Some((seat, action, safe));
        }
        let Some((seat, GameAction::Kozel(a), true)) = last else {
            continue;
        };
        let cards = match a {
            kozel::Action::Lead(s) | kozel::Action::Beat(s) | kozel::Action::Pass(s) => s,
            _ => continue,
        };
        if game.is_over() {
            continue;
        }
        if let Some(c) = (cards & kozel_hand(&game, seat)).iter().next() {
            return (seed, seat, c, moves);
        }
    }
    panic!("no seed from {from} deals a last card again");
}

/// Plays the first deal of a seeded series whose last mover is dealt a
/// card of their last move again, that last move made as `last`; checks
/// that no hand of the second deal shows anything ticked, as first drawn
/// and once things settle, and that one tap ticks the card dealt again.
async fn deal_two_starts_unticked(last: LastMove) {
    let (seed, last_seat, again, moves) = seed_with_a_card_dealt_again(1);
    let mut tuning = fast_tuning();
    tuning.service.seed = Some(seed);
    let timer = (last == LastMove::TimedOut).then_some(kozyr::table::TurnTimer::MIN_SECS);
    let mut w = world(lenient(), tuning, timer).await;
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    let i = last_seat.index();
    for played in 0.. {
        let seat = t.awaiting()[0];
        if last == LastMove::TimedOut && played + 2 == moves {
            assert_ne!(seat, last_seat, "the seeded deal went as simulated");
            // Select the card that comes again while waiting (the last
            // move answers one card: that hand plays with one tap and has
            // nothing to select), then let the time run out on that move.
            let m = w.hand_at(i, id, t.version()).await;
            let data = toggle_on(&m, again).unwrap();
            assert_eq!(w.press_on(w.users[i], w.dm(i), m.id, &data).await, None);
            w.shown(w.dm(i), "the last card ticked", |m| {
                ticked(m).contains(again)
            })
            .await;
        }
        if last == LastMove::TimedOut && played + 1 == moves {
            assert_eq!(seat, last_seat, "the seeded deal went as simulated");
            t = w.wait_version_after(id, t.version()).await;
            assert_eq!(
                deal_no(t.game().unwrap()),
                2,
                "the timed-out move ended the deal"
            );
            break;
        }
        let before = t.awaiting()[0];
        t = w.play(&t).await;
        if deal_no(t.game().unwrap()) == 2 {
            assert_eq!(before, last_seat, "the seeded deal went as simulated");
            assert_eq!(last, LastMove::Pressed);
            break;
        }
    }
    let hand = kozel_hand(t.game().unwrap(), last_seat);
    assert!(hand.contains(again), "{again} is dealt again");
    for s in 0..4 {
        let m = w.hand_at(s, id, t.version()).await;
        assert_eq!(ticked(&m), CardSet::EMPTY, "seat {s}: {}", m.text);
        assert!(!m.text.contains("Selected: "), "{}", m.text);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let m = w.hand_now(i).unwrap();
    assert_eq!(ticked(&m), CardSet::EMPTY, "{}", m.text);
    // Tapping the card dealt again selects it (one tap, one tick).
    let data = toggle_on(&m, again).unwrap();
    assert_eq!(w.press_on(w.users[i], w.dm(i), m.id, &data).await, None);
    w.shown(w.dm(i), "the card dealt again ticked by one tap", |m| {
        ticked(m) == CardSet::single(again)
    })
    .await;
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

/// Issue 11, point 8: the cards a person selected for their last move of
/// a deal are not shown ticked in the next deal's hand, even the card
/// that the next deal gives them again (the stale 10♣).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_deal_starts_with_nothing_ticked_even_a_card_dealt_again() {
    deal_two_starts_unticked(LastMove::Pressed).await;
}

/// Issue 11, point 8: a selection the person still holds when the deal
/// ends (the timer played their last card for them) is not shown in the
/// next deal's hand, though the same card is dealt to them again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selection_left_when_the_timer_ends_the_deal_is_not_shown_in_the_next() {
    deal_two_starts_unticked(LastMove::TimedOut).await;
}

// ------------------------------------------------------------- point 6 --

/// The message `id` in `chat` once it shows no buttons, with its text.
async fn closed(w: &World, chat: ChatId, id: MessageId, what: &str) -> FakeMessage {
    w.fake
        .wait_for(WAIT, |f| {
            f.message(chat, id).filter(|m| {
                m.keyboard
                    .as_ref()
                    .is_none_or(|k| k.buttons().next().is_none())
            })
        })
        .await
        .unwrap_or_else(|_| panic!("{what} kept its buttons: {:?}", w.fake.message(chat, id)))
}

/// The newest stop prompt in `chat` other than `not`: (message, yes, no).
async fn stop_prompt(
    w: &World,
    chat: ChatId,
    not: Option<MessageId>,
) -> (MessageId, String, String) {
    w.fake
        .wait_for(WAIT, |f| {
            f.messages(chat).into_iter().rev().find_map(|m| {
                let kb = m.keyboard.as_ref()?;
                let yes = kb.find("Yes, stop it")?.callback_data()?.to_owned();
                let no = kb.find("No, keep playing")?.callback_data()?.to_owned();
                (Some(m.id) != not).then_some((m.id, yes, no))
            })
        })
        .await
        .unwrap()
}

/// An old button of a closed menu, pressed from a client that still shows
/// it: refused with a clear answer.
async fn press_old(w: &World, user: UserId, msg: MessageId, data: &str) {
    press_old_in(w, user, w.group, msg, data).await;
}

async fn press_old_in(w: &World, user: UserId, chat: ChatId, msg: MessageId, data: &str) {
    let q = w.fake.press_raw(user, chat, msg, data).unwrap();
    assert_eq!(
        w.answer(&q).await.as_deref(),
        Some("This menu is closed: send the command again for a new one."),
    );
}

/// Issue 11, point 6: every menu closes when its job is done. The `/new`
/// game menu, `/settings` (a timer, a Hearts option, its language row),
/// `/lang` and the `/stop` prompt (no, then yes): once a choice is made
/// the menu keeps no buttons (settings and languages say what is in
/// force now), and a press on an old button of a closed menu changes
/// nothing and says the menu is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_menu_closes_when_its_job_is_done() {
    let mut w = world(lenient(), fast_tuning(), None).await;
    let (ann, boris) = (w.users[0], w.users[1]);

    // /new: Kozel chosen; the menu loses its buttons, the lobby opens.
    w.fake.user_says(w.group, ann, "/new").unwrap();
    let (menu, kozel) = w.group_button("Kozel").await;
    let hearts = w
        .fake
        .message(w.group, menu)
        .unwrap()
        .keyboard
        .unwrap()
        .find("Hearts")
        .unwrap()
        .callback_data()
        .unwrap()
        .to_owned();
    assert_eq!(w.press_on(ann, w.group, menu, &kozel).await, None);
    closed(&w, w.group, menu, "the /new menu").await;
    let t = w.open_table_in(w.group).await.unwrap();
    assert_eq!(t.kind(), GameKind::Kozel);
    press_old(&w, boris, menu, &hearts).await;
    press_old(&w, ann, menu, &kozel).await;
    let same = w.open_table_in(w.group).await.unwrap();
    assert_eq!((same.id(), same.version()), (t.id(), t.version()));

    // /settings: a timer chosen; the menu shows the settings in force
    // without buttons; its other buttons do nothing now.
    w.fake.user_says(w.group, ann, "/settings").unwrap();
    let (menu, secs30) = w.group_button("30 s").await;
    let keyboard = w.fake.message(w.group, menu).unwrap().keyboard.unwrap();
    let data = |label: &str| {
        keyboard
            .find(label)
            .unwrap()
            .callback_data()
            .unwrap()
            .to_owned()
    };
    let (no_limit, moon, russian) = (data("No limit"), data("moon"), data("Русский"));
    assert_eq!(
        w.press_on(ann, w.group, menu, &secs30).await.as_deref(),
        Some("Saved.")
    );
    let m = closed(&w, w.group, menu, "the settings menu").await;
    assert!(m.text.starts_with("Settings"), "{}", m.text);
    assert!(m.text.contains("Turn timer: 30 s"), "{}", m.text);
    let v = w.open_table_in(w.group).await.unwrap();
    for old in [&no_limit, &moon, &russian, &secs30] {
        press_old(&w, ann, menu, old).await;
    }
    let after = w.open_table_in(w.group).await.unwrap();
    assert_eq!(
        after.version(),
        v.version(),
        "old settings buttons change nothing"
    );
    assert_eq!(after.settings().turn_timer.map(|t| t.secs()), Some(30));

    // /settings again: a Hearts option, then its language row.
    w.fake.user_says(w.group, ann, "/settings").unwrap();
    let (menu, moon) = w
        .group_button_on("moon", |m| {
            m.text.contains("Turn timer: 30 s") && m.id != menu
        })
        .await;
    let shoot_before = w
        .open_table_in(w.group)
        .await
        .unwrap()
        .settings()
        .options
        .hearts
        .shoot_the_moon;
    assert_eq!(
        w.press_on(ann, w.group, menu, &moon).await.as_deref(),
        Some("Saved.")
    );
    let m = closed(&w, w.group, menu, "the second settings menu").await;
    assert!(m.text.starts_with("Settings"), "{}", m.text);
    press_old(&w, ann, menu, &moon).await;
    assert_eq!(
        w.open_table_in(w.group)
            .await
            .unwrap()
            .settings()
            .options
            .hearts
            .shoot_the_moon,
        !shoot_before,
        "one press, one change"
    );
    w.fake.user_says(w.group, ann, "/settings").unwrap();
    let (menu, pt) = w
        .group_button_on("Português", |m| m.text.starts_with("Settings"))
        .await;
    assert_eq!(
        w.press_on(ann, w.group, menu, &pt).await.as_deref(),
        Some("Saved.")
    );
    let m = closed(&w, w.group, menu, "the settings menu after a language").await;
    assert_eq!(m.text, "Idioma: Português");
    press_old(&w, ann, menu, &pt).await;

    // /lang: back to English; the menu says so, without buttons.
    w.fake.user_says(w.group, ann, "/lang").unwrap();
    let (menu, en) = w.group_button("English").await;
    let ru = w
        .fake
        .message(w.group, menu)
        .unwrap()
        .keyboard
        .unwrap()
        .find("Русский")
        .unwrap()
        .callback_data()
        .unwrap()
        .to_owned();
    assert_eq!(
        w.press_on(ann, w.group, menu, &en).await.as_deref(),
        Some("Saved.")
    );
    let m = closed(&w, w.group, menu, "the language menu").await;
    assert_eq!(m.text, "Language: English");
    press_old(&w, ann, menu, &ru).await;
    assert_eq!(
        w.open_table_in(w.group).await.unwrap().settings().lang,
        kozyr::i18n::Lang::En
    );

    // /stop: the prompt is Ann's alone, in her private chat. "No" closes
    // it and keeps the table; its old "Yes" does nothing. A second
    // prompt's "Yes" stops the table.
    let dm = w.dm(0);
    w.fake.user_says(w.group, ann, "/stop").unwrap();
    let (menu, yes, no) = stop_prompt(&w, dm, None).await;
    assert_eq!(w.press_on(ann, dm, menu, &no).await, None);
    let m = closed(&w, dm, menu, "the stop prompt after No").await;
    assert_eq!(m.text, "The table was not stopped: the game goes on.");
    press_old_in(&w, ann, dm, menu, &yes).await;
    let kept = w.open_table_in(w.group).await.expect("the table goes on");
    assert_eq!(kept.id(), t.id());
    w.fake.user_says(w.group, ann, "/stop").unwrap();
    let (menu2, yes2, _) = stop_prompt(&w, dm, Some(menu)).await;
    assert_eq!(w.press_on(ann, dm, menu2, &yes2).await, None);
    closed(&w, dm, menu2, "the stop prompt after Yes").await;
    assert!(
        w.open_table_in(w.group).await.is_none(),
        "the table was stopped"
    );
    press_old_in(&w, ann, dm, menu2, &yes2).await;
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

/// The lobby's text and buttons are in `front::snapshots::lobbies`; here:
/// an onboarding button becomes a Telegram deep link that seats the person,
/// and a bot name that cannot make a link drops the button, not the screen.
#[test]
fn lobby_onboarding_buttons_become_deep_links() {
    use kozyr::cards::PerSeat;
    use kozyr::front::ButtonTarget;
    use kozyr::front::action::JoinLink;
    use kozyr::front::present::{Occupant, TableInfo, lobby};
    use kozyr::i18n::Lang;
    use kozyr::table::TableId;
    use kozyr::telegram::markup::Message;

    let seat = |i| Seat::new(i).unwrap();
    let mut seats = PerSeat::from_fn(|s| Some(Occupant::human(NAMES[s.index()])));
    seats[seat(3)] = Some(Occupant::Human {
        name: "<Eve>".into(),
        reachable: false,
    });
    let t = TableInfo {
        table: TableId(i64::MAX),
        version: 9,
        game: GameKind::Kozel,
        seats,
        turn_allowance: None,
        last_trick: None,
        last_deal: None,
    };
    let r = lobby(Lang::En, &t, NAMES[0]);
    let onboard: Vec<_> = r
        .keyboard
        .buttons()
        .filter(|b| matches!(b.target, ButtonTarget::Onboard { .. }))
        .collect();
    assert_eq!(onboard.len(), 1);
    assert_eq!(
        onboard[0].target,
        ButtonTarget::Onboard {
            table: TableId(i64::MAX),
            seat: seat(3)
        }
    );
    let url = Message::of(&r, "kozyr_bot")
        .keyboard
        .unwrap()
        .inline_keyboard
        .iter()
        .flatten()
        .find_map(|b| match &b.kind {
            teloxide::types::InlineKeyboardButtonKind::Url(u) => Some(u.to_string()),
            _ => None,
        })
        .unwrap();
    let payload = url.strip_prefix("https://t.me/kozyr_bot?start=").unwrap();
    assert_eq!(
        JoinLink::parse(payload),
        Ok(JoinLink {
            table: TableId(i64::MAX),
            seat: Some(seat(3))
        })
    );
    let bad = Message::of(&r, "no");
    let buttons = bad
        .keyboard
        .map_or(0, |k| k.inline_keyboard.iter().flatten().count());
    assert_eq!(buttons, r.keyboard.buttons().count() - 1);
}
