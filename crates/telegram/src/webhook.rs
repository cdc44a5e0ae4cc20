//! Webhook mode: Telegram POSTs each update to an HTTPS URL (a reverse
//! proxy in front of kozyr terminates TLS). This axum server is the
//! *intake*: it writes each update to the inbox in the database
//! ([`kozyr_table::storage::Inbox`]) and answers 200 only once that row
//! committed, so an update Telegram was told it delivered survives a kill
//! at any moment. Every replica runs it, serving or standing by (a load
//! balancer picks any); the serving one reads the inbox into the
//! handlers ([`super::listener::inbox`]).
//!
//! teloxide has a ready listener behind its `webhooks-axum` feature, but it
//! answers a wrong secret with 401, panics on a malformed secret, pulls in
//! a second `rand` and `tower-http`, and keeps updates in memory; this one
//! is a page of code.
//!
//! Requests without the right `X-Telegram-Bot-Api-Secret-Token` get 403
//! (when `WEBHOOK_SECRET` is set). An update that does not parse is logged
//! and acknowledged without being stored: Telegram would otherwise retry
//! it forever. When the store cannot write, the answer is 503 and Telegram
//! delivers the update again later.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::listener::{Incoming, parse_update};
use kozyr_table::storage::Inbox;

/// The header Telegram puts the secret in.
pub const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

/// How long a stopping intake may finish the requests in hand.
const STOP_GRACE: Duration = Duration::from_secs(2);

#[derive(Clone)]
struct Hook {
    secret: Option<String>,
    inbox: Inbox,
}

/// Compares in constant time, so the response time does not tell how
/// much of a guessed secret was right.
fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    given.ct_eq(secret).into()
}

async fn receive(State(hook): State<Hook>, headers: HeaderMap, body: Bytes) -> StatusCode {
    if let Some(secret) = &hook.secret {
        let given = headers.get(SECRET_HEADER).map(|v| v.as_bytes());
        if !given.is_some_and(|g| same_secret(g, secret.as_bytes())) {
            return StatusCode::FORBIDDEN;
        }
    }
    let value = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(error = %e, "an update from the webhook is not JSON");
            return StatusCode::OK;
        }
    };
    let id = match parse_update(value) {
        Incoming::Update(u) => u.id.0,
        Incoming::Malformed { id, error } => {
            tracing::warn!(update = ?id, %error, "an update from the webhook does not parse");
            return StatusCode::OK;
        }
    };
    // It parsed as JSON, so it is UTF-8.
    let text = String::from_utf8_lossy(&body);
    match hook.inbox.put(&id.to_string(), &text).await {
        Ok(new) => {
            tracing::debug!(
                update = id,
                new,
                "an update from the webhook is in the inbox"
            );
            StatusCode::OK
        }
        Err(e) => {
            tracing::error!(update = id, error = %e, "cannot store an update from the webhook");
            StatusCode::SERVICE_UNAVAILABLE
        }
    }
}

/// A listening intake: where, and its server, until [`Intake::stop`].
pub struct Intake {
    /// Where the server listens (the real port when asked for port 0).
    pub local_addr: SocketAddr,
    server: JoinHandle<()>,
    shutdown: oneshot::Sender<()>,
}

impl std::fmt::Debug for Intake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Intake")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

impl Intake {
    /// Stops taking updates: the requests in hand get their answer (for a
    /// while), connections a client keeps open are closed.
    pub async fn stop(self) {
        let Intake {
            mut server,
            shutdown,
            ..
        } = self;
        let _ = shutdown.send(());
        if tokio::time::timeout(STOP_GRACE, &mut server).await.is_err() {
            server.abort();
            let _ = server.await;
        }
    }
}

/// Binds `listen` and writes the updates POSTed to `path` into `inbox`.
pub async fn bind(
    listen: SocketAddr,
    path: &str,
    secret: Option<String>,
    inbox: Inbox,
) -> std::io::Result<Intake> {
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    let app = Router::new()
        .route(&path, post(receive))
        .with_state(Hook { secret, inbox });
    let tcp = TcpListener::bind(listen).await?;
    let local_addr = tcp.local_addr()?;
    let (shutdown, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let served = axum::serve(tcp, app)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await;
        if let Err(e) = served {
            tracing::error!(error = %e, "the webhook server failed");
        }
    });
    Ok(Intake {
        local_addr,
        server,
        shutdown,
    })
}

#[cfg(test)]
mod tests {
    use super::same_secret;

    #[test]
    fn secrets_match_exactly() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abd", b"abc"));
        assert!(!same_secret(b"ab", b"abc"));
        assert!(!same_secret(b"", b"abc"));
    }
}
