//! `kozyr-loadtest`: the load generator's command line. A tool beside the
//! product: it drives the `kozyr` library (and, with `--replicas`, the
//! `kozyr` binary built beside this one) through the strict fakes.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// `kozyr-loadtest`: the bot against an in-process strict fake Bot API, T
/// groups of four simulated people playing Kozel deals by pressing buttons
/// (`docs/PERFORMANCE.md`).
#[derive(Parser, Debug)]
#[command(version, about)]
struct LoadtestArgs {
    /// How many groups (tables), four people each.
    #[arg(long, short = 't', default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    tables: u32,
    /// Whole deals each table plays.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    deals: u32,
    /// Mean think time before each move (its first press; a sixth of it
    /// between its presses), in milliseconds (0: as fast as possible).
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Seed for the think times.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The SQLite file to use (replaced).
    #[arg(long, default_value = "kozyr-loadtest.db")]
    db: PathBuf,
    /// Keep the database afterwards.
    #[arg(long)]
    keep_db: bool,
    /// Measure this many seconds of play once every table is open, then
    /// stop (the deals need not end).
    #[arg(long)]
    seconds: Option<u64>,
    /// Open a table this many milliseconds after the previous one.
    #[arg(long, default_value_t = 0)]
    open_every_ms: u64,
    /// Seconds of play after the last table opened before measuring, so
    /// what opening queued has gone out.
    #[arg(long, default_value_t = 0)]
    warmup_seconds: u64,
    /// No Telegram limits: the fake enforces none and the bot paces only
    /// groups (throughput of the bot itself).
    #[arg(long)]
    unlimited: bool,
    /// The bot-wide output budget per second (`KOZYR_TELEGRAM_RATE`).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rate: u32,
    /// Search for the most tables (from --tables, doubling, then halving
    /// the gap to 10%) at which the acting person's hand shows their turn
    /// within this p99, in milliseconds (and the group's table within 5 s,
    /// with no 429).
    #[arg(long)]
    search_p99_ms: Option<u64>,
    /// The share of people (0-1) who play in the Mini App (its HTTP API:
    /// state, event stream, presses) instead of the chat's buttons.
    #[arg(long, default_value_t = 0.0)]
    webapp_share: f64,
    /// Run on this scratch PostgreSQL database instead of the SQLite file
    /// (it is emptied before each run); Telegram's updates then come by
    /// webhook.
    #[arg(long)]
    postgres: Option<String>,
    /// Replicas serving the bot (needs --postgres): this process serves,
    /// the others stand by as `kozyr run` children and take updates too.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
    replicas: u32,
}

fn main() -> ExitCode {
    match loadtest(LoadtestArgs::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("kozyr-loadtest: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Errors only unless `RUST_LOG` says more: the report is the output.
/// `KOZYR_LOG_FORMAT=json` as for the bot.
fn init_logs() -> Result<(), String> {
    kozyr::logs::init(
        &std::env::var("RUST_LOG").unwrap_or_else(|_| "error".into()),
        kozyr::config::LogFormat::from_lookup(|k| std::env::var(k).ok())
            .map_err(|e| e.to_string())?,
    )
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

fn loadtest(args: LoadtestArgs) -> Result<(), String> {
    init_logs()?;
    let options = kozyr_loadtest::LoadOptions {
        tables: args.tables,
        deals: args.deals,
        think: std::time::Duration::from_millis(args.think_ms),
        seed: args.seed,
        db: args.db,
        keep_db: args.keep_db,
        duration: args.seconds.map(std::time::Duration::from_secs),
        rate: args.rate,
        open_every: std::time::Duration::from_millis(args.open_every_ms),
        warmup: std::time::Duration::from_secs(args.warmup_seconds),
        unlimited: args.unlimited,
        webapp_share: args.webapp_share,
        postgres: args.postgres,
        replicas: args.replicas,
    };
    if !(0.0..=1.0).contains(&options.webapp_share) {
        return Err("--webapp-share: expected a share between 0 and 1, such as 0.75".into());
    }
    if let Some(ms) = args.search_p99_ms {
        let aim = std::time::Duration::from_millis(ms);
        let best = runtime()?
            .block_on(kozyr_loadtest::search(options, aim))
            .map_err(|e| e.to_string())?;
        println!("largest table count with actor p99 <= {ms} ms: {best}");
        return Ok(());
    }
    let report = runtime()?
        .block_on(kozyr_loadtest::run(options))
        .map_err(|e| e.to_string())?;
    print!("{report}");
    if report.errors.is_empty() && report.unanswered == 0 {
        Ok(())
    } else {
        Err("the load test saw errors".into())
    }
}
