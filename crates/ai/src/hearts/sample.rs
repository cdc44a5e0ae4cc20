//! Determinization for Hearts: deals that could be the one being played,
//! as far as one seat can tell.
//!
//! The seat knows its own cards, what it passed (and so where those cards
//! are until they are played), what it received, and every card played.
//! Plays also tell what a seat cannot hold: showing out of a suit voids it,
//! discarding a point card on the first trick means holding nothing else,
//! leading a heart before they are broken means holding only hearts. The
//! sampler deals the unseen cards to the other hands within those limits,
//! then rebuilds the deal from the start with [`Deal::from_hands`] and
//! replays the passes and plays on it, so every sample is a position the
//! engine itself reached.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::Observation;
use super::heuristic::Situation;
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};
use kozyr_hearts::{Action, Deal, POINT_CARDS, PassDirection, Phase, SeenEvent};

/// Samples deals consistent with one seat's observation.
#[derive(Clone, Debug)]
pub(crate) struct Sampler {
    me: Seat,
    dealer: Seat,
    number: u32,
    direction: PassDirection,
    hand: CardSet,
    my_pass: Option<CardSet>,
    my_received: Option<CardSet>,
    exchanged: bool,
    /// Seats in the order they chose their passes.
    pass_order: Vec<Seat>,
    plays: Vec<(Seat, Card)>,
    played_by: PerSeat<CardSet>,
    hand_sizes: PerSeat<u32>,
    /// Cards each other seat cannot hold now.
    forbidden: PerSeat<CardSet>,
    /// Cards each other seat certainly holds now (what this seat passed it).
    pinned: PerSeat<CardSet>,
    /// The table's rule: any heart played breaks hearts.
    any_heart_breaks: bool,
}

impl Sampler {
    pub fn new(seen: &Observation) -> Sampler {
        let view = &seen.view.deal;
        let me = view.seat;
        let mut pass_order = Vec::new();
        let mut plays = Vec::new();
        let mut played_by = PerSeat::<CardSet>::default();
        let mut forbidden = PerSeat::<CardSet>::default();
        let mut led: Option<Suit> = None;
        let mut in_trick = 0;
        let mut first_trick = true;
        let mut broken = false;
        let any_heart_breaks = seen.view.options.any_heart_breaks;
        let hearts = CardSet::FULL.of_suit(Suit::Hearts);
        for event in &seen.history {
            match *event {
                SeenEvent::Passed { seat, .. } => pass_order.push(seat),
                SeenEvent::Play { seat, card } => {
                    plays.push((seat, card));
                    played_by[seat].insert(card);
                    match led {
                        None => {
                            if card.suit() == Suit::Hearts && !broken {
                                forbidden[seat] |= !hearts;
                            }
                            led = Some(card.suit());
                        }
                        Some(l) if card.suit() != l => {
                            forbidden[seat] |= CardSet::FULL.of_suit(l);
                            if first_trick && POINT_CARDS.contains(card) {
                                forbidden[seat] |= !POINT_CARDS;
                            }
                            broken |= card.suit() == Suit::Hearts;
                        }
                        Some(_) => {}
                    }
                    broken |= any_heart_breaks && card.suit() == Suit::Hearts;
                    in_trick += 1;
                    if in_trick == 4 {
                        in_trick = 0;
                        led = None;
                        first_trick = false;
                    }
                }
                SeenEvent::DealStarted { .. }
                | SeenEvent::CardsExchanged { .. }
                | SeenEvent::Trick { .. }
                | SeenEvent::DealOver { .. }
                | SeenEvent::GameOver { .. } => {}
            }
        }
        let direction = view.pass_direction;
        let exchanged = view.phase != Phase::Passing;
        let played = played_by.0.iter().fold(CardSet::EMPTY, |a, &p| a | p);
        let mut pinned = PerSeat::<CardSet>::default();
        if let (Some(to), Some(pass), true) = (direction.target(me), view.passed, exchanged) {
            pinned[to] = pass - played;
        }
        forbidden[me] = CardSet::EMPTY;
        Sampler {
            me,
            dealer: view.dealer,
            number: view.number,
            direction,
            hand: view.hand,
            my_pass: view.passed,
            my_received: view.received,
            exchanged,
            pass_order,
            plays,
            played_by,
            hand_sizes: view.hand_sizes,
            forbidden,
            pinned,
            any_heart_breaks,
        }
    }

    /// A deal consistent with the observation, at the same moment of play,
    /// or `None` if the constraints could not be met in a few tries.
    pub fn sample(&self, rng: &mut impl Rng) -> Option<Deal> {
        (0..32).find_map(|_| {
            if self.exchanged {
                self.try_after_exchange(rng)
            } else {
                self.try_before_exchange(rng)
            }
        })
    }

    /// While passing: the other hands are any 13 unseen cards each, and the
    /// seats that have passed chose by the rules of thumb.
    fn try_before_exchange(&self, rng: &mut impl Rng) -> Option<Deal> {
        let mine = self.hand | self.my_pass.unwrap_or_default();
        let mut rest: Vec<Card> = (!mine).iter().collect();
        rest.shuffle(rng);
        let mut hands = PerSeat::<CardSet>::default();
        hands[self.me] = mine;
        let mut cards = rest.into_iter();
        for seat in self.me.clockwise().skip(1) {
            hands[seat] = cards.by_ref().take(13).collect();
        }
        let mut deal = Deal::from_hands(hands, self.dealer, self.number)
            .ok()?
            .with_any_heart_breaks(self.any_heart_breaks);
        for &seat in &self.pass_order {
            let pass = if seat == self.me {
                self.my_pass?
            } else {
                Situation::in_deal(&deal, seat).pass()
            };
            deal.apply(seat, Action::PassCards(pass)).ok()?;
        }
        Some(deal)
    }

