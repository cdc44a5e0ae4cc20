//! A Discord REST call counted in the metrics, with what its failure meant.

use twilight_http::error::ErrorType;

/// Counts a REST call (`method`: twilight's name for it) with its result.
pub fn record<T>(method: &'static str, result: &Result<T, twilight_http::Error>) {
    crate::metrics::api_call(
        "discord",
        method,
        result.as_ref().map_or_else(outcome, |_| "ok"),
    );
}

/// The label of a failed call's meaning, in the Telegram labels' terms
/// where they mean the same.
fn outcome(e: &twilight_http::Error) -> &'static str {
    match e.kind() {
        ErrorType::Response { status, .. } => match status.get() {
            429 => "retry_after",
            403 => "unreachable",
            404 => "message_gone",
            500.. => "transient",
            _ => "rejected",
        },
        ErrorType::RequestTimedOut | ErrorType::RequestError | ErrorType::RequestCanceled => {
            "transient"
        }
        _ => "rejected",
    }
}
