//! The Discord shell: slash commands and component presses from the
//! gateway into [`kozyr_front::Front`], screens out as messages, hands as
//! ephemeral replies edited through the player's newest interaction token.
//! Names no game and never touches the store (`docs/PLATFORMS.md`).

pub mod bot;
pub mod calls;
pub mod commands;
pub mod endpoint;
pub mod gate;
pub mod handlers;
pub mod hands;
pub mod ids;
pub mod intake;
pub mod markup;
pub mod outbox;
pub mod shared;
