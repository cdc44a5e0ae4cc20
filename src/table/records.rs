//! Deal records (the JSON formats of `docs/RECORDS.md`, as `kozyr simulate`
//! writes them) rebuilt from a table's event log, for every finished deal.

use serde::Serialize;

use super::error::ReplayError;
use super::event::TableEvent;
use super::state::Table;
use crate::cards::CardSet;
use crate::game::{Game, GameEvent};
use crate::hearts::{self, PassDirection};
use crate::kozel;
use crate::sim::hearts::DealRecord as HeartsRecord;
use crate::sim::kozel::KozelRecord;

/// One finished deal's record, in its game's format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum DealRecord {
    Kozel(Box<KozelRecord>),
    Hearts(Box<HeartsRecord>),
}

/// The deal in progress: what was dealt and what has happened since.
enum Recorder {
    Kozel {
        dealt: Box<kozel::Deal>,
        events: Vec<kozel::Event>,
    },
    Hearts(Box<HeartsRecord>),
}

impl Recorder {
    fn start(game: &Game, table: &str, series: u32) -> Recorder {
        match game {
            Game::Kozel(s) => Recorder::Kozel {
                dealt: Box::new(s.deal().clone()),
                events: Vec::new(),
            },
            Game::Hearts(m) => {
                let deal = m.deal();
                let direction = deal.pass_direction();
                Recorder::Hearts(Box::new(HeartsRecord {
                    game: "hearts".to_owned(),
                    table: table.to_owned(),
                    series,
                    deal: deal.number(),
                    dealer: deal.dealer(),
                    options: m.options(),
                    hands: deal.dealt().0,
                    pass_direction: direction,
                    passes: match direction {
                        PassDirection::None => Vec::new(),
                        _ => vec![CardSet::EMPTY; 4],
                    },
                    events: Vec::new(),
                    deal_points: [0; 4],
                    total_points: m.totals().0,
                    game_over: false,
                    unfinished: false,
                }))
            }
        }
    }

    /// The record of the deal in progress, marked unfinished; `None` when
    /// the game is over (`now` is the game as it stands).
    fn unfinished(&self, now: &Game, table: &str, series: u32) -> Option<DealRecord> {
        match (self, now) {
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
    /// deal (`after` is the game after the move).
    fn feed(
        &mut self,
        events: &[GameEvent],
        after: &Game,
        table: &str,
        series: u32,
    ) -> Option<DealRecord> {
        match (self, after) {
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
                let mut done = None;
                for e in events {
                    let GameEvent::Hearts(e) = e else { continue };
                    match e {
                        hearts::Event::Passed { seat, cards, .. } => {
                            if let Some(slot) = record.passes.get_mut(seat.index()) {
                                *slot = *cards;
                            }
                        }
                        hearts::Event::Play { .. } | hearts::Event::Trick { .. } => {
                            record.events.push(e.clone());
                        }
                        hearts::Event::DealOver {
                            deal_points,
                            total_points,
                            ..
                        } => {
                            record.deal_points = deal_points.0;
                            record.total_points = total_points.0;
                            record.game_over = m.is_over();
                            done = Some(record.clone());
                        }
                        hearts::Event::DealStarted { .. }
                        | hearts::Event::CardsExchanged { .. }
                        | hearts::Event::GameOver { .. } => {}
                    }
                }
                done.map(DealRecord::Hearts)
            }
            // A recorder always follows its own table's game.
            _ => None,
        }
    }
}

/// Replays `log` (a table's whole log, from its creation) and returns the
/// record of every deal finished in it, in order.
///
/// ```
/// use kozyr::table::records::deal_records;
/// assert!(deal_records(&[]).is_err());
/// ```
pub fn deal_records(log: &[TableEvent]) -> Result<Vec<DealRecord>, ReplayError> {
    deal_records_and_current(log).map(|(records, _)| records)
}

/// [`deal_records`], and the record of the deal still being played at the
/// end of `log` (marked `unfinished`), if one is.
pub fn deal_records_and_current(
    log: &[TableEvent],
) -> Result<(Vec<DealRecord>, Option<DealRecord>), ReplayError> {
    let Some((first, rest)) = log.split_first() else {
        return Err(ReplayError::NoCreation);
    };
    let mut table = Table::from_creation(first)?;
    let name = table.id().to_string();
    let mut recorder: Option<Recorder> = None;
    let mut records = Vec::new();
    for event in rest {
        table.apply(event)?;
        let series = table.series_no();
        match event {
            TableEvent::SeriesStarted { .. } => {
                recorder = table.game().map(|g| Recorder::start(g, &name, series));
            }
            TableEvent::Acted { events, .. } => {
                let (Some(game), Some(r)) = (table.game(), recorder.as_mut()) else {
                    continue;
                };
                if let Some(record) = r.feed(events, game, &name, series) {
                    records.push(record);
                    recorder = Some(Recorder::start(game, &name, series));
                }
            }
            _ => {}
        }
    }
    let current = match (&recorder, table.game()) {
        (Some(r), Some(game)) => r.unfinished(game, &name, table.series_no()),
        _ => None,
    };
    Ok((records, current))
}
