//! A strict fake Discord on loopback for tests: the gateway WebSocket
//! (HELLO, IDENTIFY → READY, heartbeats, RESUME → RESUMED with the missed
//! events, INTERACTION_CREATE; a test can drop the connection or send op
//! 7 / op 9) and the REST routes the bot uses, talked to by the real
//! twilight clients. It shards as Discord does: `GET /gateway/bot`
//! recommends a shard count, IDENTIFY names `[id, total]` and is closed
//! with 4010 (invalid shard) or 4011 (sharding required, past a number of
//! servers per shard the test sets), READY lists the shard's servers, and
//! each server's events go only to the session of shard `(guild_id >> 22)
//! % total` (channels are placed in servers; an event whose shard has no
//! session is a violation). It enforces what Discord enforces — each interaction
//! answered once and within 3 s, interaction tokens valid 15 minutes (on a
//! clock the test moves), component and content limits, per-route 429s
//! with rate-limit headers — and records every violation, every REST call
//! and the time from each interaction to its answer.
//!
//! Tests act as people: send a slash command, click a button or choose in
//! a select on a message the person can see (public, or their own
//! ephemeral), write a plain message in a channel (MESSAGE_CREATE, only to
//! a session identified with the `GUILD_MESSAGES` intent, like every new
//! public message, the bot's own included), and read what a person sees.

mod world;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use world::World;
pub use world::{Call, GUILD_MESSAGES, Seen, SeenSelect, User, shard_of};

/// The application (and bot user) id of the fake's token.
pub const APP_ID: u64 = 123456789012345678;
/// The one server every channel belongs to.
pub const GUILD_ID: u64 = 900000000000000001;
/// A bot token whose first part is [`APP_ID`] in base64.
pub const TOKEN: &str = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.fake-discord-token-for-kozyr-tests";

/// What a test tells the live gateway connection.
#[derive(Clone, Debug)]
enum GwCtl {
    Dispatch,
    /// Close the TCP connection without a close frame.
    Drop,
    /// [`GwCtl::Drop`] for the connections of one shard id only.
    DropShard(u64),
    /// op 7: reconnect and resume.
    Reconnect,
    /// op 9 with `d` = resumable.
    InvalidSession(bool),
    /// Close every connection with this close code.
    Close(u16),
}

pub(crate) struct Inner {
    world: Mutex<World>,
    gw: broadcast::Sender<GwCtl>,
    addr: SocketAddr,
    /// Bumped by [`FakeDiscord::release_answers`]: held answers go.
    release: tokio::sync::watch::Sender<u64>,
}

/// The fake; dropping it (its last clone) stops the server. Clones are
/// the same fake, for tests that play in several places at once.
#[derive(Clone)]
pub struct FakeDiscord {
    inner: Arc<Inner>,
    // Held for its drop: the last clone stops the server.
    _server: Arc<Server>,
}

struct Server(tokio::task::JoinHandle<()>);

impl Drop for Server {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn lock(inner: &Inner) -> std::sync::MutexGuard<'_, World> {
    inner.world.lock().unwrap_or_else(|p| p.into_inner())
}

impl FakeDiscord {
    pub async fn start() -> FakeDiscord {
        Self::start_on("127.0.0.1:0".parse().expect("address")).await
    }

    /// On a given address (a restarted bot must find the same fake).
    pub async fn start_on(addr: SocketAddr) -> FakeDiscord {
        let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let (gw, _) = broadcast::channel(1024);
        let inner = Arc::new(Inner {
            world: Mutex::new(World::new(format!("ws://{addr}"))),
            gw,
            addr,
            release: tokio::sync::watch::Sender::new(0),
        });
        let app = Router::new()
            .route("/", get(gateway))
            .route("/api/v10/{*path}", any(rest))
            .with_state(inner.clone());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeDiscord {
            inner,
            _server: Arc::new(Server(server)),
        }
    }

    /// `scheme://host:port` for `DISCORD_API_URL`.
    pub fn api_url(&self) -> String {
        format!("http://{}", self.inner.addr)
    }

    pub fn gateway_url(&self) -> String {
        format!("ws://{}", self.inner.addr)
    }

    /// The heartbeat interval HELLO announces.
    pub fn set_heartbeat_interval(&self, d: Duration) {
        lock(&self.inner).heartbeat_ms = d.as_millis() as u64;
    }

