//! The SQLite backend ([`Store`]), the embedded default: one writer
//! connection commits, a small pool reads. Writes go through
//! [`Store::commit_prepared`], which hands a prepared [`Commit`] to the
//! writer task (`super::writer`) and returns once its transaction is
//! durable (WAL, `synchronous = FULL` by default). The writer groups
//! whatever commits are waiting into one SQLite transaction, each in its
//! own savepoint: a commit that fails its checks rolls back alone, and
//! every caller hears only after the transaction holding its writes has
//! committed. The queries it shares with PostgreSQL are
//! [`super::Queries`]'; what the operators' tools do with a file is
//! `super::admin`'s.

use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use sqlx::{ConnectOptions, Connection};
use tokio::sync::{mpsc, oneshot, watch};

use super::{Commit, Db, OpenError, Queries, StoreError, StoreHealth, StoreOptions, admin, writer};
use kozyr_table::TableId;

/// The SQLite migrations in `migrations/sqlite/`, embedded at build time.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// A handle on the database; cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    pub(super) reader: SqlitePool,
    writer: mpsc::UnboundedSender<writer::Job>,
    health: watch::Receiver<StoreHealth>,
    /// The next table id to give (0: not read yet). One process writes a
    /// SQLite file, so counting here is counting for the database.
    next_table_id: std::sync::Arc<std::sync::atomic::AtomicI64>,
    /// Counts the inbox's new rows, for the reader waiting on them.
    pub(super) inbox_wake: std::sync::Arc<watch::Sender<u64>>,
}

impl Queries for Store {
    fn db(&self) -> Db<'_> {
        Db::Sqlite(&self.reader)
    }

    async fn write(&self, commit: Commit) -> Result<(), StoreError> {
        self.commit_prepared(commit).await
    }
}

impl Store {
    /// Opens (creating if needed) the database, applies pending migrations
    /// and starts the writer task. Needs a Tokio runtime.
    /// An error opening the file names its path and the likely cause (a
    /// missing folder, a folder the bot's user cannot write).
    pub async fn open(options: &StoreOptions) -> Result<Store, OpenError> {
        Store::connect(options.connect_options()?, options, true).await
    }

    /// Connects the writer (running pending migrations if `migrate`) and
    /// the reader pool, and starts the writer task.
    pub(super) async fn connect(
        connect: SqliteConnectOptions,
        options: &StoreOptions,
        migrate: bool,
    ) -> Result<Store, OpenError> {
        let mut conn = match connect.connect().await {
            Ok(conn) => conn,
            Err(e) if migrate => return Err(admin::open_error(&options.url, e)),
            Err(e) => return Err(admin::read_error(&options.url, e.into())),
        };
        if let Err(e) = admin::check_not_newer(&mut conn, &options.url).await {
            let _ = conn.close().await;
            return Err(e);
        }
        if migrate {
            let ready = match MIGRATOR.run(&mut conn).await {
                Ok(()) => admin::probe_write(&mut conn).await,
                Err(e) => Err(OpenError::Migrate(e)),
            };
            if let Err(e) = ready {
                let _ = conn.close().await;
                return Err(admin::write_error(&options.url, e));
            }
        }
        let reader = SqlitePoolOptions::new()
            .max_connections(options.readers.max(1))
            .connect_with(connect.clone())
            .await
            .map_err(|e| admin::read_error(&options.url, e.into()))?;
        let (tx, rx) = mpsc::unbounded_channel();
        let (health_tx, health) = watch::channel(StoreHealth::Healthy);
        let writer = writer::Writer::new(
            conn,
            connect,
            admin::database_path(&options.url),
            health_tx,
            migrate,
        );
        tokio::spawn(writer.run(rx));
        Ok(Store {
            reader,
            writer: tx,
            health,
            next_table_id: Default::default(),
            inbox_wake: std::sync::Arc::new(watch::channel(0).0),
        })
    }

    /// Whether the store can write; changes as commits fail and recover.
    pub fn health(&self) -> watch::Receiver<StoreHealth> {
        self.health.clone()
    }

    /// Commits a [`Commit`] prepared earlier (off the caller's critical path).
    pub async fn commit_prepared(&self, commit: Commit) -> Result<(), StoreError> {
        let (reply, done) = oneshot::channel();
        self.writer
            .send(writer::Job::commit(commit, reply))
            .map_err(|_| StoreError::Closed)?;
        done.await.map_err(|_| StoreError::Closed)?
    }

    /// An id no table was given before: one past the largest stored when
    /// first asked, counted up from there.
    pub async fn next_table_id(&self) -> Result<TableId, StoreError> {
        use std::sync::atomic::Ordering::SeqCst;
        if self.next_table_id.load(SeqCst) == 0 {
            let first = self.max_table_id().await?.map_or(1, |t| t.0 + 1);
            // Two first callers read the same maximum; one of them sets it.
            let _ = self
                .next_table_id
                .compare_exchange(0, first, SeqCst, SeqCst);
        }
        Ok(TableId(self.next_table_id.fetch_add(1, SeqCst)))
    }

    /// Waits for the writer to finish what it was given and closes the
    /// database's connections.
    pub async fn close(self) {
        let Store { reader, writer, .. } = self;
        let (reply, done) = oneshot::channel();
        if writer.send(writer::Job::close(reply)).is_ok() {
            let _ = done.await;
        }
        reader.close().await;
    }
}
