//! Hearts agents.
//!
//! As in Kozel, an agent decides from an [`Observation`]: its seat's
//! [`View`] and the game's events as that seat saw them ([`SeenEvent`]:
//! other seats' passes stay hidden), so it cannot peek.

mod heuristic;
mod sample;
mod search;

use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{AgentConfig, Decision, UnknownAgent};
use crate::cards::Seat;
use crate::hearts::{Action, Event, Match, SeenEvent, View};

pub use heuristic::HeuristicAgent;
pub use search::SearchAgent;

/// Everything one seat may know when it decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub view: View,
    /// The current deal's events as this seat saw them, oldest first.
    pub history: Vec<SeenEvent>,
}

impl Observation {
    pub fn seat(&self) -> Seat {
        self.view.seat
    }
}

/// A Hearts player.
pub trait HeartsAgent: Send {
    /// Picks one of `legal` (never empty): three cards to pass, or a card to play.
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action;
}

/// The events of the deal in play, as the engine emitted them; hands out
/// each seat's [`Observation`].
///
/// ```
/// use kozyr::ai::hearts::DealLog;
/// use kozyr::hearts::{HeartsOptions, Match, SeenEvent};
/// let mut game = Match::new(HeartsOptions::default(), 1);
/// let mut log = DealLog::default();
/// let seat = game.awaiting().next().unwrap();
/// let pass = game.legal_actions(seat)[0];
/// log.record(&game.apply(seat, pass).unwrap());
/// let seen = log.observation(&game, seat.next());
/// assert!(matches!(seen.history[0], SeenEvent::Passed { cards: None, .. }));
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
    pub fn observation(&self, game: &Match, seat: Seat) -> Observation {
        Observation {
            view: game.view(seat),
            history: self.events.iter().map(|e| e.seen_by(seat)).collect(),
        }
    }
}

/// Asks the agent of the first seat the game waits for (while passing,
/// seats pass in seat order) for its action. `None` once the game is over.
pub fn next_move(
    game: &Match,
    log: &DealLog,
    agents: &mut [Box<dyn HeartsAgent>; 4],
    mut on_decision: impl FnMut(Decision),
) -> Option<(Seat, Action)> {
    let seat = game.awaiting().next()?;
    let legal = game.legal_actions(seat);
    let started = Instant::now();
    let action = agents[seat.index()].choose(&log.observation(game, seat), &legal);
    on_decision(Decision {
        seat,
        options: legal.len(),
        took: started.elapsed(),
    });
    Some((seat, action))
}

/// Picks uniformly among the legal actions.
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

impl HeartsAgent for RandomAgent {
    fn choose(&mut self, _seen: &Observation, legal: &[Action]) -> Action {
        legal[self.rng.random_range(0..legal.len())]
    }
}

/// The names `--players` accepts.
pub const AGENT_NAMES: &[&str] = &["random", "heuristic", "search"];

/// Builds the agent called `name` with the default settings (a searching
/// player thinks for [`super::Budget::DEFAULT_TIME`]).
pub fn agent(name: &str, seed: u64) -> Result<Box<dyn HeartsAgent>, UnknownAgent> {
    agent_with(name, seed, &AgentConfig::default())
}

/// Builds the agent called `name`, seeded for reproducible play.
pub fn agent_with(
    name: &str,
    seed: u64,
    config: &AgentConfig,
) -> Result<Box<dyn HeartsAgent>, UnknownAgent> {
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
