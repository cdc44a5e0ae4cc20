//! The running Discord shell: the gateway (one task per shard this process
//! runs, `DISCORD_SHARDS` or every shard Discord recommends; twilight's
//! shard heartbeats, reconnects and resumes by itself), the interaction
//! handlers and the outbox, started by [`start`] and stopped by
//! [`RunningDiscord::stop`]. A replica standing by connects its
//! `DISCORD_SHARDS` alone ([`Gateway::standing_by`]): their events go to
//! the inbox (`intake`) until it serves, when the same connections are
//! handed to its shell ([`start_serving`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use twilight_gateway::queue::InMemoryQueue;
use twilight_gateway::{Event, EventTypeFlags, Intents, Shard, ShardId, StreamExt as _};
use twilight_http::Client;
use twilight_http::error::ErrorType;
use twilight_model::id::Id;
use twilight_model::id::marker::ApplicationMarker;

use super::gate::GateProxy;
pub use super::shared::{Shared, TOKEN_LIFE};
use kozyr_config::startup::{self, Backoff, Verdict};
use kozyr_config::{Config, DiscordConfig, ShardRange};
use kozyr_front::Front;
use kozyr_front::press_limits::PressRates;
use kozyr_i18n::Lang;
use kozyr_outlet::engine::EngineOutbox;
use kozyr_outlet::service;
use kozyr_table::Output;
use kozyr_table::Platform;
use kozyr_table::runtime::{SeatAgent, ServiceError, ServiceOptions, TableService};
use kozyr_table::storage::Inbox;

/// Tuning that tests change; `Default` is production.
#[derive(Clone)]
pub struct Tuning {
    /// The options and AI player of the service [`start`] opens for this
    /// shell alone (tests); `kozyr run` shares one service set up by `run`.
    pub service: ServiceOptions,
    pub agent: Arc<dyn SeatAgent>,
    /// How long a hand's token is used (Discord: 15 minutes).
    pub token_life: Duration,
    /// How long a handler waits for the front-end before deferring its answer.
    pub defer_after: Duration,
    pub drain_for: Duration,
    /// How long a person is quiet before their turn pings them (`None`:
    /// only those whose hand cannot be edited).
    pub turn_alerts: Option<Duration>,
    /// How many presses a person, and a channel, may have accepted.
    pub press_rates: PressRates,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            service: kozyr_config::run::service_options(),
            agent: kozyr_config::run::default_agent(),
            token_life: TOKEN_LIFE,
            defer_after: Duration::from_millis(2000),
            drain_for: Duration::from_secs(5),
            turn_alerts: Some(kozyr_delivery::alerts::QUIET),
            press_rates: PressRates::PEOPLE,
        }
    }
}