    /// The server's language (`guild_locale`), `en-US` at first.
    pub fn set_guild_locale(&self, locale: &str) {
        lock(&self.inner).guild_locale = locale.to_owned();
    }

    // ------------------------------------------------------ people act

    /// `user` types `/name` in `channel`; the interaction's id.
    pub fn slash(&self, user: &User, channel: u64, name: &str) -> u64 {
        let id = lock(&self.inner).slash(user, channel, name);
        let _ = self.inner.gw.send(GwCtl::Dispatch);
        id
    }

    /// The JSON of a slash command for an HTTP interactions endpoint.
    pub fn slash_for_http(&self, user: &User, channel: u64, name: &str) -> Value {
        lock(&self.inner).slash_for_http(user, channel, name)
    }

    /// `user` clicks the button `custom_id` on `message`, which they must
    /// be able to see.
    pub fn click(&self, user: &User, message: u64, custom_id: &str) -> Result<u64, String> {
        let id = lock(&self.inner).click(user, message, custom_id)?;
        let _ = self.inner.gw.send(GwCtl::Dispatch);
        Ok(id)
    }

    /// A client that sends `custom_id` on `message` whether or not the
    /// message has that button (an old client, a forged request); the
    /// message must still be one `user` can see.
    pub fn click_raw(&self, user: &User, message: u64, custom_id: &str) -> Result<u64, String> {
        let id = lock(&self.inner).click_raw(user, message, custom_id)?;
        let _ = self.inner.gw.send(GwCtl::Dispatch);
        Ok(id)
    }

    /// `user` chooses `values` in the select menu of `message`.
    pub fn choose(&self, user: &User, message: u64, values: &[String]) -> Result<u64, String> {
        let id = lock(&self.inner).choose(user, message, values)?;
        let _ = self.inner.gw.send(GwCtl::Dispatch);
        Ok(id)
    }

    /// `user` writes a plain message in `channel` (chat under the table);
    /// MESSAGE_CREATE goes out if the bot identified with `GUILD_MESSAGES`.
    /// The message's id.
    pub fn say(&self, user: &User, channel: u64, text: &str) -> u64 {
        let id = {
            let mut w = lock(&self.inner);
            w.wake = false;
            w.say(user, channel, text)
        };
        let _ = self.inner.gw.send(GwCtl::Dispatch);
        id
    }

    /// MESSAGE_CREATE events the gateway has queued (for any session).
    pub fn message_creates(&self) -> usize {
        lock(&self.inner).message_creates()
    }

    /// What `user` sees in `channel`, oldest first: public messages and
    /// their own ephemeral ones.
    pub fn seen_by(&self, user: &User, channel: u64) -> Vec<Seen> {
        lock(&self.inner).seen_by(user.id, channel)
    }

    /// How the interaction was answered (its response type), if it was.
    pub fn answer_of(&self, interaction: u64) -> Option<u8> {
        lock(&self.inner).answer_of(interaction)
    }

    // ------------------------------------------------------ the world

    /// Moves the fake's clock (interaction tokens expire on it).
    pub fn advance(&self, d: Duration) {
        lock(&self.inner).advance(d);
    }

    /// Everything the bot did that Discord would refuse or punish.
    pub fn violations(&self) -> Vec<String> {
        lock(&self.inner).violations.clone()
    }

    /// Edits that changed nothing the message shows (a REST edit, or an
    /// interaction's update answer, with the content it already had):
    /// Discord takes them, and each spends a call of its rate limits.
    pub fn unchanged_edits(&self) -> usize {
        lock(&self.inner).unchanged_edits
    }

    /// How many new messages of the bot notified `user` by a mention.
    pub fn notifications_of(&self, user: &User) -> usize {
        lock(&self.inner)
            .notified
            .get(&user.id)
            .copied()
            .unwrap_or(0)
    }

    pub fn calls(&self) -> Vec<Call> {
        lock(&self.inner).calls.clone()
    }

    /// From each interaction's dispatch to its answer, in answer order.
    pub fn latencies(&self) -> Vec<Duration> {
        lock(&self.inner).latencies.clone()
    }

    /// Interactions dispatched and never answered.
    pub fn unanswered(&self) -> Vec<u64> {
        lock(&self.inner).unanswered()
    }

    /// The next `n` calls to routes starting with `route` (`"PATCH
    /// /channels"`) are answered 429 with rate-limit headers.
    pub fn rate_limit(&self, route: &str, n: usize) {
        lock(&self.inner).limits.push((route.to_owned(), n));
    }

