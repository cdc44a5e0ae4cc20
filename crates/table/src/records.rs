//! Deal records (the JSON formats of `docs/RECORDS.md`, as `kozyr simulate`
//! writes them) rebuilt from a table's event log, for every finished deal.

use super::error::ReplayError;
use super::event::TableEvent;
use super::state::Table;
pub use kozyr_game::records::DealRecord;
use kozyr_game::records::DealRecorder;

/// Replays `log` (a table's whole log, from its creation) and returns the
/// record of every deal finished in it, in order.
///
/// ```
/// use kozyr_table::records::deal_records;
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
    let mut recorder: Option<DealRecorder> = None;
    let mut records = Vec::new();
    for event in rest {
        table.apply(event)?;
        let series = table.series_no();
        match event {
            TableEvent::SeriesStarted { .. } => {
                recorder = table.game().map(|g| DealRecorder::start(g, &name, series));
            }
            TableEvent::Acted { events, .. } => {
                let (Some(game), Some(r)) = (table.game(), recorder.as_mut()) else {
                    continue;
                };
                if let Some(record) = r.feed(events, game, &name, series) {
                    records.push(record);
                    recorder = Some(DealRecorder::start(game, &name, series));
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