/// Why the Discord shell could not start.
#[derive(Debug, thiserror::Error)]
pub enum DiscordError {
    #[error("DISCORD_TOKEN is not set")]
    NoToken,
    #[error(transparent)]
    Service(#[from] ServiceError),
    #[error("Discord refused the token (DISCORD_TOKEN): {0}")]
    TokenRefused(String),
    #[error("Discord: {0}")]
    Http(String),
}

/// Where a shard's interactions and messages go.
#[derive(Clone)]
enum Route {
    /// This process serves: its shell handles them.
    Serve {
        shared: Arc<Shared>,
        defer_after: Duration,
    },
    /// This replica stands by: into the inbox, for the serving one.
    Inbox(Inbox),
}

/// This process's gateway shards, connected, each read by its own task.
pub struct Gateway {
    tasks: Vec<JoinHandle<()>>,
    shards: ShardRange,
    stop: watch::Sender<bool>,
    route: watch::Sender<Route>,
    fatal: Fatal,
}

/// Why the Discord shell cannot go on, once a shard learns it: Discord
/// closed the gateway for good (the token refused, 4004; intents or
/// shards it will not take). No shard reconnects then, so the process
/// stops and says why rather than run on deaf.
pub use kozyr_config::startup::Fatal;

/// What a gateway close `code` with `reason` means when no shard may
/// reconnect after it (twilight's `CloseCode::can_reconnect`); `None`
/// when the shard reconnects by itself.
fn fatal_close(code: u16, reason: &str) -> Option<String> {
    use twilight_model::gateway::CloseCode;
    let close = CloseCode::try_from(code).ok()?;
    if close.can_reconnect() {
        return None;
    }
    Some(match close {
        CloseCode::AuthenticationFailed => format!(
            "Discord refused the bot token (gateway close {code}: {reason}): check DISCORD_TOKEN \
             (a token reset in the Developer Portal ends the old one)"
        ),
        _ => format!("Discord closed the gateway for good (close {code}: {reason})"),
    })
}

impl Gateway {
    /// A standing-by replica's shards (`DISCORD_SHARDS`; `None` when it is
    /// not set: then the serving replica runs every shard, as one process
    /// does), their events written to `inbox`.
    pub async fn standing_by(
        config: &Config,
        inbox: Inbox,
    ) -> Result<Option<Gateway>, DiscordError> {
        let discord = config.discord.as_ref().ok_or(DiscordError::NoToken)?;
        let Some(shards) = discord.shards else {
            return Ok(None);
        };
        let (http, _gate) = http_client(discord)?;
        let info = gateway_info(&http, discord).await?;
        let gateway = Gateway::connect(discord, &info, shards, Route::Inbox(inbox));
        tracing::info!(%shards, "Discord gateway shards connected while standing by: their events to the inbox");
        Ok(Some(gateway))
    }

    fn connect(
        discord: &DiscordConfig,
        info: &GatewayInfo,
        shards: ShardRange,
        route: Route,
    ) -> Gateway {
        let (stop, stop_rx) = watch::channel(false);
        let (route, route_rx) = watch::channel(route);
        let fatal = Fatal::default();
        let tasks = gateway_shards(discord, info, shards)
            .map(|shard| {
                tokio::spawn(shard_loop(
                    shard,
                    route_rx.clone(),
                    stop_rx.clone(),
                    fatal.clone(),
                ))
            })
            .collect();
        Gateway {
            tasks,
            shards,
            stop,
            route,
            fatal,
        }
    }

    /// Why the gateway cannot go on, once it is known ([`Fatal`]).
    pub fn fatal(&self) -> Fatal {
        self.fatal.clone()
    }

    /// The shards this gateway runs.
    pub fn shards(&self) -> ShardRange {
        self.shards
    }

    /// Closes every shard's connection.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for shard in self.tasks {
            let _ = shard.await;
        }
    }
}

/// A started Discord shell.
pub struct RunningDiscord {
    shared: Arc<Shared>,
    gateway: Gateway,
    /// The reader of the inbox's Discord rows (a standby's shards' events).
    intake: JoinHandle<()>,
    /// Saves the burying counts as they change.
    burials: JoinHandle<()>,
    stop_intake: watch::Sender<bool>,
    outbox: kozyr_outlet::Running,
    /// Whether this shell started the table service (and stops it).
    owns_service: bool,
    /// The HTTP interactions endpoint, with `DISCORD_PUBLIC_KEY`.
    endpoint: Option<(std::net::SocketAddr, JoinHandle<()>)>,
    /// The slash commands' registration, still under way at a stop.
    registering: JoinHandle<()>,
    /// Every REST call but the callbacks goes through it.
    _gate: GateProxy,
}

impl RunningDiscord {
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    pub fn service(&self) -> &TableService {
        self.shared.front.service()
    }

    /// The gateway shards this process runs.
    pub fn shards(&self) -> ShardRange {
        self.gateway.shards
    }

    /// Why this shell cannot go on, once it is known ([`Fatal`]).
    pub fn fatal(&self) -> Fatal {
        self.gateway.fatal()
    }

