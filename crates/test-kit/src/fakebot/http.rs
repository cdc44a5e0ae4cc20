//! The HTTP side of the fake: `POST /bot<token>/<method>` with JSON, form or
//! query parameters, Telegram-shaped responses, injected faults and
//! long-polled `getUpdates`. Runs its own accept loop so a fault can drop a
//! connection mid-request.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use serde_json::{Map, Value, json};
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use super::types::FaultKind;
use super::world::{ApiFailure, World, canonical_method, chat_of};

/// The fake's state shared by the server and the test handle.
pub(crate) struct Shared {
    world: Mutex<World>,
    /// Bumped on every change, so waiters (long polls, tests) re-check.
    changes: watch::Sender<u64>,
}

impl Shared {
    pub fn new(world: World) -> Self {
        Shared {
            world: Mutex::new(world),
            changes: watch::Sender::new(0),
        }
    }

    /// The world, even if a panicking test thread poisoned the lock: the
    /// fake's state stays consistent because every mutation is short.
    pub fn lock(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }
}

/// Per-connection switch a handler pulls to drop its connection.
#[derive(Clone)]
struct Killer(Arc<Notify>);

pub(crate) async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let router = Router::new().fallback(handle).with_state(shared);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!("fake Bot API: accept failed: {e}");
                    continue;
                }
            },
            // Reap finished connections so the set does not grow.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let _ = stream.set_nodelay(true);
        let kill = Arc::new(Notify::new());
        let service =
            TowerToHyperService::new(router.clone().layer(Extension(Killer(kill.clone()))));
        connections.spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = conn => {}
                // Dropping the connection future closes the socket unanswered.
                _ = kill.notified() => {}
            }
        });
    }
}

fn reply(result: Result<Value, ApiFailure>) -> Response {
    match result {
        Ok(v) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            json!({ "ok": true, "result": v })
                .to_string()
                .replace(super::LONE_SURROGATE, "\\ud83d"),
        )
            .into_response(),
        Err(f) => (
            StatusCode::from_u16(f.code).unwrap_or(StatusCode::BAD_REQUEST),
            [(header::CONTENT_TYPE, "application/json")],
            f.body().to_string(),
        )
            .into_response(),
    }
}

