//! PostgreSQL persistence for the table service: the same tables, event
//! log, de-duplication keys and statistics as the SQLite store, for a bot
//! that outgrows one file (`DATABASE_URL=postgres://…`).
//!
//! A pool of connections does everything. A commit is one transaction of
//! its own, on whichever connection is free: PostgreSQL syncs many of them
//! at once (group commit happens in the server), so the SQLite writer's
//! one-connection grouping buys nothing here. The table row is locked
//! (`SELECT … FOR UPDATE`) and its version compared inside that
//! transaction, and the de-duplication key is unique in the database, so
//! two processes committing to one table are told apart exactly as two
//! tasks of one process are: [`StoreError::Conflict`],
//! [`StoreError::Duplicate`]. Health follows the commits: a transaction
//! that fails for the database's own reasons sets
//! [`StoreHealth::CommitsFailing`], the next one that commits clears it.
//!
//! JSON is kept as TEXT, byte for byte as the SQLite store keeps it, so
//! `kozyr export` writes the same lines from either store and
//! `kozyr copy-store` can check a copy by comparing exports.

mod burials;
mod inbox;
pub mod leadership;
mod messages;
mod write;
mod writes;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::ConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use tokio::sync::watch;

use super::stats::StatsRow;
use super::writer::Commit;
use super::{
    ChatRow, CommandRow, EventRow, PlayerStats, Recorded, SnapshotRow, StoreError, StoreHealth,
    StoreOptions, version_of,
};
use crate::game::GameKind;
use crate::table::{
    Announcement, ChatKey, Lang, Phase, Platform, Table, TableEvent, TableId, Timestamp, Transition,
};

/// The PostgreSQL migrations in `migrations/postgres/`, embedded at build time.
pub static PG_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// A handle on a PostgreSQL database; cheap to clone.
#[derive(Clone, Debug)]
pub struct PgStore {
    pool: PgPool,
    health_tx: Arc<watch::Sender<StoreHealth>>,
    health: watch::Receiver<StoreHealth>,
    /// The URL without its password, for messages.
    shown_url: String,
}

/// `url` as it may be shown: without the password it may carry.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        Ok(u) => u.to_string(),
        Err(_) => "(an unreadable URL)".into(),
    }
}

impl PgStore {
    /// Connects and applies pending migrations (sqlx holds an advisory lock
    /// meanwhile, so processes starting together migrate once); a database
    /// from a newer kozyr is refused first.
    pub async fn open(options: &StoreOptions) -> Result<PgStore, StoreError> {
        let store = PgStore::connect(options).await?;
        if let Err(e) = store.check_not_newer().await {
            store.close().await;
            return Err(e);
        }
        if let Err(e) = PG_MIGRATOR.run(&store.pool).await {
            store.close().await;
            return Err(StoreError::Migrate(e));
        }
        Ok(store)
    }

    /// Connects to a database that must already hold kozyr's tables:
    /// runs no migrations and writes nothing (`kozyr export`, the source
    /// of a copy, the metrics' table counter).
    pub async fn open_existing(options: &StoreOptions) -> Result<PgStore, StoreError> {
        let store = PgStore::connect(options).await?;
        let ours: Result<bool, _> = sqlx::query_scalar("SELECT to_regclass('tables') IS NOT NULL")
            .fetch_one(&store.pool)
            .await;
        match ours {
            Ok(true) => match store.check_not_newer().await {
                Ok(()) => Ok(store),
                Err(e) => {
                    store.close().await;
                    Err(e)
                }
            },
            Ok(false) => {
                store.close().await;
                Err(StoreError::NotKozyr(redacted(&options.url)))
            }
            Err(e) => {
                store.close().await;
                Err(e.into())
            }
        }
    }

    async fn connect(options: &StoreOptions) -> Result<PgStore, StoreError> {
        let shown_url = redacted(&options.url);
        let connect = PgConnectOptions::from_str(&options.url)
            .map_err(|e| StoreError::Unreachable {
                url: shown_url.clone(),
                cause: e.to_string(),
            })?
            .disable_statement_logging();
        // Every commit in flight holds a connection for its transaction:
        // room for the readers and as many commits again.
        let pool = PgPoolOptions::new()
            .max_connections(options.readers.max(1) * 2 + 2)
            .acquire_timeout(options.busy_timeout.max(Duration::from_secs(5)))
            .connect_with(connect)
            .await
            .map_err(|e| StoreError::Unreachable {
                url: shown_url.clone(),
                cause: e.to_string(),
            })?;
        let (health_tx, health) = watch::channel(StoreHealth::Healthy);
        Ok(PgStore {
            pool,
            health_tx: Arc::new(health_tx),
            health,
            shown_url,
        })
    }

