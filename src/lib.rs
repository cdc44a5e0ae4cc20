//! kozyr: trick-taking card games for chat groups.
//!
//! See `docs/ARCHITECTURE.md` for the codemap and the invariants.

pub mod cards;
pub mod game;
pub mod hearts;
pub mod kozel;

/// Simulations that write deal records. Declared inline until `src/sim/mod.rs`
/// exists; the files live in `src/sim/`.
pub mod sim {
    pub mod hearts;
}
