//! kozyr's Prometheus metrics: their names, the recorder, and one small
//! function per thing worth counting. The bot serves them at `GET /metrics`
//! on `KOZYR_METRICS_LISTEN` when it is set (`kozyr::metrics::serve`, which
//! alone knows HTTP). Every metric name is here, behind one small function per
//! thing worth counting, so the places that know (the table service, the
//! store's writer, the Bot API outbox, the pacer) record it in one line and
//! the names cannot drift apart. Without an installed recorder (the
//! setting unset, or in tests that do not install one) the calls cost a
//! relaxed atomic load and do nothing.
//!
//! Every metric is described (`# HELP`) and present from the start:
//! counters at zero for their known labels, histograms with no samples.
//! `docs/OPERATIONS.md` lists them with example alerts.
//!
//! | name | type | labels | what |
//! |---|---|---|---|
//! | `kozyr_build_info` | gauge | version | always 1 |
//! | `kozyr_tables_open` | gauge | platform, phase | tables not closed, read from the database at each scrape |
//! | `kozyr_moves_total` | counter | by (person, ai, timer) | moves played, by who played them |
//! | `kozyr_move_seconds` | histogram | | a command with a move: decide + durable commit + effect dispatch |
//! | `kozyr_commands_refused_total` | counter | command, reason | commands the rules refused |
//! | `kozyr_api_calls_total` | counter | platform, method, outcome | calls to the Telegram Bot API and Discord's REST API |
//! | `kozyr_api_rate_limited_total` | counter | platform, method | of those, 429 Too Many Requests |
//! | `kozyr_pacer_chats_waiting` | gauge | lane (group, private) | chats with output waiting to go out |
//! | `kozyr_pacer_pause_seconds` | histogram | lane | pauses a chat's output took for a 429 or a failed call |
//! | `kozyr_scheduler_queue_length` | gauge | priority | Telegram outputs waiting in the scheduler |
//! | `kozyr_output_wait_seconds` | histogram | priority | how long an output waited in the scheduler before it went (routine spacing included) |
//! | `kozyr_output_staleness_seconds` | histogram | of (actor, acted, group, others) | how long a message showed an out-of-date state before the scheduler delivered the new one |
//! | `kozyr_db_commit_seconds` | histogram | | one group commit of the store's writer, fsync included |
//! | `kozyr_db_commit_commands` | histogram | | commands in that group commit |
//! | `kozyr_replica_serving` | gauge | | 1 while this process serves the bot, 0 while it stands by (replicas on one PostgreSQL database) |
//! | `kozyr_gateway_shards_connected` | gauge | shard (`id/total`) | 1 while the gateway shard this process runs is connected (READY or RESUMED), 0 while it reconnects |
//! | `process_*` | | | resident memory, CPU seconds, open files… (`metrics-process`) |

use std::sync::OnceLock;
use std::time::Duration;

pub use metrics_exporter_prometheus::PrometheusHandle;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};

pub const TABLES_OPEN: &str = "kozyr_tables_open";
pub const MOVES: &str = "kozyr_moves_total";
pub const MOVE_SECONDS: &str = "kozyr_move_seconds";
pub const COMMANDS_REFUSED: &str = "kozyr_commands_refused_total";
pub const API_CALLS: &str = "kozyr_api_calls_total";
pub const API_RATE_LIMITED: &str = "kozyr_api_rate_limited_total";
pub const BUILD_INFO: &str = "kozyr_build_info";
pub const SCHEDULER_QUEUE_LENGTH: &str = "kozyr_scheduler_queue_length";
pub const OUTPUT_WAIT_SECONDS: &str = "kozyr_output_wait_seconds";
pub const PACER_CHATS_WAITING: &str = "kozyr_pacer_chats_waiting";
pub const PACER_PAUSE_SECONDS: &str = "kozyr_pacer_pause_seconds";
pub const OUTPUT_STALENESS_SECONDS: &str = "kozyr_output_staleness_seconds";
pub const DB_COMMIT_SECONDS: &str = "kozyr_db_commit_seconds";
pub const DB_COMMIT_COMMANDS: &str = "kozyr_db_commit_commands";
pub const REPLICA_SERVING: &str = "kozyr_replica_serving";
pub const GATEWAY_SHARDS_CONNECTED: &str = "kozyr_gateway_shards_connected";

