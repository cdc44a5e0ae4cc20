//! The Kozel ("Goat") rules engine: the 36-card, 4-card-hand street variant.
//!
//! Pure and deterministic: [`Deal::apply`] and [`Series::apply`] take a seat
//! and an [`Action`], and either return the [`Event`]s that happened or a
//! [`RuleError`] — in which case nothing changed. Randomness comes in only as
//! a seed ([`Series::new`]) or an explicit deck ([`Deal::new`]). The engine
//! does no IO and never reads the clock. `docs/RULES.md` states the rules.

mod deal;
mod record;
mod seen;
mod series;
mod trick;

use serde::{Deserialize, Serialize};

use kozyr_cards::{Card, CardSet, Rank, Seat, Suit};

pub use deal::{Deal, DealError, DealResult, Deck, DeckError, TableCards, View};
pub use record::KozelRecord;
pub use seen::SeenEvent;
pub use series::{SERIES_LOSS, Series, SeriesView};
pub use trick::can_beat;

/// Kozel's ranks from low to high: the ten ranks above the king.
pub const RANKS_LOW_TO_HIGH: [Rank; 9] = [
    Rank::Six,
    Rank::Seven,
    Rank::Eight,
    Rank::Nine,
    Rank::Jack,
    Rank::Queen,
    Rank::King,
    Rank::Ten,
    Rank::Ace,
];

/// Cards in a hand when it is full.
pub const HAND_SIZE: u32 = 4;
/// Points in a deal, summed over all 36 cards.
pub const DEAL_POINTS: u32 = 120;

/// The 36-card Kozel deck.
pub fn deck() -> CardSet {
    CardSet::deck_of_ranks(&RANKS_LOW_TO_HIGH)
}

/// Position of a rank in Kozel's order (6 → 0 … A → 8); `None` for ranks not in the deck.
pub const fn strength(rank: Rank) -> Option<u8> {
    match rank {
        Rank::Six => Some(0),
        Rank::Seven => Some(1),
        Rank::Eight => Some(2),
        Rank::Nine => Some(3),
        Rank::Jack => Some(4),
        Rank::Queen => Some(5),
        Rank::King => Some(6),
        Rank::Ten => Some(7),
        Rank::Ace => Some(8),
        _ => None,
    }
}

/// Card points: 6–9 → 0, J → 2, Q → 3, K → 4, 10 → 10, A → 11.
///
/// ```
/// use kozyr_kozel::{deck, points};
/// assert_eq!(deck().iter().map(points).sum::<u32>(), 120);
/// ```
pub const fn points(card: Card) -> u32 {
    match card.rank() {
        Rank::Jack => 2,
        Rank::Queen => 3,
        Rank::King => 4,
        Rank::Ten => 10,
        Rank::Ace => 11,
        _ => 0,
    }
}

/// Points of every card in a set.
pub fn points_of(cards: CardSet) -> u32 {
    cards.iter().map(points).sum()
}

/// Whether `x` beats `y` when `trump` is trump: same suit and higher in
/// Kozel's order, or `x` a trump and `y` not. Two non-trumps of different
/// suits cannot be compared, so neither beats the other.
///
/// ```
/// use kozyr_cards::{Card, Suit};
/// use kozyr_kozel::beats;
/// let c = |s: &str| s.parse::<Card>().unwrap();
/// assert!(beats(c("TC"), c("KC"), Suit::Hearts)); // the ten ranks above the king
/// assert!(beats(c("6H"), c("AS"), Suit::Hearts)); // any trump beats any non-trump
/// assert!(!beats(c("AS"), c("TD"), Suit::Hearts)); // cannot be compared
/// assert!(!beats(c("TD"), c("AS"), Suit::Hearts));
/// ```
pub const fn beats(x: Card, y: Card, trump: Suit) -> bool {
    let (xs, ys) = (x.suit() as u8, y.suit() as u8);
    if xs == ys {
        match (strength(x.rank()), strength(y.rank())) {
            (Some(a), Some(b)) => a > b,
            _ => false,
        }
    } else {
        xs == trump as u8
    }
}

