//! The tests' database on the backend `KOZYR_TEST_BACKEND` chooses, and
//! their own view of it: every world, helper and assertion that reads
//! what the bot wrote goes through here, so that one switch runs the
//! whole suite on SQLite or on PostgreSQL. The reads are the product's
//! backend-neutral ones (`store::open` as the service's `TableStore`,
//! `store::Opened` for exports); a test about SQLite itself asks for
//! [`sqlite_url`] and says so at its top.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use kozyr::store::{Backend, Store, StoreOptions};
use kozyr::table::records::DealRecord;
use kozyr::table::storage::{StorageError, TableStore};
use kozyr::table::{Table, TableEvent, TableId};

use super::postgres;

/// The backend the tests run the bot on: [`postgres::BACKEND_VAR`]
/// (unset, empty or `sqlite`: SQLite; `postgres`: the test PostgreSQL).
pub fn backend() -> Backend {
    match std::env::var(postgres::BACKEND_VAR).as_deref() {
        Err(_) | Ok("" | "sqlite") => Backend::Sqlite,
        Ok("postgres") => Backend::Postgres,
        Ok(other) => panic!(
            "{}={other}: expected sqlite or postgres",
            postgres::BACKEND_VAR
        ),
    }
}

/// Whether the tests run on PostgreSQL.
pub fn on_postgres() -> bool {
    backend() == Backend::Postgres
}

/// The URL of a SQLite file `kozyr.db` in `dir` (created on first open),
/// whatever the switch says: for the tests about SQLite itself.
pub fn sqlite_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("kozyr.db").display())
}

/// The database of the test whose folder is `dir`, on [`backend`]: a
/// SQLite file in it, or a fresh PostgreSQL database made on the first
/// call for that folder and named again by every later one (a world's
/// bot, its restarts, child processes and the test's reads must all meet
/// in one database).
pub fn url_for(dir: &Path) -> String {
    match backend() {
        Backend::Sqlite => sqlite_url(dir),
        Backend::Postgres => {
            static BY_FOLDER: Mutex<Option<HashMap<PathBuf, String>>> = Mutex::new(None);
            let mut known = BY_FOLDER.lock().unwrap_or_else(|e| e.into_inner());
            known
                .get_or_insert_with(HashMap::new)
                .entry(dir.to_owned())
                .or_insert_with(postgres::fresh_url)
                .clone()
        }
    }
}

/// A test's own connection to a bot's database, whichever backend: the
/// product's [`kozyr::store::open`], read through the `TableStore` the
/// service uses (and [`Log`] for whole logs).
#[derive(Clone)]
pub struct TestStore {
    store: Arc<dyn TableStore>,
}

impl TestStore {
    /// Opens (creating and migrating if needed) the database at `url`.
    pub async fn open(url: &str) -> TestStore {
        let store = kozyr::store::open(&StoreOptions::new(url))
            .await
            .unwrap_or_else(|e| panic!("open the test database: {e}"));
        TestStore { store }
    }

    /// The store, as a table service takes it.
    pub fn shared(&self) -> Arc<dyn TableStore> {
        self.store.clone()
    }

    pub async fn close(self) {
        self.store.close().await;
    }
}

impl std::ops::Deref for TestStore {
    type Target = dyn TableStore;

    fn deref(&self) -> &Self::Target {
        &*self.store
    }
}

/// The SQLite store behind `store`, if that is what it is.
pub fn sqlite_of(store: &dyn TableStore) -> Option<&Store> {
    store.as_any().downcast_ref::<Store>()
}

/// A table's whole log and its replay, from any `TableStore` (a
/// [`TestStore`], or a running service's `storage()`).
pub trait Log {
    /// The table's events, in order.
    fn events(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Vec<(u64, TableEvent)>, StorageError>> + Send;

    /// The table rebuilt from its log (`None`: no log); a log with a gap
    /// is an error.
    fn replay(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Option<Table>, StorageError>> + Send;

    /// The records of every deal finished at the table, in order (as
    /// `kozyr export` writes them).
    fn deal_records(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Vec<DealRecord>, StorageError>> + Send;
}

impl<S: TableStore + ?Sized> Log for S {
    fn events(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Vec<(u64, TableEvent)>, StorageError>> + Send {
        self.events_between(table, 1, u64::MAX)
    }

    fn replay(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Option<Table>, StorageError>> + Send {
        let log = self.events_between(table, 1, u64::MAX);
        async move {
            let log = log.await?;
            if log.is_empty() {
                return Ok(None);
            }
            if let Some((i, (v, _))) = log
                .iter()
                .enumerate()
                .find(|(i, (v, _))| *v != *i as u64 + 1)
            {
                return Err(StorageError::Failed(
                    format!("table {table}: event {} has version {v}", i + 1).into(),
                ));
            }
            Table::replay(log.iter().map(|(_, e)| e))
                .map(Some)
                .map_err(|e| StorageError::Failed(Box::new(e)))
        }
    }

    fn deal_records(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Vec<DealRecord>, StorageError>> + Send {
        let log = self.events_between(table, 1, u64::MAX);
        async move {
            let log: Vec<TableEvent> = log.await?.into_iter().map(|(_, e)| e).collect();
            kozyr::table::records::deal_records(&log).map_err(|e| StorageError::Failed(Box::new(e)))
        }
    }
}
