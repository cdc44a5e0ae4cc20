//! Persistence for the table service: snapshots, the append-only event
//! log, de-duplication keys, statistics. Two backends implement the
//! service's [`kozyr_table::storage::TableStore`], chosen by the scheme of
//! `DATABASE_URL` ([`open`]): SQLite ([`Store`], `sqlite`; the embedded
//! default) and PostgreSQL ([`PgStore`], [`postgres`]). Each has its own
//! append-only migrations (`migrations/sqlite/`, `migrations/postgres/`)
//! and writes the same rows and the same JSON.
//!
//! This module chooses the backend ([`Backend`], [`open`], [`Opened`]) and
//! holds what both share: [`StoreOptions`], [`StoreError`], the rows as
//! read and their decoding. SQLite is `sqlite`'s, PostgreSQL
//! [`postgres`]'; their common queries [`Queries`]'. See
//! `docs/ARCHITECTURE.md` (`crates/store/`, and the table service's invariants).
//!
//! A table service over a SQLite store: a command in, acknowledged once
//! committed, and its render out.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use kozyr_game::GameKind;
//! use kozyr_store::{Store, StoreOptions};
//! use kozyr_table::runtime::{DedupKey, Request, TableService, Target};
//! use kozyr_table::*;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let url = format!("sqlite://{}", dir.path().join("kozyr.db").display());
//! let store = Store::open(&StoreOptions::new(url)).await.unwrap();
//! let (service, mut effects) = TableService::builder(store).start().await.unwrap();
//!
//! let chat = ChatKey::new(Platform::Telegram, "-100").unwrap();
//! let ann = Player::new(UserId::new("42").unwrap(), "Ann", Lang::En);
//! let create = Request {
//!     target: Target::Chat(chat.clone()),
//!     actor: Actor::person(ann),
//!     command: Command::Create {
//!         kind: GameKind::Kozel,
//!         settings: Settings::default(),
//!         title: "Friday cards".into(),
//!         sit: true,
//!     },
//!     dedup: Some(DedupKey::update(Platform::Telegram, 1001)),
//! };
//! let ack = service.submit(create.clone()).await.unwrap();
//! // A second delivery of the same update is answered, not applied again.
//! assert!(service.submit(create).await.unwrap().duplicate);
//! // The front-end renders what comes out of the channel.
//! let Some(Output::RenderTable(view)) = effects.recv().await else { panic!() };
//! assert_eq!(Some(view.id), ack.table);
//! # });
//! ```

mod admin;
mod commit;
mod copy;
mod export;
mod inbox;
pub mod postgres;
mod queries;
mod service;
mod sql;
mod sqlite;
mod stats;
mod writer;

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{ConnectOptions, FromRow};

use kozyr_table::{ChatKey, Phase, Platform, SNAPSHOT_FORMAT, Table, TableEvent, TableId};

pub use admin::{SqliteClaim, Who, check_exists, claim_sqlite, database_path, diagnose};
pub use commit::Commit;
pub use copy::{Copied, copy_store};
pub use export::{Exported, export_chat};
pub use kozyr_table::storage::{PlayerStats, RecordedCommand, StoreHealth};
pub use postgres::PgStore;
pub use queries::{Db, Queries};
#[cfg(feature = "dev-tools")]
pub use service::ServiceStore;
pub use sqlite::{MIGRATOR, Store};

/// Which database a URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `sqlite://PATH`: one file, the embedded default.
    Sqlite,
    /// `postgres://…` or `postgresql://…`: a PostgreSQL server.
    Postgres,
}

impl Backend {
    /// The backend `url`'s scheme names; anything else is an error naming
    /// `DATABASE_URL` (and never the password the URL may carry).
    pub fn of(url: &str) -> Result<Backend, OpenError> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else {
            let scheme = url.split_once(':').map_or("", |(s, _)| s);
            Err(OpenError::Scheme(scheme.chars().take(20).collect()))
        }
    }
}

