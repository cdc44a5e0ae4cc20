//! Events as a seat saw them: what an AI player (or a spectator) may
//! remember of a deal. [`Event`]s carry everything for the log; a
//! [`SeenEvent`] drops what the table did not show — other seats' passed
//! cards and draws, and the face-down cards inside a taken trick.

use serde::{Deserialize, Serialize};

use super::{DealResult, Event, Team};
use kozyr_cards::{Card, CardSet, Seat};

/// An [`Event`] as one seat (or an onlooker) saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeenEvent {
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
    /// `count` cards went face down; `cards` only for the seat that passed them.
    Pass {
        seat: Seat,
        count: u32,
        cards: Option<CardSet>,
    },
    Molodka {
        seat: Seat,
        cards: CardSet,
    },
    /// `winner` took the `count` cards on the table; which face-down cards
    /// were among them stays unknown.
    Trick {
        winner: Seat,
        count: u32,
    },
    /// `seat` drew a card from the stock; `card` only for the seat that drew it.
    Draw {
        seat: Seat,
        card: Option<Card>,
    },
    DealOver(DealResult),
    SeriesOver {
        goat: Team,
        with_eggs: bool,
    },
}

impl Event {
    /// What `seat` saw of this event: its own passes and draws in full,
    /// only the number of cards for everyone else's.
    ///
    /// ```
    /// use kozyr_cards::{CardSet, Seat};
    /// use kozyr_kozel::{Event, SeenEvent};
    /// let (s0, s1) = (Seat::new(0).unwrap(), Seat::new(1).unwrap());
    /// let cards: CardSet = "AS TS".parse().unwrap();
    /// let pass = Event::Pass { seat: s1, cards };
    /// assert_eq!(pass.seen_by(s1), SeenEvent::Pass { seat: s1, count: 2, cards: Some(cards) });
    /// assert_eq!(pass.seen_by(s0), SeenEvent::Pass { seat: s1, count: 2, cards: None });
    /// ```
    pub fn seen_by(&self, seat: Seat) -> SeenEvent {
        self.seen(Some(seat))
    }

    /// What an onlooker at the table saw: no seat's passes or draws.
    pub fn public(&self) -> SeenEvent {
        self.seen(None)
    }

    fn seen(&self, by: Option<Seat>) -> SeenEvent {
        let own = |seat: Seat| by == Some(seat);
        match *self {
            Event::DealStarted {
                deal,
                dealer,
                first_leader,
                trump_card,
            } => SeenEvent::DealStarted {
                deal,
                dealer,
                first_leader,
                trump_card,
            },
            Event::Lead { seat, cards } => SeenEvent::Lead { seat, cards },
            Event::Beat { seat, cards } => SeenEvent::Beat { seat, cards },
            Event::Pass { seat, cards } => SeenEvent::Pass {
                seat,
                count: cards.len(),
                cards: own(seat).then_some(cards),
            },
            Event::Molodka { seat, cards } => SeenEvent::Molodka { seat, cards },
            Event::Trick { winner, cards, .. } => SeenEvent::Trick {
                winner,
                count: cards.len(),
            },
            Event::Draw { seat, card } => SeenEvent::Draw {
                seat,
                card: own(seat).then_some(card),
            },
            Event::DealOver(r) => SeenEvent::DealOver(r),
            Event::SeriesOver { goat, with_eggs } => SeenEvent::SeriesOver { goat, with_eggs },
        }
    }
}
