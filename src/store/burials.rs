//! The burying counts on SQLite (see the `chat_burials` migration and
//! [`crate::table::storage::TableStore::burials`]). Written as the inbox
//! is, in autocommit on a pool connection: a handful of rows a second at
//! most, none of them a command the writer groups.

use super::{Store, StoreError};
use crate::table::Platform;

impl Store {
    /// Every chat's count of `platform`.
    pub async fn burials(&self, platform: Platform) -> Result<Vec<(String, u32)>, StoreError> {
        let rows: Vec<(String, i64)> =
            sqlx::query_as("SELECT chat, messages FROM chat_burials WHERE platform = ?")
                .bind(platform.as_str())
                .fetch_all(&self.reader)
                .await?;
        Ok(rows
            .into_iter()
            .map(|(chat, n)| (chat, u32::try_from(n).unwrap_or(u32::MAX)))
            .collect())
    }

    /// Sets each chat's count (`None`: forgets the chat).
    pub async fn save_burials(
        &self,
        platform: Platform,
        changes: &[(String, Option<u32>)],
    ) -> Result<(), StoreError> {
        let mut tx = self.reader.begin().await?;
        for (chat, count) in changes {
            match count {
                Some(n) => {
                    sqlx::query(
                        "INSERT INTO chat_burials (platform, chat, messages) VALUES (?, ?, ?)
                         ON CONFLICT (platform, chat) DO UPDATE SET messages = excluded.messages",
                    )
                    .bind(platform.as_str())
                    .bind(chat)
                    .bind(i64::from(*n))
                    .execute(&mut *tx)
                    .await?;
                }
                None => {
                    sqlx::query("DELETE FROM chat_burials WHERE platform = ? AND chat = ?")
                        .bind(platform.as_str())
                        .bind(chat)
                        .execute(&mut *tx)
                        .await?;
                }
            }
        }
        tx.commit().await?;
        Ok(())
    }
}
