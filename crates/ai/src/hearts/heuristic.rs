//! The rule-of-thumb Hearts player, and the same rules as the fast policy
//! the search plays out sampled deals with.
//!
//! Passing: get rid of the Q♠ (and the A♠ and K♠ that would catch it)
//! unless enough low spades protect it, of high hearts, and of the cards of
//! a short side suit, to be void in it. Playing: duck — follow with the
//! highest card that still loses the trick; when a trick cannot be ducked,
//! take it as cheaply as possible; when void, throw the Q♠, then the spades
//! that would catch it, then high hearts, then high cards.

use super::Observation;
use crate::Agent;
use kozyr_cards::{Card, CardSet, Rank, Seat, Suit};
use kozyr_hearts::{
    Action, DealView, Match, PASS_SIZE, POINT_CARDS, Phase, QUEEN_OF_SPADES, SeenEvent, points_of,
};

/// The rule-of-thumb player: no state, no randomness.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeuristicAgent;

impl HeuristicAgent {
    pub fn new() -> HeuristicAgent {
        HeuristicAgent
    }
}

impl Agent<Match> for HeuristicAgent {
    fn choose(&mut self, seen: &Observation, legal: &[Action]) -> Action {
        let situation = Situation::new(&seen.view.deal, voids(&seen.history));
        situation.choose(legal)
    }
}

/// The suits in which some other seat has shown out, from the history.
pub(crate) fn voids(history: &[SeenEvent]) -> [bool; 4] {
    let mut void = [false; 4];
    let mut led: Option<Suit> = None;
    let mut count = 0;
    for e in history {
        if let SeenEvent::Play { card, .. } = *e {
            match led {
                None => led = Some(card.suit()),
                Some(l) if card.suit() != l => void[l as usize] = true,
                Some(_) => {}
            }
            count += 1;
            if count % 4 == 0 {
                led = None;
            }
        }
    }
    void
}

/// What the rules look at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Situation {
    hand: CardSet,
    phase: Phase,
    /// The led card and the card winning the trick, once led.
    led: Option<Card>,
    winning: Option<Card>,
    table_points: u32,
    /// Seats still to play after this one in the trick.
    after_me: u8,
    played: CardSet,
    voids: [bool; 4],
}

impl Situation {
    pub fn new(view: &DealView, voids: [bool; 4]) -> Situation {
        let mut led = None;
        let mut winning: Option<Card> = None;
        let mut on_table = CardSet::EMPTY;
        let mut count = 0u8;
        if let Some(leader) = view.leader {
            for seat in leader.clockwise() {
                let Some(c) = view.table[seat] else { break };
                count += 1;
                on_table.insert(c);
                let l = *led.get_or_insert(c);
                if c.suit() == l.suit() && winning.is_none_or(|w| c.rank() > w.rank()) {
                    winning = Some(c);
                }
            }
        }
        Situation {
            hand: view.hand,
            phase: view.phase,
            led,
            winning,
            table_points: points_of(on_table),
            after_me: 3u8.saturating_sub(count),
            played: view.played,
            voids,
        }
    }

    /// The situation of `seat` in a deal the search has sampled.
    pub fn in_deal(deal: &kozyr_hearts::Deal, seat: Seat) -> Situation {
        Situation::new(&deal.view(seat), [false; 4])
    }

    /// The action the rules pick among `legal` (never empty).
    pub fn choose(&self, legal: &[Action]) -> Action {
        let wanted = if self.phase == Phase::Passing {
            Action::PassCards(self.pass())
        } else {
            let plays: CardSet = legal
                .iter()
                .filter_map(|a| match a {
                    Action::Play(c) => Some(*c),
                    Action::PassCards(_) => None,
                })
                .collect();
            match self.play(plays) {
                Some(c) => Action::Play(c),
                None => legal[0],
            }
        };
        if legal.contains(&wanted) {
            wanted
        } else {
            legal[0]
        }
    }

