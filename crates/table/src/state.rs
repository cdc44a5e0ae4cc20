use serde::{Deserialize, Serialize};

use super::effect::{AiMove, Awaited, Effect, HandView, TableView, TimerSpec};
use super::error::ReplayError;
use super::event::{Mover, TableEvent};
use super::model::{
    ChatKey, DealEnd, Phase, SeatState, Settings, TableId, Timestamp, TrickPlay, TrickTaken, UserId,
};
use super::tricks::Tricks;
use kozyr_cards::{PerSeat, Seat};
use kozyr_game::{Game, GameKind};

/// Turn timeouts in a row after which an AI player takes the seat over.
pub const TIMEOUTS_BEFORE_AI: u8 = 3;

/// What [`Table::apply`] derives from events. Bump it whenever that
/// changes (a new derived field, a new rule): a stored snapshot of another
/// format is then rebuilt from its event log when loaded, since the log,
/// not the snapshot, is the truth.
///
/// 1: the last trick taken (`last_trick`). Snapshots without a format are 0.
/// 2: the deal's events for AI players (`deal_log`).
/// 3: the plays of the trick in progress (`trick`), the last trick with its
/// cards, cleared at a new deal, and the previous deal's end (`last_deal`).
pub const SNAPSHOT_FORMAT: u32 = 3;

/// A table: its seats, settings, the series in play and its turn timer.
///
/// A table only changes by [`Table::apply`]ing [`TableEvent`]s, one version
/// per event, so its event log rebuilds it exactly ([`Table::replay`]).
/// Commands decide which events happen: see [`super::decide`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    #[serde(default)]
    format: u32,
    id: TableId,
    chat: ChatKey,
    title: String,
    kind: GameKind,
    creator: UserId,
    settings: Settings,
    seats: PerSeat<SeatState>,
    phase: Phase,
    series_no: u32,
    game: Option<Game>,
    deadline: Option<Timestamp>,
    /// Turn timeouts in a row per seat; reset when the person plays.
    timeouts: PerSeat<u8>,
    /// The trick in progress, the last trick taken and the previous deal's
    /// end, as everyone saw them (derived: format 3).
    #[serde(default)]
    tricks: Tricks,
    /// The events of the deal in play, for the AI players' observations
    /// (derived: format 2).
    #[serde(default)]
    deal_log: kozyr_ai::GameDealLog,
    version: u64,
    created_at: Timestamp,
}

