//! The Telegram Mini App: the live table and a person's hand as a web
//! page inside Telegram — one more front-end under the same [`Front`],
//! in this one folder. No shell imports it, and it imports no shell: what
//! the Telegram shell must know of it (whose Mini App is open, where it
//! is served) goes through [`kozyr_front::live`].
//!
//! An axum server (`KOZYR_WEBAPP_LISTEN`, behind the admin's proxy at
//! `KOZYR_WEBAPP_URL`) serves:
//! - `GET /` — the page (`page/`: plain HTML, CSS and JS compiled into the
//!   binary; no build step). In Telegram it loads `telegram-web-app.js`
//!   from telegram.org; without it (tests) it reads the init data from
//!   the URL fragment (`#tgWebAppData=…`) as Telegram passes it.
//! - `GET /api/state?table=N` — [`state::State`] as JSON.
//! - `GET /api/events?table=N&auth=…` — server-sent events: the whole
//!   state at once and after every change of the table (fed by
//!   [`kozyr_front::live::LiveViews`]), so a page that reconnects
//!   catches up by itself. While it is open, the person's chat hand is
//!   not edited (the Telegram shell's lane holds it: `delivery::lane`).
//! - `POST /api/press` — `{table, press, id}`: a hand's button as the chat
//!   has it, through [`Front::press`] like a chat press, de-duplicated by
//!   the client's `id` (and the state version it carries), so a move from
//!   the page and one from the chat never both count.
//!
//! Trust nothing from the page: every request carries Telegram's signed
//! init data ([`auth`]; the `Authorization: tma <init data>` header, or
//! `auth=` for the event stream, which cannot send headers). Missing or
//! bad → 401; a press at a table where the person has no seat, or not a
//! hand's button → 403/400; each with a JSON `{error, message}` and
//! nothing changed.

pub mod auth;
pub mod state;

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State as Extract};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use kozyr_front::Front;
use kozyr_front::Reply;
use kozyr_front::action::Press;
use kozyr_front::core::{Admins, Origin};
use kozyr_front::live::LiveApp;
use kozyr_front::press_limits::{PressLimits, PressRates};
use kozyr_i18n::{Args, Lang, key, tr};
use kozyr_table::runtime::DedupKey;
use kozyr_table::{ChatKey, Platform, Player, TableId, UserId};

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const APP_CSS: &str = include_str!("page/app.css");

/// Why the Mini App's server could not start.
#[derive(Debug, thiserror::Error)]
pub enum WebAppError {
    #[error("cannot listen on KOZYR_WEBAPP_LISTEN {addr}: {error}")]
    Listen {
        addr: SocketAddr,
        error: std::io::Error,
    },
}

/// A refused request: its status and a JSON `{error, message}`.
#[derive(Debug)]
enum Refusal {
    Unauthorized(Lang),
    Forbidden(Lang),
    NoTable(Lang),
    /// What was wrong, for whoever wrote the client; the person reads
    /// that the button does not work.
    BadRequest(Lang, &'static str),
    Store(Lang),
    /// The person's (or the table's) presses came faster than people
    /// press: refused at once, changing nothing.
    TooFast(Lang),
}

#[derive(Serialize)]
struct ErrorJson<'a> {
    error: &'a str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let t = |l, k| tr(l, k, &Args::new());
        let (status, error, message, detail) = match self {
            Refusal::Unauthorized(l) => (
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                t(l, key::WEBAPP_UNAUTHORIZED),
                None,
            ),
            Refusal::Forbidden(l) => (
                StatusCode::FORBIDDEN,
                "forbidden",
                t(l, key::WEBAPP_FORBIDDEN),
                None,
            ),
            Refusal::NoTable(l) => (
                StatusCode::NOT_FOUND,
                "no_table",
                t(l, key::WEBAPP_NO_TABLE),
                None,
            ),
            Refusal::BadRequest(l, why) => (
                StatusCode::BAD_REQUEST,
                "bad_request",
                t(l, key::ERR_BAD_BUTTON),
                Some(why),
            ),
            Refusal::Store(l) => (
                StatusCode::SERVICE_UNAVAILABLE,
                "try_again",
                t(l, key::ERR_TRY_AGAIN),
                None,
            ),
            Refusal::TooFast(l) => (
                StatusCode::TOO_MANY_REQUESTS,
                "too_fast",
                t(l, key::ERR_TOO_FAST),
                None,
            ),
        };
        let body = ErrorJson {
            error,
            message,
            detail,
        };
        (status, axum::Json(body)).into_response()
    }
}

