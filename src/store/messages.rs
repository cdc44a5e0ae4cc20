//! Which platform message shows a table in a chat (see the `message_refs`
//! migration): front-ends edit the same messages across restarts. What
//! each message shows (a content hash, NULL when it is about to change and
//! so not known) is recorded as it changes, and so are Discord's hand
//! tokens (the `hand_tokens` migration), so whichever process delivers
//! next knows what is on screen.

use super::{Store, StoreError};
use crate::table::storage::{HandTokenChange, HandTokenRow, Secret, ShownRow};
use crate::table::{Platform, TableId, Timestamp, UserId};

/// A `hand_tokens` row as read: (table, user, token, given at, hash).
pub(super) type TokenRecord = (i64, String, String, i64, Option<i64>);

/// The rows read, those whose user no longer parses left out.
pub(super) fn decode_tokens(rows: Vec<TokenRecord>) -> Vec<HandTokenRow> {
    rows.into_iter()
        .filter_map(|(table, user, token, given_at, shown)| {
            Some(HandTokenRow {
                table: TableId(table),
                user: UserId::new(user).ok()?,
                token: Secret(token),
                given_at: Timestamp::from_millis(given_at),
                shown,
            })
        })
        .collect()
}

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

    /// Records (`Some`) or forgets (`None`) the message showing `table` in
    /// `chat_id`, with what it shows (`shown`; `None`: not known).
    pub async fn save_message_ref(
        &self,
        platform: Platform,
        table: TableId,
        chat_id: &str,
        message_id: Option<i64>,
        shown: Option<i64>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(super::Commit::message_ref(
            platform, table, chat_id, message_id, shown, now,
        ))
        .await
    }

    /// What the messages of open tables show, as last recorded (those not
    /// known left out): (table, chat id, hash).
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

    /// Records what recorded messages show (`None`: not known), in one write.
    pub async fn mark_shown(
        &self,
        platform: Platform,
        rows: Vec<ShownRow>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        self.commit_prepared(super::Commit::mark_shown(platform, rows, now))
            .await
    }

    /// The hand tokens of `platform`'s open tables given at or after `since`.
    pub async fn hand_tokens(
        &self,
        platform: Platform,
        since: Timestamp,
    ) -> Result<Vec<HandTokenRow>, StoreError> {
        let rows: Vec<TokenRecord> = sqlx::query_as(
            "SELECT h.table_id, h.user_id, h.token, h.given_at, h.shown_hash FROM hand_tokens AS h
             JOIN tables AS t ON t.id = h.table_id
             WHERE h.platform = ? AND t.phase != 'closed' AND h.given_at >= ?",
        )
        .bind(platform.as_str())
        .bind(since.millis())
        .fetch_all(&self.reader)
        .await?;
        Ok(decode_tokens(rows))
    }

    /// Records a change to the hand tokens.
    pub async fn change_hand_token(
        &self,
        change: HandTokenChange,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(super::Commit::hand_token(change, now))
            .await
    }
}
