//! `kozyr arena`: matches between agents, with confidence intervals.
//!
//! Series are numbered from 1 and each gets its own seeds derived from the
//! run's seed, exactly as `kozyr simulate` does; so a deterministic run
//! gives the same result however many threads play it.

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::seeds::{derive_seed, game_seed};
use super::{Agent, AgentConfig, AgentKind, DealLog, Estimate, Rules, next_move, percentile};
use kozyr_game::{GameKind, GameOptions};
use kozyr_hearts::Match;
use kozyr_kozel::{Series, Team};

/// What to play.
#[derive(Clone, Debug)]
pub struct ArenaOptions {
    pub game: GameKind,
    /// The players, seat 0 to 3.
    pub players: [AgentKind; 4],
    pub series: u32,
    pub seed: u64,
    pub config: AgentConfig,
    /// The game's options (Hearts: moon, end score).
    pub options: GameOptions,
    /// Threads playing series side by side.
    pub jobs: usize,
}

/// Why a match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("a player thread crashed")]
    Crashed,
    #[error("{player} at seat {seat} chose an illegal action: {error}")]
    IllegalChoice {
        player: AgentKind,
        seat: usize,
        /// The rules' refusal, worded by the game.
        error: String,
    },
}

/// How long one kind of agent took per decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub player: AgentKind,
    /// Decisions with a real choice (two or more options).
    pub decisions: usize,
    pub median: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl Timing {
    fn of(player: AgentKind, mut took: Vec<Duration>) -> Timing {
        took.sort_unstable();
        let at = |q| percentile(&took, q).unwrap_or_default();
        Timing {
            player,
            decisions: took.len(),
            median: at(0.5),
            p99: at(0.99),
            max: took.last().copied().unwrap_or_default(),
        }
    }
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} decisions with a choice, median {:.2?}, p99 {:.2?}, max {:.2?}",
            self.player, self.decisions, self.median, self.p99, self.max
        )
    }
}

/// The result of a Kozel match.
#[derive(Clone, Debug, PartialEq)]
pub struct KozelReport {
    pub players: [AgentKind; 4],
    pub series: u32,
    pub deals: u64,
    /// Series won by team 0 (seats 0 and 2) and team 1 (seats 1 and 3).
    pub wins: [u32; 2],
    /// Team 0's share of the series won.
    pub win_rate: Estimate,
    /// Defeat points per deal each team took.
    pub defeat_points: [Estimate; 2],
    pub timing: Vec<Timing>,
}

impl fmt::Display for KozelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.players;
        writeln!(
            f,
            "kozel: {} series, {} deals; team 0 = seats 0+2 ({}, {}), team 1 = seats 1+3 ({}, {})",
            self.series, self.deals, p[0], p[2], p[1], p[3]
        )?;
        writeln!(
            f,
            "series won: team 0 {}, team 1 {}; team 0 win rate {:.3}",
            self.wins[0], self.wins[1], self.win_rate
        )?;
        for t in 0..2 {
            writeln!(
                f,
                "defeat points per deal, team {t}: {:.3}",
                self.defeat_points[t]
            )?;
        }
        for t in &self.timing {
            writeln!(f, "time per decision, {t}")?;
        }
        Ok(())
    }
}

/// One series' outcome.
struct SeriesOutcome {
    goat: Team,
    /// Defeat points of each deal, per team.
    deals: Vec<[u32; 2]>,
    took: [Vec<Duration>; 4],
}

/// Plays a Kozel match.
pub fn kozel(opts: &ArenaOptions) -> Result<KozelReport, ArenaError> {
    let outcomes = play_all(opts, |n| kozel_series(opts, n))?;
    let mut wins = [0u32; 2];
    let mut defeat: [Vec<f64>; 2] = Default::default();
    let mut took: Vec<(AgentKind, Vec<Duration>)> = Vec::new();
    for o in outcomes {
        wins[o.goat.other().index()] += 1;
        for d in &o.deals {
            defeat[0].push(f64::from(d[0]));
            defeat[1].push(f64::from(d[1]));
        }
        pool_timing(&mut took, &opts.players, o.took);
    }
    Ok(KozelReport {
        players: opts.players,
        series: wins[0] + wins[1],
        deals: defeat[0].len() as u64,
        wins,
        win_rate: Estimate::share(wins[0] as usize, (wins[0] + wins[1]) as usize),
        defeat_points: [Estimate::of(&defeat[0]), Estimate::of(&defeat[1])],
        timing: took.into_iter().map(|(n, t)| Timing::of(n, t)).collect(),
    })
}

/// Plays series 1 to `opts.series` on `opts.jobs` threads; the outcomes
/// come back in series order, whichever thread played them.
fn play_all<T: Send>(
    opts: &ArenaOptions,
    play: impl Fn(u32) -> Result<T, ArenaError> + Sync,
) -> Result<Vec<T>, ArenaError> {
    let next = AtomicU32::new(1);
    let slots: Mutex<Vec<Option<Result<T, ArenaError>>>> =
        Mutex::new((0..opts.series).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n > opts.series {
                        break;
                    }
                    let outcome = play(n);
                    if let Ok(mut all) = slots.lock() {
                        all[(n - 1) as usize] = Some(outcome);
                    }
                }
            });
        }
    });
    let slots = slots.into_inner().map_err(|_| ArenaError::Crashed)?;
    slots
        .into_iter()
        .map(|o| o.unwrap_or(Err(ArenaError::Crashed)))
        .collect()
}

/// Adds each seat's decision times to its player's pool.
fn pool_timing(
    pools: &mut Vec<(AgentKind, Vec<Duration>)>,
    players: &[AgentKind; 4],
    took: [Vec<Duration>; 4],
) {
    for (seat, t) in took.into_iter().enumerate() {
        let kind = players[seat];
        match pools.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, all)) => all.extend(t),
            None => pools.push((kind, t)),
        }
    }
}

