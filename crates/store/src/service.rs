//! Both stores as the table service's [`TableStore`], by one
//! implementation written once for both (`service_store!`): a call is the [`Queries`] both backends share, or one
//! of the few each has its own way ([`BackendQueries`]), its future boxed
//! and its error told apart as the service needs (a version conflict, a
//! known key, or anything else).

use std::future::Future;
use std::pin::Pin;

use tokio::sync::watch;

use super::{OpenError, PgStore, Queries, Store, StoreError};
use kozyr_game::GameKind;
use kozyr_table::storage::{
    DeliveryRecords, HandTokenChange, HandTokenRow, InboxEntry, InboxRows, MessageRow, PlayerStats,
    RecordedCommand, ShownRow, StorageError, StoreFuture, StoreHealth, TableStore,
};
use kozyr_table::{
    Announcement, ChatKey, Lang, Phase, Platform, Table, TableEvent, TableId, Timestamp, Transition,
};

impl From<OpenError> for StorageError {
    fn from(e: OpenError) -> StorageError {
        match e {
            OpenError::Store(e) => e.into(),
            other => StorageError::Failed(Box::new(other)),
        }
    }
}

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

/// What each backend does its own way, beside the [`Queries`] they share:
/// minting table ids (a counter in the one process that writes a SQLite
/// file; a sequence on PostgreSQL), putting into the inbox and hearing of
/// it (in-process; `NOTIFY`), health and closing.
pub trait BackendQueries: Queries + Clone + Send + Sync + 'static {
    fn next_table_id(&self) -> impl Future<Output = Result<TableId, StoreError>> + Send;
    fn inbox_put(
        &self,
        platform: Platform,
        key: &str,
        body: &str,
        now: Timestamp,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    fn inbox_wakeups(
        &self,
        platform: Platform,
    ) -> impl Future<Output = Result<watch::Receiver<u64>, StoreError>> + Send;
    fn health(&self) -> watch::Receiver<StoreHealth>;
    fn close(self) -> impl Future<Output = ()> + Send;
}

macro_rules! backend_queries {
    ($store:ty) => {
        impl BackendQueries for $store {
            fn next_table_id(&self) -> impl Future<Output = Result<TableId, StoreError>> + Send {
                <$store>::next_table_id(self)
            }
            fn inbox_put(
                &self,
                platform: Platform,
                key: &str,
                body: &str,
                now: Timestamp,
            ) -> impl Future<Output = Result<bool, StoreError>> + Send {
                <$store>::inbox_put(self, platform, key, body, now)
            }
            fn inbox_wakeups(
                &self,
                platform: Platform,
            ) -> impl Future<Output = Result<watch::Receiver<u64>, StoreError>> + Send {
                <$store>::inbox_wakeups(self, platform)
            }
            fn health(&self) -> watch::Receiver<StoreHealth> {
                <$store>::health(self)
            }
            fn close(self) -> impl Future<Output = ()> + Send {
                <$store>::close(self)
            }
        }
    };
}