    /// Where the HTTP interactions endpoint listens, when it is on.
    pub fn interactions_addr(&self) -> Option<std::net::SocketAddr> {
        self.endpoint.as_ref().map(|(a, _)| *a)
    }

    /// Stops the gateway, finishes what is queued (for a while) and, if it
    /// owns it, stops the table service and closes the database.
    pub async fn stop(self) {
        self.registering.abort();
        self.gateway.stop().await;
        let _ = self.stop_intake.send(true);
        let _ = self.intake.await;
        let _ = self.burials.await;
        if let Some((_, server)) = &self.endpoint {
            server.abort();
        }
        let own = self.owns_service.then(|| self.shared.front.service());
        self.outbox.stop_with(own).await;
    }
}

/// The REST client for `discord` — Discord's own API, or the one at
/// `DISCORD_API_URL` (`{url}/api/v10/…`) — for every call but interaction
/// callbacks, through the bot's own [`GateProxy`] (which keeps Discord's
/// global 429s; twilight does not). The client works while the gate is
/// kept.
pub fn http_client(discord: &DiscordConfig) -> Result<(Client, GateProxy), DiscordError> {
    let upstream = (discord.api_url.clone()).unwrap_or_else(|| super::gate::DISCORD.to_owned());
    let gate = GateProxy::start(&upstream)
        .map_err(|e| DiscordError::Http(format!("cannot start the REST gate: {e}")))?;
    let client = client_with(
        discord,
        Some(twilight_http_ratelimiting::RateLimiter::new(
            kozyr_delivery::gate::GLOBAL_CALLS_PER_WINDOW,
        )),
        None,
        Some(format!("http://{}", gate.host())),
    );
    Ok((client, gate))
}

/// The client interaction callbacks go through (`Shared::callbacks`): no
/// rate limiter, and no longer a wait than Discord gives. Callbacks are
/// bound to no global limit, so they go straight to Discord.
pub fn callback_client(discord: &DiscordConfig) -> Client {
    client_with(
        discord,
        None,
        Some(kozyr_delivery::interaction::ANSWER_WINDOW),
        discord.api_url.clone(),
    )
}

/// A REST client; `base`: `scheme://host[:port]` to send to instead of
/// Discord (as the configuration checked it).
fn client_with(
    discord: &DiscordConfig,
    limiter: Option<twilight_http_ratelimiting::RateLimiter>,
    timeout: Option<Duration>,
    base: Option<String>,
) -> Client {
    // twilight's TLS goes through rustls' process-wide provider: ring, as
    // for the rest of kozyr. A second install is refused, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut b = Client::builder()
        .token(discord.token.expose().to_owned())
        .ratelimiter(limiter);
    if let Some(t) = timeout {
        b = b.timeout(t);
    }
    if let Some(base) = base {
        let (http, host) = match base.strip_prefix("http://") {
            Some(h) => (true, h),
            None => (false, base.trim_start_matches("https://")),
        };
        b = b.proxy(host.to_owned(), http);
    }
    b.build()
}

/// Starts the Discord shell with its own table service.
pub async fn start(config: &Config, tuning: Tuning) -> Result<RunningDiscord, DiscordError> {
    let (front, effects) =
        kozyr_config::run::own_front(config, tuning.agent.clone(), tuning.service.clone()).await?;
    let mut running = start_on(config, &tuning, front.clone(), effects).await;
    if running.is_err() {
        front.service().close().await;
    }
    if let Ok(r) = &mut running {
        r.owns_service = true;
    }
    running
}

/// Starts the Discord shell on a front-end others share; `effects` are the
/// service's outputs for Discord chats.
pub async fn start_on(
    config: &Config,
    tuning: &Tuning,
    front: Arc<Front>,
    effects: mpsc::UnboundedReceiver<Output>,
) -> Result<RunningDiscord, DiscordError> {
    start_serving(config, tuning, front, effects, None).await
}

