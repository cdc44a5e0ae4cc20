//! Disk faults under a running table service (issue 22): a disk that fills
//! and empties again, a `-wal` removed while the bot runs. Real SQLite
//! files; the full disk is SQLite's `max_page_count` on every connection
//! (the same `database or disk is full` as a full file system, without
//! needing root to mount one).

// SQLite-specific: SQLite's page cap and its `-wal` file (on PostgreSQL a
// refused commit and the health it reports are `store_backends`' case).

use kozyr::store::Queries;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use kozyr::game::GameKind;
use kozyr::store::{Store, StoreHealth, StoreOptions};
use kozyr::table::runtime::{Ack, Request, ServiceError, TableService, Target};
use kozyr::table::{ChatKey, Command, TableId};
use sqlx::{ConnectOptions, Connection};

use crate::support::store::sqlite_url;
use crate::support::{chat, no_timer, person, respawn, skip_to_ready};

fn create(chat: &ChatKey, first: u32) -> Request {
    Request {
        target: Target::Chat(chat.clone()),
        actor: person(first),
        command: Command::Create {
            kind: GameKind::Kozel,
            settings: no_timer(),
            title: format!("Chat {chat}"),
            sit: true,
        },
        dedup: None,
    }
}

fn join(table: TableId, who: u32) -> Request {
    Request {
        target: Target::Table(table),
        actor: person(who),
        command: Command::Join { seat: None },
        dedup: None,
    }
}

async fn raw(url: &str) -> sqlx::SqliteConnection {
    url.parse::<sqlx::sqlite::SqliteConnectOptions>()
        .unwrap()
        .connect()
        .await
        .unwrap()
}

fn store_error(r: Result<Ack, ServiceError>) -> String {
    match r {
        Ok(a) => panic!("accepted: {a:?}"),
        Err(e @ ServiceError::Store(_)) => e.to_string(),
        Err(e) => panic!("refused by the rules, not the store: {e}"),
    }
}

/// One `database or disk is full` used to leave the writer's connection
/// inside a transaction for good: every later command on every table
/// failed with "attempted to call begin_with at non-zero transaction
/// depth" until a restart, and nothing said the store was unhealthy.
#[tokio::test]
async fn a_full_disk_refuses_commits_only_while_it_is_full() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(dir.path());
    Store::open(&StoreOptions::new(&url))
        .await
        .unwrap()
        .close()
        .await;
    // Room the test can give back later: a blob another process deletes.
    let mut other = raw(&url).await;
    sqlx::query("CREATE TABLE filler (x BLOB)")
        .execute(&mut other)
        .await
        .unwrap();
    sqlx::query("INSERT INTO filler VALUES (randomblob(400000))")
        .execute(&mut other)
        .await
        .unwrap();
    let pages: u32 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(&mut other)
        .await
        .unwrap();
    let options = StoreOptions {
        page_limit: Some(pages),
        ..StoreOptions::new(&url)
    };
    let store = Store::open(&options).await.unwrap();
    let health = store.health();
    let (s, _outputs) = TableService::builder(store).start().await.unwrap();

    let first = s.submit(create(&chat("-100"), 1)).await.unwrap();
    let before = first.table.unwrap();
    let mut chats = 0;
    let full = loop {
        chats += 1;
        assert!(chats < 2_000, "the capped database never filled");
        match s
            .submit(create(&chat(&format!("-{}", 1_000 + chats)), 1))
            .await
        {
            Ok(_) => continue,
            Err(e) => break store_error(Err(e)),
        }
    };
    assert!(full.contains("database or disk is full"), "{full}");
    let problem = health.borrow().problem().unwrap_or_default();
    assert!(
        problem.contains("database or disk is full"),
        "health while full: {problem:?}"
    );
    // Still full: each command fails for that reason, not for a wedged
    // connection, on a new table as on one from before.
    for i in 0..3 {
        let e = store_error(s.submit(create(&chat(&format!("-{}", 5_000 + i)), 1)).await);
        assert!(e.contains("database or disk is full"), "{e}");
        let e = store_error(s.submit(join(before, 2 + i)).await);
        assert!(e.contains("database or disk is full"), "{e}");
    }
    assert!(matches!(*health.borrow(), StoreHealth::CommitsFailing(_)));

    // The space comes back; the bot is not restarted.
    sqlx::query("DELETE FROM filler")
        .execute(&mut other)
        .await
        .unwrap();
    let freed = Instant::now();
    s.submit(create(&chat("-200"), 1)).await.unwrap();
    let recovered = freed.elapsed();
    println!("store_faults: first commit after the disk had room again: {recovered:?}");
    assert_eq!(*health.borrow(), StoreHealth::Healthy);
    for who in 2..5 {
        s.submit(join(before, who)).await.unwrap();
    }
    let t = s.table(before).await.unwrap().unwrap();
    assert_eq!(t.version(), first.version + 3);
    other.close().await.unwrap();
    s.close().await;
}

