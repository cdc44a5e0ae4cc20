//! Deal records (`docs/RECORDS.md`) of whatever game a table plays, built
//! as the game goes: the one place above the engines that knows which
//! record each game writes, so the table's log replay
//! (`crate::table::records`) names no game.

use serde::Serialize;

use super::{Game, GameEvent};
use kozyr_hearts as hearts;
use kozyr_kozel::{self as kozel, KozelRecord};

/// One finished deal's record, in its game's format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum DealRecord {
    Kozel(Box<KozelRecord>),
    Hearts(Box<hearts::DealRecord>),
}

/// The deal in progress: what was dealt and what has happened since.
pub struct DealRecorder(Recorder);

enum Recorder {
    Kozel {
        dealt: Box<kozel::Deal>,
        events: Vec<kozel::Event>,
    },
    Hearts(Box<hearts::DealRecord>),
}

impl DealRecorder {
    /// Starts recording the deal `game` is in (`table`: the id written into
    /// the records; `series`: the series' number at the table).
    pub fn start(game: &Game, table: &str, series: u32) -> DealRecorder {
        DealRecorder(match game {
            Game::Kozel(s) => Recorder::Kozel {
                dealt: Box::new(s.deal().clone()),
                events: Vec::new(),
            },
            Game::Hearts(m) => {
                Recorder::Hearts(Box::new(hearts::DealRecord::start(m, table, series)))
            }
        })
    }

    /// The record of the deal in progress, marked unfinished; `None` when
    /// the game is over (`now` is the game as it stands).
    pub fn unfinished(&self, now: &Game, table: &str, series: u32) -> Option<DealRecord> {
        match (&self.0, now) {
            (Recorder::Kozel { dealt, events }, Game::Kozel(s)) => {
                KozelRecord::unfinished(table, series, dealt, events, s)
                    .map(|r| DealRecord::Kozel(Box::new(r)))
            }
            (Recorder::Hearts(record), Game::Hearts(m)) if !m.is_over() => {
                let mut record = record.clone();
                record.unfinished = true;
                Some(DealRecord::Hearts(record))
            }
            _ => None,
        }
    }

    /// Takes one move's events; returns the record if they finished the
    /// deal (`after` is the game after the move). Start a new recorder on
    /// `after` then.
    pub fn feed(
        &mut self,
        events: &[GameEvent],
        after: &Game,
        table: &str,
        series: u32,
    ) -> Option<DealRecord> {
        match (&mut self.0, after) {
            (
                Recorder::Kozel {
                    dealt,
                    events: seen,
                },
                Game::Kozel(series_after),
            ) => {
                let mut over = false;
                for e in events {
                    if let GameEvent::Kozel(e) = e {
                        over |= matches!(e, kozel::Event::DealOver(_));
                        seen.push(e.clone());
                    }
                }
                let record =
                    over.then(|| KozelRecord::new(table, series, dealt, seen, series_after));
                record.flatten().map(|r| DealRecord::Kozel(Box::new(r)))
            }
            (Recorder::Hearts(record), Game::Hearts(m)) => {
                let mut done = false;
                for e in events {
                    if let GameEvent::Hearts(e) = e {
                        done |= record.take(e, m.is_over());
                    }
                }
                done.then(|| DealRecord::Hearts(record.clone()))
            }
            // A recorder always follows its own table's game.
            _ => None,
        }
    }
}
