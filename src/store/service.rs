//! The SQLite store as the table service's [`TableStore`]: each call is the
//! store's own method of the same name, its error told apart as the
//! service needs (a version conflict, a known key, or anything else).

use std::future::Future;
use std::pin::Pin;

use tokio::sync::watch;

use super::{Store, StoreError};
use crate::game::GameKind;
use crate::table::storage::{
    MessageRow, PlayerStats, Recorded, StorageError, StoreFuture, StoreHealth, TableStore,
};
use crate::table::{
    Announcement, ChatKey, Lang, Phase, Platform, Table, TableEvent, TableId, Timestamp, Transition,
};

impl From<StoreError> for StorageError {
    fn from(e: StoreError) -> StorageError {
        match e {
            StoreError::Conflict(table) => StorageError::Conflict(table),
            StoreError::Duplicate(key) => StorageError::Duplicate(key),
            other => StorageError::Failed(Box::new(other)),
        }
    }
}

/// `Store`'s result as the service's, boxed.
fn boxed<'a, T>(
    call: impl Future<Output = Result<T, StoreError>> + Send + 'a,
) -> StoreFuture<'a, T> {
    Box::pin(async move { Ok(call.await?) })
}

impl TableStore for Store {
    fn commit<'a>(
        &'a self,
        transition: &'a Transition,
        dedup: Option<&'a str>,
        now: Timestamp,
    ) -> StoreFuture<'a, ()> {
        boxed(Store::commit(self, transition, dedup, now))
    }

    fn open_table<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Table>> {
        boxed(Store::open_table(self, chat))
    }

    fn table(&self, id: TableId) -> StoreFuture<'_, Option<Table>> {
        boxed(Store::table(self, id))
    }

    fn chat_of(&self, id: TableId) -> StoreFuture<'_, Option<(ChatKey, Phase)>> {
        boxed(Store::chat_of(self, id))
    }

    fn open_table_ids(&self) -> StoreFuture<'_, Vec<TableId>> {
        boxed(Store::open_table_ids(self))
    }

    fn max_table_id(&self) -> StoreFuture<'_, Option<TableId>> {
        boxed(Store::max_table_id(self))
    }

    fn recorded<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Recorded>> {
        boxed(Store::recorded(self, key))
    }

    fn events_between(
        &self,
        table: TableId,
        first: u64,
        last: u64,
    ) -> StoreFuture<'_, Vec<(u64, TableEvent)>> {
        boxed(Store::events_between(self, table, first, last))
    }

    fn prune_commands(&self, before: Timestamp) -> StoreFuture<'_, u64> {
        boxed(Store::prune_commands(self, before))
    }

    fn chat_language<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Lang>> {
        boxed(Store::chat_language(self, chat))
    }

    fn leaderboard<'a>(
        &'a self,
        chat: &'a ChatKey,
        game: GameKind,
        limit: u32,
    ) -> StoreFuture<'a, Vec<PlayerStats>> {
        boxed(Store::leaderboard(self, chat, game, limit))
    }

    fn open_message_refs(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>> {
        boxed(Store::open_message_refs(self, platform))
    }

    fn save_message_ref<'a>(
        &'a self,
        platform: Platform,
        table: TableId,
        chat: &'a str,
        message: Option<i64>,
        now: Timestamp,
    ) -> StoreFuture<'a, ()> {
        boxed(Store::save_message_ref(
            self, platform, table, chat, message, now,
        ))
    }

    fn shown_hashes(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>> {
        boxed(Store::shown_hashes(self, platform))
    }

    fn save_shown_hashes(
        &self,
        platform: Platform,
        rows: Option<Vec<MessageRow>>,
        now: Timestamp,
    ) -> StoreFuture<'_, ()> {
        boxed(Store::save_shown_hashes(self, platform, rows, now))
    }

    fn owed_outputs(
        &self,
        platform: Platform,
    ) -> StoreFuture<'_, Vec<(TableId, String, Announcement)>> {
        boxed(Store::owed_outputs(self, platform))
    }

    fn owed_sent<'a>(
        &'a self,
        platform: Platform,
        table: TableId,
        announcement: &'a Announcement,
        now: Timestamp,
    ) -> StoreFuture<'a, ()> {
        boxed(Store::owed_sent(self, platform, table, announcement, now))
    }

    fn health(&self) -> watch::Receiver<StoreHealth> {
        Store::health(self)
    }

    fn close(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(Store::close(self.clone()))
    }

    #[cfg(any(test, feature = "dev-tools"))]
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The SQLite store behind a running service, for tests and tools that
/// read it directly (`service.store().events(id)`); front-ends read views
/// through the service instead, and the product has no such call.
#[cfg(any(test, feature = "dev-tools"))]
pub trait ServiceStore {
    /// The service's store. Panics when the service runs on another
    /// backend: a test's mistake, never a user's.
    fn store(&self) -> &Store;
}

#[cfg(any(test, feature = "dev-tools"))]
impl ServiceStore for crate::table::runtime::TableService {
    fn store(&self) -> &Store {
        match self.storage().as_any().downcast_ref::<Store>() {
            Some(store) => store,
            None => panic!("this service does not run on the SQLite store"),
        }
    }
}
