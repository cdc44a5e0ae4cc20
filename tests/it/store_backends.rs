//! One suite, two backends: the `TableStore` contract the table service
//! relies on (commits checked against the stored version, de-duplication
//! keys, reads, message refs, shown hashes, owed announcements,
//! statistics, pruning), run against SQLite and against a throwaway
//! PostgreSQL (`support::postgres`). Each case is written once against
//! `Arc<dyn TableStore>`; [`both!`] makes a `sqlite` and a `postgres` test
//! of it.

use std::sync::Arc;

use kozyr::game::GameKind;
use kozyr::store::{Backend, StoreOptions};
use kozyr::table::runtime::{DedupKey, Request, ServiceOptions, TableService, Target};
use kozyr::table::storage::{RecordedCommand, StorageError, TableStore};
use kozyr::table::{
    Actor, Announcement, ChatKey, Command, Context, Lang, Phase, Platform, SeatState, Settings,
    Table, TableId, Timestamp, Transition, decide,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::support::{chat, db_url_on, person};

/// A `sqlite` and a `postgres` test of the case `$case(backend)`.
macro_rules! both {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$case(kozyr::store::Backend::Sqlite).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$case(kozyr::store::Backend::Postgres).await;
            }
        }
    )*};
}

both!(
    commits_are_checked_and_read_back,
    one_open_table_per_chat,
    two_stores_on_one_database_commit_a_move_once,
    message_refs_and_shown_hashes,
    owed_announcements_stats_and_leaderboard,
    old_keys_are_pruned,
    table_ids_come_from_the_database,
    a_write_after_the_close_is_dropped_as_closed,
    chat_write_times_are_kept_and_old_ones_forgotten,
);

/// A new store of `backend` (its database kept as long as the folder).
async fn open(backend: Backend, dir: &tempfile::TempDir) -> (Arc<dyn TableStore>, String) {
    let url = db_url_on(backend, dir);
    let store = kozyr::store::open(&StoreOptions::new(&url)).await.unwrap();
    (store, url)
}

fn ctx(id: i64) -> Context {
    Context {
        now: Timestamp::from_millis(5_000),
        seed: 1,
        new_table_id: TableId(id),
    }
}

fn create(chat: &ChatKey, id: i64) -> Transition {
    let cmd = Command::Create {
        kind: GameKind::Kozel,
        settings: Settings {
            lang: Lang::Ru,
            ..Settings::default()
        },
        title: "t".into(),
        sit: true,
    };
    decide(None, chat, &person(1), &cmd, &ctx(id)).unwrap()
}

fn join(table: &Table, who: u32) -> Transition {
    decide(
        Some(table),
        table.chat(),
        &person(who),
        &Command::Join { seat: None },
        &ctx(0),
    )
    .unwrap()
}

const NOW: Timestamp = Timestamp::from_millis(1);

async fn commits_are_checked_and_read_back(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(backend, &dir).await;
    let c = chat("-1");
    assert_eq!(store.max_table_id().await.unwrap(), None);
    let created = create(&c, 7);
    store.commit(&created, Some("u1"), NOW).await.unwrap();
    let t0 = created.open_table().unwrap().clone();
    let first = join(&t0, 2);
    store.commit(&first, Some("u2"), NOW).await.unwrap();
    let t1 = first.open_table().unwrap().clone();

    // Decided from the old table: a version conflict, nothing written.
    let stale = join(&t0, 3);
    assert!(matches!(
        store.commit(&stale, Some("u3"), NOW).await,
        Err(StorageError::Conflict(TableId(7)))
    ));
    assert_eq!(store.recorded("u3").await.unwrap(), None);
    // A known key: refused, nothing written.
    assert!(matches!(
        store.commit(&join(&t1, 3), Some("u2"), NOW).await,
        Err(StorageError::Duplicate(k)) if k == "u2"
    ));
    assert_eq!(
        store.recorded("u2").await.unwrap(),
        Some(RecordedCommand {
            table: Some(TableId(7)),
            first_version: t1.version(),
            last_version: t1.version(),
        })
    );

    // Reads give back what was committed, byte for byte.
    let stored = store.table(TableId(7)).await.unwrap().unwrap();
    assert_eq!(
        serde_json::to_string(&stored).unwrap(),
        serde_json::to_string(&t1).unwrap()
    );
    assert_eq!(store.open_table(&c).await.unwrap().as_ref(), Some(&t1));
    assert_eq!(store.open_table(&chat("-2")).await.unwrap(), None);
    assert_eq!(store.table(TableId(8)).await.unwrap(), None);
    assert_eq!(
        store.chat_of(TableId(7)).await.unwrap(),
        Some((c.clone(), Phase::Lobby))
    );
    assert_eq!(store.open_table_ids().await.unwrap(), vec![TableId(7)]);
    assert_eq!(store.max_table_id().await.unwrap(), Some(TableId(7)));
    let log = store.events_between(TableId(7), 1, u64::MAX).await.unwrap();
    assert_eq!(
        log.iter().map(|(v, _)| *v).collect::<Vec<_>>(),
        (1..=t1.version()).collect::<Vec<_>>()
    );
    let replayed = Table::replay(log.iter().map(|(_, e)| e)).unwrap();
    assert_eq!(replayed, t1);
    let last = store
        .events_between(TableId(7), t1.version(), t1.version())
        .await
        .unwrap();
    assert_eq!(last.len(), 1);
    // The chat's language, chosen when the table was opened.
    assert_eq!(store.chat_language(&c).await.unwrap(), Some(Lang::Ru));
    assert_eq!(store.chat_language(&chat("-2")).await.unwrap(), None);
    store.close().await;
}

