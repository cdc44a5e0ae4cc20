//! The public record of tricks a table keeps: the plays of the trick in
//! progress, the last trick taken with its cards, and how the previous
//! deal ended. Folded from the game's events, so it is rebuilt from the
//! log like everything else a table derives.

use serde::{Deserialize, Serialize};

use super::model::{DealEnd, TrickCards, TrickPlay, TrickTaken};
use kozyr_game::{GameEvent, TrickStep};

/// What everyone at a table has seen of the tricks of the deal in play.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tricks {
    /// The plays on the trick in progress.
    pub trick: Vec<TrickPlay>,
    /// The last trick taken in the deal in play (none when a deal starts:
    /// the previous deal's last trick belongs to its end).
    pub last_trick: Option<TrickTaken>,
    /// How the previous deal ended, until the next deal's first trick is
    /// taken (and for good once the series is over).
    pub last_deal: Option<DealEnd>,
}

impl Tricks {
    /// Keeps the public record of tricks: the plays of the trick in
    /// progress, the last trick taken, and the end of the previous deal.
    pub fn follow(&mut self, event: &GameEvent) {
        match event.trick_step() {
            Some(TrickStep::Play {
                seat,
                cards,
                face_down,
            }) => self.trick.push(TrickPlay {
                seat,
                cards: if face_down {
                    TrickCards::FaceDown(cards.len())
                } else {
                    TrickCards::FaceUp(cards)
                },
            }),
            Some(TrickStep::LeadAnew { seat, cards }) => {
                self.trick.clear();
                self.trick.push(TrickPlay {
                    seat,
                    cards: TrickCards::FaceUp(cards),
                });
            }
            Some(TrickStep::NewDeal) => self.trick.clear(),
            None => {}
        }
        if let Some((winner, points)) = event.trick_taken() {
            self.last_trick = Some(TrickTaken {
                winner,
                points,
                plays: std::mem::take(&mut self.trick),
            });
            // The new deal has a trick of its own to show now.
            self.last_deal = None;
        }
        if event.deal_outcome().is_some() {
            self.last_deal = Some(DealEnd {
                result: event.clone(),
                last_trick: self.last_trick.take(),
            });
        }
    }
}
