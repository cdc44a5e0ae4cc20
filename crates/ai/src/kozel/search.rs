//! The strong player: determinized Monte Carlo search (the loop is
//! [`crate::search`]). What is Kozel's own: the sampler
//! ([`super::sample`]), the rules of thumb as the playout policy, and the
//! score — defeat points given minus taken, for the seat's team.

use super::Observation;
use super::heuristic::{HeuristicAgent, Situation};
use super::sample::Sampler;
use crate::search::{Playout, Search};
use crate::{Agent, Budget};
use kozyr_cards::Seat;
use kozyr_kozel::{Action, Deal, DealResult, Event, SERIES_LOSS, Series, Team};

/// Weight of the card-point margin next to the defeat points: enough to
/// tell apart actions that end the same way, never enough to outweigh them.
const MARGIN_WEIGHT: f64 = 0.5;

/// The searching player.
#[derive(Clone, Debug)]
pub struct SearchAgent {
    search: Search<Deal>,
}

impl SearchAgent {
    pub fn new(budget: Budget, seed: u64) -> SearchAgent {
        SearchAgent {
            search: Search::new(budget, seed),
        }
    }

    /// The index of the best of `options` for the observing seat; `None`
    /// in an option means "do nothing out of turn, let play go on".
    fn best(&mut self, seen: &Observation, options: &[Option<Action>]) -> Option<usize> {
        let me = seen.seat();
        let sampler = Sampler::new(seen);
        self.search.best(
            options,
            |rng| sampler.sample(rng),
            |deal, option, events| match option {
                Some(a) => deal.apply_into(me, a, events).is_ok(),
                None => true,
            },
            |deal| {
                deal.result()
                    .map(|r| utility(&r, me, seen.view.defeat_points))
            },
        )
    }
}

impl Playout for Deal {
    type Action = Action;
    type Event = Event;

    fn next_seat(&self) -> Option<Seat> {
        self.to_act()
    }

    fn legal_actions_into(&self, seat: Seat, out: &mut Vec<Action>) {
        Deal::legal_actions_into(self, seat, out);
    }

    fn rule_of_thumb(&self, seat: Seat, legal: &[Action]) -> Action {
        Situation::in_deal(self, seat).choose(legal)
    }

    fn play(&mut self, seat: Seat, action: Action, events: &mut Vec<Event>) -> bool {
        self.apply_into(seat, action, events).is_ok()
    }
}

/// How good a deal's result is for `me`'s team: defeat points given minus
/// taken (counted only up to the end of the series), plus a little for the
/// card-point margin.
fn utility(r: &DealResult, me: Seat, series: [u32; 2]) -> f64 {
    let us = Team::of(me).index();
    let them = 1 - us;
    let counted =
        |t: usize| f64::from(r.defeat_points[t].min(SERIES_LOSS.saturating_sub(series[t])));
    let margin = (f64::from(r.team_points[us]) - f64::from(r.team_points[them])) / 120.0;
    counted(them) - counted(us) + MARGIN_WEIGHT * margin
}

impl Agent<Series> for SearchAgent {
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action {
        if let [only] = legal {
            return *only;
        }
        let options: Vec<Option<Action>> = legal.iter().copied().map(Some).collect();
        match self.best(seen, &options).and_then(|i| legal.get(i)) {
            Some(&a) => a,
            None => HeuristicAgent.choose(seen, legal),
        }
    }

    fn wants_out_of_turn(&mut self, seen: &Observation, action: Action) -> bool {
        match self.best(seen, &[Some(action), None]) {
            Some(i) => i == 0,
            None => HeuristicAgent.wants_out_of_turn(seen, action),
        }
    }
}
