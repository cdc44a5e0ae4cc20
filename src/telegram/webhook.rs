//! Webhook mode: Telegram POSTs each update to an HTTPS URL (a reverse
//! proxy in front of kozyr terminates TLS) and this axum server feeds them
//! to the same dispatcher as long polling.
//!
//! teloxide has a ready listener behind its `webhooks-axum` feature, but it
//! answers a wrong secret with 401, panics on a malformed secret and pulls
//! in a second `rand` and `tower-http`; this one is a page of code.
//!
//! Requests without the right `X-Telegram-Bot-Api-Secret-Token` get 403
//! (when `WEBHOOK_SECRET` is set). An update that does not parse is logged
//! and acknowledged: Telegram would otherwise retry it forever.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use teloxide::stop::{StopToken, mk_stop_token};
use teloxide::types::Update;
use teloxide::update_listeners::{StatefulListener, UpdateListener};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// The header Telegram puts the secret in.
pub const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

type Sender = mpsc::UnboundedSender<Result<Update, Infallible>>;

#[derive(Clone)]
struct Hook {
    secret: Option<String>,
    /// Taken out when the listener stops: that ends the update stream even
    /// while a client still holds a connection (and so the router) open.
    updates: Arc<Mutex<Option<Sender>>>,
}

/// Compares without stopping at the first difference, so the response
/// time does not tell how much of a guessed secret was right.
fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    given.len() == secret.len()
        && given
            .iter()
            .zip(secret)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

async fn receive(State(hook): State<Hook>, headers: HeaderMap, body: Bytes) -> StatusCode {
    if let Some(secret) = &hook.secret {
        let given = headers.get(SECRET_HEADER).map(|v| v.as_bytes());
        if !given.is_some_and(|g| same_secret(g, secret.as_bytes())) {
            return StatusCode::FORBIDDEN;
        }
    }
    let sender = hook
        .updates
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let Some(sender) = sender else {
        return StatusCode::SERVICE_UNAVAILABLE;
    };
    match serde_json::from_slice::<Update>(&body) {
        Ok(update) => {
            if sender.send(Ok(update)).is_err() {
                return StatusCode::SERVICE_UNAVAILABLE;
            }
        }
        Err(e) => tracing::warn!(error = %e, "an update from the webhook does not parse"),
    }
    StatusCode::OK
}

/// A fn item, not a closure, so the borrow it returns is tied to its argument.
fn first_mut<A, B>(pair: &mut (A, B)) -> &mut A {
    &mut pair.0
}

/// A bound webhook server: the listener to dispatch from, and the server
/// task's future.
pub struct Webhook<L> {
    pub listener: L,
    /// Where the server listens (the real port when asked for port 0).
    pub local_addr: SocketAddr,
    /// Serves until the listener is stopped.
    pub serve: std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<()>> + Send>>,
}

/// Binds `listen` and routes POSTs to `path` into an update listener.
pub async fn bind(
    listen: SocketAddr,
    path: &str,
    secret: Option<String>,
) -> std::io::Result<Webhook<impl UpdateListener<Err = Infallible> + use<>>> {
    let (tx, rx) = mpsc::unbounded_channel();
    let (stop_token, stopped) = mk_stop_token();
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    let updates = Arc::new(Mutex::new(Some(tx)));
    let app = Router::new().route(&path, post(receive)).with_state(Hook {
        secret,
        updates: updates.clone(),
    });
    // One waiter on the stop flag: its clones share a single waker slot.
    let (shut_tx, shut_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        stopped.await;
        updates.lock().unwrap_or_else(|p| p.into_inner()).take();
        let _ = shut_tx.send(());
    });
    let tcp = TcpListener::bind(listen).await?;
    let local_addr = tcp.local_addr()?;
    let serve = Box::pin(async move {
        axum::serve(tcp, app)
            .with_graceful_shutdown(async move {
                let _ = shut_rx.await;
            })
            .await
    });
    let listener = StatefulListener::new(
        (UnboundedReceiverStream::new(rx), stop_token),
        first_mut,
        |state: &mut (_, StopToken)| state.1.clone(),
    );
    Ok(Webhook {
        listener,
        local_addr,
        serve,
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
