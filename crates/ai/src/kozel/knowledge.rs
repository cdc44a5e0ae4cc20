//! Card memory: where a seat knows the cards to be, from what it saw.

use super::Observation;
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};
use kozyr_kozel::{SeenEvent, Team, deck, points_of};

/// What one seat knows about the 36 cards at the moment it decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Knowledge {
    pub me: Seat,
    pub trump: Suit,
    pub trump_card: Card,
    pub hand: CardSet,
    /// Out of play for good: face-up cards of taken tricks and my own
    /// passes that were taken.
    pub gone: CardSet,
    /// Cards another seat certainly holds: face-up cards a molodka sent
    /// back to its hand, until it plays them or passes anything.
    pub known: PerSeat<CardSet>,
    /// Cards whose place this seat does not know: other hands, the stock,
    /// other seats' face-down passes.
    pub unseen: CardSet,
    /// Points this seat knows each team has taken (face-up cards and its
    /// own passes); the face-down passes of others are not counted.
    pub pile_points: [u32; 2],
}

/// A seat's cards on the table in the current trick, as this seat saw them.
#[derive(Clone, Copy, Debug, Default)]
struct OnTable {
    /// Face-up cards, or this seat's own face-down ones.
    visible: CardSet,
    face_up: bool,
}

impl Knowledge {
    pub fn new(seen: &Observation) -> Knowledge {
        let view = &seen.view.deal;
        let me = view.seat;
        let mut gone = CardSet::EMPTY;
        let mut known = PerSeat::<CardSet>::default();
        let mut pile_points = [0; 2];
        let mut table = PerSeat::<OnTable>::default();
        for event in &seen.history {
            match *event {
                SeenEvent::DealStarted { .. } => {
                    gone = CardSet::EMPTY;
                    known = PerSeat::default();
                    pile_points = [0; 2];
                    table = PerSeat::default();
                }
                SeenEvent::Lead { seat, cards } | SeenEvent::Beat { seat, cards } => {
                    known[seat] = known[seat] - cards;
                    table[seat] = OnTable {
                        visible: cards,
                        face_up: true,
                    };
                }
                SeenEvent::Pass { seat, cards, .. } => {
                    // A seat that passes may have passed a card we knew it held.
                    known[seat] = CardSet::EMPTY;
                    table[seat] = OnTable {
                        visible: cards.unwrap_or_default(),
                        face_up: false,
                    };
                }
                SeenEvent::Molodka { seat, cards } => {
                    for (s, t) in table.iter() {
                        if t.face_up && s != me {
                            known[s] |= t.visible;
                        }
                    }
                    table = PerSeat::default();
                    known[seat] = known[seat] - cards;
                    table[seat] = OnTable {
                        visible: cards,
                        face_up: true,
                    };
                }
                SeenEvent::Trick { winner, .. } => {
                    let taken = table.0.iter().fold(CardSet::EMPTY, |a, t| a | t.visible);
                    gone |= taken;
                    pile_points[Team::of(winner).index()] += points_of(taken);
                    table = PerSeat::default();
                }
                SeenEvent::Draw { .. } | SeenEvent::DealOver(_) | SeenEvent::SeriesOver { .. } => {}
            }
        }
        let hand = view.hand;
        known[me] = CardSet::EMPTY;
        let on_table = table.0.iter().fold(CardSet::EMPTY, |a, t| a | t.visible);
        let known_all = known.0.iter().fold(CardSet::EMPTY, |a, &k| a | k);
        Knowledge {
            me,
            trump: view.trump_card.suit(),
            trump_card: view.trump_card,
            hand,
            gone,
            known,
            unseen: deck() - hand - gone - on_table - known_all,
            pile_points,
        }
    }

    /// Cards that might be in `seat`'s hand (another seat's).
    pub fn possible(&self, seat: Seat) -> CardSet {
        if seat == self.me {
            self.hand
        } else {
            self.unseen | self.known[seat]
        }
    }
}
