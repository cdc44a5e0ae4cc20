//! Deal records of Kozel: the JSON format of `docs/RECORDS.md`, as
//! `kozyr simulate` writes them and `kozyr export` rebuilds them from a
//! table's log. Built from the engine's own types only, so every layer
//! above (the simulator, the table's records) shares one builder.

use serde::{Deserialize, Serialize};

use super::{Deal, Event, Series, Team};
use kozyr_cards::{Card, CardSet, Seat};

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
        let deal_events = events.iter().filter(|e| is_play(e)).cloned().collect();
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
            events: events.iter().filter(|e| is_play(e)).cloned().collect(),
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

/// Whether a deal record keeps `e`: the plays, tricks and draws of the
/// deal, not its start and end (the record states those itself).
fn is_play(e: &Event) -> bool {
    matches!(
        e,
        Event::Lead { .. }
            | Event::Beat { .. }
            | Event::Pass { .. }
            | Event::Molodka { .. }
            | Event::Trick { .. }
            | Event::Draw { .. }
    )
}
