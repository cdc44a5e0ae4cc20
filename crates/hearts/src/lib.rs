//! The Hearts ("Copas") rules engine: four players each for themselves,
//! 52 cards, fewest points wins.
//!
//! Pure and deterministic, in the same shape as the Kozel engine (`kozyr-kozel`):
//! [`Deal::apply`] and [`Match::apply`] take a seat and an [`Action`], and
//! either return the [`Event`]s that happened or a [`RuleError`] — in which
//! case nothing changed. Randomness comes in only as a seed ([`Match::new`])
//! or an explicit deck ([`Deal::new`]). `docs/RULES.md` (Hearts) states the
//! rules as implemented.
//!
//! A [`Deal`] knows nothing of the options or the running score, so the AI
//! can copy one (it is `Copy`) and play it out cheaply; a [`Match`] is one
//! game to its end score and does the scoring.

mod deal;
mod game_match;
mod record;
mod score;
mod seen;

use serde::{Deserialize, Serialize};

use kozyr_cards::{Card, CardSet, PerSeat, Rank, Seat, Suit};

pub use deal::{CompletedTrick, Deal, DealError, DealView, Phase};
pub use game_match::{Match, MatchError, View};
pub use record::DealRecord;
pub use score::{DealScore, Standing, rank, score_deal};
pub use seen::SeenEvent;

/// Cards in a hand as dealt.
pub const HAND_SIZE: u32 = 13;
/// Cards each player passes on a passing deal.
pub const PASS_SIZE: u32 = 3;
/// Tricks in a deal.
pub const TRICKS: u32 = 13;
/// Points in a deal, summed over all 52 cards.
pub const DEAL_POINTS: u32 = 26;

/// The card that opens every deal.
pub const TWO_OF_CLUBS: Card = Card::new(Rank::Two, Suit::Clubs);
/// The "dama negra": 13 points on its own.
pub const QUEEN_OF_SPADES: Card = Card::new(Rank::Queen, Suit::Spades);
/// Every card that scores: the thirteen hearts and the queen of spades.
pub const POINT_CARDS: CardSet = CardSet::from_bits_truncate(
    CardSet::FULL.of_suit(Suit::Hearts).bits() | CardSet::single(QUEEN_OF_SPADES).bits(),
);

/// Card points: a heart is 1, the queen of spades 13, anything else 0.
///
/// ```
/// use kozyr_cards::CardSet;
/// use kozyr_hearts::{DEAL_POINTS, points};
/// assert_eq!(points("QS".parse().unwrap()), 13);
/// assert_eq!(points("2H".parse().unwrap()), 1);
/// assert_eq!(points("AS".parse().unwrap()), 0);
/// assert_eq!(CardSet::FULL.iter().map(points).sum::<u32>(), DEAL_POINTS);
/// ```
pub const fn points(card: Card) -> u32 {
    if card.index() == QUEEN_OF_SPADES.index() {
        13
    } else if card.index() >> 4 == Suit::Hearts as u8 {
        1
    } else {
        0
    }
}

/// Points of every card in a set, in a couple of instructions.
///
/// ```
/// use kozyr_cards::CardSet;
/// use kozyr_hearts::points_of;
/// assert_eq!(points_of("QS AH 2H KS".parse().unwrap()), 15);
/// assert_eq!(points_of(CardSet::FULL), 26);
/// ```
pub const fn points_of(cards: CardSet) -> u32 {
    let hearts = cards.of_suit(Suit::Hearts).len();
    if cards.contains(QUEEN_OF_SPADES) {
        hearts + 13
    } else {
        hearts
    }
}

/// Where the passed cards go on a deal. The cycle follows the deal number
/// within a game: left, right, across, no passing, and again.
///
/// ```
/// use kozyr_cards::Seat;
/// use kozyr_hearts::PassDirection;
/// assert_eq!(PassDirection::for_deal(1), PassDirection::Left);
/// assert_eq!(PassDirection::for_deal(4), PassDirection::None);
/// assert_eq!(PassDirection::for_deal(6), PassDirection::Right);
/// let s1 = Seat::new(1).unwrap();
/// assert_eq!(PassDirection::Left.target(s1), Some(Seat::new(2).unwrap()));
/// assert_eq!(PassDirection::Right.target(s1), Some(Seat::new(0).unwrap()));
/// assert_eq!(PassDirection::Across.target(s1), Some(Seat::new(3).unwrap()));
/// assert_eq!(PassDirection::None.target(s1), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassDirection {
    /// To the next seat clockwise.
    Left,
    /// To the previous seat clockwise.
    Right,
    /// To the seat opposite.
    Across,
    /// Nobody passes; the first trick starts at once.
    None,
}

impl PassDirection {
    pub const CYCLE: [PassDirection; 4] = [
        PassDirection::Left,
        PassDirection::Right,
        PassDirection::Across,
        PassDirection::None,
    ];

    /// The direction of deal `deal_no` (counted from 1) in a game. Deal 0
    /// does not exist; it is treated as the fourth of its cycle, like deal 4.
    pub const fn for_deal(deal_no: u32) -> PassDirection {
        Self::CYCLE[(deal_no.wrapping_sub(1) % 4) as usize]
    }

    /// Who receives the cards `from` passes; `None` on a no-pass deal.
    pub const fn target(self, from: Seat) -> Option<Seat> {
        match self {
            PassDirection::Left => Some(from.next()),
            PassDirection::Right => Some(from.prev()),
            PassDirection::Across => Some(from.across()),
            PassDirection::None => None,
        }
    }