async fn one_open_table_per_chat(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(backend, &dir).await;
    let c = chat("-1");
    store.commit(&create(&c, 1), None, NOW).await.unwrap();
    // Another table opened in the same chat (by a process that had not
    // seen the first): a conflict, and its key is not kept.
    assert!(matches!(
        store.commit(&create(&c, 2), Some("k"), NOW).await,
        Err(StorageError::Conflict(TableId(2)))
    ));
    assert_eq!(store.recorded("k").await.unwrap(), None);
    // The same id again: a conflict too.
    assert!(matches!(
        store.commit(&create(&chat("-2"), 1), None, NOW).await,
        Err(StorageError::Conflict(TableId(1)))
    ));
    assert_eq!(store.open_table_ids().await.unwrap(), vec![TableId(1)]);
    store.close().await;
}

/// Two stores on one database, as two processes would be. Two different
/// presses decided from the same version (each with its own key): one
/// lands, the other is a conflict. The same press delivered to both: it
/// lands once, the other hears "conflict" or "duplicate".
async fn two_stores_on_one_database_commit_a_move_once(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (a, url) = open(backend, &dir).await;
    let b = kozyr::store::open(&StoreOptions::new(&url)).await.unwrap();
    let c = chat("-1");
    let created = create(&c, 1);
    a.commit(&created, None, NOW).await.unwrap();
    let mut table = created.open_table().unwrap().clone();
    for round in 0..2u32 {
        let (mine, theirs) = (join(&table, 10 + round), join(&table, 20 + round));
        let (ka, kb) = (format!("a-{round}"), format!("b-{round}"));
        let (ra, rb) = tokio::join!(
            a.commit(&mine, Some(&ka), NOW),
            b.commit(&theirs, Some(&kb), NOW)
        );
        let landed = match (&ra, &rb) {
            (Ok(()), Err(StorageError::Conflict(TableId(1)))) => &mine,
            (Err(StorageError::Conflict(TableId(1))), Ok(())) => &theirs,
            other => panic!("round {round}: {other:?}"),
        };
        table = landed.open_table().unwrap().clone();
        assert_eq!(b.table(TableId(1)).await.unwrap().as_ref(), Some(&table));
        // The refused press left no key behind.
        let refused = if ra.is_ok() { &kb } else { &ka };
        assert_eq!(a.recorded(refused).await.unwrap(), None);
    }
    // The same press through both.
    let next = join(&table, 30);
    let (ra, rb) = tokio::join!(
        a.commit(&next, Some("same"), NOW),
        b.commit(&next, Some("same"), NOW)
    );
    assert_eq!(
        [&ra, &rb].iter().filter(|r| r.is_ok()).count(),
        1,
        "{ra:?} {rb:?}"
    );
    for r in [ra, rb] {
        assert!(
            matches!(
                r,
                Ok(()) | Err(StorageError::Conflict(_)) | Err(StorageError::Duplicate(_))
            ),
            "{r:?}"
        );
    }
    table = next.open_table().unwrap().clone();
    let log = a.events_between(TableId(1), 1, u64::MAX).await.unwrap();
    assert_eq!(log.len() as u64, table.version());
    assert_eq!(
        Table::replay(log.iter().map(|(_, e)| e)).unwrap(),
        table,
        "one gapless log"
    );
    a.close().await;
    b.close().await;
}

