//! The running bot: store, table service, effects runner and the reader
//! of updates, started together by [`start`] and stopped by
//! [`RunningBot::stop`]. `kozyr run` is [`run`]; the end-to-end tests call
//! [`start`] against the fake Bot API server.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use teloxide::prelude::*;
use teloxide::types::Me;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::commands::bot_commands;
use super::shared::Local;
pub use super::shared::Shared;
use super::{handlers, listener};
use kozyr_config::startup::{Backoff, Verdict, retry};
use kozyr_config::{Config, UpdateMode};
use kozyr_delivery::pacing::{BotBudget, Limits, PacerConfig};
use kozyr_front::{Front, press_limits::PressRates};
use kozyr_i18n::Lang;
use kozyr_outlet::paced::PacedOutbox;
use kozyr_table::runtime::{SeatAgent, ServiceError, ServiceOptions, TableService};

/// Tuning that tests and load tests change; `Default` is production.
#[derive(Clone)]
pub struct Tuning {
    pub group_pacing: PacerConfig,
    pub private_pacing: PacerConfig,
    /// The bot-wide output budget (`KOZYR_TELEGRAM_RATE`).
    pub budget: BotBudget,
    /// The options and AI player of the service [`start`] opens for this
    /// shell alone (tests); `kozyr run` shares one service set up by `run`.
    pub service: ServiceOptions,
    /// Plays AI seats and away people.
    pub agent: Arc<dyn SeatAgent>,
    /// Long-polling timeout of `getUpdates`.
    pub poll_timeout: Duration,
    /// How long a stop waits for queued output.
    pub drain_for: Duration,
    /// How fast a person and a chat may press (long polling and the webhook's inbox).
    pub press_rates: PressRates,
    /// The first pause after a group's write got "chat not found" (it
    /// doubles; the fourth in a row stops the group's table).
    pub chat_not_found_retry: Duration,
    /// Turn alerts: a person quiet this long when their turn comes gets
    /// their hand posted anew, which notifies ([`kozyr_delivery::alerts`]);
    /// `None`: never.
    pub turn_alerts: Option<Duration>,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            group_pacing: PacerConfig::group(),
            private_pacing: PacerConfig::private(),
            budget: BotBudget::TELEGRAM,
            service: kozyr_config::run::service_options(),
            agent: kozyr_config::run::default_agent(),
            poll_timeout: Duration::from_secs(30),
            drain_for: Duration::from_secs(5),
            press_rates: PressRates::PEOPLE,
            chat_not_found_retry: Duration::from_secs(5),
            turn_alerts: Some(kozyr_delivery::alerts::QUIET),
        }
    }
}