    /// The next `n` calls to routes starting with `route` (`"POST
    /// /channels/:id/messages"`) are carried out at once — people see
    /// their effect — but answered only at [`FakeDiscord::release_answers`],
    /// as a slow network would deliver them (twilight gives up after 10 s).
    pub fn hold_answers(&self, route: &str, n: usize) {
        lock(&self.inner).holds.push((route.to_owned(), n));
    }

    /// Held answers go now.
    pub fn release_answers(&self) {
        self.inner.release.send_modify(|g| *g += 1);
    }

    /// The next call bound to Discord's global limit (every REST call of
    /// the bot but interaction callbacks and their webhooks) is answered
    /// with a global 429 for `retry_after` — as Discord's edge sends one
    /// (no rate-limit headers) with `from_edge`. Calls that arrive inside
    /// it, later than `GLOBAL_GRACE` (300 ms) after it, are violations.
    pub fn rate_limit_globally(&self, retry_after: Duration, from_edge: bool) {
        lock(&self.inner).global_limits.push(world::GlobalLimit {
            retry_after,
            from_edge,
        });
    }

    /// The next `n` calls to routes starting with `route` are answered 502
    /// Bad Gateway, and change nothing.
    pub fn outage(&self, route: &str, n: usize) {
        lock(&self.inner).outages.push((route.to_owned(), n));
    }

    /// Edits of `message` are refused with 30046 (too old) from now on.
    pub fn refuse_edits_of(&self, message: u64) {
        lock(&self.inner).too_old.insert(message);
    }

    /// The slash commands registered, by name.
    pub fn commands(&self) -> Vec<Value> {
        lock(&self.inner).commands.clone()
    }

    /// Shards like Discord's: `GET /gateway/bot` recommends `recommended`
    /// shards, and an IDENTIFY whose shard would hold more than
    /// `guilds_per_shard` servers is closed with 4011 (sharding required).
    pub fn set_shards(&self, recommended: u64, guilds_per_shard: Option<usize>) {
        let mut w = lock(&self.inner);
        w.recommended_shards = recommended;
        w.guilds_per_shard = guilds_per_shard;
    }

    /// How many IDENTIFYs may start at once (`max_concurrency`, 1 at first:
    /// twilight then spaces them 5 s apart, as Discord wants).
    pub fn set_max_concurrency(&self, n: u64) {
        lock(&self.inner).max_concurrency = n;
    }

    /// Puts `channel` in the server `guild` (the bot is in it); channels
    /// not placed are in [`GUILD_ID`].
    pub fn place_channel(&self, channel: u64, guild: u64) {
        let mut w = lock(&self.inner);
        w.guilds.insert(guild);
        w.guild_of.insert(channel, guild);
    }

    /// `[id, total]` of every IDENTIFY accepted, in order.
    pub fn identified_shards(&self) -> Vec<(u64, u64)> {
        lock(&self.inner).identified.clone()
    }

    /// `[id, total]` of the sessions connected now.
    pub fn live_shards(&self) -> Vec<(u64, u64)> {
        lock(&self.inner).live_shards()
    }

    /// (IDENTIFYs, RESUMEs, heartbeats) received.
    pub fn gateway_counts(&self) -> (usize, usize, usize) {
        let w = lock(&self.inner);
        (w.identifies, w.resumes, w.heartbeats)
    }

    /// Whether a session is connected and identified (or resumed).
    pub fn connected(&self) -> bool {
        lock(&self.inner).connected > 0
    }

    pub fn drop_gateway(&self) {
        let _ = self.inner.gw.send(GwCtl::Drop);
    }

    /// Closes the connections of shard `id` only, without a close frame.
    pub fn drop_shard(&self, id: u64) {
        let _ = self.inner.gw.send(GwCtl::DropShard(id));
    }

    pub fn send_reconnect(&self) {
        let _ = self.inner.gw.send(GwCtl::Reconnect);
    }

    /// The bot token is reset, as with the Developer Portal's "Reset
    /// Token": every gateway connection is closed with 4004
    /// (authentication failed), IDENTIFY is refused so, and REST calls
    /// with it are answered 401.
    pub fn revoke_token(&self) {
        lock(&self.inner).token_revoked = true;
        let _ = self.inner.gw.send(GwCtl::Close(4004));
    }

    pub fn send_invalid_session(&self, resumable: bool) {
        let _ = self.inner.gw.send(GwCtl::InvalidSession(resumable));
    }
}