/// [`start_on`] for a replica that stood by: the shards it connected then
/// (`standing_by`) are its shell's now, their connections kept.
pub async fn start_serving(
    config: &Config,
    tuning: &Tuning,
    front: Arc<Front>,
    effects: mpsc::UnboundedReceiver<Output>,
    standing_by: Option<Gateway>,
) -> Result<RunningDiscord, DiscordError> {
    let discord = config.discord.as_ref().ok_or(DiscordError::NoToken)?;
    let (http, gate) = http_client(discord)?;
    let http = Arc::new(http);
    let app = Id::new(discord.token.application_id());
    let gateway = gateway_info(&http, discord).await?;
    // In the background: a 429 on the one bulk PUT (twilight waits it
    // out and tries again) must not hold up the gateway, and with it
    // every interaction. A running bot's commands are registered already;
    // a change to them reaches people a moment later.
    let registering = tokio::spawn(register_commands(
        http.clone(),
        app,
        discord.guild_id,
        config.default_language,
    ));
    let bot_user = bot_user(&http).await;

    let (local_tx, local_rx) = mpsc::unbounded_channel();
    let callbacks = Arc::new(callback_client(discord));
    let shared = Arc::new(Shared::new(
        front,
        (http, callbacks),
        app,
        config.default_language,
        local_tx,
        tuning.token_life,
        tuning.press_rates,
    ));
    if let Some(user) = bot_user {
        shared.set_bot_user(user);
    }
    let outbox = kozyr_outlet::start(
        |now| EngineOutbox::start(shared.clone(), tuning.turn_alerts, now),
        effects,
        local_rx,
        tuning.drain_for,
    )
    .await;
    let endpoint = match &discord.public_key {
        Some(key) => {
            let verifier = super::endpoint::Verifier::from_hex(key)
                .map_err(|e| DiscordError::Http(format!("DISCORD_PUBLIC_KEY: {e}")))?;
            let listen = discord.interactions_listen;
            let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
                DiscordError::Http(format!(
                    "cannot listen on DISCORD_INTERACTIONS_LISTEN {listen}: {e}"
                ))
            })?;
            let addr = listener
                .local_addr()
                .map_err(|e| DiscordError::Http(e.to_string()))?;
            let app = super::endpoint::router(shared.clone(), verifier, tuning.defer_after);
            let server = tokio::spawn(async move {
                if let Err(e) = axum::serve(listener, app).await {
                    tracing::error!(error = %e, "the interactions endpoint failed");
                }
            });
            tracing::info!(%addr, path = super::endpoint::PATH, "Discord interactions endpoint");
            Some((addr, server))
        }
        None => None,
    };
    // What standbys' shards received waits in the inbox, older first.
    let (stop_intake, stop_intake_rx) = watch::channel(false);
    let intake = tokio::spawn(super::intake::consume(
        shared.clone(),
        shared.front.service().inbox(kozyr_table::Platform::Discord),
        tuning.defer_after,
        stop_intake_rx,
    ));
    let burials = tokio::spawn(service::save_burials(
        shared.front.service().clone(),
        Platform::Discord,
        shared.burials.clone(),
        stop_intake.subscribe(),
    ));
    let serve = Route::Serve {
        shared: shared.clone(),
        defer_after: tuning.defer_after,
    };
    let shards_gateway = match standing_by {
        // The same connections: no shard is away while the roles change.
        Some(g) => {
            let _ = g.route.send(serve);
            g
        }
        None => {
            let shards = discord.shards.unwrap_or(ShardRange {
                first: 0,
                last: gateway.recommended - 1,
                total: gateway.recommended,
            });
            Gateway::connect(discord, &gateway, shards, serve)
        }
    };
    let shards = shards_gateway.shards;
    tracing::info!(%shards, recommended = gateway.recommended, "Discord gateway shards");
    if shards.total < gateway.recommended {
        // Discord closes a shard past 2,500 servers with 4011, which
        // twilight reports as fatal: say why before it happens.
        tracing::warn!(
            %shards,
            recommended = gateway.recommended,
            "DISCORD_SHARDS has fewer shards in all than Discord recommends"
        );
    }
    Ok(RunningDiscord {
        shared,
        gateway: shards_gateway,
        intake,
        burials,
        stop_intake,
        outbox,
        owns_service: false,
        endpoint,
        registering,
        _gate: gate,
    })
}

