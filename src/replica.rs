//! Replicas: several `kozyr run` processes on one PostgreSQL database serve
//! one bot as one serving replica and hot standbys. Whoever holds the
//! store's serving lease ([`ServingLease`]) serves exactly as a lone
//! process does (the table service, the shells, timers, AI, pacing), so
//! Telegram's and Discord's limits hold for the bot as a whole and no timer
//! fires twice; the others keep the database open, send nothing, poll
//! nothing, answer 503 on the Mini App and interactions addresses (so a
//! reverse proxy sends requests to the serving one) and try for the lease.
//! Every replica takes Telegram's webhook updates, though: a standby's
//! intake writes them to the inbox in the database (acknowledged once
//! committed), which only the serving replica reads
//! ([`crate::telegram::webhook`]); a standby keeps its intake when it
//! takes over.
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
//! SQLite serves one process per file: it serves at once, holding the
//! file's claim (`store::claim_sqlite`); a second process on the same file
//! stops with a message that says replicas need PostgreSQL.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::config::{Config, UpdateMode};
use crate::discord::bot::Gateway;
use crate::store::postgres::leadership::{LeaseError, ServingLease};
use crate::store::{Backend, PgStore};
use crate::table::Platform;
use crate::table::storage::Inbox;
use crate::telegram::webhook::Intake;

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
    #[error("{0}")]
    Claimed(crate::store::OpenError),
    #[error("lost the serving lease, stopped serving: {0}")]
    Lost(LeaseError),
    #[error("the standby's 503 answer on {addr} could not listen: {cause}")]
    Listen { addr: SocketAddr, cause: String },
    #[error("the standby cannot take webhook updates: {0}")]
    Intake(String),
}

/// This process may serve: on PostgreSQL it holds the lease.
pub struct Serving {
    lease: Option<ServingLease>,
    /// The webhook intake it ran while it stood by, listening still.
    intake: Option<Intake>,
    /// The Discord shards connected while standing by.
    discord: Option<Gateway>,
    /// SQLite: this process's claim on the file, held while it runs.
    _sqlite: Option<crate::store::SqliteClaim>,
}

impl std::fmt::Debug for Serving {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serving")
            .field("lease", &self.lease)
            .field("intake", &self.intake.is_some())
            .field("discord", &self.discord.as_ref().map(Gateway::shards))
            .finish()
    }
}

