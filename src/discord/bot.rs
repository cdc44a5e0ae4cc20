//! The running Discord shell: the gateway loop (twilight's shard, which
//! heartbeats, reconnects and resumes by itself), the interaction handlers
//! and the outbox, started by [`start`] and stopped by
//! [`RunningDiscord::stop`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use twilight_gateway::{Event, EventTypeFlags, Intents, Shard, ShardId, StreamExt as _};
use twilight_http::Client;
use twilight_model::http::interaction::InteractionResponse;
use twilight_model::id::Id;
use twilight_model::id::marker::ApplicationMarker;

use super::outbox::{self, Local};
use crate::config::{Config, DiscordConfig};
use crate::front::Front;
use crate::front::core::{Admins, Defaults};
use crate::i18n::Lang;
use crate::table::runtime::{SeatAgent, ServiceError, ServiceOptions, TableService};
use crate::table::{ChatKey, Output, TableId, UserId};

/// How long a hand's interaction token is used to edit it. Discord keeps a
/// token 15 minutes; a minute less leaves room for a slow edit.
pub const TOKEN_LIFE: Duration = Duration::from_secs(14 * 60);

/// A player's newest interaction on their hand message: its token edits
/// the hand (`PATCH /webhooks/{app}/{token}/messages/@original`).
#[derive(Clone, Debug)]
pub struct HandToken {
    pub token: String,
    pub at: Instant,
    /// A hash of what the hand message shows, so an edit that would change
    /// nothing is not sent.
    pub shown: Option<i64>,
}

/// The turn to change one hand message ([`Shared::hand_turn`]).
type HandLock = Arc<tokio::sync::Mutex<()>>;

/// Past this many remembered permission answers, the map starts over.
const PERMS_LIMIT: usize = 4096;

/// What the Discord shell shares between the handlers and the outbox.
pub struct Shared {
    pub front: Arc<Front>,
    pub http: Arc<Client>,
    pub app: Id<ApplicationMarker>,
    pub default_lang: Lang,
    /// (person, table) → the newest interaction token of their hand.
    hands: Mutex<HashMap<(UserId, TableId), HandToken>>,
    /// (channel, person) → whether their last interaction there carried
    /// Manage Server, Manage Channels or Administrator.
    perms: Mutex<HashMap<(u64, u64), bool>>,
    local: mpsc::UnboundedSender<Local>,
    token_life: Duration,
    /// Interactions that came over the HTTP endpoint: their first answer
    /// is its HTTP response, not a REST call.
    over_http: Mutex<HashMap<u64, tokio::sync::oneshot::Sender<InteractionResponse>>>,
    /// (person, table) → the turn to change their hand message: the
    /// outbox's edits and the answers to presses on it take it, so that
    /// what the message shows is known and nothing is sent twice.
    hand_locks: Mutex<HashMap<(UserId, TableId), HandLock>>,
    /// The bot's own user id (from READY; 0 before): its messages never
    /// bury a table.
    bot_user: AtomicU64,
    /// Channel → other people's messages since its table message was
    /// posted (MESSAGE_CREATE on the gateway), for channels with a table
    /// message only. Discord-only state: the core never sees chat.
    chatter: Mutex<HashMap<u64, u32>>,
    /// Table → its live public message: a "My hand" pressed on an older
    /// one (a table posted anew since) is out of date.
    live: Mutex<HashMap<TableId, u64>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// The first answer to `interaction` goes to `tx` (the HTTP endpoint).
    pub fn answer_over_http(
        &self,
        interaction: u64,
        tx: tokio::sync::oneshot::Sender<InteractionResponse>,
    ) {
        lock(&self.over_http).insert(interaction, tx);
    }

    /// Hands the answer to the HTTP request that brought the interaction;
    /// `None` when it came from the gateway.
    pub fn answered_over_http(
        &self,
        interaction: u64,
        answer: InteractionResponse,
    ) -> Option<bool> {
        let tx = lock(&self.over_http).remove(&interaction)?;
        Some(tx.send(answer).is_ok())
    }

    pub fn notify(&self, local: Local) {
        let _ = self.local.send(local);
    }

    pub fn set_admin(&self, channel: u64, user: u64, admin: bool) {
        let mut p = lock(&self.perms);
        if p.len() >= PERMS_LIMIT {
            p.clear();
        }
        p.insert((channel, user), admin);
    }

    /// Keeps `token` as the newest of `user`'s hand at `table`.
    pub fn hand_token(&self, user: &UserId, table: TableId, token: String, shown: Option<i64>) {
        lock(&self.hands).insert(
            (user.clone(), table),
            HandToken {
                token,
                at: Instant::now(),
                shown,
            },
        );
    }

