//! The strong Hearts player: determinized Monte Carlo search, the loop
//! shared with Kozel ([`crate::search`]). Each sampled deal (see
//! [`super::sample`]) is played out once per candidate action with the
//! rules of thumb; the action that takes the fewest points on average wins.
//! While passing, the candidates are the sets of three among the five cards
//! the rules of thumb most want to pass.

use super::Observation;
use super::heuristic::{HeuristicAgent, Situation};
use super::sample::Sampler;
use crate::search::{Playout, Search};
use crate::{Agent, Budget};
use kozyr_cards::{CardSet, Seat};
use kozyr_hearts::{Action, Deal, Event, Match, Phase, score_deal};

/// Pass candidates are drawn from this many of the most dangerous cards.
const PASS_POOL: usize = 5;

/// The searching Hearts player.
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

    fn best(&mut self, seen: &Observation, options: &[Action]) -> Option<usize> {
        let me = seen.seat();
        let moon = seen.view.options.shoot_the_moon;
        let sampler = Sampler::new(seen);
        self.search.best(
            options,
            |rng| sampler.sample(rng),
            |deal, option, events| deal.apply_into(me, option, events).is_ok(),
            |deal| {
                let score = score_deal(deal.points_taken(), moon);
                Some(-f64::from(score.points[me]))
            },
        )
    }
}

impl Playout for Deal {
    type Action = Action;
    type Event = Event;

    fn next_seat(&self) -> Option<Seat> {
        match self.phase() {
            Phase::Over => None,
            // Passes are simultaneous; a playout makes them in seat order.
            Phase::Passing => self.awaiting().next(),
            Phase::Playing => self.to_act(),
        }
    }

    /// Passes follow the rules of thumb alone: trying a random one of the
    /// 286 legal passes now and then would cost more than the playout.
    fn settled_move(&self, seat: Seat) -> Option<Action> {
        (self.phase() == Phase::Passing)
            .then(|| Action::PassCards(Situation::in_deal(self, seat).pass()))
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

/// Sets of three among the `PASS_POOL` cards the rules most want to pass.
fn pass_candidates(seen: &Observation) -> Vec<Action> {
    let situation = Situation::new(&seen.view.deal, [false; 4]);
    let pool: Vec<_> = situation
        .ranked_for_passing()
        .into_iter()
        .take(PASS_POOL)
        .collect();
    let mut out = Vec::new();
    for i in 0..pool.len() {
        for j in i + 1..pool.len() {
            for k in j + 1..pool.len() {
                out.push(Action::PassCards(CardSet::from_iter([
                    pool[i], pool[j], pool[k],
                ])));
            }
        }
    }
    out
}

impl Agent<Match> for SearchAgent {
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action {
        if let [only] = legal {
            return *only;
        }
        let options: Vec<Action> = if seen.view.deal.phase == Phase::Passing {
            pass_candidates(seen)
                .into_iter()
                .filter(|a| legal.contains(a))
                .collect()
        } else {
            legal.to_vec()
        };
        match self.best(seen, &options).and_then(|i| options.get(i)) {
            Some(&a) => a,
            None => HeuristicAgent.choose(seen, legal),
        }
    }
}
