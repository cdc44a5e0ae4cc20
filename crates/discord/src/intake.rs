//! Discord events through the inbox: with replicas, every `kozyr run`
//! connects the gateway shards of its own `DISCORD_SHARDS`, serving or
//! standing by. A standby's shards write what the serving replica needs
//! (each `INTERACTION_CREATE` and `MESSAGE_CREATE`) into the inbox
//! ([`kozyr_table::storage::Inbox`], platform `discord`, keyed by the
//! interaction's or message's id) with [`put`]; the serving replica reads
//! the rows in order with [`consume`] and handles them as its own shards'
//! events: an interaction by the same handlers (answered through the REST
//! callback, which any process may call), a message by the burying count.
//! Each row is deleted once handled, so a kill in between has the next
//! serving replica handle it again, and the de-duplication key applies
//! the press once.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, watch};
use twilight_model::application::interaction::Interaction;

use super::shared::Shared;
use kozyr_outlet::inbox::{Gone, Row};
use kozyr_table::storage::{Inbox, InboxEntry};

/// What a standby's shard received, as an inbox row's body (the row says
/// when: how old an interaction is when the serving replica reads it).
#[derive(Debug, Serialize, Deserialize)]
pub struct Received {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interaction: Option<Box<Interaction>>,
    /// A message's (channel, author).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<(u64, u64)>,
}

impl Received {
    pub fn interaction(i: Interaction) -> Received {
        Received {
            interaction: Some(Box::new(i)),
            message: None,
        }
    }

    pub fn message(channel: u64, author: u64) -> Received {
        Received {
            interaction: None,
            message: Some((channel, author)),
        }
    }
}

/// Why a received event could not be written.
#[derive(Debug, thiserror::Error)]
pub enum IntakeError {
    #[error("cannot encode the event: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("the inbox refused the event: {0}")]
    Store(#[from] kozyr_table::storage::StorageError),
}

/// Writes an event a standby's shard received; resolves once it is
/// durable. `id` is the interaction's or message's snowflake (unique
/// across both), the row's key: a second write of the same is nothing.
pub async fn put(inbox: &Inbox, id: u64, received: &Received) -> Result<(), IntakeError> {
    let body = serde_json::to_string(received)?;
    inbox.put(&id.to_string(), &body).await?;
    Ok(())
}

/// Reads the inbox's Discord rows until `stop` ([`kozyr_outlet::inbox`]),
/// handling each as an event of the serving replica's own shards: an
/// interaction on its own task (as from a shard), a message at once (its
/// count is all there is to do).
pub async fn consume(
    shared: Arc<Shared>,
    inbox: Inbox,
    defer_after: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let stop = async move {
        let _ = stop.changed().await;
    };
    let take = move |row: InboxEntry, age: Duration| -> Result<Row, Gone> {
        let received: Received = match serde_json::from_str(&row.body) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, seq = row.seq, key = %row.key, "an inbox row that is no Discord event: dropped");
                return Ok(Row::Done);
            }
        };
        // The row's key is the message's id (a row without one counts).
        if let Some((channel, author)) = received.message {
            shared.on_message(channel, author, row.key.parse().unwrap_or(u64::MAX));
        }
        let Some(interaction) = received.interaction else {
            return Ok(Row::Done);
        };
        if age >= kozyr_delivery::interaction::HANDLED_WITHIN {
            tracing::info!(interaction = %row.key, age_ms = age.as_millis() as u64,
                "an interaction from the inbox is past Discord's answer window: dropped");
            return Ok(Row::Done);
        }
        let (handled, done) = oneshot::channel::<()>();
        let shared = shared.clone();
        tokio::spawn(async move {
            super::handlers::on_interaction(shared, *interaction, defer_after, age).await;
            drop(handled);
        });
        Ok(Row::Handling(done))
    };
    // An interaction past its window is not worth waiting for at a stop.
    kozyr_outlet::inbox::read(inbox, stop, Duration::ZERO, take).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interaction as the gateway brings it survives the row.
    #[test]
    fn an_interaction_round_trips_through_a_row() {
        let raw = serde_json::json!({
            "id": "1000000000000000007", "application_id": "123456789012345678", "type": 3,
            "data": {"custom_id": "hand:5", "component_type": 2},
            "guild_id": "900000000000000001",
            "channel": {"id": "700000000000000007", "type": 0, "name": "cards"},
            "channel_id": "700000000000000007",
            "member": {"user": {"id": "501", "username": "Ann", "global_name": "Ann",
                "discriminator": "0", "avatar": null}, "roles": [],
                "joined_at": "2026-01-01T00:00:00.000000+00:00", "deaf": false, "mute": false,
                "flags": 0, "permissions": "48"},
            "token": "itoken-1", "version": 1, "locale": "en-US", "guild_locale": "en-US",
            "app_permissions": "2048", "entitlements": [], "authorizing_integration_owners": {},
            "attachment_size_limit": 8388608, "context": 0,
        });
        let i: Interaction = serde_json::from_value(raw).unwrap();
        let body = serde_json::to_string(&Received::interaction(i.clone())).unwrap();
        let back: Received = serde_json::from_str(&body).unwrap();
        assert_eq!(back.interaction.as_deref(), Some(&i));
        assert_eq!(back.message, None);
        let m: Received =
            serde_json::from_str(&serde_json::to_string(&Received::message(7, 501)).unwrap())
                .unwrap();
        assert_eq!((m.message, m.interaction.is_none()), (Some((7, 501)), true));
    }
}