/// Hand buttons need nobody's admin rights.
struct NoAdmins;

impl Admins for NoAdmins {
    async fn is_admin(&self, _chat: &ChatKey, _user: &UserId) -> bool {
        false
    }
}

struct App {
    front: Arc<Front>,
    token: String,
    /// The `seq` of the states made.
    seq: Seq,
    /// Turns true when the server stops: every open event stream ends
    /// with it (the connections would outlive the accept loop).
    stopping: tokio::sync::watch::Receiver<bool>,
    /// Presses taken lately, by the page's id for each: the same id sent
    /// again (a retry after a lost answer) gets the first answer's message
    /// and changes nothing. Moves are de-duplicated in the store as well;
    /// this is what keeps a card's selection from flipping twice.
    presses: std::sync::Mutex<HashMap<String, (Instant, Option<String>)>>,
    /// Each person's and each table's presses accepted (the chats' rates:
    /// one person's flood never reaches the tables).
    limits: std::sync::Mutex<PressLimits>,
}

/// How long a press id is remembered: far longer than a page retries.
const PRESS_IDS_FOR: Duration = Duration::from_secs(10 * 60);

/// The `seq` the page orders states by (it keeps the newest it saw): the
/// wall clock in microseconds, and never the same or a smaller one twice
/// in a process. A process that starts after another — a restart, a
/// replica taking over — numbers its states after the old one's, so the
/// pages it finds open take them (a counter from 1 froze every open page
/// after a restart).
#[derive(Debug, Default)]
struct Seq(std::sync::atomic::AtomicU64);

impl Seq {
    fn next(&self, now_micros: u64) -> u64 {
        use std::sync::atomic::Ordering::Relaxed;
        let mut last = self.0.load(Relaxed);
        loop {
            let next = now_micros.max(last.saturating_add(1));
            match self.0.compare_exchange_weak(last, next, Relaxed, Relaxed) {
                Ok(_) => return next,
                Err(seen) => last = seen,
            }
        }
    }
}

fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// A signed-in person and the table they look at.
struct Visitor {
    user: UserId,
    name: String,
    lang: Lang,
    table: TableId,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The language the (not yet checked) init data asks for, for the words
/// of a refusal only.
fn claimed_lang(raw: &str) -> Lang {
    url::form_urlencoded::parse(raw.as_bytes())
        .find(|(k, _)| k == "user")
        .and_then(|(_, u)| serde_json::from_str::<auth::WebUser>(&u).ok())
        .map_or(Lang::default(), |u| {
            Lang::from_telegram(u.language_code.as_deref())
        })
}

impl App {
    /// Checks the init data and names the table (`table=`, else the direct
    /// link's start parameter).
    fn visitor(&self, raw: &str, table: Option<&str>) -> Result<Visitor, Refusal> {
        let data = auth::verify(raw, &self.token, now_secs()).map_err(|e| {
            tracing::debug!(error = %e, "Mini App sign-in refused");
            Refusal::Unauthorized(claimed_lang(raw))
        })?;
        let lang = Lang::from_telegram(data.user.language_code.as_deref());
        let table = table
            .or(data.start_param.as_deref())
            .and_then(|t| t.trim().parse::<i64>().ok())
            .ok_or(Refusal::BadRequest(lang, "which table? (table=N)"))?;
        Ok(Visitor {
            user: UserId::Telegram(data.user.id),
            name: data.user.full_name(),
            lang,
            table: TableId(table),
        })
    }

