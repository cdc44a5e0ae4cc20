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

use kozyr_delivery::gate::{Gate, Scope};

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

/// Interaction callbacks and the webhooks of interaction tokens are bound
/// to no global limit (Discord's documentation of each).
fn bound_by_global(path: &str) -> bool {
    !(path.contains("/interactions/") || path.contains("/webhooks/"))
}

/// What a 429 covered and for how long: global when Discord says so, and
/// when it names no scope at all (its edge's 429s carry no rate-limit
/// headers and hold every call); `retry_after` from the body (seconds,
/// with a fraction), else the header.
fn limit_of(headers: &HeaderMap, body: &[u8]) -> (Scope, Duration) {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let global = text("x-ratelimit-global").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || text("x-ratelimit-scope").is_none_or(|v| v == "global")
        || json.as_ref().is_some_and(|j| j["global"] == true);
    let secs = json
        .as_ref()
        .and_then(|j| j["retry_after"].as_f64())
        .or_else(|| text("retry-after").and_then(|v| v.trim().parse().ok()))
        .filter(|s: &f64| s.is_finite() && *s >= 0.0)
        .unwrap_or(1.0);
    let scope = if global { Scope::Global } else { Scope::Route };
    (scope, Duration::from_secs_f64(secs.min(3600.0)))
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

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn a_429_is_global_when_discord_says_so_or_names_no_scope() {
        let body =
            br#"{"message": "You are being rate limited.", "retry_after": 1.74, "global": true}"#;
        assert_eq!(
            limit_of(&headers(&[("x-ratelimit-global", "true")]), body),
            (Scope::Global, Duration::from_millis(1740))
        );
        assert_eq!(
            limit_of(&headers(&[("retry-after", "2")]), b"<html>"),
            (Scope::Global, Duration::from_secs(2))
        );
        let route = br#"{"retry_after": 0.2, "global": false}"#;
        assert_eq!(
            limit_of(
                &headers(&[("x-ratelimit-scope", "user"), ("retry-after", "1")]),
                route
            ),
            (Scope::Route, Duration::from_millis(200))
        );
    }

    #[test]
    fn only_interaction_calls_are_free_of_the_global_limit() {
        assert!(bound_by_global("/api/v10/channels/1/messages"));
        assert!(!bound_by_global("/api/v10/interactions/1/tok/callback"));
        assert!(!bound_by_global(
            "/api/v10/webhooks/1/tok/messages/@original"
        ));
    }
}
