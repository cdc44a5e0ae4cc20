//! The rule-of-thumb player, and the same rules as the fast policy the
//! search plays out sampled deals with.
//!
//! The base rules are those of the best-known public Kozel bot: lead the
//! lowest card of the longest suit; beat with the cheapest combination that
//! beats, otherwise pass the lowest cards. On top of them, what Kozel players
//! know: keep trumps, lead several cards of a suit when no unseen cards can
//! beat them, pass point cards onto a trick the partner has made safe and
//! blank cards onto the opponents', play every molodka, and remember which
//! cards have gone (the revealed trump included) to judge what is safe.

use super::Observation;
use super::knowledge::Knowledge;
use crate::Agent;
use kozyr_cards::{Card, CardSet, Seat, Suit};
use kozyr_kozel::{
    Action, Deal, RANKS_LOW_TO_HIGH, Series, TableCards, Team, View, deck, points, strength,
};

/// The rule-of-thumb player. It has no state and no randomness: the same
/// observation always gives the same action.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeuristicAgent;

impl HeuristicAgent {
    pub fn new() -> HeuristicAgent {
        HeuristicAgent
    }
}

impl Agent<Series> for HeuristicAgent {
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action {
        let known = Knowledge::new(seen);
        let me = seen.seat();
        let opponents = known.possible(me.next()) | known.possible(me.prev());
        Situation::new(&seen.view.deal, opponents).choose(legal)
    }

    fn wants_out_of_turn(&mut self, seen: &Observation, _molodka: Action) -> bool {
        // Four cards of a suit are beaten only by a hand of four beaters:
        // the molodka almost always takes sixteen cards, so play it — unless
        // the partner's play is winning the trick: then it can wait for this
        // seat's own turn, and the partner's trick is not taken back.
        let d = &seen.view.deal;
        let partner = seen.seat().across();
        d.winning.is_none_or(|(w, _)| w != partner)
    }
}

/// The trick as the rules of thumb see it.
#[derive(Clone, Copy, Debug)]
struct Answer {
    width: u32,
    winner: Seat,
    winning: CardSet,
    /// Points of the face-up cards on the table.
    table_points: u32,
    face_down: u32,
    /// Whether an opponent still plays after this seat in this trick.
    opponent_after: bool,
}

/// What the rules look at: one seat's hand, the cards whose place it does
/// not know, and the trick.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Situation {
    me: Seat,
    trump: Suit,
    hand: CardSet,
    /// Cards an opponent might hold.
    unseen: CardSet,
    answer: Option<Answer>,
}

impl Situation {
    pub fn new(view: &View, unseen: CardSet) -> Situation {
        let me = view.seat;
        let answer = view.winning.map(|(winner, winning)| {
            let mut table_points = 0;
            let mut face_down = 0;
            let mut played = 0u8;
            for (_, t) in view.table.iter() {
                match t {
                    Some(TableCards::FaceUp(c)) => {
                        table_points += c.iter().map(points).sum::<u32>();
                        played += 1;
                    }
                    Some(TableCards::FaceDown(n)) => {
                        face_down += n;
                        played += 1;
                    }
                    None => {}
                }
            }
            // Plays go clockwise from the lead; `played` seats have played.
            let after = 3u8.saturating_sub(played);
            let opponent_after = (1..=after).any(|n| Team::of(me.offset(n)) != Team::of(me));
            Answer {
                width: view.width,
                winner,
                winning,
                table_points,
                face_down,
                opponent_after,
            }
        });
        Situation {
            me,
            trump: view.trump_card.suit(),
            hand: view.hand,
            unseen,
            answer,
        }
    }

    /// The situation of `seat` in a deal the search has sampled: the cards
    /// it does not know are all those not in its hand and not yet taken.
    pub fn in_deal(deal: &Deal, seat: Seat) -> Situation {
        let view = deal.view(seat);
        let taken = deal.pile(Team::ALL[0]) | deal.pile(Team::ALL[1]);
        let unseen = deck() - view.hand - taken - deal.table_cards();
        Situation::new(&view, unseen)
    }

    /// The action the rules pick among `legal` (never empty).
    pub fn choose(&self, legal: &[Action]) -> Action {
        let wanted = if legal.contains(&Action::Molodka) {
            Action::Molodka
        } else {
            match self.answer {
                None => self.lead(),
                Some(a) => self.answer(&a, legal),
            }
        };
        if legal.contains(&wanted) {
            wanted
        } else {
            legal[0]
        }
    }

    fn lead(&self) -> Action {
        // The largest set no unseen cards can beat wins the trick for sure.
        let mut best_safe: Option<(u32, u32, CardSet)> = None;
        for suit in Suit::ALL {
            let cards = self.hand.of_suit(suit);
            for_each_subset(cards, |s| {
                if !beatable(s, self.unseen, self.trump) {
                    let key = (s.len(), points_of(s), s);
                    if best_safe.is_none_or(|b| (key.0, key.1) > (b.0, b.1)) {
                        best_safe = Some(key);
                    }
                }
            });
        }
        if let Some((_, _, s)) = best_safe {
            return Action::Lead(s);
        }
        // Fish with a low card of the longest side suit; keep trumps.
        let side = self.hand - self.hand.of_suit(self.trump);
        let pool = if side.is_empty() { self.hand } else { side };
        let card = pool.iter().min_by_key(|&c| {
            let suit_len = pool.of_suit(c.suit()).len();
            (points(c), 4 - suit_len, kozel_strength(c))
        });
        card.map_or(Action::Lead(self.hand), |c| {
            Action::Lead(CardSet::single(c))
        })
    }

