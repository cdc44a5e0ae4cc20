//! Players that are programs. An agent sees only what its seat may see:
//! it is handed a view and the events as its seat saw them, never the game
//! state, so it cannot peek. `docs/AI.md` describes how they play.

mod agent;
pub mod arena;
pub mod hearts;
pub mod kozel;
mod rules;
pub mod search;
pub mod seeds;
mod stats;
mod table_agent;

use std::time::Duration;

use kozyr_cards::Seat;

#[cfg(test)]
pub(crate) use agent::every_agent;
pub use agent::{Agent, AgentKind, RandomAgent, UnknownAgent, pick_uniform};
pub use rules::{DealLog, Rules, Seen, next_move};
pub use stats::{Estimate, percentile};
pub use table_agent::{GameDealLog, Observation, TableAgent};

/// How much thinking a searching agent may do per decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Sample and play out deals until this much time has passed. Play
    /// then depends on the machine's speed, so it is not reproducible.
    Time(Duration),
    /// Sample exactly this many deals, each played out once per candidate
    /// action: the same seed gives the same decisions on any machine.
    Playouts(u32),
}

impl Budget {
    /// The thinking time a player at a chat table gets.
    pub const DEFAULT_TIME: Duration = Duration::from_millis(300);
    /// The fixed budget of reproducible runs (simulations, tests).
    pub const DEFAULT_PLAYOUTS: u32 = 100;
}

/// Settings shared by every agent of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentConfig {
    pub budget: Budget,
}

impl Default for AgentConfig {
    fn default() -> AgentConfig {
        AgentConfig {
            budget: Budget::Time(Budget::DEFAULT_TIME),
        }
    }
}

impl AgentConfig {
    /// Reproducible play: a fixed number of playouts per decision.
    pub fn deterministic(playouts: u32) -> AgentConfig {
        AgentConfig {
            budget: Budget::Playouts(playouts),
        }
    }
}

/// One decision an agent made: how long it took, and among how many
/// options (a molodka offer out of turn has two: play it or not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub seat: Seat,
    pub options: usize,
    pub took: Duration,
}
