//! Discord's HTTP interactions endpoint, an alternative to the gateway for
//! deployments behind HTTPS (`DISCORD_PUBLIC_KEY`, served on
//! `DISCORD_INTERACTIONS_LISTEN` at `/discord/interactions`). Every request
//! must carry Discord's Ed25519 signature of its timestamp and body, else
//! 401; a PING is answered PONG; every other interaction goes to the same
//! handlers as from the gateway, and their first answer becomes the HTTP
//! response.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use ed25519_dalek::{Signature, VerifyingKey};
use tokio::sync::oneshot;
use twilight_model::application::interaction::{Interaction, InteractionType};

use super::shared::Shared;
use kozyr_delivery::interaction::HTTP_ANSWER_WITHIN;

/// The path Discord is told to post to (`Interactions Endpoint URL`).
pub const PATH: &str = "/discord/interactions";

/// The application's public key, checking request signatures.
#[derive(Clone, Debug)]
pub struct Verifier(VerifyingKey);

impl Verifier {
    /// From the 64 hex digits the Developer Portal shows as *Public Key*.
    pub fn from_hex(key: &str) -> Result<Verifier, &'static str> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(key.trim(), &mut bytes)
            .map_err(|_| "expected the 64 hex digits of the application's public key")?;
        VerifyingKey::from_bytes(&bytes)
            .map(Verifier)
            .map_err(|_| "not an Ed25519 public key")
    }

    /// Whether `signature` (hex) signs `timestamp` followed by `body`.
    pub fn verify(&self, timestamp: &str, body: &[u8], signature: &str) -> bool {
        let mut sig = [0u8; 64];
        if hex::decode_to_slice(signature, &mut sig).is_err() {
            return false;
        }
        let mut msg = timestamp.as_bytes().to_vec();
        msg.extend_from_slice(body);
        self.0
            .verify_strict(&msg, &Signature::from_bytes(&sig))
            .is_ok()
    }
}

struct Endpoint {
    shared: Arc<Shared>,
    verifier: Verifier,
    defer_after: Duration,
}

/// The endpoint's routes.
pub fn router(shared: Arc<Shared>, verifier: Verifier, defer_after: Duration) -> Router {
    Router::new()
        .route(PATH, post(interactions))
        .with_state(Arc::new(Endpoint {
            shared,
            verifier,
            defer_after,
        }))
}

async fn interactions(State(e): State<Arc<Endpoint>>, headers: HeaderMap, body: Bytes) -> Response {
    let header = |k| headers.get(k).and_then(|v| v.to_str().ok()).unwrap_or("");
    let (sig, ts) = (
        header("x-signature-ed25519"),
        header("x-signature-timestamp"),
    );
    if !e.verifier.verify(ts, &body, sig) {
        return (StatusCode::UNAUTHORIZED, "invalid request signature").into_response();
    }
    let Ok(i) = serde_json::from_slice::<Interaction>(&body) else {
        return (StatusCode::BAD_REQUEST, "not an interaction").into_response();
    };
    if i.kind == InteractionType::Ping {
        return axum::Json(serde_json::json!({"type": 1})).into_response();
    }
    let (tx, rx) = oneshot::channel();
    e.shared.answer_over_http(i.id.get(), tx);
    let shared = e.shared.clone();
    let defer_after = e.defer_after;
    tokio::spawn(async move {
        super::handlers::on_interaction(shared, i, defer_after, Duration::ZERO).await;
    });
    match tokio::time::timeout(HTTP_ANSWER_WITHIN, rx).await {
        Ok(Ok(answer)) => axum::Json(answer).into_response(),
        _ => (StatusCode::INTERNAL_SERVER_ERROR, "no answer in time").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    #[test]
    fn only_discords_signature_of_timestamp_and_body_passes() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let v = Verifier::from_hex(&hex::encode(key.verifying_key().as_bytes())).unwrap();
        let sig = hex::encode(key.sign(b"1700000000{\"type\":1}").to_bytes());
        assert!(v.verify("1700000000", b"{\"type\":1}", &sig));
        assert!(!v.verify("1700000001", b"{\"type\":1}", &sig));
        assert!(!v.verify("1700000000", b"{\"type\":2}", &sig));
        assert!(!v.verify("1700000000", b"{\"type\":1}", "zz"));
        assert!(!v.verify("1700000000", b"{\"type\":1}", ""));
        assert!(Verifier::from_hex("abc").is_err());
    }
}
