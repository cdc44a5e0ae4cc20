//! `kozyr copy-store`: an existing bot's whole history moved from its
//! SQLite file into an empty PostgreSQL database, for the admin whose bot
//! outgrew one file. Every row of every table is copied as it is (tables,
//! event logs, snapshots, de-duplication keys, people, statistics, chats'
//! languages, message refs with their shown hashes, owed announcements),
//! in one PostgreSQL transaction: a copy that fails leaves the target
//! empty. The source is read in one read transaction, a consistent
//! snapshot even if a bot still wrote to it (it should be stopped: what
//! it writes after the snapshot is not copied). The copy is then checked:
//! the same rows per table in both, and every chat's export (with its
//! unfinished deals) the same bytes from both.

use sqlx::sqlite::SqliteRow;
use sqlx::{Postgres, QueryBuilder, Row};
use tokio_stream::StreamExt;

use super::export::export_chat;
use super::{Backend, CopyError, PgStore, Store, StoreError, StoreOptions};
use kozyr_table::{ChatKey, Platform};

/// A column's type, as both schemas have it.
#[derive(Clone, Copy)]
enum Kind {
    Int,
    Text,
}

use Kind::{Int, Text};

/// A table's name, its columns, and the order its rows are copied in.
type TableSpec = (&'static str, &'static [(&'static str, Kind)], &'static str);

/// Every table of the schema, parents first (the foreign keys), with its
/// columns and the order that keeps ids' meaning (`owed_outputs` by id).
const TABLES: &[TableSpec] = &[
    (
        "tables",
        &[
            ("id", Int),
            ("platform", Text),
            ("chat_id", Text),
            ("game", Text),
            ("phase", Text),
            ("version", Int),
            ("deadline", Int),
            ("snapshot", Text),
            ("created_at", Int),
            ("updated_at", Int),
        ],
        "id",
    ),
    (
        "table_events",
        &[
            ("table_id", Int),
            ("version", Int),
            ("at", Int),
            ("kind", Text),
            ("event", Text),
        ],
        "table_id, version",
    ),
    (
        "commands",
        &[
            ("dedup_key", Text),
            ("table_id", Int),
            ("first_version", Int),
            ("last_version", Int),
            ("at", Int),
        ],
        "dedup_key",
    ),
    (
        "players",
        &[
            ("platform", Text),
            ("user_id", Text),
            ("name", Text),
            ("lang", Text),
            ("updated_at", Int),
        ],
        "platform, user_id",
    ),
    (
        "player_stats",
        &[
            ("platform", Text),
            ("chat_id", Text),
            ("game", Text),
            ("user_id", Text),
            ("series_played", Int),
            ("series_won", Int),
            ("series_lost", Int),
            ("goat", Int),
            ("deals_played", Int),
            ("deals_won", Int),
            ("eggs_deals", Int),
            ("points", Int),
        ],
        "platform, chat_id, game, user_id",
    ),
    (
        "chat_stats",
        &[
            ("platform", Text),
            ("chat_id", Text),
            ("game", Text),
            ("series_played", Int),
            ("deals_played", Int),
            ("eggs_deals", Int),
        ],
        "platform, chat_id, game",
    ),
    (
        "chats",
        &[
            ("platform", Text),
            ("chat_id", Text),
            ("lang", Text),
            ("updated_at", Int),
        ],
        "platform, chat_id",
    ),
    (
        "message_refs",
        &[
            ("platform", Text),
            ("table_id", Int),
            ("chat_id", Text),
            ("message_id", Int),
            ("updated_at", Int),
            ("shown_hash", Int),
        ],
        "platform, table_id, chat_id",
    ),
    (
        "owed_outputs",
        &[
            ("id", Int),
            ("platform", Text),
            ("table_id", Int),
            ("chat_id", Text),
            ("announcement", Text),
            ("created_at", Int),
        ],
        "id",
    ),
];

/// Rows inserted per statement: well under PostgreSQL's 65,535 parameters.
const BATCH: usize = 1000;

/// One value of a row, as read from SQLite.
enum Value {
    Int(Option<i64>),
    Text(Option<String>),
}

/// What a copy moved and checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Copied {
    /// Rows per table, in [`TABLES`] order (the same in both databases).
    pub rows: Vec<(&'static str, u64)>,
    /// Chats whose exports were compared.
    pub chats: usize,
    /// Deal records (finished and unfinished) in those exports.
    pub deals: usize,
}

impl std::fmt::Display for Copied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rows: Vec<String> = self.rows.iter().map(|(t, n)| format!("{t} {n}")).collect();
        write!(
            f,
            "copied {}; the exports of {} chats ({} deals) are the same in both",
            rows.join(", "),
            self.chats,
            self.deals
        )
    }
}

/// Copies the SQLite database `from` into the empty PostgreSQL database
/// `to` (its schema created if missing) and checks the copy.
pub async fn copy_store(from: &str, to: &str) -> Result<Copied, CopyError> {
    if Backend::of(from)? != Backend::Sqlite || Backend::of(to)? != Backend::Postgres {
        return Err(CopyError::Refused(
            "--from must be a sqlite:// database and --to a postgres:// one".into(),
        ));
    }
    let source = Store::open_existing(&StoreOptions::new(from)).await?;
    let target = match PgStore::open(&StoreOptions::new(to)).await {
        Ok(t) => t,
        Err(e) => {
            source.close().await;
            return Err(e.into());
        }
    };
    let copied = copy_and_check(&source, &target).await;
    source.close().await;
    target.close().await;
    copied
}

