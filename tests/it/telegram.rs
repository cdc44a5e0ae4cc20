//! The whole bot end to end, without network: the fake Bot API server, the
//! real teloxide client, the real handler tree, table service and SQLite
//! store (a temporary file). Four simulated people open a table, sit down
//! (one through the deep link after a 403), and play a whole Kozel deal
//! and a whole Hearts deal by pressing the buttons the bot sent them.

use std::time::Duration;

use crate::support::store::Log;
use kozyr::config::Config;
use kozyr::front::action::TableAction;
use kozyr::game::{GameAction, GameView};
use kozyr::kozel;
use kozyr::table::{Phase, TableId};
use kozyr::telegram::bot::start;
use kozyr_test_kit::fakebot::Fault;
use kozyr_test_kit::fakebot::OutputKind;
use teloxide::types::MessageId;

use crate::support::play::Play;
use crate::support::telegram::{Setup, WAIT, World};
use crate::support::{db_url, fast_tuning, press_data};

/// Four people who have not started the bot yet (a table's lobby offers
/// the deep link to whoever has not).
async fn world() -> World {
    World::with(Setup {
        started: false,
        ..Setup::default()
    })
    .await
}

/// Opens a table with `command`, seats everyone (Dmitri through the deep
/// link) and starts it; returns the table id.
async fn open_and_start(w: &World, command: &str) -> TableId {
    for i in 0..3 {
        w.fake.start_bot(w.users[i], None).unwrap();
    }
    w.fake.user_says(w.group, w.users[0], command).unwrap();
    for i in 1..4 {
        let data = w.lobby_button(&format!("{}", i + 1)).await;
        let q = w
            .fake
            .press(
                w.users[i],
                w.group,
                w.fake.latest_keyboard(w.group).unwrap().0,
                &data,
            )
            .unwrap();
        assert_eq!(w.answer(&q).await, None);
    }
    // Dmitri never started the bot: the lobby offers him the deep link.
    let url = w
        .fake
        .wait_for(WAIT, |f| {
            let (_, kb) = f.latest_keyboard(w.group)?;
            kb.buttons().find_map(|b| b.url().map(str::to_owned))
        })
        .await
        .unwrap();
    let payload = url.split("start=").nth(1).unwrap().to_owned();
    w.fake.start_bot(w.users[3], Some(&payload)).unwrap();
    w.fake
        .wait_for(WAIT, |f| {
            let (_, kb) = f.latest_keyboard(w.group)?;
            kb.buttons().all(|b| b.url().is_none()).then_some(())
        })
        .await
        .unwrap();
    let start = w.lobby_button("Start").await;
    let q = w
        .fake
        .press(
            w.users[0],
            w.group,
            w.fake.latest_keyboard(w.group).unwrap().0,
            &start,
        )
        .unwrap();
    assert_eq!(w.answer(&q).await, None);
    let chat = kozyr::table::ChatKey::new(kozyr::table::Platform::Telegram, w.group.0.to_string())
        .unwrap();
    let t = w.service().open_table(&chat).await.unwrap().unwrap();
    assert_eq!(t.phase(), Phase::Playing);
    t.id()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kozel_deal_through_the_buttons_with_restart_stale_foreign_and_double_presses() {
    let mut w = world().await;
    let id = open_and_start(&w, "/kozel").await;
    assert!(
        w.fake.commands().len() >= 4,
        "setMyCommands in every language"
    );

    // First lead of the deal.
    let t = w.table(id).await;
    let old = t.clone();
    w.play_safe(&t).await;
    let t = w.wait_version_after(id, old.version()).await;

    // A button from the state before: refused with a popup, nothing changes.
    let seat = old.awaiting()[0].index();
    let stale_lead = match old.game().unwrap().safe_action(old.awaiting()[0]).unwrap() {
        GameAction::Kozel(kozel::Action::Lead(s)) => s,
        other => panic!("{other:?}"),
    };
    let stale = press_data(&old, TableAction::Lead(stale_lead));
    let hand = w.hand_message(seat).await;
    let q = w
        .fake
        .press_raw(w.users[seat], w.dm(seat), hand, &stale)
        .unwrap();
    assert!(w.answer(&q).await.is_some(), "stale press gets a popup");
    assert_eq!(w.table(id).await.version(), t.version());

    // A hand button pressed in the group (not where kozyr drew it): refused.
    let q = w
        .fake
        .press_raw(
            w.users[1],
            w.group,
            w.fake
                .latest_keyboard(w.group)
                .map_or(MessageId(1), |k| k.0),
            &stale,
        )
        .unwrap();
    assert!(w.answer(&q).await.is_some(), "foreign press gets a popup");
    assert_eq!(w.table(id).await.version(), t.version());

    // Restart in the middle of the trick: the same messages are edited
    // afterwards and the buttons on them keep working.
    let mut hand_ids: Vec<MessageId> = Vec::new();
    for s in 0..4 {
        hand_ids.push(w.hand_message(s).await);
    }
    let group_messages = w.fake.messages(w.group).len();
    w.stop().await;
    w.start().await;
    let t = w.table(id).await;
    assert_eq!(t.version(), w.table(id).await.version());

    // Double tap: the same action button twice; it applies once.
    let seat = t.awaiting()[0];
    let i = seat.index();
    let action = t.game().unwrap().safe_action(seat).unwrap();
    let GameAction::Kozel(kozel::Action::Pass(cards) | kozel::Action::Beat(cards)) = action else {
        panic!("{action:?}")
    };
    let cb = |a| press_data(&t, a);
    let data = if matches!(action, GameAction::Kozel(kozel::Action::Pass(_))) {
        cb(TableAction::Pass(cards))
    } else {
        cb(TableAction::Beat(cards))
    };
    // An answer of one card is its own button; more cards are selected first.
    if cards.len() > 1 {
        for c in cards.iter() {
            let popup = w
                .press(w.users[i], w.dm(i), &cb(TableAction::Toggle(c)))
                .await;
            assert_eq!(popup, None);
        }
    }
    let msg = w.hand_message(i).await;
    assert_eq!(msg, hand_ids[i], "the hand message survives the restart");
    w.fake
        .wait_for(WAIT, |f| {
            f.message(w.dm(i), msg)?
                .keyboard?
                .with_data(&data)
                .map(drop)
        })
        .await
        .unwrap();
    let q1 = w.fake.press(w.users[i], w.dm(i), msg, &data).unwrap();
    let q2 = w.fake.press(w.users[i], w.dm(i), msg, &data).unwrap();
    assert_eq!(w.answer(&q1).await, None);
    assert!(w.answer(&q2).await.is_some(), "the second tap is stale");
    let after = w.wait_version_after(id, t.version()).await;
    let events = w.running().service().storage().events(id).await.unwrap();
    let acts = events
        .iter()
        .filter(|(v, e)| *v > t.version() && matches!(e, kozyr::table::TableEvent::Acted { .. }))
        .count();
    assert_eq!(acts, 1, "applied once");
    let _ = after;

    // A 429 on the group's edits is waited out; the game goes on.
    w.fake.inject(
        Fault::too_many_requests(1)
            .method("editMessageText")
            .chat(w.group)
            .times(1),
    );

    // Play the rest of the deal.
    w.finish_deal(id).await;
    // The deal's result is announced in the group.
    w.fake
        .wait_for(WAIT, |f| {
            f.messages(w.group)
                .iter()
                .any(|m| m.text.contains("Deal") && m.text.contains("over"))
                .then_some(())
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "no deal result in {:#?}",
                w.fake
                    .messages(w.group)
                    .iter()
                    .map(|m| &m.text)
                    .collect::<Vec<_>>()
            )
        });
    assert!(
        w.fake.failures().values().sum::<u64>() >= 1,
        "the 429 happened"
    );
    assert!(
        w.fake.messages(w.group).len() > group_messages,
        "announcements are new messages"
    );
    // The table message was edited in place: one lobby/table message.
    for (s, id) in hand_ids.iter().enumerate() {
        assert_eq!(w.hand_message(s).await, *id, "hands edited in place");
    }
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hearts_deal_through_the_buttons() {
    let mut w = world().await;
    let id = open_and_start(&w, "/new hearts").await;
    w.finish_deal(id).await;
    let t = w.table(id).await;
    let GameView::Hearts(v) = t.game().unwrap().public_view() else {
        panic!()
    };
    assert_eq!(v.totals.iter().map(|(_, p)| *p).sum::<u32>(), 26);
    w.fake
        .wait_for(WAIT, |f| {
            f.messages(w.group)
                .iter()
                .any(|m| m.text.contains("Deal") && m.text.contains("over"))
                .then_some(())
        })
        .await
        .unwrap();
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_table_follows_a_group_upgraded_to_a_supergroup() {
    let mut w = world().await;
    w.fake.user_says(w.group, w.users[0], "/kozel").unwrap();
    w.lobby_button("2").await;
    let new = w.fake.migrate_to_supergroup(w.group, w.users[0]).unwrap();
    // The lobby is posted anew in the supergroup, and its buttons work there.
    let data = w
        .fake
        .wait_for(WAIT, |f| {
            let (_, kb) = f.latest_keyboard(new)?;
            kb.find("2")?.callback_data().map(str::to_owned)
        })
        .await
        .unwrap();
    assert_eq!(w.press(w.users[1], new, &data).await, None);
    let chat =
        kozyr::table::ChatKey::new(kozyr::table::Platform::Telegram, new.0.to_string()).unwrap();
    let t = w.service().open_table(&chat).await.unwrap().unwrap();
    assert_eq!(t.seats().iter().filter(|(_, s)| !s.is_empty()).count(), 2);
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

/// `kozyr run` without a usable token: one line naming the variable, exit 1.
#[test]
fn a_missing_or_malformed_token_is_one_line_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    for token in [None, Some("123:short")] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kozyr"));
        cmd.arg("run")
            .current_dir(dir.path())
            .env_remove("TELOXIDE_TOKEN");
        if let Some(t) = token {
            cmd.env("TELOXIDE_TOKEN", t);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("TELOXIDE_TOKEN"), "{err}");
        if let Some(t) = token {
            assert!(!err.contains(t), "the token is not printed: {err}");
        }
    }
}

/// Plays the table to the end of its series through the service (the
/// buttons are tested above), as the seated people.
async fn finish_series(w: &World, id: TableId) {
    use kozyr::table::runtime::{Request, Target};
    use kozyr::table::{Actor, Command};
    let service = &w.running().service();
    loop {
        let t = w.table(id).await;
        if t.phase() != Phase::Playing {
            return;
        }
        let seat = t.awaiting()[0];
        let action = t.game().unwrap().safe_action(seat).unwrap();
        let player = t.seats()[seat].person().unwrap().clone();
        service
            .submit(Request {
                target: Target::Table(id),
                actor: Actor::person(player),
                command: Command::Act {
                    seat,
                    action,
                    version: t.version(),
                },
                dedup: None,
            })
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_series_offers_a_rematch_with_the_same_seats() {
    let mut w = world().await;
    let id = open_and_start(&w, "/kozel").await;
    let seats_before = w.table(id).await.seats().clone();
    finish_series(&w, id).await;
    let t = w.table(id).await;
    assert_eq!(t.phase(), Phase::Finished);
    assert_eq!(t.series_no(), 1);

    // The table message of the finished series carries the Rematch button;
    // any seated person may press it.
    let (finished, data) = w.group_button("Rematch").await;
    assert_eq!(w.press_on(w.users[2], w.group, finished, &data).await, None);
    let t = w.wait_version_after(id, t.version()).await;
    assert_eq!(t.phase(), Phase::Playing);
    assert_eq!(t.series_no(), 2);
    assert_eq!(*t.seats(), seats_before, "the same seats");

    // The button from the finished state is stale now: nothing changes.
    // Pressed on the message that showed it, as a client not yet redrawn
    // does (the bot may already have taken it off: the new series' table
    // in the group has no buttons to look for instead).
    let q = w
        .fake
        .press_raw(w.users[1], w.group, finished, &data)
        .unwrap();
    assert!(w.answer(&q).await.is_some(), "a second rematch is refused");
    assert_eq!(w.table(id).await.series_no(), 2);

    // Everyone got a hand for the new series, with buttons.
    for s in 0..4 {
        w.hand_is_newest(s).await;
    }
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_blocks_the_bot_is_played_by_ai_and_gets_a_fresh_hand_on_return() {
    let mut w = world().await;
    let id = open_and_start(&w, "/kozel").await;
    let t = w.table(id).await;
    let seat = t.awaiting()[0];
    let i = seat.index();
    let old_hand = w.hand_message(i).await;
    w.fake.block_bot(w.users[i]).unwrap();

    // The game goes on: an AI player takes the seat over and moves for it.
    w.wait_version_after(id, t.version()).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while !w.table(id).await.seats()[seat].ai_controlled() {
        assert!(tokio::time::Instant::now() < deadline, "no AI take-over");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    w.fake
        .wait_for(WAIT, |f| {
            f.messages(w.group)
                .iter()
                .any(|m| m.text.contains("cannot write to"))
                .then_some(())
        })
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let events = w.running().service().storage().events(id).await.unwrap();
        let ai_moved = events.iter().any(|(v, e)| {
            *v > t.version()
                && matches!(e, kozyr::table::TableEvent::Acted { seat: s, by: kozyr::table::Mover::Ai, .. } if *s == seat)
        });
        if ai_moved {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the AI did not move"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // They write to the bot again: a fresh hand message, with the button
    // to take the seat back.
    let sends = |w: &World| {
        let outputs = w.fake.outputs(w.dm(i));
        outputs
            .iter()
            .filter(|o| o.kind == OutputKind::Send)
            .count()
    };
    let sent_before = sends(&w);
    w.fake.user_says(w.dm(i), w.users[i], "hello").unwrap();
    let fresh = w
        .fake
        .wait_for(WAIT, |f| {
            let m = f.messages(w.dm(i)).into_iter().rev().find(|m| {
                m.keyboard.as_ref().is_some_and(|k| {
                    k.buttons()
                        .any(|b| b.callback_data().is_some_and(|d| d.ends_with(".r")))
                })
            })?;
            (m.id != old_hand).then_some(m)
        })
        .await
        .unwrap();
    assert!(fresh.id.0 > old_hand.0, "a new message, below the old one");
    // Posted once: already below what they wrote, it is not posted anew
    // again (a private chat's writes go a second apart: room for one).
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    for m in w.fake.messages(w.dm(i)).iter().rev().take(4) {
        eprintln!(
            "DBG {:?} deleted={} {:?}",
            m.id,
            m.deleted,
            m.text.chars().take(80).collect::<String>()
        );
    }
    assert_eq!(sends(&w) - sent_before, 1, "the fresh hand, once");
    assert!(
        w.fake
            .message(w.dm(i), fresh.id)
            .is_some_and(|m| !m.deleted)
    );
    // What it shows now: the state may have moved on since it was posted
    // (the seat's take-back names the version it acts on).
    let shown = w.fake.message(w.dm(i), fresh.id).unwrap();
    let data = shown
        .keyboard
        .unwrap()
        .buttons()
        .find_map(|b| {
            b.callback_data()
                .filter(|d| d.ends_with(".r"))
                .map(str::to_owned)
        })
        .unwrap();
    let q = w.fake.press(w.users[i], w.dm(i), fresh.id, &data).unwrap();
    assert_eq!(w.answer(&q).await, None);
    let deadline = tokio::time::Instant::now() + WAIT;
    while w.table(id).await.seats()[seat].ai_controlled() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the seat was not taken back"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(w.fake.unanswered_callbacks().is_empty());
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_removed_from_the_group_stops_its_table_and_sends_nothing_more_there() {
    use kozyr_test_kit::fakebot::MemberStatus;
    let mut w = world().await;
    w.fake.user_says(w.group, w.users[0], "/kozel").unwrap();
    w.lobby_button("2").await;
    let chat = kozyr::table::ChatKey::new(kozyr::table::Platform::Telegram, w.group.0.to_string())
        .unwrap();
    let service = &w.running().service();
    let id = service.open_table(&chat).await.unwrap().unwrap().id();
    let outputs = w.fake.outputs(w.group).len();
    let failures = w.fake.failures();
    w.fake
        .set_bot_status(w.group, w.users[0], MemberStatus::Kicked)
        .unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    while w.table(id).await.phase() != Phase::Closed {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the table is still open"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(service.open_table(&chat).await.unwrap().is_none());
    // Give the runner time to (wrongly) write.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(w.fake.outputs(w.group).len(), outputs);
    assert_eq!(w.fake.failures(), failures, "no attempt to write there");

    // Added back, the bot serves the group again.
    w.fake
        .set_bot_status(w.group, w.users[0], MemberStatus::Member)
        .unwrap();
    w.fake
        .wait_for(WAIT, |f| (f.pending_updates() == 0).then_some(()))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    w.fake.user_says(w.group, w.users[0], "/hearts").unwrap();
    w.fake
        .wait_for(WAIT, |f| (f.outputs(w.group).len() > outputs).then_some(()))
        .await
        .unwrap();
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_goes_to_the_players_chat_not_to_the_group() {
    use kozyr::table::{Awaited, Output, TimerSpec};
    use kozyr_test_kit::fakebot::OutputKind;
    let mut w = world().await;
    let id = open_and_start(&w, "/kozel").await;
    let t = w.table(id).await;
    let seat = t.awaiting()[0];
    let i = seat.index();
    // Let the start's output settle.
    w.hand_is_newest(i).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let group_sends = |w: &World| {
        w.fake
            .outputs(w.group)
            .iter()
            .filter(|o| o.kind == OutputKind::Send)
            .count()
    };
    let sends_before = group_sends(&w);
    let dm_before = w.fake.messages(w.dm(i)).len();
    let shared = w.running().shared();
    let spec = TimerSpec {
        table: id,
        chat: t.chat().clone(),
        deadline: w.running().service().now().plus_secs(15),
        remind_at: None,
        awaiting: vec![Awaited {
            seat,
            player: t.seats()[seat].person().cloned(),
        }],
    };
    shared.notify(kozyr::telegram::shared::Local::Output(Output::Remind(
        Box::new(spec),
    )));
    let reminder = w
        .fake
        .wait_for(WAIT, |f| f.messages(w.dm(i)).get(dm_before).cloned())
        .await
        .unwrap();
    assert!(reminder.text.contains("15 s left"), "{}", reminder.text);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(group_sends(&w), sends_before, "no new group message");
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_mode_takes_updates_posted_with_the_secret_only() {
    let mut w = world().await;
    // Stop the polling bot once it polls (a stop during its start races).
    w.fake
        .wait_for(WAIT, |f| (f.calls_of("getUpdates") > 0).then_some(()))
        .await
        .unwrap();
    w.stop().await;
    let base = w.config();
    let (db, api, token) = (
        db_url(&w.dir),
        base.api_url.clone().unwrap().to_string(),
        w.fake.token(),
    );
    let config = Config::from_lookup(|k| match k {
        "TELOXIDE_TOKEN" => Some(token.clone()),
        "DATABASE_URL" => Some(db.clone()),
        "TELOXIDE_API_URL" => Some(api.clone()),
        "WEBHOOK_URL" => Some("https://bot.example.org/telegram/hook".into()),
        "WEBHOOK_LISTEN" => Some("127.0.0.1:0".into()),
        "WEBHOOK_SECRET" => Some("s3cret_token-1".into()),
        _ => None,
    })
    .unwrap();
    let bot = start(&config, fast_tuning()).await.unwrap();
    let addr = bot.webhook_addr().expect("listening");
    assert_eq!(
        w.fake.webhook(),
        Some((
            "https://bot.example.org/telegram/hook".to_owned(),
            Some("s3cret_token-1".to_owned())
        )),
        "setWebhook with the secret"
    );
    // Only the kinds the handlers take: no inbox row for anything else.
    assert_eq!(
        w.fake.webhook_allowed_updates(),
        Some(vec![
            "message".to_owned(),
            "callback_query".to_owned(),
            "my_chat_member".to_owned()
        ]),
        "setWebhook with allowed_updates"
    );

    // Ann asks for /help in her chat with the bot.
    w.fake.start_bot(w.users[0], None).unwrap();
    let uid = w.users[0].0;
    let update = serde_json::json!({
        "update_id": 900,
        "message": {
            "message_id": 77,
            "date": 1_700_000_000,
            "chat": {"id": uid, "type": "private", "first_name": "Ann"},
            "from": {"id": uid, "is_bot": false, "first_name": "Ann", "language_code": "en"},
            "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}]
        }
    });
    let http = reqwest::Client::new();
    let hook = format!("http://{addr}/telegram/hook");
    let before = w.fake.messages(w.dm(0)).len();
    let post = |secret: Option<&'static str>| {
        let mut req = http.post(&hook).json(&update);
        if let Some(s) = secret {
            req = req.header("X-Telegram-Bot-Api-Secret-Token", s);
        }
        req.send()
    };
    assert_eq!(post(None).await.unwrap().status(), 403);
    assert_eq!(post(Some("wrong")).await.unwrap().status(), 403);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        w.fake.messages(w.dm(0)).len(),
        before,
        "nothing from refused posts"
    );
    assert_eq!(post(Some("s3cret_token-1")).await.unwrap().status(), 200);
    w.fake
        .wait_for(WAIT, |f| (f.messages(w.dm(0)).len() > before).then_some(()))
        .await
        .unwrap();
    // Another path is not the webhook.
    let other = http
        .post(format!("http://{addr}/other"))
        .header("X-Telegram-Bot-Api-Secret-Token", "s3cret_token-1")
        .json(&update)
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 404);
    bot.stop().await;
    // The server stopped with the bot.
    assert!(http.post(&hook).send().await.is_err());
}

/// Issue 11, point 2: "Join" seats whoever presses it at any free seat, so
/// two people pressing at once both sit (no "that seat is taken").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_pressing_join_at_once_both_sit() {
    let mut w = world().await;
    for i in 0..3 {
        w.fake.start_bot(w.users[i], None).unwrap();
    }
    w.fake.user_says(w.group, w.users[0], "/kozel").unwrap();
    let join = w.lobby_button("Join").await;
    let lobby = w.fake.latest_keyboard(w.group).unwrap().0;
    let a = w.fake.press(w.users[1], w.group, lobby, &join).unwrap();
    let b = w.fake.press(w.users[2], w.group, lobby, &join).unwrap();
    assert_eq!(w.answer(&a).await, None, "Boris sits");
    assert_eq!(w.answer(&b).await, None, "Carla sits");
    let chat = kozyr::table::ChatKey::Telegram(w.group.0);
    let t = w
        .running()
        .service()
        .open_table_view(&chat)
        .await
        .unwrap()
        .unwrap();
    let seated: Vec<_> = (0..3)
        .map(|i| t.seat_of(&kozyr::table::UserId::Telegram(w.users[i].0)))
        .collect();
    assert!(seated.iter().all(Option::is_some), "{seated:?}");
    assert_ne!(seated[1], seated[2]);
    w.stop().await;
}

/// Issue 11, point 10: messages in a group are in the group's language,
/// not the language of whoever sent the command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_hears_its_own_language_whoever_asks() {
    let mut w = world().await;
    let ivan = w
        .fake
        .add_user(kozyr_test_kit::fakebot::UserSpec::new("Ivan").language("ru"));
    let group = w.fake.add_group("Mixed table", &[w.users[0], ivan]);
    let bot_says =
        |f: &kozyr_test_kit::fakebot::FakeBot| -> Vec<kozyr_test_kit::fakebot::FakeMessage> {
            f.messages(group)
                .into_iter()
                .filter(|m| m.author == kozyr_test_kit::fakebot::Author::Bot)
                .collect()
        };
    // A group that never had a table: the sender's language.
    w.fake.user_says(group, ivan, "/help").unwrap();
    let first = w
        .fake
        .wait_for(WAIT, |f| bot_says(f).first().cloned())
        .await
        .unwrap();
    assert!(first.text.contains("Козёл"), "{}", first.text);
    // Ann opens a table in English: the group speaks English from now on,
    // Ivan's /help included.
    w.fake.user_says(group, w.users[0], "/kozel").unwrap();
    w.lobby_button_in(group, "Join").await;
    let before = bot_says(&w.fake).len();
    w.fake.user_says(group, ivan, "/help").unwrap();
    let help = w
        .fake
        .wait_for(WAIT, |f| {
            bot_says(f)
                .into_iter()
                .skip(before)
                .find(|m| m.keyboard.is_none())
        })
        .await
        .unwrap();
    assert!(help.text.contains("Kozel"), "{}", help.text);
    assert!(!help.text.contains("Козёл"), "{}", help.text);
    w.stop().await;
}
