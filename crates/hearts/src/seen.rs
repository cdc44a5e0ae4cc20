//! Events as a seat saw them: what an AI player (or an onlooker) may
//! remember of a Hearts deal. [`Event`]s carry every pass for the log; a
//! [`SeenEvent`] keeps a pass's cards only for the seats that saw them —
//! the giver when it chose them, and the receiver once they changed hands.

use serde::{Deserialize, Serialize};

use super::{Event, PassDirection, Standing};
use kozyr_cards::{Card, CardSet, PerSeat, Seat};

/// An [`Event`] as one seat (or an onlooker) saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeenEvent {
    DealStarted {
        deal: u32,
        dealer: Seat,
        pass_direction: PassDirection,
    },
    /// `seat` chose its cards for `to`; the cards only for `seat` itself.
    Passed {
        seat: Seat,
        to: Seat,
        cards: Option<CardSet>,
    },
    /// The cards changed hands; `received` is what this seat got (`None`
    /// for an onlooker).
    CardsExchanged {
        received: Option<CardSet>,
        leader: Seat,
    },
    Play {
        seat: Seat,
        card: Card,
    },
    Trick {
        winner: Seat,
        points: u32,
    },
    DealOver {
        deal: u32,
        deal_points: PerSeat<u32>,
        total_points: PerSeat<u32>,
        moon_shooter: Option<Seat>,
    },
    GameOver {
        ranking: [Standing; 4],
    },
}

impl Event {
    /// What `seat` saw of this event: its own pass and what it received,
    /// nobody else's.
    ///
    /// ```
    /// use kozyr_cards::{CardSet, Seat};
    /// use kozyr_hearts::{Event, SeenEvent};
    /// let (s0, s1) = (Seat::new(0).unwrap(), Seat::new(1).unwrap());
    /// let cards: CardSet = "QS AH 2D".parse().unwrap();
    /// let pass = Event::Passed { seat: s0, to: s1, cards };
    /// assert_eq!(pass.seen_by(s0), SeenEvent::Passed { seat: s0, to: s1, cards: Some(cards) });
    /// // The receiver sees the cards only when they change hands.
    /// assert_eq!(pass.seen_by(s1), SeenEvent::Passed { seat: s0, to: s1, cards: None });
    /// ```
    pub fn seen_by(&self, seat: Seat) -> SeenEvent {
        self.seen(Some(seat))
    }

    /// What an onlooker at the table saw: no passed cards at all.
    pub fn public(&self) -> SeenEvent {
        self.seen(None)
    }

    fn seen(&self, by: Option<Seat>) -> SeenEvent {
        match *self {
            Event::DealStarted {
                deal,
                dealer,
                pass_direction,
            } => SeenEvent::DealStarted {
                deal,
                dealer,
                pass_direction,
            },
            Event::Passed { seat, to, cards } => SeenEvent::Passed {
                seat,
                to,
                cards: (by == Some(seat)).then_some(cards),
            },
            Event::CardsExchanged { received, leader } => SeenEvent::CardsExchanged {
                received: by.map(|s| received[s]),
                leader,
            },
            Event::Play { seat, card } => SeenEvent::Play { seat, card },
            Event::Trick { winner, points } => SeenEvent::Trick { winner, points },
            Event::DealOver {
                deal,
                deal_points,
                total_points,
                moon_shooter,
            } => SeenEvent::DealOver {
                deal,
                deal_points,
                total_points,
                moon_shooter,
            },
            Event::GameOver { ranking } => SeenEvent::GameOver { ranking },
        }
    }
}
