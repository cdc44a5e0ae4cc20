//! The strong Hearts player: determinized Monte Carlo search, like the
//! Kozel one. Each sampled deal (see [`super::sample`]) is played out once
//! per candidate action with the rules of thumb; the action that takes the
//! fewest points on average wins. While passing, the candidates are the
//! sets of three among the five cards the rules of thumb most want to pass.

use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};

use super::heuristic::{HeuristicAgent, Situation};
use super::sample::Sampler;
use super::{HeartsAgent, Observation};
use crate::ai::Budget;
use crate::cards::CardSet;
use crate::hearts::{Action, Deal, Event, Phase, score_deal};

const MAX_WORLDS: u32 = 20_000;
/// How often a playout leaves the rules of thumb for a random legal play.
const EXPLORE: f64 = 0.05;
/// Pass candidates are drawn from this many of the most dangerous cards.
const PASS_POOL: usize = 5;

/// The searching Hearts player.
#[derive(Clone, Debug)]
pub struct SearchAgent {
    budget: Budget,
    rng: Xoshiro256PlusPlus,
    legal: Vec<Action>,
    events: Vec<Event>,
}

impl SearchAgent {
    pub fn new(budget: Budget, seed: u64) -> SearchAgent {
        SearchAgent {
            budget,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            legal: Vec::with_capacity(16),
            events: Vec::with_capacity(8),
        }
    }

    fn best(&mut self, seen: &Observation, options: &[Action]) -> Option<usize> {
        let me = seen.seat();
        let moon = seen.view.options.shoot_the_moon;
        let sampler = Sampler::new(seen);
        let started = Instant::now();
        let mut totals = vec![0.0f64; options.len()];
        let mut worlds = 0u32;
        let mut attempts = 0u32;
        loop {
            let enough = match self.budget {
                Budget::Playouts(n) => worlds >= n.max(1),
                Budget::Time(limit) => worlds >= 1 && started.elapsed() >= limit,
            };
            if enough || worlds >= MAX_WORLDS || attempts >= 64 + 4 * worlds.max(64) {
                break;
            }
            attempts += 1;
            let Some(world) = sampler.sample(&mut self.rng) else {
                continue;
            };
            worlds += 1;
            let playout_seed = self.rng.random::<u64>();
            for (total, &option) in totals.iter_mut().zip(options) {
                let mut deal = world;
                if deal.apply_into(me, option, &mut self.events).is_err() {
                    *total = f64::NEG_INFINITY;
                    continue;
                }
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(playout_seed);
                if self.playout(&mut deal, &mut rng).is_some() {
                    let score = score_deal(deal.points_taken(), moon);
                    *total -= f64::from(score.points[me]);
                }
            }
        }
        if worlds == 0 {
            return None;
        }
        totals
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            .map(|(i, _)| i)
    }

    /// Plays `deal` to its end with the rules of thumb (and a little chance).
    fn playout(&mut self, deal: &mut Deal, rng: &mut impl Rng) -> Option<()> {
        loop {
            self.events.clear();
            match deal.phase() {
                Phase::Over => return Some(()),
                Phase::Passing => {
                    for seat in deal.awaiting() {
                        let pass = Situation::in_deal(deal, seat).pass();
                        deal.apply_into(seat, Action::PassCards(pass), &mut self.events)
                            .ok()?;
                    }
                }
                Phase::Playing => {
                    let seat = deal.to_act()?;
                    self.legal.clear();
                    deal.legal_actions_into(seat, &mut self.legal);
                    let action = if rng.random_bool(EXPLORE) {
                        *self
                            .legal
                            .get(rng.random_range(0..self.legal.len().max(1)))?
                    } else {
                        Situation::in_deal(deal, seat).choose(&self.legal)
                    };
                    deal.apply_into(seat, action, &mut self.events).ok()?;
                }
            }
        }
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

impl HeartsAgent for SearchAgent {
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action {
        if legal.len() == 1 {
            return legal[0];
        }
        let options: Vec<Action> = if seen.view.deal.phase == Phase::Passing {
            pass_candidates(seen)
                .into_iter()
                .filter(|a| legal.contains(a))
                .collect()
        } else {
            legal.to_vec()
        };
        match self.best(seen, &options) {
            Some(i) => options[i],
            None => HeuristicAgent.choose(seen, legal),
        }
    }
}
