//! `kozyr arena`: matches between agents, with confidence intervals.
//!
//! Series are numbered from 1 and each gets its own seeds derived from the
//! run's seed, exactly as `kozyr simulate` does; so a deterministic run
//! gives the same result however many threads play it.

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::kozel::{self as kozel_ai, DealLog, KozelAgent};
use super::{AgentConfig, Estimate, UnknownAgent, percentile};
use crate::game::GameKind;
use crate::kozel::{RuleError, Series, Team};
use crate::sim::derive_seed;

/// What to play.
#[derive(Clone, Debug)]
pub struct ArenaOptions {
    pub game: GameKind,
    /// Agent names, seat 0 to 3.
    pub players: [String; 4],
    pub series: u32,
    pub seed: u64,
    pub config: AgentConfig,
    /// Threads playing series side by side.
    pub jobs: usize,
}

/// Why a match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error(transparent)]
    UnknownAgent(#[from] UnknownAgent),
    #[error("there are no agents for {} yet", .0.as_str())]
    NoAgents(GameKind),
    #[error("{player} at seat {seat} chose an illegal action: {error}")]
    IllegalChoice {
        player: String,
        seat: usize,
        error: RuleError,
    },
}

/// How long one kind of agent took per decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub player: String,
    /// Decisions with a real choice (two or more options).
    pub decisions: usize,
    pub median: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl Timing {
    fn of(player: &str, mut took: Vec<Duration>) -> Timing {
        took.sort_unstable();
        let at = |q| percentile(&took, q).unwrap_or_default();
        Timing {
            player: player.to_string(),
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
    pub players: [String; 4],
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
    // Check the names before starting any thread.
    for name in &opts.players {
        kozel_ai::agent_with(name, 0, &opts.config)?;
    }
    let next = AtomicU32::new(1);
    let outcomes: Mutex<Vec<Option<Result<SeriesOutcome, ArenaError>>>> =
        Mutex::new((0..opts.series).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n > opts.series {
                        break;
                    }
                    let outcome = kozel_series(opts, n);
                    if let Ok(mut all) = outcomes.lock() {
                        all[(n - 1) as usize] = Some(outcome);
                    }
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap_or_default();
    let mut wins = [0u32; 2];
    let mut won = Vec::new();
    let mut defeat: [Vec<f64>; 2] = Default::default();
    let mut took: Vec<(String, Vec<Duration>)> = Vec::new();
    for outcome in outcomes.into_iter().flatten() {
        let o = outcome?;
        wins[o.goat.other().index()] += 1;
        won.push(if o.goat.index() == 1 { 1.0 } else { 0.0 });
        for d in &o.deals {
            defeat[0].push(f64::from(d[0]));
            defeat[1].push(f64::from(d[1]));
        }
        for (seat, t) in o.took.into_iter().enumerate() {
            let name = &opts.players[seat];
            match took.iter_mut().find(|(n, _)| n == name) {
                Some((_, all)) => all.extend(t),
                None => took.push((name.clone(), t)),
            }
        }
    }
    Ok(KozelReport {
        players: opts.players.clone(),
        series: wins[0] + wins[1],
        deals: defeat[0].len() as u64,
        wins,
        win_rate: Estimate::of(&won),
        defeat_points: [Estimate::of(&defeat[0]), Estimate::of(&defeat[1])],
        timing: took.into_iter().map(|(n, t)| Timing::of(&n, t)).collect(),
    })
}

fn kozel_series(opts: &ArenaOptions, n: u32) -> Result<SeriesOutcome, ArenaError> {
    let mut agents: [Box<dyn KozelAgent>; 4] = {
        let make = |seat: usize| {
            let seed = derive_seed(opts.seed, u64::from(n), seat as u64 + 1);
            kozel_ai::agent_with(&opts.players[seat], seed, &opts.config)
        };
        [make(0)?, make(1)?, make(2)?, make(3)?]
    };
    let mut series = Series::new(derive_seed(opts.seed, u64::from(n), 0));
    let mut log = DealLog::default();
    let mut events = Vec::new();
    let mut took: [Vec<Duration>; 4] = Default::default();
    while let Some((seat, action)) = kozel_ai::next_move(&series, &log, &mut agents, |d| {
        if d.options > 1 {
            took[d.seat.index()].push(d.took);
        }
    }) {
        events.clear();
        series
            .apply_into(seat, action, &mut events)
            .map_err(|error| ArenaError::IllegalChoice {
                player: opts.players[seat.index()].clone(),
                seat: seat.index(),
                error,
            })?;
        log.record(&events);
    }
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
}

impl fmt::Display for ArenaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaReport::Kozel(r) => r.fmt(f),
        }
    }
}

/// Plays the match `opts` describes.
pub fn run(opts: &ArenaOptions) -> Result<ArenaReport, ArenaError> {
    match opts.game {
        GameKind::Kozel => kozel(opts).map(ArenaReport::Kozel),
        GameKind::Hearts => Err(ArenaError::NoAgents(opts.game)),
    }
}