impl Serving {
    /// The webhook intake this replica ran while it stood by, for the
    /// Telegram shell to keep (`None`: the shell binds its own).
    pub fn take_intake(&mut self) -> Option<Intake> {
        self.intake.take()
    }

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
/// `standby`, gauge 0, the webhook's updates into the inbox, 503 on the
/// Mini App and interactions endpoints). `None` when a signal came first.
pub async fn stand_by(config: &Config, heartbeat: &Path) -> Result<Option<Serving>, ReplicaError> {
    if !matches!(Backend::of(&config.database_url), Ok(Backend::Postgres)) {
        let claim =
            crate::store::claim_sqlite(&config.database_url).map_err(ReplicaError::Claimed)?;
        crate::metrics::replica_serving(true);
        return Ok(Some(Serving {
            lease: None,
            intake: None,
            discord: None,
            _sqlite: claim,
        }));
    }
    let mut lease = ServingLease::connect(&config.database_url)
        .await
        .map_err(ReplicaError::Lease)?;
    if lease.try_take().await.map_err(ReplicaError::Lease)? {
        return Ok(Some(serving(lease, None, None)));
    }
    tracing::info!("standing by: another replica serves this bot");
    crate::metrics::replica_serving(false);
    let (intake, store) = match take_updates(config).await? {
        Some((intake, store)) => (Some(intake), Some(store)),
        None => (None, None),
    };
    let unavailable = match answer_unavailable(endpoints(config)).await {
        Ok(servers) => servers,
        Err(e) => {
            if let Some(i) = intake {
                i.stop().await;
            }
            return Err(e);
        }
    };
    // Beside the lease, not before it: Discord or the database being slow
    // to answer must not hold up a takeover.
    let shards = tokio::spawn(standby_shards(config.clone(), store));
    let took = tokio::select! {
        took = wait_for_lease(&mut lease, heartbeat) => Some(took),
        () = crate::run::wait_for_signal() => None,
    };
    // Still connecting: the serving shell connects the shards itself.
    shards.abort();
    let discord = shards.await.ok().flatten();
    // The shells listen on these addresses next: the answering stops,
    // connections a proxy keeps open included.
    for server in unavailable {
        server.abort();
        let _ = server.await;
    }
    match took {
        Some(Ok(())) => Ok(Some(serving(lease, intake, discord))),
        failed_or_signal => {
            if let Some(i) = intake {
                i.stop().await;
            }
            if let Some(g) = discord {
                g.stop().await;
            }
            failed_or_signal.transpose().map(|_| None)
        }
    }
}

fn serving(lease: ServingLease, intake: Option<Intake>, discord: Option<Gateway>) -> Serving {
    tracing::info!("serving: this replica holds the serving lease");
    crate::metrics::replica_serving(true);
    Serving {
        lease: Some(lease),
        intake,
        discord,
        _sqlite: None,
    }
}

/// In webhook mode, the standby's intake: Telegram's updates (through a
/// load balancer that picks any replica) are written to the inbox of a
/// store opened for it, and acknowledged once committed.
async fn take_updates(
    config: &Config,
) -> Result<
    Option<(
        Intake,
        std::sync::Arc<dyn crate::table::storage::TableStore>,
    )>,
    ReplicaError,
> {
    let (
        Some(_),
        UpdateMode::Webhook {
            url,
            listen,
            secret,
        },
    ) = (&config.token, &config.update_mode)
    else {
        return Ok(None);
    };
    let store = crate::store::open(&config.store_options())
        .await
        .map_err(|e| ReplicaError::Intake(e.to_string()))?;
    let inbox = Inbox::new(store.clone(), Platform::Telegram);
    let intake = crate::telegram::bot::bind_intake(*listen, url, secret.clone(), inbox)
        .await
        .map_err(|e| ReplicaError::Intake(e.to_string()))?;
    tracing::info!(listen = %intake.local_addr, "standing by: taking webhook updates into the inbox");
    Ok(Some((intake, store)))
}

/// A standby's Discord shards (`DISCORD_SHARDS`), their events written to
/// the inbox through the webhook intake's store, or one opened for them; `None` without Discord
/// or `DISCORD_SHARDS`, or when they cannot start (said in the log: the
/// serving shell connects them when this replica takes over).
async fn standby_shards(
    config: Config,
    store: Option<std::sync::Arc<dyn crate::table::storage::TableStore>>,
) -> Option<Gateway> {
    config.discord.as_ref()?.shards?;
    // The webhook intake's store when there is one: one pool per standby.
    let store = match store {
        Some(store) => store,
        None => match PgStore::open(&config.store_options()).await {
            Ok(s) => std::sync::Arc::new(s),
            Err(e) => {
                tracing::warn!(error = %e, "standing by without Discord shards: the inbox cannot be opened");
                return None;
            }
        },
    };
    let inbox = Inbox::new(store, Platform::Discord);
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

/// Where only the serving replica takes requests over HTTP: the Mini App
/// and the Discord interactions endpoint, when on (the Telegram webhook is
/// every replica's: [`take_updates`]).
fn endpoints(config: &Config) -> Vec<SocketAddr> {
    let mut found = Vec::new();
    if let (Some(w), Some(_)) = (&config.webapp, &config.token) {
        found.push(w.listen);
    }
    if let Some(d) = config.discord.as_ref().filter(|d| d.public_key.is_some()) {
        found.push(d.interactions_listen);
    }
    found
}

/// 503 Service Unavailable to every request on `addrs` until aborted: a
/// reverse proxy passes the request on to the serving replica.
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