/// Plays `game` to its end with the agents `opts` names, seeded for series
/// `n`; hands back the game and each seat's times for decisions with a
/// choice.
fn play_out<G: Rules>(
    opts: &ArenaOptions,
    n: u32,
    mut game: G,
) -> Result<(G, [Vec<Duration>; 4]), ArenaError> {
    let mut agents: [Box<dyn Agent<G>>; 4] = [0, 1, 2, 3].map(|seat: usize| {
        let seed = derive_seed(opts.seed, u64::from(n), seat as u64 + 1);
        opts.players[seat].agent::<G>(seed, &opts.config)
    });
    let mut log = DealLog::default();
    let mut events = Vec::new();
    let mut took: [Vec<Duration>; 4] = Default::default();
    while let Some((seat, action)) = next_move(&game, &log, &mut agents, |d| {
        if d.options > 1 {
            took[d.seat.index()].push(d.took);
        }
    }) {
        events.clear();
        game.apply_into(seat, action, &mut events)
            .map_err(|error| ArenaError::IllegalChoice {
                player: opts.players[seat.index()],
                seat: seat.index(),
                error: error.to_string(),
            })?;
        log.record(&events);
    }
    Ok((game, took))
}

fn kozel_series(opts: &ArenaOptions, n: u32) -> Result<SeriesOutcome, ArenaError> {
    let series = Series::new(derive_seed(opts.seed, u64::from(n), 0));
    let (series, took) = play_out(opts, n, series)?;
    Ok(SeriesOutcome {
        goat: series.goat().unwrap_or(Team::ALL[0]),
        deals: series.results().iter().map(|r| r.defeat_points).collect(),
        took,
    })
}

/// The result of a match of either game.
#[derive(Clone, Debug, PartialEq)]
pub enum ArenaReport {
    Kozel(KozelReport),
    Hearts(HeartsReport),
}

impl fmt::Display for ArenaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaReport::Kozel(r) => r.fmt(f),
            ArenaReport::Hearts(r) => r.fmt(f),
        }
    }
}

/// Plays the match `opts` describes.
pub fn run(opts: &ArenaOptions) -> Result<ArenaReport, ArenaError> {
    match opts.game {
        GameKind::Kozel => kozel(opts).map(ArenaReport::Kozel),
        GameKind::Hearts => hearts(opts).map(ArenaReport::Hearts),
    }
}

/// The result of a Hearts match: fewer points is better.
#[derive(Clone, Debug, PartialEq)]
pub struct HeartsReport {
    pub players: [AgentKind; 4],
    pub games: u32,
    pub deals: u64,
    /// Points per deal each seat scored.
    pub points: [Estimate; 4],
    /// When two kinds of player share the table: per deal, the mean points
    /// of the first kind's seats minus the second's (negative: the first
    /// takes fewer), as `(first, second, difference)`.
    pub difference: Option<(AgentKind, AgentKind, Estimate)>,
    pub timing: Vec<Timing>,
}

impl fmt::Display for HeartsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "hearts: {} games, {} deals; players {}",
            self.games,
            self.deals,
            self.players.map(AgentKind::as_str).join(",")
        )?;
        for (seat, e) in self.points.iter().enumerate() {
            writeln!(
                f,
                "points per deal, seat {seat} ({}): {e:.3}",
                self.players[seat]
            )?;
        }
        if let Some((a, b, d)) = &self.difference {
            writeln!(f, "points per deal, {a} minus {b} (same deals): {d:.3}")?;
        }
        for t in &self.timing {
            writeln!(f, "time per decision, {t}")?;
        }
        Ok(())
    }
}

/// One Hearts game's outcome: each deal's points by seat.
struct GameOutcome {
    deals: Vec<[u32; 4]>,
    took: [Vec<Duration>; 4],
}

/// Plays a Hearts match.
pub fn hearts(opts: &ArenaOptions) -> Result<HeartsReport, ArenaError> {
    let outcomes = play_all(opts, |n| hearts_game(opts, n))?;
    let mut points: [Vec<f64>; 4] = Default::default();
    let mut took = Vec::new();
    let mut kinds: Vec<AgentKind> = Vec::new();
    for &p in &opts.players {
        if !kinds.contains(&p) {
            kinds.push(p);
        }
    }
    let mut difference = Vec::new();
    for o in outcomes {
        for deal in &o.deals {
            for seat in 0..4 {
                points[seat].push(f64::from(deal[seat]));
            }
            if let [a, b] = kinds[..] {
                let mean = |kind: AgentKind| {
                    let seats: Vec<usize> = (0..4).filter(|&s| opts.players[s] == kind).collect();
                    seats.iter().map(|&s| f64::from(deal[s])).sum::<f64>() / seats.len() as f64
                };
                difference.push(mean(a) - mean(b));
            }
        }
        pool_timing(&mut took, &opts.players, o.took);
    }
    Ok(HeartsReport {
        players: opts.players,
        games: opts.series,
        deals: points[0].len() as u64,
        points: [0, 1, 2, 3].map(|s| Estimate::of(&points[s])),
        difference: match kinds[..] {
            [a, b] => Some((a, b, Estimate::of(&difference))),
            _ => None,
        },
        timing: took.into_iter().map(|(n, t)| Timing::of(n, t)).collect(),
    })
}

fn hearts_game(opts: &ArenaOptions, n: u32) -> Result<GameOutcome, ArenaError> {
    let seed = game_seed(opts.seed, n);
    let (game, took) = play_out(opts, n, Match::new(opts.options.hearts, seed))?;
    Ok(GameOutcome {
        deals: game.results().iter().map(|r| r.points.0).collect(),
        took,
    })
}