// ---------------------------------------------------------------- gateway

async fn gateway(State(inner): State<Arc<Inner>>, ws: WebSocketUpgrade) -> Response {
    ws.on_upgrade(move |socket| session(inner, socket))
}

fn op(op: u8, d: Value) -> WsMessage {
    WsMessage::Text(
        json!({"op": op, "d": d, "s": null, "t": null})
            .to_string()
            .into(),
    )
}

async fn session(inner: Arc<Inner>, mut ws: WebSocket) {
    let mut ctl = inner.gw.subscribe();
    let interval = lock(&inner).heartbeat_ms;
    if ws
        .send(op(10, json!({"heartbeat_interval": interval})))
        .await
        .is_err()
    {
        return;
    }
    // The session this connection speaks for, once identified or resumed.
    let mut session: Option<String> = None;
    let mut sent_seq = 0u64;
    let mut counted = false;
    loop {
        // Events the session has not had yet go out first.
        if let Some(s) = &session {
            let pending = lock(&inner).events_after(s, sent_seq);
            for (seq, text) in pending {
                if ws.send(WsMessage::Text(text.into())).await.is_err() {
                    break;
                }
                sent_seq = seq;
                lock(&inner).delivered(s, seq);
            }
        }
        tokio::select! {
            m = ws.recv() => {
                let Some(Ok(m)) = m else { break };
                let WsMessage::Text(t) = m else {
                    if matches!(m, WsMessage::Close(_)) { break; }
                    continue;
                };
                let Ok(v) = serde_json::from_str::<Value>(&t) else {
                    lock(&inner).violations.push(format!("gateway: not JSON: {t}"));
                    break;
                };
                match v["op"].as_u64() {
                    Some(1) => {
                        lock(&inner).heartbeats += 1;
                        if ws.send(op(11, Value::Null)).await.is_err() { break; }
                    }
                    Some(2) => {
                        let token = v["d"]["token"].as_str().unwrap_or("");
                        let intents = v["d"]["intents"].as_u64();
                        let shard = v["d"]["shard"].as_array().and_then(|a| match a.as_slice() {
                            [id, total] => Some((id.as_u64()?, total.as_u64()?)),
                            _ => None,
                        });
                        let ready = lock(&inner).identify(token, intents, shard);
                        match ready {
                            Ok((sid, text)) => {
                                session = Some(sid);
                                sent_seq = 1;
                                if !counted { lock(&inner).connected += 1; counted = true; }
                                if ws.send(WsMessage::Text(text.into())).await.is_err() { break; }
                            }
                            Err(code) => {
                                let _ = ws.send(WsMessage::Close(Some(axum::extract::ws::CloseFrame {
                                    code,
                                    reason: match code {
                                        4013 => "Invalid intent(s).",
                                        4010 => "Invalid shard.",
                                        4011 => "Sharding required.",
                                        _ => "Authentication failed.",
                                    }.into(),
                                }))).await;
                                break;
                            }
                        }
                    }
                    Some(6) => {
                        let sid = v["d"]["session_id"].as_str().unwrap_or("").to_owned();
                        let seq = v["d"]["seq"].as_u64().unwrap_or(0);
                        let ok = lock(&inner).resume(&sid, seq);
                        if ok {
                            session = Some(sid);
                            sent_seq = seq;
                            if !counted { lock(&inner).connected += 1; counted = true; }
                            // The missed events, then RESUMED.
                            let s = session.clone().unwrap_or_default();
                            let pending = lock(&inner).events_after(&s, sent_seq);
                            for (seq, text) in pending {
                                if ws.send(WsMessage::Text(text.into())).await.is_err() { break; }
                                sent_seq = seq;
                                lock(&inner).delivered(&s, seq);
                            }
                            let resumed = lock(&inner).resumed_event(&s);
                            if let Some((seq, text)) = resumed {
                                sent_seq = seq;
                                if ws.send(WsMessage::Text(text.into())).await.is_err() { break; }
                            }
                        } else if ws.send(op(9, json!(false))).await.is_err() {
                            break;
                        }
                    }
                    other => {
                        lock(&inner).violations.push(format!("gateway: unexpected op {other:?}"));
                    }
                }
            }
            c = ctl.recv() => match c {
                Ok(GwCtl::Dispatch) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Ok(GwCtl::Drop) => break,
                Ok(GwCtl::DropShard(id)) => {
                    let mine = session.as_deref().and_then(|s| lock(&inner).shard_of_session(s));
                    if mine == Some(id) {
                        break;
                    }
                }
                Ok(GwCtl::Close(code)) => {
                    let _ = ws.send(WsMessage::Close(Some(axum::extract::ws::CloseFrame {
                        code,
                        reason: "Authentication failed.".into(),
                    }))).await;
                    break;
                }
                Ok(GwCtl::Reconnect) => {
                    let _ = ws.send(op(7, Value::Null)).await;
                }
                Ok(GwCtl::InvalidSession(resumable)) => {
                    if !resumable && let Some(s) = &session {
                        lock(&inner).end_session(s);
                    }
                    let _ = ws.send(op(9, json!(resumable))).await;
                }
                Err(_) => break,
            },
        }
    }
    let mut w = lock(&inner);
    if counted {
        w.connected -= 1;
    }
    if let Some(s) = &session {
        w.disconnected(s);
    }
}

