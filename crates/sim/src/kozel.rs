//! Kozel deal records and the simulation loop that writes them.

use std::io::Write;

use super::{SimError, SimOptions, Summary, derive_seed};
use kozyr_ai::kozel::{DealLog, KozelAgent};
use kozyr_ai::{AgentConfig, AgentKind, Budget, next_move};
pub use kozyr_kozel::KozelRecord;
use kozyr_kozel::Series;

/// Plays one series between `agents` and hands each finished deal's record to `sink`.
pub fn play_series(
    table: &str,
    series_no: u32,
    seed: u64,
    agents: &mut [Box<KozelAgent>; 4],
    mut sink: impl FnMut(KozelRecord) -> Result<(), SimError>,
) -> Result<u64, SimError> {
    let mut series = Series::new(seed);
    let mut log = DealLog::default();
    let mut deals = 0;
    let mut events = Vec::new();
    while !series.is_over() {
        let start = series.deal().clone();
        let deal_no = series.deal_no();
        events.clear();
        while series.deal_no() == deal_no && !series.is_over() {
            let (seat, action) = next_move(&series, &log, agents, |_| {}).ok_or_else(|| {
                SimError::IllegalChoice {
                    seat: 0,
                    reason: "nobody is to act".into(),
                }
            })?;
            let from = events.len();
            series
                .apply_into(seat, action, &mut events)
                .map_err(|e| SimError::IllegalChoice {
                    seat: seat.index() as u8,
                    reason: e.to_string(),
                })?;
            log.record(&events[from..]);
        }
        if let Some(record) = KozelRecord::new(table, series_no, &start, &events, &series) {
            sink(record)?;
        }
        deals += 1;
    }
    Ok(deals)
}

pub(super) fn run(opts: &SimOptions, out: &mut dyn Write) -> Result<Summary, SimError> {
    let mut summary = Summary::default();
    let mut line = Vec::with_capacity(4096);
    for n in 1..=opts.series {
        let mut agents = agents(&opts.players, |seat| {
            derive_seed(opts.seed, u64::from(n), seat + 1)
        });
        let seed = derive_seed(opts.seed, u64::from(n), 0);
        summary.deals += play_series(&opts.table, n, seed, &mut agents, |record| {
            line.clear();
            serde_json::to_writer(&mut line, &record)?;
            line.push(b'\n');
            out.write_all(&line)?;
            Ok(())
        })?;
        summary.series += 1;
    }
    out.flush()?;
    Ok(summary)
}

/// The four players `kinds`, each seeded from `seed(seat)`. Searching
/// players get a fixed number of playouts, not a time budget, so that the
/// same arguments always give the same records.
fn agents(kinds: &[AgentKind; 4], seed: impl Fn(u64) -> u64) -> [Box<KozelAgent>; 4] {
    let config = AgentConfig::deterministic(Budget::DEFAULT_PLAYOUTS);
    [0usize, 1, 2, 3].map(|i| kinds[i].agent::<Series>(seed(i as u64), &config))
}