/// A team: seats 0 and 2 are team 0, seats 1 and 3 team 1; partners sit opposite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Team(u8);

impl Team {
    pub const ALL: [Team; 2] = [Team(0), Team(1)];

    pub const fn of(seat: Seat) -> Team {
        Team((seat.index() & 1) as u8)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn other(self) -> Team {
        Team(self.0 ^ 1)
    }

    /// The team's two seats.
    pub fn seats(self) -> [Seat; 2] {
        let s = Seat::ALL[self.index()];
        [s, s.across()]
    }
}

impl TryFrom<u8> for Team {
    type Error = String;
    fn try_from(i: u8) -> Result<Team, String> {
        if i < 2 {
            Ok(Team(i))
        } else {
            Err(format!("team {i} does not exist (teams are 0 and 1)"))
        }
    }
}

impl From<Team> for u8 {
    fn from(t: Team) -> u8 {
        t.0
    }
}

/// What a player does. Cards are a set: a beat need not be ordered, any
/// one-to-one pairing with the winning play counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "cards", rename_all = "snake_case")]
pub enum Action {
    /// Open the trick with one or more cards of one suit, face up.
    Lead(CardSet),
    /// Answer with as many cards as were led, each beating a card of the winning play.
    Beat(CardSet),
    /// Answer with as many cards as were led, face down; they count for whoever takes the trick.
    Pass(CardSet),
    /// Play a four-card hand of one suit, in or out of turn.
    Molodka,
}

impl Action {
    /// The cards the action names (a molodka names the whole hand, so none here).
    pub fn cards(self) -> CardSet {
        match self {
            Action::Lead(c) | Action::Beat(c) | Action::Pass(c) => c,
            Action::Molodka => CardSet::EMPTY,
        }
    }
}

/// What happened. Events carry full information (passed cards, drawn cards)
/// for the log and the deal records; what a seat may see of them comes
/// from [`Event::seen_by`], and of the state from views.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A new deal was dealt (series level; not part of a deal record's events).
    DealStarted {
        deal: u32,
        dealer: Seat,
        first_leader: Seat,
        trump_card: Card,
    },
    Lead {
        seat: Seat,
        cards: CardSet,
    },
    Beat {
        seat: Seat,
        cards: CardSet,
    },
    Pass {
        seat: Seat,
        cards: CardSet,
    },
    /// Everything on the table went back to its owners and these four cards lead.
    Molodka {
        seat: Seat,
        cards: CardSet,
    },
    Trick {
        winner: Seat,
        cards: CardSet,
        points: u32,
    },
    Draw {
        seat: Seat,
        card: Card,
    },
    /// The deal is scored (series level).
    DealOver(DealResult),
    /// A team reached 12 defeat points and is the goat (series level).
    SeriesOver {
        goat: Team,
        with_eggs: bool,
    },
}

/// Why an action was refused, as data a front-end can translate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum RuleError {
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("the deal is over")]
    DealOver,
    #[error("the series is over")]
    SeriesOver,
    #[error("{card} is not in your hand")]
    NotInHand { card: Card },
    #[error("choose at least one card")]
    NoCards,
    #[error("a lead must be of one suit")]
    MixedSuits,
    #[error("the trick is already led; beat or pass")]
    AlreadyLed,
    #[error("nothing has been led yet")]
    NothingLed,
    #[error("play exactly {expected} card(s), not {got}")]
    WrongCount { expected: u32, got: u32 },
    #[error("these cards cannot beat {target}")]
    CannotBeat { target: CardSet },
    #[error("a molodka needs a four-card hand of one suit")]
    NoMolodka,
    #[error("a molodka closer to the trick's leader is already on the table")]
    MolodkaOutranked,
}

#[cfg(test)]
mod tests;
