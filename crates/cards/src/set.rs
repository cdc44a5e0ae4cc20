use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign, Not, Sub};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Card, Rank, Suit};

/// A set of cards as a 64-bit mask: suit `s` owns bits `16*s .. 16*s+13`,
/// rank order inside a lane is natural (two lowest). Every operation is a
/// few instructions, which is what lets the AI play out many deals.
///
/// ```
/// use kozyr_cards::{CardSet, Suit};
/// let hand: CardSet = "AS TS 6H".parse().unwrap();
/// assert_eq!(hand.len(), 3);
/// assert_eq!(hand.of_suit(Suit::Spades).len(), 2);
/// assert_eq!(hand.to_string(), "TS AS 6H");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u64);

const LANE: u64 = 0x1FFF;
const ALL_52: u64 = LANE | (LANE << 16) | (LANE << 32) | (LANE << 48);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);
    /// The full 52-card deck.
    pub const FULL: CardSet = CardSet(ALL_52);

    /// The raw mask; only bits of real cards are ever set.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Builds a set from a raw mask, dropping bits that name no card.
    pub const fn from_bits_truncate(bits: u64) -> CardSet {
        CardSet(bits & ALL_52)
    }

    pub const fn single(c: Card) -> CardSet {
        CardSet(1 << c.index())
    }

    /// All cards of one suit whose rank is in `ranks`.
    pub fn suit_with_ranks(suit: Suit, ranks: &[Rank]) -> CardSet {
        ranks
            .iter()
            .map(|&r| CardSet::single(Card::new(r, suit)))
            .fold(CardSet::EMPTY, |a, b| a | b)
    }

    /// The cards of every suit whose rank is in `ranks` (a short deck).
    pub fn deck_of_ranks(ranks: &[Rank]) -> CardSet {
        Suit::ALL
            .iter()
            .map(|&s| CardSet::suit_with_ranks(s, ranks))
            .fold(CardSet::EMPTY, |a, b| a | b)
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn contains(self, c: Card) -> bool {
        self.0 & (1 << c.index()) != 0
    }

    pub const fn is_subset(self, other: CardSet) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn insert(&mut self, c: Card) {
        self.0 |= 1 << c.index();
    }

    pub fn remove(&mut self, c: Card) {
        self.0 &= !(1 << c.index());
    }

    pub const fn of_suit(self, s: Suit) -> CardSet {
        CardSet(self.0 & (LANE << (16 * s.index() as u32)))
    }

    /// Whether every card belongs to one suit (false for the empty set).
    pub fn is_one_suit(self) -> bool {
        !self.is_empty() && Suit::ALL.iter().any(|&s| self.of_suit(s) == self)
    }

    /// The lowest card by index (suit lane first, then natural rank).
    pub const fn first(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Card::from_index(self.0.trailing_zeros() as u8)
        }
    }

    /// The highest card by index.
    pub const fn last(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Card::from_index(63 - self.0.leading_zeros() as u8)
        }
    }

    /// Cards in index order: by suit (S, H, D, C), then by natural rank.
    pub fn iter(self) -> Iter {
        Iter(self.0)
    }
}

/// Iterator over a [`CardSet`] in index order.
#[derive(Clone, Debug)]
pub struct Iter(u64);

impl Iterator for Iter {
    type Item = Card;
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Card::from_index(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter {}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = Iter;
    fn into_iter(self) -> Iter {
        self.iter()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(it: I) -> CardSet {
        let mut s = CardSet::EMPTY;
        for c in it {
            s.insert(c);
        }
        s
    }
}

impl<'a> FromIterator<&'a Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = &'a Card>>(it: I) -> CardSet {
        it.into_iter().copied().collect()
    }
}

impl From<Card> for CardSet {
    fn from(c: Card) -> CardSet {
        CardSet::single(c)
    }
}

impl BitOr for CardSet {
    type Output = CardSet;
    fn bitor(self, o: CardSet) -> CardSet {
        CardSet(self.0 | o.0)
    }
}

impl BitOrAssign for CardSet {
    fn bitor_assign(&mut self, o: CardSet) {
        self.0 |= o.0;
    }
}

impl BitAnd for CardSet {
    type Output = CardSet;
    fn bitand(self, o: CardSet) -> CardSet {
        CardSet(self.0 & o.0)
    }
}

impl Sub for CardSet {
    type Output = CardSet;
    fn sub(self, o: CardSet) -> CardSet {
        CardSet(self.0 & !o.0)
    }
}

impl Not for CardSet {
    type Output = CardSet;
    /// The complement within the 52-card deck.
    fn not(self) -> CardSet {
        CardSet(!self.0 & ALL_52)
    }
}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{self}}}")
    }
}

impl std::str::FromStr for CardSet {
    type Err = super::ParseCardError;
    /// Cards separated by spaces or commas: `"AS TS 6H"`.
    fn from_str(s: &str) -> Result<CardSet, Self::Err> {
        s.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(str::parse::<Card>)
            .collect()
    }
}

/// Serialized as a list of cards in index order, e.g. `["TS","AS"]`.
impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let v = Vec::<Card>::deserialize(d)?;
        Ok(v.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_deck_has_52_and_iterates_in_order() {
        assert_eq!(CardSet::FULL.len(), 52);
        let v: Vec<Card> = CardSet::FULL.iter().collect();
        assert!(v.windows(2).all(|w| w[0] < w[1]));
        assert_eq!((!CardSet::EMPTY), CardSet::FULL);
    }

    #[test]
    fn set_algebra() {
        let a: CardSet = "AS KS 6H".parse().unwrap();
        let b: CardSet = "KS 6H 7D".parse().unwrap();
        assert_eq!((a & b).to_string(), "KS 6H");
        assert_eq!((a - b).to_string(), "AS");
        assert_eq!((a | b).len(), 4);
        assert!(!a.is_one_suit());
        assert!(a.of_suit(Suit::Spades).is_one_suit());
        assert_eq!(a.first().unwrap().to_string(), "KS");
        assert_eq!(a.last().unwrap().to_string(), "6H");
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"["KS","AS","6H"]"#);
        assert_eq!(serde_json::from_str::<CardSet>(&json).unwrap(), a);
    }
}