    fn queen_out(&self) -> bool {
        !self.played.contains(QUEEN_OF_SPADES) && !self.hand.contains(QUEEN_OF_SPADES)
    }

    /// The three cards to pass: the most dangerous ones to keep.
    pub fn pass(&self) -> CardSet {
        self.ranked_for_passing()
            .into_iter()
            .take(PASS_SIZE as usize)
            .collect()
    }

    /// The hand, the most dangerous cards to keep first.
    pub fn ranked_for_passing(&self) -> Vec<Card> {
        let low_spades = self
            .hand
            .of_suit(Suit::Spades)
            .iter()
            .filter(|c| c.rank() < Rank::Queen)
            .count();
        let protected = low_spades >= 4;
        let danger = |c: Card| -> i32 {
            let r = c.rank() as i32;
            let len = self.hand.of_suit(c.suit()).len() as i32;
            match c.suit() {
                Suit::Spades if c == QUEEN_OF_SPADES => {
                    if protected {
                        10
                    } else {
                        100
                    }
                }
                Suit::Spades if c.rank() > Rank::Queen => {
                    if protected {
                        8
                    } else {
                        80 + r
                    }
                }
                Suit::Spades => r - 10,
                Suit::Hearts => 15 + 3 * r,
                _ => 2 * r + if len <= 3 { 20 - 4 * len } else { 0 },
            }
        };
        let mut cards: Vec<Card> = self.hand.iter().collect();
        cards.sort_by_key(|&c| std::cmp::Reverse(danger(c)));
        cards
    }

    fn play(&self, legal: CardSet) -> Option<Card> {
        let queen_out = self.queen_out();
        let highest = |s: CardSet| s.iter().max_by_key(|c| c.rank());
        let lowest = |s: CardSet| s.iter().min_by_key(|c| c.rank());
        let big_spades = CardSet::suit_with_ranks(Suit::Spades, &[Rank::King, Rank::Ace]);
        let queen = CardSet::single(QUEEN_OF_SPADES);

        let (Some(led), Some(winning)) = (self.led, self.winning) else {
            // Lead the card least likely to win a trick worth points.
            return legal.iter().min_by_key(|&c| self.lead_risk(c, queen_out));
        };
        let follow = legal.of_suit(led.suit());
        if !follow.is_empty() {
            if led.suit() == Suit::Spades
                && follow.contains(QUEEN_OF_SPADES)
                && winning.rank() > Rank::Queen
            {
                return Some(QUEEN_OF_SPADES);
            }
            let below: CardSet = follow
                .iter()
                .filter(|c| c.rank() < winning.rank())
                .collect();
            if let Some(c) = highest(below) {
                return Some(c);
            }
            // Every card takes the lead: take it cheaply, keeping the queen.
            let safe = non_empty_or(follow - queen, follow);
            let fresh = (self.played.of_suit(led.suit()).len()) < 4;
            return if self.after_me == 0 || (fresh && self.table_points == 0) {
                let no_catchers = if queen_out && led.suit() == Suit::Spades {
                    non_empty_or(safe - big_spades, safe)
                } else {
                    safe
                };
                highest(no_catchers)
            } else {
                lowest(safe)
            };
        }
        // Void in the led suit: throw what hurts.
        if legal.contains(QUEEN_OF_SPADES) {
            return Some(QUEEN_OF_SPADES);
        }
        if !self.played.contains(QUEEN_OF_SPADES)
            && let Some(c) = highest(legal & big_spades)
        {
            return Some(c);
        }
        if let Some(c) = highest(legal.of_suit(Suit::Hearts)) {
            return Some(c);
        }
        legal.iter().max_by_key(|&c| {
            let len = self.hand.of_suit(c.suit()).len() as i32;
            (c.rank() as i32) * 2 - len
        })
    }

