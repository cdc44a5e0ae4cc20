//! Replicas: several `kozyr run` processes on one PostgreSQL database serve
//! one bot as one serving replica and hot standbys. Whoever holds the
//! store's serving lease ([`ServingLease`]) serves exactly as a lone
//! process does (the table service, the shells, timers, AI, pacing), so
//! Telegram's and Discord's limits hold for the bot as a whole and no timer
//! fires twice; the others keep the database open, send nothing, poll
//! nothing, answer 503 on the webhook, Mini App and interactions addresses
//! (so a reverse proxy sends requests to the serving one) and try for the lease.
//! When the holder dies PostgreSQL frees the lease with its connection and
//! a standby takes over, rebuilding from the database as a restart does.
//!
//! One thing a standby does run: with `DISCORD_SHARDS` set, the gateway
//! shards it names (`discord::bot::Gateway::standing_by`), whose
//! interactions and messages it writes into the inbox for the serving
//! replica — so the shards are split between the replicas, and Discord's
//! REST budget is still spent by one process. Taking over, it hands the
//! same connections to its shell ([`Serving::take_discord_gateway`]).
//!
//! The serving replica confirms its lease every [`CONFIRM_EVERY`] and
//! stops serving as soon as it cannot (`kozyr run` exits at once, code 1;
//! a supervisor restarts it as a standby), so two overlap at most that
//! long plus the 3 s a confirmation may wait for an answer; the store's
//! version check refuses a stale commit anyway.
//! SQLite serves one process per file: it serves at once.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::config::{Config, UpdateMode};
use crate::discord::bot::Gateway;
use crate::store::postgres::leadership::{LeaseError, ServingLease};
use crate::store::{Backend, PgStore, StoreOptions};
use crate::table::Platform;
use crate::table::storage::Inbox;

/// How often a standby tries for the lease: the most a takeover waits
/// after the holder's connection ends.
pub const TRY_EVERY: Duration = Duration::from_millis(250);
/// How often the serving replica confirms that it still holds the lease.
pub const CONFIRM_EVERY: Duration = Duration::from_secs(1);

/// Why this replica cannot stand by or serve.
#[derive(Debug, thiserror::Error)]
pub enum ReplicaError {
    #[error("{0}")]
    Lease(LeaseError),
    #[error("lost the serving lease, stopped serving: {0}")]
    Lost(LeaseError),
    #[error("the standby's 503 answer on {addr} could not listen: {cause}")]
    Listen { addr: SocketAddr, cause: String },
}

/// This process may serve: on PostgreSQL it holds the lease.
pub struct Serving {
    lease: Option<ServingLease>,
    /// The Discord shards connected while standing by.
    discord: Option<Gateway>,
}

impl std::fmt::Debug for Serving {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serving")
            .field("lease", &self.lease)
            .field("discord", &self.discord.as_ref().map(Gateway::shards))
            .finish()
    }
}

impl Serving {
    /// The Discord gateway shards this replica connected while it stood
    /// by, for its shell to take over (`discord::bot::start_serving`).
    pub fn take_discord_gateway(&mut self) -> Option<Gateway> {
        self.discord.take()
    }

    /// Resolves when the lease is lost (never on SQLite): the caller
    /// stops serving at once.
    pub async fn lost(self) -> ReplicaError {
        let Some(mut lease) = self.lease else {
            return std::future::pending().await;
        };
        let mut every = tokio::time::interval(CONFIRM_EVERY);
        loop {
            every.tick().await;
            if let Err(e) = lease.confirm().await {
                return ReplicaError::Lost(e);
            }
        }
    }
}

