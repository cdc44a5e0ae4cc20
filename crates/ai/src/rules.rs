//! The shape the two games share, as the AI sees it: the [`Rules`] trait,
//! implemented once by [`kozyr_kozel::Series`] and once by
//! [`kozyr_hearts::Match`] (in `ai::kozel` and `ai::hearts`), and what is
//! built on it once for both — what a seat has [`Seen`], the [`DealLog`]
//! drivers keep, and [`next_move`].

use std::fmt;
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::search::Playout;
use super::{Agent, Budget, Decision};
use kozyr_cards::Seat;

/// A game as its AI players need it: a game in progress (a Kozel series,
/// a Hearts match) with its actions, its events, what a seat sees of each
/// event and of the game, and the deal a search samples and plays out.
pub trait Rules: Sized + 'static {
    type Action: Copy + PartialEq + fmt::Debug + Send + Sync + 'static;
    /// What the engine emits, in full (hidden cards included).
    type Event: Clone + fmt::Debug + PartialEq + Eq + Serialize + DeserializeOwned;
    /// An event as one seat saw it.
    type SeenEvent: Clone + fmt::Debug + PartialEq + Eq + Serialize + DeserializeOwned + Send;
    /// The game as one seat sees it.
    type View: Clone + fmt::Debug + PartialEq + Eq + Serialize + DeserializeOwned + Send;
    /// One deal, with every card in place: what a search samples and plays
    /// its candidate actions out in.
    type Deal: Playout<Action = Self::Action>;
    type Error: std::error::Error;

    /// An action the rules always refuse (an empty play), answered by an
    /// agent wrongly asked with no legal action, so that the mistake ends
    /// in the game's refusal rather than a panic.
    const EMPTY_ACTION: Self::Action;

    /// What `seat` sees of the game now.
    fn view(&self, seat: Seat) -> Self::View;
    /// The seat a view belongs to.
    fn seat_of(view: &Self::View) -> Seat;
    /// What `seat` saw of `event`.
    fn seen_by(event: &Self::Event, seat: Seat) -> Self::SeenEvent;
    /// Whether `event` starts a deal (and so a new [`DealLog`]).
    fn starts_deal(event: &Self::Event) -> bool;

    /// The seat whose move is asked for next (while Hearts players pass,
    /// the first that has not); `None` once the game is over.
    fn to_move(&self) -> Option<Seat>;
    /// The actions `seat` may take now.
    fn legal_actions(&self, seat: Seat) -> Vec<Self::Action>;
    /// Actions other seats may take out of turn before `to_move` moves
    /// (Kozel's molodkas), in priority order; none by default.
    fn out_of_turn(&self, to_move: Seat) -> Vec<(Seat, Self::Action)> {
        let _ = to_move;
        Vec::new()
    }
    /// Plays `action` for `seat`, appending the events; on error nothing
    /// changes.
    fn apply_into(
        &mut self,
        seat: Seat,
        action: Self::Action,
        events: &mut Vec<Self::Event>,
    ) -> Result<(), Self::Error>;

    /// The game's rule-of-thumb player.
    fn heuristic_agent() -> Box<dyn Agent<Self>>;
    /// The game's searching player.
    fn search_agent(budget: Budget, seed: u64) -> Box<dyn Agent<Self>>;
}

/// Everything one seat may know when it decides: its view and the current
/// deal's events as it saw them. Neither can hold another seat's hand, the
/// stock order or someone else's passed cards. Each game names it
/// `Observation` (`ai::kozel::Observation`, `ai::hearts::Observation`).
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Seen<G: Rules> {
    pub view: G::View,
    /// The current deal's events as this seat saw them, oldest first.
    pub history: Vec<G::SeenEvent>,
}

impl<G: Rules> Seen<G> {
    pub fn seat(&self) -> Seat {
        G::seat_of(&self.view)
    }
}

// By hand: a derive would ask the game type itself to be `Clone`, `Eq`…
impl<G: Rules> Clone for Seen<G> {
    fn clone(&self) -> Seen<G> {
        Seen {
            view: self.view.clone(),
            history: self.history.clone(),
        }
    }
}

