//! A Discord REST call counted in the metrics, and what its failure means
//! in the delivery engine's neutral terms
//! ([`kozyr_delivery::transport::Failure`]): the shell only maps; what
//! happens next is decided once, in `delivery::transport`.

use std::time::Duration;

use twilight_http::api_error::ApiError;
use twilight_http::error::{Error as HttpError, ErrorType};

use kozyr_delivery::transport::Failure;

/// Discord's JSON error codes that mean something to delivery.
const UNKNOWN_CHANNEL: u64 = 10003;
const UNKNOWN_MESSAGE: u64 = 10008;
const UNKNOWN_WEBHOOK: u64 = 10015;
/// "Maximum number of edits to messages older than 1 hour reached."
const OLD_MESSAGE_EDITS: u64 = 30046;
const INVALID_WEBHOOK_TOKEN: u64 = 50027;
/// "Interaction has already been acknowledged."
const ALREADY_ACKNOWLEDGED: u64 = 40060;

/// Twilight's own rate limiter waits out each route's bucket from
/// Discord's headers, so a 429 that still reaches a call is a shared or
/// global limit: waited out briefly.
const RATE_LIMITED_PAUSE: Duration = Duration::from_secs(1);

/// Counts a REST call (`method`: twilight's name for it) with its result.
pub fn record<T>(method: &'static str, result: &Result<T, HttpError>) {
    kozyr_metrics::api_call(
        "discord",
        method,
        result
            .as_ref()
            .map_or_else(|e| classify(e).label(), |_| "ok"),
    );
}

/// What a failed call means.
pub fn classify(e: &HttpError) -> Failure {
    match e.kind() {
        ErrorType::Response { status, error, .. } => {
            let code = match error {
                ApiError::General(g) => Some(g.code),
                _ => None,
            };
            of_response(status.get(), code)
        }
        ErrorType::RequestTimedOut | ErrorType::RequestError | ErrorType::RequestCanceled => {
            Failure::Unavailable
        }
        _ => Failure::Invalid,
    }
}

/// Whether Discord says the interaction had its answer already: a first
/// try that went through although its answer was lost.
pub fn already_answered(e: &HttpError) -> bool {
    matches!(
        e.kind(),
        ErrorType::Response { error: ApiError::General(g), .. } if g.code == ALREADY_ACKNOWLEDGED
    )
}

/// A response's HTTP status and JSON error code, classified.
fn of_response(status: u16, code: Option<u64>) -> Failure {
    match (status, code) {
        (429, _) => Failure::RateLimited(RATE_LIMITED_PAUSE),
        (500.., _) => Failure::Unavailable,
        (_, Some(UNKNOWN_MESSAGE | OLD_MESSAGE_EDITS)) => Failure::MessageGone,
        (_, Some(UNKNOWN_WEBHOOK | INVALID_WEBHOOK_TOKEN)) | (401, _) => Failure::Expired,
        (_, Some(UNKNOWN_CHANNEL)) => Failure::ChatGone,
        // Missing access or permissions: the channel is closed to the bot.
        (403, _) => Failure::Refused,
        _ => Failure::Invalid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_what_discord_says() {
        let cases: &[(u16, Option<u64>, Failure)] = &[
            (404, Some(10008), Failure::MessageGone),
            (400, Some(30046), Failure::MessageGone),
            (404, Some(10015), Failure::Expired),
            (401, Some(50027), Failure::Expired),
            (401, None, Failure::Expired),
            (404, Some(10003), Failure::ChatGone),
            (403, Some(50001), Failure::Refused),
            (429, None, Failure::RateLimited(RATE_LIMITED_PAUSE)),
            (502, None, Failure::Unavailable),
            (400, Some(50035), Failure::Invalid),
        ];
        for (status, code, want) in cases {
            assert_eq!(of_response(*status, *code), *want, "{status} {code:?}");
        }
    }
}
