//! The Telegram shell: Telegram updates → the front-end's inputs
//! ([`handlers`]), screens → Bot API calls ([`markup`], [`outbox`]), and
//! what only Telegram has: its limits for [`kozyr_delivery::pacing`], deep
//! links ([`deeplink`]), command menus ([`commands`]), what failed calls
//! mean ([`failure`]), long polling that confirms only handled updates
//! ([`listener`]), webhooks ([`webhook`]), its ids ([`ids`]). It names
//! no game and never touches the store: see [`kozyr_front`].

pub mod bot;
pub mod commands;
pub mod deeplink;
pub mod failure;
pub mod handlers;
pub mod ids;
pub mod listener;
pub mod markup;
pub mod outbox;
pub mod shared;
pub mod webhook;
