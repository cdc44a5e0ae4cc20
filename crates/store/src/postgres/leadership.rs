//! Which of several `kozyr run` processes (replicas) on one PostgreSQL
//! database serves the bot: the one holding a session advisory lock on a
//! connection of its own. Advisory locks belong to one database, and one
//! database holds one bot, so the key is a constant. PostgreSQL releases a
//! session lock the moment its connection ends (a SIGKILLed holder's socket
//! closes), so a standby that keeps trying takes over within one try.
//!
//! The holder confirms its lock connection often ([`ServingLease::confirm`]):
//! a session lock stays held while its session lives, so a query that
//! still answers on that connection means the lock is still ours. When it
//! does not answer, the caller must stop serving at once.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection};

use super::redacted;

/// The advisory lock's key: the bytes of "kozyr_sv" (serving).
const SERVING_KEY: i64 = i64::from_be_bytes(*b"kozyr_sv");

/// How long a query on the lock connection may take before the lease
/// counts as lost.
const ANSWER_WITHIN: Duration = Duration::from_secs(3);

/// Why the lease cannot be taken or held.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    #[error("cannot connect for the serving lease to {url}: {cause}")]
    Unreachable { url: String, cause: String },
    #[error("the serving lease's connection to {url} failed: {cause}")]
    Lost { url: String, cause: String },
}

/// A connection of its own to the bot's database, which holds the serving
/// lock once [`ServingLease::try_take`] said so.
#[derive(Debug)]
pub struct ServingLease {
    conn: PgConnection,
    shown_url: String,
}

impl ServingLease {
    /// Opens the lock's own connection (the pool's connections come and
    /// go; a session lock must live on one that stays).
    pub async fn connect(url: &str) -> Result<ServingLease, LeaseError> {
        let shown_url = redacted(url);
        let unreachable = |e: &dyn std::fmt::Display| LeaseError::Unreachable {
            url: shown_url.clone(),
            cause: e.to_string(),
        };
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| unreachable(&e))?
            .application_name("kozyr serving lease")
            .disable_statement_logging();
        let conn = tokio::time::timeout(ANSWER_WITHIN, PgConnection::connect_with(&options))
            .await
            .map_err(|e| unreachable(&e))?
            .map_err(|e| unreachable(&e))?;
        Ok(ServingLease { conn, shown_url })
    }

    /// Takes the serving lock if no other session holds it; true once
    /// this connection holds it (again true while it does).
    pub async fn try_take(&mut self) -> Result<bool, LeaseError> {
        let took = sqlx::query_scalar::<_, bool>("SELECT pg_try_advisory_lock($1)")
            .bind(SERVING_KEY)
            .fetch_one(&mut self.conn);
        answer(&self.shown_url, took).await
    }

    /// Whether the lock connection still answers, hence still holds the lock.
    pub async fn confirm(&mut self) -> Result<(), LeaseError> {
        let ping = sqlx::query_scalar::<_, i32>("SELECT 1").fetch_one(&mut self.conn);
        answer(&self.shown_url, ping).await.map(|_| ())
    }
}

/// `query`'s result, or the lease lost when it fails or hangs.
async fn answer<T>(
    shown_url: &str,
    query: impl Future<Output = Result<T, sqlx::Error>>,
) -> Result<T, LeaseError> {
    let lost = |cause: String| LeaseError::Lost {
        url: shown_url.to_owned(),
        cause,
    };
    match tokio::time::timeout(ANSWER_WITHIN, query).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(lost(e.to_string())),
        Err(_) => Err(lost(format!("no answer within {ANSWER_WITHIN:?}"))),
    }
}
