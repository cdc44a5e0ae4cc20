//! Which platform message shows a table in a chat (see the `message_refs`
//! migration): front-ends edit the same messages across restarts.

use super::{Store, StoreError};
use crate::table::{Platform, TableId, Timestamp};

impl Store {
    /// The messages recorded for the open tables: (table, chat id, message id).
    pub async fn open_message_refs(
        &self,
        platform: Platform,
    ) -> Result<Vec<(TableId, String, i64)>, StoreError> {
        let rows: Vec<(i64, String, i64)> = sqlx::query_as(
            "SELECT m.table_id, m.chat_id, m.message_id FROM message_refs AS m
             JOIN tables AS t ON t.id = m.table_id
             WHERE m.platform = ? AND t.phase != 'closed'",
        )
        .bind(platform.as_str())
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(t, c, m)| (TableId(t), c, m))
            .collect())
    }

    /// The message showing `table` in `chat_id`, if one was recorded.
    pub async fn message_ref(
        &self,
        platform: Platform,
        table: TableId,
        chat_id: &str,
    ) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT message_id FROM message_refs
             WHERE platform = ? AND table_id = ? AND chat_id = ?",
        )
        .bind(platform.as_str())
        .bind(table.0)
        .bind(chat_id)
        .fetch_optional(&self.reader)
        .await?)
    }

    /// Records (`Some`) or forgets (`None`) the message showing `table` in `chat_id`.
    pub async fn save_message_ref(
        &self,
        platform: Platform,
        table: TableId,
        chat_id: &str,
        message_id: Option<i64>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(super::Commit::message_ref(
            platform, table, chat_id, message_id, now,
        ))
        .await
    }

    /// What the messages of open tables show, as recorded when the
    /// front-end last stopped: (table, chat id, hash).
    pub async fn shown_hashes(
        &self,
        platform: Platform,
    ) -> Result<Vec<(TableId, String, i64)>, StoreError> {
        let rows: Vec<(i64, String, i64)> = sqlx::query_as(
            "SELECT m.table_id, m.chat_id, m.shown_hash FROM message_refs AS m
             JOIN tables AS t ON t.id = m.table_id
             WHERE m.platform = ? AND t.phase != 'closed' AND m.shown_hash IS NOT NULL",
        )
        .bind(platform.as_str())
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(t, c, h)| (TableId(t), c, h))
            .collect())
    }

    /// Records what messages show (`Some`), or forgets every hash (`None`).
    pub async fn save_shown_hashes(
        &self,
        platform: Platform,
        rows: Option<Vec<(TableId, String, i64)>>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(super::Commit::shown_hashes(platform, rows, now))
            .await
    }
}
