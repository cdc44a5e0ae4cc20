//! What a failed Bot API call means for kozyr.
//!
//! teloxide 0.17 names many errors, but some of today's Bot API texts
//! (`Forbidden: bot can't initiate conversation with a user`, `Forbidden:
//! bot was kicked from the group chat`) only reach it as
//! [`ApiError::Unknown`], so the classification also reads the text.

use std::time::Duration;

use teloxide::types::ChatId;
use teloxide::{ApiError, RequestError};

use crate::delivery::pacing::Outcome;

/// The kinds of failure the front-end handles differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The edit would change nothing: Telegram already shows it (a success).
    NotModified,
    /// 429: wait this long before writing to the chat again.
    RetryAfter(Duration),
    /// The message is gone or cannot be edited: send a new one.
    MessageGone,
    /// The group became a supergroup with this id.
    Migrated(ChatId),
    /// The bot cannot write there: a user who never started it or blocked
    /// it, a group it was removed from, a deleted account.
    Unreachable,
    /// 400 "chat not found". Telegram has answered it for groups that were
    /// fine a moment later, so a group is not given up on the first one
    /// (the outbox retries a few times before it stops the table).
    ChatNotFound,
    /// Worth retrying: network trouble, a 5xx, a garbled answer.
    Transient,
    /// Telegram refused the request itself (a bug on our side).
    Rejected,
}

/// Counts a Bot API call in the metrics, with what its failure meant.
pub fn record_call<T>(method: &'static str, result: &Result<T, RequestError>) {
    let outcome = result
        .as_ref()
        .map_or_else(|e| Failure::of(e).label(), |_| "ok");
    crate::metrics::api_call("telegram", method, outcome);
}

impl Failure {
    /// The failure's `outcome` label in `kozyr_api_calls_total`.
    pub fn label(&self) -> &'static str {
        match self {
            Failure::NotModified => "not_modified",
            Failure::RetryAfter(_) => "retry_after",
            Failure::MessageGone => "message_gone",
            Failure::Migrated(_) => "migrated",
            Failure::Unreachable => "unreachable",
            Failure::ChatNotFound => "chat_not_found",
            Failure::Transient => "transient",
            Failure::Rejected => "rejected",
        }
    }

    /// Classifies a failed request.
    pub fn of(e: &RequestError) -> Failure {
        match e {
            RequestError::RetryAfter(s) => Failure::RetryAfter(s.duration()),
            RequestError::MigrateToChatId(id) => Failure::Migrated(*id),
            RequestError::Network(_) | RequestError::Io(_) | RequestError::InvalidJson { .. } => {
                Failure::Transient
            }
            RequestError::Api(api) => Failure::of_api(api),
        }
    }

    fn of_api(e: &ApiError) -> Failure {
        match e {
            ApiError::MessageNotModified => Failure::NotModified,
            ApiError::MessageToEditNotFound
            | ApiError::MessageCantBeEdited
            | ApiError::MessageIdInvalid
            | ApiError::MessageToDeleteNotFound
            | ApiError::MessageCantBeDeleted => Failure::MessageGone,
            ApiError::BotBlocked
            | ApiError::BotKicked
            | ApiError::BotKickedFromSupergroup
            | ApiError::BotKickedFromChannel
            | ApiError::CantInitiateConversation
            | ApiError::CantTalkWithBots
            | ApiError::UserDeactivated
            | ApiError::GroupDeactivated => Failure::Unreachable,
            ApiError::ChatNotFound => Failure::ChatNotFound,
            ApiError::Unknown(text) => Failure::of_text(text),
            _ => Failure::Rejected,
        }
    }

    fn of_text(text: &str) -> Failure {
        if text.starts_with("Forbidden:") {
            Failure::Unreachable
        } else if text.starts_with("Internal Server Error")
            || text.starts_with("Bad Gateway")
            || text.starts_with("Gateway")
            || text.starts_with("Service Unavailable")
        {
            Failure::Transient
        } else if text.contains("message is not modified") {
            Failure::NotModified
        } else {
            Failure::Rejected
        }
    }

    /// What the pacer should do with an output that failed this way.
    /// (Migration and unreachable chats need the front-end's attention too:
    /// [`crate::delivery::pacing::Pacer::migrate`], [`crate::delivery::pacing::Pacer::forget`];
    /// the outbox retries a group's "chat not found" itself.)
    pub fn pacing_outcome(self) -> Outcome {
        match self {
            Failure::NotModified => Outcome::NotModified,
            Failure::RetryAfter(d) => Outcome::RetryAfter(d),
            Failure::MessageGone => Outcome::Gone,
            // Retried soon; a short pause rather than hammering a sick server.
            Failure::Transient => Outcome::RetryAfter(Duration::from_secs(1)),
            Failure::Migrated(_)
            | Failure::Unreachable
            | Failure::ChatNotFound
            | Failure::Rejected => Outcome::Failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use teloxide::types::Seconds;

    use super::*;

    #[test]
    fn classifies_what_telegram_says() {
        let api = |e| Failure::of(&RequestError::Api(e));
        let unknown = |s: &str| api(ApiError::Unknown(s.to_owned()));
        assert_eq!(api(ApiError::MessageNotModified), Failure::NotModified);
        assert_eq!(api(ApiError::MessageToEditNotFound), Failure::MessageGone);
        assert_eq!(api(ApiError::BotBlocked), Failure::Unreachable);
        assert_eq!(api(ApiError::ChatNotFound), Failure::ChatNotFound);
        assert_eq!(
            unknown("Forbidden: bot can't initiate conversation with a user"),
            Failure::Unreachable
        );
        assert_eq!(
            unknown("Forbidden: bot was kicked from the group chat"),
            Failure::Unreachable
        );
        assert_eq!(unknown("Internal Server Error"), Failure::Transient);
        assert_eq!(api(ApiError::ButtonDataInvalid), Failure::Rejected);
        assert_eq!(
            Failure::of(&RequestError::RetryAfter(Seconds::from_seconds(7))),
            Failure::RetryAfter(Duration::from_secs(7))
        );
        assert_eq!(
            Failure::of(&RequestError::MigrateToChatId(ChatId(-100))),
            Failure::Migrated(ChatId(-100))
        );
        assert_eq!(Failure::NotModified.pacing_outcome(), Outcome::NotModified);
        assert_eq!(Failure::MessageGone.pacing_outcome(), Outcome::Gone);
        assert_eq!(Failure::Unreachable.pacing_outcome(), Outcome::Failed);
    }
}
