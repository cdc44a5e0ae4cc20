//! Seeds derived from a run's seed, shared by the arena here and the
//! record simulator (`kozyr-sim`, which builds on `ai`), so that the same
//! arguments always give the same games.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A seed for one series or one player, derived from the run's seed so
/// that the same arguments always give the same file.
pub fn derive_seed(seed: u64, a: u64, b: u64) -> u64 {
    // splitmix64 over the inputs: cheap, well mixed, stable forever.
    let mut z = seed
        .wrapping_add(a.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(b.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of Hearts game `series` in a run seeded with `run_seed`:
/// distinct games, reproducible from the run seed alone.
pub fn game_seed(run_seed: u64, series: u32) -> u64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(run_seed ^ (u64::from(series) << 32));
    rng.random()
}
