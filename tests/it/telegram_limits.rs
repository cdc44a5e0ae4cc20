//! Telegram's output limits (issue 11): the fake enforces them as
//! Telegram does, and the whole bot stays within them whatever people do.

use std::time::Duration;

use kozyr::delivery::pacing::PacerConfig;
use kozyr_test_kit::fakebot::{FakeBot, FakeBotConfig, LimitHits, UserSpec};
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::ChatId;

fn retry_after(r: Result<impl std::fmt::Debug, RequestError>) -> Duration {
    match r {
        Err(RequestError::RetryAfter(s)) => s.duration(),
        other => panic!("expected RetryAfter, got {other:?}"),
    }
}

#[tokio::test]
async fn the_fake_limits_private_chats_and_the_whole_bot() {
    let fake = FakeBot::start_with(FakeBotConfig::default().telegram_limits())
        .await
        .unwrap();
    let bot = fake.bot();
    let users: Vec<UserId> = (0..40)
        .map(|i| fake.add_user(UserSpec::new(&format!("P{i}"))))
        .collect();
    for &u in &users {
        fake.start_bot(u, None).unwrap();
    }
    let dm = |i: usize| FakeBot::private_chat(users[i]);
    let t0 = std::time::Instant::now();
    // A private chat takes one a second, strictly: the second inside the
    // second is refused (no burst).
    bot.send_message(dm(0), "first").await.unwrap();
    let wait = retry_after(bot.send_message(dm(0), "too fast").await);
    assert_eq!(wait, Duration::from_secs(1));
    assert_eq!(fake.limit_hits().private, 1);
    // The whole bot: 30 at once (one already went), then 429 anywhere —
    // one output to each of the other private chats.
    let mut sent = 1;
    for i in 1..40 {
        match bot.send_message(dm(i), "hello").await {
            Ok(_) => sent += 1,
            Err(e) => {
                assert_eq!(retry_after(Err::<(), _>(e)), Duration::from_secs(1));
                break;
            }
        }
    }
    // The bucket refills at 30 a second while the calls go out.
    let refilled = (t0.elapsed().as_secs_f64() * 30.0).ceil() as usize;
    assert!(
        (30..=30 + refilled).contains(&sent),
        "{sent} outputs went out in {:?}",
        t0.elapsed()
    );
    assert_eq!(
        fake.limit_hits(),
        LimitHits {
            bot: 1,
            private: 1,
            group: 0
        }
    );
    // A second later the buckets have refilled.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    bot.send_message(dm(0), "later").await.unwrap();
}

// ------------------------------------------------------ the whole bot --

use kozyr::telegram::bot::Tuning;
use kozyr_test_kit::fakebot::Author;

use crate::support::eventually;
use crate::support::telegram::{MINUTE, Setup, World, real_limits, strict_fake};

/// The bot against `fake` with `tuning`; each test brings its people with
/// a [`Driver`].
async fn world(fake: FakeBotConfig, tuning: Tuning) -> World {
    World::with(Setup {
        fake,
        tuning,
        ..Setup::drivers_only()
    })
    .await
}

