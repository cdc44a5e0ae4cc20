//! Determinization: deals that could be the one being played, as far as
//! one seat can tell.
//!
//! A sampled deal is built the way the real one was: a whole deck is
//! chosen, dealt with [`Deal::new`], and the deal's history is played again
//! on it with [`Deal::apply_into`]. So every sample is a legal position the
//! engine itself reached, and it agrees with everything the seat saw: its
//! own cards, every face-up play, who drew when, and the revealed trump card
//! lying somewhere in the middle of the stock until somebody drew it.
//!
//! The deck is chosen through *tokens*: token `t` is the `t`-th card of the
//! deck as dealt (0–15 the hands, 16–35 the stock from the top). A token
//! gets its card when the history pins it — this seat's own cards, a
//! face-up play by whoever held the token — and the tokens still free at
//! the end share the cards nobody has seen, at random.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::Observation;
use kozyr_cards::{Card, CardSet, PerSeat, Seat};
use kozyr_kozel::{Action, Deal, Deck, Event, SeenEvent, deck};

const DECK_LEN: usize = 36;
const HAND_TOKENS: u8 = 16;
const FREE: u8 = u8::MAX;
/// Where the revealed card may lie in the stock (top = 0), as the engine deals it.
const TRUMP_POSITIONS: std::ops::Range<u8> = 5..15;

/// One play of the history, as the sampler replays it.
#[derive(Clone, Copy, Debug)]
enum Step {
    Lead(Seat, CardSet),
    Beat(Seat, CardSet),
    /// `count` cards face down; the cards only when this seat passed them.
    Pass(Seat, u32, Option<CardSet>),
    Molodka(Seat, CardSet),
    Trick,
    Draw(Seat),
}

/// Samples deals consistent with one seat's observation.
#[derive(Clone, Debug)]
pub(crate) struct Sampler {
    dealer: Seat,
    first_leader: Seat,
    trump_card: Card,
    steps: Vec<Step>,
    /// Tokens whose card this seat knows: its dealt cards and its draws.
    mine: Vec<(u8, Card)>,
    /// Stock positions the revealed card may have had.
    trump_positions: Vec<u8>,
    /// `later[i][seat]`: the cards `seat` plays face up after step `i`.
    later: Vec<PerSeat<CardSet>>,
    /// Whether this seat's own cards add up to a dealt hand of four.
    consistent: bool,
}

/// A deal in the making: which token holds which card, and where tokens are.
struct World {
    card_of: [u8; DECK_LEN],
    token_of: [u8; 64],
    hands: PerSeat<u64>,
    table: PerSeat<u64>,
}

impl World {
    fn bind(&mut self, token: u8, card: Card) {
        self.card_of[token as usize] = card.index();
        self.token_of[card.index() as usize] = token;
    }

    fn card(&self, token: u8) -> Option<Card> {
        Card::from_index(self.card_of[token as usize])
    }

    fn free_in(&self, mask: u64) -> impl Iterator<Item = u8> + '_ {
        bits(mask).filter(|&t| self.card_of[t as usize] == FREE)
    }

    /// Takes `cards` out of `seat`'s hand, pinning free tokens to the cards
    /// not yet placed. `None` when the hand cannot hold them.
    fn take(&mut self, seat: Seat, cards: CardSet, rng: &mut impl Rng) -> Option<u64> {
        let mut taken = 0u64;
        for c in cards {
            let t = self.token_of[c.index() as usize];
            let token = if t != FREE {
                (self.hands[seat] & (1 << t) != 0).then_some(t)?
            } else {
                let free: Vec<u8> = self.free_in(self.hands[seat]).collect();
                let t = *free.get(rng.random_range(0..free.len().max(1)))?;
                self.bind(t, c);
                t
            };
            self.hands[seat] &= !(1 << token);
            taken |= 1 << token;
        }
        Some(taken)
    }
}

fn bits(mask: u64) -> impl Iterator<Item = u8> {
    let mut m = mask;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let t = m.trailing_zeros() as u8;
            m &= m - 1;
            t
        })
    })
}