    /// A database migrated by a newer kozyr is refused before anything
    /// reads or migrates it, as on SQLite.
    async fn check_not_newer(&self) -> Result<(), StoreError> {
        let tracked: bool =
            sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
                .fetch_one(&self.pool)
                .await?;
        if !tracked {
            return Ok(());
        }
        let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
            .fetch_all(&self.pool)
            .await?;
        let known = PG_MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        let unknown = applied
            .into_iter()
            .filter(|v| !PG_MIGRATOR.iter().any(|m| m.version == *v))
            .max();
        match unknown {
            Some(found) => Err(StoreError::NewerDatabase {
                url: self.shown_url.clone(),
                found,
                known,
            }),
            None => Ok(()),
        }
    }

    /// The connection pool, for the copy between stores.
    pub(super) fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Whether the store can write; changes as commits fail and recover.
    pub fn health(&self) -> watch::Receiver<StoreHealth> {
        self.health.clone()
    }

    /// Commits a transition; returns once it is durable (see
    /// [`super::Store::commit`]: the same contract).
    pub async fn commit(
        &self,
        transition: &Transition,
        dedup: Option<&str>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let commit = Commit::new(transition, dedup, now)?;
        self.commit_prepared(commit).await
    }

    /// Commits a [`Commit`] in a transaction of its own.
    pub async fn commit_prepared(&self, commit: Commit) -> Result<(), StoreError> {
        let started = std::time::Instant::now();
        let written = write::commit(&self.pool, &commit).await;
        crate::metrics::db_commit(started.elapsed(), 1);
        match written {
            Ok(outcome) => {
                if *self.health_tx.borrow() != StoreHealth::Healthy {
                    tracing::info!("commits go through again");
                    self.health_tx.send_replace(StoreHealth::Healthy);
                }
                outcome
            }
            // A write that comes after the stop closed the pool (a record
            // of what a message shows, finishing after the drain): the
            // store is closed, not failing.
            Err(sqlx::Error::PoolClosed) => {
                tracing::debug!("a commit after the store closed; dropped");
                Err(StoreError::Closed)
            }
            Err(e) => {
                tracing::error!(error = %e, "commit failed");
                self.health_tx
                    .send_replace(StoreHealth::CommitsFailing(e.to_string()));
                Err(e.into())
            }
        }
    }

