//! What is on screen survives a kill -9 (issue 19, delivery state in the
//! database): the bot runs in a child process (this test binary again)
//! and is killed with SIGKILL once its screens settled. The process that
//! starts next reads what each message shows — recorded as it changed,
//! made unknown before each call that changes it — so it sends nothing
//! that changes nothing on screen, and play goes on in the same messages.
//! On Discord it also reads the hand tokens, so a hand opened before the
//! kill is edited after it without anyone pressing "My hand" again.

use std::time::Duration;

use kozyr::front::action::Press;
use kozyr::store::StoreOptions;
use kozyr::table::storage::TableStore;
use kozyr::table::{Phase, Platform, Table};
use kozyr_loadtest::Driver;
use kozyr_test_kit::fakebot::{FakeBot, FakeBotConfig};

use crate::support::eventually;
use crate::support::telegram::{KillWorld, is_child, parent_runtime, run_child_bot};

const TELEGRAM_TEST: &str =
    "takeover_screens::telegram_after_a_kill_nothing_unchanged_is_sent_and_screens_stay_current";

/// Every call that writes to a chat.
fn writes(f: &FakeBot) -> u64 {
    f.calls_of("sendMessage")
        + f.calls_of("editMessageText")
        + f.calls_of("editMessageReplyMarkup")
        + f.calls_of("deleteMessage")
}

/// Edits Telegram refused, "message is not modified" among them.
fn refused_edits(f: &FakeBot) -> u64 {
    f.failures().get("editMessageText").copied().unwrap_or(0)
}

/// Waits until nothing more goes out for a while.
async fn settle(fake: &FakeBot) {
    let mut last = u64::MAX;
    eventually(
        Duration::from_secs(15),
        Duration::from_millis(400),
        "the bot settles",
        || {
            let now = writes(fake);
            let settled = now == last;
            last = now;
            async move { settled.then_some(()) }
        },
    )
    .await;
}

/// The versions the buttons of the newest keyboard in each person's
/// private chat and in the group were drawn for.
fn button_versions(fake: &FakeBot, d: &Driver) -> Vec<Option<u64>> {
    (0..4)
        .map(|i| d.dm(i))
        .chain([d.group])
        .map(|chat| {
            let (_, kb) = fake.latest_keyboard(chat)?;
            kb.buttons()
                .filter_map(|b| b.callback_data())
                .find_map(|data| match Press::parse(data) {
                    Ok(Press::Table { version, .. }) => Some(version),
                    _ => None,
                })
        })
        .collect()
}

#[test]
fn telegram_after_a_kill_nothing_unchanged_is_sent_and_screens_stay_current() {
    if is_child() {
        run_child_bot(crate::support::fast_tuning());
        return;
    }
    parent_runtime().block_on(async {
        // KillWorld's database is on the tests' backend (support::store).
        let world = KillWorld::new(FakeBotConfig::default(), 0).await;
        let fake = world.fake.clone();
        let mut bot = Some(world.start(TELEGRAM_TEST).await);
        let store = kozyr::store::open(&StoreOptions::new(&world.url))
            .await
            .expect("the store");
        let mut driver = Driver::new(fake.clone(), "Screens");
        driver.patience = Duration::from_secs(10);
        driver.open_kozel_table().await.expect("the table starts");
        let table = async |store: &dyn TableStore| -> Table {
            store
                .open_table(&driver.chat_key())
                .await
                .expect("read")
                .expect("an open table")
        };
        // Some moves: the table and the hands changed since they were posted.
        for _ in 0..3 {
            let t = table(&*store).await;
            driver.play_safe(&t, Duration::ZERO).await.expect("a move");
        }
        settle(&fake).await;
        let before = (writes(&fake), refused_edits(&fake));

        bot.take().expect("running").kill();
        bot = Some(world.start(TELEGRAM_TEST).await);
        // The new process renders every open table and hand again; what
        // each message shows was recorded, so none of it goes out.
        tokio::time::sleep(Duration::from_millis(500)).await;
        settle(&fake).await;
        assert_eq!(
            refused_edits(&fake),
            before.1,
            "an edit after the kill changed nothing (\"message is not modified\")"
        );
        assert_eq!(
            writes(&fake),
            before.0,
            "the restarted bot sent what the screens showed already"
        );
        // Play goes on in the same messages, and after the next moves
        // every screen shows the table as it is.
        for _ in 0..4 {
            let t = table(&*store).await;
            if t.phase() != Phase::Playing {
                break;
            }
            driver
                .play_safe(&t, Duration::ZERO)
                .await
                .expect("a move after the kill");
        }
        let now = table(&*store).await.version();
        let versions = eventually(
            Duration::from_secs(10),
            Duration::from_millis(50),
            "every screen current",
            || async {
                let v = button_versions(&fake, &driver);
                v.iter().flatten().all(|v| *v == now).then_some(v)
            },
        )
        .await;
        assert!(
            versions.iter().flatten().count() >= 4,
            "the hands show buttons of this version: {versions:?}"
        );
        // The hash of what a message shows is recorded after its call
        // returned, so it can trail what the fake already shows.
        eventually(
            Duration::from_secs(10),
            Duration::from_millis(50),
            "what the messages show is recorded",
            || async {
                let shown = store.shown_hashes(Platform::Telegram).await.expect("read");
                (!shown.is_empty()).then_some(())
            },
        )
        .await;
        bot.take().expect("running").kill();
        store.close().await;
    });
}

