//! What every agent is, whichever the game: the [`Agent`] trait, the names
//! players are known by ([`AgentKind`]) and the one [`RandomAgent`].

use std::fmt;
use std::str::FromStr;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};

use super::{AgentConfig, Rules, Seen};

/// A player of the game `G`. It decides from a [`Seen`] — its seat's view
/// and the deal's events as that seat saw them — so it cannot peek.
pub trait Agent<G: Rules>: Send {
    /// Picks one of `legal` (never empty) for the seat whose turn it is.
    fn choose(&mut self, seen: &Seen<G>, legal: &[G::Action]) -> G::Action;

    /// Out of turn, `seen`'s seat may play `action` now (Kozel's molodka):
    /// play it? Games without such actions never ask.
    fn wants_out_of_turn(&mut self, seen: &Seen<G>, action: G::Action) -> bool {
        let _ = (seen, action);
        false
    }
}

/// The built-in players, by the names `--players` and `KOZYR_AI_PLAYER`
/// take (`docs/AI.md`): the one list of names, for every game.
///
/// ```
/// use kozyr_ai::AgentKind;
/// let kind: AgentKind = "search".parse().unwrap();
/// assert_eq!(kind, AgentKind::Search);
/// assert_eq!(kind.to_string(), "search");
/// let err = "genius".parse::<AgentKind>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown player `genius` (known players: random, heuristic, search)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
// The command line names the players (`kozyr arena --players …`).
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum AgentKind {
    /// Uniform among the legal actions.
    Random,
    /// Rules of thumb.
    Heuristic,
    /// Determinized Monte Carlo search with heuristic playouts.
    Search,
}

impl AgentKind {
    /// Every kind, in the order the names are listed.
    pub const ALL: [AgentKind; 3] = [AgentKind::Random, AgentKind::Heuristic, AgentKind::Search];

    /// The player's name, as it is parsed.
    pub const fn as_str(self) -> &'static str {
        match self {
            AgentKind::Random => "random",
            AgentKind::Heuristic => "heuristic",
            AgentKind::Search => "search",
        }
    }

    /// The names of every kind, comma-separated, for messages.
    pub fn names() -> String {
        AgentKind::ALL.map(AgentKind::as_str).join(", ")
    }

    /// This kind of player for the game `G`, seeded for reproducible play
    /// (a searching player thinks for `config.budget`).
    pub fn agent<G: Rules>(self, seed: u64, config: &AgentConfig) -> Box<dyn Agent<G>> {
        match self {
            AgentKind::Random => Box::new(RandomAgent::new(seed)),
            AgentKind::Heuristic => G::heuristic_agent(),
            AgentKind::Search => G::search_agent(config.budget, seed),
        }
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for AgentKind {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl FromStr for AgentKind {
    type Err = UnknownAgent;

    fn from_str(name: &str) -> Result<AgentKind, UnknownAgent> {
        AgentKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| UnknownAgent {
                name: name.to_string(),
                known: AgentKind::names(),
            })
    }
}

/// Why an agent name is not known.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown player `{name}` (known players: {known})")]
pub struct UnknownAgent {
    pub name: String,
    pub known: String,
}

/// Picks uniformly among the legal actions of any game; out of turn
/// (Kozel's molodka) it plays half the time it is asked.
///
/// ```
/// use kozyr_ai::RandomAgent;
/// let mut agent = RandomAgent::new(7);
/// let pick = agent.pick(&[1, 2, 3]).unwrap();
/// assert!([1, 2, 3].contains(&pick));
/// assert_eq!(agent.pick::<u8>(&[]), None);
/// ```
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

    /// One of `options`, uniformly; `None` when there are none.
    pub fn pick<A: Copy>(&mut self, options: &[A]) -> Option<A> {
        pick_uniform(&mut self.rng, options)
    }
}

/// One of `options`, uniformly, from `rng`; `None` when there are none.
/// [`RandomAgent`] and the table service's fallback player both pick so.
pub fn pick_uniform<A: Copy>(rng: &mut impl Rng, options: &[A]) -> Option<A> {
    match options.len() {
        0 => None,
        n => options.get(rng.random_range(0..n)).copied(),
    }
}

impl<G: Rules> Agent<G> for RandomAgent {
    fn choose(&mut self, _seen: &Seen<G>, legal: &[G::Action]) -> G::Action {
        match self.pick(legal) {
            Some(a) => a,
            // Never asked with nothing to choose from; the game's own
            // refusal of an impossible action then says what went wrong.
            None => G::EMPTY_ACTION,
        }
    }

    fn wants_out_of_turn(&mut self, _seen: &Seen<G>, _action: G::Action) -> bool {
        self.rng.random_bool(0.5)
    }
}

/// One agent of every kind for the game `G`, named, searching with
/// `playouts` sampled deals: what the agent tests of each game ask.
#[cfg(test)]
pub(crate) fn every_agent<G: Rules>(
    seed: u64,
    playouts: u32,
) -> Vec<(&'static str, Box<dyn Agent<G>>)> {
    let config = AgentConfig::deterministic(playouts);
    AgentKind::ALL
        .iter()
        .map(|&kind| (kind.as_str(), kind.agent::<G>(seed, &config)))
        .collect()
}
