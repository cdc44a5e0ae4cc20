//! kozyr: trick-taking card games for chat groups.
//!
//! See `docs/ARCHITECTURE.md` for the codemap and the invariants.
//!
//! The `dev-tools` feature (off by default, on for tests and benches) adds
//! [`loadtest`], the load generator, which drives the bot through the
//! strict fakes of `kozyr-test-kit` (`crates/test-kit`).

pub use kozyr_ai as ai;
pub use kozyr_cards as cards;
pub mod config;
pub use kozyr_delivery as delivery;
pub mod discord;
pub use kozyr_front as front;
pub use kozyr_game as game;
pub mod health;
pub use kozyr_hearts as hearts;
pub use kozyr_i18n as i18n;
pub use kozyr_kozel as kozel;
#[cfg(feature = "dev-tools")]
pub mod loadtest;
pub mod metrics;
pub use kozyr_outlet as outlet;
pub mod replica;
pub mod run;
pub mod serve;
pub use kozyr_sim as sim;
pub mod startup;
pub use kozyr_store as store;
pub use kozyr_table as table;
pub mod telegram;
pub use kozyr_webapp as webapp;
