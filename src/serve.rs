//! `kozyr run`: one process serves every platform whose token is set
//! (`TELOXIDE_TOKEN`, `DISCORD_TOKEN`) from one table service and one
//! database; the service's outputs are routed to the shell of their chat's
//! platform.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::config::Config;
use crate::front::Front;
use crate::front::core::Defaults;
use crate::table::runtime::TableService;
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

/// Runs until SIGINT or SIGTERM, touching the heartbeat file.
pub async fn run(config: Config, heartbeat: PathBuf) -> Result<(), String> {
    let agent = crate::telegram::bot::configured_agent(&config);
    let tg_tuning = crate::telegram::bot::Tuning {
        agent: agent.clone(),
        budget: crate::telegram::pacing::Budget::per_second(config.telegram_rate),
        ..Default::default()
    };
    let dc_tuning = crate::discord::bot::Tuning {
        agent: agent.clone(),
        ..Default::default()
    };
    let (service, mut effects) = TableService::builder_from_config(&config)
        .await
        .map_err(|e| e.to_string())?
        .agent(agent)
        .options(tg_tuning.service.clone())
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
    let telegram = match config.token {
        Some(_) => {
            match crate::telegram::bot::start_on(&config, tg_tuning, front.clone(), tg_rx).await {
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
            match crate::discord::bot::start_on(&config, &dc_tuning, front.clone(), dc_rx).await {
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
    tracing::info!(
        telegram = ?config.token,
        discord = ?config.discord.as_ref().map(|d| &d.token),
        "kozyr is running"
    );
    // The heartbeat also says what the store knows is wrong, at once.
    let mut store_health = service.store().health();
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
    crate::telegram::bot::wait_for_signal().await;
    tracing::info!("signal received; shutting down");
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
    router.abort();
    service.clone().close().await;
    tracing::info!("stopped");
    Ok(())
}