impl Table {
    /// Rebuilds a table from its log, which must start with its creation.
    pub fn replay<'a>(
        events: impl IntoIterator<Item = &'a TableEvent>,
    ) -> Result<Table, ReplayError> {
        let mut events = events.into_iter();
        let mut table = match events.next() {
            Some(e) => Table::from_creation(e)?,
            None => return Err(ReplayError::NoCreation),
        };
        for e in events {
            table.apply(e)?;
        }
        Ok(table)
    }

    /// The table a [`TableEvent::Created`] makes, at version 1.
    pub fn from_creation(event: &TableEvent) -> Result<Table, ReplayError> {
        match event {
            TableEvent::Created {
                id,
                chat,
                title,
                kind,
                creator,
                settings,
                at,
            } => Ok(Table {
                format: SNAPSHOT_FORMAT,
                id: *id,
                chat: chat.clone(),
                title: title.clone(),
                kind: *kind,
                creator: creator.clone(),
                settings: *settings,
                seats: PerSeat::default(),
                phase: Phase::Lobby,
                series_no: 0,
                game: None,
                deadline: None,
                timeouts: PerSeat::default(),
                tricks: Tricks::default(),
                deal_log: Default::default(),
                version: 1,
                created_at: *at,
            }),
            _ => Err(ReplayError::NoCreation),
        }
    }

    /// Applies one logged event. The service only logs events it checked, so
    /// an error means a damaged or foreign log; the table is then unchanged.
    pub fn apply(&mut self, event: &TableEvent) -> Result<(), ReplayError> {
        let version = self.version + 1;
        let invalid = |reason: &str| ReplayError::Invalid {
            version,
            reason: reason.to_owned(),
        };
        match event {
            TableEvent::Created { .. } => return Err(invalid("a second creation")),
            TableEvent::Seated { seat, player } => {
                if !self.seats[*seat].is_empty() {
                    return Err(invalid("seated on a taken seat"));
                }
                self.seats[*seat] = SeatState::Person {
                    player: player.clone(),
                    away: false,
                };
                self.timeouts[*seat] = 0;
            }
            TableEvent::Left { seat, .. } => {
                if self.seats[*seat].person().is_none() {
                    return Err(invalid("a seat without a person was left"));
                }
                self.seats[*seat] = if self.phase == Phase::Playing {
                    SeatState::Ai
                } else {
                    SeatState::Empty
                };
                self.timeouts[*seat] = 0;
            }
            TableEvent::Swapped { a, b } => {
                self.seats.0.swap(a.index(), b.index());
                self.timeouts.0.swap(a.index(), b.index());
            }
            TableEvent::AiSeated { seat } => {
                if !self.seats[*seat].is_empty() {
                    return Err(invalid("an AI player seated on a taken seat"));
                }
                self.seats[*seat] = SeatState::Ai;
            }
            TableEvent::AiRemoved { seat } => {
                if self.seats[*seat] != SeatState::Ai {
                    return Err(invalid("removed an AI player that is not there"));
                }
                self.seats[*seat] = SeatState::Empty;
            }
            TableEvent::SettingsChanged { settings } => self.settings = *settings,
            TableEvent::SeriesStarted { series_no, seed } => {
                if self.seats.0.iter().any(SeatState::is_empty) {
                    return Err(invalid("a series started with an empty seat"));
                }
                self.game = Some(Game::new(self.kind, self.settings.options, *seed));
                self.series_no = *series_no;
                self.phase = Phase::Playing;
                self.timeouts = PerSeat::default();
                self.tricks = Tricks::default();
                self.deal_log = Default::default();
            }
            TableEvent::Acted {
                seat,
                action,
                by,
                events,
            } => {
                let game = match (&mut self.game, self.phase) {
                    (Some(g), Phase::Playing) => g,
                    _ => return Err(invalid("a move with no series in play")),
                };
                // Play on a copy so a refused or diverging move leaves the table as it was.
                let mut next = game.clone();
                let happened = next
                    .apply(*seat, *action)
                    .map_err(|e| invalid(&e.to_string()))?;
                if &happened != events {
                    return Err(ReplayError::Diverged { version });
                }
                let over = next.is_over();
                *game = next;
                self.deal_log.record(events);
                for e in events {
                    self.tricks.follow(e);
                }
                match by {
                    Mover::Person => self.timeouts[*seat] = 0,
                    Mover::Timeout
                        if matches!(self.seats[*seat], SeatState::Person { away: false, .. }) =>
                    {
                        self.timeouts[*seat] = self.timeouts[*seat].saturating_add(1);
                    }
                    Mover::Timeout | Mover::Ai => {}
                }
                if over {
                    self.phase = Phase::Finished;
                    self.deadline = None;
                }
            }
            TableEvent::ClockSet { deadline } => self.deadline = *deadline,
            TableEvent::HandedToAi { seat, .. } => match &mut self.seats[*seat] {
                SeatState::Person { away, .. } if !*away => {
                    *away = true;
                    self.timeouts[*seat] = 0;
                }
                _ => return Err(invalid("handed a seat to AI that no present person has")),
            },
            TableEvent::TakenBack { seat } => match &mut self.seats[*seat] {
                SeatState::Person { away, .. } if *away => {
                    *away = false;
                    self.timeouts[*seat] = 0;
                }
                _ => return Err(invalid("took back a seat that was not away")),
            },
            TableEvent::Stopped { .. } | TableEvent::Superseded { .. } => {
                self.phase = Phase::Closed;
                self.deadline = None;
            }
            TableEvent::ChatMoved { to } => self.chat = to.clone(),
        }
        self.version = version;
        Ok(())
    }

    /// The [`SNAPSHOT_FORMAT`] this table was folded with (older snapshots
    /// load with the format they were written in).
    pub fn format(&self) -> u32 {
        self.format
    }

    pub fn id(&self) -> TableId {
        self.id
    }

    pub fn chat(&self) -> &ChatKey {
        &self.chat
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn kind(&self) -> GameKind {
        self.kind
    }

    pub fn creator(&self) -> &UserId {
        &self.creator
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn seats(&self) -> &PerSeat<SeatState> {
        &self.seats
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Closed tables are history; every other table is its chat's open table.
    pub fn is_open(&self) -> bool {
        self.phase != Phase::Closed
    }

    pub fn series_no(&self) -> u32 {
        self.series_no
    }

    /// The series in play, or the last one played.
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// When the turn timer runs out, if one runs.
    pub fn deadline(&self) -> Option<Timestamp> {
        self.deadline
    }

    /// The last trick taken in the deal in play.
    pub fn last_trick(&self) -> Option<&TrickTaken> {
        self.tricks.last_trick.as_ref()
    }

    /// The plays on the trick in progress.
    pub fn trick(&self) -> &[TrickPlay] {
        &self.tricks.trick
    }

    /// How the previous deal ended, until the next one's first trick is taken.
    pub fn last_deal(&self) -> Option<&DealEnd> {
        self.tricks.last_deal.as_ref()
    }

    pub fn timeouts_in_row(&self, seat: Seat) -> u8 {
        self.timeouts[seat]
    }

    /// The number of events applied since creation (creation is version 1).
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }

    pub fn seat_of(&self, user: &UserId) -> Option<Seat> {
        Seat::ALL
            .into_iter()
            .find(|&s| self.seats[s].person().is_some_and(|p| &p.id == user))
    }

    pub fn is_full(&self) -> bool {
        self.seats.0.iter().all(|s| !s.is_empty())
    }

    /// The seats the series waits for (none unless one is in play).
    pub fn awaiting(&self) -> Vec<Seat> {
        match (&self.game, self.phase) {
            (Some(g), Phase::Playing) => g.awaiting(),
            _ => Vec::new(),
        }
    }

    pub fn view(&self) -> TableView {
        TableView {
            id: self.id,
            chat: self.chat.clone(),
            title: self.title.clone(),
            kind: self.kind,
            phase: self.phase,
            version: self.version,
            creator: self.creator.clone(),
            settings: self.settings,
            seats: self.seats.clone(),
            series_no: self.series_no,
            awaiting: self.awaiting(),
            deadline: self.deadline,
            last_trick: self.tricks.last_trick.clone(),
            last_deal: self.tricks.last_deal.clone(),
            game: self.game.as_ref().map(Game::public_view),
        }
    }

    /// The private view of a person's seat, once a series has started.
    pub fn hand_view(&self, seat: Seat) -> Option<HandView> {
        let game = self.game.as_ref()?;
        let SeatState::Person { player, away } = &self.seats[seat] else {
            return None;
        };
        let playing = self.phase == Phase::Playing;
        let your_turn = playing && game.awaiting().contains(&seat);
        Some(HandView {
            table: self.id,
            chat: self.chat.clone(),
            title: self.title.clone(),
            kind: self.kind,
            phase: self.phase,
            version: self.version,
            seat,
            player: player.clone(),
            away: *away,
            game: game.view(seat),
            legal: if playing && !*away {
                game.legal_actions(seat)
            } else {
                Vec::new()
            },
            your_turn,
            deadline: self.deadline,
            last_trick: self.tricks.last_trick.clone(),
            last_deal: self.tricks.last_deal.clone(),
        })
    }

    pub(crate) fn timer_spec(&self) -> Option<TimerSpec> {
        let deadline = self.deadline?;
        let remind_at = self
            .settings
            .turn_timer
            .map(|t| deadline.plus_millis(-i64::from(t.remind_before_secs()) * 1000));
        Some(TimerSpec {
            table: self.id,
            chat: self.chat.clone(),
            deadline,
            remind_at,
            awaiting: self
                .awaiting()
                .into_iter()
                .map(|seat| Awaited {
                    seat,
                    player: match &self.seats[seat] {
                        SeatState::Person {
                            player,
                            away: false,
                        } => Some(player.clone()),
                        _ => None,
                    },
                })
                .collect(),
        })
    }

    /// Moves the AI players owe now: one per awaited seat the AI plays,
    /// then a question to each other AI seat that could play out of turn
    /// (a Kozel molodka): play it now or let it pass.
    pub(crate) fn ai_moves(&self) -> Vec<Effect> {
        let Some(game) = self.game.as_ref().filter(|_| self.phase == Phase::Playing) else {
            return Vec::new();
        };
        let awaiting = self.awaiting();
        let ai_move = |seat: Seat, legal: Vec<_>, out_of_turn: bool| {
            Effect::AiMove(Box::new(AiMove {
                chat: self.chat.clone(),
                table: self.id,
                seat,
                version: self.version,
                observation: self.deal_log.observation(game, seat),
                legal,
                out_of_turn,
            }))
        };
        let owed = awaiting
            .iter()
            .filter(|&&s| self.seats[s].ai_controlled())
            .map(|&seat| ai_move(seat, game.legal_actions(seat), false));
        let optional = Seat::ALL
            .into_iter()
            .filter(|s| !awaiting.contains(s) && self.seats[*s].ai_controlled())
            .filter_map(|seat| {
                let legal = game.legal_actions(seat);
                (!legal.is_empty()).then(|| ai_move(seat, legal, true))
            });
        owed.chain(optional).collect()
    }

    pub(crate) fn hand_effects(&self) -> impl Iterator<Item = Effect> + '_ {
        Seat::ALL
            .into_iter()
            .filter_map(|s| self.hand_view(s))
            .map(|h| Effect::RenderHand(Box::new(h)))
    }

    /// Everything needed to show the table as it is and to keep it going:
    /// used after a restart and to answer a repeated command.
    pub fn current_effects(&self) -> Vec<Effect> {
        let mut fx = vec![Effect::RenderTable(Box::new(self.view()))];
        fx.extend(self.hand_effects());
        if let Some(spec) = self.timer_spec() {
            fx.push(Effect::ArmTimer(Box::new(spec)));
        }
        fx.extend(self.ai_moves());
        fx
    }
}