    /// The chat's open table, if it has one.
    pub async fn open_table(&self, chat: &ChatKey) -> Result<Option<Table>, StoreError> {
        let row: Option<SnapshotRow> = sqlx::query_as(
            "SELECT id, version, snapshot FROM tables
             WHERE platform = $1 AND chat_id = $2 AND phase <> 'closed'",
        )
        .bind(chat.platform().as_str())
        .bind(chat.id())
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => self.decode(row).await.map(Some),
            None => Ok(None),
        }
    }

    /// Any table, open or closed.
    pub async fn table(&self, id: TableId) -> Result<Option<Table>, StoreError> {
        let row: Option<SnapshotRow> =
            sqlx::query_as("SELECT id, version, snapshot FROM tables WHERE id = $1")
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
        match row {
            Some(row) => self.decode(row).await.map(Some),
            None => Ok(None),
        }
    }

    async fn decode(&self, row: SnapshotRow) -> Result<Table, StoreError> {
        let id = TableId(row.id);
        super::decode_snapshot(row, async || self.events(id).await).await
    }

    /// The chat a table belongs to now, and its phase.
    pub async fn chat_of(&self, id: TableId) -> Result<Option<(ChatKey, Phase)>, StoreError> {
        let row: Option<ChatRow> =
            sqlx::query_as("SELECT platform, chat_id, phase FROM tables WHERE id = $1")
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
        row.map(|r| r.decode(id)).transpose()
    }

    /// Every open table's id, oldest first.
    pub async fn open_table_ids(&self) -> Result<Vec<TableId>, StoreError> {
        let ids: Vec<i64> =
            sqlx::query_scalar("SELECT id FROM tables WHERE phase <> 'closed' ORDER BY id")
                .fetch_all(&self.pool)
                .await?;
        Ok(ids.into_iter().map(TableId).collect())
    }

    /// The largest table id ever given, if any.
    pub async fn max_table_id(&self) -> Result<Option<TableId>, StoreError> {
        let id: Option<i64> = sqlx::query_scalar("SELECT max(id) FROM tables")
            .fetch_one(&self.pool)
            .await?;
        Ok(id.map(TableId))
    }

    /// An id no table was given before, from the `table_ids` sequence:
    /// processes sharing the database never mint the same one.
    pub async fn next_table_id(&self) -> Result<TableId, StoreError> {
        let id: i64 = sqlx::query_scalar("SELECT nextval('table_ids')")
            .fetch_one(&self.pool)
            .await?;
        Ok(TableId(id))
    }

    /// The command recorded under `key`, if one was applied.
    pub async fn recorded(&self, key: &str) -> Result<Option<Recorded>, StoreError> {
        let row: Option<CommandRow> = sqlx::query_as(
            "SELECT table_id, first_version, last_version FROM commands WHERE dedup_key = $1",
        )
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        row.map(CommandRow::decode).transpose()
    }

    /// A table's logged events with versions in `from..=to`, in order.
    pub async fn events_between(
        &self,
        table: TableId,
        from: u64,
        to: u64,
    ) -> Result<Vec<(u64, TableEvent)>, StoreError> {
        let rows: Vec<EventRow> = sqlx::query_as(
            "SELECT version, event FROM table_events
             WHERE table_id = $1 AND version BETWEEN $2 AND $3 ORDER BY version",
        )
        .bind(table.0)
        .bind(i64::try_from(from).unwrap_or(i64::MAX))
        .bind(i64::try_from(to).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| Ok((version_of(r.version)?, serde_json::from_str(&r.event)?)))
            .collect()
    }

    /// A table's whole event log, in order.
    pub async fn events(&self, table: TableId) -> Result<Vec<(u64, TableEvent)>, StoreError> {
        self.events_between(table, 1, u64::MAX).await
    }

    /// Rebuilds a table from its event log (see [`Table::replay`]).
    pub async fn replay(&self, table: TableId) -> Result<Option<Table>, StoreError> {
        super::replay_log(table, &self.events(table).await?)
    }

    /// Every table the chat has had, oldest first.
    pub async fn chat_tables(&self, chat: &ChatKey) -> Result<Vec<TableId>, StoreError> {
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM tables WHERE platform = $1 AND chat_id = $2 ORDER BY id",
        )
        .bind(chat.platform().as_str())
        .bind(chat.id())
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.into_iter().map(TableId).collect())
    }

    /// Forgets de-duplication keys recorded before `before`.
    pub async fn prune_commands(&self, before: Timestamp) -> Result<u64, StoreError> {
        let r = sqlx::query("DELETE FROM commands WHERE at < $1")
            .bind(before.millis())
            .execute(&self.pool)
            .await?;
        Ok(r.rows_affected())
    }

    /// The language the chat chose, if it chose one.
    pub async fn chat_language(&self, chat: &ChatKey) -> Result<Option<Lang>, StoreError> {
        let code: Option<String> =
            sqlx::query_scalar("SELECT lang FROM chats WHERE platform = $1 AND chat_id = $2")
                .bind(chat.platform().as_str())
                .bind(chat.id())
                .fetch_optional(&self.pool)
                .await?;
        code.map(|c| {
            Lang::from_code(&c).ok_or_else(|| StoreError::Corrupt(format!("language `{c}`")))
        })
        .transpose()
    }

    /// The chat's best players at `game`, ordered as on SQLite.
    pub async fn leaderboard(
        &self,
        chat: &ChatKey,
        game: GameKind,
        limit: u32,
    ) -> Result<Vec<PlayerStats>, StoreError> {
        let rows: Vec<StatsRow> = sqlx::query_as(
            "SELECT s.user_id, p.name, s.game, s.series_played, s.series_won, s.series_lost,
                    s.goat, s.deals_played, s.deals_won, s.eggs_deals, s.points
             FROM player_stats AS s
             LEFT JOIN players AS p ON p.platform = s.platform AND p.user_id = s.user_id
             WHERE s.platform = $1 AND s.chat_id = $2 AND s.game = $3
             ORDER BY s.series_won DESC, s.series_played ASC, s.deals_won DESC,
                      s.user_id COLLATE \"C\"
             LIMIT $4",
        )
        .bind(chat.platform().as_str())
        .bind(chat.id())
        .bind(game.as_str())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(StatsRow::decode).collect()
    }

    /// The messages recorded for the open tables: (table, chat id, message id).
    pub async fn open_message_refs(
        &self,
        platform: Platform,
    ) -> Result<Vec<(TableId, String, i64)>, StoreError> {
        let rows: Vec<(i64, String, i64)> = sqlx::query_as(
            "SELECT m.table_id, m.chat_id, m.message_id FROM message_refs AS m
             JOIN tables AS t ON t.id = m.table_id
             WHERE m.platform = $1 AND t.phase <> 'closed'",
        )
        .bind(platform.as_str())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(t, c, m)| (TableId(t), c, m))
            .collect())
    }

    /// What the messages of open tables show, as last recorded (those not
    /// known left out): (table, chat id, hash).
    pub async fn shown_hashes(
        &self,
        platform: Platform,
    ) -> Result<Vec<(TableId, String, i64)>, StoreError> {
        let rows: Vec<(i64, String, i64)> = sqlx::query_as(
            "SELECT m.table_id, m.chat_id, m.shown_hash FROM message_refs AS m
             JOIN tables AS t ON t.id = m.table_id
             WHERE m.platform = $1 AND t.phase <> 'closed' AND m.shown_hash IS NOT NULL",
        )
        .bind(platform.as_str())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(t, c, h)| (TableId(t), c, h))
            .collect())
    }

    /// What the chats of `platform` are owed, oldest first; a row that no
    /// longer reads as an announcement is left out (and logged).
    pub async fn owed_outputs(
        &self,
        platform: Platform,
    ) -> Result<Vec<(TableId, String, Announcement)>, StoreError> {
        let rows: Vec<(i64, i64, String, String)> = sqlx::query_as(
            "SELECT id, table_id, chat_id, announcement FROM owed_outputs
             WHERE platform = $1 ORDER BY id",
        )
        .bind(platform.as_str())
        .fetch_all(&self.pool)
        .await?;
        Ok(super::outbox::decode_owed(rows))
    }

    /// How many tables are not closed, per platform and phase, every pair
    /// listed (as [`super::Store::open_tables_by_phase`]).
    pub async fn open_tables_by_phase(
        &self,
    ) -> Result<Vec<(&'static str, &'static str, i64)>, StoreError> {
        let rows: Vec<(String, String, i64)> = sqlx::query_as(
            "SELECT platform, phase, count(*) FROM tables WHERE phase <> 'closed'
             GROUP BY platform, phase",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(super::admin::every_platform_and_phase(&rows))
    }

    /// Records (`Some`) or forgets (`None`) the message showing `table` in
    /// `chat_id`, with what it shows (`shown`; `None`: not known).
    pub async fn save_message_ref(
        &self,
        platform: Platform,
        table: TableId,
        chat_id: &str,
        message_id: Option<i64>,
        shown: Option<i64>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(Commit::message_ref(
            platform, table, chat_id, message_id, shown, now,
        ))
        .await
    }

    /// Records what messages show (`Some`), or forgets every hash (`None`).
    pub async fn save_shown_hashes(
        &self,
        platform: Platform,
        rows: Option<Vec<(TableId, String, i64)>>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(Commit::shown_hashes(platform, rows, now))
            .await
    }

    /// The chat of `table` got `announcement`: one row of it is forgotten.
    pub async fn owed_sent(
        &self,
        platform: Platform,
        table: TableId,
        announcement: &Announcement,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(Commit::owed_sent(platform, table, announcement, now)?)
            .await
    }

    /// Records the language a chat chose.
    pub async fn save_chat_language(
        &self,
        chat: &ChatKey,
        lang: Lang,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(Commit::chat_language(chat, lang, now))
            .await
    }

    /// Closes the pool once the commits under way are done.
    pub async fn close(self) {
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::redacted;
    use crate::store::{Backend, StoreError};

    #[test]
    fn the_scheme_chooses_the_backend() {
        assert_eq!(Backend::of("sqlite://kozyr.db").unwrap(), Backend::Sqlite);
        assert_eq!(Backend::of("postgres://k@db/k").unwrap(), Backend::Postgres);
        assert_eq!(
            Backend::of("postgresql://k@db/k").unwrap(),
            Backend::Postgres
        );
        let e = Backend::of("mysql://kozyr:secret@db/kozyr").unwrap_err();
        assert!(matches!(e, StoreError::Scheme(_)));
        let said = e.to_string();
        assert!(
            said.contains("DATABASE_URL") && said.contains("`mysql:`"),
            "{said}"
        );
        assert!(!said.contains("secret"), "{said}");
    }

    #[test]
    fn a_password_is_never_shown() {
        assert_eq!(
            redacted("postgres://kozyr:secret@db:5432/kozyr"),
            "postgres://kozyr:***@db:5432/kozyr"
        );
        assert_eq!(
            redacted("postgres://kozyr@db/kozyr"),
            "postgres://kozyr@db/kozyr"
        );
        assert!(!redacted("postgres://a:b c@d").contains("b c"));
    }
}
