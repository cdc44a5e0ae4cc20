//! What a platform's output starts from after a restart, read once from
//! the service: which message shows each table, and what it showed.

use crate::table::runtime::TableService;
use crate::table::{Platform, TableId};

/// A platform's messages as the last run left them.
#[derive(Debug, Default)]
pub struct Restored {
    /// (table, chat, message id): the message that shows a table (or a
    /// person's hand) in a chat, edited again rather than posted anew.
    pub messages: Vec<(TableId, String, i64)>,
    /// (table, chat, content hash): what that message showed at the last
    /// graceful stop; read and cleared, so a kill never leaves one behind.
    pub shown: Vec<(TableId, String, i64)>,
}

/// Reads what `platform`'s messages are. A read that fails is logged and
/// taken as nothing known: the messages are then posted (or sent) anew,
/// which costs calls but loses nothing.
pub async fn restore(service: &TableService, platform: Platform) -> Restored {
    let messages = service.message_refs(platform).await.unwrap_or_else(|e| {
        tracing::error!(error = %e, ?platform, "cannot read message ids; messages will be posted anew");
        Vec::new()
    });
    let shown = service
        .take_shown_hashes(platform)
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, ?platform, "cannot read what the messages show");
            Vec::new()
        });
    Restored { messages, shown }
}