    /// The message the press `id` was answered with, when it was taken
    /// already (`Some(None)`: taken, with no message); else it is taken
    /// now, so that the same id arriving meanwhile waits for nothing and
    /// changes nothing.
    fn seen_press(&self, id: &str) -> Option<Option<String>> {
        let mut presses = self.presses.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if presses.len() >= 4096 {
            presses.retain(|_, (at, _)| now.duration_since(*at) < PRESS_IDS_FOR);
        }
        match presses.get(id) {
            Some((at, message)) if now.duration_since(*at) < PRESS_IDS_FOR => Some(message.clone()),
            _ => {
                presses.insert(id.to_owned(), (now, None));
                None
            }
        }
    }

    /// Keeps the answer to press `id` for the same id sent again.
    fn pressed(&self, id: String, message: Option<String>) {
        let mut presses = self.presses.lock().unwrap_or_else(|p| p.into_inner());
        presses.insert(id, (Instant::now(), message));
    }

    /// What `v` sees now; `NoTable` for a table that does not exist.
    async fn state(&self, v: &Visitor) -> Result<state::State, Refusal> {
        let service = self.front.service();
        let view = service
            .table_view(v.table)
            .await
            .map_err(|_| Refusal::Store(v.lang))?
            .ok_or(Refusal::NoTable(v.lang))?;
        let hand = service
            .hand_of(v.table, &v.user)
            .await
            .map_err(|_| Refusal::Store(v.lang))?;
        Ok(state::build(
            &self.front,
            &view,
            hand.as_ref(),
            v.lang,
            service.now(),
            self.seq.next(now_micros()),
        ))
    }
}

fn init_data(headers: &HeaderMap) -> &str {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("tma "))
        .unwrap_or("")
}

#[derive(Deserialize)]
struct TableQuery {
    table: Option<String>,
    auth: Option<String>,
}

async fn get_state(
    Extract(app): Extract<Arc<App>>,
    headers: HeaderMap,
    Query(q): Query<TableQuery>,
) -> Result<axum::Json<state::State>, Refusal> {
    let v = app.visitor(init_data(&headers), q.table.as_deref())?;
    Ok(axum::Json(app.state(&v).await?))
}