/// Opens (creating and migrating if needed) the database `options` names,
/// as the table service's store.
pub async fn open(
    options: &StoreOptions,
) -> Result<std::sync::Arc<dyn kozyr_table::storage::TableStore>, OpenError> {
    Ok(match Backend::of(&options.url)? {
        Backend::Sqlite => std::sync::Arc::new(Store::open(options).await?),
        Backend::Postgres => std::sync::Arc::new(PgStore::open(options).await?),
    })
}

/// A database opened by the admin tools (`kozyr export`, the metrics'
/// table counter, the source of `kozyr copy-store`), whichever backend:
/// never created, never migrated.
#[derive(Clone, Debug)]
pub enum Opened {
    Sqlite(Store),
    Postgres(PgStore),
}

impl Opened {
    /// Opens a database that must already exist and hold kozyr's tables.
    pub async fn open_existing(options: &StoreOptions) -> Result<Opened, OpenError> {
        Ok(match Backend::of(&options.url)? {
            Backend::Sqlite => Opened::Sqlite(Store::open_existing(options).await?),
            Backend::Postgres => Opened::Postgres(PgStore::open_existing(options).await?),
        })
    }

    /// [`Opened::open_tables_by_phase`] as the metrics endpoint counts tables.
    pub fn table_counter(self) -> kozyr_metrics::CountTables {
        std::sync::Arc::new(move || {
            let store = self.clone();
            Box::pin(async move {
                store
                    .open_tables_by_phase()
                    .await
                    .map_err(|e| e.to_string())
            })
        })
    }

    pub async fn close(self) {
        match self {
            Opened::Sqlite(s) => s.close().await,
            Opened::Postgres(s) => s.close().await,
        }
    }
}

impl Queries for Opened {
    fn db(&self) -> Db<'_> {
        match self {
            Opened::Sqlite(s) => s.db(),
            Opened::Postgres(s) => s.db(),
        }
    }

    async fn write(&self, commit: Commit) -> Result<(), StoreError> {
        match self {
            Opened::Sqlite(s) => s.write(commit).await,
            Opened::Postgres(s) => s.write(commit).await,
        }
    }
}

impl Queries for PgStore {
    fn db(&self) -> Db<'_> {
        Db::Postgres(self.pool())
    }

    async fn write(&self, commit: Commit) -> Result<(), StoreError> {
        self.commit_prepared(commit).await
    }
}

/// How to open the database.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// `sqlite://PATH`; the file is created if missing.
    pub url: String,
    pub synchronous: Synchronous,
    /// How long a statement waits for a lock held by another connection.
    pub busy_timeout: Duration,
    /// Connections for reads (the writer has its own).
    pub readers: u32,
    /// Caps the database at this many pages on every connection (SQLite's
    /// `max_page_count`): a disk that fills at a known size, for tests of
    /// a full disk. `None` in service.
    pub page_limit: Option<u32>,
}

/// SQLite's `synchronous` setting for the store
/// (`KOZYR_SQLITE_SYNCHRONOUS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synchronous {
    Full,
    Normal,
}

impl StoreOptions {
    /// Durable defaults: `synchronous = FULL`, a 5 s busy timeout.
    pub fn new(url: impl Into<String>) -> StoreOptions {
        StoreOptions {
            url: url.into(),
            synchronous: Synchronous::Full,
            busy_timeout: Duration::from_secs(5),
            readers: 4,
            page_limit: None,
        }
    }