/// What `GET /gateway/bot` says: where to connect (unless
/// `DISCORD_GATEWAY_URL` says), how many shards Discord recommends, and how
/// many sessions may start (IDENTIFYs: at most `max_concurrency` at once,
/// `remaining` until `reset_after`).
struct GatewayInfo {
    url: String,
    /// At least 1.
    recommended: u32,
    limit: twilight_model::gateway::SessionStartLimit,
}

/// `GET /gateway/bot` (which also checks the token), retried as any
/// start-up call ([`startup::retry`]) while Discord cannot be reached; a
/// refused token stops the start.
async fn gateway_info(http: &Client, discord: &DiscordConfig) -> Result<GatewayInfo, DiscordError> {
    let ask = || async {
        match http.gateway().authed().await {
            Ok(resp) => resp
                .model()
                .await
                .map_err(|e| DiscordError::Http(e.to_string())),
            Err(e) => Err(match e.kind() {
                ErrorType::Response { status, .. } if status.get() == 401 => {
                    DiscordError::TokenRefused(e.to_string())
                }
                _ => DiscordError::Http(e.to_string()),
            }),
        }
    };
    let verdict = |e: &DiscordError| match e {
        DiscordError::TokenRefused(_) => Verdict::Fatal,
        _ => Verdict::Retry { at_least: None },
    };
    let what = "reaching Discord (GET /gateway/bot)";
    let info = startup::retry(what, Backoff::default(), ask, verdict).await?;
    Ok(GatewayInfo {
        url: discord.gateway_url.clone().unwrap_or(info.url),
        recommended: info.shards.max(1),
        limit: info.session_start_limit,
    })
}

/// The bot's own user id (`GET /users/@me`): a serving replica whose
/// shards are all elsewhere hears no READY, and its messages must not
/// count as chat below a table. `None` if Discord does not say (the READY
/// of a shard of its own says then).
async fn bot_user(http: &Client) -> Option<u64> {
    match http.current_user().await {
        Ok(resp) => match resp.model().await {
            Ok(user) => Some(user.id.get()),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the bot's own user");
                None
            }
        },
        Err(e) => {
            tracing::warn!(error = %e, "cannot ask for the bot's own user");
            None
        }
    }
}

/// Registers the slash commands (in one server with `DISCORD_GUILD_ID`).
async fn register_commands(
    http: Arc<Client>,
    app: Id<ApplicationMarker>,
    guild_id: Option<u64>,
    lang: Lang,
) {
    let commands = super::commands::slash_commands(lang);
    let client = http.interaction(app);
    let r = match guild_id.and_then(Id::new_checked) {
        Some(guild) => client
            .set_guild_commands(guild, &commands)
            .await
            .map(|_| ()),
        None => client.set_global_commands(&commands).await.map(|_| ()),
    };
    match r {
        Ok(()) => tracing::debug!("slash commands registered"),
        Err(e) => tracing::warn!(error = %e, "registering the slash commands failed"),
    }
}

/// The shards `range` names, sharing one IDENTIFY queue that keeps to the
/// session start limit Discord gave (twilight's `create_recommended` and
/// `create_bucket` build the same shards, but with Discord's default
/// limit, and its `create_iterator` panics on a shard past the total).
fn gateway_shards(
    discord: &DiscordConfig,
    gateway: &GatewayInfo,
    range: ShardRange,
) -> impl Iterator<Item = Shard> + use<> {
    let limit = &gateway.limit;
    // InMemoryQueue panics when `remaining` exceeds `total`.
    let total_starts = limit.total.max(limit.remaining);
    let queue = InMemoryQueue::new(
        limit.max_concurrency.max(1),
        limit.remaining,
        Duration::from_millis(limit.reset_after),
        total_starts,
    );
    // Interactions need no intent at all. GUILD_MESSAGES (not privileged)
    // brings MESSAGE_CREATE, only to count the chat that buries a table
    // message; their content (MESSAGE_CONTENT, privileged) is not needed.
    let config = twilight_gateway::ConfigBuilder::new(
        discord.token.expose().to_owned(),
        Intents::GUILD_MESSAGES,
    )
    .proxy_url(gateway.url.clone())
    .queue(queue)
    .build();
    let total = range.total;
    (range.first..=range.last)
        .filter_map(move |number| ShardId::new_checked(number, total))
        .map(move |id| Shard::with_config(id, config.clone()))
}