    fn answer(&self, a: &Answer, legal: &[Action]) -> Action {
        let k = a.width;
        if Team::of(a.winner) == Team::of(self.me) {
            let safe = !a.opponent_after || !beatable(a.winning, self.unseen, self.trump);
            return if safe {
                Action::Pass(self.gift(k))
            } else {
                Action::Pass(self.cheapest(k))
            };
        }
        let beat = legal
            .iter()
            .filter_map(|&x| match x {
                Action::Beat(c) => Some(c),
                _ => None,
            })
            .min_by_key(|&c| self.beat_cost(c, a.opponent_after));
        let Some(beat) = beat else {
            return Action::Pass(self.cheapest(k));
        };
        let safe = !a.opponent_after || !beatable(beat, self.unseen, self.trump);
        let uses_trump = !beat.of_suit(self.trump).is_empty();
        let at_stake = a.table_points + a.face_down;
        let worth = if safe {
            at_stake > 0 || !uses_trump || points_of(beat) > 0
        } else {
            // An opponent may still beat it: risk only cheap cards.
            points_of(beat) < 10 && (at_stake >= 3 || !uses_trump)
        };
        if worth {
            Action::Beat(beat)
        } else {
            Action::Pass(self.cheapest(k))
        }
    }

    /// How much keeping `c` is worth: trumps and high cards, and points.
    fn keep_value(&self, c: Card) -> u32 {
        let s = kozel_strength(c);
        if c.suit() == self.trump {
            40 + 4 * s + points(c)
        } else {
            s + 2 * points(c)
        }
    }

    /// What beating with `cards` costs. A beat that cannot be taken back
    /// banks its own points, so point cards are then the cheapest to use.
    fn beat_cost(&self, cards: CardSet, risky: bool) -> i64 {
        cards
            .iter()
            .map(|c| {
                let keep = i64::from(self.keep_value(c));
                if !risky && c.suit() != self.trump {
                    keep - 3 * i64::from(points(c))
                } else {
                    keep
                }
            })
            .sum()
    }

    /// The `k` cards least worth keeping.
    fn cheapest(&self, k: u32) -> CardSet {
        self.pick(k, |c| self.keep_value(c) as i64)
    }

    /// `k` cards to pass onto the partner's safe trick: side-suit points first.
    fn gift(&self, k: u32) -> CardSet {
        self.pick(k, |c| {
            if c.suit() == self.trump {
                1000 + self.keep_value(c) as i64
            } else {
                -(points(c) as i64) * 10 + kozel_strength(c) as i64
            }
        })
    }

    fn pick(&self, k: u32, key: impl Fn(Card) -> i64) -> CardSet {
        let mut cards: Vec<Card> = self.hand.iter().collect();
        cards.sort_by_key(|&c| key(c));
        cards.into_iter().take(k as usize).collect()
    }
}

fn kozel_strength(c: Card) -> u32 {
    strength(c.rank()).map_or(0, u32::from)
}

fn points_of(cards: CardSet) -> u32 {
    cards.iter().map(points).sum()
}

/// The cards that beat `c`: higher cards of its suit, and every trump if it is not one.
pub(crate) fn beaters(c: Card, trump: Suit) -> CardSet {
    let s = strength(c.rank()).map_or(0, usize::from);
    let mut out: CardSet = RANKS_LOW_TO_HIGH[s + 1..]
        .iter()
        .map(|&r| Card::new(r, c.suit()))
        .collect();
    if c.suit() != trump {
        out |= deck().of_suit(trump);
    }
    out
}

/// Whether some cards of `pool` could beat `cards`: by Hall's theorem, a
/// one-to-one beating exists when every group of the cards has at least as
/// many beaters in the pool as it has members.
pub(crate) fn beatable(cards: CardSet, pool: CardSet, trump: Suit) -> bool {
    let mut each = [CardSet::EMPTY; 4];
    let n = cards.len().min(4) as usize;
    for (slot, c) in each.iter_mut().zip(cards) {
        *slot = beaters(c, trump) & pool;
    }
    (1u32..(1 << n)).all(|group| {
        let reach = (0..n)
            .filter(|i| group & (1 << i) != 0)
            .fold(CardSet::EMPTY, |a, i| a | each[i]);
        reach.len() >= group.count_ones()
    })
}

/// Calls `f` with every non-empty subset of `set`.
pub(crate) fn for_each_subset(set: CardSet, mut f: impl FnMut(CardSet)) {
    let mask = set.bits();
    let mut sub = mask;
    while sub != 0 {
        f(CardSet::from_bits_truncate(sub));
        sub = (sub - 1) & mask;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> CardSet {
        s.parse().unwrap()
    }

    #[test]
    fn beatable_follows_halls_condition() {
        let h = Suit::Hearts;
        let check = |led: &str, pool: &str, expect: bool| {
            assert_eq!(
                beatable(cards(led), cards(pool), h),
                expect,
                "{led} vs {pool}"
            );
        };
        check("AS", "TS KS", false);
        check("KS", "TS", true);
        check("AS", "6H", true);
        check("AH", "TH 6S", false);
        // Two cards need two different beaters.
        check("QS JS", "KS", false);
        check("QS JS", "KS 6H", true);
        check("AS KS", "TS 6H", true);
        check("AS KS", "QS 6H", false);
        check("TH KH", "AH", false);
    }
}