async fn message_refs_and_shown_hashes(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(backend, &dir).await;
    let tg = Platform::Telegram;
    store
        .commit(&create(&chat("-1"), 1), None, NOW)
        .await
        .unwrap();
    store
        .save_message_ref(tg, TableId(1), "-1", Some(10), None, NOW)
        .await
        .unwrap();
    store
        .save_message_ref(tg, TableId(1), "501", Some(11), None, NOW)
        .await
        .unwrap();
    let mut refs = store.open_message_refs(tg).await.unwrap();
    refs.sort();
    assert_eq!(
        refs,
        vec![
            (TableId(1), "-1".into(), 10),
            (TableId(1), "501".into(), 11)
        ]
    );
    assert_eq!(
        store.open_message_refs(Platform::Discord).await.unwrap(),
        vec![]
    );
    // A message replaced: the new id, and its old hash forgotten.
    let hashes = vec![(TableId(1), "-1".into(), -7), (TableId(1), "501".into(), 8)];
    store
        .save_shown_hashes(tg, Some(hashes.clone()), NOW)
        .await
        .unwrap();
    let mut shown = store.shown_hashes(tg).await.unwrap();
    shown.sort();
    assert_eq!(shown, hashes);
    store
        .save_message_ref(tg, TableId(1), "501", Some(12), None, NOW)
        .await
        .unwrap();
    assert_eq!(
        store.shown_hashes(tg).await.unwrap(),
        vec![(TableId(1), "-1".into(), -7)]
    );
    store.save_shown_hashes(tg, None, NOW).await.unwrap();
    assert_eq!(store.shown_hashes(tg).await.unwrap(), vec![]);
    // Forgotten.
    store
        .save_message_ref(tg, TableId(1), "-1", None, None, NOW)
        .await
        .unwrap();
    assert_eq!(
        store.open_message_refs(tg).await.unwrap(),
        vec![(TableId(1), "501".into(), 12)]
    );
    store.close().await;
}

/// A group's write times are read back as saved, per platform and chat,
/// the newest save winning; a chat not written since the time asked for
/// is forgotten (deleted), and a new store on the database reads the same.
async fn chat_write_times_are_kept_and_old_ones_forgotten(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, url) = open(backend, &dir).await;
    let sorted = |mut rows: Vec<(String, Vec<i64>)>| {
        rows.sort();
        rows
    };
    store
        .save_chat_writes(Platform::Telegram, "-1", &[1_000, 1_500, 2_000])
        .await
        .unwrap();
    store
        .save_chat_writes(Platform::Telegram, "-2", &[500])
        .await
        .unwrap();
    store
        .save_chat_writes(Platform::Discord, "-1", &[9_000])
        .await
        .unwrap();
    // The newest save of a chat replaces its times; nothing is no row.
    store
        .save_chat_writes(Platform::Telegram, "-1", &[1_500, 2_000, 2_500])
        .await
        .unwrap();
    store
        .save_chat_writes(Platform::Telegram, "-3", &[])
        .await
        .unwrap();
    assert_eq!(
        sorted(store.chat_writes(Platform::Telegram, 0).await.unwrap()),
        [
            ("-1".to_owned(), vec![1_500, 2_000, 2_500]),
            ("-2".to_owned(), vec![500])
        ]
    );
    // Asked since 1 s: "-2" (last written at 0.5 s) goes for good.
    assert_eq!(
        store.chat_writes(Platform::Telegram, 1_000).await.unwrap(),
        [("-1".to_owned(), vec![1_500, 2_000, 2_500])]
    );
    store.close().await;
    let reopened = kozyr::store::open(&StoreOptions::new(&url)).await.unwrap();
    assert_eq!(
        sorted(reopened.chat_writes(Platform::Telegram, 0).await.unwrap()),
        [("-1".to_owned(), vec![1_500, 2_000, 2_500])]
    );
    assert_eq!(
        reopened.chat_writes(Platform::Discord, 0).await.unwrap(),
        [("-1".to_owned(), vec![9_000])]
    );
    reopened.close().await;
}