/// Waits until this process may serve: at once on SQLite; on PostgreSQL
/// once it holds the serving lease, standing by meanwhile (heartbeat
/// `standby`, gauge 0, 503 on the update endpoints). `None` when a
/// signal came first.
pub async fn stand_by(config: &Config, heartbeat: &Path) -> Result<Option<Serving>, ReplicaError> {
    if !matches!(Backend::of(&config.database_url), Ok(Backend::Postgres)) {
        crate::metrics::replica_serving(true);
        return Ok(Some(Serving {
            lease: None,
            discord: None,
        }));
    }
    let mut lease = ServingLease::connect(&config.database_url)
        .await
        .map_err(ReplicaError::Lease)?;
    if lease.try_take().await.map_err(ReplicaError::Lease)? {
        return Ok(Some(serving(lease, None)));
    }
    tracing::info!("standing by: another replica serves this bot");
    crate::metrics::replica_serving(false);
    let unavailable = answer_unavailable(endpoints(config)).await?;
    // Beside the lease, not before it: Discord or the database being slow
    // to answer must not hold up a takeover.
    let shards = tokio::spawn(standby_shards(config.clone()));
    let waited = tokio::select! {
        took = wait_for_lease(&mut lease, heartbeat) => took.map(|()| Some(lease)),
        () = crate::run::wait_for_signal() => Ok(None),
    };
    // Still connecting: the serving shell connects the shards itself.
    shards.abort();
    let discord = shards.await.ok().flatten();
    let waited = match waited {
        Ok(Some(lease)) => Ok(Some(serving(lease, discord))),
        Ok(None) | Err(_) => {
            if let Some(g) = discord {
                g.stop().await;
            }
            waited.map(|_| None)
        }
    };
    // The shells listen on these addresses next: the answering stops,
    // connections a proxy keeps open included.
    for server in unavailable {
        server.abort();
        let _ = server.await;
    }
    waited
}

fn serving(lease: ServingLease, discord: Option<Gateway>) -> Serving {
    tracing::info!("serving: this replica holds the serving lease");
    crate::metrics::replica_serving(true);
    Serving {
        lease: Some(lease),
        discord,
    }
}

/// A standby's Discord shards (`DISCORD_SHARDS`), their events written to
/// the inbox through a store opened for that alone; `None` without Discord
/// or `DISCORD_SHARDS`, or when they cannot start (said in the log: the
/// serving shell connects them when this replica takes over).
async fn standby_shards(config: Config) -> Option<Gateway> {
    config.discord.as_ref()?.shards?;
    let store = match PgStore::open(&StoreOptions::from_config(&config)).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "standing by without Discord shards: the inbox cannot be opened");
            return None;
        }
    };
    let inbox = Inbox::new(std::sync::Arc::new(store), Platform::Discord);
    match Gateway::standing_by(&config, inbox).await {
        Ok(g) => g,
        Err(e) => {
            tracing::warn!(error = %e, "standing by without Discord shards");
            None
        }
    }
}

async fn wait_for_lease(lease: &mut ServingLease, heartbeat: &Path) -> Result<(), ReplicaError> {
    let mut beaten: Option<Instant> = None;
    loop {
        if beaten.is_none_or(|at| at.elapsed() >= crate::health::BEAT_EVERY) {
            if let Err(e) = crate::health::beat_standby(heartbeat) {
                tracing::warn!(error = %e, path = %heartbeat.display(), "cannot write the heartbeat");
            }
            beaten = Some(Instant::now());
        }
        tokio::time::sleep(TRY_EVERY).await;
        if lease.try_take().await.map_err(ReplicaError::Lease)? {
            return Ok(());
        }
    }
}

/// Where the serving replica takes requests over HTTP: the Telegram
/// webhook, the Mini App and the Discord interactions endpoint, when on.
fn endpoints(config: &Config) -> Vec<SocketAddr> {
    let mut found = Vec::new();
    if let (Some(_), UpdateMode::Webhook { listen, .. }) = (&config.token, &config.update_mode) {
        found.push(*listen);
    }
    if let (Some(w), Some(_)) = (&config.webapp, &config.token) {
        found.push(w.listen);
    }
    if let Some(d) = config.discord.as_ref().filter(|d| d.public_key.is_some()) {
        found.push(d.interactions_listen);
    }
    found
}

/// 503 Service Unavailable to every request on `addrs` until aborted: a
/// reverse proxy passes the update on to the serving replica, and
/// Telegram retries what was not answered 200.
async fn answer_unavailable(
    addrs: Vec<SocketAddr>,
) -> Result<Vec<tokio::task::JoinHandle<()>>, ReplicaError> {
    let mut servers = Vec::new();
    for addr in addrs {
        let listener =
            tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| ReplicaError::Listen {
                    addr,
                    cause: e.to_string(),
                })?;
        let app = axum::Router::new().fallback(|| async {
            (
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                "standing by: another replica serves this bot\n",
            )
        });
        servers.push(tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        }));
    }
    Ok(servers)
}
