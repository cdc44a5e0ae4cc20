//! Both stores as the table service's [`TableStore`]: each call is the
//! store's own method of the same name (SQLite's [`Store`], PostgreSQL's
//! [`PgStore`] have the same ones), its error told apart as the service
//! needs (a version conflict, a known key, or anything else).

use std::future::Future;
use std::pin::Pin;

use tokio::sync::watch;

use super::{PgStore, Queries, Store, StoreError};
use crate::game::GameKind;
use crate::table::storage::{
    HandTokenChange, HandTokenRow, InboxEntry, MessageRow, PlayerStats, Recorded, ShownRow,
    StorageError, StoreFuture, StoreHealth, TableStore,
};
use crate::table::{
    Announcement, ChatKey, Lang, Phase, Platform, Table, TableEvent, TableId, Timestamp, Transition,
};

impl From<StoreError> for StorageError {
    fn from(e: StoreError) -> StorageError {
        match e {
            StoreError::Conflict(table) => StorageError::Conflict(table),
            StoreError::Duplicate(key) => StorageError::Duplicate(key),
            StoreError::Closed => StorageError::Closed,
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

/// The one implementation, for each backend's inherent methods.
macro_rules! table_store {
    ($store:ty) => {
        impl TableStore for $store {
            fn commit<'a>(
                &'a self,
                transition: &'a Transition,
                dedup: Option<&'a str>,
                now: Timestamp,
            ) -> StoreFuture<'a, ()> {
                boxed(<$store as Queries>::commit(self, transition, dedup, now))
            }

            fn open_table<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Table>> {
                boxed(<$store as Queries>::open_table(self, chat))
            }

            fn table(&self, id: TableId) -> StoreFuture<'_, Option<Table>> {
                boxed(<$store as Queries>::table(self, id))
            }

            fn chat_of(&self, id: TableId) -> StoreFuture<'_, Option<(ChatKey, Phase)>> {
                boxed(<$store as Queries>::chat_of(self, id))
            }

            fn open_table_ids(&self) -> StoreFuture<'_, Vec<TableId>> {
                boxed(<$store as Queries>::open_table_ids(self))
            }

