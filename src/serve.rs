//! `kozyr run`: one process serves every platform whose token is set
//! (`TELOXIDE_TOKEN`, `DISCORD_TOKEN`) from one table service and one
//! database; the service's outputs are routed to the shell of their chat's
//! platform. With `KOZYR_WEBAPP_URL` the Telegram Mini App (`crate::webapp`)
//! is served too, on the same `Front`; the Telegram shell's outputs pass
//! through its live views (`front::live`).

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::config::Config;
use crate::front::Front;
use crate::front::core::Defaults;
use crate::table::{Output, Platform};

/// The chat an output goes to is on this platform.
pub fn platform_of(o: &Output) -> Platform {
    match o {
        Output::RenderTable(v) => v.chat.platform(),
        Output::RenderHand(h) => h.chat.platform(),
        Output::DropHand { chat, .. } | Output::Announce { chat, .. } => chat.platform(),
        Output::Remind(spec) => spec.chat.platform(),
    }
}

/// What the start-up log line says: the build, who the bot is on each
/// platform and how it gets its updates, the database, and the settings
/// that differ from their defaults (never a token or a secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartLine {
    pub version: &'static str,
    /// `@username` on Telegram, empty without Telegram.
    pub telegram: String,
    /// `polling` or `webhook`, empty without Telegram.
    pub telegram_mode: &'static str,
    /// The Discord application's id, empty without Discord (its bot's
    /// name is logged when the gateway connects).
    pub discord_application: String,
    /// `gateway`, or `gateway+interactions` with the HTTP endpoint.
    pub discord_mode: &'static str,
    /// The gateway shards this process runs (`DISCORD_SHARDS`, e.g.
    /// `0-1/2`), `recommended` when unset, empty without Discord.
    pub discord_shards: String,
    pub database: String,
    /// `VAR=value` of every setting given other than its default.
    pub changed: String,
}