/// Why the process-wide recorder could not be installed.
#[derive(Debug, thiserror::Error)]
#[error("cannot install the metrics recorder: {0}")]
pub struct InstallError(String);

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process-wide Prometheus recorder (once; later calls get the
/// same handle). Latencies are histograms with fixed buckets, so they can
/// be summed across instances and over time, unlike summaries.
pub fn install() -> Result<PrometheusHandle, InstallError> {
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
        .map_err(|e| InstallError(e.to_string()))?
        .build_recorder();
    let handle = recorder.handle();
    // Two threads racing here: the loser's recorder is dropped, and both
    // use the winner's handle.
    if ::metrics::set_global_recorder(recorder).is_ok() {
        describe_and_register();
        let _ = HANDLE.set(handle);
    }
    HANDLE
        .get()
        .cloned()
        .ok_or_else(|| InstallError("another metrics recorder is installed".into()))
}

/// The Bot API methods kozyr calls, and Discord's REST calls (twilight's
/// names), registered at zero so a rate over them exists before the first.
const TELEGRAM_METHODS: &[&str] = &[
    "getMe",
    "getUpdates",
    "sendMessage",
    "editMessageText",
    "editMessageReplyMarkup",
    "answerCallbackQuery",
    "getChatMember",
    "setMyCommands",
    "setWebhook",
    "deleteWebhook",
];
const DISCORD_METHODS: &[&str] = &[
    "create_message",
    "update_message",
    "delete_message",
    "create_response",
    "update_response",
    "delete_response",
    "create_followup",
];
const PRIORITIES: [&str; 4] = ["turn", "acted", "table", "background"];
const LANES: [&str; 2] = ["group", "private"];

fn process_collector() -> &'static metrics_process::Collector {
    static COLLECTOR: OnceLock<metrics_process::Collector> = OnceLock::new();
    COLLECTOR.get_or_init(metrics_process::Collector::default)
}

/// `# HELP` for every metric, and each series whose labels are known ahead
/// at zero: a dashboard or an alert on `rate(...)` works from the first
/// scrape, not from the first event.
fn describe_and_register() {
    use ::metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_gauge!(
        BUILD_INFO,
        "The running build: always 1, its version in the label"
    );
    describe_gauge!(
        TABLES_OPEN,
        "Tables not closed, by platform and phase (read at each scrape)"
    );
    describe_counter!(
        MOVES,
        "Moves played, by who played them: person, ai or timer"
    );
    describe_histogram!(
        MOVE_SECONDS,
        Unit::Seconds,
        "A command with a move: decide, durable commit and effect dispatch"
    );
    describe_counter!(
        COMMANDS_REFUSED,
        "Commands the rules refused, by command and reason"
    );
    describe_counter!(
        API_CALLS,
        "Calls to the platforms' APIs, by platform, method and outcome"
    );
    describe_counter!(
        API_RATE_LIMITED,
        "API calls answered 429 Too Many Requests, by platform and method"
    );
    describe_gauge!(
        PACER_CHATS_WAITING,
        "Telegram chats with output waiting to go out, by lane"
    );
    describe_histogram!(
        PACER_PAUSE_SECONDS,
        Unit::Seconds,
        "Pauses a Telegram chat's output took after a 429 or a failed call, by lane"
    );
    describe_gauge!(
        SCHEDULER_QUEUE_LENGTH,
        "Telegram outputs waiting in the scheduler, by priority"
    );
    describe_histogram!(
        OUTPUT_WAIT_SECONDS,
        Unit::Seconds,
        "How long a Telegram output waited in the scheduler before it went, by priority"
    );
    describe_histogram!(
        OUTPUT_STALENESS_SECONDS,
        Unit::Seconds,
        "How long a message showed an out-of-date state before the new one was delivered"
    );
    describe_histogram!(
        DB_COMMIT_SECONDS,
        Unit::Seconds,
        "One group commit of the store's writer, fsync included"
    );
    describe_histogram!(
        DB_COMMIT_COMMANDS,
        "Commands in one group commit of the store's writer"
    );
    describe_gauge!(
        GATEWAY_SHARDS_CONNECTED,
        "1 while a gateway shard this process runs is connected, 0 while it reconnects, by shard"
    );
    describe_gauge!(
        REPLICA_SERVING,
        "1 while this process serves the bot, 0 while it stands by for the serving replica"
    );
    process_collector().describe();

    ::metrics::gauge!(BUILD_INFO, "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    for by in ["person", "ai", "timer"] {
        ::metrics::counter!(MOVES, "by" => by).absolute(0);
    }
    let _ = ::metrics::histogram!(MOVE_SECONDS);
    // The refusals a stale or early press gets: the ones worth a graph.
    for reason in ["not_your_turn", "stale_version", "illegal", "table_closed"] {
        ::metrics::counter!(COMMANDS_REFUSED, "command" => "act", "reason" => reason).absolute(0);
    }
    for (platform, methods) in [("telegram", TELEGRAM_METHODS), ("discord", DISCORD_METHODS)] {
        for &method in methods {
            ::metrics::counter!(API_CALLS, "platform" => platform, "method" => method, "outcome" => "ok")
                .absolute(0);
            ::metrics::counter!(API_RATE_LIMITED, "platform" => platform, "method" => method)
                .absolute(0);
        }
    }
    for lane in LANES {
        ::metrics::gauge!(PACER_CHATS_WAITING, "lane" => lane).set(0.0);
        let _ = ::metrics::histogram!(PACER_PAUSE_SECONDS, "lane" => lane);
    }
    for priority in PRIORITIES {
        ::metrics::gauge!(SCHEDULER_QUEUE_LENGTH, "priority" => priority).set(0.0);
        let _ = ::metrics::histogram!(OUTPUT_WAIT_SECONDS, "priority" => priority);
    }
    for of in ["actor", "group", "others"] {
        let _ = ::metrics::histogram!(OUTPUT_STALENESS_SECONDS, "of" => of);
    }
    let _ = ::metrics::histogram!(DB_COMMIT_SECONDS);
    let _ = ::metrics::histogram!(DB_COMMIT_COMMANDS);
}

