use std::fmt;
use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

/// One of the four seats, numbered 0–3 clockwise. Only valid seats exist:
/// the field is private and deserialization checks the range.
///
/// ```
/// use kozyr_cards::Seat;
/// let s = Seat::new(3).unwrap();
/// assert_eq!(s.next(), Seat::new(0).unwrap());
/// assert_eq!(s.across(), Seat::new(1).unwrap());
/// assert!(Seat::new(4).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Seat(u8);

impl Seat {
    pub const ALL: [Seat; 4] = [Seat(0), Seat(1), Seat(2), Seat(3)];

    pub const fn new(i: u8) -> Option<Seat> {
        if i < 4 { Some(Seat(i)) } else { None }
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The next seat clockwise (the player to the left).
    pub const fn next(self) -> Seat {
        Seat((self.0 + 1) & 3)
    }

    /// The previous seat clockwise (the player to the right).
    pub const fn prev(self) -> Seat {
        Seat((self.0 + 3) & 3)
    }

    /// The seat opposite, a partner in team games.
    pub const fn across(self) -> Seat {
        Seat((self.0 + 2) & 3)
    }

    /// The seat `n` places clockwise from this one.
    pub const fn offset(self, n: u8) -> Seat {
        Seat((self.0 + (n & 3)) & 3)
    }

    /// How many places clockwise `other` is from this seat (0–3).
    pub const fn distance_to(self, other: Seat) -> u8 {
        (other.0 + 4 - self.0) & 3
    }

    /// The four seats clockwise, starting with this one.
    pub fn clockwise(self) -> impl Iterator<Item = Seat> {
        (0..4).map(move |n| self.offset(n))
    }
}

impl TryFrom<u8> for Seat {
    type Error = String;
    fn try_from(i: u8) -> Result<Seat, String> {
        Seat::new(i).ok_or_else(|| format!("seat {i} does not exist (seats are 0-3)"))
    }
}

impl From<Seat> for u8 {
    fn from(s: Seat) -> u8 {
        s.0
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One value per seat, indexed by [`Seat`] rather than a bare `usize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PerSeat<T>(pub [T; 4]);

impl<T> PerSeat<T> {
    pub fn from_fn(mut f: impl FnMut(Seat) -> T) -> PerSeat<T> {
        PerSeat([f(Seat(0)), f(Seat(1)), f(Seat(2)), f(Seat(3))])
    }

    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        Seat::ALL.into_iter().zip(self.0.iter())
    }

    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> PerSeat<U> {
        PerSeat::from_fn(|s| f(&self[s]))
    }
}

impl<T> Index<Seat> for PerSeat<T> {
    type Output = T;
    fn index(&self, s: Seat) -> &T {
        &self.0[s.index()]
    }
}

impl<T> IndexMut<Seat> for PerSeat<T> {
    fn index_mut(&mut self, s: Seat) -> &mut T {
        &mut self.0[s.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_arithmetic() {
        let s = |i| Seat::new(i).unwrap();
        assert_eq!(s(0).distance_to(s(3)), 3);
        assert_eq!(s(3).distance_to(s(0)), 1);
        assert_eq!(s(2).prev(), s(1));
        assert_eq!(
            s(1).clockwise().collect::<Vec<_>>(),
            vec![s(1), s(2), s(3), s(0)]
        );
        assert!(serde_json::from_str::<Seat>("4").is_err());
        assert_eq!(serde_json::from_str::<Seat>("2").unwrap(), s(2));
    }
}
