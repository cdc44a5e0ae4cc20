//! Deal records of Hearts: the JSON format of `docs/RECORDS.md` (issue 3),
//! as `kozyr simulate` writes them and `kozyr export` rebuilds them from a
//! table's log. Built from the engine's own types only, so every layer
//! above (the simulator, the table's records) shares one builder.

use serde::{Deserialize, Serialize};

use super::{Event, HeartsOptions, Match, PassDirection};
use kozyr_cards::{CardSet, Seat};

/// One deal of one game, as written to a records file.
///
/// ```json
/// {"game":"hearts","table":"t1","series":1,"deal":1,"dealer":2,
///  "options":{"shoot_the_moon":false,"end_score":100,"any_heart_breaks":false},
///  "hands":[[…13 cards…],…], "pass_direction":"left", "passes":[[…3…],…],
///  "events":[{"kind":"play","seat":3,"card":"2C"},…,{"kind":"trick","winner":1,"points":0},…],
///  "deal_points":[4,0,9,13], "total_points":[4,0,9,13], "game_over":false}
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealRecord {
    /// Always `"hearts"`.
    pub game: String,
    pub table: String,
    /// The game's number within the run, from 1.
    pub series: u32,
    /// The deal's number within the game, from 1.
    pub deal: u32,
    pub dealer: Seat,
    pub options: HeartsOptions,
    /// The hands as dealt, before passing, by seat.
    pub hands: [CardSet; 4],
    pub pass_direction: PassDirection,
    /// What each seat passed, by seat; empty (`[]`) on a no-pass deal.
    pub passes: Vec<CardSet>,
    /// Only `play` and `trick` events, in order.
    pub events: Vec<Event>,
    /// What each seat scored this deal, after shooting the moon.
    pub deal_points: [u32; 4],
    /// Running totals after this deal.
    pub total_points: [u32; 4],
    /// Whether the game ended with this deal.
    pub game_over: bool,
    /// A deal still being played (`kozyr export --with-current`):
    /// `deal_points` are zero, `total_points` as before it. Written only
    /// when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unfinished: bool,
}

impl DealRecord {
    /// A record for the deal `game` is in, with what is known at its start.
    pub fn start(game: &Match, table: &str, series: u32) -> DealRecord {
        let deal = game.deal();
        let direction = deal.pass_direction();
        DealRecord {
            game: "hearts".to_owned(),
            table: table.to_owned(),
            series,
            deal: deal.number(),
            dealer: deal.dealer(),
            options: game.options(),
            hands: deal.dealt().0,
            pass_direction: direction,
            passes: match direction {
                PassDirection::None => Vec::new(),
                _ => vec![CardSet::EMPTY; 4],
            },
            events: Vec::with_capacity(65),
            deal_points: [0; 4],
            total_points: game.totals().0,
            game_over: false,
            unfinished: false,
        }
    }

    /// Takes one event of the deal; `true` when it ended the deal (the
    /// record is then complete). `game_over`: the game ended with it.
    pub fn take(&mut self, event: &Event, game_over: bool) -> bool {
        match event {
            Event::Passed { seat, cards, .. } => {
                if let Some(slot) = self.passes.get_mut(seat.index()) {
                    *slot = *cards;
                }
            }
            Event::Play { .. } | Event::Trick { .. } => self.events.push(event.clone()),
            Event::DealOver {
                deal_points,
                total_points,
                ..
            } => {
                self.deal_points = deal_points.0;
                self.total_points = total_points.0;
                self.game_over = game_over;
                return true;
            }
            Event::DealStarted { .. } | Event::CardsExchanged { .. } | Event::GameOver { .. } => {}
        }
        false
    }
}
