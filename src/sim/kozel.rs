//! Kozel deal records and the simulation loop that writes them.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::{SimError, SimOptions, Summary, derive_seed};
use crate::ai::kozel::{DealLog, KozelAgent};
use crate::ai::{AgentConfig, AgentKind, Budget, next_move};
use crate::cards::{Card, CardSet, Seat};
use crate::kozel::{Deal, Event, Series, Team};

/// One deal as the record format describes it (`docs/RECORDS.md`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KozelRecord {
    pub game: String,
    pub table: String,
    pub series: u32,
    pub deal: u32,
    pub dealer: Seat,
    pub first_leader: Seat,
    pub trump_card: Card,
    /// As dealt, seat 0 to 3.
    pub hands: [CardSet; 4],
    /// Top first, as after the deal; includes the revealed card.
    pub stock: Vec<Card>,
    /// Plays, tricks and draws in the order they happened.
    pub events: Vec<Event>,
    pub team_points: [u32; 2],
    pub team_tricks: [u32; 2],
    pub defeat_points: [u32; 2],
    pub eggs: bool,
    /// After this deal.
    pub series_defeat_points: [u32; 2],
    pub series_over: bool,
    pub goat: Option<Team>,
    /// A deal still being played (`kozyr export --with-current`): the
    /// result fields are zero and the series fields are as it stands.
    /// Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unfinished: bool,
}

impl KozelRecord {
    /// Builds the record of a finished deal from the deal as it was dealt,
    /// the events it produced and the series after it.
    pub fn new(
        table: &str,
        series_no: u32,
        start: &Deal,
        events: &[Event],
        after: &Series,
    ) -> Option<KozelRecord> {
        let result = events.iter().find_map(|e| match e {
            Event::DealOver(r) => Some(*r),
            _ => None,
        })?;
        let deal_events = events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Event::Lead { .. }
                        | Event::Beat { .. }
                        | Event::Pass { .. }
                        | Event::Molodka { .. }
                        | Event::Trick { .. }
                        | Event::Draw { .. }
                )
            })
            .cloned()
            .collect();
        let deal_no = if after.is_over() {
            after.deal_no()
        } else {
            after.deal_no() - 1
        };
        Some(KozelRecord {
            game: "kozel".into(),
            table: table.into(),
            series: series_no,
            deal: deal_no,
            dealer: start.dealer(),
            first_leader: start.first_leader(),
            trump_card: start.trump_card(),
            hands: start.dealt().0,
            stock: start.stock().to_vec(),
            events: deal_events,
            team_points: result.team_points,
            team_tricks: result.team_tricks,
            defeat_points: result.defeat_points,
            eggs: result.eggs,
            series_defeat_points: after.defeat_points(),
            series_over: after.is_over(),
            goat: after.goat(),
            unfinished: false,
        })
    }

    /// The record of the deal `now` is playing, as far as `events` went;
    /// `None` once the series is over.
    pub fn unfinished(
        table: &str,
        series_no: u32,
        start: &Deal,
        events: &[Event],
        now: &Series,
    ) -> Option<KozelRecord> {
        if now.is_over() {
            return None;
        }
        Some(KozelRecord {
            game: "kozel".into(),
            table: table.into(),
            series: series_no,
            deal: now.deal_no(),
            dealer: start.dealer(),
            first_leader: start.first_leader(),
            trump_card: start.trump_card(),
            hands: start.dealt().0,
            stock: start.stock().to_vec(),
            events: events
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        Event::Lead { .. }
                            | Event::Beat { .. }
                            | Event::Pass { .. }
                            | Event::Molodka { .. }
                            | Event::Trick { .. }
                            | Event::Draw { .. }
                    )
                })
                .cloned()
                .collect(),
            team_points: [0; 2],
            team_tricks: [0; 2],
            defeat_points: [0; 2],
            eggs: false,
            series_defeat_points: now.defeat_points(),
            series_over: false,
            goat: None,
            unfinished: true,
        })
    }
}

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