// ------------------------------------------------------------------- REST

/// A REST answer: status, JSON body, and whether to attach rate-limit
/// headers of a 429.
pub(crate) struct Answer {
    pub status: u16,
    pub body: Value,
    /// A 429's kind, for its headers.
    pub limit: Option<Limit>,
}

/// What a 429 answer says it covers, in its headers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Limit {
    /// A route's bucket (`X-RateLimit-Scope: user`).
    Route,
    /// Every call of the bot (`X-RateLimit-Global: true`).
    Global { retry_after: f64 },
    /// Discord's edge: no rate-limit headers, only `Retry-After`.
    Edge { retry_after: u64 },
}

impl Answer {
    pub fn ok(body: Value) -> Answer {
        Answer {
            status: 200,
            body,
            limit: None,
        }
    }

    pub fn empty() -> Answer {
        Answer {
            status: 204,
            body: Value::Null,
            limit: None,
        }
    }

    pub fn error(status: u16, code: u64, message: &str) -> Answer {
        Answer {
            status,
            body: json!({"code": code, "message": message}),
            limit: None,
        }
    }
}

async fn rest(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    Path(path): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(_) => {
                // Multipart or junk: kozyr sends only JSON.
                lock(&inner)
                    .violations
                    .push(format!("{method} /{path}: body is not JSON"));
                return (StatusCode::BAD_REQUEST, "bad body").into_response();
            }
        }
    };
    // Subscribed before the call is carried out: a release after it
    // reaches this answer.
    let mut release = inner.release.subscribe();
    let (answer, bucket, wake, held) = {
        let mut w = lock(&inner);
        let query = uri.query().unwrap_or("");
        let (answer, bucket, held) = w.rest(method.as_str(), &path, query, auth.as_deref(), &body);
        (answer, bucket, std::mem::take(&mut w.wake), held)
    };
    if wake {
        let _ = inner.gw.send(GwCtl::Dispatch);
    }
    if held {
        let _ = release.changed().await;
    }
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut resp = if answer.status == 204 {
        status.into_response()
    } else {
        (status, axum::Json(answer.body.clone())).into_response()
    };
    let h = resp.headers_mut();
    let set = |h: &mut HeaderMap, k: &'static str, v: String| {
        if let Ok(v) = v.parse() {
            h.insert(k, v);
        }
    };
    match answer.limit {
        None => {
            set(h, "x-ratelimit-bucket", bucket);
            set(h, "x-ratelimit-scope", "user".into());
            set(h, "x-ratelimit-limit", "50".into());
            set(h, "x-ratelimit-remaining", "49".into());
            set(h, "x-ratelimit-reset-after", "0.01".into());
        }
        Some(Limit::Route) => {
            set(h, "x-ratelimit-bucket", bucket);
            set(h, "x-ratelimit-scope", "user".into());
            set(h, "x-ratelimit-limit", "5".into());
            set(h, "x-ratelimit-remaining", "0".into());
            set(h, "x-ratelimit-reset-after", "0.2".into());
            set(h, "retry-after", "1".into());
        }
        Some(Limit::Global { retry_after }) => {
            set(h, "x-ratelimit-global", "true".into());
            set(h, "x-ratelimit-scope", "global".into());
            set(h, "retry-after", format!("{}", retry_after.ceil() as u64));
        }
        Some(Limit::Edge { retry_after }) => {
            set(h, "retry-after", retry_after.to_string());
        }
    }
    resp
}
