use serde::{Deserialize, Serialize};

use super::model::{ChatKey, Player, Settings, TableId, Timestamp, UserId};
use kozyr_cards::Seat;
use kozyr_game::{GameAction, GameEvent, GameKind};

/// Who made a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mover {
    /// The seat's person.
    Person,
    /// The AI player (an AI seat, or an away person's).
    Ai,
    /// The turn timer ran out and the safe move was played.
    Timeout,
}

/// One entry of a table's append-only log. Folding a table's events in
/// order from its [`TableEvent::Created`] rebuilds it exactly; each event
/// raises the table's version by one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TableEvent {
    Created {
        id: TableId,
        chat: ChatKey,
        title: String,
        kind: GameKind,
        creator: UserId,
        settings: Settings,
        at: Timestamp,
    },
    Seated {
        seat: Seat,
        player: Player,
    },
    /// A person left (or was kicked). In play an AI player takes the seat
    /// over; otherwise it is left empty.
    Left {
        seat: Seat,
        kicked: bool,
    },
    /// The occupants of two seats changed places.
    Swapped {
        a: Seat,
        b: Seat,
    },
    AiSeated {
        seat: Seat,
    },
    AiRemoved {
        seat: Seat,
    },
    SettingsChanged {
        settings: Settings,
    },
    /// A series began; the game is rebuilt from `seed`.
    SeriesStarted {
        series_no: u32,
        seed: u64,
    },
    /// A move, with everything the game said happened (checked on replay).
    Acted {
        seat: Seat,
        action: GameAction,
        by: Mover,
        events: Vec<GameEvent>,
    },
    /// The turn timer now runs out at `deadline` (`None`: no timer runs).
    ClockSet {
        deadline: Option<Timestamp>,
    },
    HandedToAi {
        seat: Seat,
        /// The person could not be reached (they blocked the bot), rather
        /// than timing out; older logs lack the field.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unreachable: bool,
    },
    TakenBack {
        seat: Seat,
    },
    Stopped {
        by: Option<UserId>,
    },
    /// A newer table opened in the chat.
    Superseded {
        by: TableId,
    },
    ChatMoved {
        to: ChatKey,
    },
}

impl TableEvent {
    pub fn name(&self) -> &'static str {
        match self {
            TableEvent::Created { .. } => "created",
            TableEvent::Seated { .. } => "seated",
            TableEvent::Left { .. } => "left",
            TableEvent::Swapped { .. } => "swapped",
            TableEvent::AiSeated { .. } => "ai_seated",
            TableEvent::AiRemoved { .. } => "ai_removed",
            TableEvent::SettingsChanged { .. } => "settings_changed",
            TableEvent::SeriesStarted { .. } => "series_started",
            TableEvent::Acted { .. } => "acted",
            TableEvent::ClockSet { .. } => "clock_set",
            TableEvent::HandedToAi { .. } => "handed_to_ai",
            TableEvent::TakenBack { .. } => "taken_back",
            TableEvent::Stopped { .. } => "stopped",
            TableEvent::Superseded { .. } => "superseded",
            TableEvent::ChatMoved { .. } => "chat_moved",
        }
    }
}
