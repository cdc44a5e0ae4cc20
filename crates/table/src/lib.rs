//! The table service's core: chats, tables, seats, series and turn timers.
//!
//! Sans-IO. A front-end turns a platform update into a [`Command`] from an
//! [`Actor`]; [`decide`] checks it against the chat's open [`Table`] and
//! returns a [`Transition`] — the [`TableEvent`]s that happened and the
//! [`Effect`]s to carry out — or a [`TableError`], in which case nothing
//! changed. Time and randomness come in through [`Context`]; the core never
//! reads the clock and never sleeps.
//!
//! [`runtime`] puts the core behind an async service with persistence
//! through [`storage::TableStore`] (a trait this module owns, which the
//! store implements), turn timers and AI players.
//!
//! ```
//! use kozyr_cards::Seat;
//! use kozyr_game::GameKind;
//! use kozyr_table::*;
//!
//! let chat = ChatKey::new(Platform::Telegram, "-100").unwrap();
//! let ann = Player::new(UserId::new("1").unwrap(), "Ann", Lang::En);
//! let ctx = Context { now: Timestamp::from_millis(0), seed: 7, new_table_id: TableId(1) };
//! let create = Command::Create {
//!     kind: GameKind::Kozel,
//!     settings: Settings::default(),
//!     title: "Friday cards".into(),
//!     sit: true,
//! };
//! let t = decide(None, &chat, &Actor::person(ann.clone()), &create, &ctx).unwrap();
//! let table = t.open_table().unwrap().clone();
//! assert_eq!(table.seats()[Seat::ALL[0]].person(), Some(&ann));
//! // Starting needs four seats filled; nothing changes on refusal.
//! let start = decide(Some(&table), &chat, &Actor::person(ann), &Command::Start, &ctx);
//! assert_eq!(start.unwrap_err(), TableError::SeatsNotFilled);
//! ```

mod command;
mod decide;
mod effect;
mod error;
mod event;
mod journal;
mod model;
pub mod records;
pub mod runtime;
mod state;
mod stats;
pub mod storage;
mod tricks;

pub use command::{Actor, Command, Context};
pub use decide::{Change, Transition, decide};
pub use effect::{AiMove, Announcement, Awaited, Effect, HandView, Output, TableView, TimerSpec};
pub use error::{ReplayError, TableError};
pub use event::{Mover, TableEvent};
pub use model::{
    ChatKey, DealEnd, IdError, Lang, Phase, Platform, Player, SeatState, Settings, TableId,
    Timestamp, TrickCards, TrickPlay, TrickTaken, TurnTimer, UserId,
};
pub use state::{SNAPSHOT_FORMAT, TIMEOUTS_BEFORE_AI, Table};
pub use stats::{Counters, StatsDelta, stats_delta};
pub use tricks::Tricks;

#[cfg(test)]
mod tests;
