//! Kozel agents.
//!
//! An agent decides from an [`Observation`]: its seat's [`SeriesView`] and
//! the deal's events as that seat saw them ([`SeenEvent`]). Neither type can
//! hold another seat's hand, the stock order or someone else's passed cards,
//! so an agent cannot peek however it is written.
//!
//! The deal log, the random player and the search loop are shared with
//! Hearts (the crate root); here is what is Kozel's own: the [`Rules`]
//! implementation for [`Series`], the rules of thumb, the card memory and
//! the sampler.

mod heuristic;
mod knowledge;
mod sample;
mod search;

use crate::{Agent, Budget, Rules, Seen};
use kozyr_cards::{CardSet, Seat};
use kozyr_kozel::{Action, Event, RuleError, SeenEvent, Series, SeriesView};

pub use heuristic::HeuristicAgent;
pub use search::SearchAgent;

/// Everything one seat may know when it decides.
pub type Observation = Seen<Series>;

/// A Kozel player: it is also asked, out of turn, whether to play a
/// molodka ([`Agent::wants_out_of_turn`] with [`Action::Molodka`]).
pub type KozelAgent = dyn Agent<Series>;

/// The events of the deal in play; hands out each seat's [`Observation`].
pub type DealLog = crate::DealLog<Series>;

impl Rules for Series {
    type Action = Action;
    type Event = Event;
    type SeenEvent = SeenEvent;
    type View = SeriesView;
    type Deal = kozyr_kozel::Deal;
    type Error = RuleError;

    const EMPTY_ACTION: Action = Action::Lead(CardSet::EMPTY);

    fn view(&self, seat: Seat) -> SeriesView {
        Series::view(self, seat)
    }

    fn seat_of(view: &SeriesView) -> Seat {
        view.deal.seat
    }

    fn seen_by(event: &Event, seat: Seat) -> SeenEvent {
        event.seen_by(seat)
    }

    fn starts_deal(event: &Event) -> bool {
        matches!(event, Event::DealStarted { .. })
    }

    fn to_move(&self) -> Option<Seat> {
        self.to_act()
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        Series::legal_actions(self, seat)
    }

    /// Every seat that may play a molodka out of turn, clockwise from the
    /// trick's leader.
    fn out_of_turn(&self, to_move: Seat) -> Vec<(Seat, Action)> {
        let deal = self.deal();
        deal.leader()
            .clockwise()
            .filter(|&seat| seat != to_move && deal.check_molodka(seat).is_ok())
            .map(|seat| (seat, Action::Molodka))
            .collect()
    }

    fn apply_into(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        Series::apply_into(self, seat, action, events)
    }

    fn heuristic_agent() -> Box<KozelAgent> {
        Box::new(HeuristicAgent::new())
    }

    fn search_agent(budget: Budget, seed: u64) -> Box<KozelAgent> {
        Box::new(SearchAgent::new(budget, seed))
    }
}

#[cfg(test)]
mod tests;
