//! Players that are programs. An agent sees only what its seat may see:
//! it is handed a view, never the game state, so it cannot peek.

pub mod kozel;

/// Why an agent name is not known.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown player `{name}` (known players: {known})")]
pub struct UnknownAgent {
    pub name: String,
    pub known: String,
}
