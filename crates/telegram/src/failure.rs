//! What a failed Bot API call means, in the delivery engine's neutral
//! terms ([`kozyr_delivery::transport::Failure`]): the Telegram shell only
//! maps; what happens next is decided once, in `delivery::transport`.
//!
//! teloxide 0.17 names many errors, but some of today's Bot API texts
//! (`Forbidden: bot can't initiate conversation with a user`, `Forbidden:
//! bot was kicked from the group chat`) only reach it as
//! [`ApiError::Unknown`], so the classification also reads the text.

use teloxide::{ApiError, RequestError};

use kozyr_delivery::transport::Failure;

/// Counts a Bot API call in the metrics, with what its failure meant.
pub fn record_call<T>(method: &'static str, result: &Result<T, RequestError>) {
    let outcome = result
        .as_ref()
        .map_or_else(|e| classify(e).label(), |_| "ok");
    kozyr_metrics::api_call("telegram", method, outcome);
}

/// Classifies a failed request.
pub fn classify(e: &RequestError) -> Failure {
    match e {
        RequestError::RetryAfter(s) => Failure::RateLimited(s.duration()),
        RequestError::MigrateToChatId(id) => Failure::Moved(id.0),
        RequestError::Network(_) | RequestError::Io(_) | RequestError::InvalidJson { .. } => {
            Failure::Unavailable
        }
        RequestError::Api(api) => of_api(api),
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
        // Which of a person and a group refuses the bot decides what
        // follows (`delivery::transport::Recipient`).
        ApiError::BotBlocked
        | ApiError::BotKicked
        | ApiError::BotKickedFromSupergroup
        | ApiError::BotKickedFromChannel
        | ApiError::CantInitiateConversation
        | ApiError::CantTalkWithBots
        | ApiError::UserDeactivated
        | ApiError::GroupDeactivated => Failure::Refused,
        ApiError::ChatNotFound => Failure::ChatMissing,
        // A press's query answered already, or past Telegram's time to
        // answer (a redelivered update, a takeover): its id is spent.
        ApiError::InvalidQueryId => Failure::Expired,
        ApiError::Unknown(text) => of_text(text),
        _ => Failure::Invalid,
    }
}

fn of_text(text: &str) -> Failure {
    if text.starts_with("Forbidden:") {
        Failure::Refused
    } else if text.starts_with("Internal Server Error")
        || text.starts_with("Bad Gateway")
        || text.starts_with("Gateway")
        || text.starts_with("Service Unavailable")
    {
        Failure::Unavailable
    } else if text.contains("message is not modified") {
        Failure::NotModified
    } else if text.to_ascii_lowercase().contains("query is too old") {
        // The same refusal as `InvalidQueryId`, in another spelling
        // ("query ID is invalid").
        Failure::Expired
    } else {
        Failure::Invalid
    }
}

/// Logs a failed update handler or listener, each failure as loudly as
/// it deserves: teloxide's own handler logs every one at ERROR, and an
/// admin's alert on ERROR lines must mean something. What redelivery,
/// a takeover or a person's own choice brings (a press answered already,
/// an edit that changes nothing, a person who blocked the bot) is routine;
/// the platform being down or pacing us is worth a warning; a request
/// Telegram refused as such is a bug on our side.
pub fn log_handler_error(what: &'static str, e: &RequestError) {
    match level_of(e) {
        tracing::Level::DEBUG => tracing::debug!(error = %e, what, "a routine refusal"),
        tracing::Level::WARN => tracing::warn!(error = %e, what, "a call failed"),
        _ => tracing::error!(error = %e, what, "a call failed"),
    }
}

fn level_of(e: &RequestError) -> tracing::Level {
    match classify(e) {
        Failure::Expired | Failure::NotModified | Failure::MessageGone | Failure::Refused => {
            tracing::Level::DEBUG
        }
        Failure::RateLimited(_)
        | Failure::Unavailable
        | Failure::ChatMissing
        | Failure::ChatGone
        | Failure::Moved(_) => tracing::Level::WARN,
        Failure::Invalid => tracing::Level::ERROR,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use teloxide::types::{ChatId, Seconds};

    use super::*;

    #[test]
    fn classifies_what_telegram_says() {
        let api = |e| classify(&RequestError::Api(e));
        let unknown = |s: &str| api(ApiError::Unknown(s.to_owned()));
        assert_eq!(api(ApiError::MessageNotModified), Failure::NotModified);
        assert_eq!(api(ApiError::MessageToEditNotFound), Failure::MessageGone);
        assert_eq!(api(ApiError::BotBlocked), Failure::Refused);
        assert_eq!(api(ApiError::ChatNotFound), Failure::ChatMissing);
        assert_eq!(
            unknown("Forbidden: bot can't initiate conversation with a user"),
            Failure::Refused
        );
        assert_eq!(
            unknown("Forbidden: bot was kicked from the group chat"),
            Failure::Refused
        );
        assert_eq!(unknown("Internal Server Error"), Failure::Unavailable);
        assert_eq!(
            unknown("Bad Request: message is not modified: specified new message content"),
            Failure::NotModified
        );
        assert_eq!(api(ApiError::ButtonDataInvalid), Failure::Invalid);
        assert_eq!(api(ApiError::InvalidQueryId), Failure::Expired);
        assert_eq!(
            unknown(
                "Bad Request: query is too old and response timeout expired or query ID is invalid"
            ),
            Failure::Expired
        );
        assert_eq!(
            classify(&RequestError::RetryAfter(Seconds::from_seconds(7))),
            Failure::RateLimited(Duration::from_secs(7))
        );
        assert_eq!(
            classify(&RequestError::MigrateToChatId(ChatId(-100))),
            Failure::Moved(-100)
        );
    }

    /// A redelivered press (at-least-once delivery, a takeover) answered
    /// again is no ERROR line; only a request Telegram refused as such is.
    #[test]
    fn only_our_own_bugs_are_errors() {
        use tracing::Level;
        let api = |e| level_of(&RequestError::Api(e));
        assert_eq!(api(ApiError::InvalidQueryId), Level::DEBUG);
        assert_eq!(
            api(ApiError::Unknown(
                "Bad Request: query is too old and response timeout expired or query ID is invalid"
                    .into()
            )),
            Level::DEBUG
        );
        assert_eq!(api(ApiError::MessageNotModified), Level::DEBUG);
        assert_eq!(api(ApiError::BotBlocked), Level::DEBUG);
        assert_eq!(
            level_of(&RequestError::RetryAfter(Seconds::from_seconds(3))),
            Level::WARN
        );
        assert_eq!(api(ApiError::Unknown("Bad Gateway".into())), Level::WARN);
        assert_eq!(api(ApiError::ButtonDataInvalid), Level::ERROR);
    }
}
