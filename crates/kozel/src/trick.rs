use serde::{Deserialize, Serialize};

use super::beats;
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};

/// Whether `cards` can be paired one-to-one with `target` so that each of
/// `cards` beats its partner. Tries every pairing (at most 4! = 24).
///
/// ```
/// use kozyr_cards::{CardSet, Suit};
/// use kozyr_kozel::can_beat;
/// let s = |x: &str| x.parse::<CardSet>().unwrap();
/// // 7♥ (trump) takes the A♠ and the K♠ takes the Q♠: order does not matter.
/// assert!(can_beat(s("KS 7H"), s("AS QS"), Suit::Hearts));
/// assert!(!can_beat(s("KS 7D"), s("AS QS"), Suit::Hearts));
/// assert!(!can_beat(s("KS"), s("AS QS"), Suit::Hearts));
/// ```
pub fn can_beat(cards: CardSet, target: CardSet, trump: Suit) -> bool {
    if cards.len() != target.len() || cards.is_empty() || cards.len() > 4 {
        return false;
    }
    let mut mine = [Card::new(kozyr_cards::Rank::Two, Suit::Spades); 4];
    let mut theirs = mine;
    for (slot, c) in mine.iter_mut().zip(cards) {
        *slot = c;
    }
    for (slot, c) in theirs.iter_mut().zip(target) {
        *slot = c;
    }
    let n = cards.len() as usize;
    // `edges[i]` is the bitmask of target cards mine[i] beats.
    let mut edges = [0u8; 4];
    for (edge, &m) in edges.iter_mut().zip(&mine[..n]) {
        for (j, &t) in theirs[..n].iter().enumerate() {
            if beats(m, t, trump) {
                *edge |= 1 << j;
            }
        }
    }
    fn assign(edges: &[u8], used: u8) -> bool {
        match edges.split_first() {
            None => true,
            Some((&e, rest)) => {
                let mut free = e & !used;
                while free != 0 {
                    let bit = free & free.wrapping_neg();
                    if assign(rest, used | bit) {
                        return true;
                    }
                    free &= free - 1;
                }
                false
            }
        }
    }
    assign(&edges[..n], 0)
}

/// Cards one seat has put on the table in the current trick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Played {
    pub cards: CardSet,
    pub face_up: bool,
}

/// The trick in progress.
///
/// `leader` is whoever opened (or must open) the trick and never changes;
/// `lead_seat` is the seat whose play is the current lead — the leader, or
/// the player of a molodka. Plays go clockwise from `lead_seat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Trick {
    pub leader: Seat,
    pub lead_seat: Seat,
    /// Plays made since the current lead, the lead included (0 = not led yet).
    pub count: u8,
    pub played: PerSeat<Option<Played>>,
    /// The seat whose play currently wins, and that play.
    pub winning: Seat,
    pub winning_cards: CardSet,
    pub molodka: Option<Seat>,
}

impl Trick {
    pub fn new(leader: Seat) -> Trick {
        Trick {
            leader,
            lead_seat: leader,
            count: 0,
            played: PerSeat::default(),
            winning: leader,
            winning_cards: CardSet::EMPTY,
            molodka: None,
        }
    }

    /// Cards per play in this trick (0 before the lead).
    pub fn width(&self) -> u32 {
        self.played[self.lead_seat].map_or(0, |p| p.cards.len())
    }

    /// Whose turn it is, if the trick is still open.
    pub fn turn(&self) -> Option<Seat> {
        (self.count < 4).then(|| self.lead_seat.offset(self.count))
    }

    /// All cards on the table, face up and face down.
    pub fn cards(&self) -> CardSet {
        self.played
            .0
            .iter()
            .flatten()
            .fold(CardSet::EMPTY, |a, p| a | p.cards)
    }
}