    /// Who passes to `to`; `None` on a no-pass deal.
    pub const fn source(self, to: Seat) -> Option<Seat> {
        match self {
            PassDirection::Left => Some(to.prev()),
            PassDirection::Right => Some(to.next()),
            PassDirection::Across => Some(to.across()),
            PassDirection::None => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            PassDirection::Left => "left",
            PassDirection::Right => "right",
            PassDirection::Across => "across",
            PassDirection::None => "none",
        }
    }
}

/// The options a table can set for Hearts. The defaults follow the seed
/// document: no shooting the moon, game to 100.
///
/// ```
/// use kozyr_hearts::HeartsOptions;
/// let o: HeartsOptions = serde_json::from_str("{}").unwrap();
/// assert_eq!(o, HeartsOptions { shoot_the_moon: false, end_score: 100, any_heart_breaks: false });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct HeartsOptions {
    /// Whether taking all 26 points scores 0 for the taker and 26 for everyone else.
    pub shoot_the_moon: bool,
    /// The game ends after the deal in which someone reaches this total
    /// (so 0 plays a single deal).
    pub end_score: u32,
    /// The common rule (OpenSpiel, most apps): any heart played breaks
    /// hearts. Off: only a heart discarded by a player who could not
    /// follow suit does, as the seed document says.
    pub any_heart_breaks: bool,
}

impl HeartsOptions {
    pub const DEFAULT_END_SCORE: u32 = 100;
}

impl Default for HeartsOptions {
    fn default() -> HeartsOptions {
        HeartsOptions {
            shoot_the_moon: false,
            end_score: Self::DEFAULT_END_SCORE,
            any_heart_breaks: false,
        }
    }
}

/// What a player does.
///
/// ```
/// use kozyr_hearts::Action;
/// let pass: Action = serde_json::from_str(r#"{"pass_cards":["QS","AH","2D"]}"#).unwrap();
/// assert_eq!(pass, Action::PassCards("QS AH 2D".parse().unwrap()));
/// let play = Action::Play("2C".parse().unwrap());
/// assert_eq!(serde_json::to_string(&play).unwrap(), r#"{"play":"2C"}"#);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Choose the three cards to pass (any seat that has not passed yet;
    /// the four choices are simultaneous).
    PassCards(CardSet),
    /// Play one card to the trick.
    Play(Card),
}

/// What happened. Events carry full information (who passed what) for the
/// log and the deal records; what a seat may see comes from views.
///
/// ```
/// use kozyr_cards::Seat;
/// use kozyr_hearts::Event;
/// let play = Event::Play { seat: Seat::new(2).unwrap(), card: "2C".parse().unwrap() };
/// assert_eq!(serde_json::to_string(&play).unwrap(), r#"{"kind":"play","seat":2,"card":"2C"}"#);
/// let trick = Event::Trick { winner: Seat::new(1).unwrap(), points: 0 };
/// assert_eq!(serde_json::to_string(&trick).unwrap(), r#"{"kind":"trick","winner":1,"points":0}"#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A new deal was dealt (match level; the first deal of a match is
    /// dealt by [`Match::new`] without an event).
    DealStarted {
        deal: u32,
        dealer: Seat,
        pass_direction: PassDirection,
    },
    /// `seat` chose the cards it passes to `to`. Private to those two seats.
    Passed {
        seat: Seat,
        to: Seat,
        cards: CardSet,
    },
    /// Everyone has passed and the cards changed hands: `received[s]` is what
    /// seat `s` got. `leader` now holds the two of clubs and leads.
    CardsExchanged {
        received: PerSeat<CardSet>,
        leader: Seat,
    },
    Play {
        seat: Seat,
        card: Card,
    },
    /// The fourth card of a trick was played; `winner` takes it and leads next.
    Trick {
        winner: Seat,
        points: u32,
    },
    /// The thirteenth trick is over and the deal is scored (match level).
    DealOver {
        deal: u32,
        /// What each seat scores for this deal, after shooting the moon.
        deal_points: PerSeat<u32>,
        /// The running totals, this deal included.
        total_points: PerSeat<u32>,
        /// Who shot the moon, if the option is on and someone took all 26.
        moon_shooter: Option<Seat>,
    },
    /// Someone reached the end score; fewest points first, ties share a place.
    GameOver {
        ranking: [Standing; 4],
    },
}

/// Why an action was refused, as data a front-end can translate.
///
/// ```
/// use kozyr_hearts::RuleError;
/// let e = RuleError::WrongPassCount { got: 2 };
/// assert_eq!(e.to_string(), "pass exactly 3 cards, not 2");
/// assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"error":"wrong_pass_count","got":2}"#);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum RuleError {
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("the game is over")]
    GameOver,
    #[error("the deal is over")]
    DealOver,
    #[error("{card} is not in your hand")]
    NotInHand { card: Card },
    #[error("pass exactly 3 cards, not {got}")]
    WrongPassCount { got: u32 },
    #[error("you have already passed")]
    AlreadyPassed,
    #[error("cards are not passed now")]
    NotPassing,
    #[error("wait until everyone has passed")]
    StillPassing,
    #[error("the first trick must be led with the two of clubs")]
    MustLeadTwoOfClubs,
    #[error("you must follow suit ({suit:?})")]
    MustFollowSuit { suit: Suit },
    #[error("no hearts and no queen of spades on the first trick")]
    NoPointsOnFirstTrick,
    #[error("hearts have not been broken yet")]
    HeartsNotBroken,
}

#[cfg(test)]
mod tests;