/// The open tables counted at a scrape: `n` not closed, on `platform`, in
/// `phase`.
pub fn tables_open(platform: &'static str, phase: &'static str, n: i64) {
    ::metrics::gauge!(TABLES_OPEN, "platform" => platform, "phase" => phase).set(n as f64);
}

/// What a scrape answers: the process's own figures read now, the
/// histograms' samples folded in, everything in Prometheus' text format.
pub fn render(handle: &PrometheusHandle) -> String {
    process_collector().collect();
    // Histograms keep their samples until upkeep folds them in.
    handle.run_upkeep();
    handle.render()
}

/// A command the table service made durable, and how long it took:
/// `moves_by` says who played each move it carried (`person`, `ai`,
/// `timer`; a move the turn timer played counts as the timer's, whatever
/// command carried it).
pub fn command_done(moves_by: &[&'static str], took: Duration) {
    for by in moves_by {
        ::metrics::counter!(MOVES, "by" => *by).increment(1);
    }
    if !moves_by.is_empty() {
        ::metrics::histogram!(MOVE_SECONDS).record(took.as_secs_f64());
    }
}

/// A command the rules refused (`reason`: the table error's stable label;
/// the service's errors that are not the rules' are not counted here:
/// they are logged).
pub fn command_refused(command: &'static str, reason: &'static str) {
    ::metrics::counter!(COMMANDS_REFUSED, "command" => command, "reason" => reason).increment(1);
}

/// A call to a platform's API; `outcome` is `ok` or what the failure
/// meant (`retry_after` for a 429, which is counted on its own too). The
/// shell that made the call says what its failure meant
/// (`telegram::failure::record_call`, `discord::calls::record`): this
/// module knows no platform.
pub fn api_call(platform: &'static str, method: &'static str, outcome: &'static str) {
    ::metrics::counter!(API_CALLS, "platform" => platform, "method" => method, "outcome" => outcome)
        .increment(1);
    if outcome == "retry_after" {
        ::metrics::counter!(API_RATE_LIMITED, "platform" => platform, "method" => method)
            .increment(1);
    }
}

/// How many Telegram outputs of `priority` wait in the scheduler.
pub fn scheduler_queue(priority: &'static str, outputs: usize) {
    ::metrics::gauge!(SCHEDULER_QUEUE_LENGTH, "priority" => priority).set(outputs as f64);
}

/// An output of `priority` went out after waiting this long in the scheduler.
pub fn output_wait(priority: &'static str, waited: Duration) {
    ::metrics::histogram!(OUTPUT_WAIT_SECONDS, "priority" => priority).record(waited.as_secs_f64());
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

/// Whether this process serves the bot (1) or stands by (0).
pub fn replica_serving(serving: bool) {
    ::metrics::gauge!(REPLICA_SERVING).set(if serving { 1.0 } else { 0.0 });
}

/// A gateway shard (`id/total`) connected or lost its connection; each
/// shard the process runs reports 0 when it starts.
pub fn gateway_shard(shard: &str, connected: bool) {
    ::metrics::gauge!(GATEWAY_SHARDS_CONNECTED, "shard" => shard.to_owned())
        .set(f64::from(u8::from(connected)));
}

/// One group commit of the store's writer: its time and size.
pub fn db_commit(took: Duration, commands: usize) {
    ::metrics::histogram!(DB_COMMIT_SECONDS).record(took.as_secs_f64());
    ::metrics::histogram!(DB_COMMIT_COMMANDS).record(commands as f64);
}

/// Counts the tables not closed at a scrape: (platform, phase, how many)
/// for every pair. Given by whoever can read them (the store), so this
/// module, which every layer records into, imports none of them.
pub type CountTables = std::sync::Arc<
    dyn Fn() -> std::pin::Pin<
            Box<
                dyn std::future::Future<
                        Output = Result<Vec<(&'static str, &'static str, i64)>, String>,
                    > + Send,
            >,
        > + Send
        + Sync,
>;