impl Sampler {
    pub fn new(seen: &Observation) -> Sampler {
        let view = &seen.view.deal;
        let me = view.seat;
        let mut steps = Vec::with_capacity(seen.history.len());
        let mut held = view.hand;
        let mut draws: Vec<(Seat, Option<Card>, usize)> = Vec::new();
        // The step at which the trump card was first seen face up, and by whom.
        let mut trump_played: Option<(Seat, usize)> = None;
        for event in &seen.history {
            let step = match *event {
                SeenEvent::Lead { seat, cards } => Step::Lead(seat, cards),
                SeenEvent::Beat { seat, cards } => Step::Beat(seat, cards),
                SeenEvent::Pass { seat, count, cards } => Step::Pass(seat, count, cards),
                SeenEvent::Molodka { seat, cards } => Step::Molodka(seat, cards),
                SeenEvent::Trick { .. } => Step::Trick,
                SeenEvent::Draw { seat, card } => {
                    draws.push((seat, card, steps.len()));
                    Step::Draw(seat)
                }
                SeenEvent::DealStarted { .. }
                | SeenEvent::DealOver(_)
                | SeenEvent::SeriesOver { .. } => continue,
            };
            match step {
                Step::Lead(seat, cards) | Step::Beat(seat, cards) | Step::Molodka(seat, cards) => {
                    if seat == me {
                        held |= cards;
                    }
                    if trump_played.is_none() && cards.contains(view.trump_card) {
                        trump_played = Some((seat, steps.len()));
                    }
                }
                Step::Pass(seat, _, Some(cards)) if seat == me => held |= cards,
                _ => {}
            }
            steps.push(step);
        }

        let mut later = vec![PerSeat::<CardSet>::default(); steps.len()];
        let mut acc = PerSeat::<CardSet>::default();
        for (i, step) in steps.iter().enumerate().rev() {
            later[i] = acc;
            if let Step::Lead(s, c) | Step::Beat(s, c) | Step::Molodka(s, c) = *step {
                acc[s] |= c;
            }
        }

        let drawn_by_me: Vec<(u8, Card)> = draws
            .iter()
            .enumerate()
            .filter_map(|(j, &(s, c, _))| c.filter(|_| s == me).map(|c| (HAND_TOKENS + j as u8, c)))
            .collect();
        let drawn: CardSet = drawn_by_me.iter().map(|&(_, c)| c).collect();
        let dealt_tokens = (0..HAND_TOKENS).filter(|&t| view.dealer.offset(1 + t % 4) == me);
        let dealt = held - drawn;
        let mut mine: Vec<(u8, Card)> = dealt_tokens.zip(dealt).collect();
        mine.extend(&drawn_by_me);

        let trump_positions = TRUMP_POSITIONS
            .filter(|&p| match draws.get(p as usize) {
                Some(&(seat, card, _)) if seat == me => card == Some(view.trump_card),
                Some(&(seat, _, at)) => match trump_played {
                    Some((by, when)) => by == seat && at < when,
                    None => !drawn.contains(view.trump_card),
                },
                None => trump_played.is_none() && !held.contains(view.trump_card),
            })
            .collect();

        Sampler {
            dealer: view.dealer,
            first_leader: view.first_leader,
            trump_card: view.trump_card,
            steps,
            mine,
            trump_positions,
            later,
            consistent: dealt.len() == 4,
        }
    }

    /// A deal consistent with the observation, at the same moment of play,
    /// or `None` if none was found (which a correct observation makes rare).
    pub fn sample(&self, rng: &mut impl Rng) -> Option<Deal> {
        (0..24).find_map(|attempt| self.try_sample(rng, attempt >= 12, None))
    }

    /// Like [`Sampler::sample`], also handing back the events of the replay.
    #[cfg(test)]
    pub fn sample_with_events(&self, rng: &mut impl Rng) -> Option<(Deal, Vec<Event>)> {
        (0..24).find_map(|attempt| {
            let mut events = Vec::new();
            let deal = self.try_sample(rng, attempt >= 12, Some(&mut events))?;
            Some((deal, events))
        })
    }