            fn max_table_id(&self) -> StoreFuture<'_, Option<TableId>> {
                boxed(<$store as Queries>::max_table_id(self))
            }

            fn next_table_id(&self) -> StoreFuture<'_, TableId> {
                boxed(<$store>::next_table_id(self))
            }

            fn recorded<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Recorded>> {
                boxed(<$store as Queries>::recorded(self, key))
            }

            fn events_between(
                &self,
                table: TableId,
                first: u64,
                last: u64,
            ) -> StoreFuture<'_, Vec<(u64, TableEvent)>> {
                boxed(<$store as Queries>::events_between(
                    self, table, first, last,
                ))
            }

            fn prune_commands(&self, before: Timestamp) -> StoreFuture<'_, u64> {
                boxed(<$store as Queries>::prune_commands(self, before))
            }

            fn chat_language<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Lang>> {
                boxed(<$store as Queries>::chat_language(self, chat))
            }

            fn leaderboard<'a>(
                &'a self,
                chat: &'a ChatKey,
                game: GameKind,
                limit: u32,
            ) -> StoreFuture<'a, Vec<PlayerStats>> {
                boxed(<$store as Queries>::leaderboard(self, chat, game, limit))
            }

            fn open_message_refs(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>> {
                boxed(<$store as Queries>::open_message_refs(self, platform))
            }

            fn save_message_ref<'a>(
                &'a self,
                platform: Platform,
                table: TableId,
                chat: &'a str,
                message: Option<i64>,
                shown: Option<i64>,
                now: Timestamp,
            ) -> StoreFuture<'a, ()> {
                boxed(<$store as Queries>::save_message_ref(
                    self, platform, table, chat, message, shown, now,
                ))
            }

            fn shown_hashes(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>> {
                boxed(<$store as Queries>::shown_hashes(self, platform))
            }

            fn save_shown_hashes(
                &self,
                platform: Platform,
                rows: Option<Vec<MessageRow>>,
                now: Timestamp,
            ) -> StoreFuture<'_, ()> {
                boxed(<$store as Queries>::save_shown_hashes(
                    self, platform, rows, now,
                ))
            }

            fn mark_shown(
                &self,
                platform: Platform,
                rows: Vec<ShownRow>,
                now: Timestamp,
            ) -> StoreFuture<'_, ()> {
                boxed(<$store as Queries>::mark_shown(self, platform, rows, now))
            }

            fn hand_tokens(
                &self,
                platform: Platform,
                since: Timestamp,
            ) -> StoreFuture<'_, Vec<HandTokenRow>> {
                boxed(<$store as Queries>::hand_tokens(self, platform, since))
            }

            fn change_hand_token(
                &self,
                change: HandTokenChange,
                now: Timestamp,
            ) -> StoreFuture<'_, ()> {
                boxed(<$store as Queries>::change_hand_token(self, change, now))
            }

            fn owed_outputs(
                &self,
                platform: Platform,
            ) -> StoreFuture<'_, Vec<(TableId, String, Announcement)>> {
                boxed(<$store as Queries>::owed_outputs(self, platform))
            }

            fn owed_sent<'a>(
                &'a self,
                platform: Platform,
                table: TableId,
                announcement: &'a Announcement,
                now: Timestamp,
            ) -> StoreFuture<'a, ()> {
                boxed(<$store as Queries>::owed_sent(
                    self,
                    platform,
                    table,
                    announcement,
                    now,
                ))
            }

            fn inbox_put<'a>(
                &'a self,
                platform: Platform,
                key: &'a str,
                body: &'a str,
                now: Timestamp,
            ) -> StoreFuture<'a, bool> {
                boxed(<$store>::inbox_put(self, platform, key, body, now))
            }

            fn inbox_after(
                &self,
                platform: Platform,
                after: i64,
                limit: u32,
            ) -> StoreFuture<'_, Vec<InboxEntry>> {
                boxed(<$store as Queries>::inbox_after(
                    self, platform, after, limit,
                ))
            }

            fn inbox_done(&self, seq: i64) -> StoreFuture<'_, ()> {
                boxed(<$store as Queries>::inbox_done(self, seq))
            }

            fn inbox_wakeups(&self, platform: Platform) -> StoreFuture<'_, watch::Receiver<u64>> {
                boxed(<$store>::inbox_wakeups(self, platform))
            }

            fn burials(&self, platform: Platform) -> StoreFuture<'_, Vec<(String, u32)>> {
                boxed(<$store as Queries>::burials(self, platform))
            }

            fn save_burials<'a>(
                &'a self,
                platform: Platform,
                changes: &'a [(String, Option<u32>)],
            ) -> StoreFuture<'a, ()> {
                boxed(<$store as Queries>::save_burials(self, platform, changes))
            }

            fn chat_writes(
                &self,
                platform: Platform,
                since_ms: i64,
            ) -> StoreFuture<'_, Vec<(String, Vec<i64>)>> {
                boxed(<$store as Queries>::chat_writes(self, platform, since_ms))
            }

            fn save_chat_writes<'a>(
                &'a self,
                platform: Platform,
                chat: &'a str,
                times: &'a [i64],
            ) -> StoreFuture<'a, ()> {
                boxed(<$store as Queries>::save_chat_writes(
                    self, platform, chat, times,
                ))
            }

            fn health(&self) -> watch::Receiver<StoreHealth> {
                <$store>::health(self)
            }

            fn close(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
                Box::pin(<$store>::close(self.clone()))
            }

            #[cfg(any(test, feature = "dev-tools"))]
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }
    };
}

table_store!(Store);
table_store!(PgStore);

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