/// Why the bot could not start.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    #[error(transparent)]
    Service(#[from] ServiceError),
    #[error("Telegram: {0}")]
    Telegram(#[from] teloxide::RequestError),
    #[error(transparent)]
    Startup(#[from] StartupError),
    #[error("TELOXIDE_TOKEN is not set")]
    NoToken,
    #[error("the bot has no username (is the token a bot's?)")]
    NoUsername,
    #[error("cannot listen on WEBHOOK_LISTEN {addr}: {error}")]
    WebhookListen {
        addr: std::net::SocketAddr,
        error: std::io::Error,
    },
}

/// A started bot.
pub struct RunningBot {
    shared: Arc<Shared>,
    /// Stops reading updates: long polling, or the inbox's reader in
    /// webhook mode.
    stop_updates: tokio::sync::oneshot::Sender<()>,
    /// The reader's task: it lets the handlers finish the updates in hand
    /// (for a while) and confirms (deletes) the handled ones as it ends.
    updates: JoinHandle<()>,
    /// The webhook intake, in webhook mode.
    webhook: Option<super::webhook::Intake>,
    outbox: kozyr_outlet::Running,
    conflicts: Arc<AtomicU64>,
    /// Whether this bot started the table service (and stops it).
    owns_service: bool,
}

impl RunningBot {
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The table service behind the bot (tests and tools read views from it).
    pub fn service(&self) -> &TableService {
        self.shared.front.service()
    }

    /// Where the webhook server listens, in webhook mode.
    pub fn webhook_addr(&self) -> Option<std::net::SocketAddr> {
        self.webhook.as_ref().map(|i| i.local_addr)
    }

    /// How many times Telegram said another instance polls with this token (409).
    pub fn poll_conflicts(&self) -> u64 {
        self.conflicts.load(Ordering::Relaxed)
    }

    /// Stops polling, finishes the updates in hand, stops timers and AI
    /// moves, sends what is queued (for a while) and closes the database.
    pub async fn stop(self) {
        let _ = self.stop_updates.send(());
        let _ = self.updates.await;
        // Updates taken from here on wait in the inbox for the next
        // serving process.
        if let Some(intake) = self.webhook {
            intake.stop().await;
        }
        let own = self.owns_service.then(|| self.shared.front.service());
        self.outbox.stop_with(own).await;
    }
}

/// Starts the bot: opens the store, starts the table service and the
/// effects runner, registers the command menus and starts polling.
pub async fn start(config: &Config, tuning: Tuning) -> Result<RunningBot, BotError> {
    let (front, effects) =
        kozyr_config::run::own_front(config, tuning.agent.clone(), tuning.service.clone()).await?;
    match start_on(config, tuning, front.clone(), effects, None).await {
        Ok(mut running) => {
            running.owns_service = true;
            Ok(running)
        }
        Err(e) => {
            front.service().close().await;
            Err(e)
        }
    }
}

/// Starts the bot on a front-end others share (`kozyr run` with Discord
/// too); `effects` are the service's outputs for Telegram chats. In
/// webhook mode `intake` is the webhook intake already listening (a
/// replica that took updates while it stood by); without one, the intake
/// is bound here on the service's store.
pub async fn start_on(
    config: &Config,
    tuning: Tuning,
    front: Arc<Front>,
    effects: mpsc::UnboundedReceiver<kozyr_table::Output>,
    intake: Option<super::webhook::Intake>,
) -> Result<RunningBot, BotError> {
    let token = config.token.as_ref().ok_or(BotError::NoToken)?;
    let mut bot = Bot::new(token.expose());
    if let Some(url) = &config.api_url {
        bot = bot.set_api_url(url.clone());
    }
    // Start-up retry (issue 13): waits out an unreachable Bot API, stops on a refused token.
    let me = get_me(&bot, Backoff::default()).await?;
    let username = me.username.clone().ok_or(BotError::NoUsername)?;
    let default_lang = config.default_language;
    register_commands(&bot, default_lang).await;

    let (local_tx, local_rx) = mpsc::unbounded_channel();
    // Who opens, closes or presses in the Mini App reaches the outbox,
    // which holds their chat hand meanwhile (`delivery::lane`).
    let live_tx = local_tx.clone();
    front.live().on_event(move |e| {
        let _ = live_tx.send(Local::Live(e));
    });
    let shared = Arc::new(Shared::new(
        front,
        bot.clone(),
        username,
        default_lang,
        local_tx,
    ));
    let limits = Limits {
        group: tuning.group_pacing,
        private: tuning.private_pacing,
        budget: tuning.budget,
    };
    let outbox = kozyr_outlet::start(
        |now| {
            let (retry, alerts) = (tuning.chat_not_found_retry, tuning.turn_alerts);
            PacedOutbox::new(shared.clone(), limits, retry, alerts, now)
        },
        effects,
        local_rx,
        tuning.drain_for,
    )
    .await;

    // Every update holds a guard while it is handled: long polling
    // confirms it to Telegram, and the inbox reader deletes its row, only
    // once the guard is gone.
    let handler: listener::Handler = {
        let shared = shared.clone();
        Arc::new(move |update, guard| Box::pin(handlers::handle(shared.clone(), update, guard)))
    };
    let handoff = listener::Handoff {
        bot: bot.clone(),
        handler,
        handled: Arc::default(),
        default_lang,
        rates: tuning.press_rates,
    };
    let conflicts = Arc::new(AtomicU64::new(0));
    let mut webhook = None;
    let (stop_updates, updates) = match &config.update_mode {
        UpdateMode::LongPolling => {
            let deleted = bot.delete_webhook().await;
            super::failure::record_call("deleteWebhook", &deleted);
            if let Err(e) = deleted {
                tracing::warn!(error = %e, "deleteWebhook failed");
            }
            listener::polling(tuning.poll_timeout, handoff, conflicts.clone())
        }
        UpdateMode::Webhook {
            url,
            listen,
            secret,
        } => {
            use teloxide::payloads::SetWebhookSetters;
            let inbox = shared
                .front
                .service()
                .inbox(kozyr_table::Platform::Telegram);
            // Listening before Telegram is told where to deliver.
            let intake = match intake {
                Some(intake) => intake,
                None => bind_intake(*listen, url, secret.clone(), inbox.clone()).await?,
            };
            let mut set = (bot.set_webhook(url.clone())).allowed_updates(handlers::ALLOWED);
            if let Some(s) = secret {
                set = set.secret_token(s.clone());
            }
            let set = set.await;
            super::failure::record_call("setWebhook", &set);
            if let Err(e) = set {
                intake.stop().await;
                return Err(e.into());
            }
            webhook = Some(intake);
            listener::inbox(inbox, handoff)
        }
    };
    Ok(RunningBot {
        shared,
        stop_updates,
        updates,
        webhook,
        outbox,
        conflicts,
        owns_service: false,
    })
}

/// Binds the webhook intake on `listen` for the path of `url`, writing
/// into `inbox`.
pub async fn bind_intake(
    listen: std::net::SocketAddr,
    url: &url::Url,
    secret: Option<String>,
    inbox: kozyr_table::storage::Inbox,
) -> Result<super::webhook::Intake, BotError> {
    super::webhook::bind(listen, url.path(), secret, inbox)
        .await
        .map_err(|error| BotError::WebhookListen {
            addr: listen,
            error,
        })
}

/// `setMyCommands` for every language, and the default list.
async fn register_commands(bot: &Bot, default_lang: Lang) {
    use teloxide::payloads::SetMyCommandsSetters;
    let r = bot.set_my_commands(bot_commands(default_lang)).await;
    super::failure::record_call("setMyCommands", &r);
    if let Err(e) = r {
        tracing::warn!(error = %e, "setMyCommands failed");
    }
    for lang in Lang::ALL {
        let r = bot
            .set_my_commands(bot_commands(lang))
            .language_code(lang.code())
            .await;
        super::failure::record_call("setMyCommands", &r);
        if let Err(e) = r {
            tracing::warn!(error = %e, lang = lang.code(), "setMyCommands failed");
        }
    }
}

/// Why the bot could not start talking to Telegram.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(
        "Telegram refused the token in TELOXIDE_TOKEN (bot id {bot_id}): copy the token again \
         from BotFather (/mybots, API Token) into TELOXIDE_TOKEN"
    )]
    TokenRefused { bot_id: String },
    #[error("Telegram: {0}")]
    Telegram(#[from] teloxide::RequestError),
}