    /// One attempt. A seat passing face down gives up tokens it need not
    /// keep for a later face-up play; `careful` makes it give up the tokens
    /// already pinned to a card first, which can always be completed when
    /// random choice has painted itself into a corner.
    fn try_sample(
        &self,
        rng: &mut impl Rng,
        careful: bool,
        record: Option<&mut Vec<Event>>,
    ) -> Option<Deal> {
        if !self.consistent {
            return None;
        }
        let mut w = World {
            card_of: [FREE; DECK_LEN],
            token_of: [FREE; 64],
            hands: PerSeat::default(),
            table: PerSeat::default(),
        };
        for &(t, c) in &self.mine {
            w.bind(t, c);
        }
        let p = *self
            .trump_positions
            .get(rng.random_range(0..self.trump_positions.len().max(1)))?;
        let trump_token = HAND_TOKENS + p;
        match w.card(trump_token) {
            Some(c) if c != self.trump_card => return None,
            Some(_) => {}
            None if w.token_of[self.trump_card.index() as usize] != FREE => return None,
            None => w.bind(trump_token, self.trump_card),
        }
        for t in 0..HAND_TOKENS {
            w.hands[self.dealer.offset(1 + t % 4)] |= 1 << t;
        }

        let mut passes: Vec<u64> = Vec::new();
        let mut next_draw = HAND_TOKENS;
        for (i, step) in self.steps.iter().enumerate() {
            match *step {
                Step::Draw(seat) => {
                    w.hands[seat] |= 1 << next_draw;
                    next_draw += 1;
                }
                Step::Lead(seat, cards) | Step::Beat(seat, cards) => {
                    w.table[seat] = w.take(seat, cards, rng)?;
                }
                Step::Molodka(seat, cards) => {
                    for s in Seat::ALL {
                        w.hands[s] |= w.table[s];
                        w.table[s] = 0;
                    }
                    let taken = w.take(seat, cards, rng)?;
                    if w.hands[seat] != 0 {
                        return None;
                    }
                    w.table[seat] = taken;
                }
                Step::Pass(seat, _, Some(cards)) => {
                    w.table[seat] = w.take(seat, cards, rng)?;
                }
                Step::Pass(seat, count, None) => {
                    let keep = self.later[i][seat];
                    let mut pinned: Vec<u8> = Vec::new();
                    let mut free: Vec<u8> = Vec::new();
                    for t in bits(w.hands[seat]) {
                        match w.card(t) {
                            None => free.push(t),
                            Some(c) if !keep.contains(c) => pinned.push(t),
                            Some(_) => {}
                        }
                    }
                    let mut pool = if careful {
                        pinned.shuffle(rng);
                        free.shuffle(rng);
                        pinned.extend(free);
                        pinned
                    } else {
                        pinned.extend(free);
                        pinned.shuffle(rng);
                        pinned
                    };
                    pool.truncate(count as usize);
                    if pool.len() != count as usize {
                        return None;
                    }
                    let mask = pool.iter().fold(0u64, |m, &t| m | 1 << t);
                    w.hands[seat] &= !mask;
                    w.table[seat] = mask;
                    passes.push(mask);
                }
                Step::Trick => w.table = PerSeat::default(),
            }
        }

        // The cards nobody has placed go to the free tokens at random.
        let placed: CardSet = (0..DECK_LEN as u8).filter_map(|t| w.card(t)).collect();
        let mut unseen: Vec<Card> = (deck() - placed).iter().collect();
        unseen.shuffle(rng);
        let free: Vec<u8> = w.free_in((1u64 << DECK_LEN) - 1).collect();
        if free.len() != unseen.len() {
            return None;
        }
        for (t, c) in free.into_iter().zip(unseen) {
            w.bind(t, c);
        }
        let mut cards = [self.trump_card; DECK_LEN];
        for (t, slot) in cards.iter_mut().enumerate() {
            *slot = w.card(t as u8)?;
        }
        let deck = Deck::new(cards, p).ok()?;
        let mut deal = Deal::new(self.dealer, self.first_leader, deck);

        let mut scratch = Vec::new();
        let events = record.unwrap_or(&mut scratch);
        let mut passes = passes.into_iter();
        for step in &self.steps {
            let (seat, action) = match *step {
                Step::Lead(s, c) => (s, Action::Lead(c)),
                Step::Beat(s, c) => (s, Action::Beat(c)),
                Step::Molodka(s, _) => (s, Action::Molodka),
                Step::Pass(s, _, Some(c)) => (s, Action::Pass(c)),
                Step::Pass(s, _, None) => {
                    let mask = passes.next()?;
                    (
                        s,
                        Action::Pass(bits(mask).filter_map(|t| w.card(t)).collect()),
                    )
                }
                Step::Trick | Step::Draw(_) => continue,
            };
            deal.apply_into(seat, action, events).ok()?;
        }
        Some(deal)
    }
}
