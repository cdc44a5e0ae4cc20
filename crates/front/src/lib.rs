//! The platform-neutral front-end: everything a chat front-end decides,
//! as data. It reads only views from the table service (never a table with
//! every hand, never the store) and is the one place above the engines
//! that knows each game; the platform shells (`crate::telegram`, and the
//! next one) only carry its inputs in and its screens out.
//!
//! - [`action`]: the button codec — a [`action::Press`] in at most 64
//!   ASCII bytes, strict and canonical.
//! - [`rich`], [`screen`]: screens as data — rich text and rows of buttons.
//! - [`present`]: screens from game views, one module per game.
//! - [`games`]: [`games::GameFront`], the one trait a game implements to
//!   plug in (its table, hand and results screens, its presses).
//! - [`outputs`]: the service's [`kozyr_table::Output`]s as screens.
//! - [`core`]: [`core::Front`] — commands and presses → service commands,
//!   card selections, refusal texts; what to show back, and to whom.
//! - [`live`]: [`live::LiveViews`] — who watches a table through a live
//!   view (the Mini App) and the news that a table changed; a chat hand
//!   is held while its person watches live.
//! - [`place`]: [`HandPlace`] — where a person's cards are shown, which
//!   picks the words about hands (a private chat, or a "My hand" button).
//!
//! See `docs/PLATFORMS.md` for what a platform shell implements.

pub mod action;
pub mod core;
pub mod games;
pub mod live;
pub mod outputs;
pub mod place;
pub mod present;
pub mod press_limits;
pub mod rich;
pub mod screen;
pub mod select;

#[cfg(test)]
mod snapshots;

pub use core::{Front, Reply};
pub use place::HandPlace;
pub use screen::{Button, ButtonTarget, Keyboard, Screen};
