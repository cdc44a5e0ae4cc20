//! Migrations apply on an empty database and on databases written by
//! earlier migration sets. Each `tests/fixtures/after-VERSION.sql` is a
//! dump (`sqlite3 kozyr.db .dump`) of a database the service wrote when
//! VERSION was its newest migration: an open table in play, a finished
//! series and a stopped table. Add one whenever a migration is added.

// SQLite-specific: SQLite's migrations on its own files and dumps
// (PostgreSQL's one set is applied by every test on that backend).

use kozyr::store::Queries;
use std::str::FromStr;

use kozyr::game::GameKind;
use kozyr::store::postgres::PG_MIGRATOR;
use kozyr::store::{MIGRATOR, ServiceStore, Store, StoreOptions};
use kozyr::table::runtime::{Request, TableService, Target};
use kozyr::table::{Actor, ChatKey, Command, Lang, Phase, Platform, SeatState, UserId};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{AssertSqlSafe, ConnectOptions, Connection};

use crate::support::store::sqlite_url;

fn fixtures() -> Vec<(i64, std::path::PathBuf)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name()?.to_str()?.to_owned();
            let version = name
                .strip_prefix("after-")?
                .strip_suffix(".sql")?
                .parse()
                .ok()?;
            Some((version, path))
        })
        .collect();
    v.sort();
    v
}

async fn applied(url: &str) -> Vec<i64> {
    let mut conn = SqliteConnectOptions::from_str(url)
        .unwrap()
        .connect()
        .await
        .unwrap();
    let v =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    conn.close().await.unwrap();
    v
}

fn all_versions() -> Vec<i64> {
    MIGRATOR.iter().map(|m| m.version).collect()
}

#[tokio::test]
async fn migrations_apply_to_an_empty_database() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(dir.path());
    let store = Store::open(&StoreOptions::new(&url)).await.unwrap();
    store.close().await;
    assert_eq!(applied(&url).await, all_versions());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/store/migrations");
    // Each backend has its own set, and nothing lies beside them.
    let mut sets: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    sets.sort();
    assert_eq!(sets, ["postgres", "sqlite"]);
    let entries = ["sqlite", "postgres"]
        .into_iter()
        .flat_map(|set| std::fs::read_dir(root.join(set)).unwrap());
    for entry in entries {
        // atuin style: YYYYMMDDHHMMSS_verb_noun.sql
        let name = entry.unwrap().file_name().into_string().unwrap();
        let (stamp, rest) = name.split_once('_').unwrap();
        assert!(
            stamp.len() == 14 && stamp.bytes().all(|b| b.is_ascii_digit()),
            "{name}"
        );
        let words = rest.strip_suffix(".sql").unwrap();
        assert!(
            words.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{name}"
        );
    }
    for m in MIGRATOR.iter().chain(PG_MIGRATOR.iter()) {
        // Append-only and explained: every migration starts with why.
        assert!(
            m.sql.as_str().trim_start().starts_with("--"),
            "{} has no comment",
            m.version
        );
    }
}

#[tokio::test]
async fn migrations_apply_to_databases_of_earlier_sets() {
    let fixtures = fixtures();
    assert!(!fixtures.is_empty());
    let newest = *all_versions().last().unwrap();
    assert!(
        fixtures.iter().all(|(v, _)| *v < newest),
        "a fixture must come from an earlier set"
    );
    for (version, path) in fixtures {
        let dir = tempfile::tempdir().unwrap();
        let url = sqlite_url(dir.path());
        let dump = std::fs::read_to_string(&path).unwrap();
        let mut conn = SqliteConnectOptions::from_str(&url)
            .unwrap()
            .create_if_missing(true)
            .connect()
            .await
            .unwrap();
        sqlx::raw_sql(AssertSqlSafe(dump))
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let before = applied(&url).await;
        assert_eq!(before.last(), Some(&version));

        let store = Store::open(&StoreOptions::new(&url)).await.unwrap();
        assert_eq!(applied(&url).await, all_versions());
        // Every table still loads and its log still replays to it.
        let mut open = Vec::new();
        for id in 1..=3 {
            let id = kozyr::table::TableId(id);
            let t = store.table(id).await.unwrap().unwrap();
            assert_eq!(store.replay(id).await.unwrap().unwrap(), t);
            // Older snapshots are rebuilt from the log in today's format.
            assert_eq!(t.format(), kozyr::table::SNAPSHOT_FORMAT);
            if t.phase() != Phase::Lobby {
                // A trick taken this deal, or the previous deal's end with its last trick.
                let last = t
                    .last_trick()
                    .or_else(|| t.last_deal().and_then(|d| d.last_trick.as_ref()));
                assert!(
                    last.is_some_and(|l| !l.plays.is_empty()),
                    "derived by the rebuild"
                );
            }
            if t.is_open() {
                open.push(t);
            }
        }
        // Chats keep the language their latest table had.
        let chat = ChatKey::new(Platform::Telegram, "-1001").unwrap();
        assert_eq!(store.chat_language(&chat).await.unwrap(), Some(Lang::Ru));
        // People seated before the migration are known by name.
        let first = UserId::new("1").unwrap();
        let p = store
            .player(Platform::Telegram, &first)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((p.name.as_str(), p.lang), ("Player 1", Lang::Ru));

        // The table that was in play plays on to the end of its series, and
        // from now on the series counts in the statistics.
        let (s, _fx) = TableService::builder(store).start().await.unwrap();
        let playing = open.iter().find(|t| t.phase() == Phase::Playing).unwrap();
        let id = playing.id();
        loop {
            let t = s.table(id).await.unwrap().unwrap();
            if t.phase() != Phase::Playing {
                break;
            }
            let seat = t.awaiting()[0];
            let action = t.game().unwrap().safe_action(seat).unwrap();
            let actor = match &t.seats()[seat] {
                SeatState::Person { player, .. } => Actor::person(player.clone()),
                _ => Actor::Ai,
            };
            let r = s
                .submit(Request {
                    target: Target::Table(id),
                    actor,
                    command: Command::Act {
                        seat,
                        action,
                        version: t.version(),
                    },
                    dedup: None,
                })
                .await;
            // An AI seat's own move may come first; then look again.
            if let Err(e) = r {
                assert!(e.rejection().is_some(), "{e}");
            }
        }
        let chat: ChatKey = playing.chat().clone();
        let board = s
            .store()
            .leaderboard(&chat, GameKind::Kozel, 10)
            .await
            .unwrap();
        assert_eq!(board.len(), 3, "three people and an AI seat");
        assert!(board.iter().all(|p| p.counters.series_played == 1));
        let totals = s.store().chat_totals(&chat).await.unwrap();
        assert_eq!(totals[0].1.series_played, 1);
        assert_eq!(
            s.store().replay(id).await.unwrap(),
            s.table(id).await.unwrap()
        );
        s.shutdown().await;
    }
}