/// Reads one shard's gateway events until stopped, each where the route
/// says at the time: handled here (each interaction on its own task, so a
/// slow one never holds up the next), or written to the inbox in order
/// (each durable before the next is read).
async fn shard_loop(
    mut shard: Shard,
    route: watch::Receiver<Route>,
    mut stop: watch::Receiver<bool>,
    fatal: Fatal,
) {
    let id = shard.id();
    let label = format!("{}/{}", id.number(), id.total());
    kozyr_metrics::gateway_shard(&label, false);
    let wanted = EventTypeFlags::INTERACTION_CREATE
        | EventTypeFlags::READY
        | EventTypeFlags::RESUMED
        | EventTypeFlags::MESSAGE_CREATE;
    loop {
        let item = tokio::select! {
            item = shard.next_event(wanted) => item,
            _ = stop.changed() => break,
        };
        let now = route.borrow().clone();
        match item {
            None => break,
            Some(Ok(Event::InteractionCreate(i))) => match now {
                Route::Serve {
                    shared,
                    defer_after,
                } => {
                    tokio::spawn(async move {
                        super::handlers::on_interaction(shared, i.0, defer_after, Duration::ZERO)
                            .await;
                    });
                }
                Route::Inbox(inbox) => {
                    let key = i.id.get();
                    let received = super::intake::Received::interaction(i.0);
                    if let Err(e) = super::intake::put(&inbox, key, &received).await {
                        tracing::warn!(error = %e, shard = %id, interaction = key, "an interaction could not reach the serving replica");
                    }
                }
            },
            Some(Ok(Event::MessageCreate(m))) => {
                let (channel, author) = (m.channel_id.get(), m.author.id.get());
                match now {
                    Route::Serve { shared, .. } => shared.on_message(channel, author, m.id.get()),
                    Route::Inbox(inbox) => {
                        let received = super::intake::Received::message(channel, author);
                        if let Err(e) = super::intake::put(&inbox, m.id.get(), &received).await {
                            tracing::warn!(error = %e, shard = %id, "a message could not be counted by the serving replica");
                        }
                    }
                }
            }
            Some(Ok(Event::Ready(r))) => {
                if let Route::Serve { shared, .. } = now {
                    shared.set_bot_user(r.user.id.get());
                }
                kozyr_metrics::gateway_shard(&label, true);
                tracing::info!(user = %r.user.name, shard = %id, "connected to the Discord gateway");
            }
            Some(Ok(Event::Resumed)) => kozyr_metrics::gateway_shard(&label, true),
            Some(Ok(Event::GatewayClose(frame))) => {
                kozyr_metrics::gateway_shard(&label, false);
                match frame.as_ref().and_then(|f| fatal_close(f.code, &f.reason)) {
                    Some(why) => {
                        tracing::error!(shard = %id, "{why}");
                        fatal.raise(why);
                    }
                    None => {
                        tracing::info!(shard = %id, code = frame.as_ref().map(|f| f.code), "a Discord gateway shard lost its connection")
                    }
                }
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => tracing::warn!(error = %e, shard = %id, "gateway"),
        }
    }
    shard.close(twilight_gateway::CloseFrame::NORMAL);
    kozyr_metrics::gateway_shard(&label, false);
}