/// How many of the bot's messages in `chat` read exactly like the one it
/// sent most often (a reply asked for again and again), and which that is.
fn most_copies(fake: &FakeBot, chat: ChatId) -> (String, usize) {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for m in fake.messages(chat) {
        if m.author == Author::Bot {
            *counts.entry(m.text).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .unwrap_or_default()
}

/// Issue 11, point 3: replies to commands, welcomes and the lobby share
/// one scheduler with the table: a group never gets more than 20 outputs
/// in its minute and no private chat more than Telegram allows, whatever
/// people type, and no reply is lost.
#[tokio::test]
async fn command_replies_and_welcomes_keep_the_limits_and_none_is_lost() {
    let mut w = world(strict_fake(), real_limits()).await;
    let fake = w.fake.clone();
    let d = w.driver("Limits");
    // Everyone starts the bot three times, and someone asks for help 25
    // times in the group, all at once.
    for _ in 0..3 {
        for u in d.users {
            fake.start_bot(u, None).unwrap();
        }
    }
    for _ in 0..25 {
        fake.user_says(d.group, d.users[0], "/help").unwrap();
    }
    // Meanwhile they open a table and sit down.
    d.open_kozel_table().await.unwrap();
    eventually(
        Duration::from_secs(40),
        Duration::from_millis(100),
        "every help reply and every welcome",
        || async {
            let group_ok = most_copies(&fake, d.group).1 == 25;
            let dms_ok = (0..4).all(|i| most_copies(&fake, d.dm(i)).1 >= 3);
            (group_ok && dms_ok).then_some(())
        },
    )
    .await;
    w.stop().await;
    assert_eq!(
        fake.limit_hits(),
        LimitHits::default(),
        "429s from the fake"
    );
    assert!(fake.max_outputs_in_window(d.group, MINUTE) <= 20);
    for i in 0..4 {
        let outs = fake.outputs(d.dm(i));
        for w in outs.windows(2) {
            assert!(
                // Requests reach the fake a little earlier or later than
                // they left; the fake's own limit (no 429 above) is exact.
                w[1].at.duration_since(w[0].at) >= Duration::from_millis(900),
                "two outputs in a private chat within a second"
            );
        }
    }
}

/// Issue 11, point 6: the render that turns the lobby into the game goes
/// out at once, not after the group's usual 3 s spacing: nobody sees a
/// Start button after the game began.
#[tokio::test]
async fn the_lobby_turns_into_the_game_at_once() {
    let mut w = world(strict_fake(), real_limits()).await;
    let fake = w.fake.clone();
    let d = w.driver("Start");
    for u in d.users {
        fake.start_bot(u, None).unwrap();
    }
    fake.user_says(d.group, d.users[0], "/kozel").unwrap();
    for i in 1..4 {
        let data = d.lobby_button(&format!("{}", i + 1)).await.unwrap();
        d.press_ok(d.users[i], d.group, &data).await.unwrap();
    }
    let start_data = d.lobby_button("Start").await.unwrap();
    let (lobby, _) = fake.latest_keyboard(d.group).unwrap();
    let pressed = tokio::time::Instant::now();
    d.press_ok(d.users[0], d.group, &start_data).await.unwrap();
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(20),
        "the lobby message loses its Start button",
        || async {
            let m = fake.message(d.group, lobby)?;
            let start_gone = m
                .keyboard
                .is_none_or(|k| k.with_data(&start_data).is_none());
            start_gone.then_some(())
        },
    )
    .await;
    let took = pressed.elapsed();
    assert!(
        took < Duration::from_millis(1500),
        "the Start button stayed {took:?} after the game began"
    );
    w.stop().await;
    assert_eq!(fake.limit_hits(), LimitHits::default());
}

/// Issue 28.3: a restart keeps a group's rate window exactly. Urgent
/// writes (the lobby filling, 0.3 s apart here) fill the window at its
/// start; a restart a moment later used to guess the window's writes
/// evenly spread up to the restart and wrote again after one spacing,
/// inside the window the platform still counted (the fake refused it).
/// The writes are recorded before they go, and the restarted bot waits
/// for the window the group really spent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_the_window_a_groups_urgent_writes_filled() {
    const WINDOW: Duration = Duration::from_secs(20);
    const LIMIT: usize = 4;
    let fake = FakeBotConfig {
        group_limit: Some(LIMIT),
        group_window: WINDOW,
        ..crate::support::telegram::Setup::default().fake
    };
    let tuning = Tuning {
        group_pacing: PacerConfig {
            min_interval: Duration::from_secs(5),
            urgent_interval: Duration::from_millis(300),
            window: WINDOW,
            max_per_window: LIMIT,
        },
        ..crate::support::fast_tuning()
    };
    let mut w = world(fake, tuning).await;
    let fake = w.fake.clone();
    let d = w.driver("Window");
    for u in d.users {
        fake.start_bot(u, None).unwrap();
    }
    fake.user_says(d.group, d.users[0], "/kozel").unwrap();
    // The lobby's post and three seats taken, each shown before the next
    // (not merged): the window is full within a second or so.
    for i in 1..4 {
        let data = d.lobby_button(&format!("{}", i + 1)).await.unwrap();
        d.press_ok(d.users[i], d.group, &data).await.unwrap();
        eventually(
            Duration::from_secs(5),
            Duration::from_millis(20),
            "the seat is shown",
            || async { (fake.outputs(d.group).len() > i).then_some(()) },
        )
        .await;
    }
    let start_data = d.lobby_button("Start").await.unwrap();
    assert_eq!(fake.outputs(d.group).len(), LIMIT);
    let filled = tokio::time::Instant::now();
    w.stop().await;
    w.start().await;
    d.press_ok(d.users[0], d.group, &start_data).await.unwrap();
    assert!(
        filled.elapsed() < WINDOW / 2,
        "the restart took {:?}: too long to test the window",
        filled.elapsed()
    );
    // The game goes out once the window has room: nothing before that.
    eventually(
        WINDOW + Duration::from_secs(10),
        Duration::from_millis(50),
        "the game is shown in the group",
        || async { (fake.outputs(d.group).len() > LIMIT).then_some(()) },
    )
    .await;
    let outputs = fake.outputs(d.group);
    let after = outputs[LIMIT].at.duration_since(outputs[0].at);
    assert!(
        after >= WINDOW,
        "the first write after the restart came {after:?} after the window's first"
    );
    // Play goes on, the group's window kept.
    let played = w.open_table_in(d.group).await.expect("an open table");
    d.play_safe(&played, Duration::ZERO).await.unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(fake.max_outputs_in_window(d.group, WINDOW) <= LIMIT);
    w.stop().await;
    assert_eq!(fake.limit_hits(), LimitHits::default());
}

