//! kozyr: trick-taking card games for chat groups.
//!
//! See `docs/ARCHITECTURE.md` for the codemap and the invariants.
//!
//! The load generator is a tool beside the product (`crates/loadtest`,
//! `kozyr-loadtest`): it depends on this library, never the other way.

pub use kozyr_ai as ai;
pub use kozyr_cards as cards;
pub use kozyr_config as config;
pub use kozyr_delivery as delivery;
pub use kozyr_discord as discord;
pub use kozyr_front as front;
pub use kozyr_game as game;
pub mod health;
pub use kozyr_hearts as hearts;
pub use kozyr_i18n as i18n;
pub use kozyr_kozel as kozel;
pub mod logs;
pub mod metrics;
pub use kozyr_outlet as outlet;
pub mod replica;
pub use kozyr_config::run;
pub mod serve;
pub use kozyr_config::startup;
pub use kozyr_sim as sim;
pub use kozyr_store as store;
pub use kozyr_table as table;
pub use kozyr_telegram as telegram;
pub use kozyr_webapp as webapp;