const WAL_CHILD_ENV: &str = "KOZYR_WAL_TEST_CHILD_DB";
/// Set in the child of the quiet case: no move comes after the removal.
const WAL_QUIET_ENV: &str = "KOZYR_WAL_TEST_QUIET";

/// A `-wal` deleted while the bot ran used to go unnoticed: SQLite went on
/// writing to the unlinked file, and after a kill -9 every move acknowledged
/// since (and the ones before that were not checkpointed) was gone. Now the
/// next commit is refused, the health says why, and what was acknowledged
/// is still there after a kill -9.
#[test]
fn a_removed_wal_refuses_commits_and_loses_no_acknowledged_move() {
    removed_wal(
        "store_faults::a_removed_wal_refuses_commits_and_loses_no_acknowledged_move",
        false,
    );
}

/// The same removal while nobody plays: it used to be seen only at the
/// next commit, so for as long as the tables were quiet nothing was said
/// (15 s and more), the heartbeat said all was well, and an admin went on
/// to kill and restart it. Now it is said within the writer's next look at
/// its files, with no commit at all, and the database reads back whole
/// after a kill -9.
#[test]
fn a_removed_wal_is_said_at_once_while_nobody_plays() {
    removed_wal(
        "store_faults::a_removed_wal_is_said_at_once_while_nobody_plays",
        true,
    );
}

fn removed_wal(test: &str, quiet: bool) {
    if let Ok(url) = std::env::var(WAL_CHILD_ENV) {
        return wal_child(&url, std::env::var(WAL_QUIET_ENV).is_ok());
    }
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(dir.path());
    let mut cmd = respawn(test);
    cmd.env(WAL_CHILD_ENV, &url).stdout(Stdio::piped());
    if quiet {
        cmd.env(WAL_QUIET_ENV, "1");
    }
    let mut child = cmd.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    skip_to_ready(&mut out);
    let mut lines = Vec::new();
    for _ in 0..5 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        lines.push(line.trim().to_owned());
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let field = |name: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {lines:?}"))
            .to_owned()
    };
    let table = TableId(field("table ").parse().unwrap());
    let acknowledged: u64 = field("acknowledged ").parse().unwrap();
    let refused = field("refused ");
    let wal = format!("{}-wal", dir.path().join("kozyr.db").display());
    assert!(
        refused.contains(&wal) && refused.contains("removed"),
        "the move after the -wal went was not refused naming it: {refused}"
    );
    let health = field("health ");
    assert!(health.contains(&wal), "health: {health}");
    if quiet {
        // Said before any move came: the writer looks once a second.
        let noticed = field("noticed ");
        assert!(
            noticed.contains(&wal),
            "nothing was said while nobody played: {noticed}"
        );
    }

    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = Store::open(&StoreOptions::new(&url)).await.unwrap();
        let t = store
            .table(table)
            .await
            .unwrap()
            .expect("the table is kept");
        assert_eq!(
            t.version(),
            acknowledged,
            "acknowledged moves were lost with the -wal"
        );
        store.close().await;
        let mut conn = raw(&url).await;
        let check: String = sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(check, "ok", "the database after the kill");
        conn.close().await.unwrap();
    });
}

fn wal_child(url: &str, quiet: bool) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = Store::open(&StoreOptions::new(url)).await.unwrap();
        let mut health = store.health();
        let (s, _outputs) = TableService::builder(store).start().await.unwrap();
        let created = s.submit(create(&chat("-300"), 1)).await.unwrap();
        let table = created.table.unwrap();
        let mut acknowledged = created.version;
        for who in 2..4 {
            acknowledged = s.submit(join(table, who)).await.unwrap().version;
        }
        let db = kozyr::store::database_path(url).unwrap();
        std::fs::remove_file(format!("{}-wal", db.display())).unwrap();
        // Quiet: nothing is submitted until the store says what happened
        // (or 5 s passed, five of the writer's looks).
        let noticed = if quiet {
            let said = tokio::time::timeout(
                Duration::from_secs(5),
                health.wait_for(|h| h.problem().is_some()),
            )
            .await;
            match said {
                Ok(Ok(h)) => h.problem().unwrap_or_default(),
                _ => "nothing within 5 s".to_owned(),
            }
        } else {
            String::new()
        };
        let refused = match s.submit(join(table, 4)).await {
            Ok(ack) => {
                acknowledged = ack.version;
                "nothing: the move was acknowledged".to_owned()
            }
            Err(e) => e.to_string(),
        };
        let problem = health.borrow().problem().unwrap_or_default();
        println!("ready");
        println!("table {}", table.0);
        println!("acknowledged {acknowledged}");
        println!("refused {refused}");
        println!("health {problem}");
        println!("noticed {noticed}");
        // Killed here, as by kill -9: no graceful close checkpoints the log.
        tokio::time::sleep(Duration::from_secs(60)).await;
    });
}
