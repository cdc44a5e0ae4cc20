//! The Telegram front-end's pure parts: callback data, deep links,
//! rendering and group-output pacing. No network here; the teloxide shell
//! that turns updates into table-service commands and effects into Bot API
//! calls builds on these.

pub mod callback;
pub mod deeplink;
pub mod pacing;
pub mod render;