/// Only a refused token is final; a network error, a 5xx, a 429 or a
/// proxy's garbage may all pass.
pub fn get_me_verdict(e: &teloxide::RequestError) -> Verdict {
    use teloxide::{ApiError, RequestError};
    match e {
        RequestError::Api(ApiError::InvalidToken) => Verdict::Fatal,
        RequestError::RetryAfter(s) => Verdict::Retry {
            at_least: Some(s.duration()),
        },
        _ => Verdict::Retry { at_least: None },
    }
}

/// `getMe`, the bot's first call, retried with `backoff` while Telegram
/// (or `TELOXIDE_API_URL`) cannot be reached.
pub async fn get_me(bot: &Bot, backoff: Backoff) -> Result<Me, StartupError> {
    retry(
        "reaching the Telegram Bot API (getMe)",
        backoff,
        || async {
            let me = bot.get_me().await;
            super::failure::record_call("getMe", &me);
            me
        },
        get_me_verdict,
    )
    .await
    .map_err(|e| match e {
        teloxide::RequestError::Api(teloxide::ApiError::InvalidToken) => {
            StartupError::TokenRefused {
                bot_id: bot.token().split(':').next().unwrap_or("").to_owned(),
            }
        }
        e => StartupError::Telegram(e),
    })
}

#[cfg(test)]
mod get_me_tests {
    use super::*;

    #[test]
    fn only_a_refused_token_is_fatal() {
        use teloxide::{ApiError, RequestError};
        assert_eq!(
            get_me_verdict(&RequestError::Api(ApiError::InvalidToken)),
            Verdict::Fatal
        );
        assert_eq!(
            get_me_verdict(&RequestError::Api(ApiError::Unknown("Bad Gateway".into()))),
            Verdict::Retry { at_least: None }
        );
        assert_eq!(
            get_me_verdict(&RequestError::RetryAfter(
                teloxide::types::Seconds::from_seconds(7)
            )),
            Verdict::Retry {
                at_least: Some(Duration::from_secs(7))
            }
        );
    }
}