impl StartLine {
    pub fn of(config: &Config, telegram_username: Option<&str>) -> StartLine {
        let telegram_on = config.token.is_some();
        StartLine {
            version: env!("CARGO_PKG_VERSION"),
            telegram: telegram_username
                .map(|u| format!("@{u}"))
                .unwrap_or_default(),
            telegram_mode: match (&config.update_mode, telegram_on) {
                (_, false) => "",
                (crate::config::UpdateMode::LongPolling, true) => "polling",
                (crate::config::UpdateMode::Webhook { .. }, true) => "webhook",
            },
            discord_application: config
                .discord
                .as_ref()
                .map(|d| d.token.application_id().to_string())
                .unwrap_or_default(),
            discord_mode: match &config.discord {
                None => "",
                Some(d) if d.public_key.is_some() => "gateway+interactions",
                Some(_) => "gateway",
            },
            discord_shards: match &config.discord {
                None => String::new(),
                Some(d) => d
                    .shards
                    .map_or_else(|| "recommended".to_owned(), |r| r.to_string()),
            },
            database: shown_database(&config.database_url),
            changed: config
                .changed
                .iter()
                .map(|(var, value)| match *var {
                    "DATABASE_URL" => format!("{var}={}", shown_database(value)),
                    _ => format!("{var}={value}"),
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// A database URL as the log may show it: a PostgreSQL URL's password
/// is a secret (SQLite's URL is a path, shown as given).
fn shown_database(url: &str) -> String {
    match crate::store::Backend::of(url) {
        Ok(crate::store::Backend::Postgres) => crate::store::postgres::redacted(url),
        _ => url.to_owned(),
    }
}

impl std::fmt::Display for StartLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "kozyr {} running:", self.version)?;
        if !self.telegram_mode.is_empty() {
            write!(f, " telegram {} ({})", self.telegram, self.telegram_mode)?;
        }
        if !self.discord_mode.is_empty() {
            write!(
                f,
                " discord application {} ({}, shards {})",
                self.discord_application, self.discord_mode, self.discord_shards
            )?;
        }
        write!(f, "; database {}", self.database)?;
        if self.changed.is_empty() {
            write!(f, "; all other settings default")
        } else {
            write!(f, "; settings {}", self.changed)
        }
    }
}

/// The metrics endpoint `main` starts before serving (a standby answers
/// scrapes too), with the read-only store it counts open tables through.
pub struct MetricsServer {
    pub store: crate::store::Opened,
    pub server: tokio::task::JoinHandle<()>,
}

impl MetricsServer {
    /// Stops answering scrapes and closes its store. Before the service's
    /// store closes: SQLite removes its log only when the last connection
    /// to the file closes and can write, which this one's cannot.
    pub async fn stop(self) {
        self.server.abort();
        let _ = self.server.await;
        self.store.close().await;
    }
}

/// Runs until SIGINT or SIGTERM, touching the heartbeat file; with
/// replicas on PostgreSQL, stands by first until this one holds the
/// serving lease, and exits (code 1) the moment it loses it.
///
/// `metrics`, when given, is stopped before the store closes.
pub async fn run(
    config: Config,
    heartbeat: PathBuf,
    metrics: &mut Option<MetricsServer>,
) -> Result<(), String> {
    // Replicas on one PostgreSQL database: only the lease's holder goes on.
    let Some(mut serving) = crate::replica::stand_by(&config, &heartbeat)
        .await
        .map_err(|e| e.to_string())?
    else {
        tracing::info!("signal received while standing by; stopped");
        if let Err(e) = crate::health::mark_stopped(&heartbeat) {
            tracing::warn!(error = %e, path = %heartbeat.display(), "cannot mark the heartbeat stopped");
        }
        return Ok(());
    };
    // The webhook intake it ran while standing by listens on, into the
    // Telegram shell (a lone process binds it there).
    let intake = serving.take_intake();
    // Watched from now on, start-up included: another replica may serve
    // as soon as the lease is gone, so not one more send, timer or commit
    // from this process, not even a drain; the supervisor restarts it as
    // a standby.
    let lease_path = heartbeat.clone();
    // The shards this replica ran while standing by stay connected.
    let discord_gateway = serving.take_discord_gateway();
    let lease_watch = tokio::spawn(async move {
        let lost = serving.lost().await;
        tracing::error!(error = %lost, "lost the lease: stopping");
        let _ = crate::health::mark_stopped(&lease_path);
        eprintln!("kozyr: {lost}");
        std::process::exit(1);
    });
    // One service for every platform: its options and AI player are the
    // start-up's, not either shell's.
    let agent = crate::run::configured_agent(&config);
    let tg_tuning = crate::telegram::bot::Tuning {
        budget: crate::delivery::pacing::BotBudget::per_second(config.telegram_rate),
        ..Default::default()
    };
    let dc_tuning = crate::discord::bot::Tuning::default();
    let (service, mut effects) = crate::run::service_builder(&config)
        .await
        .map_err(|e| e.to_string())?
        .agent(agent)
        .options(crate::run::service_options())
        .start()
        .await
        .map_err(|e| e.to_string())?;
    let defaults = Defaults {
        lang: config.default_language,
        turn_timer: config.default_turn_timer,
    };
    let front = Arc::new(Front::new(service.clone(), defaults));
    let (tg_tx, tg_rx) = mpsc::unbounded_channel();
    let (dc_tx, dc_rx) = mpsc::unbounded_channel();
    let router = tokio::spawn(async move {
        while let Some(o) = effects.recv().await {
            let _ = match platform_of(&o) {
                Platform::Telegram => tg_tx.send(o),
                Platform::Discord => dc_tx.send(o),
            };
        }
    });
    let stop_service = || async {
        service.shutdown().await;
        service.clone().close().await;
    };
    // The Mini App first: hands rendered from the start carry its button.
    let webapp = match (&config.webapp, &config.token) {
        (Some(w), Some(token)) => {
            let app = crate::front::live::LiveApp {
                url: w.url.clone(),
                short_name: w.short_name.clone(),
            };
            match crate::webapp::serve(w.listen, front.clone(), token.expose(), app).await {
                Ok(r) => Some(r),
                Err(e) => {
                    stop_service().await;
                    return Err(e.to_string());
                }
            }
        }
        _ => None,
    };
    let telegram = match config.token {
        Some(_) => {
            match crate::telegram::bot::start_on(&config, tg_tuning, front.clone(), tg_rx, intake)
                .await
            {
                Ok(r) => Some(r),
                Err(e) => {
                    stop_service().await;
                    return Err(e.to_string());
                }
            }
        }
        None => None,
    };
    let discord = match config.discord {
        Some(_) => {
            match crate::discord::bot::start_serving(
                &config,
                &dc_tuning,
                front.clone(),
                dc_rx,
                discord_gateway,
            )
            .await
            {
                Ok(r) => Some(r),
                Err(e) => {
                    if let Some(t) = telegram {
                        t.stop().await;
                    }
                    stop_service().await;
                    return Err(e.to_string());
                }
            }
        }
        None => None,
    };
    let mut line = StartLine::of(
        &config,
        telegram.as_ref().map(|t| t.shared().username.as_str()),
    );
    if let Some(d) = &discord {
        line.discord_shards = d.shards().to_string();
    }
    tracing::info!(
        version = line.version,
        telegram = line.telegram,
        telegram_mode = line.telegram_mode,
        discord_application = line.discord_application,
        discord_mode = line.discord_mode,
        discord_shards = line.discord_shards,
        database = line.database,
        changed = line.changed,
        "{line}"
    );
    // The heartbeat also says what the store knows is wrong, at once.
    let mut store_health = service.health();
    let beat_path = heartbeat.clone();
    let beat = tokio::spawn(async move {
        let mut every = tokio::time::interval(crate::health::BEAT_EVERY);
        let mut watching = true;
        loop {
            tokio::select! {
                _ = every.tick() => {}
                changed = store_health.changed(), if watching => watching = changed.is_ok(),
            }
            let problem = store_health.borrow_and_update().problem();
            if let Err(e) = crate::health::beat(&beat_path, problem.as_deref()) {
                tracing::warn!(error = %e, path = %beat_path.display(), "cannot write the heartbeat");
            }
        }
    });
    // A signal, or Discord closing the gateway for good (the token
    // refused): then the process stops as for a signal and says why.
    let discord_fatal = discord
        .as_ref()
        .map(crate::discord::bot::RunningDiscord::fatal);
    let fatal = tokio::select! {
        () = crate::run::wait_for_signal() => None,
        why = async {
            match &discord_fatal {
                Some(f) => f.wait().await,
                None => std::future::pending().await,
            }
        } => Some(why),
    };
    match &fatal {
        None => tracing::info!("signal received; shutting down"),
        Some(_) => tracing::info!("Discord cannot go on; shutting down"),
    }
    beat.abort();
    if let Err(e) = crate::health::mark_stopped(&heartbeat) {
        tracing::warn!(error = %e, path = %heartbeat.display(), "cannot mark the heartbeat stopped");
    }
    service.shutdown().await;
    if let Some(t) = telegram {
        t.stop().await;
    }
    if let Some(d) = discord {
        d.stop().await;
    }
    if let Some(w) = webapp {
        w.stop().await;
    }
    router.abort();
    if let Some(m) = metrics.take() {
        m.stop().await;
    }
    service.clone().close().await;
    // Only now may a standby take over: this one sends nothing more.
    lease_watch.abort();
    tracing::info!("stopped");
    match fatal {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_up_line_never_shows_the_databases_password() {
        let url = "postgres://kozyr:s3cret-pw@db:5432/kozyr";
        let config = Config::from_lookup(|k| match k {
            "TELOXIDE_TOKEN" => Some("123456789:AAE-abcdefghijklmnopqrstuvwxyz_012".into()),
            "DATABASE_URL" => Some(url.into()),
            _ => None,
        })
        .unwrap();
        let line = StartLine::of(&config, Some("kozyr_bot"));
        assert!(!line.to_string().contains("s3cret-pw"), "{line}");
        assert!(!line.database.contains("s3cret-pw"), "{line:?}");
        assert!(!line.changed.contains("s3cret-pw"), "{line:?}");
        assert!(
            line.changed
                .contains("DATABASE_URL=postgres://kozyr:***@db:5432/kozyr")
        );
        // A SQLite path is shown as given.
        let config = Config::from_lookup(|k| match k {
            "TELOXIDE_TOKEN" => Some("123456789:AAE-abcdefghijklmnopqrstuvwxyz_012".into()),
            "DATABASE_URL" => Some("sqlite://data/kozyr.db".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(
            StartLine::of(&config, None).database,
            "sqlite://data/kozyr.db"
        );
    }
}