/// A write that finishes after a graceful stop closed the store (a record
/// of what a message shows, done after the drain) is told the store is
/// closed, and the store is not made unhealthy: on PostgreSQL it used to
/// be "commit failed … closed pool" at ERROR and a failing health.
async fn a_write_after_the_close_is_dropped_as_closed(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(backend, &dir).await;
    store
        .commit(&create(&chat("-1"), 1), None, NOW)
        .await
        .unwrap();
    let health = store.health();
    store.close().await;
    let late = store
        .mark_shown(
            Platform::Telegram,
            vec![(TableId(1), "-1".into(), Some(5))],
            NOW,
        )
        .await;
    assert!(
        matches!(late, Err(StorageError::Closed)),
        "a write after the close: {late:?}"
    );
    assert_eq!(health.borrow().problem(), None);
}

/// Through the table service: a started series is owed to the group until
/// sent; a finished deal counts in the statistics and the leaderboard.
async fn owed_announcements_stats_and_leaderboard(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(backend, &dir).await;
    // A known deal: with a random one, the seeded moves below sometimes
    // end it in eggs (60 points each), which no team wins.
    let (service, _effects) = TableService::builder(store.clone())
        .options(ServiceOptions {
            seed: Some(1),
            ..ServiceOptions::default()
        })
        .start()
        .await
        .unwrap();
    let c = chat("-1");
    let submit = async |actor: Actor, command: Command| {
        service
            .submit(Request {
                target: Target::Chat(c.clone()),
                actor,
                command,
                dedup: None,
            })
            .await
            .unwrap()
    };
    let id = submit(
        person(1),
        Command::Create {
            kind: GameKind::Kozel,
            settings: Settings {
                turn_timer: None,
                ..Settings::default()
            },
            title: "t".into(),
            sit: true,
        },
    )
    .await
    .table
    .unwrap();
    for i in 2..=4 {
        submit(person(i), Command::Join { seat: None }).await;
    }
    submit(person(1), Command::Start).await;
    let owed = store.owed_outputs(Platform::Telegram).await.unwrap();
    assert!(
        owed.iter().any(|(t, chat, a)| *t == id
            && chat == "-1"
            && matches!(a, Announcement::SeriesStarted { .. })),
        "{owed:?}"
    );
    let (_, _, first) = &owed[0];
    store
        .owed_sent(Platform::Telegram, id, first, NOW)
        .await
        .unwrap();
    assert_eq!(
        store.owed_outputs(Platform::Telegram).await.unwrap().len(),
        owed.len() - 1
    );

    // One whole deal of random legal moves, each a button press.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut moves = 0;
    let board = loop {
        let board = store.leaderboard(&c, GameKind::Kozel, 10).await.unwrap();
        if !board.is_empty() {
            break board;
        }
        let t = service.table(id).await.unwrap().unwrap();
        assert_eq!(t.phase(), Phase::Playing);
        let seat = t.awaiting()[0];
        let legal = t.game().unwrap().legal_actions(seat);
        let action = legal[rng.random_range(0..legal.len())];
        let SeatState::Person { player, .. } = &t.seats()[seat] else {
            panic!("seat {seat} is no person")
        };
        service
            .submit(Request {
                target: Target::Table(id),
                actor: Actor::person(player.clone()),
                command: Command::Act {
                    seat,
                    action,
                    version: t.version(),
                },
                dedup: Some(DedupKey::opaque(format!("cb-{}", t.version()))),
            })
            .await
            .unwrap();
        moves += 1;
        assert!(moves < 200, "the deal does not end");
    };
    assert_eq!(board.len(), 4, "{board:?}");
    assert!(
        board.iter().all(|p| p.counters.deals_played == 1),
        "{board:?}"
    );
    assert_eq!(
        board.iter().filter(|p| p.counters.deals_won == 1).count(),
        2,
        "one team of two won the deal: {board:?}"
    );
    assert!(
        board
            .iter()
            .all(|p| p.name.as_deref().is_some_and(|n| n.starts_with("Player")))
    );
    // Best first, ties by id: the same order on both backends.
    let order: Vec<(i64, String)> = board
        .iter()
        .map(|p| (-p.counters.deals_won, p.user.to_string()))
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    assert_eq!(
        store.leaderboard(&c, GameKind::Hearts, 10).await.unwrap(),
        vec![]
    );
    assert_eq!(
        store
            .leaderboard(&c, GameKind::Kozel, 2)
            .await
            .unwrap()
            .len(),
        2
    );
    service.shutdown().await;
}