/// The service's store traits, implemented once for each backend: the
/// traits are the table service's and the backends this crate's, so the
/// implementation names each backend (`S`) rather than every
/// [`BackendQueries`] (which the orphan rule would refuse).
macro_rules! service_store {
    ($store:ty) => {
        const _: () = {
            type S = $store;

            /// The one implementation of the service's store, for either backend.
            impl DeliveryRecords for S {
                fn open_message_refs(
                    &self,
                    platform: Platform,
                ) -> StoreFuture<'_, Vec<MessageRow>> {
                    boxed(<S as Queries>::open_message_refs(self, platform))
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
                    boxed(<S as Queries>::save_message_ref(
                        self, platform, table, chat, message, shown, now,
                    ))
                }

                fn shown_hashes(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>> {
                    boxed(<S as Queries>::shown_hashes(self, platform))
                }

                fn save_shown_hashes(
                    &self,
                    platform: Platform,
                    rows: Option<Vec<MessageRow>>,
                    now: Timestamp,
                ) -> StoreFuture<'_, ()> {
                    boxed(<S as Queries>::save_shown_hashes(self, platform, rows, now))
                }

                fn mark_shown(
                    &self,
                    platform: Platform,
                    rows: Vec<ShownRow>,
                    now: Timestamp,
                ) -> StoreFuture<'_, ()> {
                    boxed(<S as Queries>::mark_shown(self, platform, rows, now))
                }

                fn hand_tokens(
                    &self,
                    platform: Platform,
                    since: Timestamp,
                ) -> StoreFuture<'_, Vec<HandTokenRow>> {
                    boxed(<S as Queries>::hand_tokens(self, platform, since))
                }

                fn change_hand_token(
                    &self,
                    change: HandTokenChange,
                    now: Timestamp,
                ) -> StoreFuture<'_, ()> {
                    boxed(<S as Queries>::change_hand_token(self, change, now))
                }

                fn owed_outputs(
                    &self,
                    platform: Platform,
                ) -> StoreFuture<'_, Vec<(TableId, String, Announcement)>> {
                    boxed(<S as Queries>::owed_outputs(self, platform))
                }

                fn owed_sent<'a>(
                    &'a self,
                    platform: Platform,
                    table: TableId,
                    announcement: &'a Announcement,
                    now: Timestamp,
                ) -> StoreFuture<'a, ()> {
                    boxed(<S as Queries>::owed_sent(
                        self,
                        platform,
                        table,
                        announcement,
                        now,
                    ))
                }

                fn burials(&self, platform: Platform) -> StoreFuture<'_, Vec<(String, u32)>> {
                    boxed(<S as Queries>::burials(self, platform))
                }

                fn save_burials<'a>(
                    &'a self,
                    platform: Platform,
                    changes: &'a [(String, Option<u32>)],
                ) -> StoreFuture<'a, ()> {
                    boxed(<S as Queries>::save_burials(self, platform, changes))
                }

                fn chat_writes(
                    &self,
                    platform: Platform,
                    since_ms: i64,
                ) -> StoreFuture<'_, Vec<(String, Vec<i64>)>> {
                    boxed(<S as Queries>::chat_writes(self, platform, since_ms))
                }

                fn save_chat_writes<'a>(
                    &'a self,
                    platform: Platform,
                    chat: &'a str,
                    times: &'a [i64],
                ) -> StoreFuture<'a, ()> {
                    boxed(<S as Queries>::save_chat_writes(
                        self, platform, chat, times,
                    ))
                }
            }

            impl InboxRows for S {
                fn inbox_put<'a>(
                    &'a self,
                    platform: Platform,
                    key: &'a str,
                    body: &'a str,
                    now: Timestamp,
                ) -> StoreFuture<'a, bool> {
                    boxed(<S as BackendQueries>::inbox_put(
                        self, platform, key, body, now,
                    ))
                }

                fn inbox_after(
                    &self,
                    platform: Platform,
                    after: i64,
                    limit: u32,
                ) -> StoreFuture<'_, Vec<InboxEntry>> {
                    boxed(<S as Queries>::inbox_after(self, platform, after, limit))
                }

                fn inbox_done(&self, seq: i64) -> StoreFuture<'_, ()> {
                    boxed(<S as Queries>::inbox_done(self, seq))
                }

                fn inbox_wakeups(
                    &self,
                    platform: Platform,
                ) -> StoreFuture<'_, watch::Receiver<u64>> {
                    boxed(<S as BackendQueries>::inbox_wakeups(self, platform))
                }
            }

            impl TableStore for S {
                fn commit<'a>(
                    &'a self,
                    transition: &'a Transition,
                    dedup: Option<&'a str>,
                    now: Timestamp,
                ) -> StoreFuture<'a, ()> {
                    boxed(<S as Queries>::commit(self, transition, dedup, now))
                }

                fn open_table<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Table>> {
                    boxed(<S as Queries>::open_table(self, chat))
                }

                fn table(&self, id: TableId) -> StoreFuture<'_, Option<Table>> {
                    boxed(<S as Queries>::table(self, id))
                }

                fn chat_of(&self, id: TableId) -> StoreFuture<'_, Option<(ChatKey, Phase)>> {
                    boxed(<S as Queries>::chat_of(self, id))
                }

                fn open_table_ids(&self) -> StoreFuture<'_, Vec<TableId>> {
                    boxed(<S as Queries>::open_table_ids(self))
                }

                fn max_table_id(&self) -> StoreFuture<'_, Option<TableId>> {
                    boxed(<S as Queries>::max_table_id(self))
                }

                fn next_table_id(&self) -> StoreFuture<'_, TableId> {
                    boxed(<S as BackendQueries>::next_table_id(self))
                }

                fn recorded<'a>(
                    &'a self,
                    key: &'a str,
                ) -> StoreFuture<'a, Option<RecordedCommand>> {
                    boxed(<S as Queries>::recorded(self, key))
                }

                fn events_between(
                    &self,
                    table: TableId,
                    first: u64,
                    last: u64,
                ) -> StoreFuture<'_, Vec<(u64, TableEvent)>> {
                    boxed(<S as Queries>::events_between(self, table, first, last))
                }

                fn prune_commands(&self, before: Timestamp) -> StoreFuture<'_, u64> {
                    boxed(<S as Queries>::prune_commands(self, before))
                }

                fn chat_language<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Lang>> {
                    boxed(<S as Queries>::chat_language(self, chat))
                }

                fn leaderboard<'a>(
                    &'a self,
                    chat: &'a ChatKey,
                    game: GameKind,
                    limit: u32,
                ) -> StoreFuture<'a, Vec<PlayerStats>> {
                    boxed(<S as Queries>::leaderboard(self, chat, game, limit))
                }

                fn health(&self) -> watch::Receiver<StoreHealth> {
                    <S as BackendQueries>::health(self)
                }

                fn close(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
                    Box::pin(<S as BackendQueries>::close(self.clone()))
                }

                fn as_any(&self) -> &dyn std::any::Any {
                    self
                }
            }
        };
    };
}

backend_queries!(Store);
backend_queries!(PgStore);
service_store!(Store);
service_store!(PgStore);

/// The SQLite store behind a running service, for tests and tools that
/// read it directly (`service.store().events(id)`); front-ends read views
/// through the service instead, and the product has no such call.
#[cfg(feature = "dev-tools")]
pub trait ServiceStore {
    /// The service's store. Panics when the service runs on another
    /// backend: a test's mistake, never a user's.
    fn store(&self) -> &Store;
}

#[cfg(feature = "dev-tools")]
impl ServiceStore for kozyr_table::runtime::TableService {
    fn store(&self) -> &Store {
        match self.storage().as_any().downcast_ref::<Store>() {
            Some(store) => store,
            None => panic!("this service does not run on the SQLite store"),
        }
    }
}