    fn try_after_exchange(&self, rng: &mut impl Rng) -> Option<Deal> {
        let now = self.deal_current_hands(rng)?;
        // What each seat held after the exchange.
        let held = PerSeat::from_fn(|s| now[s] | self.played_by[s]);
        let mut received = PerSeat::<CardSet>::default();
        if self.direction != PassDirection::None {
            for seat in Seat::ALL {
                received[seat] = if seat == self.me {
                    self.my_received?
                } else if self.direction.source(seat) == Some(self.me) {
                    self.my_pass?
                } else {
                    // Which of its cards a seat got is never seen; any three do.
                    let mut cards: Vec<Card> = held[seat].iter().collect();
                    cards.shuffle(rng);
                    cards.into_iter().take(3).collect()
                };
            }
        }
        let dealt = PerSeat::from_fn(|s| {
            let given = self
                .direction
                .target(s)
                .map_or(CardSet::EMPTY, |t| received[t]);
            (held[s] - received[s]) | given
        });
        let mut deal = Deal::from_hands(dealt, self.dealer, self.number)
            .ok()?
            .with_any_heart_breaks(self.any_heart_breaks);
        let mut events = Vec::new();
        for &seat in &self.pass_order {
            let to = self.direction.target(seat)?;
            deal.apply_into(seat, Action::PassCards(received[to]), &mut events)
                .ok()?;
        }
        for &(seat, card) in &self.plays {
            deal.apply_into(seat, Action::Play(card), &mut events)
                .ok()?;
        }
        Some(deal)
    }

    /// Deals the unseen cards to the other seats' hands as they are now,
    /// each card to a seat that may hold it. Cards go one by one to a seat
    /// drawn in proportion to the room left in its hand, among the seats
    /// that leave the rest of the cards placeable: with three seats, Hall's
    /// condition is seven sums to check, so a sample never paints itself
    /// into a corner.
    fn deal_current_hands(&self, rng: &mut impl Rng) -> Option<PerSeat<CardSet>> {
        let played = self.played_by.0.iter().fold(CardSet::EMPTY, |a, &p| a | p);
        let pinned = self.pinned.0.iter().fold(CardSet::EMPTY, |a, &p| a | p);
        let others: Vec<Seat> = self.me.clockwise().skip(1).collect();
        let mut need: Vec<u32> = others
            .iter()
            .map(|&s| self.hand_sizes[s].saturating_sub(self.pinned[s].len()))
            .collect();
        // A card's kind: the set of the other seats (as bits) that may hold it.
        let kind = |c: Card| {
            (0..others.len())
                .filter(|&i| !self.forbidden[others[i]].contains(c))
                .fold(0usize, |k, i| k | 1 << i)
        };
        let mut unseen: Vec<Card> = (!(self.hand | played | pinned)).iter().collect();
        let mut count = [0u32; 8];
        for &c in &unseen {
            count[kind(c)] += 1;
        }
        if !placeable(&count, &need) {
            return None;
        }
        unseen.shuffle(rng);
        let mut hands = self.pinned;
        hands[self.me] = self.hand;
        for c in unseen {
            let k = kind(c);
            count[k] -= 1;
            let mut seats: Vec<usize> = (0..others.len())
                .filter(|&i| k & 1 << i != 0 && need[i] > 0)
                .collect();
            let mut chosen = None;
            while !seats.is_empty() {
                let total: u32 = seats.iter().map(|&i| need[i]).sum();
                let mut pick = rng.random_range(0..total.max(1));
                let at = seats
                    .iter()
                    .position(|&i| {
                        let hit = pick < need[i];
                        pick = pick.saturating_sub(need[i]);
                        hit
                    })
                    .unwrap_or(0);
                let i = seats.swap_remove(at);
                need[i] -= 1;
                if placeable(&count, &need) {
                    chosen = Some(i);
                    break;
                }
                need[i] += 1;
            }
            hands[others[chosen?]].insert(c);
        }
        Some(hands)
    }
}

/// Whether cards counted by kind (`count[k]`: cards that may go to the
/// seats in bit set `k`) fit hands with room `need`, exactly: Hall's
/// condition, every group of seats has room for the cards only it may take.
fn placeable(count: &[u32; 8], need: &[u32]) -> bool {
    let n = need.len();
    let total: u32 = count.iter().sum();
    if count[0] > 0 || total != need.iter().sum::<u32>() {
        return false;
    }
    (1..1usize << n).all(|group| {
        let only_here: u32 = (1..1usize << n)
            .filter(|&k| k & !group == 0)
            .map(|k| count[k])
            .sum();
        let room: u32 = (0..n)
            .filter(|&i| group & 1 << i != 0)
            .map(|i| need[i])
            .sum();
        only_here <= room
    })
}

#[cfg(test)]
mod tests {
    use super::placeable;

    #[test]
    fn placeable_is_halls_condition() {
        // Kinds are bit sets of seats: 0b001 = only seat 0, 0b011 = 0 or 1.
        let check = |cards: &[(usize, u32)], need: [u32; 3], expect: bool| {
            let mut count = [0u32; 8];
            for &(k, n) in cards {
                count[k] = n;
            }
            assert_eq!(placeable(&count, &need), expect, "{cards:?} into {need:?}");
        };
        check(&[(0b111, 6)], [2, 2, 2], true);
        check(&[(0b001, 3), (0b111, 3)], [2, 2, 2], false);
        check(&[(0b001, 2), (0b110, 4)], [2, 2, 2], true);
        check(&[(0b011, 5), (0b100, 1)], [2, 2, 2], false);
        check(&[(0b000, 1), (0b111, 5)], [2, 2, 2], false);
        check(&[(0b111, 5)], [2, 2, 2], false);
    }
}
