//! What a platform's output starts from after a restart (or when this
//! process takes over delivery from one that died), read once from the
//! service: which message shows each table, what it shows, and the hand
//! tokens that still edit people's hands.

use std::time::Duration;

use crate::delivery::news::News;
use crate::table::runtime::TableService;
use crate::table::storage::HandTokenRow;
use crate::table::{Announcement, Phase, Platform, TableId, TableView};

/// A platform's messages as the last run left them.
#[derive(Debug, Default)]
pub struct Restored {
    /// (table, chat, message id): the message that shows a table (or a
    /// person's hand) in a chat, edited again rather than posted anew.
    pub messages: Vec<(TableId, String, i64)>,
    /// (table, chat, content hash): what that message shows, as recorded
    /// while it changed ([`crate::delivery::content::Recorded`]: a hash is
    /// made unknown before each call that changes it, so one read here is
    /// true even after a kill). Messages not known are left out.
    pub shown: Vec<(TableId, String, i64)>,
    /// The hand tokens still fresh, each with its age at the read.
    pub tokens: Vec<(HandTokenRow, Duration)>,
}

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

impl Restored {
    /// The messages whose content is not known (a call on them was under
    /// way, or failed, when the last run ended): (table, chat, message).
    /// A kill while a table was posted anew leaves exactly such a row —
    /// the new message out, its id not yet recorded — so these are the
    /// tables to look for [`Orphans`] of.
    pub fn unsure(&self) -> Vec<(TableId, String, i64)> {
        let known: std::collections::HashSet<(TableId, &str)> = self
            .shown
            .iter()
            .map(|(t, c, _)| (*t, c.as_str()))
            .collect();
        self.messages
            .iter()
            .filter(|(t, c, _)| !known.contains(&(*t, c.as_str())))
            .cloned()
            .collect()
    }
}

/// What a start does about a table's messages that came after the
/// recorded one: a table posted anew whose new id a kill kept from the
/// store. Left alone, the new message sits at the bottom with live buttons
/// that nothing edits any more, while the recorded one above goes on.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Orphans {
    /// The newest of them: it shows the table from now on (recorded).
    pub adopt: Option<u64>,
    /// The recorded message, when it still has the table's buttons: they
    /// go, its text stays (as after any posting anew).
    pub strip: Option<u64>,
    /// Older posts anew than the adopted one: removed.
    pub delete: Vec<u64>,
}

/// The decision for one table: `recorded` is the message the store names,
/// `found` the platform's messages that carry the table's own buttons, from
/// the recorded one on. Message ids grow with time on the platforms this
/// serves (Discord's snowflakes).
pub fn orphans(recorded: u64, found: &[u64]) -> Orphans {
    let mut newer: Vec<u64> = found.iter().copied().filter(|id| *id > recorded).collect();
    newer.sort_unstable();
    let Some(adopt) = newer.pop() else {
        return Orphans::default();
    };
    Orphans {
        adopt: Some(adopt),
        strip: found.contains(&recorded).then_some(recorded),
        delete: newer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_anew_a_kill_kept_from_the_store_is_adopted_and_the_old_loses_its_buttons() {
        assert_eq!(
            orphans(10, &[10, 12]),
            Orphans {
                adopt: Some(12),
                strip: Some(10),
                delete: vec![]
            }
        );
        // Stripped already, and two posts anew: the newest stays.
        assert_eq!(
            orphans(10, &[14, 12]),
            Orphans {
                adopt: Some(14),
                strip: None,
                delete: vec![12]
            }
        );
    }

    #[test]
    fn nothing_newer_changes_nothing() {
        assert_eq!(orphans(10, &[10, 9]), Orphans::default());
        assert_eq!(orphans(10, &[]), Orphans::default());
    }

    #[test]
    fn only_messages_of_unknown_content_are_looked_after() {
        let t = |n| TableId(n);
        let r = Restored {
            messages: vec![(t(1), "c".into(), 10), (t(2), "c".into(), 20)],
            shown: vec![(t(1), "c".into(), 77)],
            tokens: vec![],
        };
        assert_eq!(r.unsure(), vec![(t(2), "c".to_owned(), 20)]);
    }
}