    /// The token that still edits `user`'s hand at `table`.
    pub fn fresh_token(&self, user: &UserId, table: TableId) -> Option<HandToken> {
        let mut h = lock(&self.hands);
        let key = (user.clone(), table);
        match h.get(&key) {
            Some(t) if t.at.elapsed() < self.token_life => Some(t.clone()),
            Some(_) => {
                h.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Records what the hand shows now (after an edit through `token`).
    /// An edit through an older token may have landed on the same message
    /// after a newer answer drew it: unless it showed the same, what the
    /// message shows is unknown, and the next render is sent.
    pub fn hand_shown(&self, user: &UserId, table: TableId, token: &str, shown: i64) {
        if let Some(t) = lock(&self.hands).get_mut(&(user.clone(), table)) {
            if t.token == token {
                t.shown = Some(shown);
            } else if t.shown != Some(shown) {
                t.shown = None;
            }
        }
    }

    /// The turn to change `user`'s hand message at `table`, waited for at
    /// most `wait` (`None` then: what the message shows becomes unknown).
    /// Held by an outbox edit until it landed, and by a press on the hand
    /// until its answer went: the other then knows what the message shows
    /// (an edit in flight would otherwise leave it unknown, and the same
    /// content would go out again).
    pub async fn hand_turn(
        &self,
        user: &UserId,
        table: TableId,
        wait: Duration,
    ) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let m = lock(&self.hand_locks)
            .entry((user.clone(), table))
            .or_default()
            .clone();
        tokio::time::timeout(wait, m.lock_owned()).await.ok()
    }

    /// Forgets a token Discord refused (expired), or a hand that is gone.
    pub fn forget_hand(&self, user: &UserId, table: TableId, token: Option<&str>) -> bool {
        let mut h = lock(&self.hands);
        let key = (user.clone(), table);
        if token.is_none_or(|t| h.get(&key).is_some_and(|k| k.token == t)) {
            return h.remove(&key).is_some();
        }
        false
    }

    /// A message was posted in `channel` by `author` (a gateway
    /// MESSAGE_CREATE): counted against the channel's table message unless
    /// the bot wrote it (its announcements, pings and answers).
    pub fn on_message(&self, channel: u64, author: u64) {
        if author == self.bot_user.load(Ordering::Relaxed) || author == self.app.get() {
            return;
        }
        if let Some(n) = lock(&self.chatter).get_mut(&channel) {
            *n = n.saturating_add(1);
        }
    }

    /// Other people's messages below the channel's table message.
    pub fn chatter(&self, channel: u64) -> u32 {
        lock(&self.chatter).get(&channel).copied().unwrap_or(0)
    }

    /// Starts counting the chat of a channel with a table message.
    pub fn watch_channel(&self, channel: u64) {
        lock(&self.chatter).entry(channel).or_insert(0);
    }

    /// The table message was posted anew: nothing is below it.
    pub fn reset_chatter(&self, channel: u64) {
        lock(&self.chatter).insert(channel, 0);
    }

    /// The channel has no live table message any more.
    pub fn unwatch_channel(&self, channel: u64) {
        lock(&self.chatter).remove(&channel);
    }

    /// `message` shows `table` now. Snowflakes grow with time, so the
    /// newest is kept whatever order the outbox reports them in.
    pub fn set_live(&self, table: TableId, message: u64) {
        let mut l = lock(&self.live);
        let e = l.entry(table).or_insert(message);
        *e = (*e).max(message);
    }

    /// Whether `message` is an old message of `table`: it was posted anew
    /// below since (a new deal, buried by chat).
    pub fn is_replaced(&self, table: TableId, message: u64) -> bool {
        lock(&self.live).get(&table).is_some_and(|l| message < *l)
    }

    /// Forgets every hand token of a table (it closed).
    pub fn forget_table(&self, table: TableId) {
        lock(&self.hands).retain(|(_, t), _| *t != table);
        lock(&self.hand_locks).retain(|(_, t), _| *t != table);
        lock(&self.live).remove(&table);
    }
}

impl Admins for Shared {
    /// Manage Server or Manage Channels (or Administrator) as the person's
    /// last interaction in the channel said, or the creator of its table.
    async fn is_admin(&self, chat: &ChatKey, user: &UserId) -> bool {
        let (ChatKey::Discord(c), UserId::Discord(u)) = (chat, user) else {
            return false;
        };
        if lock(&self.perms).get(&(*c, *u)).copied().unwrap_or(false) {
            return true;
        }
        matches!(
            self.front.service().open_table_view(chat).await,
            Ok(Some(v)) if &v.creator == user
        )
    }
}

/// Tuning that tests change; `Default` is production.
#[derive(Clone)]
pub struct Tuning {
    pub service: ServiceOptions,
    pub agent: Arc<dyn SeatAgent>,
    /// How long a hand's token is used (Discord: 15 minutes).
    pub token_life: Duration,
    /// How long a handler waits for the front-end before deferring its answer.
    pub defer_after: Duration,
    pub drain_for: Duration,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            service: ServiceOptions {
                ai_delay: Duration::from_millis(1500),
                ..ServiceOptions::default()
            },
            agent: crate::telegram::bot::default_agent(),
            token_life: TOKEN_LIFE,
            defer_after: Duration::from_millis(2000),
            drain_for: Duration::from_secs(5),
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
    #[error("DISCORD_API_URL is malformed: {0}")]
    ApiUrl(String),
}

/// A started Discord shell.
pub struct RunningDiscord {
    shared: Arc<Shared>,
    gateway: JoinHandle<()>,
    stop_gateway: watch::Sender<bool>,
    outbox: JoinHandle<()>,
    stop_outbox: watch::Sender<bool>,
    /// Whether this shell started the table service (and stops it).
    owns_service: bool,
    /// The HTTP interactions endpoint, with `DISCORD_PUBLIC_KEY`.
    endpoint: Option<(std::net::SocketAddr, JoinHandle<()>)>,
}

impl RunningDiscord {
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    pub fn service(&self) -> &TableService {
        self.shared.front.service()
    }

    /// Where the HTTP interactions endpoint listens, when it is on.
    pub fn interactions_addr(&self) -> Option<std::net::SocketAddr> {
        self.endpoint.as_ref().map(|(a, _)| *a)
    }

    /// Stops the gateway, finishes what is queued (for a while) and, if it
    /// owns it, stops the table service and closes the database.
    pub async fn stop(self) {
        let _ = self.stop_gateway.send(true);
        let _ = self.gateway.await;
        if let Some((_, server)) = &self.endpoint {
            server.abort();
        }
        if self.owns_service {
            self.shared.front.service().shutdown().await;
        }
        let _ = self.stop_outbox.send(true);
        let _ = self.outbox.await;
        if self.owns_service {
            self.shared.front.service().clone().close().await;
        }
    }
}

/// The REST client for `discord`: Discord's own API, or the one at
/// `DISCORD_API_URL` (`{url}/api/v10/…`).
pub fn http_client(discord: &DiscordConfig) -> Result<Client, DiscordError> {
    // twilight's TLS goes through rustls' process-wide provider: ring, as
    // for the rest of kozyr. A second install is refused, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut b = Client::builder().token(discord.token.expose().to_owned());
    if let Some(url) = &discord.api_url {
        let (http, host) = if let Some(h) = url.strip_prefix("http://") {
            (true, h)
        } else if let Some(h) = url.strip_prefix("https://") {
            (false, h)
        } else {
            return Err(DiscordError::ApiUrl(url.clone()));
        };
        let host = host.trim_end_matches('/');
        if host.is_empty() || host.contains('/') {
            return Err(DiscordError::ApiUrl(
                "expected scheme://host:port without a path".into(),
            ));
        }
        b = b.proxy(host.to_owned(), http);
    }
    Ok(b.build())
}

/// Starts the Discord shell with its own table service.
pub async fn start(config: &Config, tuning: Tuning) -> Result<RunningDiscord, DiscordError> {
    let (service, effects) = TableService::builder_from_config(config)
        .await?
        .agent(tuning.agent.clone())
        .options(tuning.service.clone())
        .start()
        .await?;
    let defaults = Defaults {
        lang: config.default_language,
        turn_timer: config.default_turn_timer,
    };
    let front = Arc::new(Front::new(service, defaults));
    let mut running = start_on(config, &tuning, front.clone(), effects).await;
    if running.is_err() {
        front.service().shutdown().await;
        front.service().clone().close().await;
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
    let discord = config.discord.as_ref().ok_or(DiscordError::NoToken)?;
    let http = Arc::new(http_client(discord)?);
    let app = Id::new(discord.token.application_id());
    let gateway_url = gateway_url(&http, discord).await?;
    register_commands(&http, app, discord, config.default_language).await;

    let (local_tx, local_rx) = mpsc::unbounded_channel();
    let shared = Arc::new(Shared {
        front,
        http,
        app,
        default_lang: config.default_language,
        hands: Mutex::new(HashMap::new()),
        perms: Mutex::new(HashMap::new()),
        local: local_tx,
        token_life: tuning.token_life,
        over_http: Mutex::new(HashMap::new()),
        hand_locks: Mutex::new(HashMap::new()),
        bot_user: AtomicU64::new(0),
        chatter: Mutex::new(HashMap::new()),
        live: Mutex::new(HashMap::new()),
    });
    let (stop_outbox, stop_outbox_rx) = watch::channel(false);
    let ob = outbox::Outbox::new(shared.clone()).await;
    let outbox = tokio::spawn(outbox::run(
        ob,
        effects,
        local_rx,
        stop_outbox_rx,
        tuning.drain_for,
    ));
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
    let (stop_gateway, stop_rx) = watch::channel(false);
    let gateway = tokio::spawn(gateway_loop(
        shared.clone(),
        discord.token.expose().to_owned(),
        gateway_url,
        tuning.defer_after,
        stop_rx,
    ));
    Ok(RunningDiscord {
        shared,
        gateway,
        stop_gateway,
        outbox,
        stop_outbox,
        owns_service: false,
        endpoint,
    })
}

/// `GET /gateway/bot` (which also checks the token), unless
/// `DISCORD_GATEWAY_URL` says where to connect. Retried while Discord
/// cannot be reached; a refused token stops the start.
async fn gateway_url(http: &Client, discord: &DiscordConfig) -> Result<String, DiscordError> {
    let mut wait = Duration::from_secs(1);
    loop {
        let r = match http.gateway().authed().await {
            Ok(resp) => resp.model().await.map_err(|e| e.to_string()),
            Err(e) => {
                if let twilight_http::error::ErrorType::Response { status, .. } = e.kind()
                    && status.get() == 401
                {
                    return Err(DiscordError::TokenRefused(e.to_string()));
                }
                Err(e.to_string())
            }
        };
        match r {
            Ok(info) => {
                return Ok(discord.gateway_url.clone().unwrap_or(info.url));
            }
            Err(e) => {
                tracing::warn!(error = %e, retry_in = ?wait, "Discord cannot be reached yet");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(60));
            }
        }
    }
}

/// Registers the slash commands (in one server with `DISCORD_GUILD_ID`).
async fn register_commands(
    http: &Client,
    app: Id<ApplicationMarker>,
    discord: &DiscordConfig,
    lang: Lang,
) {
    let commands = super::commands::slash_commands(lang);
    let client = http.interaction(app);
    let r = match discord.guild_id.and_then(Id::new_checked) {
        Some(guild) => client
            .set_guild_commands(guild, &commands)
            .await
            .map(|_| ()),
        None => client.set_global_commands(&commands).await.map(|_| ()),
    };
    if let Err(e) = r {
        tracing::warn!(error = %e, "registering the slash commands failed");
    }
}

/// Reads gateway events until stopped; each interaction is handled on its
/// own task, so a slow one never holds up the next.
async fn gateway_loop(
    shared: Arc<Shared>,
    token: String,
    url: String,
    defer_after: Duration,
    mut stop: watch::Receiver<bool>,
) {
    // Interactions need no intent at all. GUILD_MESSAGES (not privileged)
    // brings MESSAGE_CREATE, only to count the chat that buries a table
    // message; their content (MESSAGE_CONTENT, privileged) is not needed.
    let config = twilight_gateway::ConfigBuilder::new(token, Intents::GUILD_MESSAGES)
        .proxy_url(url)
        .build();
    let mut shard = Shard::with_config(ShardId::ONE, config);
    let wanted =
        EventTypeFlags::INTERACTION_CREATE | EventTypeFlags::READY | EventTypeFlags::MESSAGE_CREATE;
    loop {
        let item = tokio::select! {
            item = shard.next_event(wanted) => item,
            _ = stop.changed() => break,
        };
        match item {
            None => break,
            Some(Ok(Event::InteractionCreate(i))) => {
                let shared = shared.clone();
                tokio::spawn(async move {
                    super::handlers::on_interaction(shared, i.0, defer_after).await;
                });
            }
            Some(Ok(Event::MessageCreate(m))) => {
                shared.on_message(m.channel_id.get(), m.author.id.get());
            }
            Some(Ok(Event::Ready(r))) => {
                shared.bot_user.store(r.user.id.get(), Ordering::Relaxed);
                tracing::info!(user = %r.user.name, "connected to the Discord gateway");
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => tracing::warn!(error = %e, "gateway"),
        }
    }
    shard.close(twilight_gateway::CloseFrame::NORMAL);
}
