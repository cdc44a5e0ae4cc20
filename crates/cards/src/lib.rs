//! The card vocabulary shared by every game: [`Suit`], [`Rank`], [`Card`],
//! the [`CardSet`] bitset and the [`Seat`]s around a four-player table.
//!
//! Notation: a rank character `2 3 4 5 6 7 8 9 T J Q K A` followed by a suit
//! character `S H D C`, so `TS` is the ten of spades and `QH` the queen of
//! hearts. [`Card::glyph`] renders the same card for people (`10♠`, `Q♥`).
//!
//! Rank order here is the *natural* one (2 low, ace high). Games that order
//! ranks differently (Kozel puts the ten above the king) keep their own
//! strength tables; the bit layout of [`CardSet`] never changes.

mod card;
mod seat;
mod set;

pub use card::{Card, ParseCardError, Rank, Suit};
pub use seat::{PerSeat, Seat};
pub use set::CardSet;