// ------------------------------------- a press in flight at a kill -9 --

mod in_flight {
    use std::time::Duration;

    use kozyr::front::action::{Press, TableAction};
    use kozyr::game::GameAction;
    use kozyr::kozel;
    use kozyr::table::{TableEvent, TableId};
    use kozyr_loadtest::Driver;
    use kozyr_test_kit::fakebot::FakeBotConfig;
    use sqlx::Connection;

    use crate::support::store::{Log, on_postgres};
    use crate::support::telegram::{KillWorld, is_child, parent_runtime, run_child_bot, table_of};
    use crate::support::{eventually, fast_tuning};

    const TEST: &str =
        "telegram_limits::in_flight::a_press_received_but_not_committed_survives_a_kill";

    /// The Also section of issue 11: a press the bot had received but not
    /// committed when it was killed (-9) is delivered again after the
    /// restart and applied once, because the update was never confirmed to
    /// Telegram. The commit is held back by a lock the test takes on the
    /// database ([`HeldCommits`]); the bot is killed while it waits for it.
    #[test]
    fn a_press_received_but_not_committed_survives_a_kill() {
        if is_child() {
            run_child_bot(fast_tuning());
        } else {
            parent();
        }
    }

    fn parent() {
        parent_runtime().block_on(async {
            let world = KillWorld::new(FakeBotConfig::default(), 0).await;
            let (fake, url) = (world.fake.clone(), world.url.clone());
            let bot = world.spawn(TEST);
            let driver = Driver::new(fake.clone(), "Flight");
            driver.open_kozel_table().await.expect("the table starts");
            let store = world.store().await;
            let id: TableId = table_of(&store, &driver).await.id();
            let t = store.table(id).await.expect("read").expect("table");

            // The acting person's hand is on screen before the lock is
            // taken: sending it records its message id, which the lock
            // would hold up, and the press needs its buttons.
            let seat = *t.awaiting().first().expect("someone acts");
            let lead = match t.game().and_then(|g| g.safe_action(seat)) {
                Some(GameAction::Kozel(kozel::Action::Lead(cards))) => cards,
                other => panic!("a Kozel deal opens with a lead, not {other:?}"),
            };
            let first = lead.first().expect("a lead puts down a card");
            let probe = Press::Table {
                table: id,
                version: t.version(),
                action: TableAction::Toggle(first),
            }
            .encode();
            let dm = driver.dm(seat.index());
            eventually(
                Duration::from_secs(10),
                Duration::from_millis(10),
                "the acting person's hand",
                || async { driver.message_with(dm, &probe).map(|_| ()) },
            )
            .await;

            // Hold the bot's commits: it receives the press and cannot
            // commit it.
            let lock = HeldCommits::take(&url).await;
            // The move is a tap on each card (kept in memory, answered at
            // once) and then the lead itself: the one press held.
            let presses = fake.callback_answers().len() + lead.len() as usize + 1;
            let d = driver.clone();
            let tt = t.clone();
            let play = tokio::spawn(async move { d.play_safe(&tt, Duration::ZERO).await });
            // The move's press is received (handed out by getUpdates) and
            // stays unconfirmed while the bot keeps polling.
            let unconfirmed = || {
                fake.handed_out_unconfirmed() >= 1
                    && fake.callback_answers().len() == presses
                    && fake.unanswered_callbacks().len() == 1
            };
            eventually(
                Duration::from_secs(10),
                Duration::from_millis(10),
                "the bot receives the move",
                || async { unconfirmed().then_some(()) },
            )
            .await;
            let polls = fake.calls_of("getUpdates");
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert!(fake.calls_of("getUpdates") > polls, "the bot kept polling");
            assert!(
                unconfirmed(),
                "the press in flight was confirmed to Telegram"
            );
            assert_eq!(
                store
                    .table(id)
                    .await
                    .expect("read")
                    .expect("table")
                    .version(),
                t.version(),
                "nothing committed yet"
            );

            bot.kill();
            lock.release().await;
            let _bot = world.spawn(TEST);
            let acked_at = play
                .await
                .expect("join")
                .expect("the press is answered after the restart");
            assert_eq!(acked_at, t.version());
            let acts: Vec<u64> = store
                .events(id)
                .await
                .expect("events")
                .into_iter()
                .filter(|(v, e)| *v > t.version() && matches!(e, TableEvent::Acted { .. }))
                .map(|(v, _)| v)
                .collect();
            assert_eq!(acts.len(), 1, "the move applied once: {acts:?}");
            assert!(fake.unanswered_callbacks().is_empty());
            store.close().await;
        });
    }

