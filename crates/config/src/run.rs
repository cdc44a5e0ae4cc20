//! What starting the bot needs whatever its platforms: the table service
//! over the store the configuration names, with one set of service options
//! and the AI player; and the signals that stop it. Shared by `kozyr run`
//! (`serve` in the root package, one service for every platform) and each shell's own
//! start (tests, tools), so no shell borrows another's start-up and the
//! table service itself never reads the configuration nor names a store.

use std::sync::Arc;
use std::time::Duration;

use crate::Config;
use kozyr_ai::{AgentConfig, AgentKind, Budget, TableAgent};
use kozyr_front::Front;
use kozyr_front::core::Defaults;
use kozyr_store::{Backend, PgStore, Store};
use kozyr_table::Output;
use kozyr_table::runtime::{Builder, SeatAgent, ServiceError, ServiceOptions, TableService};
use kozyr_table::storage::StorageError;

/// Opens the database the configuration names (`DATABASE_URL`: SQLite or
/// PostgreSQL by its scheme; `KOZYR_SQLITE_SYNCHRONOUS`) and sets up a
/// service over it.
pub async fn service_builder(config: &Config) -> Result<Builder, ServiceError> {
    let options = config.store_options();
    let builder = match Backend::of(&options.url).map_err(StorageError::from)? {
        Backend::Sqlite => {
            TableService::builder(Store::open(&options).await.map_err(StorageError::from)?)
        }
        Backend::Postgres => {
            TableService::builder(PgStore::open(&options).await.map_err(StorageError::from)?)
        }
    };
    Ok(builder)
}

/// The table service of a shell started on its own (each shell's `start`:
/// tests and tools) and the `Front` over it; `kozyr run` shares one
/// service among every shell instead.
pub async fn own_front(
    config: &Config,
    agent: Arc<dyn SeatAgent>,
    options: ServiceOptions,
) -> Result<(Arc<Front>, tokio::sync::mpsc::UnboundedReceiver<Output>), ServiceError> {
    let (service, effects) = service_builder(config)
        .await?
        .agent(agent)
        .options(options)
        .start()
        .await?;
    let defaults = Defaults {
        lang: config.default_language,
        turn_timer: config.default_turn_timer,
    };
    Ok((Arc::new(Front::new(service, defaults)), effects))
}

/// The table service's options in production: one set for the one
/// service every platform shares. AI seats pause before moving so people
/// can follow the game.
pub fn service_options() -> ServiceOptions {
    ServiceOptions {
        ai_delay: Duration::from_millis(1500),
        ..ServiceOptions::default()
    }
}

/// The AI player the bot plays with unless told otherwise: the searching
/// player with its default thinking time.
pub fn default_agent() -> Arc<dyn SeatAgent> {
    Arc::new(TableAgent::of(AgentKind::Search, AgentConfig::default()))
}

/// The AI player `config` asks for (`KOZYR_AI_PLAYER`, `KOZYR_AI_THINK_MS`).
pub fn configured_agent(config: &Config) -> Arc<dyn SeatAgent> {
    let think = AgentConfig {
        budget: Budget::Time(config.ai_think),
    };
    Arc::new(TableAgent::of(config.ai_player, think))
}

/// Waits for SIGINT or SIGTERM.
pub async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