async fn events(
    Extract(app): Extract<Arc<App>>,
    Query(q): Query<TableQuery>,
) -> Result<impl IntoResponse, Refusal> {
    let v = app.visitor(q.auth.as_deref().unwrap_or(""), q.table.as_deref())?;
    let live = app.front.live().clone();
    // Subscribed before the first state is read: no change falls between.
    let mut changes = live.subscribe(v.table);
    let first = app.state(&v).await?;
    let open = live.open(&v.user, v.table);
    let mut stopping = app.stopping.clone();
    let (tx, rx) = mpsc::channel::<Result<Event, Infallible>>(4);
    tokio::spawn(async move {
        let _open = open;
        let mut last = String::new();
        let mut next = Some(first);
        loop {
            let state = match next.take() {
                Some(s) => s,
                None => match app.state(&v).await {
                    Ok(s) => s,
                    Err(_) => return,
                },
            };
            // The same state again (a change that did not reach this page's
            // view) is not sent.
            let same = serde_json::to_string(&state::State {
                seq: 0,
                ..state.clone()
            })
            .unwrap_or_default();
            let json = serde_json::to_string(&state).unwrap_or_default();
            if same != last {
                let event = Event::default().event("state").data(json.clone());
                if tx.send(Ok(event)).await.is_err() {
                    return;
                }
                last = same;
            }
            // Until the table changes, or the page or the server is gone.
            tokio::select! {
                r = changes.changed() => if r.is_err() { return },
                _ = tx.closed() => return,
                _ = stopping.wait_for(|s| *s) => return,
            }
        }
    });
    let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

#[derive(Deserialize)]
struct PressBody {
    table: i64,
    press: String,
    /// Made by the page for this press; the same id sent again counts once.
    id: String,
}

#[derive(Serialize)]
struct PressAnswer {
    /// What the chat would say in a popup (a refusal), if anything.
    message: Option<String>,
    state: state::State,
}

async fn press(
    Extract(app): Extract<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<axum::Json<PressAnswer>, Refusal> {
    let raw = init_data(&headers);
    // Who asks comes first: a request without a valid sign-in learns nothing.
    let lang = app.visitor(raw, Some("0"))?.lang;
    let body: PressBody = serde_json::from_slice(&body)
        .map_err(|_| Refusal::BadRequest(lang, "expected {\"table\", \"press\", \"id\"}"))?;
    let table = body.table.to_string();
    let v = app.visitor(raw, Some(&table))?;
    if body.id.is_empty()
        || body.id.len() > 64
        || !body
            .id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Refusal::BadRequest(
            v.lang,
            "id: 1-64 characters of A-Z a-z 0-9 - _",
        ));
    }
    let Ok(Press::Table { table, action, .. }) = Press::parse(&body.press) else {
        return Err(Refusal::BadRequest(v.lang, "not a button of kozyr's"));
    };
    if table != v.table || !action.is_hand() {
        return Err(Refusal::BadRequest(
            v.lang,
            "not a button of this table's hands",
        ));
    }
    let view = app
        .front
        .service()
        .table_view(v.table)
        .await
        .map_err(|_| Refusal::Store(v.lang))?
        .ok_or(Refusal::NoTable(v.lang))?;
    if view.seat_of(&v.user).is_none() {
        return Err(Refusal::Forbidden(v.lang));
    }
    let UserId::Telegram(uid) = v.user else {
        return Err(Refusal::Forbidden(v.lang));
    };
    let now = Instant::now();
    let admitted = app
        .limits
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .admit(uid, v.table.0, now);
    if !admitted {
        return Err(Refusal::TooFast(v.lang));
    }
    let live = app.front.live();
    live.pressed(&v.user);
    let player = Player::new(v.user.clone(), &v.name, v.lang);
    let origin = Origin {
        chat: ChatKey::Telegram(i64::try_from(uid).map_err(|_| Refusal::Forbidden(v.lang))?),
        private: true,
        title: None,
    };
    let press_id = format!("webapp:{uid}:{}", body.id);
    if let Some(message) = app.seen_press(&press_id) {
        let state = app.state(&v).await?;
        return Ok(axum::Json(PressAnswer { message, state }));
    }
    let dedup = DedupKey::callback(Platform::Telegram, &press_id);
    let replies = app
        .front
        .press(&NoAdmins, &player, &origin, &body.press, dedup)
        .await;
    let mut message = None;
    for r in replies {
        match r {
            Reply::Popup(text) => message = Some(text),
            // A selection changed: every open page of the table follows.
            Reply::Render(_) => live.changed(v.table),
            _ => {}
        }
    }
    app.pressed(press_id, message.clone());
    let state = app.state(&v).await?;
    Ok(axum::Json(PressAnswer { message, state }))
}

/// Where the page loads Telegram's bridge from, as Telegram's documentation
/// says to.
pub const TELEGRAM_BRIDGE: &str = "https://telegram.org/js/telegram-web-app.js";

/// The page, its bridge script loaded from `bridge`.
fn index_html(bridge: &str) -> Bytes {
    let attr = |url: &str| format!("src=\"{url}\"");
    INDEX_HTML
        .replace(&attr(TELEGRAM_BRIDGE), &attr(&html_attr(bridge)))
        .into()
}

/// `s` safe inside a double-quoted HTML attribute.
fn html_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn asset(body: impl IntoResponse, kind: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}