    /// A lock that holds back every commit of the bot and none of the
    /// test's reads: SQLite's write lock (`BEGIN IMMEDIATE`); on
    /// PostgreSQL a SHARE lock on the event log, which a commit's append
    /// waits for (holding its table's row) while plain reads go on. The
    /// blocked commit of a killed bot ends in a rollback: its server
    /// session finds the connection gone when the append returns.
    enum HeldCommits {
        Sqlite(sqlx::SqliteConnection),
        Postgres(sqlx::PgConnection),
    }

    impl HeldCommits {
        async fn take(url: &str) -> HeldCommits {
            if on_postgres() {
                let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
                sqlx::query("BEGIN")
                    .execute(&mut conn)
                    .await
                    .expect("begin");
                sqlx::query("LOCK TABLE table_events IN SHARE MODE")
                    .execute(&mut conn)
                    .await
                    .expect("lock");
                HeldCommits::Postgres(conn)
            } else {
                let mut conn = sqlx::SqliteConnection::connect(url).await.expect("connect");
                sqlx::query("BEGIN IMMEDIATE")
                    .execute(&mut conn)
                    .await
                    .expect("lock");
                HeldCommits::Sqlite(conn)
            }
        }

        async fn release(self) {
            match self {
                HeldCommits::Sqlite(mut conn) => {
                    sqlx::query("ROLLBACK")
                        .execute(&mut conn)
                        .await
                        .expect("unlock");
                    conn.close().await.expect("close");
                }
                HeldCommits::Postgres(mut conn) => {
                    sqlx::query("ROLLBACK")
                        .execute(&mut conn)
                        .await
                        .expect("unlock");
                    conn.close().await.expect("close");
                }
            }
        }
    }
}

// ------------------------------------------ the live table at the bottom --

/// The newest message of the bot in `chat` and its id.
fn newest_from_bot(fake: &FakeBot, chat: ChatId) -> Option<kozyr_test_kit::fakebot::FakeMessage> {
    fake.last_bot_message(chat)
}

