//! What a platform's output starts from, read once from the service at a
//! start (or a takeover): the messages and what they show
//! ([`Restored`]), and the announcements a stop left owed. The reads
//! await; what follows from them is delivery's.

use std::time::Duration;

use crate::delivery::news::News;
use crate::delivery::restore::Restored;
use crate::table::runtime::TableService;
use crate::table::{Announcement, Phase, Platform, TableId, TableView};

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
    let rows = match service.owed_outputs(platform).await {
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
) {
    if let Err(e) = service.owed_sent(platform, table, announcement).await {
        tracing::warn!(error = %e, ?platform, "cannot record an announcement as sent");
    }
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
    let messages = service.message_refs(platform).await.unwrap_or_else(|e| {
        tracing::error!(error = %e, ?platform, "cannot read message ids; messages will be posted anew");
        Vec::new()
    });
    let shown = service.shown_hashes(platform).await.unwrap_or_else(|e| {
        tracing::warn!(error = %e, ?platform, "cannot read what the messages show");
        Vec::new()
    });
    let tokens = match token_life {
        None => Vec::new(),
        Some(life) => {
            let now = service.now();
            match service.hand_tokens(platform, life).await {
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
