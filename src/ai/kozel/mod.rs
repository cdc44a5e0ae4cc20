//! Kozel agents.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::UnknownAgent;
use crate::kozel::{Action, SeriesView};

/// A Kozel player.
pub trait KozelAgent: Send {
    /// Picks one of `legal` (never empty) for the seat whose turn it is.
    fn choose(&mut self, view: &SeriesView, legal: &[Action]) -> Action;

    /// Out of turn, holding a molodka that may be played now: play it?
    fn wants_molodka(&mut self, view: &SeriesView) -> bool;
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
    fn choose(&mut self, _view: &SeriesView, legal: &[Action]) -> Action {
        legal[self.rng.random_range(0..legal.len())]
    }

    fn wants_molodka(&mut self, _view: &SeriesView) -> bool {
        self.rng.random_bool(0.5)
    }
}

/// The names `--players` accepts.
pub const AGENT_NAMES: &[&str] = &["random"];

/// Builds the agent called `name`, seeded for reproducible play.
pub fn agent(name: &str, seed: u64) -> Result<Box<dyn KozelAgent>, UnknownAgent> {
    match name {
        "random" => Ok(Box::new(RandomAgent::new(seed))),
        _ => Err(UnknownAgent {
            name: name.to_string(),
            known: AGENT_NAMES.join(", "),
        }),
    }
}
