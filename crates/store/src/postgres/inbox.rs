//! The inbox on PostgreSQL (see the `inbox` migration and
//! [`kozyr_table::storage::Inbox`]): any replica puts, the serving one
//! reads. A put commits its row and a `NOTIFY kozyr_inbox` (payload: the
//! platform) in one transaction, so the serving replica's `LISTEN` hears
//! of a row only once it can be read.

use std::time::Duration;

use sqlx::postgres::PgListener;
use tokio::sync::watch;

use super::PgStore;
use crate::StoreError;
use kozyr_table::{Platform, Timestamp};

/// The channel a put notifies.
const CHANNEL: &str = "kozyr_inbox";

/// The pause before listening again after the listening connection failed
/// (the reader polls meanwhile).
const RELISTEN_AFTER: Duration = Duration::from_secs(1);

impl PgStore {
    /// Writes an update under its platform's id; true when it is new.
    pub async fn inbox_put(
        &self,
        platform: Platform,
        key: &str,
        body: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let seq: Option<i64> = sqlx::query_scalar(
            "INSERT INTO inbox (platform, key, body, received_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (platform, key) DO NOTHING RETURNING seq",
        )
        .bind(platform.as_str())
        .bind(key)
        .bind(body)
        .bind(now.millis())
        .fetch_optional(&mut *tx)
        .await?;
        if seq.is_some() {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(platform.as_str())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(seq.is_some())
    }

    /// A counter bumped for every notification about `platform`, by a task
    /// that `LISTEN`s on a connection of its own until the receiver is
    /// dropped. The first `LISTEN` is in place when this returns.
    pub async fn inbox_wakeups(
        &self,
        platform: Platform,
    ) -> Result<watch::Receiver<u64>, StoreError> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(CHANNEL).await?;
        let (tx, rx) = watch::channel(0u64);
        let pool = self.pool.clone();
        tokio::spawn(async move {
            let mut listener = Some(listener);
            loop {
                let Some(l) = listener.as_mut() else {
                    tokio::select! {
                        () = tokio::time::sleep(RELISTEN_AFTER) => {}
                        () = tx.closed() => return,
                    }
                    listener = relisten(&pool).await;
                    // Rows may have come while nobody listened.
                    tx.send_modify(|n| *n = n.wrapping_add(1));
                    continue;
                };
                tokio::select! {
                    heard = l.try_recv() => match heard {
                        Ok(Some(n)) if n.payload() == platform.as_str() => {
                            tx.send_modify(|n| *n = n.wrapping_add(1));
                        }
                        Ok(Some(_)) => {}
                        // The connection was lost and will be opened again
                        // by the next call; rows may have come meanwhile.
                        Ok(None) => tx.send_modify(|n| *n = n.wrapping_add(1)),
                        Err(e) => {
                            tracing::warn!(error = %e, "listening for the inbox failed");
                            listener = None;
                        }
                    },
                    () = tx.closed() => return,
                }
            }
        });
        Ok(rx)
    }
}

async fn relisten(pool: &sqlx::PgPool) -> Option<PgListener> {
    let mut listener = PgListener::connect_with(pool).await.ok()?;
    listener.listen(CHANNEL).await.ok()?;
    Some(listener)
}
