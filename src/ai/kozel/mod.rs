//! Kozel agents.
//!
//! An agent decides from an [`Observation`]: its seat's [`SeriesView`] and
//! the deal's events as that seat saw them ([`SeenEvent`]). Neither type can
//! hold another seat's hand, the stock order or someone else's passed cards,
//! so an agent cannot peek however it is written.

mod heuristic;
mod knowledge;
mod sample;
mod search;

use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{AgentConfig, Decision, UnknownAgent};
use crate::cards::Seat;
use crate::kozel::{Action, Event, SeenEvent, Series, SeriesView};

pub use heuristic::HeuristicAgent;
pub use search::SearchAgent;

/// Everything one seat may know when it decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub view: SeriesView,
    /// The current deal's events as this seat saw them, oldest first.
    pub history: Vec<SeenEvent>,
}

impl Observation {
    pub fn seat(&self) -> Seat {
        self.view.deal.seat
    }
}

/// A Kozel player.
pub trait KozelAgent: Send {
    /// Picks one of `legal` (never empty) for the seat whose turn it is.
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action;

    /// Out of turn, holding a molodka that may be played now: play it?
    fn wants_molodka(&mut self, seen: &Observation) -> bool;
}

/// The events of the deal in play, as the engine emitted them. Whoever
/// drives a table of agents feeds it every event and asks it for a seat's
/// [`Observation`], which keeps only what that seat saw.
///
/// ```
/// use kozyr::ai::kozel::DealLog;
/// use kozyr::kozel::Series;
/// let mut series = Series::new(1);
/// let mut log = DealLog::default();
/// let seat = series.to_act().unwrap();
/// let lead = series.legal_actions(seat)[0];
/// log.record(&series.apply(seat, lead).unwrap());
/// let seen = log.observation(&series, seat.next());
/// assert_eq!(seen.history.len(), 1);
/// assert_eq!(seen.view, series.view(seat.next()));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealLog {
    events: Vec<Event>,
}

impl DealLog {
    /// Appends `events`; a new deal starts a new log.
    pub fn record(&mut self, events: &[Event]) {
        for e in events {
            if matches!(e, Event::DealStarted { .. }) {
                self.events.clear();
            }
            self.events.push(e.clone());
        }
    }

    /// What `seat` knows now.
    pub fn observation(&self, series: &Series, seat: Seat) -> Observation {
        Observation {
            view: series.view(seat),
            history: self.events.iter().map(|e| e.seen_by(seat)).collect(),
        }
    }
}

/// Asks the agents for the next move: first every seat that may play a
/// molodka out of turn, in priority order (clockwise from the trick's
/// leader), then the seat whose turn it is. `None` once nobody may act.
/// `on_decision` hears about every question asked.
pub fn next_move(
    series: &Series,
    log: &DealLog,
    agents: &mut [Box<dyn KozelAgent>; 4],
    mut on_decision: impl FnMut(Decision),
) -> Option<(Seat, Action)> {
    let deal = series.deal();
    let to_act = series.to_act()?;
    for seat in deal.leader().clockwise() {
        if seat != to_act && deal.check_molodka(seat).is_ok() {
            let started = Instant::now();
            let yes = agents[seat.index()].wants_molodka(&log.observation(series, seat));
            on_decision(Decision {
                seat,
                options: 2,
                took: started.elapsed(),
            });
            if yes {
                return Some((seat, Action::Molodka));
            }
        }
    }
    let legal = series.legal_actions(to_act);
    let started = Instant::now();
    let action = agents[to_act.index()].choose(&log.observation(series, to_act), &legal);
    on_decision(Decision {
        seat: to_act,
        options: legal.len(),
        took: started.elapsed(),
    });
    Some((to_act, action))
}

/// Picks uniformly among the legal actions, molodkas and multi-card plays
/// included; out of turn it plays a molodka half the time it is asked.
#[derive(Clone, Debug)]
pub struct RandomAgent {
    rng: Xoshiro256PlusPlus,
}

impl RandomAgent {
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }
}

impl KozelAgent for RandomAgent {
    fn choose(&mut self, _seen: &Observation, legal: &[Action]) -> Action {
        legal[self.rng.random_range(0..legal.len())]
    }

    fn wants_molodka(&mut self, _seen: &Observation) -> bool {
        self.rng.random_bool(0.5)
    }
}

/// The names `--players` accepts.
pub const AGENT_NAMES: &[&str] = &["random", "heuristic", "search"];

/// Builds the agent called `name` with the default settings (a searching
/// player thinks for [`super::Budget::DEFAULT_TIME`]).
pub fn agent(name: &str, seed: u64) -> Result<Box<dyn KozelAgent>, UnknownAgent> {
    agent_with(name, seed, &AgentConfig::default())
}

/// Builds the agent called `name`, seeded for reproducible play.
pub fn agent_with(
    name: &str,
    seed: u64,
    config: &AgentConfig,
) -> Result<Box<dyn KozelAgent>, UnknownAgent> {
    match name {
        "random" => Ok(Box::new(RandomAgent::new(seed))),
        "heuristic" => Ok(Box::new(HeuristicAgent::new())),
        "search" => Ok(Box::new(SearchAgent::new(config.budget, seed))),
        _ => Err(UnknownAgent {
            name: name.to_string(),
            known: AGENT_NAMES.join(", "),
        }),
    }
}

#[cfg(test)]
mod tests;
