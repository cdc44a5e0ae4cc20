use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use kozyr::ai::arena::{self, ArenaOptions};
use kozyr::ai::{AgentConfig, Budget};
use kozyr::game::{GameKind, GameOptions};
use kozyr::hearts::HeartsOptions;
use kozyr::sim::{self, SimOptions};

/// kozyr: Kozel and Hearts for chat groups.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the Telegram bot (the default). Configuration from the
    /// environment and a `.env` file; see `.env.example`.
    Run,
    /// Exit 0 while the running bot's heartbeat is fresh (Docker HEALTHCHECK).
    Healthcheck,
    /// Write a chat's tables and deal records as JSON lines.
    Export(ExportArgs),
    /// Play whole series between built-in players and write deal records (JSON lines).
    Simulate(SimulateArgs),
    /// Play matches between built-in players and print the result with a 95% confidence interval.
    Arena(ArenaArgs),
    /// Load test: the bot against an in-process fake Bot API, T groups of
    /// four simulated people playing Kozel deals by pressing buttons.
    /// Only in builds with `--features dev-tools`.
    #[cfg(feature = "dev-tools")]
    Loadtest(LoadtestArgs),
}

#[derive(Args, Debug)]
struct ArenaArgs {
    /// Which game to play: kozel or hearts.
    #[arg(long, default_value = "kozel")]
    game: GameKind,
    /// The four players, seat 0 to 3 (Kozel: seats 0 and 2 are one team).
    #[arg(long, value_delimiter = ',', num_args = 1, required = true)]
    players: Vec<String>,
    /// How many series to play.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    series: u32,
    /// Seed for every shuffle and every agent.
    #[arg(long)]
    seed: u64,
    /// Deterministic mode: this many sampled deals per search decision
    /// instead of a time budget (same seed, same result).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    playouts: Option<u32>,
    /// Thinking time per search decision, in milliseconds.
    #[arg(long, default_value_t = 300, conflicts_with = "playouts")]
    budget_ms: u64,
    /// Series played side by side on this many threads.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
}

#[cfg(feature = "dev-tools")]
#[derive(Args, Debug)]
struct LoadtestArgs {
    /// How many groups (tables), four people each.
    #[arg(long, short = 't', default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    tables: u32,
    /// Whole deals each table plays.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    deals: u32,
    /// Mean think time before each press, in milliseconds (0: as fast as possible).
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
}

#[derive(Args, Debug)]
struct ExportArgs {
    /// The chat, as platform:id (e.g. telegram:-1001234567890).
    #[arg(long)]
    chat: String,
    /// Where to write the JSON lines.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args, Debug)]
struct SimulateArgs {
    /// Which game to play: kozel or hearts.
    #[arg(long, default_value = "kozel")]
    game: GameKind,
    /// How many complete series (Kozel: to 12 defeat points) to play.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    series: u32,
    /// Seed for every shuffle and every random choice: same seed, same file.
    #[arg(long)]
    seed: u64,
    /// Where to write the records.
    #[arg(long)]
    out: PathBuf,
    /// The four players, seat 0 to 3, comma-separated (e.g. random,random,random,random).
    #[arg(
        long,
        value_delimiter = ',',
        num_args = 1,
        default_value = "random,random,random,random"
    )]
    players: Vec<String>,
    /// The table id written into the records.
    #[arg(long, default_value = "sim")]
    table: String,
    /// Hearts: a player who takes all 26 points scores 0 and the others 26.
    #[arg(long)]
    shoot_the_moon: bool,
    /// Hearts: the game ends when someone reaches this score.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1000))]
    end_score: u32,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None | Some(Command::Run) => run(),
        Some(Command::Healthcheck) => healthcheck(),
        Some(Command::Export(args)) => export(args),
        Some(Command::Simulate(args)) => simulate(args),
        Some(Command::Arena(args)) => run_arena(args),
        #[cfg(feature = "dev-tools")]
        Some(Command::Loadtest(args)) => loadtest(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("kozyr: {message}");
            ExitCode::FAILURE
        }
    }
}

fn config() -> Result<kozyr::config::Config, String> {
    // A missing .env is fine; the environment may hold everything.
    let _ = dotenvy::dotenv();
    kozyr::config::Config::from_lookup(|k| std::env::var(k).ok()).map_err(|e| e.to_string())
}