/// The store [`super::open`] chose, as the service's: every call goes to it.
impl TableStore for std::sync::Arc<dyn TableStore> {
    fn commit<'a>(
        &'a self,
        transition: &'a Transition,
        dedup: Option<&'a str>,
        now: Timestamp,
    ) -> StoreFuture<'a, ()> {
        (**self).commit(transition, dedup, now)
    }

    fn open_table<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Table>> {
        (**self).open_table(chat)
    }

    fn table(&self, id: TableId) -> StoreFuture<'_, Option<Table>> {
        (**self).table(id)
    }

    fn chat_of(&self, id: TableId) -> StoreFuture<'_, Option<(ChatKey, Phase)>> {
        (**self).chat_of(id)
    }

    fn open_table_ids(&self) -> StoreFuture<'_, Vec<TableId>> {
        (**self).open_table_ids()
    }

    fn max_table_id(&self) -> StoreFuture<'_, Option<TableId>> {
        (**self).max_table_id()
    }

    fn next_table_id(&self) -> StoreFuture<'_, TableId> {
        (**self).next_table_id()
    }

    fn recorded<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Recorded>> {
        (**self).recorded(key)
    }

    fn events_between(
        &self,
        table: TableId,
        first: u64,
        last: u64,
    ) -> StoreFuture<'_, Vec<(u64, TableEvent)>> {
        (**self).events_between(table, first, last)
    }

    fn prune_commands(&self, before: Timestamp) -> StoreFuture<'_, u64> {
        (**self).prune_commands(before)
    }

    fn chat_language<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Lang>> {
        (**self).chat_language(chat)
    }

    fn leaderboard<'a>(
        &'a self,
        chat: &'a ChatKey,
        game: GameKind,
        limit: u32,
    ) -> StoreFuture<'a, Vec<PlayerStats>> {
        (**self).leaderboard(chat, game, limit)
    }

    fn open_message_refs(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>> {
        (**self).open_message_refs(platform)
    }

    fn save_message_ref<'a>(
        &'a self,
        platform: Platform,
        table: TableId,
        chat: &'a str,
        message: Option<i64>,
        shown: Option<i64>,
        now: Timestamp,
    ) -> StoreFuture<'a, ()> {
        (**self).save_message_ref(platform, table, chat, message, shown, now)
    }

    fn shown_hashes(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>> {
        (**self).shown_hashes(platform)
    }

    fn save_shown_hashes(
        &self,
        platform: Platform,
        rows: Option<Vec<MessageRow>>,
        now: Timestamp,
    ) -> StoreFuture<'_, ()> {
        (**self).save_shown_hashes(platform, rows, now)
    }

    fn mark_shown(
        &self,
        platform: Platform,
        rows: Vec<ShownRow>,
        now: Timestamp,
    ) -> StoreFuture<'_, ()> {
        (**self).mark_shown(platform, rows, now)
    }

    fn hand_tokens(
        &self,
        platform: Platform,
        since: Timestamp,
    ) -> StoreFuture<'_, Vec<HandTokenRow>> {
        (**self).hand_tokens(platform, since)
    }

    fn change_hand_token(&self, change: HandTokenChange, now: Timestamp) -> StoreFuture<'_, ()> {
        (**self).change_hand_token(change, now)
    }

    fn owed_outputs(
        &self,
        platform: Platform,
    ) -> StoreFuture<'_, Vec<(TableId, String, Announcement)>> {
        (**self).owed_outputs(platform)
    }

    fn owed_sent<'a>(
        &'a self,
        platform: Platform,
        table: TableId,
        announcement: &'a Announcement,
        now: Timestamp,
    ) -> StoreFuture<'a, ()> {
        (**self).owed_sent(platform, table, announcement, now)
    }

    fn inbox_put<'a>(
        &'a self,
        platform: Platform,
        key: &'a str,
        body: &'a str,
        now: Timestamp,
    ) -> StoreFuture<'a, bool> {
        (**self).inbox_put(platform, key, body, now)
    }

    fn inbox_after(
        &self,
        platform: Platform,
        after: i64,
        limit: u32,
    ) -> StoreFuture<'_, Vec<InboxEntry>> {
        (**self).inbox_after(platform, after, limit)
    }

    fn inbox_done(&self, seq: i64) -> StoreFuture<'_, ()> {
        (**self).inbox_done(seq)
    }

    fn inbox_wakeups(&self, platform: Platform) -> StoreFuture<'_, watch::Receiver<u64>> {
        (**self).inbox_wakeups(platform)
    }

    fn burials(&self, platform: Platform) -> StoreFuture<'_, Vec<(String, u32)>> {
        (**self).burials(platform)
    }

    fn save_burials<'a>(
        &'a self,
        platform: Platform,
        changes: &'a [(String, Option<u32>)],
    ) -> StoreFuture<'a, ()> {
        (**self).save_burials(platform, changes)
    }

    fn chat_writes(
        &self,
        platform: Platform,
        since_ms: i64,
    ) -> StoreFuture<'_, Vec<(String, Vec<i64>)>> {
        (**self).chat_writes(platform, since_ms)
    }

    fn save_chat_writes<'a>(
        &'a self,
        platform: Platform,
        chat: &'a str,
        times: &'a [i64],
    ) -> StoreFuture<'a, ()> {
        (**self).save_chat_writes(platform, chat, times)
    }

    fn health(&self) -> watch::Receiver<StoreHealth> {
        (**self).health()
    }

    fn close(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        (**self).close()
    }

    #[cfg(any(test, feature = "dev-tools"))]
    fn as_any(&self) -> &dyn std::any::Any {
        (**self).as_any()
    }
}
