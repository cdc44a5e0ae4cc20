//! Deal records (the JSON format of `docs/RECORDS.md`) rebuilt from a
//! table's event log, for every deal the table finished.

use serde::Serialize;

use super::error::ReplayError;
use super::event::TableEvent;
use super::state::Table;
use crate::game::{Game, GameEvent};
use crate::sim::kozel::KozelRecord;

/// One finished deal's record, in its game's format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum DealRecord {
    Kozel(Box<KozelRecord>),
}

/// Where the deal in progress started, per game.
enum DealStart {
    Kozel(crate::kozel::Deal, Vec<crate::kozel::Event>),
}

impl DealStart {
    fn of(game: &Game) -> DealStart {
        match game {
            Game::Kozel(s) => DealStart::Kozel(s.deal().clone(), Vec::new()),
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
    let Some((first, rest)) = log.split_first() else {
        return Err(ReplayError::NoCreation);
    };
    let mut table = Table::from_creation(first)?;
    let name = table.id().to_string();
    let mut start: Option<DealStart> = None;
    let mut records = Vec::new();
    for event in rest {
        table.apply(event)?;
        match event {
            TableEvent::SeriesStarted { .. } => start = table.game().map(DealStart::of),
            TableEvent::Acted { events, .. } => {
                let (Some(game), Some(deal)) = (table.game(), start.as_mut()) else {
                    continue;
                };
                let mut finished = false;
                match deal {
                    DealStart::Kozel(_, played) => {
                        for e in events {
                            let GameEvent::Kozel(e) = e;
                            finished |= matches!(e, crate::kozel::Event::DealOver(_));
                            played.push(e.clone());
                        }
                    }
                }
                if finished {
                    match (deal, game) {
                        (DealStart::Kozel(dealt, played), Game::Kozel(series)) => {
                            let record =
                                KozelRecord::new(&name, table.series_no(), dealt, played, series);
                            records.extend(record.map(|r| DealRecord::Kozel(Box::new(r))));
                        }
                    }
                    start = Some(DealStart::of(game));
                }
            }
            _ => {}
        }
    }
    Ok(records)
}
