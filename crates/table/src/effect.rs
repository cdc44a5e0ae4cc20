use serde::{Deserialize, Serialize};

use super::model::{
    ChatKey, DealEnd, Phase, Player, SeatState, Settings, TableId, Timestamp, TrickTaken, UserId,
};
use kozyr_cards::{PerSeat, Seat};
use kozyr_game::{GameAction, GameEvent, GameKind, GameView, Milestone};

/// What a front-end (or the service's runtime) must do after a command.
/// Render effects carry the state to render, so a front-end that paces its
/// output can keep only the latest one per message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// Re-render the chat's public table message.
    RenderTable(Box<TableView>),
    /// Re-render one person's private hand message for this table.
    RenderHand(Box<HandView>),
    /// The person no longer has a seat at this table: retire their hand message.
    DropHand {
        chat: ChatKey,
        table: TableId,
        user: UserId,
    },
    /// Tell the chat something happened (a new message, not an edit).
    Announce {
        chat: ChatKey,
        table: TableId,
        announcement: Announcement,
    },
    /// (Re)arm the table's turn timer; replaces any armed before.
    ArmTimer(Box<TimerSpec>),
    DisarmTimer {
        table: TableId,
    },
    /// The turn timer is close to running out (sent by the runtime at `remind_at`).
    Remind(Box<TimerSpec>),
    /// An AI player must choose a move for `seat` and submit it as
    /// [`super::Command::Act`] at `version`.
    AiMove(Box<AiMove>),
}

impl Effect {
    /// The table the effect is about.
    pub fn table(&self) -> TableId {
        match self {
            Effect::RenderTable(v) => v.id,
            Effect::RenderHand(h) => h.table,
            Effect::DropHand { table, .. }
            | Effect::Announce { table, .. }
            | Effect::DisarmTimer { table } => *table,
            Effect::ArmTimer(t) | Effect::Remind(t) => t.table,
            Effect::AiMove(m) => m.table,
        }
    }
}

/// What a front-end must show after a command: the part of [`Effect`]
/// that leaves the service. Timers and AI moves stay inside it, so a
/// front-end cannot arm, skip or forge them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "output", rename_all = "snake_case")]
pub enum Output {
    /// Re-render the chat's public table message.
    RenderTable(Box<TableView>),
    /// Re-render one person's private hand message for this table.
    RenderHand(Box<HandView>),
    /// The person no longer has a seat at this table: retire their hand message.
    DropHand {
        chat: ChatKey,
        table: TableId,
        user: UserId,
    },
    /// Tell the chat something happened (a new message, not an edit).
    Announce {
        chat: ChatKey,
        table: TableId,
        announcement: Announcement,
    },
    /// The turn timer is close to running out.
    Remind(Box<TimerSpec>),
}

impl Output {
    /// The table the output is about.
    pub fn table(&self) -> TableId {
        match self {
            Output::RenderTable(v) => v.id,
            Output::RenderHand(h) => h.table,
            Output::DropHand { table, .. } | Output::Announce { table, .. } => *table,
            Output::Remind(spec) => spec.table,
        }
    }
}

impl Effect {
    /// The front-end's part of the effect; `None` for the service's own work.
    pub fn into_output(self) -> Option<Output> {
        match self {
            Effect::RenderTable(v) => Some(Output::RenderTable(v)),
            Effect::RenderHand(h) => Some(Output::RenderHand(h)),
            Effect::DropHand { chat, table, user } => Some(Output::DropHand { chat, table, user }),
            Effect::Announce {
                chat,
                table,
                announcement,
            } => Some(Output::Announce {
                chat,
                table,
                announcement,
            }),
            Effect::Remind(spec) => Some(Output::Remind(spec)),
            Effect::ArmTimer(_) | Effect::DisarmTimer { .. } | Effect::AiMove(_) => None,
        }
    }
}

/// Everything the public table message shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableView {
    pub id: TableId,
    pub chat: ChatKey,
    pub title: String,
    pub kind: GameKind,
    pub phase: Phase,
    pub version: u64,
    pub creator: UserId,
    pub settings: Settings,
    pub seats: PerSeat<SeatState>,
    /// The series being (or last) played; 0 before the first.
    pub series_no: u32,
    /// The seats the game waits for.
    pub awaiting: Vec<Seat>,
    pub deadline: Option<Timestamp>,
    /// The last trick taken in this deal: its cards, winner and points.
    pub last_trick: Option<TrickTaken>,
    /// How the previous deal ended, until this deal's first trick is taken.
    pub last_deal: Option<DealEnd>,
    /// The game as everyone sees it (no hands), once a series started.
    pub game: Option<GameView>,
}

