//! What the table service needs from a store, as a trait the service owns:
//! the store implements it (today SQLite, `kozyr::store::Store`; a
//! second backend implements the same trait), so the service names no
//! database and the store depends on the table's types, not the reverse.
//!
//! The service holds an `Arc<dyn TableStore>`; each call returns a boxed
//! future, so the trait is object-safe without a generic parameter on
//! every type above it. One allocation per call is nothing beside a
//! durable commit.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::watch;

use super::{
    Announcement, ChatKey, Counters, Lang, Phase, Platform, Table, TableEvent, TableId, Timestamp,
    Transition, UserId,
};
use kozyr_game::GameKind;

/// The future a [`TableStore`] call returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StorageError>> + Send + 'a>>;

/// Why a store call failed, as the service needs to tell the cases apart:
/// a conflict or a known key means "read again and decide once more";
/// anything else is the backend's failure, kept with its own words.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("table {0} was changed by someone else (version conflict)")]
    Conflict(TableId),
    #[error("command `{0}` was already applied")]
    Duplicate(String),
    /// The store was closed: the process is stopping, and a write that
    /// comes this late (a record of what a message shows, finishing
    /// after the drain) is dropped, not failed.
    #[error("the store is closed")]
    Closed,
    #[error(transparent)]
    Failed(Box<dyn std::error::Error + Send + Sync>),
}

/// A command applied before, found by its de-duplication key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedCommand {
    pub table: Option<TableId>,
    /// The versions its events gave the table (empty range if none).
    pub first_version: u64,
    pub last_version: u64,
}

/// One person's counters for one game (in one chat, or summed over chats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerStats {
    pub user: UserId,
    /// The name they were last seen by.
    pub name: Option<String>,
    pub game: GameKind,
    pub counters: Counters,
}

/// Whether the store can write, for the health check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum StoreHealth {
    #[default]
    Healthy,
    /// The last transaction failed (a full disk, say): the database's words.
    /// Clears when a transaction commits again.
    CommitsFailing(String),
    /// The database's files were removed or replaced under the process;
    /// every commit is refused until a restart.
    FilesChanged(String),
}

impl StoreHealth {
    /// What is wrong, in a line, if anything.
    pub fn problem(&self) -> Option<String> {
        match self {
            StoreHealth::Healthy => None,
            StoreHealth::CommitsFailing(e) => Some(format!("commits fail: {e}")),
            StoreHealth::FilesChanged(why) => Some(format!("{why}; restart kozyr")),
        }
    }
}

/// An update waiting in the inbox: its place in line, the platform's id
/// of it, the update as the platform sent it, and when it was written
/// (the receiving process's wall clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboxEntry {
    pub seq: i64,
    pub key: String,
    pub body: String,
    pub received: Timestamp,
}

/// A (table, chat id, number) row: a message id, or a hash of what a
/// message shows.
pub type MessageRow = (TableId, String, i64);

/// A (table, chat id, hash) row where the hash may be unknown (`None`):
/// what a message shows, as a front-end records it while it changes.
pub type ShownRow = (TableId, String, Option<i64>);

/// A secret a platform gave (a Discord interaction token): kept and handed
/// on, never shown in logs or debug output.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// A person's newest token of their hand message at a table (Discord: an
/// ephemeral message edited only through the newest interaction token of
/// it, for 15 minutes), as the store keeps it across a kill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandTokenRow {
    pub table: TableId,
    pub user: UserId,
    pub token: Secret,
    /// When the platform gave it: it expires some time after.
    pub given_at: Timestamp,
    /// A hash of what the hand shows; `None`: not known (the next render
    /// is sent).
    pub shown: Option<i64>,
}

/// A change to the hand tokens a store keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandTokenChange {
    /// A new token arrived: it replaces the person's older one.
    Given(HandTokenRow),
    /// What the hand shows through `token` (`None`: about to change, so
    /// not known); nothing if a newer token replaced it.
    Shown {
        table: TableId,
        user: UserId,
        token: Secret,
        shown: Option<i64>,
    },
    /// The token was refused, or the hand is gone: `token` only if it is
    /// still the newest (`None`: whatever it is), every person's of the
    /// table when `user` is `None`.
    Forget {
        table: TableId,
        user: Option<UserId>,
        token: Option<Secret>,
    },
    /// Tokens of `platform` given before `before` (expired).
    Expired {
        platform: Platform,
        before: Timestamp,
    },
}

/// What front-ends record about their messages, so that whichever process
/// delivers next knows what is on screen and what is owed: which message
/// shows each table and what it shows, Discord's hand tokens, the
/// announcements still owed, the burying counts and each chat's recent
/// write times. A front-end reaches it through
/// `TableService::records`, which hands out nothing else of the store.
pub trait DeliveryRecords: Send + Sync {
    /// The messages recorded for the open tables of `platform`.
    fn open_message_refs(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>>;

    /// Records (or with `None` forgets) the message showing `table` in
    /// `chat`, and what it shows (`shown`: its hash, `None` unknown).
    fn save_message_ref<'a>(
        &'a self,
        platform: Platform,
        table: TableId,
        chat: &'a str,
        message: Option<i64>,
        shown: Option<i64>,
        now: Timestamp,
    ) -> StoreFuture<'a, ()>;

