//! The public record of tricks a table keeps: the plays of the trick in
//! progress, the last trick taken with its cards, and how the previous
//! deal ended. Folded from the game's events, so it is rebuilt from the
//! log like everything else a table derives.

use serde::{Deserialize, Serialize};

use super::model::{DealEnd, TrickCards, TrickPlay, TrickTaken};
use crate::cards::{CardSet, Seat};
use crate::game::GameEvent;
use crate::{hearts, kozel};

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
        let face_up = |seat: Seat, cards: CardSet| TrickPlay {
            seat,
            cards: TrickCards::FaceUp(cards),
        };
        match event {
            GameEvent::Kozel(k) => match k {
                kozel::Event::Lead { seat, cards } | kozel::Event::Beat { seat, cards } => {
                    self.trick.push(face_up(*seat, *cards));
                }
                kozel::Event::Pass { seat, cards } => self.trick.push(TrickPlay {
                    seat: *seat,
                    cards: TrickCards::FaceDown(cards.len()),
                }),
                // Everything on the table went back: the molodka leads anew.
                kozel::Event::Molodka { seat, cards } => {
                    self.trick.clear();
                    self.trick.push(face_up(*seat, *cards));
                }
                kozel::Event::DealStarted { .. } => self.trick.clear(),
                _ => {}
            },
            GameEvent::Hearts(h) => match h {
                hearts::Event::Play { seat, card } => {
                    self.trick.push(face_up(*seat, CardSet::single(*card)));
                }
                hearts::Event::DealStarted { .. } => self.trick.clear(),
                _ => {}
            },
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
