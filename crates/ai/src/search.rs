//! Determinized Monte Carlo search, once for every game.
//!
//! For each decision the searching player samples deals that could be the
//! real one (each game's own sampler), plays every candidate action in each
//! of them, plays the rest of the deal out with the game's rules of thumb
//! (and a little chance), and picks the candidate with the best average
//! score (each game's own utility). Every candidate is tried on the same
//! sampled deals with the same playout randomness, so the comparison
//! between candidates is not drowned in the luck of the cards.

use std::time::Instant;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::Budget;
use kozyr_cards::Seat;

/// Sampled deals per decision are capped so a generous time budget is not
/// spent refining an average that has long settled (late in a Hearts deal
/// 20,000 deals take less than the default 300 ms).
pub const MAX_WORLDS: u32 = 20_000;

/// How often a playout leaves the rules of thumb for a random legal action,
/// so that the search does not trust its own style of play blindly.
pub const EXPLORE: f64 = 0.05;

/// How long the search keeps asking a sampler that fails. The Hearts
/// sampler never fails (it keeps Hall's condition while dealing); the Kozel
/// one retries inside itself and fails only when its random choices paint
/// it into a corner 24 times running, which a real observation makes rare.
/// So the bound is a guard, not a tuning knob: while sampling succeeds,
/// attempts equal deals and it never binds, and it changes no decision.
/// It stops a decision that yields no deal after `64 + 4 × 64 = 320`
/// attempts (a few milliseconds of sampling; the heuristic then answers),
/// and later gives up once fewer than one attempt in
/// [`ATTEMPTS_PER_WORLD`] has given a deal — an observation the sampler
/// can hardly satisfy would otherwise eat the whole time budget, or loop
/// forever under [`Budget::Playouts`].
pub const FREE_ATTEMPTS: u32 = 64;

/// See [`FREE_ATTEMPTS`]: past the first 64 deals, attempts may run to
/// four per deal found, i.e. the sampler may fail three times in four.
pub const ATTEMPTS_PER_WORLD: u32 = 4;

/// Whether `attempts` sampling attempts that gave `worlds` deals are enough
/// to give up (see [`FREE_ATTEMPTS`]).
fn out_of_attempts(attempts: u32, worlds: u32) -> bool {
    attempts >= FREE_ATTEMPTS + ATTEMPTS_PER_WORLD * worlds.max(FREE_ATTEMPTS)
}

/// A deal with every card in place, as a playout plays it: the engine's
/// moves plus the game's rules of thumb.
pub trait Playout: Clone {
    type Action: Copy;
    type Event;

    /// The seat a playout moves next; `None` once the deal is over.
    fn next_seat(&self) -> Option<Seat>;
    /// The move the rules of thumb make for `seat` without looking for
    /// legal alternatives, where exploring them is not worth it (Hearts'
    /// passes: 286 sets of three); `None` to choose among the legal actions.
    fn settled_move(&self, seat: Seat) -> Option<Self::Action> {
        let _ = seat;
        None
    }
    fn legal_actions_into(&self, seat: Seat, out: &mut Vec<Self::Action>);
    /// The rules of thumb's choice among `legal` (never empty).
    fn rule_of_thumb(&self, seat: Seat, legal: &[Self::Action]) -> Self::Action;
    /// Plays `action`; `false` (and no change) when the rules refuse it.
    fn play(&mut self, seat: Seat, action: Self::Action, events: &mut Vec<Self::Event>) -> bool;
}

/// The search's state between decisions: its budget, its random numbers and
/// scratch buffers reused by every playout.
#[derive(Clone, Debug)]
pub struct Search<D: Playout> {
    budget: Budget,
    rng: Xoshiro256PlusPlus,
    legal: Vec<D::Action>,
    events: Vec<D::Event>,
}

impl<D: Playout> Search<D> {
    pub fn new(budget: Budget, seed: u64) -> Search<D> {
        Search {
            budget,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            legal: Vec::with_capacity(64),
            events: Vec::with_capacity(64),
        }
    }

    /// The index of the best of `options`, or `None` when no deal could be
    /// sampled. `sample` draws a deal consistent with what the seat saw;
    /// `start` plays an option in it (`false`: the rules refused it, which
    /// a consistent sample never does); `score` rates a finished deal for
    /// the seat (`None`: not scorable, counted as nothing).
    pub fn best<O: Copy>(
        &mut self,
        options: &[O],
        sample: impl Fn(&mut Xoshiro256PlusPlus) -> Option<D>,
        start: impl Fn(&mut D, O, &mut Vec<D::Event>) -> bool,
        score: impl Fn(&D) -> Option<f64>,
    ) -> Option<usize> {
        let started = Instant::now();
        let mut totals = vec![0.0f64; options.len()];
        let mut worlds = 0u32;
        let mut attempts = 0u32;
        loop {
            let enough = match self.budget {
                Budget::Playouts(n) => worlds >= n.max(1),
                Budget::Time(limit) => worlds >= 1 && started.elapsed() >= limit,
            };
            if enough || worlds >= MAX_WORLDS || out_of_attempts(attempts, worlds) {
                break;
            }
            attempts += 1;
            let Some(world) = sample(&mut self.rng) else {
                continue;
            };
            worlds += 1;
            let playout_seed = self.rng.random::<u64>();
            for (total, &option) in totals.iter_mut().zip(options) {
                let mut deal = world.clone();
                self.events.clear();
                if !start(&mut deal, option, &mut self.events) {
                    *total = f64::NEG_INFINITY;
                    continue;
                }
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(playout_seed);
                if self.play_out(&mut deal, &mut rng)
                    && let Some(s) = score(&deal)
                {
                    *total += s;
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

    /// Plays `deal` to its end with the rules of thumb (and a little
    /// chance); `false` if the deal got stuck, which the engines never do.
    fn play_out(&mut self, deal: &mut D, rng: &mut Xoshiro256PlusPlus) -> bool {
        while let Some(seat) = deal.next_seat() {
            let action = match deal.settled_move(seat) {
                Some(a) => a,
                None => {
                    self.legal.clear();
                    deal.legal_actions_into(seat, &mut self.legal);
                    if rng.random_bool(EXPLORE) {
                        let pick = rng.random_range(0..self.legal.len().max(1));
                        match self.legal.get(pick) {
                            Some(&a) => a,
                            None => return false,
                        }
                    } else if self.legal.is_empty() {
                        return false;
                    } else {
                        deal.rule_of_thumb(seat, &self.legal)
                    }
                }
            };
            self.events.clear();
            if !deal.play(seat, action, &mut self.events) {
                return false;
            }
        }
        true
    }
}
