//! Announcements a chat is still owed (see the `owed_outputs` migration):
//! written with the command that produced them, deleted once a front-end
//! sent them, read at a start to send what a kill left unsent.

use super::{Commit, Store, StoreError};
use crate::table::{Announcement, Platform, TableId, Timestamp};

impl Store {
    /// What the chats of `platform` are owed, oldest first: (table, chat
    /// id, announcement). A row that no longer reads as an announcement
    /// is left out (and logged).
    pub async fn owed_outputs(
        &self,
        platform: Platform,
    ) -> Result<Vec<(TableId, String, Announcement)>, StoreError> {
        let rows: Vec<(i64, i64, String, String)> = sqlx::query_as(
            "SELECT id, table_id, chat_id, announcement FROM owed_outputs
             WHERE platform = ? ORDER BY id",
        )
        .bind(platform.as_str())
        .fetch_all(&self.reader)
        .await?;
        Ok(decode_owed(rows))
    }

    /// The chat of `table` got `announcement`: one row of it is forgotten.
    pub async fn owed_sent(
        &self,
        platform: Platform,
        table: TableId,
        announcement: &Announcement,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(Commit::owed_sent(platform, table, announcement, now)?)
            .await
    }
}

/// Rows of `owed_outputs` (id, table, chat id, JSON) as announcements; a
/// row that no longer reads as one is left out (and logged).
pub(super) fn decode_owed(
    rows: Vec<(i64, i64, String, String)>,
) -> Vec<(TableId, String, Announcement)> {
    rows.into_iter()
        .filter_map(
            |(id, table, chat, json)| match serde_json::from_str::<Announcement>(&json) {
                Ok(a) => Some((TableId(table), chat, a)),
                Err(e) => {
                    tracing::warn!(id, error = %e, "an owed announcement does not read");
                    None
                }
            },
        )
        .collect()
}