    /// The hashes of what the messages of `platform` show, as last recorded
    /// (rows whose content is not known are left out).
    fn shown_hashes(&self, platform: Platform) -> StoreFuture<'_, Vec<MessageRow>>;

    /// Records what recorded messages show, in one write: a hash, or `None`
    /// for "about to change, not known" (written before the call that
    /// changes it, so a kill between the call and the next record never
    /// leaves a hash the message does not show).
    fn mark_shown(
        &self,
        platform: Platform,
        rows: Vec<ShownRow>,
        now: Timestamp,
    ) -> StoreFuture<'_, ()>;

    /// The hand tokens of `platform`'s open tables given at or after `since`.
    fn hand_tokens(
        &self,
        platform: Platform,
        since: Timestamp,
    ) -> StoreFuture<'_, Vec<HandTokenRow>>;

    /// Records a change to the hand tokens.
    fn change_hand_token(&self, change: HandTokenChange, now: Timestamp) -> StoreFuture<'_, ()>;

    /// Replaces those hashes (`None`: forgets them).
    fn save_shown_hashes(
        &self,
        platform: Platform,
        rows: Option<Vec<MessageRow>>,
        now: Timestamp,
    ) -> StoreFuture<'_, ()>;

    /// The announcements chats of `platform` are still owed, oldest first.
    fn owed_outputs(
        &self,
        platform: Platform,
    ) -> StoreFuture<'_, Vec<(TableId, String, Announcement)>>;

    /// The chat of `table` got the owed `announcement`.
    fn owed_sent<'a>(
        &'a self,
        platform: Platform,
        table: TableId,
        announcement: &'a Announcement,
        now: Timestamp,
    ) -> StoreFuture<'a, ()>;

    /// Every chat's burying count of `platform`: the other people's
    /// messages below its live table message (Discord), kept so a replica
    /// that takes over goes on counting where the last one stopped.
    fn burials(&self, platform: Platform) -> StoreFuture<'_, Vec<(String, u32)>>;

    /// Sets each chat's count (`None`: the chat has no live table message
    /// any more, forgotten).
    fn save_burials<'a>(
        &'a self,
        platform: Platform,
        changes: &'a [(String, Option<u32>)],
    ) -> StoreFuture<'a, ()>;

    /// Forgets the chats of `platform` not written since `since_ms`; every
    /// other chat's latest write times (unix ms), oldest first, so that a
    /// restarted or promoted process counts a chat's rate window from the
    /// writes the platform counted, not from a guess.
    fn chat_writes(
        &self,
        platform: Platform,
        since_ms: i64,
    ) -> StoreFuture<'_, Vec<(String, Vec<i64>)>>;

    /// Sets `chat`'s latest write times (oldest first; empty: nothing).
    fn save_chat_writes<'a>(
        &'a self,
        platform: Platform,
        chat: &'a str,
        times: &'a [i64],
    ) -> StoreFuture<'a, ()>;
}

/// The inbox's rows: updates pushed to the bot (webhooks, a standby's
/// Discord shards), written by whichever process received them before it
/// acknowledges them, and handled by the serving one. Reached through
/// [`Inbox`], which holds nothing else of the store.
pub trait InboxRows: Send + Sync {
    /// Writes an update received for `platform` under its id `key`; true
    /// when it is new, false when a row with that key is still waiting (a
    /// redelivery). Resolves once the row is durable, and wakes whoever
    /// waits on [`InboxRows::inbox_wakeups`], in any process.
    fn inbox_put<'a>(
        &'a self,
        platform: Platform,
        key: &'a str,
        body: &'a str,
        now: Timestamp,
    ) -> StoreFuture<'a, bool>;

    /// Up to `limit` waiting updates of `platform` with `seq` past `after`,
    /// oldest first.
    fn inbox_after(
        &self,
        platform: Platform,
        after: i64,
        limit: u32,
    ) -> StoreFuture<'_, Vec<InboxEntry>>;

    /// The update at `seq` was handled: its row is deleted.
    fn inbox_done(&self, seq: i64) -> StoreFuture<'_, ()>;

    /// A counter that changes (soon) after any process put an update for
    /// `platform`; wake-ups may be spurious, or missed while the database
    /// cannot be reached, so a reader polls now and then as well.
    fn inbox_wakeups(&self, platform: Platform) -> StoreFuture<'_, watch::Receiver<u64>>;
}