/// Query string and body parameters, merged (the body wins).
fn params(uri: &Uri, headers: &HeaderMap, body: &Bytes) -> Result<Map<String, Value>, ApiFailure> {
    let mut p = Map::new();
    let form = |p: &mut Map<String, Value>, bytes: &[u8]| {
        for (k, v) in url::form_urlencoded::parse(bytes) {
            p.insert(k.into_owned(), Value::String(v.into_owned()));
        }
    };
    if let Some(q) = uri.query() {
        form(&mut p, q.as_bytes());
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if body.is_empty() {
        return Ok(p);
    }
    if content_type.starts_with("application/json") {
        let v: Value = serde_json::from_slice(body)
            .map_err(|_| ApiFailure::new(400, "Bad Request: can't parse JSON"))?;
        match v {
            Value::Object(m) => p.extend(m),
            _ => {
                return Err(ApiFailure::new(
                    400,
                    "Bad Request: parameters must be an object",
                ));
            }
        }
    } else if content_type.starts_with("application/x-www-form-urlencoded") {
        form(&mut p, body);
    } else if let Some(boundary) = content_type
        .strip_prefix("multipart/form-data")
        .and_then(|rest| rest.split("boundary=").nth(1))
    {
        p.extend(multipart_fields(body, boundary.trim_matches('"'))?);
    } else {
        return Err(ApiFailure::new(
            400,
            format!("Bad Request: the fake does not accept content type {content_type:?}"),
        ));
    }
    Ok(p)
}

/// The text fields of a `multipart/form-data` body (teloxide sends
/// `setWebhook` that way, since it may carry a certificate file).
fn multipart_fields(body: &[u8], boundary: &str) -> Result<Map<String, Value>, ApiFailure> {
    let bad = || ApiFailure::new(400, "Bad Request: malformed multipart body");
    let body = std::str::from_utf8(body).map_err(|_| bad())?;
    let mut fields = Map::new();
    for part in body.split(&format!("--{boundary}")).skip(1) {
        if part.starts_with("--") {
            break;
        }
        let (head, value) = part.split_once("\r\n\r\n").ok_or_else(bad)?;
        let name = head
            .split("name=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .ok_or_else(bad)?;
        let value = value.strip_suffix("\r\n").unwrap_or(value);
        fields.insert(name.to_owned(), Value::String(value.to_owned()));
    }
    Ok(fields)
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    Extension(killer): Extension<Killer>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut segments = uri.path().split('/').filter(|s| !s.is_empty());
    let (Some(bot), Some(method), None) = (segments.next(), segments.next(), segments.next())
    else {
        return reply(Err(ApiFailure::new(404, "Not Found")));
    };
    let token_ok = bot.strip_prefix("bot") == Some(shared.lock().config.token.as_str());
    if !token_ok {
        return reply(Err(ApiFailure::new(401, "Unauthorized")));
    }
    let Some(method) = canonical_method(method) else {
        shared.lock().record_call(method);
        return reply(Err(ApiFailure::new(404, "Not Found")));
    };
    let p = match params(&uri, &headers, &body) {
        Ok(p) => p,
        Err(f) => return reply(Err(f)),
    };
    let fault = {
        let mut w = shared.lock();
        w.record_call(method);
        w.take_fault(method, chat_of(&p))
    };
    shared.changed();
    match fault {
        Some(FaultKind::TooManyRequests { retry_after }) => {
            shared.lock().record_failure(method, int(&p, "chat_id"));
            return reply(Err(ApiFailure::retry_after(u64::from(retry_after))));
        }
        Some(FaultKind::ServerError { status }) => {
            shared.lock().record_failure(method, int(&p, "chat_id"));
            return reply(Err(ApiFailure::new(status, "Internal Server Error")));
        }
        Some(FaultKind::ChatNotFound) => {
            shared.lock().record_failure(method, int(&p, "chat_id"));
            return reply(Err(ApiFailure::new(400, "Bad Request: chat not found")));
        }
        Some(FaultKind::BadRequest(description)) => {
            shared.lock().record_failure(method, int(&p, "chat_id"));
            let text = format!("Bad Request: {description}");
            return reply(Err(ApiFailure::new(400, text)));
        }
        Some(FaultKind::DropConnection) => {
            shared.lock().record_failure(method, int(&p, "chat_id"));
            killer.0.notify_one();
            return std::future::pending().await;
        }
        Some(FaultKind::Delay(d)) => tokio::time::sleep(d).await,
        None => {}
    }
    let result = if method == "getUpdates" {
        get_updates(&shared, &p).await
    } else {
        let r = shared.lock().call(method, &p, std::time::Instant::now());
        shared.changed();
        r
    };
    if result.is_err() {
        shared.lock().record_failure(method, int(&p, "chat_id"));
    }
    reply(result)
}

fn int(p: &Map<String, Value>, key: &str) -> Option<i64> {
    match p.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// Long polling as Telegram does it: answer at once when updates are
/// pending, else wait up to `timeout` seconds for one; a newer poll ends an
/// older one with 409 Conflict.
async fn get_updates(shared: &Shared, p: &Map<String, Value>) -> Result<Value, ApiFailure> {
    let offset = int(p, "offset").unwrap_or(0);
    let limit = int(p, "limit").unwrap_or(100).clamp(1, 100) as usize;
    let timeout = Duration::from_secs(int(p, "timeout").unwrap_or(0).clamp(0, 50) as u64);
    let allowed: Option<Vec<String>> = p
        .get("allowed_updates")
        .and_then(|v| match v {
            Value::String(s) => serde_json::from_str(s).ok(),
            other => Some(other.clone()),
        })
        .and_then(|v| serde_json::from_value(v).ok());
    let deadline = Instant::now() + timeout;
    let mut rx = shared.subscribe();
    let generation = {
        let mut w = shared.lock();
        if w.webhook_active() {
            return Err(ApiFailure::new(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
            ));
        }
        w.poll_generation += 1;
        w.poll_generation
    };
    shared.changed();
    let mut first = true;
    loop {
        rx.borrow_and_update();
        {
            let mut w = shared.lock();
            if w.poll_generation != generation {
                return Err(ApiFailure::new(
                    409,
                    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
                ));
            }
            // Confirm with the offset once; later rounds only look.
            let updates = w.take_updates(if first { offset } else { 0 }, limit, allowed.clone());
            first = false;
            if !updates.is_empty() || Instant::now() >= deadline {
                return Ok(Value::Array(updates));
            }
        }
        tokio::select! {
            _ = rx.changed() => {}
            _ = tokio::time::sleep_until(deadline) => {}
        }
    }
}
