//! What a platform's output starts from after a restart (or when this
//! process takes over delivery from one that died), read once from the
//! service: which message shows each table, what it shows, and the hand
//! tokens that still edit people's hands.

use std::time::Duration;

use crate::table::runtime::TableService;
use crate::table::storage::HandTokenRow;
use crate::table::{Platform, TableId};

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
