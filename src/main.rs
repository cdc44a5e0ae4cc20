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
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play whole series between built-in players and write deal records (JSON lines).
    Simulate(SimulateArgs),
    /// Play matches between built-in players and print the result with a 95% confidence interval.
    Arena(ArenaArgs),
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
        Command::Simulate(args) => simulate(args),
        Command::Arena(args) => run_arena(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("kozyr: {message}");
            ExitCode::FAILURE
        }
    }
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