fn heartbeat(database_url: &str) -> PathBuf {
    kozyr::health::heartbeat_path(
        std::env::var("KOZYR_HEALTH_FILE").ok().as_deref(),
        database_url,
    )
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

fn run() -> Result<(), String> {
    let config = config()?;
    // The HTTP client's own logs can carry request URLs, which hold the
    // token: they stay at warnings whatever RUST_LOG says.
    let filter = tracing_subscriber::EnvFilter::try_new(format!(
        "{},reqwest=warn,hyper=warn,hyper_util=warn",
        config.log
    ))
    .map_err(|e| format!("RUST_LOG is malformed: {e}"))?;
    tracing_subscriber::fmt().with_env_filter(filter).init();
    let beat = heartbeat(&config.database_url);
    runtime()?
        .block_on(kozyr::telegram::bot::run(config, beat))
        .map_err(|e| e.to_string())
}

#[cfg(feature = "dev-tools")]
fn loadtest(args: LoadtestArgs) -> Result<(), String> {
    let filter = tracing_subscriber::EnvFilter::try_new(
        std::env::var("RUST_LOG").unwrap_or_else(|_| "error".into()),
    )
    .map_err(|e| format!("RUST_LOG is malformed: {e}"))?;
    tracing_subscriber::fmt().with_env_filter(filter).init();
    let options = kozyr::loadtest::LoadOptions {
        tables: args.tables,
        deals: args.deals,
        think: std::time::Duration::from_millis(args.think_ms),
        seed: args.seed,
        db: args.db,
        keep_db: args.keep_db,
    };
    let report = runtime()?
        .block_on(kozyr::loadtest::run(options))
        .map_err(|e| e.to_string())?;
    print!("{report}");
    if report.errors.is_empty() && report.unanswered == 0 {
        Ok(())
    } else {
        Err("the load test saw errors".into())
    }
}

fn healthcheck() -> Result<(), String> {
    let _ = dotenvy::dotenv();
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| kozyr::config::DEFAULT_DATABASE_URL.to_owned());
    kozyr::health::check(&heartbeat(&url), std::time::SystemTime::now()).map_err(|e| e.to_string())
}

fn export(args: ExportArgs) -> Result<(), String> {
    let _ = dotenvy::dotenv();
    let (platform, id) = args
        .chat
        .split_once(':')
        .ok_or("--chat must be platform:id, e.g. telegram:-100123")?;
    let platform = kozyr::table::Platform::ALL
        .into_iter()
        .find(|p| p.as_str() == platform)
        .ok_or_else(|| format!("unknown platform `{platform}`"))?;
    let chat = kozyr::table::ChatKey::new(platform, id).map_err(|e| e.to_string())?;
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| kozyr::config::DEFAULT_DATABASE_URL.to_owned());
    let file = File::create(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let mut out = BufWriter::new(file);
    runtime()?.block_on(async {
        let store = kozyr::store::Store::open(&kozyr::store::StoreOptions::new(url))
            .await
            .map_err(|e| e.to_string())?;
        let r = store.export_chat(&chat, &mut out).await;
        store.close().await;
        r.map_err(|e| e.to_string())
    })?;
    std::io::Write::flush(&mut out).map_err(|e| e.to_string())?;
    println!("{}", args.out.display());
    Ok(())
}

fn simulate(args: SimulateArgs) -> Result<(), String> {
    let players: [String; 4] =
        args.players.clone().try_into().map_err(|p: Vec<String>| {
            format!("--players needs exactly 4 names, got {}", p.len())
        })?;
    let opts = SimOptions {
        game: args.game,
        series: args.series,
        seed: args.seed,
        players,
        options: GameOptions {
            hearts: HeartsOptions {
                shoot_the_moon: args.shoot_the_moon,
                end_score: args.end_score,
            },
        },
        table: args.table,
    };
    let file = File::create(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let mut out = BufWriter::new(file);
    let started = Instant::now();
    let summary = sim::run(&opts, &mut out).map_err(|e| e.to_string())?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} series, {} deals in {secs:.2} s ({:.0} deals/s) -> {}",
        summary.series,
        summary.deals,
        summary.deals as f64 / secs.max(1e-9),
        args.out.display()
    );
    Ok(())
}

fn run_arena(args: ArenaArgs) -> Result<(), String> {
    let players: [String; 4] = args
        .players
        .try_into()
        .map_err(|p: Vec<String>| format!("--players needs exactly 4 names, got {}", p.len()))?;
    let budget = match args.playouts {
        Some(n) => Budget::Playouts(n),
        None => Budget::Time(std::time::Duration::from_millis(args.budget_ms)),
    };
    let opts = ArenaOptions {
        game: args.game,
        players,
        series: args.series,
        seed: args.seed,
        config: AgentConfig { budget },
        options: GameOptions::default(),
        jobs: args.jobs,
    };
    let started = Instant::now();
    let report = arena::run(&opts).map_err(|e| e.to_string())?;
    print!("{report}");
    println!("played in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
