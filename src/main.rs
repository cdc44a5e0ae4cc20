use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use kozyr::ai::arena::{self, ArenaOptions};
use kozyr::ai::{AgentConfig, AgentKind, Budget};
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
    /// Run the bot (the default) on every platform whose token is set
    /// (Telegram, Discord). Configuration from the
    /// environment and a `.env` file; see `.env.example`.
    Run(RunArgs),
    /// Exit 0 while the running bot's heartbeat is fresh (Docker HEALTHCHECK).
    Healthcheck,
    /// Write a chat's tables and deal records as JSON lines.
    Export(ExportArgs),
    /// Copy the database to a new file, consistently, while the bot runs.
    Backup(BackupArgs),
    /// Copy a bot's whole history from its SQLite file into an empty
    /// PostgreSQL database, then check the copy (stop the bot first).
    CopyStore(CopyStoreArgs),
    /// Play whole series between built-in players and write deal records (JSON lines).
    Simulate(SimulateArgs),
    /// Play matches between built-in players and print the result with a 95% confidence interval.
    Arena(ArenaArgs),
}

/// The settings of `kozyr run`, one per [`kozyr::config::SETTINGS`]:
/// each is its environment variable (clap's `env`, so `--help` shows it
/// with its default) or a flag that wins over it. Only the values given
/// are kept; the defaults are `Config`'s to apply, so that a default is not
/// mistaken for a setting given (an ignored-setting warning, the start-up
/// line's changed settings).
#[derive(Debug, Default)]
struct RunArgs {
    given: std::collections::HashMap<&'static str, String>,
}

impl RunArgs {
    /// `kozyr` without a subcommand: the environment alone.
    fn from_env() -> RunArgs {
        let given = kozyr::config::SETTINGS
            .iter()
            .filter_map(|s| Some((s.var, std::env::var(s.var).ok()?)))
            .collect();
        RunArgs { given }
    }

    fn lookup(&self, var: &str) -> Option<String> {
        self.given.get(var).cloned()
    }
}