/// The Mini App's routes over `front`, checking init data with `token`.
/// Its event streams end when `stopping` turns true.
fn router(
    front: Arc<Front>,
    token: &str,
    stopping: tokio::sync::watch::Receiver<bool>,
    serving: &Serving,
) -> Router {
    let index = index_html(&serving.bridge);
    let app = Arc::new(App {
        front,
        token: token.to_owned(),
        stopping,
        seq: Seq::default(),
        presses: std::sync::Mutex::new(HashMap::new()),
        limits: std::sync::Mutex::new(PressLimits::new(
            serving.press_rates.person,
            serving.press_rates.chat,
        )),
    });
    Router::new()
        .route(
            "/",
            get({
                let index = index.clone();
                move || async move { asset(index, "text/html; charset=utf-8") }
            }),
        )
        .route(
            "/index.html",
            get({
                let index = index.clone();
                move || async move { asset(index, "text/html; charset=utf-8") }
            }),
        )
        .route(
            "/app.js",
            get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { asset(APP_CSS, "text/css; charset=utf-8") }),
        )
        .route("/api/state", get(get_state))
        .route("/api/events", get(events))
        .route("/api/press", post(press))
        .with_state(app)
}

/// The running Mini App server.
pub struct RunningWebApp {
    addr: SocketAddr,
    server: JoinHandle<()>,
    stop: tokio::sync::watch::Sender<bool>,
}

impl RunningWebApp {
    /// Where it listens (the port chosen when `listen` asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops it; open event streams end with it.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        self.server.abort();
        let _ = self.server.await;
    }
}

/// Serves the Mini App on `listen` for `front`'s tables, and tells the
/// chat shells it is there (`app`: the hands' button opens it).
pub async fn serve(
    listen: SocketAddr,
    front: Arc<Front>,
    token: &str,
    app: LiveApp,
) -> Result<RunningWebApp, WebAppError> {
    serve_with(listen, front, token, app, Serving::default()).await
}

/// How the Mini App serves, past where and for whom.
#[derive(Clone, Debug)]
pub struct Serving {
    /// Where the page loads Telegram's bridge script from: Telegram's
    /// ([`TELEGRAM_BRIDGE`]), a copy the admin hosts, or a test's stand-in.
    pub bridge: String,
    /// How fast a person's and a table's presses are taken.
    pub press_rates: PressRates,
}

impl Default for Serving {
    fn default() -> Serving {
        Serving {
            bridge: TELEGRAM_BRIDGE.to_owned(),
            press_rates: PressRates::PEOPLE,
        }
    }
}

/// [`serve`] as `serving` says.
pub async fn serve_with(
    listen: SocketAddr,
    front: Arc<Front>,
    token: &str,
    app: LiveApp,
    serving: Serving,
) -> Result<RunningWebApp, WebAppError> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|error| WebAppError::Listen {
            addr: listen,
            error,
        })?;
    let addr = listener.local_addr().map_err(|error| WebAppError::Listen {
        addr: listen,
        error,
    })?;
    front.live().set_app(app);
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let router = router(front, token, stopping, &serving);
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!(error = %e, "the Mini App server failed");
        }
    });
    tracing::info!(%addr, "Mini App served");
    Ok(RunningWebApp { addr, server, stop })
}

#[cfg(test)]
mod tests {
    use super::Seq;

    /// A page keeps the newest state it saw, by `seq`: a process started
    /// after another (a restart, a replica taking over) must number its
    /// states after the old one's, even when the old one made many within
    /// one microsecond; within a process no number comes twice.
    #[test]
    fn states_are_numbered_after_those_of_an_earlier_process() {
        let old = Seq::default();
        let at = 1_800_000_000_000_000;
        let mut seen: Vec<u64> = (0..500).map(|_| old.next(at)).collect();
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "strictly growing");
        // The clock stood still, then went back a little: still growing.
        seen.push(old.next(at - 5));
        assert!(seen[499] < seen[500]);
        // A new process a second later.
        let new = Seq::default();
        let first = new.next(at + 1_000_000);
        assert!(seen.iter().all(|s| *s < first), "{first} after {seen:?}");
        // Past 2^53 a page's JavaScript number would round it.
        assert!(first < 1 << 53);
    }
}
