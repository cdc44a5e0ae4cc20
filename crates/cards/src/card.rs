use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One of the four suits. The discriminant is the suit's lane in a [`crate::CardSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Suit {
    Spades = 0,
    Hearts = 1,
    Diamonds = 2,
    Clubs = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    /// The notation character: `S`, `H`, `D` or `C`.
    pub const fn char(self) -> char {
        match self {
            Suit::Spades => 'S',
            Suit::Hearts => 'H',
            Suit::Diamonds => 'D',
            Suit::Clubs => 'C',
        }
    }

    /// The suit symbol for people: `♠ ♥ ♦ ♣`.
    pub const fn glyph(self) -> char {
        match self {
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
            Suit::Diamonds => '♦',
            Suit::Clubs => '♣',
        }
    }

    pub const fn from_char(c: char) -> Option<Suit> {
        match c {
            'S' | 's' => Some(Suit::Spades),
            'H' | 'h' => Some(Suit::Hearts),
            'D' | 'd' => Some(Suit::Diamonds),
            'C' | 'c' => Some(Suit::Clubs),
            _ => None,
        }
    }

    pub(crate) const fn index(self) -> u8 {
        self as u8
    }

    pub(crate) const fn from_index(i: u8) -> Suit {
        Suit::ALL[(i & 3) as usize]
    }
}

/// A rank, in natural order (two lowest, ace highest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Rank {
    Two = 0,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
}

impl Rank {
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The notation character: `2`–`9`, `T`, `J`, `Q`, `K`, `A`.
    pub const fn char(self) -> char {
        b"23456789TJQKA"[self as usize] as char
    }

    pub const fn from_char(c: char) -> Option<Rank> {
        let i = match c {
            '2'..='9' => c as u8 - b'2',
            'T' | 't' => 8,
            'J' | 'j' => 9,
            'Q' | 'q' => 10,
            'K' | 'k' => 11,
            'A' | 'a' => 12,
            _ => return None,
        };
        Some(Rank::ALL[i as usize])
    }

    /// How people write the rank: `10` rather than `T`.
    pub const fn label(self) -> &'static str {
        [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
        ][self as usize]
    }

    pub(crate) const fn index(self) -> u8 {
        self as u8
    }
}

/// A playing card. Small and `Copy`; its index is `suit * 16 + rank`, the
/// same bit it occupies in a [`crate::CardSet`].
///
/// ```
/// use kozyr_cards::{Card, Rank, Suit};
/// let c: Card = "TS".parse().unwrap();
/// assert_eq!(c, Card::new(Rank::Ten, Suit::Spades));
/// assert_eq!(c.to_string(), "TS");
/// assert_eq!(c.glyph(), "10♠");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(suit.index() * 16 + rank.index())
    }

    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 & 15) as usize]
    }

    pub const fn suit(self) -> Suit {
        Suit::from_index(self.0 >> 4)
    }

    /// The bit index of this card in a [`crate::CardSet`] (0..64).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The inverse of [`Card::index`]; `None` for an index that names no card.
    pub const fn from_index(i: u8) -> Option<Card> {
        if i < 64 && (i & 15) < 13 {
            Some(Card(i))
        } else {
            None
        }
    }

    /// The card as people write it: `10♠`, `Q♥`.
    pub fn glyph(self) -> String {
        format!("{}{}", self.rank().label(), self.suit().glyph())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().char(), self.suit().char())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a string is not a card.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a card (expected rank 2-9/T/J/Q/K/A then suit S/H/D/C, e.g. `TS`)")]
pub struct ParseCardError(pub String);

impl FromStr for Card {
    type Err = ParseCardError;

    /// Accepts `TS`, and `10S` as a courtesy.
    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let err = || ParseCardError(s.chars().take(16).collect());
        let (rank, suit) = match s.as_bytes() {
            [b'1', b'0', _] => (Some(Rank::Ten), s[2..].chars().next()),
            [_, _] => {
                let mut it = s.chars();
                (it.next().and_then(Rank::from_char), it.next())
            }
            _ => return Err(err()),
        };
        match (rank, suit.and_then(Suit::from_char)) {
            (Some(r), Some(su)) => Ok(Card::new(r, su)),
            _ => Err(err()),
        }
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 2];
        self.rank().char().encode_utf8(&mut buf[..1]);
        self.suit().char().encode_utf8(&mut buf[1..]);
        // Both characters are ASCII, so this cannot fail.
        s.serialize_str(std::str::from_utf8(&buf).unwrap_or("??"))
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_for_every_card() {
        for suit in Suit::ALL {
            for rank in Rank::ALL {
                let c = Card::new(rank, suit);
                assert_eq!(c.rank(), rank);
                assert_eq!(c.suit(), suit);
                assert_eq!(c.to_string().parse::<Card>(), Ok(c));
                assert_eq!(Card::from_index(c.index()), Some(c));
                let json = serde_json::to_string(&c).unwrap();
                assert_eq!(serde_json::from_str::<Card>(&json).unwrap(), c);
            }
        }
    }

    #[test]
    fn parse_rejects_junk_and_accepts_ten() {
        for bad in ["", "T", "TX", "1S", "XS", "TSS", "10", "10SS", "♠T", "ŢS"] {
            assert!(bad.parse::<Card>().is_err(), "{bad:?} parsed");
        }
        assert_eq!("10H".parse::<Card>().unwrap().to_string(), "TH");
        assert_eq!("qh".parse::<Card>().unwrap().glyph(), "Q♥");
    }

    #[test]
    fn from_index_rejects_holes() {
        assert_eq!(Card::from_index(13), None);
        assert_eq!(Card::from_index(64), None);
    }
}