    fn connect_options(&self) -> Result<SqliteConnectOptions, OpenError> {
        admin::check_names_a_file(&self.url)?;
        let sync = match self.synchronous {
            Synchronous::Full => SqliteSynchronous::Full,
            Synchronous::Normal => SqliteSynchronous::Normal,
        };
        let mut options = SqliteConnectOptions::from_str(&self.url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(sync)
            .busy_timeout(self.busy_timeout)
            .foreign_keys(true)
            .disable_statement_logging();
        if let Some(pages) = self.page_limit {
            options = options.pragma("max_page_count", pages.to_string());
        }
        Ok(options)
    }

    /// For tools that only read (`export`, `backup`): SQLite's read-only
    /// mode, so a database file the tool's user may not write is still
    /// read, and nothing (not even the journal mode) is ever changed.
    fn read_only_options(&self) -> Result<SqliteConnectOptions, OpenError> {
        admin::check_names_a_file(&self.url)?;
        Ok(SqliteConnectOptions::from_str(&self.url)?
            .read_only(true)
            .create_if_missing(false)
            .busy_timeout(self.busy_timeout)
            .disable_statement_logging())
    }
}

/// What a running store's call may come back with: a refusal the service
/// tells apart (a version conflict, a known key), a closed or failing
/// store, or stored data that does not read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    #[error("table {0} was changed by someone else (version conflict)")]
    Conflict(TableId),
    #[error("command `{0}` was already applied")]
    Duplicate(String),
    #[error("the store is closed")]
    Closed,
    #[error("refusing to write: {0}; restart kozyr")]
    FilesChanged(String),
}

/// Why a database could not be opened, or is not one kozyr can use: each
/// names the database (never a password) and what to do, for the operator
/// who starts the bot or runs a data tool.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// A query while opening failed for the database's own reasons.
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot open the database {}: {cause}", path.display())]
    Open {
        path: std::path::PathBuf,
        cause: String,
    },
    #[error(
        "there is no database at {} (check DATABASE_URL, and the folder the command runs in)",
        .0.display()
    )]
    Missing(std::path::PathBuf),
    #[error("the database {} is empty: not a kozyr database (check DATABASE_URL)", .0.display())]
    Empty(std::path::PathBuf),
    #[error(
        "the database {} is from a newer kozyr (it has migration {found}; this kozyr knows up \
         to {known}): run that version of kozyr, or restore a backup taken before it",
        path.display()
    )]
    Newer {
        path: std::path::PathBuf,
        found: i64,
        known: i64,
    },
    #[error(
        "the database {} is damaged ({cause}): stop the bot, keep the damaged file aside and \
         restore the latest backup (README: Backups and restore)",
        path.display()
    )]
    Damaged {
        path: std::path::PathBuf,
        cause: String,
    },
    #[error("the database URL `{0}` names no file: give a path, e.g. sqlite:///data/kozyr.db")]
    NoFile(String),
    #[error(
        "DATABASE_URL must be sqlite://PATH or postgres://USER@HOST/DATABASE, not a `{0}:` URL"
    )]
    Scheme(String),
    #[error("cannot reach the PostgreSQL database {url}: {source}")]
    Unreachable {
        url: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("the PostgreSQL database {0} has no kozyr tables (check DATABASE_URL)")]
    NotKozyr(String),
    #[error(
        "the PostgreSQL database {url} is from a newer kozyr (it has migration {found}; this \
         kozyr knows up to {known}): run that version of kozyr"
    )]
    NewerDatabase { url: String, found: i64, known: i64 },
    #[error(
        "another kozyr process serves {}: one SQLite file serves one process (several \
         replicas need PostgreSQL: docs/OPERATIONS.md, \"Moving to PostgreSQL\")",
        .0.display()
    )]
    Claimed(std::path::PathBuf),
}

impl From<sqlx::Error> for OpenError {
    fn from(e: sqlx::Error) -> OpenError {
        OpenError::Store(StoreError::Db(e))
    }
}

/// Why a copy of the database (`kozyr copy-store`, a backup) was not made.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot copy: {0}")]
    Refused(String),
    #[error("cannot write: {0}")]
    Write(#[from] std::io::Error),
    #[error("cannot write the backup {}: {why}", path.display())]
    Backup {
        path: std::path::PathBuf,
        why: String,
    },
}

