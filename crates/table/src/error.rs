use serde::{Deserialize, Serialize};

use kozyr_cards::Seat;
use kozyr_game::GameError;

/// Why a command was refused. Nothing changed. Front-ends translate these
/// into the user's language, so each is data, not prose.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum TableError {
    #[error("this chat has no open table")]
    NoOpenTable,
    #[error("this chat already has an open table")]
    TableAlreadyOpen,
    #[error("that table is closed")]
    TableClosed,
    #[error("only the table's creator or a chat admin may do that")]
    NotAllowed,
    #[error("you are not seated at this table")]
    NotSeated,
    #[error("you are already seated at this table")]
    AlreadySeated,
    #[error("the table is full")]
    TableFull,
    #[error("seat {seat} is taken")]
    SeatTaken { seat: Seat },
    #[error("seat {seat} is not an AI player")]
    NotAnAi { seat: Seat },
    #[error("those are the same seat")]
    SameSeat,
    #[error("every seat must be filled first")]
    SeatsNotFilled,
    #[error("a series is being played")]
    GameInProgress,
    #[error("no series is being played")]
    NotPlaying,
    #[error("the table has not played a series yet")]
    NotFinished,
    #[error("that seat is not yours")]
    NotYourSeat,
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("an AI player has your seat; take it back first")]
    SeatAway,
    #[error("your seat is not played by an AI player")]
    NotAway,
    #[error("the table has changed since (version {expected}, now {current})")]
    StaleVersion { expected: u64, current: u64 },
    #[error("illegal play: {0}")]
    Illegal(GameError),
    #[error("no turn timer is running")]
    NoTimer,
    #[error("the turn timer has not run out yet")]
    TimerNotDue,
    #[error("that user is not seated at this table")]
    UnknownPlayer,
    #[error("the chat is already there")]
    SameChat,
    #[error("internal error: {0}")]
    Internal(String),
}

impl TableError {
    /// A stable, low-cardinality label for each refusal (metrics and logs).
    pub fn reason(&self) -> &'static str {
        match self {
            TableError::NoOpenTable => "no_open_table",
            TableError::TableAlreadyOpen => "table_already_open",
            TableError::TableClosed => "table_closed",
            TableError::NotAllowed => "not_allowed",
            TableError::NotSeated => "not_seated",
            TableError::AlreadySeated => "already_seated",
            TableError::TableFull => "table_full",
            TableError::SeatTaken { .. } => "seat_taken",
            TableError::NotAnAi { .. } => "not_an_ai",
            TableError::SameSeat => "same_seat",
            TableError::SeatsNotFilled => "seats_not_filled",
            TableError::GameInProgress => "game_in_progress",
            TableError::NotPlaying => "not_playing",
            TableError::NotFinished => "not_finished",
            TableError::NotYourSeat => "not_your_seat",
            TableError::NotYourTurn => "not_your_turn",
            TableError::SeatAway => "seat_away",
            TableError::NotAway => "not_away",
            TableError::StaleVersion { .. } => "stale_version",
            TableError::Illegal(_) => "illegal",
            TableError::NoTimer => "no_timer",
            TableError::TimerNotDue => "timer_not_due",
            TableError::UnknownPlayer => "unknown_player",
            TableError::SameChat => "same_chat",
            TableError::Internal(_) => "internal",
        }
    }
}

impl From<GameError> for TableError {
    fn from(e: GameError) -> TableError {
        TableError::Illegal(e)
    }
}

/// Why an event log does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("the log does not start with the table's creation")]
    NoCreation,
    #[error("event {version}: {reason}")]
    Invalid { version: u64, reason: String },
    #[error("event {version}: the game produced other events than the log records")]
    Diverged { version: u64 },
}
