//! What `docs/OPERATIONS.md` tells an admin to do, end to end: a bot on
//! SQLite stopped mid-deal, `kozyr copy-store` to PostgreSQL, then two
//! `kozyr run` replicas on the copy. The one that serves carries the deal
//! on from where it stopped; killed with SIGKILL, the other takes over and
//! the deal ends, its log one gapless history with every move once.

use kozyr::store::Queries;
use std::time::{Duration, Instant};

use kozyr::store::{PgStore, StoreOptions};
use kozyr::table::{Phase, Table, TableEvent, TableId};
use kozyr_loadtest::deal_no;

use crate::support::eventually;
use crate::support::postgres::fresh_url;
use crate::support::replicas::{Replica, serving_after, serving_after_but};
use crate::support::store::sqlite_url;
use crate::support::telegram::{Setup, World};
use crate::support::{kozyr, run_to_end};

async fn table(store: &PgStore, id: TableId) -> Table {
    eventually(
        Duration::from_secs(20),
        Duration::from_millis(20),
        "the table",
        || async { store.table(id).await.ok().flatten() },
    )
    .await
}

/// Presses the awaited seat's safe move until the table has moved past
/// `t` (a press refused or lost while a replica took over is made again).
async fn one_move(store: &PgStore, d: &kozyr_loadtest::Driver, id: TableId) -> Table {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let t = table(store, id).await;
        if t.phase() != Phase::Playing {
            return t;
        }
        let _ = d.play_safe(&t, Duration::ZERO).await;
        // Not answered (the serving replica died first): look, press again.
        let given_up = Instant::now() + Duration::from_secs(5);
        while Instant::now() < given_up {
            let now = table(store, id).await;
            if now.version() > t.version() {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(Instant::now() < deadline, "no move for 30 s at {t:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_moved_to_postgresql_with_two_replicas_goes_on_through_a_kill() {
    // SQLite, as before the move: a deal under way.
    let source = tempfile::tempdir().unwrap();
    let sqlite = sqlite_url(source.path());
    let mut w = World::with(Setup {
        database: Some(sqlite.clone()),
        ..Setup::default()
    })
    .await;
    let (d, mut t) = w.driven_table("Moved").await;
    let id = t.id();
    for _ in 0..5 {
        d.play_safe(&t, Duration::ZERO).await.unwrap();
        t = w.wait_version_after(id, t.version()).await;
    }
    let before = t.clone();
    w.stop().await;

    // The move: copy-store into an empty database.
    let pg = fresh_url();
    let tools = tempfile::tempdir().unwrap();
    let out = run_to_end(kozyr(
        tools.path(),
        &["copy-store", "--from", &sqlite, "--to", &pg],
        &[("DATABASE_URL", &sqlite)],
    ));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Two replicas on the copy, the same bot (token, Bot API).
    let dir = tempfile::tempdir().unwrap();
    let (token, api) = (w.fake.token(), w.fake.api_url().to_string());
    let env = [
        ("TELOXIDE_TOKEN", token.as_str()),
        ("TELOXIDE_API_URL", api.as_str()),
        ("DATABASE_URL", pg.as_str()),
        ("KOZYR_TURN_SECONDS", "0"),
        ("RUST_LOG", "info"),
    ];
    let started = Instant::now();
    let mut replicas = vec![Replica::start(&dir, 0, &env)];
    let (first, _) = serving_after(&mut replicas, started).await;
    replicas.push(Replica::start(&dir, 1, &env));
    let store = PgStore::open_existing(&StoreOptions::new(&pg))
        .await
        .unwrap();
    assert_eq!(table(&store, id).await, before, "the copy is the table");

    // The serving replica goes on with the deal, then dies.
    let mut t = before.clone();
    for _ in 0..3 {
        t = one_move(&store, &d, id).await;
    }
    let killed_at = Instant::now();
    replicas[first].kill();
    let (second, _) = serving_after_but(&mut replicas, killed_at, Some(first)).await;
    assert_ne!(second, first);

    // The other one finishes it.
    let deal = deal_no(&before);
    let mut moves = 0;
    while t.phase() == Phase::Playing && deal_no(&t) == deal {
        t = one_move(&store, &d, id).await;
        moves += 1;
        assert!(moves < 60, "the deal does not end");
    }
    let log = store.events(id).await.unwrap();
    assert_eq!(log.len() as u64, t.version(), "one gapless log");
    assert_eq!(store.replay(id).await.unwrap().as_ref(), Some(&t));
    // Every move after the copy is a person's (no timers, no AI seats).
    let after_copy = log
        .iter()
        .filter(|(v, e)| *v > before.version() && matches!(e, TableEvent::Acted { .. }))
        .count();
    assert!(after_copy >= 3 + moves, "{after_copy} moves after the copy");
    assert!(
        t.phase() != Phase::Playing || deal_no(&t) > deal,
        "the deal ended"
    );
    store.close().await;
}