impl clap::FromArgMatches for RunArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<RunArgs, clap::Error> {
        use clap::parser::ValueSource;
        let given = kozyr::config::SETTINGS
            .iter()
            .filter(|s| {
                !matches!(
                    m.value_source(s.var),
                    None | Some(ValueSource::DefaultValue)
                )
            })
            .filter_map(|s| Some((s.var, m.get_one::<String>(s.var)?.clone())))
            .collect();
        Ok(RunArgs { given })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = RunArgs::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for RunArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        kozyr::config::SETTINGS.iter().fold(cmd, |cmd, s| {
            let mut arg = clap::Arg::new(s.var)
                .long(s.flag)
                .env(s.var)
                .value_name("VALUE")
                .help(s.help)
                .hide_env_values(s.secret);
            if let Some(default) = s.default {
                arg = arg.default_value(default);
            }
            cmd.arg(arg)
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        RunArgs::augment_args(cmd)
    }
}

#[derive(Args, Debug)]
struct ArenaArgs {
    /// Which game to play: kozel or hearts.
    #[arg(long, default_value = "kozel")]
    game: GameKind,
    /// The four players, seat 0 to 3 (Kozel: seats 0 and 2 are one team).
    #[arg(long, value_delimiter = ',', num_args = 1, required = true)]
    players: Vec<AgentKind>,
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

#[derive(Args, Debug)]
struct ExportArgs {
    /// The chat, as platform:id (e.g. telegram:-1001234567890).
    #[arg(long)]
    chat: String,
    /// Where to write the JSON lines (a new file: an existing one is refused).
    #[arg(long)]
    out: PathBuf,
    /// Also write each table's deal still being played, marked
    /// `"unfinished": true` (docs/RECORDS.md).
    #[arg(long)]
    with_current: bool,
}

#[derive(Args, Debug)]
struct BackupArgs {
    /// The new file (refused if it exists). Restore by stopping the bot and
    /// putting this file in place of the database (see README).
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args, Debug)]
struct CopyStoreArgs {
    /// The SQLite database to copy (sqlite://PATH); it is only read.
    #[arg(long)]
    from: String,
    /// The empty PostgreSQL database to copy into (postgres://USER@HOST/DATABASE).
    #[arg(long)]
    to: String,
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
    players: Vec<AgentKind>,
    /// The table id written into the records.
    #[arg(long, default_value = "sim")]
    table: String,
    /// Hearts: a player who takes all 26 points scores 0 and the others 26.
    #[arg(long)]
    shoot_the_moon: bool,
    /// Hearts: the game ends when someone reaches this score.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1000))]
    end_score: u32,
    /// Hearts: any heart played breaks hearts (the common rule), not only
    /// one discarded by a player who could not follow suit.
    #[arg(long)]
    any_heart_breaks: bool,
}

fn main() -> ExitCode {
    // Before parsing: `.env` lines are settings as much as the environment
    // (clap reads them through `env`). A missing .env is fine.
    let _ = dotenvy::dotenv();
    let cli = Cli::parse();
    let result = match cli.command {
        None => run(RunArgs::from_env()),
        Some(Command::Run(args)) => run(args),
        Some(Command::Healthcheck) => healthcheck(),
        Some(Command::Export(args)) => export(args),
        Some(Command::Backup(args)) => backup(args),
        Some(Command::CopyStore(args)) => copy_store(args),
        Some(Command::Simulate(args)) => simulate(args),
        Some(Command::Arena(args)) => run_arena(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("kozyr: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The database of the admin commands: `DATABASE_URL` from the
/// environment or `.env`, else the default.
fn database_url() -> String {
    let _ = dotenvy::dotenv();
    std::env::var("DATABASE_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| kozyr::config::DEFAULT_DATABASE_URL.to_owned())
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

fn run(args: RunArgs) -> Result<(), String> {
    let config =
        kozyr::config::Config::from_lookup(|k| args.lookup(k)).map_err(|e| e.to_string())?;
    // The HTTP client's own logs can carry request URLs, which hold the
    // token: they stay at warnings whatever RUST_LOG says.
    kozyr::logs::init(
        &format!(
            "{},reqwest=warn,hyper=warn,hyper_util=warn,twilight_http=warn",
            config.log
        ),
        config.log_format,
    )?;
    for ignored in &config.ignored {
        tracing::warn!(variable = ignored.var, needs = ignored.needs, "{ignored}");
    }
    let beat = kozyr::health::heartbeat_path(config.health_file.as_deref(), &config.database_url);
    runtime()?.block_on(async {
        // The database first: a folder the bot cannot write is the admin's
        // to fix, and is said at once rather than after waiting for the
        // network.
        kozyr::store::open(&config.store_options())
            .await
            .map_err(|e| e.to_string())?
            .close()
            .await;
        let metrics = if let Some(listen) = config.metrics_listen {
            // Its own small read pool: counting open tables at a scrape
            // never waits behind the bot's readers.
            let options = kozyr::store::StoreOptions {
                readers: 1,
                ..config.store_options()
            };
            let store = kozyr::store::Opened::open_existing(&options)
                .await
                .map_err(|e| e.to_string())?;
            match kozyr::metrics::serve(listen, Some(store.clone().table_counter())).await {
                Ok((_, server)) => Some(kozyr::serve::MetricsServer { store, server }),
                Err(e) => {
                    store.close().await;
                    return Err(e.to_string());
                }
            }
        } else {
            None
        };
        let mut metrics = metrics;
        let served = kozyr::serve::run(config, beat, &mut metrics).await;
        // Every handle closes at a stop (a metrics pool left open kept
        // `kozyr.db-wal` behind): the run stops it before its own store
        // closes, or here when it ended before serving.
        if let Some(m) = metrics {
            m.stop().await;
        }
        served
    })
}

/// Never opens the database (so never creates one): it must exist, and
/// the heartbeat beside it must be fresh.
fn healthcheck() -> Result<(), String> {
    let url = database_url();
    // A PostgreSQL server is not this container's to check: the bot's
    // heartbeat says whether its commits go through.
    if kozyr::store::Backend::of(&url).map_err(|e| e.to_string())? == kozyr::store::Backend::Sqlite
    {
        kozyr::store::check_exists(&url).map_err(|e| e.to_string())?;
    }
    let role = kozyr::health::check(&heartbeat(&url), std::time::SystemTime::now())
        .map_err(|e| e.to_string())?;
    // Both roles are healthy (exit 0); the line tells them apart.
    println!("{role}");
    Ok(())
}

/// `VACUUM INTO` through the store: a consistent copy while the bot runs.
/// PostgreSQL has its own tool for that; nothing is opened.
fn backup(args: BackupArgs) -> Result<(), String> {
    let url = database_url();
    if kozyr::store::Backend::of(&url).map_err(|e| e.to_string())?
        == kozyr::store::Backend::Postgres
    {
        return Err(format!(
            "kozyr backup copies a SQLite file; DATABASE_URL names a PostgreSQL database: \
             use pg_dump instead (pg_dump --format=custom --file={} \"$DATABASE_URL\"), \
             restore with pg_restore (docs/OPERATIONS.md)",
            args.out.display()
        ));
    }
    let bytes = runtime()?.block_on(async {
        let store = kozyr::store::Store::open_existing(&kozyr::store::StoreOptions::new(url))
            .await
            .map_err(|e| e.to_string())?;
        let r = store.backup_to(&args.out).await;
        store.close().await;
        r.map_err(|e| e.to_string())
    })?;
    println!("{} ({bytes} bytes)", args.out.display());
    Ok(())
}

fn export(args: ExportArgs) -> Result<(), String> {
    let (platform, id) = args
        .chat
        .split_once(':')
        .ok_or("--chat must be platform:id, e.g. telegram:-100123")?;
    let platform = kozyr::table::Platform::ALL
        .into_iter()
        .find(|p| p.as_str() == platform)
        .ok_or_else(|| format!("unknown platform `{platform}`"))?;
    let chat = kozyr::table::ChatKey::new(platform, id).map_err(|e| e.to_string())?;
    let url = database_url();
    let exported = runtime()?.block_on(async {
        // The database before the output file: a wrong DATABASE_URL or chat
        // leaves neither a new empty database nor an empty export behind.
        let store = kozyr::store::Opened::open_existing(&kozyr::store::StoreOptions::new(&url))
            .await
            .map_err(|e| e.to_string())?;
        let r = export_to(&store, &chat, args.with_current, &url, &args.out).await;
        store.close().await;
        r
    })?;
    println!("{}: {exported} of {chat}", args.out.display());
    Ok(())
}

/// An export never overwrites a file, and a chat the database does not know
/// is an error rather than an empty file.
async fn export_to(
    store: &kozyr::store::Opened,
    chat: &kozyr::table::ChatKey,
    with_current: bool,
    url: &str,
    out: &std::path::Path,
) -> Result<kozyr::store::Exported, String> {
    use kozyr::store::Queries;
    let tables = store.chat_tables(chat).await.map_err(|e| e.to_string())?;
    if tables.is_empty() {
        let db = kozyr::store::database_path(url).map_or_else(
            || kozyr::store::postgres::redacted(url),
            |p| p.display().to_string(),
        );
        return Err(format!(
            "the database {db} has no chat {chat}: nothing to export (check --chat, platform:id as \
             the bot's logs show it, and DATABASE_URL)"
        ));
    }
    let file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(format!(
                "{} already exists (an export never overwrites a file)",
                out.display()
            ));
        }
        Err(e) => return Err(format!("cannot create {}: {e}", out.display())),
    };
    let mut writer = BufWriter::new(file);
    let written = kozyr::store::export_chat(store, chat, with_current, &mut writer)
        .await
        .map_err(|e| e.to_string())
        .and_then(|n| {
            std::io::Write::flush(&mut writer)
                .map(|()| n)
                .map_err(|e| format!("cannot write {}: {e}", out.display()))
        });
    if written.is_err() {
        // Half an export would pass for a whole one.
        drop(writer);
        let _ = std::fs::remove_file(out);
    }
    written
}

/// `kozyr copy-store`: the whole history into an empty PostgreSQL
/// database, checked by comparing the two databases' exports.
fn copy_store(args: CopyStoreArgs) -> Result<(), String> {
    let copied = runtime()?
        .block_on(kozyr::store::copy_store(&args.from, &args.to))
        .map_err(|e| e.to_string())?;
    println!("{copied}");
    Ok(())
}

fn simulate(args: SimulateArgs) -> Result<(), String> {
    let players: [AgentKind; 4] = args
        .players
        .clone()
        .try_into()
        .map_err(|p: Vec<_>| format!("--players needs exactly 4 names, got {}", p.len()))?;
    let opts = SimOptions {
        game: args.game,
        series: args.series,
        seed: args.seed,
        players,
        options: GameOptions {
            hearts: HeartsOptions {
                shoot_the_moon: args.shoot_the_moon,
                end_score: args.end_score,
                any_heart_breaks: args.any_heart_breaks,
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
    let players: [AgentKind; 4] = args
        .players
        .try_into()
        .map_err(|p: Vec<_>| format!("--players needs exactly 4 names, got {}", p.len()))?;
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