// ------------------------------------------------------------- Discord --

mod discord {
    use std::time::Duration;

    use kozyr_test_kit::fakediscord::FakeDiscord;

    use crate::support::discord::{World, open_and_start};
    use crate::support::eventually;

    /// Waits until the bot makes no more calls for a while.
    async fn settle(fake: &FakeDiscord) {
        let mut last = usize::MAX;
        eventually(
            Duration::from_secs(15),
            Duration::from_millis(400),
            "the bot settles",
            || {
                let now = fake.calls().len();
                let settled = now == last;
                last = now;
                async move { settled.then_some(()) }
            },
        )
        .await;
    }

    /// What `seat` sees in their message `id`.
    fn content(w: &World, seat: usize, id: u64) -> Option<String> {
        w.fake
            .seen_by(&w.users[seat], w.channel)
            .into_iter()
            .find(|m| m.id == id)
            .map(|m| m.content)
    }

    /// `kozyr run` (Discord only) killed with SIGKILL while everyone has
    /// their hand open: the process that starts next edits nothing that
    /// would not change, and the next move shows in the hand of the person
    /// whose turn it becomes — through the token kept before the kill,
    /// without their pressing "My hand" again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn after_a_kill_open_hands_are_still_edited() {
        let mut w = World::without_bot().await;
        w.spawn().await;
        let id = open_and_start(&w, "kozel").await;
        let hands: Vec<u64> = {
            let mut v = Vec::new();
            for seat in 0..4 {
                v.push(w.hand(seat, id).await);
            }
            v
        };
        settle(&w.fake).await;
        let unchanged = w.fake.unchanged_edits();

        w.kill();
        let fake = &w.fake;
        eventually(
            Duration::from_secs(10),
            Duration::from_millis(10),
            "the fake sees it gone",
            || async { (!fake.connected()).then_some(()) },
        )
        .await;
        w.spawn().await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        settle(&w.fake).await;
        assert_eq!(
            w.fake.unchanged_edits(),
            unchanged,
            "the restarted bot edited a message to what it showed"
        );

        // The deal's first move is a lead: the turn passes to someone else,
        // whose hand now says so.
        let t = w.table(id).await;
        let mover = t.awaiting()[0];
        let patches = patches_through_tokens(&w.fake);
        let shown: Vec<Option<String>> = (0..4).map(|s| content(&w, s, hands[s])).collect();
        w.play_safe(&t).await;
        let after = w.wait_version_after(id, t.version()).await;
        let next = after.awaiting()[0];
        assert_ne!(next, mover, "the turn passed");
        let seat = next.index();
        let before = shown[seat].clone();
        let w = &w;
        eventually(
            Duration::from_secs(10),
            Duration::from_millis(20),
            "the hand of the person whose turn it is edited",
            || async {
                let now = content(w, seat, hands[seat]);
                (now.is_some() && now != before).then_some(())
            },
        )
        .await;
        assert!(
            patches_through_tokens(&w.fake) > patches,
            "edited through a token"
        );
        w.assert_clean();
    }

    /// Edits of interaction responses (a hand, through its token).
    fn patches_through_tokens(fake: &FakeDiscord) -> usize {
        fake.calls()
            .iter()
            .filter(|c| c.method == "PATCH" && c.route.contains("/webhooks/"))
            .count()
    }
}

// --------------------------------------------------------------- store --

/// What the outboxes write, on both backends: a hash made unknown and
/// recorded again, a new message's row written with its hash, and the hand
/// tokens — the newest kept per person, what its hand shows changed only
/// through that token, forgotten when refused, expired or their table
/// closed, and never in debug output.
mod store {
    use kozyr::game::GameKind;
    use kozyr::store::{Backend, StoreOptions};
    use kozyr::table::storage::{HandTokenChange, HandTokenRow, Secret};
    use kozyr::table::{
        Command, Context, Lang, Platform, Settings, TableId, Timestamp, UserId, decide,
    };

