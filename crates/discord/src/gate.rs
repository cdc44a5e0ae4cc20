//! The bot's REST calls pass through a gate of its own, on loopback, that
//! keeps Discord's 429s for every later call ([`kozyr_delivery::gate`]).
//!
//! twilight 0.18 tries a call answered 429 again at once, and its rate
//! limiter learns nothing from a global 429 (`X-RateLimit-Global`) or from
//! one without rate-limit headers: the calls after it went out inside its
//! `retry_after`, and Discord counts such calls against the bot. twilight's
//! one way in is its proxy setting (what twilight-http-proxy uses), so the
//! client is pointed here and the gate forwards each call to Discord,
//! holding it first while a 429 it saw is in force. Decisions are the
//! gate's; this file only moves bytes.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::task::JoinHandle;

use kozyr_delivery::gate::{Gate, Scope, TooMany, bound_by_global};

/// Where the calls go without `DISCORD_API_URL`.
pub const DISCORD: &str = "https://discord.com";

/// The largest body a call may carry here (Discord's own limit for a
/// message with files is far above what kozyr sends: JSON only).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// The gate's listener and forwarding task; dropped, it stops.
#[derive(Debug)]
pub struct GateProxy {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl GateProxy {
    /// Listens on a free loopback port and forwards to `upstream`
    /// (`scheme://host[:port]`). Needs a tokio runtime.
    pub fn start(upstream: &str) -> std::io::Result<GateProxy> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(std::io::Error::other)?;
        let state = Arc::new(Forward {
            upstream: upstream.trim_end_matches('/').to_owned(),
            client,
            gate: Mutex::new(Gate::default()),
        });
        let app = axum::Router::new().fallback(forward).with_state(state);
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::error!(error = %e, "the Discord REST gate stopped");
            }
        });
        Ok(GateProxy { addr, task })
    }

    /// `host:port`, for twilight's proxy setting (plain HTTP).
    pub fn host(&self) -> String {
        self.addr.to_string()
    }
}

impl Drop for GateProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Forward {
    upstream: String,
    client: reqwest::Client,
    gate: Mutex<Gate>,
}

impl Forward {
    fn gate(&self) -> std::sync::MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a 429 covered and for how long, as the gate reads it
/// ([`TooMany::limit`]).
fn limit_of(headers: &HeaderMap, body: &[u8]) -> (Scope, Duration) {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let said = TooMany {
        global_header: text("x-ratelimit-global"),
        scope_header: text("x-ratelimit-scope"),
        retry_after_header: text("retry-after"),
        body_global: json.as_ref().is_some_and(|j| j["global"] == true),
        body_retry_after: json.as_ref().and_then(|j| j["retry_after"].as_f64()),
    };
    said.limit()
}

/// Hop-by-hop headers and those the next hop sets itself.
fn passed_on(name: &HeaderName) -> bool {
    name != header::HOST
        && name != header::CONNECTION
        && name != header::TRANSFER_ENCODING
        && name != header::CONTENT_LENGTH
}

async fn forward(State(f): State<Arc<Forward>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let path = parts.uri.path().to_owned();
    let route = format!("{} {path}", parts.method);
    let global = bound_by_global(&path);
    loop {
        let wait = f.gate().wait(Instant::now(), &route, global);
        match wait {
            Some(wait) => tokio::time::sleep(wait).await,
            None => break,
        }
    }
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "body too large").into_response();
    };
    let url = format!(
        "{}{}",
        f.upstream,
        parts.uri.path_and_query().map_or("/", |p| p.as_str())
    );
    let mut call = f.client.request(parts.method, url).body(body);
    for (name, value) in parts.headers.iter().filter(|(n, _)| passed_on(n)) {
        call = call.header(name, value);
    }
    let answer = match call.send().await {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!(error = %e, %route, "Discord cannot be reached");
            return unreachable();
        }
    };
    let (status, headers) = (answer.status(), answer.headers().clone());
    let body: Bytes = match answer.bytes().await {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(error = %e, %route, "Discord's answer broke off");
            return unreachable();
        }
    };
    if status == StatusCode::TOO_MANY_REQUESTS {
        let (scope, retry_after) = limit_of(&headers, &body);
        tracing::warn!(%route, ?scope, ?retry_after, "Discord answered 429: later calls wait");
        f.gate().limited(Instant::now(), &route, scope, retry_after);
    }
    let mut out = Response::new(Body::from(body));
    *out.status_mut() = status;
    for (name, value) in headers.iter().filter(|(n, _)| passed_on(n)) {
        out.headers_mut().append(name, value.clone());
    }
    out
}

/// What twilight is told when Discord could not be reached: a 502, as
/// from Discord's edge, which the shells try again.
fn unreachable() -> Response {
    (
        StatusCode::BAD_GATEWAY,
        axum::Json(serde_json::json!({"message": "502: Bad Gateway", "code": 0})),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The headers and the body reach the gate's reading of a 429.
    #[test]
    fn a_429s_headers_and_body_are_read() {
        let mut h = HeaderMap::new();
        h.insert("x-ratelimit-scope", "user".parse().unwrap());
        h.insert("retry-after", "3".parse().unwrap());
        let body = br#"{"retry_after": 0.25, "global": false}"#;
        assert_eq!(
            limit_of(&h, body),
            (Scope::Route, Duration::from_millis(250))
        );
        assert_eq!(
            limit_of(&h, b"<html>"),
            (Scope::Route, Duration::from_secs(3))
        );
        h.insert("x-ratelimit-global", "true".parse().unwrap());
        assert_eq!(limit_of(&h, b""), (Scope::Global, Duration::from_secs(3)));
    }
}
