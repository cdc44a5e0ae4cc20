//! The inbox on SQLite (see the `inbox` migration and
//! [`kozyr_table::storage::Inbox`]): one process serves a SQLite file, so
//! the wake-up is a counter in this process.
//!
//! A put is one INSERT in autocommit on a pool connection, not a job for
//! the writer task: the writer groups commands for throughput, while a
//! webhook request waits for its own row only, and the row is durable
//! (WAL, the store's `synchronous`) when the statement returns.

use super::{Store, StoreError};
use kozyr_table::{Platform, Timestamp};

impl Store {
    /// Writes an update under its platform's id; true when it is new.
    pub async fn inbox_put(
        &self,
        platform: Platform,
        key: &str,
        body: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let written = sqlx::query(
            "INSERT INTO inbox (platform, key, body, received_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (platform, key) DO NOTHING",
        )
        .bind(platform.as_str())
        .bind(key)
        .bind(body)
        .bind(now.millis())
        .execute(&self.reader)
        .await?;
        let new = written.rows_affected() == 1;
        if new {
            self.inbox_wake.send_modify(|n| *n = n.wrapping_add(1));
        }
        Ok(new)
    }

    /// Changes after each new row (of any platform: a spurious wake-up
    /// costs one read).
    pub async fn inbox_wakeups(
        &self,
        _platform: Platform,
    ) -> Result<tokio::sync::watch::Receiver<u64>, StoreError> {
        Ok(self.inbox_wake.subscribe())
    }
}
