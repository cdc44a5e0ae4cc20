//! When the bot last wrote to each chat, on SQLite (see the `chat_writes`
//! migration and [`crate::table::storage::TableStore::chat_writes`]).
//! Written as the burying counts are, in autocommit on a pool connection:
//! at most a group's 20 writes a minute each, none of them a command the
//! writer groups.

use super::{Store, StoreError};
use crate::table::Platform;

// One statement text for both backends (`$N` placeholders, which sqlx's
// SQLite binds by number too).
pub(super) const FORGET_OLD: &str = "DELETE FROM chat_writes WHERE platform = $1 AND last_ms < $2";
pub(super) const SELECT: &str = "SELECT chat, times FROM chat_writes WHERE platform = $1";
pub(super) const UPSERT: &str =
    "INSERT INTO chat_writes (platform, chat, last_ms, times) VALUES ($1, $2, $3, $4)
     ON CONFLICT (platform, chat) DO UPDATE
     SET last_ms = excluded.last_ms, times = excluded.times";

impl Store {
    /// Deletes the rows of `platform` whose newest write is before
    /// `since_ms`, then returns every other chat's write times.
    pub async fn chat_writes(
        &self,
        platform: Platform,
        since_ms: i64,
    ) -> Result<Vec<(String, Vec<i64>)>, StoreError> {
        sqlx::query(FORGET_OLD)
            .bind(platform.as_str())
            .bind(since_ms)
            .execute(&self.reader)
            .await?;
        let rows: Vec<(String, String)> = sqlx::query_as(SELECT)
            .bind(platform.as_str())
            .fetch_all(&self.reader)
            .await?;
        Ok(super::writes_decoded(rows))
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
        sqlx::query(UPSERT)
            .bind(platform.as_str())
            .bind(chat)
            .bind(last)
            .bind(super::writes_encoded(times))
            .execute(&self.reader)
            .await?;
        Ok(())
    }
}