async fn old_keys_are_pruned(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(backend, &dir).await;
    let created = create(&chat("-1"), 1);
    store
        .commit(&created, Some("old"), Timestamp::from_millis(10))
        .await
        .unwrap();
    let t = created.open_table().unwrap().clone();
    let joined = join(&t, 2);
    store
        .commit(&joined, Some("new"), Timestamp::from_millis(100))
        .await
        .unwrap();
    assert_eq!(
        store
            .prune_commands(Timestamp::from_millis(50))
            .await
            .unwrap(),
        1
    );
    assert_eq!(store.recorded("old").await.unwrap(), None);
    assert!(store.recorded("new").await.unwrap().is_some());
    // The table itself is untouched.
    assert_eq!(
        store.table(TableId(1)).await.unwrap().as_ref(),
        joined.open_table()
    );
    store.close().await;
}

async fn table_ids_come_from_the_database(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (store, url) = open(backend, &dir).await;
    let first = store.next_table_id().await.unwrap();
    let id = store.next_table_id().await.unwrap();
    assert!(id.0 > first.0);
    store
        .commit(&create(&chat("-1"), id.0), None, NOW)
        .await
        .unwrap();
    let next = store.next_table_id().await.unwrap();
    assert!(next.0 > id.0, "{next} after {id}");
    store.close().await;
    // Opened again (a restart): still past every table stored.
    let again = kozyr::store::open(&StoreOptions::new(&url)).await.unwrap();
    let later = again.next_table_id().await.unwrap();
    assert!(later.0 > id.0, "{later} after {id}");
    if backend == Backend::Postgres {
        // Two processes on one database never draw the same id.
        let other = kozyr::store::open(&StoreOptions::new(&url)).await.unwrap();
        let mut drawn = Vec::new();
        for _ in 0..20 {
            let (a, b) = tokio::join!(again.next_table_id(), other.next_table_id());
            drawn.extend([a.unwrap(), b.unwrap()]);
        }
        let n = drawn.len();
        drawn.sort();
        drawn.dedup();
        assert_eq!(drawn.len(), n, "an id drawn twice");
        other.close().await;
    }
    again.close().await;
}

/// PostgreSQL's side of `store_faults.rs`: a commit the server refuses
/// (here a trigger standing in for a full disk) is the store's failure,
/// health says so with the server's words, nothing of it is written, and
/// the next commit that goes through clears it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_postgres_refuses_makes_the_store_unhealthy_until_one_commits() {
    use kozyr::table::storage::StoreHealth;
    use sqlx::Connection;

    let dir = tempfile::tempdir().unwrap();
    let (store, url) = open(Backend::Postgres, &dir).await;
    let health = store.health();
    let created = create(&chat("-1"), 1);
    store.commit(&created, None, NOW).await.unwrap();
    let table = created.open_table().unwrap().clone();
    let mut admin = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::raw_sql(
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN RAISE EXCEPTION 'no space left on device (test)'; END $$;
         CREATE TRIGGER refuse BEFORE INSERT ON table_events
             FOR EACH ROW EXECUTE FUNCTION refuse();",
    )
    .execute(&mut admin)
    .await
    .unwrap();
    let joined = join(&table, 2);
    let refused = store.commit(&joined, Some("k"), NOW).await;
    assert!(
        matches!(refused, Err(StorageError::Failed(_))),
        "{refused:?}"
    );
    match &*health.borrow() {
        StoreHealth::CommitsFailing(why) => assert!(why.contains("no space left"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Nothing of the refused commit was written: not its key, not the table.
    assert_eq!(store.recorded("k").await.unwrap(), None);
    assert_eq!(
        store.table(TableId(1)).await.unwrap().as_ref(),
        Some(&table)
    );
    sqlx::raw_sql("DROP TRIGGER refuse ON table_events")
        .execute(&mut admin)
        .await
        .unwrap();
    store.commit(&joined, Some("k"), NOW).await.unwrap();
    assert_eq!(*health.borrow(), StoreHealth::Healthy);
    admin.close().await.unwrap();
    store.close().await;
}
