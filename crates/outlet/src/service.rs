//! What a platform's output starts from, read once from the service at a
//! start (or a takeover): the messages and what they show
//! ([`Restored`]), and the announcements a stop left owed; and the
//! writes that keep them for the next start (what messages show, their
//! ids, chats' write times, burying counts). The reads and writes await;
//! what follows from them is delivery's.

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::lock;
use kozyr_delivery::burial::Burials;
use kozyr_delivery::news::News;
use kozyr_delivery::pacing::instant_of;
use kozyr_delivery::restore::Restored;
use kozyr_table::runtime::TableService;
use kozyr_table::storage::{HandTokenChange, HandTokenRow, StorageError};
use kozyr_table::{Announcement, Phase, Platform, TableId, TableView, Timestamp};

/// Holds in `news` the announcements owed to `platform`'s chats that a
/// stop (or a kill) left unsent: they wait for their table's next render,
/// which the service's start makes for every open table. Returns the
/// views of the closed tables among them, which no start renders: the
/// caller renders each once. A table the store does not have is told
/// nothing, and its rows are forgotten.
pub async fn take_owed(
    service: &TableService,
    platform: Platform,
    news: &mut News,
) -> Vec<TableView> {
    let rows = match service.records().owed_outputs(platform).await {
        Ok(rows) => rows,
        Err(e) => {
            tracing::error!(error = %e, ?platform, "cannot read the announcements owed to chats");
            return Vec::new();
        }
    };
    if rows.is_empty() {
        return Vec::new();
    }
    tracing::info!(
        owed = rows.len(),
        ?platform,
        "sending the announcements a stop left unsent"
    );
    let mut tables = Vec::new();
    for (table, _, announcement) in rows {
        if !tables.contains(&table) {
            tables.push(table);
        }
        news.hold(table, announcement);
    }
    let mut closed = Vec::new();
    for table in tables {
        match service.table_view(table).await {
            Ok(Some(view)) if view.phase == Phase::Closed => closed.push(view),
            Ok(Some(_)) => {}
            Ok(None) => {
                for a in news.take(table).announcements {
                    forget_owed(service, platform, table, &a).await;
                }
            }
            // They wait for the table's next render, or the next start.
            Err(e) => {
                tracing::warn!(error = %e, table = table.0, "cannot read a table owed announcements");
            }
        }
    }
    closed
}

/// The store forgets an owed announcement: it was sent (or never can be).
pub async fn forget_owed(
    service: &TableService,
    platform: Platform,
    table: TableId,
    announcement: &Announcement,
) -> bool {
    let sent = service
        .records()
        .owed_sent(platform, table, announcement, service.now())
        .await;
    if let Err(e) = &sent {
        tracing::warn!(error = %e, ?platform, "cannot record an announcement as sent");
    }
    sent.is_ok()
}

/// Reads what `platform`'s messages are, and with `token_life` its hand
/// tokens younger than that (older ones are forgotten). A read that fails
/// is logged and taken as nothing known: the messages are then posted (or
/// sent) anew, and hands wait for "My hand", which costs calls but loses
/// nothing.
pub async fn restore(
    service: &TableService,
    platform: Platform,
    token_life: Option<Duration>,
) -> Restored {
    let messages = service.records().open_message_refs(platform).await.unwrap_or_else(|e| {
        tracing::error!(error = %e, ?platform, "cannot read message ids; messages will be posted anew");
        Vec::new()
    });
    let shown = service
        .records()
        .shown_hashes(platform)
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, ?platform, "cannot read what the messages show");
            Vec::new()
        });
    let tokens = match token_life {
        None => Vec::new(),
        Some(life) => {
            let now = service.now();
            match hand_tokens(service, platform, life, now).await {
                Ok(rows) => rows
                    .into_iter()
                    .map(|row| {
                        let age = now.millis().saturating_sub(row.given_at.millis());
                        let age = Duration::from_millis(u64::try_from(age).unwrap_or(0));
                        (row, age)
                    })
                    .collect(),
                Err(e) => {
                    tracing::warn!(error = %e, ?platform, "cannot read the hand tokens; hands wait for \"My hand\"");
                    Vec::new()
                }
            }
        }
    };
    Restored {
        messages,
        shown,
        tokens,
    }
}