impl TableView {
    /// Where `user` sits, if they do.
    pub fn seat_of(&self, user: &UserId) -> Option<Seat> {
        self.seats
            .iter()
            .find(|(_, s)| s.person().is_some_and(|p| &p.id == user))
            .map(|(seat, _)| seat)
    }

    /// The people whose move the table waits for, in seat order: in play,
    /// and not handed to an AI player.
    pub fn awaited_people(&self) -> impl Iterator<Item = &Player> {
        let playing = self.phase == Phase::Playing;
        (self.awaiting.iter().filter(move |_| playing)).filter_map(|&seat| {
            match &self.seats[seat] {
                SeatState::Person {
                    player,
                    away: false,
                } => Some(player),
                _ => None,
            }
        })
    }
}

/// Everything one person's private hand message shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandView {
    pub table: TableId,
    pub chat: ChatKey,
    /// The chat's name, so a person at tables in two chats can tell them apart.
    pub title: String,
    pub kind: GameKind,
    pub phase: Phase,
    /// Goes into the buttons: a press at another version is stale.
    pub version: u64,
    pub seat: Seat,
    pub player: Player,
    /// An AI player has the seat; the message should offer to take it back.
    pub away: bool,
    pub game: GameView,
    /// What the person may do now (empty while away or not their turn,
    /// except out-of-turn plays such as a Kozel molodka).
    pub legal: Vec<GameAction>,
    pub your_turn: bool,
    pub deadline: Option<Timestamp>,
    /// As in [`TableView`]: the hand shows the trick just taken and the
    /// previous deal's result with the next deal's cards.
    pub last_trick: Option<TrickTaken>,
    pub last_deal: Option<DealEnd>,
}

/// A seat the turn timer runs for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Awaited {
    pub seat: Seat,
    /// The person to remind; `None` when an AI player has the seat.
    pub player: Option<Player>,
}

/// A table's turn timer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimerSpec {
    pub table: TableId,
    pub chat: ChatKey,
    /// Send [`super::Command::Timeout`] at this time.
    pub deadline: Timestamp,
    /// Emit [`Effect::Remind`] at this time, if any.
    pub remind_at: Option<Timestamp>,
    pub awaiting: Vec<Awaited>,
}

/// Work for an AI player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AiMove {
    pub chat: ChatKey,
    pub table: TableId,
    pub seat: Seat,
    pub version: u64,
    /// What the seat may know: never the game state itself.
    pub observation: kozyr_ai::Observation,
    pub legal: Vec<GameAction>,
    /// Not the seat's turn: `legal` are out-of-turn plays (a Kozel
    /// molodka) the agent may make or let pass
    /// ([`super::runtime::SeatAgent::wants_out_of_turn`]).
    #[serde(default)]
    pub out_of_turn: bool,
}

/// Something the chat is told as a new message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Announcement {
    SeriesStarted {
        series_no: u32,
    },
    /// A trick, a deal or the series ended.
    Game {
        milestone: Milestone,
        event: GameEvent,
        /// A deal's end: its last trick, which the table message no longer
        /// shows once the next deal is dealt.
        #[serde(default)]
        last_trick: Option<TrickTaken>,
    },
    /// The turn timer ran out and `action` was played for the seat.
    AutoPlayed {
        seat: Seat,
        action: GameAction,
    },
    /// Three timeouts in a row: an AI player plays the seat until the person returns.
    HandedToAi {
        seat: Seat,
        player: Player,
        /// The bot cannot reach the person (rather than three timeouts).
        unreachable: bool,
    },
    TakenBack {
        seat: Seat,
        player: Player,
    },
    /// A person left or was kicked; in play an AI player took the seat over.
    Left {
        seat: Seat,
        player: Player,
        kicked: bool,
        replaced_by_ai: bool,
    },
    Stopped {
        by: Option<UserId>,
    },
    /// The table followed the chat to its new id.
    ChatMoved {
        from: ChatKey,
    },
}

impl Announcement {
    /// Whether a chat must get it even if the bot is killed before it goes
    /// out: a deal's or the series' result, and a new deal or series (the
    /// live table is then posted anew below it). The store keeps these
    /// until a front-end says they were sent; a trick or a note on a seat
    /// is shown by the next render anyway.
    pub fn is_owed(&self) -> bool {
        matches!(
            self,
            Announcement::SeriesStarted { .. }
                | Announcement::Game {
                    milestone: Milestone::Deal | Milestone::Series,
                    ..
                }
        )
    }
}
