//! The strong player: determinized Monte Carlo search.
//!
//! For each decision it samples deals that could be the real one (see
//! [`super::sample`]), plays every candidate action in each of them, plays
//! the rest of the deal out with the rules of thumb, and picks the action
//! with the best average result for its team. Every candidate is tried on
//! the same sampled deals with the same playout randomness, so the
//! comparison between candidates is not drowned in the luck of the cards.

use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};

use super::heuristic::{HeuristicAgent, Situation};
use super::sample::Sampler;
use super::{KozelAgent, Observation};
use crate::ai::Budget;
use crate::cards::Seat;
use crate::kozel::{Action, Deal, DealResult, Event, SERIES_LOSS, Team};

/// Sampled deals per decision are capped so a generous time budget is not
/// spent refining an average that has long settled.
const MAX_WORLDS: u32 = 20_000;
/// How often a playout leaves the rules of thumb for a random legal action,
/// so that the search does not trust its own style of play blindly.
const EXPLORE: f64 = 0.05;
/// Weight of the card-point margin next to the defeat points: enough to
/// tell apart actions that end the same way, never enough to outweigh them.
const MARGIN_WEIGHT: f64 = 0.5;

/// The searching player.
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
            legal: Vec::with_capacity(64),
            events: Vec::with_capacity(64),
        }
    }

    /// The index of the best of `options` for the observing seat; `None`
    /// in an option means "do nothing out of turn, let play go on".
    fn best(&mut self, seen: &Observation, options: &[Option<Action>]) -> Option<usize> {
        let me = seen.seat();
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
            for (total, option) in totals.iter_mut().zip(options) {
                let mut deal = world.clone();
                self.events.clear();
                if let Some(a) = *option
                    && deal.apply_into(me, a, &mut self.events).is_err()
                {
                    // Cannot happen: the sample agrees with the seat's view.
                    *total = f64::NEG_INFINITY;
                    continue;
                }
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(playout_seed);
                if let Some(result) = self.playout(&mut deal, &mut rng) {
                    *total += utility(&result, me, seen.view.defeat_points);
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
    fn playout(&mut self, deal: &mut Deal, rng: &mut impl Rng) -> Option<DealResult> {
        while let Some(seat) = deal.to_act() {
            self.legal.clear();
            deal.legal_actions_into(seat, &mut self.legal);
            let action = if rng.random_bool(EXPLORE) {
                *self
                    .legal
                    .get(rng.random_range(0..self.legal.len().max(1)))?
            } else {
                Situation::in_deal(deal, seat).choose(&self.legal)
            };
            self.events.clear();
            deal.apply_into(seat, action, &mut self.events).ok()?;
        }
        deal.result()
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

impl KozelAgent for SearchAgent {
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action {
        if legal.len() == 1 {
            return legal[0];
        }
        let options: Vec<Option<Action>> = legal.iter().copied().map(Some).collect();
        match self.best(seen, &options) {
            Some(i) => legal[i],
            None => HeuristicAgent.choose(seen, legal),
        }
    }

    fn wants_molodka(&mut self, seen: &Observation) -> bool {
        match self.best(seen, &[Some(Action::Molodka), None]) {
            Some(i) => i == 0,
            None => HeuristicAgent.wants_molodka(seen),
        }
    }
}