/// Issue 11, point 5: when the game begins and when a new deal starts, the
/// live table is posted anew below the announcements (where people look),
/// and the old table message keeps its text without buttons.
#[tokio::test]
async fn each_deal_starts_with_the_live_table_at_the_bottom() {
    let mut w = world(Setup::default().fake, crate::support::fast_tuning()).await;
    let fake = w.fake.clone();
    let service = w.service().clone();
    let (d, t) = w.driven_table("Bottom").await;
    let id = t.id();
    // The bot's first message in the group: the lobby, which became the table.
    let lobby = fake
        .messages(d.group)
        .into_iter()
        .find(|m| m.author == Author::Bot)
        .unwrap()
        .id;

    // The table, below "Kozel begins!", is the message the moves edit.
    let live_below = |after_text: &'static str| {
        let fake = fake.clone();
        let group = d.group;
        async move {
            let msgs: Vec<_> = fake
                .messages(group)
                .into_iter()
                .filter(|m| m.author == Author::Bot)
                .collect();
            let news = msgs.iter().rposition(|m| m.text.contains(after_text))?;
            (news + 1 == msgs.len() - 1).then(|| msgs[msgs.len() - 1].id)
        }
    };
    let first = eventually(
        Duration::from_secs(10),
        Duration::from_millis(20),
        "the table posted below the game's start",
        || live_below("begins"),
    )
    .await;
    assert!(first.0 > lobby.0);
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(20),
        "the lobby message loses its buttons",
        || async {
            fake.message(d.group, lobby)?
                .keyboard
                .is_none()
                .then_some(())
        },
    )
    .await;
    let t = service.table(id).await.unwrap().unwrap();
    d.play_safe(&t, Duration::ZERO).await.unwrap();
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(20),
        "the moves edit the new table message",
        || async { (fake.message(d.group, first)?.edits > 0).then_some(()) },
    )
    .await;

    // Play to the end of the deal.
    let deal = kozyr_loadtest::deal_no(&t);
    loop {
        let t = service.table(id).await.unwrap().unwrap();
        if kozyr_loadtest::deal_no(&t) != deal || t.phase() != kozyr::table::Phase::Playing {
            break;
        }
        d.play_safe(&t, Duration::ZERO).await.unwrap();
    }
    let second = eventually(
        Duration::from_secs(10),
        Duration::from_millis(20),
        "the table posted anew below the deal's result",
        || live_below("is over"),
    )
    .await;
    assert!(second.0 > first.0);
    let old = fake.message(d.group, first).unwrap();
    assert!(
        old.keyboard.is_none(),
        "the old table message has no buttons"
    );
    assert!(!old.text.is_empty(), "the old table message keeps its text");
    assert_eq!(
        newest_from_bot(&fake, d.group).map(|m| m.id),
        Some(second),
        "nothing below the live table"
    );
    w.stop().await;
}

// ------------------------------------------- no re-sending after a restart --

/// The Also section of issue 11: after a restart the bot does not send
/// again what Telegram already shows (it used to edit every message to the
/// same content and get "message is not modified" back), and the next
/// move edits the same messages.
#[tokio::test]
async fn a_restart_sends_nothing_telegram_already_shows() {
    let mut w = world(Setup::default().fake, crate::support::fast_tuning()).await;
    let fake = w.fake.clone();
    let service = w.service().clone();
    let (d, t) = w.driven_table("Restart").await;
    let id = t.id();
    for _ in 0..2 {
        let t = service.table(id).await.unwrap().unwrap();
        d.play_safe(&t, Duration::ZERO).await.unwrap();
    }
    let writes = |f: &FakeBot| {
        f.calls_of("sendMessage")
            + f.calls_of("editMessageText")
            + f.calls_of("editMessageReplyMarkup")
    };
    // Settled: nothing more goes out for a while.
    let mut last = u64::MAX;
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(300),
        "the bot settles",
        || {
            let now = writes(&fake);
            let settled = now == last;
            last = now;
            async move { settled.then_some(()) }
        },
    )
    .await;
    w.stop().await;
    let before = writes(&fake);
    let dm_outputs = |f: &FakeBot| -> usize { (0..4).map(|i| f.outputs(d.dm(i)).len()).sum() };
    let dms_before = dm_outputs(&fake);
    w.start().await;
    // The restart renders every table and hand again: nothing Telegram
    // shows already is sent (no "message is not modified"), and no hand
    // changed, so none is edited.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        dm_outputs(&fake),
        dms_before,
        "the restart edited an unchanged hand"
    );
    assert_eq!(writes(&fake), before, "the restart sent something again");
    assert!(
        !fake.failures().contains_key("editMessageText"),
        "an edit to the same content: {:?}",
        fake.failures()
    );
    // Play goes on in the same messages.
    let hands: Vec<_> = (0..4)
        .map(|i| fake.latest_keyboard(d.dm(i)).map(|(m, _)| m))
        .collect();
    let service = w.service().clone();
    let t = service.table(id).await.unwrap().unwrap();
    d.play_safe(&t, Duration::ZERO).await.unwrap();
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(50),
        "the move is shown",
        || async { (writes(&fake) > before).then_some(()) },
    )
    .await;
    let after: Vec<_> = (0..4)
        .map(|i| fake.latest_keyboard(d.dm(i)).map(|(m, _)| m))
        .collect();
    assert_eq!(after, hands, "the hands are edited in place");
    w.stop().await;
}
