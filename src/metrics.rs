//! Prometheus metrics, served at `GET /metrics` on `KOZYR_METRICS_LISTEN`
//! when it is set. Every metric name is here, behind one small function per
//! thing worth counting, so the places that know (the table service, the
//! store's writer, the Bot API outbox, the pacer) record it in one line and
//! the names cannot drift apart. Without an installed recorder (the
//! setting unset, or in tests that do not install one) the calls cost a
//! relaxed atomic load and do nothing.
//!
//! | name | type | labels | what |
//! |---|---|---|---|
//! | `kozyr_tables_open` | gauge | platform, phase | tables not closed, read from the database at each scrape |
//! | `kozyr_moves_total` | counter | by (person, ai) | accepted moves (`Act` commands) |
//! | `kozyr_move_seconds` | histogram | | a move's decide + durable commit + effect dispatch |
//! | `kozyr_commands_refused_total` | counter | command, reason | commands the rules refused |
//! | `kozyr_bot_api_calls_total` | counter | method, outcome | the outbox's Bot API calls (sendMessage, editMessageText) |
//! | `kozyr_bot_api_rate_limited_total` | counter | method | of those, 429 Too Many Requests |
//! | `kozyr_pacer_chats_waiting` | gauge | lane (group, private) | chats with output waiting to go out |
//! | `kozyr_pacer_pause_seconds` | histogram | lane | pauses a chat's output took for a 429 or a failed call |
//! | `kozyr_output_staleness_seconds` | histogram | of (actor, acted, group, others) | how long a message showed an out-of-date state before the scheduler delivered the new one |
//! | `kozyr_db_commit_seconds` | histogram | | one group commit of the store's writer, fsync included |
//! | `kozyr_db_commit_commands` | histogram | | commands in that group commit |

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::store::Store;
use crate::table::{Actor, Command, TableError};

pub const TABLES_OPEN: &str = "kozyr_tables_open";
pub const MOVES: &str = "kozyr_moves_total";
pub const MOVE_SECONDS: &str = "kozyr_move_seconds";
pub const COMMANDS_REFUSED: &str = "kozyr_commands_refused_total";
pub const BOT_API_CALLS: &str = "kozyr_bot_api_calls_total";
pub const BOT_API_RATE_LIMITED: &str = "kozyr_bot_api_rate_limited_total";
pub const PACER_CHATS_WAITING: &str = "kozyr_pacer_chats_waiting";
pub const PACER_PAUSE_SECONDS: &str = "kozyr_pacer_pause_seconds";
pub const OUTPUT_STALENESS_SECONDS: &str = "kozyr_output_staleness_seconds";
pub const DB_COMMIT_SECONDS: &str = "kozyr_db_commit_seconds";
pub const DB_COMMIT_COMMANDS: &str = "kozyr_db_commit_commands";

/// Why the metrics endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("cannot install the metrics recorder: {0}")]
    Install(String),
    #[error("cannot listen on KOZYR_METRICS_LISTEN {addr}: {error}")]
    Listen {
        addr: SocketAddr,
        error: std::io::Error,
    },
}

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process-wide Prometheus recorder (once; later calls get the
/// same handle). Latencies are histograms with fixed buckets, so they can
/// be summed across instances and over time, unlike summaries.
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    if let Some(h) = HANDLE.get() {
        return Ok(h.clone());
    }
    let seconds = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    ];
    let counts = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &seconds)
        .and_then(|b| b.set_buckets_for_metric(Matcher::Full(DB_COMMIT_COMMANDS.into()), &counts))
        .map_err(|e| MetricsError::Install(e.to_string()))?
        .build_recorder();
    let handle = recorder.handle();
    // Two threads racing here: the loser's recorder is dropped, and both
    // use the winner's handle.
    if ::metrics::set_global_recorder(recorder).is_ok() {
        let _ = HANDLE.set(handle);
    }
    HANDLE
        .get()
        .cloned()
        .ok_or_else(|| MetricsError::Install("another metrics recorder is installed".into()))
}

#[derive(Clone)]
struct Scrape {
    handle: PrometheusHandle,
    store: Option<Store>,
}

/// Serves `GET /metrics` on `listen`; returns the bound address (port 0
/// picks one) and the server task. With a `store`, each scrape first reads
/// the open tables per platform and phase from it.
pub async fn serve(
    listen: SocketAddr,
    store: Option<Store>,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), MetricsError> {
    let handle = install()?;
    let tcp = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|error| MetricsError::Listen {
            addr: listen,
            error,
        })?;
    let addr = tcp.local_addr().map_err(|error| MetricsError::Listen {
        addr: listen,
        error,
    })?;
    let app = Router::new()
        .route("/metrics", get(scrape))
        .with_state(Scrape { handle, store });
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(tcp, app).await {
            tracing::error!(error = %e, "the metrics server failed");
        }
    });
    tracing::info!(%addr, "metrics at http://{addr}/metrics");
    Ok((addr, server))
}

async fn scrape(State(s): State<Scrape>) -> ([(&'static str, &'static str); 1], String) {
    if let Some(store) = &s.store {
        match store.open_tables_by_phase().await {
            Ok(rows) => {
                for (platform, phase, n) in rows {
                    ::metrics::gauge!(TABLES_OPEN, "platform" => platform, "phase" => phase)
                        .set(n as f64);
                }
            }
            Err(e) => tracing::warn!(error = %e, "metrics: cannot count open tables"),
        }
    }
    // Histograms keep their samples until upkeep folds them in.
    s.handle.run_upkeep();
    (
        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
        s.handle.render(),
    )
}

