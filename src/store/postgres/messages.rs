//! What a front-end records about its messages on PostgreSQL, as the
//! SQLite store does in `store::messages`: what each message shows as it
//! changes, and Discord's hand tokens.

use super::PgStore;
use crate::store::StoreError;
use crate::store::messages::{TokenRecord, decode_tokens};
use crate::store::writer::Commit;
use crate::table::storage::{HandTokenChange, HandTokenRow, ShownRow};
use crate::table::{Platform, Timestamp};

impl PgStore {
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
        self.commit_prepared(Commit::mark_shown(platform, rows, now))
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
             WHERE h.platform = $1 AND t.phase <> 'closed' AND h.given_at >= $2",
        )
        .bind(platform.as_str())
        .bind(since.millis())
        .fetch_all(&self.pool)
        .await?;
        Ok(decode_tokens(rows))
    }

    /// Records a change to the hand tokens.
    pub async fn change_hand_token(
        &self,
        change: HandTokenChange,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(Commit::hand_token(change, now)).await
    }
}