async fn copy_and_check(source: &Store, target: &PgStore) -> Result<Copied, CopyError> {
    let filled = row_counts_pg(target).await?;
    if filled.iter().any(|(_, n)| *n > 0) {
        let what: Vec<String> = filled
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        return Err(CopyError::Refused(format!(
            "the target database is not empty ({}): copy only into a new, empty database",
            what.join(", ")
        )));
    }
    let mut read = source.reader.begin().await?;
    let mut write = target.pool().begin().await?;
    let mut rows = Vec::with_capacity(TABLES.len());
    for &(table, columns, order) in TABLES {
        let names: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
        let select = format!("SELECT {} FROM {table} ORDER BY {order}", names.join(", "));
        // Names are this module's own constants.
        let mut stream = sqlx::query(sqlx::AssertSqlSafe(select)).fetch(&mut *read);
        let mut batch: Vec<Vec<Value>> = Vec::with_capacity(BATCH);
        let mut count = 0u64;
        while let Some(row) = stream.next().await {
            batch.push(values(&row?, columns)?);
            if batch.len() == BATCH {
                count += insert(&mut write, table, &names, std::mem::take(&mut batch)).await?;
            }
        }
        drop(stream);
        if !batch.is_empty() {
            count += insert(&mut write, table, &names, batch).await?;
        }
        rows.push((table, count));
    }
    // New tables and owed rows continue after the copied ids.
    sqlx::query("SELECT setval('table_ids', coalesce((SELECT max(id) FROM tables), 0) + 1, false)")
        .execute(&mut *write)
        .await?;
    sqlx::query(
        "SELECT setval(pg_get_serial_sequence('owed_outputs', 'id'),
                       coalesce((SELECT max(id) FROM owed_outputs), 0) + 1, false)",
    )
    .execute(&mut *write)
    .await?;
    read.commit().await?;
    write.commit().await?;

    let source_rows = row_counts_sqlite(source).await?;
    let target_rows = row_counts_pg(target).await?;
    if source_rows != target_rows || target_rows != rows {
        return Err(CopyError::Refused(format!(
            "the row counts differ after the copy: source {source_rows:?}, target {target_rows:?}"
        )));
    }
    let chats: Vec<(String, String)> =
        sqlx::query_as("SELECT DISTINCT platform, chat_id FROM tables ORDER BY platform, chat_id")
            .fetch_all(&source.reader)
            .await?;
    let mut deals = 0;
    for (platform, id) in &chats {
        let chat = platform
            .parse::<Platform>()
            .map_err(|e| StoreError::Corrupt(e.to_string()))
            .and_then(|p| {
                ChatKey::new(p, id.clone()).map_err(|e| StoreError::Corrupt(e.to_string()))
            })?;
        let (mut before, mut after) = (Vec::new(), Vec::new());
        let exported = export_chat(source, &chat, true, &mut before).await?;
        export_chat(target, &chat, true, &mut after).await?;
        if before != after {
            return Err(CopyError::Refused(format!(
                "the export of {chat} differs between the two databases"
            )));
        }
        deals += exported.deals + exported.unfinished;
    }
    Ok(Copied {
        rows,
        chats: chats.len(),
        deals,
    })
}

fn values(row: &SqliteRow, columns: &[(&str, Kind)]) -> Result<Vec<Value>, StoreError> {
    columns
        .iter()
        .enumerate()
        .map(|(i, (_, kind))| {
            Ok(match kind {
                Int => Value::Int(row.try_get(i)?),
                Text => Value::Text(row.try_get(i)?),
            })
        })
        .collect()
}

async fn insert(
    write: &mut sqlx::PgConnection,
    table: &str,
    names: &[&str],
    batch: Vec<Vec<Value>>,
) -> Result<u64, StoreError> {
    let mut query: QueryBuilder<Postgres> =
        QueryBuilder::new(format!("INSERT INTO {table} ({}) ", names.join(", ")));
    query.push_values(batch, |mut b, row| {
        for value in row {
            match value {
                Value::Int(v) => b.push_bind(v),
                Value::Text(v) => b.push_bind(v),
            };
        }
    });
    Ok(query.build().execute(write).await?.rows_affected())
}

async fn row_counts_sqlite(store: &Store) -> Result<Vec<(&'static str, u64)>, StoreError> {
    let mut counts = Vec::with_capacity(TABLES.len());
    for &(table, _, _) in TABLES {
        let n: i64 =
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
                .fetch_one(&store.reader)
                .await?;
        counts.push((table, u64::try_from(n).unwrap_or(0)));
    }
    Ok(counts)
}

async fn row_counts_pg(store: &PgStore) -> Result<Vec<(&'static str, u64)>, StoreError> {
    let mut counts = Vec::with_capacity(TABLES.len());
    for &(table, _, _) in TABLES {
        let n: i64 =
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
                .fetch_one(store.pool())
                .await?;
        counts.push((table, u64::try_from(n).unwrap_or(0)));
    }
    Ok(counts)
}