    use crate::support::{chat, db_url_on, person};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        shown_and_tokens(Backend::Sqlite).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        shown_and_tokens(Backend::Postgres).await;
    }

    const NOW: Timestamp = Timestamp::from_millis(10_000);

    fn token(table: i64, user: u64, token: &str, at: i64, shown: Option<i64>) -> HandTokenRow {
        HandTokenRow {
            table: TableId(table),
            user: UserId::Discord(user),
            token: Secret(token.into()),
            given_at: Timestamp::from_millis(at),
            shown,
        }
    }

    async fn shown_and_tokens(backend: Backend) {
        let dir = tempfile::tempdir().unwrap();
        let store = kozyr::store::open(&StoreOptions::new(db_url_on(backend, &dir)))
            .await
            .unwrap();
        let c = chat("-1");
        let create = Command::Create {
            kind: GameKind::Kozel,
            settings: Settings {
                lang: Lang::En,
                ..Settings::default()
            },
            title: "t".into(),
            sit: true,
        };
        let ctx = Context {
            now: NOW,
            seed: 1,
            new_table_id: TableId(1),
        };
        let t = decide(None, &c, &person(1), &create, &ctx).unwrap();
        store.commit(&t, None, NOW).await.unwrap();
        let tg = Platform::Telegram;

        // A new message is recorded with what it shows, in one write.
        store
            .save_message_ref(tg, TableId(1), "-1", Some(10), Some(-7), NOW)
            .await
            .unwrap();
        store
            .save_message_ref(tg, TableId(1), "501", Some(11), None, NOW)
            .await
            .unwrap();
        let hashes = |s: &std::sync::Arc<dyn kozyr::table::storage::TableStore>| {
            let s = s.clone();
            async move {
                let mut v = s.shown_hashes(tg).await.unwrap();
                v.sort();
                v
            }
        };
        assert_eq!(hashes(&store).await, vec![(TableId(1), "-1".into(), -7)]);
        // About to change: unknown; then recorded, both rows in one write.
        store
            .mark_shown(tg, vec![(TableId(1), "-1".into(), None)], NOW)
            .await
            .unwrap();
        assert_eq!(hashes(&store).await, vec![]);
        let rows = vec![
            (TableId(1), "-1".into(), Some(8)),
            (TableId(1), "501".into(), Some(9)),
        ];
        store.mark_shown(tg, rows, NOW).await.unwrap();
        assert_eq!(
            hashes(&store).await,
            vec![(TableId(1), "-1".into(), 8), (TableId(1), "501".into(), 9)]
        );

        // Hand tokens: the newest per person and table.
        let d = Platform::Discord;
        let change = |c: HandTokenChange| {
            let s = store.clone();
            async move { s.change_hand_token(c, NOW).await.unwrap() }
        };
        change(HandTokenChange::Given(token(1, 7, "old", 1_000, Some(1)))).await;
        change(HandTokenChange::Given(token(1, 7, "new", 2_000, Some(2)))).await;
        change(HandTokenChange::Given(token(1, 8, "ann", 3_000, None))).await;
        let since = |at: i64| {
            let s = store.clone();
            async move {
                let mut v = s.hand_tokens(d, Timestamp::from_millis(at)).await.unwrap();
                v.sort_by_key(|r| r.user.clone());
                v
            }
        };
        assert_eq!(
            since(0).await,
            vec![
                token(1, 7, "new", 2_000, Some(2)),
                token(1, 8, "ann", 3_000, None)
            ]
        );
        assert_eq!(since(2_500).await, vec![token(1, 8, "ann", 3_000, None)]);
        // What the hand shows changes only through its newest token.
        for (t, shown) in [("old", Some(5)), ("new", None)] {
            change(HandTokenChange::Shown {
                table: TableId(1),
                user: UserId::Discord(7),
                token: Secret(t.into()),
                shown,
            })
            .await;
        }
        assert_eq!(since(0).await[0], token(1, 7, "new", 2_000, None));
        // A refused older token forgets nothing; the newest one goes.
        change(HandTokenChange::Forget {
            table: TableId(1),
            user: Some(UserId::Discord(7)),
            token: Some(Secret("old".into())),
        })
        .await;
        assert_eq!(since(0).await.len(), 2);
        change(HandTokenChange::Forget {
            table: TableId(1),
            user: Some(UserId::Discord(7)),
            token: Some(Secret("new".into())),
        })
        .await;
        assert_eq!(since(0).await, vec![token(1, 8, "ann", 3_000, None)]);
        // Expired ones are forgotten; a token is never in debug output.
        change(HandTokenChange::Given(token(1, 9, "gone", 500, None))).await;
        change(HandTokenChange::Expired {
            platform: d,
            before: Timestamp::from_millis(1_000),
        })
        .await;
        assert_eq!(since(0).await, vec![token(1, 8, "ann", 3_000, None)]);
        assert!(!format!("{:?}", since(0).await).contains("ann"));
        // Every person's at a table (it closed).
        change(HandTokenChange::Forget {
            table: TableId(1),
            user: None,
            token: None,
        })
        .await;
        assert_eq!(since(0).await, vec![]);
        store.close().await;
    }
}