/// The hand tokens of `platform`'s open tables younger than `life` as of
/// `now`; older ones are forgotten first.
async fn hand_tokens(
    service: &TableService,
    platform: Platform,
    life: Duration,
    now: Timestamp,
) -> Result<Vec<HandTokenRow>, StorageError> {
    let life = i64::try_from(life.as_millis()).unwrap_or(i64::MAX);
    let since = now.plus_millis(life.saturating_neg());
    let expired = HandTokenChange::Expired {
        platform,
        before: since,
    };
    let records = service.records();
    records.change_hand_token(expired, now).await?;
    records.hand_tokens(platform, since).await
}

/// Records what the message showing `table` in `chat` shows (`None`: it
/// is about to change, not known); whether the write landed. Owned
/// arguments, so it can run as [`super::waited`]'s task.
pub async fn mark_shown(
    service: TableService,
    platform: Platform,
    (table, chat): (TableId, String),
    shown: Option<i64>,
) -> bool {
    let rows = vec![(table, chat, shown)];
    match service
        .records()
        .mark_shown(platform, rows, service.now())
        .await
    {
        Ok(()) => true,
        // At a stop, after the drain: the record stays on the safe side
        // (`delivery::content`).
        Err(StorageError::Closed) => false,
        Err(e) => {
            tracing::warn!(error = %e, ?platform, table = table.0, "cannot record what a message shows");
            false
        }
    }
}

/// Records what each message shows (table, chat, hash), for the next
/// start.
pub async fn save_shown(
    service: &TableService,
    platform: Platform,
    rows: Vec<(TableId, String, i64)>,
) {
    if rows.is_empty() {
        return;
    }
    if let Err(e) = service
        .records()
        .save_shown_hashes(platform, Some(rows), service.now())
        .await
    {
        tracing::warn!(error = %e, ?platform, "cannot record what the messages show");
    }
}

/// Keeps the id of the message showing `table` in `chat` (`None`: it has
/// none), with what it shows if known; whether the write landed.
pub async fn save_message_ref(
    service: &TableService,
    platform: Platform,
    (table, chat): (TableId, &str),
    message: Option<i64>,
    hash: Option<i64>,
) -> bool {
    let records = service.records();
    match records
        .save_message_ref(platform, table, chat, message, hash, service.now())
        .await
    {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, ?platform, table = table.0, "cannot keep a message id");
            false
        }
    }
}

/// Records a chat's latest write times (unix milliseconds), for the
/// window a restart or a takeover starts from; whether the write landed.
pub async fn save_writes(
    service: TableService,
    platform: Platform,
    chat: String,
    times: Vec<i64>,
) -> bool {
    match service
        .records()
        .save_chat_writes(platform, &chat, &times)
        .await
    {
        Ok(()) => true,
        Err(StorageError::Closed) => false,
        Err(e) => {
            tracing::warn!(error = %e, ?platform, chat, "cannot record a chat's write times");
            false
        }
    }
}

/// Every chat's write times recorded within the last `window` (by this
/// process before a restart, or by the replica that served before a
/// takeover), as `Instant`s of this process given that `now` is the
/// service's `unix_now` (milliseconds).
pub async fn chat_writes(
    service: &TableService,
    platform: Platform,
    window: Duration,
    (now, unix_now): (Instant, i64),
) -> Vec<(String, Vec<Instant>)> {
    let since = unix_now.saturating_sub(i64::try_from(window.as_millis()).unwrap_or(i64::MAX));
    let rows = match service.records().chat_writes(platform, since).await {
        Ok(rows) => rows,
        Err(e) => {
            tracing::warn!(error = %e, ?platform, "cannot read the chats' write times: their windows are guessed");
            return Vec::new();
        }
    };
    rows.into_iter()
        .map(|(chat, times)| {
            let times = times.into_iter().filter(|ms| *ms >= since);
            (
                chat,
                times.map(|ms| instant_of(ms, now, unix_now)).collect(),
            )
        })
        .collect()
}

