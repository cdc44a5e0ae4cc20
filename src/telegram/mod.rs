//! The Telegram front-end's pure parts: callback data, deep links,
//! rendering, group-output pacing, the command menu and what failed Bot
//! API calls mean. No network here; the teloxide shell that turns updates
//! into table-service commands and effects into Bot API calls builds on
//! these.

pub mod bot;
pub mod callback;
pub mod commands;
pub mod deeplink;
pub mod failure;
pub mod handlers;
pub mod outbox;
pub mod pacing;
pub mod render;