impl<G: Rules> fmt::Debug for Seen<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Observation")
            .field("view", &self.view)
            .field("history", &self.history)
            .finish()
    }
}

impl<G: Rules> PartialEq for Seen<G> {
    fn eq(&self, other: &Seen<G>) -> bool {
        self.view == other.view && self.history == other.history
    }
}

impl<G: Rules> Eq for Seen<G> {}

/// The events of the deal in play, as the engine emitted them. Whoever
/// drives a table of agents feeds it every event and asks it for a seat's
/// [`Seen`], which keeps only what that seat saw.
///
/// ```
/// use kozyr_ai::DealLog;
/// use kozyr_kozel::Series;
/// let mut series = Series::new(1);
/// let mut log = DealLog::default();
/// let seat = series.to_act().unwrap();
/// let lead = series.legal_actions(seat)[0];
/// log.record(&series.apply(seat, lead).unwrap());
/// let seen = log.observation(&series, seat.next());
/// assert_eq!(seen.history.len(), 1);
/// assert_eq!(seen.view, series.view(seat.next()));
/// ```
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub struct DealLog<G: Rules> {
    events: Vec<G::Event>,
}

impl<G: Rules> DealLog<G> {
    /// Appends `events`; a new deal starts a new log.
    pub fn record(&mut self, events: &[G::Event]) {
        for e in events {
            if G::starts_deal(e) {
                self.events.clear();
            }
            self.events.push(e.clone());
        }
    }

    /// What `seat` knows now.
    pub fn observation(&self, game: &G, seat: Seat) -> Seen<G> {
        Seen {
            view: game.view(seat),
            history: self.events.iter().map(|e| G::seen_by(e, seat)).collect(),
        }
    }
}

impl<G: Rules> Default for DealLog<G> {
    fn default() -> DealLog<G> {
        DealLog { events: Vec::new() }
    }
}

impl<G: Rules> Clone for DealLog<G> {
    fn clone(&self) -> DealLog<G> {
        DealLog {
            events: self.events.clone(),
        }
    }
}

impl<G: Rules> fmt::Debug for DealLog<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DealLog")
            .field("events", &self.events)
            .finish()
    }
}

impl<G: Rules> PartialEq for DealLog<G> {
    fn eq(&self, other: &DealLog<G>) -> bool {
        self.events == other.events
    }
}

impl<G: Rules> Eq for DealLog<G> {}

/// Asks the agents for the next move: first every seat that may act out of
/// turn (Kozel's molodkas, in priority order: clockwise from the trick's
/// leader), then the seat whose move it is. `None` once nobody may act.
/// `on_decision` hears about every question asked.
///
/// ```
/// use kozyr_ai::{AgentConfig, AgentKind, DealLog, next_move};
/// use kozyr_hearts::{HeartsOptions, Match};
/// let mut game = Match::new(HeartsOptions::default(), 1);
/// let config = AgentConfig::deterministic(1);
/// let mut agents = [1, 2, 3, 4].map(|seed| AgentKind::Random.agent::<Match>(seed, &config));
/// let mut log = DealLog::default();
/// while let Some((seat, action)) = next_move(&game, &log, &mut agents, |_| {}) {
///     log.record(&game.apply(seat, action).unwrap());
/// }
/// assert!(game.is_over());
/// ```
pub fn next_move<G: Rules>(
    game: &G,
    log: &DealLog<G>,
    agents: &mut [Box<dyn Agent<G>>; 4],
    mut on_decision: impl FnMut(Decision),
) -> Option<(Seat, G::Action)> {
    let to_move = game.to_move()?;
    for (seat, action) in game.out_of_turn(to_move) {
        let started = Instant::now();
        let yes = agents[seat.index()].wants_out_of_turn(&log.observation(game, seat), action);
        on_decision(Decision {
            seat,
            options: 2,
            took: started.elapsed(),
        });
        if yes {
            return Some((seat, action));
        }
    }
    let legal = game.legal_actions(to_move);
    let started = Instant::now();
    let action = agents[to_move.index()].choose(&log.observation(game, to_move), &legal);
    on_decision(Decision {
        seat: to_move,
        options: legal.len(),
        took: started.elapsed(),
    });
    Some((to_move, action))
}
