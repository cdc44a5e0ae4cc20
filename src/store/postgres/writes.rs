//! When the bot last wrote to each chat, on PostgreSQL (see the `chat_writes`
//! migration and [`crate::table::storage::TableStore::chat_writes`]).
//! One statement per save: at most a group's 20 writes a minute each.

use super::PgStore;
use crate::store::{StoreError, writes};
use crate::table::Platform;

impl PgStore {
    /// Deletes the rows of `platform` whose newest write is before
    /// `since_ms`, then returns every other chat's write times.
    pub async fn chat_writes(
        &self,
        platform: Platform,
        since_ms: i64,
    ) -> Result<Vec<(String, Vec<i64>)>, StoreError> {
        sqlx::query(writes::FORGET_OLD)
            .bind(platform.as_str())
            .bind(since_ms)
            .execute(&self.pool)
            .await?;
        let rows: Vec<(String, String)> = sqlx::query_as(writes::SELECT)
            .bind(platform.as_str())
            .fetch_all(&self.pool)
            .await?;
        Ok(crate::store::writes_decoded(rows))
    }

    /// Sets `chat`'s latest write times (oldest first).
    pub async fn save_chat_writes(
        &self,
        platform: Platform,
        chat: &str,
        times: &[i64],
    ) -> Result<(), StoreError> {
        let Some(&last) = times.last() else {
            return Ok(());
        };
        sqlx::query(writes::UPSERT)
            .bind(platform.as_str())
            .bind(chat)
            .bind(last)
            .bind(crate::store::writes_encoded(times))
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
