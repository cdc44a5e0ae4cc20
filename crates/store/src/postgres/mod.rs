//! PostgreSQL persistence for the table service: the same tables, event
//! log, de-duplication keys and statistics as the SQLite store, for a bot
//! that outgrows one file (`DATABASE_URL=postgres://…`).
//!
//! A pool of connections does everything. A commit is one transaction of
//! its own, on whichever connection is free: PostgreSQL syncs many of them
//! at once (group commit happens in the server), so the SQLite writer's
//! one-connection grouping buys nothing here. The table row's version is
//! compared and swapped by its UPDATE (`super::commit`), which locks the
//! row to the end of that transaction, and the de-duplication key is
//! unique in the database, so
//! two processes committing to one table are told apart exactly as two
//! tasks of one process are: [`StoreError::Conflict`],
//! [`StoreError::Duplicate`]. Health follows the commits: a transaction
//! that fails for the database's own reasons sets
//! [`StoreHealth::CommitsFailing`], the next one that commits clears it.
//!
//! JSON is kept as TEXT, byte for byte as the SQLite store keeps it, so
//! `kozyr export` writes the same lines from either store and
//! `kozyr copy-store` can check a copy by comparing exports.

mod inbox;
pub mod leadership;
mod write;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::ConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use tokio::sync::watch;

use super::commit::Commit;
use super::{OpenError, StoreError, StoreHealth, StoreOptions};
use kozyr_table::TableId;

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
    pub async fn open(options: &StoreOptions) -> Result<PgStore, OpenError> {
        let store = PgStore::connect(options).await?;
        if let Err(e) = store.check_not_newer().await {
            store.close().await;
            return Err(e);
        }
        if let Err(e) = PG_MIGRATOR.run(&store.pool).await {
            store.close().await;
            return Err(OpenError::Migrate(e));
        }
        Ok(store)
    }

    /// Connects to a database that must already hold kozyr's tables:
    /// runs no migrations and writes nothing (`kozyr export`, the source
    /// of a copy, the metrics' table counter).
    pub async fn open_existing(options: &StoreOptions) -> Result<PgStore, OpenError> {
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
                Err(OpenError::NotKozyr(redacted(&options.url)))
            }
            Err(e) => {
                store.close().await;
                Err(e.into())
            }
        }
    }

    async fn connect(options: &StoreOptions) -> Result<PgStore, OpenError> {
        let shown_url = redacted(&options.url);
        let connect = PgConnectOptions::from_str(&options.url)
            .map_err(|e| OpenError::Unreachable {
                url: shown_url.clone(),
                source: e,
            })?
            .disable_statement_logging();
        // Every commit in flight holds a connection for its transaction:
        // room for the readers and as many commits again.
        let pool = PgPoolOptions::new()
            .max_connections(options.readers.max(1) * 2 + 2)
            .acquire_timeout(options.busy_timeout.max(Duration::from_secs(5)))
            .connect_with(connect)
            .await
            .map_err(|e| OpenError::Unreachable {
                url: shown_url.clone(),
                source: e,
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
    async fn check_not_newer(&self) -> Result<(), OpenError> {
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
            Some(found) => Err(OpenError::NewerDatabase {
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

    /// Commits a [`Commit`] in a transaction of its own.
    pub async fn commit_prepared(&self, commit: Commit) -> Result<(), StoreError> {
        let started = std::time::Instant::now();
        let written = write::commit(&self.pool, &commit).await;
        kozyr_metrics::db_commit(started.elapsed(), 1);
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

    /// An id no table was given before, from the `table_ids` sequence:
    /// processes sharing the database never mint the same one.
    pub async fn next_table_id(&self) -> Result<TableId, StoreError> {
        let id: i64 = sqlx::query_scalar("SELECT nextval('table_ids')")
            .fetch_one(&self.pool)
            .await?;
        Ok(TableId(id))
    }

    /// Closes the pool once the commits under way are done.
    pub async fn close(self) {
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::redacted;
    use crate::{Backend, OpenError};

    #[test]
    fn the_scheme_chooses_the_backend() {
        assert_eq!(Backend::of("sqlite://kozyr.db").unwrap(), Backend::Sqlite);
        assert_eq!(Backend::of("postgres://k@db/k").unwrap(), Backend::Postgres);
        assert_eq!(
            Backend::of("postgresql://k@db/k").unwrap(),
            Backend::Postgres
        );
        let e = Backend::of("mysql://kozyr:secret@db/kozyr").unwrap_err();
        assert!(matches!(e, OpenError::Scheme(_)));
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
