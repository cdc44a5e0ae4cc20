use serde::{Deserialize, Serialize};

use super::model::{ChatKey, Player, Settings, TableId, Timestamp, UserId};
use kozyr_cards::Seat;
use kozyr_game::{GameAction, GameKind};

/// Who sends a command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Actor {
    /// A person; `admin` is what the front-end knows of their rights in the
    /// table's chat (the service trusts it).
    Person { player: Player, admin: bool },
    /// The built-in AI player, moving for an AI seat or an away person.
    Ai,
    /// The service itself: turn timers, platform housekeeping.
    System,
}

impl Actor {
    /// A person without admin rights.
    pub fn person(player: Player) -> Actor {
        Actor::Person {
            player,
            admin: false,
        }
    }

    pub fn player(&self) -> Option<&Player> {
        match self {
            Actor::Person { player, .. } => Some(player),
            _ => None,
        }
    }

    pub fn user(&self) -> Option<&UserId> {
        self.player().map(|p| &p.id)
    }
}

/// What a front-end (or the service's own timers and AI) asks of a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Open a table in the chat. A finished table the chat still has is
    /// closed by it; a table in the lobby or in play makes it fail.
    Create {
        kind: GameKind,
        settings: Settings,
        /// The chat's name, shown on private hand messages.
        title: String,
        /// Seat the creator at once.
        sit: bool,
    },
    /// Sit down, at `seat` or at the first empty one.
    Join {
        seat: Option<Seat>,
    },
    Leave,
    /// Exchange two seats' occupants. The creator and admins may swap any
    /// two; a seated person may move to an empty or AI seat.
    Swap {
        a: Seat,
        b: Seat,
    },
    AddAi {
        seat: Option<Seat>,
    },
    RemoveAi {
        seat: Seat,
    },
    Start,
    /// Play `action` for `seat`, if the table is still at `version`.
    Act {
        seat: Seat,
        action: GameAction,
        version: u64,
    },
    /// The turn timer ran out (sent by the runtime's timers).
    Timeout,
    /// Close the table, whatever its phase.
    Stop,
    ChangeSettings {
        settings: Settings,
    },
    Rematch,
    Kick {
        user: UserId,
    },
    /// A person whose seat was handed to an AI player takes it back.
    TakeBack,
    /// The platform cannot reach `user` (they blocked the bot): an AI
    /// player plays their seat until they take it back. Only the system
    /// sends it, and only in play.
    HandToAi {
        user: UserId,
    },
    /// The platform gave the chat a new id (a Telegram group became a supergroup).
    MigrateChat {
        to: ChatKey,
    },
    /// The chat's language, for its messages and its tables (the open one
    /// too), kept even while the chat has no table.
    SetLanguage {
        lang: kozyr_i18n::Lang,
    },
}

impl Command {
    pub fn name(&self) -> &'static str {
        match self {
            Command::Create { .. } => "create",
            Command::Join { .. } => "join",
            Command::Leave => "leave",
            Command::Swap { .. } => "swap",
            Command::AddAi { .. } => "add_ai",
            Command::RemoveAi { .. } => "remove_ai",
            Command::Start => "start",
            Command::Act { .. } => "act",
            Command::Timeout => "timeout",
            Command::Stop => "stop",
            Command::ChangeSettings { .. } => "change_settings",
            Command::Rematch => "rematch",
            Command::Kick { .. } => "kick",
            Command::TakeBack => "take_back",
            Command::HandToAi { .. } => "hand_to_ai",
            Command::MigrateChat { .. } => "migrate_chat",
            Command::SetLanguage { .. } => "set_language",
        }
    }
}

/// The inputs a command takes from outside the service's logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    pub now: Timestamp,
    /// Randomness for whatever the command starts (a series' shuffles).
    pub seed: u64,
    /// The id a table created by this command gets; other commands ignore it.
    pub new_table_id: TableId,
}