/// Loads `platform`'s burying counts saved by the process that served
/// before into `burials`.
pub async fn restore_burials(
    service: &TableService,
    platform: Platform,
    burials: &Mutex<Burials<u64>>,
) {
    match service.records().burials(platform).await {
        Ok(counts) => lock(burials).restore(
            counts
                .into_iter()
                .filter_map(|(chat, n)| Some((chat.parse().ok()?, n))),
        ),
        Err(e) => {
            tracing::warn!(error = %e, ?platform, "cannot read the burying counts: they start at 0")
        }
    }
}

/// How often changed burying counts are saved: a takeover loses at most
/// this much of the chat's count.
const SAVE_BURIALS_EVERY: Duration = Duration::from_secs(1);

/// Saves the burying counts that changed, every second
/// and once more when stopped.
pub async fn save_burials(
    service: TableService,
    platform: Platform,
    burials: Arc<Mutex<Burials<u64>>>,
    mut stop: watch::Receiver<bool>,
) {
    let mut every = tokio::time::interval(SAVE_BURIALS_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let stopping = tokio::select! {
            _ = every.tick() => false,
            _ = stop.changed() => true,
        };
        let changes = lock(&burials).take_changes();
        if !changes.is_empty() {
            let rows: Vec<(String, Option<u32>)> =
                changes.iter().map(|(c, n)| (c.to_string(), *n)).collect();
            if let Err(e) = service.records().save_burials(platform, &rows).await {
                tracing::warn!(error = %e, ?platform, "cannot save the burying counts: trying again");
                lock(&burials).unsaved(changes);
            }
        }
        if stopping {
            return;
        }
    }
}

/// At most this many tables are looked after at a start (one call each):
/// a kill leaves a handful; many more means something else.
pub const MAX_LOOKED_AFTER: usize = 50;

/// Finds the table messages a kill kept from the store, through `look`
/// (table, its chat as the rows name it, the recorded message if any →
/// the message that shows it from now on, if one was found). Looked
/// after: a table whose recorded message's content is unknown (posted
/// anew just before a kill: its new message shows it now), and an open
/// table with no row at all (its first post went, its id was never
/// written). Each one found is kept in the store, its content unknown, so
/// the first render edits it; returned as (table, chat, message).
pub async fn find_lost_posts<F, Fut>(
    service: &TableService,
    platform: Platform,
    restored: &Restored,
    mut look: F,
) -> Vec<(TableId, String, u64)>
where
    F: FnMut(TableId, String, Option<u64>) -> Fut,
    Fut: Future<Output = Option<u64>>,
{
    let mut found = Vec::new();
    let unsure = restored.unsure();
    if unsure.len() > MAX_LOOKED_AFTER {
        tracing::warn!(
            tables = unsure.len(),
            looked_after = MAX_LOOKED_AFTER,
            ?platform,
            "many table messages of unknown content at the start: only some are checked for later posts"
        );
    }
    for (table, chat, message) in unsure.into_iter().take(MAX_LOOKED_AFTER) {
        let Some(recorded) = u64::try_from(message).ok().filter(|m| *m != 0) else {
            continue;
        };
        if let Some(m) = look(table, chat.clone(), Some(recorded)).await {
            found.push((table, chat, m));
        }
    }
    let mut known: HashSet<TableId> = restored.messages.iter().map(|(t, _, _)| *t).collect();
    let open = service.open_table_ids().await.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "cannot read the open tables");
        Vec::new()
    });
    let mut looked = 0;
    for table in open {
        if !known.insert(table) {
            continue;
        }
        let Ok(Some(view)) = service.table_view(table).await else {
            continue;
        };
        if view.chat.platform() != platform {
            continue;
        }
        if looked == MAX_LOOKED_AFTER {
            tracing::warn!(
                looked_after = MAX_LOOKED_AFTER,
                ?platform,
                "many open tables without a message at the start: only some are looked for"
            );
            break;
        }
        looked += 1;
        let chat = view.chat.to_string();
        if let Some(m) = look(table, chat.clone(), None).await {
            found.push((table, chat, m));
        }
    }
    for (table, chat, message) in &found {
        let message = i64::try_from(*message).ok();
        save_message_ref(service, platform, (*table, chat), message, None).await;
    }
    found
}