    /// How likely leading `c` is to cost points; lower is better.
    fn lead_risk(&self, c: Card, queen_out: bool) -> i32 {
        let r = c.rank() as i32;
        let outside = !(self.hand | self.played);
        let higher_out = outside
            .of_suit(c.suit())
            .iter()
            .filter(|o| o.rank() > c.rank())
            .count();
        let mut risk = r;
        if higher_out == 0 {
            risk += 15;
        }
        if c == QUEEN_OF_SPADES {
            risk += 100;
        } else if c.suit() == Suit::Spades && queen_out {
            risk += if c.rank() > Rank::Queen { 60 } else { -3 };
        }
        if c.suit() == Suit::Hearts {
            risk += 4;
        }
        if self.voids[c.suit() as usize] {
            risk += 5;
        }
        if POINT_CARDS.contains(c) && higher_out == 0 {
            risk += 10;
        }
        risk
    }
}

fn non_empty_or(a: CardSet, b: CardSet) -> CardSet {
    if a.is_empty() { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kozyr_cards::PerSeat;
    use kozyr_hearts::PassDirection;

    fn view(hand: &str, table: &[&str], played: &str) -> DealView {
        let leader = Seat::ALL[1];
        let mut t = PerSeat([None; 4]);
        for (i, c) in table.iter().enumerate() {
            t[leader.offset(i as u8)] = Some(c.parse().unwrap());
        }
        let me = leader.offset(table.len() as u8);
        DealView {
            seat: me,
            number: 4,
            dealer: Seat::ALL[0],
            phase: Phase::Playing,
            pass_direction: PassDirection::None,
            hand: hand.parse().unwrap(),
            passed: None,
            received: None,
            has_passed: PerSeat([false; 4]),
            leader: Some(leader),
            to_act: Some(me),
            table: t,
            hearts_broken: true,
            points_taken: PerSeat([0; 4]),
            tricks_won: PerSeat([0; 4]),
            tricks_played: 3,
            played: played.parse::<CardSet>().unwrap()
                | table.iter().map(|c| c.parse::<Card>().unwrap()).collect(),
            hand_sizes: PerSeat([10; 4]),
            last_trick: None,
        }
    }

    fn play(hand: &str, table: &[&str]) -> String {
        let v = view(hand, table, "2C 3C 4C 5C");
        let legal: Vec<Action> = {
            let h = v.hand;
            let follow = table
                .first()
                .map(|c| h.of_suit(c.parse::<Card>().unwrap().suit()))
                .unwrap_or_default();
            let cards = if follow.is_empty() { h } else { follow };
            cards.iter().map(Action::Play).collect()
        };
        match Situation::new(&v, [false; 4]).choose(&legal) {
            Action::Play(c) => c.to_string(),
            Action::PassCards(s) => s.to_string(),
        }
    }

    #[test]
    fn ducks_dumps_and_discards() {
        // Duck under the winning card with the highest card that still loses.
        assert_eq!(play("3D 9D KD 4S", &["TD"]), "9D");
        // Cannot duck, last to play: take it with the highest card.
        assert_eq!(play("QD KD 4S", &["TD", "2D", "3D"]), "KD");
        // The queen of spades goes onto a king or ace of spades.
        assert_eq!(play("QS 3S 4H", &["KS"]), "QS");
        // Void: the queen first, then high hearts.
        assert_eq!(play("QS AH 4S", &["TD"]), "QS");
        assert_eq!(play("AH 3H 4S", &["TD"]), "AH");
    }

    #[test]
    fn passes_the_dangerous_cards() {
        let mut v = view("QS AS 3S 2H KH 4D 5D 6D 7D 8C 9C TC JC", &[], "");
        v.phase = Phase::Passing;
        let s = Situation::new(&v, [false; 4]);
        assert_eq!(s.pass().to_string(), "QS AS KH");
        // Well protected by low spades, the queen stays.
        v.hand = "QS 2S 3S 4S 5S AH KH 4D 5D 6D 8C 9C TC".parse().unwrap();
        let s = Situation::new(&v, [false; 4]);
        assert_eq!(s.pass().to_string(), "KH AH TC");
    }
}
