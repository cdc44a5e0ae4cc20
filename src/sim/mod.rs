//! `kozyr simulate`: plays whole series between built-in players and writes
//! one JSON deal record per line. The record format is a contract other
//! tools read; see `docs/RECORDS.md`.

pub mod hearts;
pub mod kozel;

use std::io::Write;

use crate::ai::AgentKind;
use crate::game::{GameKind, GameOptions};

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("player at seat {seat} chose an illegal action: {reason}")]
    IllegalChoice { seat: u8, reason: String },
    #[error("cannot write the records: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot encode a record: {0}")]
    Json(#[from] serde_json::Error),
}

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub game: GameKind,
    pub series: u32,
    pub seed: u64,
    pub players: [AgentKind; 4],
    /// The game's options (Hearts: moon, end score).
    pub options: GameOptions,
    /// The table id written into the records.
    pub table: String,
}

/// What a simulation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub series: u32,
    pub deals: u64,
}

/// Plays `opts.series` series and writes their deal records to `out`.
pub fn run(opts: &SimOptions, out: &mut dyn Write) -> Result<Summary, SimError> {
    match opts.game {
        GameKind::Kozel => kozel::run(opts, out),
        GameKind::Hearts => hearts::run(opts, out),
    }
}

/// A seed for one series or one player, derived from the run's seed so
/// that the same arguments always give the same file.
pub(crate) fn derive_seed(seed: u64, a: u64, b: u64) -> u64 {
    // splitmix64 over the inputs: cheap, well mixed, stable forever.
    let mut z = seed
        .wrapping_add(a.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(b.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