/// A command the table service accepted, and how long it took.
pub fn command_done(command: &Command, actor: &Actor, took: Duration) {
    if let Command::Act { .. } = command {
        let by = match actor {
            Actor::Person { .. } => "person",
            Actor::Ai => "ai",
            Actor::System => "system",
        };
        ::metrics::counter!(MOVES, "by" => by).increment(1);
        ::metrics::histogram!(MOVE_SECONDS).record(took.as_secs_f64());
    }
}

/// A command the rules refused (the service's errors that are not the
/// store's are not counted here: they are logged).
pub fn command_refused(command: &Command, error: &TableError) {
    ::metrics::counter!(COMMANDS_REFUSED, "command" => command.name(), "reason" => reason(error))
        .increment(1);
}

/// A Bot API call the outbox made; `outcome` is `ok` or what the failure
/// meant (`retry_after` for a 429, which is counted on its own too).
pub fn bot_api_call(method: &'static str, outcome: &'static str) {
    ::metrics::counter!(BOT_API_CALLS, "method" => method, "outcome" => outcome).increment(1);
    if outcome == "retry_after" {
        ::metrics::counter!(BOT_API_RATE_LIMITED, "method" => method).increment(1);
    }
}

/// The label of a failed outbox call's meaning.
pub fn failure_outcome(f: &crate::telegram::failure::Failure) -> &'static str {
    use crate::telegram::failure::Failure;
    match f {
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

/// How many chats of a pacer `lane` have output waiting.
pub fn pacer_waiting(lane: &'static str, chats: usize) {
    ::metrics::gauge!(PACER_CHATS_WAITING, "lane" => lane).set(chats as f64);
}

/// How long a message showed an out-of-date state (`of`: whose message).
pub fn output_staleness(of: &'static str, took: Duration) {
    ::metrics::histogram!(OUTPUT_STALENESS_SECONDS, "of" => of).record(took.as_secs_f64());
}

/// A pause a chat's output takes after a 429 or a failed call.
pub fn pacer_pause(lane: &'static str, pause: Duration) {
    ::metrics::histogram!(PACER_PAUSE_SECONDS, "lane" => lane).record(pause.as_secs_f64());
}

/// One group commit of the store's writer: its time and size.
pub fn db_commit(took: Duration, commands: usize) {
    ::metrics::histogram!(DB_COMMIT_SECONDS).record(took.as_secs_f64());
    ::metrics::histogram!(DB_COMMIT_COMMANDS).record(commands as f64);
}

/// A stable, low-cardinality label for each refusal.
fn reason(e: &TableError) -> &'static str {
    match e {
        TableError::NoOpenTable => "no_open_table",
        TableError::TableAlreadyOpen => "table_already_open",
        TableError::TableClosed => "table_closed",
        TableError::NotAllowed => "not_allowed",
        TableError::NotSeated => "not_seated",
        TableError::AlreadySeated => "already_seated",
        TableError::TableFull => "table_full",
        TableError::SeatTaken { .. } => "seat_taken",
        TableError::NotAnAi { .. } => "not_an_ai",
        TableError::SameSeat => "same_seat",
        TableError::SeatsNotFilled => "seats_not_filled",
        TableError::GameInProgress => "game_in_progress",
        TableError::NotPlaying => "not_playing",
        TableError::NotFinished => "not_finished",
        TableError::NotYourSeat => "not_your_seat",
        TableError::NotYourTurn => "not_your_turn",
        TableError::SeatAway => "seat_away",
        TableError::NotAway => "not_away",
        TableError::StaleVersion { .. } => "stale_version",
        TableError::Illegal(_) => "illegal",
        TableError::NoTimer => "no_timer",
        TableError::TimerNotDue => "timer_not_due",
        TableError::UnknownPlayer => "unknown_player",
        TableError::SameChat => "same_chat",
        TableError::Internal(_) => "internal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_endpoint_serves_what_was_recorded() {
        let (addr, server) = serve("127.0.0.1:0".parse().unwrap(), None).await.unwrap();
        bot_api_call("sendMessage", "ok");
        bot_api_call("editMessageText", "retry_after");
        db_commit(Duration::from_millis(3), 2);
        pacer_waiting("group", 5);
        command_refused(&Command::Leave, &TableError::NotSeated);
        let body = get_metrics(addr).await;
        server.abort();
        for line in [
            r#"kozyr_bot_api_calls_total{method="sendMessage",outcome="ok"}"#,
            r#"kozyr_bot_api_rate_limited_total{method="editMessageText"}"#,
            r#"kozyr_pacer_chats_waiting{lane="group"} 5"#,
            r#"kozyr_commands_refused_total{command="leave",reason="not_seated"}"#,
            "kozyr_db_commit_seconds_bucket{le=\"0.005\"}",
            "kozyr_db_commit_commands_count",
        ] {
            assert!(body.contains(line), "{line} missing from\n{body}");
        }
    }

    /// A bare HTTP/1.0 GET: the library has no HTTP client of its own.
    async fn get_metrics(addr: SocketAddr) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tcp.write_all(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut body = String::new();
        tcp.read_to_string(&mut body).await.unwrap();
        assert!(
            body.starts_with("HTTP/1.0 200") || body.starts_with("HTTP/1.1 200"),
            "{body}"
        );
        body
    }
}
