//! kozyr: trick-taking card games for chat groups.
//!
//! See `docs/ARCHITECTURE.md` for the codemap and the invariants.
//!
//! The `dev-tools` feature (off by default, on for tests and benches) adds
//! [`fakebot`], a fake Telegram Bot API server, [`fakediscord`], a fake
//! Discord, and [`loadtest`].

pub mod ai;
pub mod cards;
pub mod config;
pub mod delivery;
pub mod discord;
#[cfg(feature = "dev-tools")]
pub mod fakebot;
#[cfg(feature = "dev-tools")]
pub mod fakediscord;
pub mod front;
pub mod game;
pub mod health;
pub mod hearts;
pub mod i18n;
pub mod kozel;
#[cfg(feature = "dev-tools")]
pub mod loadtest;
pub mod metrics;
pub mod outlet;
pub mod replica;
pub mod run;
pub mod serve;
pub mod sim;
pub mod startup;
pub mod store;
pub mod table;
pub mod telegram;
pub mod webapp;