impl From<sqlx::Error> for CopyError {
    fn from(e: sqlx::Error) -> CopyError {
        CopyError::Store(StoreError::Db(e))
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

#[derive(FromRow)]
struct SnapshotRow {
    id: i64,
    version: i64,
    snapshot: String,
}

#[derive(FromRow)]
struct ChatRow {
    platform: String,
    chat_id: String,
    phase: String,
}

#[derive(FromRow)]
struct EventRow {
    version: i64,
    event: String,
}

#[derive(FromRow)]
struct CommandRow {
    table_id: Option<i64>,
    first_version: i64,
    last_version: i64,
}

/// A chat's write times as the `chat_writes` row keeps them.
fn writes_encoded(times: &[i64]) -> String {
    times
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The `chat_writes` rows read back; a damaged time is left out (the
/// window then counts one write fewer than there was, as before the rows
/// were kept), never an error that would keep the bot from starting.
fn writes_decoded(rows: Vec<(String, String)>) -> Vec<(String, Vec<i64>)> {
    rows.into_iter()
        .map(|(chat, times)| {
            let times = times
                .split(',')
                .filter_map(|t| t.trim().parse::<i64>().ok())
                .collect();
            (chat, times)
        })
        .collect()
}

fn version_of(v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("negative version {v}")))
}

impl ChatRow {
    fn decode(self, id: TableId) -> Result<(ChatKey, Phase), StoreError> {
        let platform = Platform::from_str(&self.platform)
            .map_err(|e| StoreError::Corrupt(format!("table {id}: {e}")))?;
        let chat = ChatKey::new(platform, self.chat_id)
            .map_err(|e| StoreError::Corrupt(format!("table {id}: {e}")))?;
        let phase = Phase::from_str(&self.phase).map_err(StoreError::Corrupt)?;
        Ok((chat, phase))
    }
}

impl CommandRow {
    fn decode(self) -> Result<RecordedCommand, StoreError> {
        Ok(RecordedCommand {
            table: self.table_id.map(TableId),
            first_version: version_of(self.first_version)?,
            last_version: version_of(self.last_version)?,
        })
    }
}

/// A stored snapshot as a table, on either backend. A snapshot of an older
/// [`SNAPSHOT_FORMAT`] is rebuilt from the table's log (`log` reads it)
/// instead; the next commit stores it in the current format.
async fn decode_snapshot(
    row: SnapshotRow,
    log: impl AsyncFnOnce() -> Result<Vec<(u64, TableEvent)>, StoreError>,
) -> Result<Table, StoreError> {
    let id = TableId(row.id);
    let version = version_of(row.version)?;
    let mut table: Table = serde_json::from_str(&row.snapshot)?;
    if table.format() != SNAPSHOT_FORMAT {
        table = replay_log(id, &log().await?)?
            .ok_or_else(|| StoreError::Corrupt(format!("table {id} has no log")))?;
    }
    if table.version() != version || table.id() != id {
        return Err(StoreError::Corrupt(format!(
            "table {id}: the snapshot is table {} at version {}, the row at version {version}",
            table.id(),
            table.version(),
        )));
    }
    Ok(table)
}

/// Rebuilds table `table` from its whole log (see [`Table::replay`]); the
/// log must be gapless from version 1. `None` for an empty log.
fn replay_log(table: TableId, events: &[(u64, TableEvent)]) -> Result<Option<Table>, StoreError> {
    if events.is_empty() {
        return Ok(None);
    }
    if let Some((i, (v, _))) = events
        .iter()
        .enumerate()
        .find(|(i, (v, _))| *v != *i as u64 + 1)
    {
        return Err(StoreError::Corrupt(format!(
            "table {table}: event {} has version {v}",
            i + 1
        )));
    }
    Table::replay(events.iter().map(|(_, e)| e))
        .map(Some)
        .map_err(|e| StoreError::Corrupt(format!("table {table}: {e}")))
}

#[cfg(test)]
mod tests;
