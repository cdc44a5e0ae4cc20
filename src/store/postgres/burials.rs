//! The burying counts on PostgreSQL (see the `chat_burials` migration and
//! [`crate::table::storage::TableStore::burials`]): one transaction per
//! save, a handful of rows a second at most.

use super::PgStore;
use crate::store::StoreError;
use crate::table::Platform;

impl PgStore {
    /// Every chat's count of `platform`.
    pub async fn burials(&self, platform: Platform) -> Result<Vec<(String, u32)>, StoreError> {
        let rows: Vec<(String, i64)> =
            sqlx::query_as("SELECT chat, messages FROM chat_burials WHERE platform = $1")
                .bind(platform.as_str())
                .fetch_all(&self.pool)
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
        let mut tx = self.pool.begin().await?;
        for (chat, count) in changes {
            match count {
                Some(n) => {
                    sqlx::query(
                        "INSERT INTO chat_burials (platform, chat, messages) VALUES ($1, $2, $3)
                         ON CONFLICT (platform, chat) DO UPDATE SET messages = excluded.messages",
                    )
                    .bind(platform.as_str())
                    .bind(chat)
                    .bind(i64::from(*n))
                    .execute(&mut *tx)
                    .await?;
                }
                None => {
                    sqlx::query("DELETE FROM chat_burials WHERE platform = $1 AND chat = $2")
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
