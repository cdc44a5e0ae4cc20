//! Hearts agents.
//!
//! As in Kozel, an agent decides from an [`Observation`]: its seat's
//! [`View`] and the game's events as that seat saw them ([`SeenEvent`]:
//! other seats' passes stay hidden), so it cannot peek.
//!
//! The deal log, the random player and the search loop are shared with
//! Kozel (the crate root); here is what is Hearts' own: the [`Rules`]
//! implementation for [`Match`], the rules of thumb and the sampler.

mod heuristic;
mod sample;
mod search;

use crate::{Agent, Budget, Rules, Seen};
use kozyr_cards::{CardSet, Seat};
use kozyr_hearts::{Action, Event, Match, RuleError, SeenEvent, View};

pub use heuristic::HeuristicAgent;
pub use search::SearchAgent;

/// Everything one seat may know when it decides.
pub type Observation = Seen<Match>;

/// A Hearts player: three cards to pass, or a card to play.
pub type HeartsAgent = dyn Agent<Match>;

/// The events of the deal in play; hands out each seat's [`Observation`].
///
/// ```
/// use kozyr_ai::hearts::DealLog;
/// use kozyr_hearts::{HeartsOptions, Match, SeenEvent};
/// let mut game = Match::new(HeartsOptions::default(), 1);
/// let mut log = DealLog::default();
/// let seat = game.awaiting().next().unwrap();
/// let pass = game.legal_actions(seat)[0];
/// log.record(&game.apply(seat, pass).unwrap());
/// let seen = log.observation(&game, seat.next());
/// assert!(matches!(seen.history[0], SeenEvent::Passed { cards: None, .. }));
/// ```
pub type DealLog = crate::DealLog<Match>;

impl Rules for Match {
    type Action = Action;
    type Event = Event;
    type SeenEvent = SeenEvent;
    type View = View;
    type Deal = kozyr_hearts::Deal;
    type Error = RuleError;

    const EMPTY_ACTION: Action = Action::PassCards(CardSet::EMPTY);

    fn view(&self, seat: Seat) -> View {
        Match::view(self, seat)
    }

    fn seat_of(view: &View) -> Seat {
        view.seat
    }

    fn seen_by(event: &Event, seat: Seat) -> SeenEvent {
        event.seen_by(seat)
    }

    fn starts_deal(event: &Event) -> bool {
        matches!(event, Event::DealStarted { .. })
    }

    /// While passing, seats are asked in seat order.
    fn to_move(&self) -> Option<Seat> {
        self.awaiting().next()
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        Match::legal_actions(self, seat)
    }

    fn apply_into(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        Match::apply_into(self, seat, action, events)
    }

    fn heuristic_agent() -> Box<HeartsAgent> {
        Box::new(HeuristicAgent::new())
    }

    fn search_agent(budget: Budget, seed: u64) -> Box<HeartsAgent> {
        Box::new(SearchAgent::new(budget, seed))
    }
}

#[cfg(test)]
mod tests;