/// The durable state of the table service: snapshots, the event log,
/// de-duplication keys, statistics; and, as traits of their own, what
/// front-ends recorded about their messages ([`DeliveryRecords`]) and the
/// inbox ([`InboxRows`]).
pub trait TableStore: DeliveryRecords + InboxRows + Send + Sync + 'static {
    /// Commits a transition; resolves once it is durable. A table whose
    /// stored version is not the one the transition started from fails the
    /// whole commit with [`StorageError::Conflict`], a known `dedup` key
    /// with [`StorageError::Duplicate`]; either way nothing was written.
    fn commit<'a>(
        &'a self,
        transition: &'a Transition,
        dedup: Option<&'a str>,
        now: Timestamp,
    ) -> StoreFuture<'a, ()>;

    /// The chat's open table, if it has one.
    fn open_table<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Table>>;

    /// A table by id, open or closed.
    fn table(&self, id: TableId) -> StoreFuture<'_, Option<Table>>;

    /// The chat a table lives in, and its phase.
    fn chat_of(&self, id: TableId) -> StoreFuture<'_, Option<(ChatKey, Phase)>>;

    /// The tables not closed.
    fn open_table_ids(&self) -> StoreFuture<'_, Vec<TableId>>;

    /// The largest table id given so far.
    fn max_table_id(&self) -> StoreFuture<'_, Option<TableId>>;

    /// An id no table was given before, for a table about to be opened.
    /// It comes from the store (a sequence on PostgreSQL), so processes
    /// sharing one database never mint the same id; an id taken by a
    /// command that is then refused is simply never used.
    fn next_table_id(&self) -> StoreFuture<'_, TableId>;

    /// The command applied under a de-duplication key, if one was.
    fn recorded<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<RecordedCommand>>;

    /// A table's events with versions `first..=last`.
    fn events_between(
        &self,
        table: TableId,
        first: u64,
        last: u64,
    ) -> StoreFuture<'_, Vec<(u64, TableEvent)>>;

    /// Forgets de-duplication keys older than `before`; how many.
    fn prune_commands(&self, before: Timestamp) -> StoreFuture<'_, u64>;

    /// The language the chat chose, if it chose one.
    fn chat_language<'a>(&'a self, chat: &'a ChatKey) -> StoreFuture<'a, Option<Lang>>;

    /// The chat's best players at `game`.
    fn leaderboard<'a>(
        &'a self,
        chat: &'a ChatKey,
        game: GameKind,
        limit: u32,
    ) -> StoreFuture<'a, Vec<PlayerStats>>;

    /// Whether the store can write; changes as commits fail and recover.
    fn health(&self) -> watch::Receiver<StoreHealth>;

    /// Finishes the writes under way and releases the database.
    fn close(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;

    /// The store as itself, for tests and tools that need the backend's
    /// own calls (`kozyr::store::ServiceStore`). Always declared, so that a
    /// backend implements the same trait whichever features are on; only
    /// the calls that hand out the store are for tests and tools.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A store as the service holds it: a backend's own, or one already
/// shared (what `store::open` returns).
pub trait IntoStorage {
    fn into_storage(self) -> std::sync::Arc<dyn TableStore>;
}

impl<S: TableStore> IntoStorage for S {
    fn into_storage(self) -> std::sync::Arc<dyn TableStore> {
        std::sync::Arc::new(self)
    }
}

impl IntoStorage for std::sync::Arc<dyn TableStore> {
    fn into_storage(self) -> std::sync::Arc<dyn TableStore> {
        self
    }
}

/// The inbox of one platform: updates a platform pushed to the bot,
/// durable before they are acknowledged, handled by the serving process.
///
/// Any process may [`Inbox::put`] (every replica takes a platform's
/// webhook POSTs, serving or standing by); only the serving one reads
/// ([`Inbox::after`], in `seq` order) and deletes a row once its update
/// was handled ([`Inbox::done`]). A process killed between handling an
/// update and deleting its row leaves it to the next serving one, which
/// handles it again: the table service's de-duplication (by the update's
/// own id) applies it once.
#[derive(Clone)]
pub struct Inbox {
    store: std::sync::Arc<dyn InboxRows>,
    platform: Platform,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox")
            .field("platform", &self.platform)
            .finish_non_exhaustive()
    }
}

impl Inbox {
    /// `platform`'s inbox in `store` (the table service's, or a store a
    /// standing-by replica opened for its intake alone).
    pub fn new(store: std::sync::Arc<dyn TableStore>, platform: Platform) -> Inbox {
        Inbox {
            store: store as std::sync::Arc<dyn InboxRows>,
            platform,
        }
    }

    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// Writes the update `body` with the platform's id `key`; resolves
    /// once it is durable (true: new, false: a redelivery still waiting).
    pub async fn put(&self, key: &str, body: &str) -> Result<bool, StorageError> {
        // The wall clock, as the service's `SystemClock` reads it (this
        // file is below the runtime, and a standby runs no service).
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.store
            .inbox_put(self.platform, key, body, Timestamp::from_millis(ms))
            .await
    }

    /// Up to `limit` waiting updates with `seq` past `after`, oldest first.
    pub async fn after(&self, after: i64, limit: u32) -> Result<Vec<InboxEntry>, StorageError> {
        self.store.inbox_after(self.platform, after, limit).await
    }

    /// The update at `seq` was handled (or will never be): forgotten.
    pub async fn done(&self, seq: i64) -> Result<(), StorageError> {
        self.store.inbox_done(seq).await
    }

    /// See [`TableStore::inbox_wakeups`].
    pub async fn wakeups(&self) -> Result<watch::Receiver<u64>, StorageError> {
        self.store.inbox_wakeups(self.platform).await
    }
}
