//! What a command adds to the chat's and the players' statistics.

use super::event::TableEvent;
use super::model::{SeatState, UserId};
use super::state::Table;
use kozyr_cards::Seat;

/// Counters kept per chat, game and player (and per chat and game, with
/// the per-player fields left at zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub series_played: i64,
    pub series_won: i64,
    pub series_lost: i64,
    /// Kozel: series lost as the goat.
    pub goat: i64,
    pub deals_played: i64,
    pub deals_won: i64,
    /// Kozel: deals that ended 60–60.
    pub eggs_deals: i64,
    /// Final scores summed over series (Hearts).
    pub points: i64,
}

impl Counters {
    /// Average final score per series (Hearts), once one was played.
    pub fn average_points(&self) -> Option<f64> {
        (self.series_played > 0).then(|| self.points as f64 / self.series_played as f64)
    }
}

impl Counters {
    pub fn is_zero(&self) -> bool {
        *self == Counters::default()
    }

    pub fn add(&mut self, o: &Counters) {
        self.series_played += o.series_played;
        self.series_won += o.series_won;
        self.series_lost += o.series_lost;
        self.goat += o.goat;
        self.deals_played += o.deals_played;
        self.deals_won += o.deals_won;
        self.eggs_deals += o.eggs_deals;
        self.points += o.points;
    }
}

/// The statistics one change adds: for the chat, and for each person seated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatsDelta {
    pub chat: Counters,
    pub players: Vec<(UserId, Counters)>,
}

impl StatsDelta {
    pub fn is_empty(&self) -> bool {
        self.chat.is_zero() && self.players.is_empty()
    }
}

/// Tallies the deals and series `events` finished at `after`. A seat the AI
/// plays for an away person still counts for that person; AI seats count
/// only in the chat's totals.
pub fn stats_delta(after: &Table, events: &[TableEvent]) -> StatsDelta {
    let mut per_seat: [Counters; 4] = Default::default();
    let mut chat = Counters::default();
    for e in events {
        let TableEvent::Acted { events, .. } = e else {
            continue;
        };
        for ge in events {
            if let Some(deal) = ge.deal_outcome() {
                chat.deals_played += 1;
                chat.eggs_deals += i64::from(deal.eggs);
                for s in Seat::ALL {
                    let c = &mut per_seat[s.index()];
                    c.deals_played += 1;
                    c.deals_won += i64::from(deal.won[s]);
                    c.eggs_deals += i64::from(deal.eggs);
                }
            }
            if ge.milestone() == Some(kozyr_game::Milestone::Series) {
                let Some(series) = after.game().and_then(|g| g.series_outcome()) else {
                    continue;
                };
                chat.series_played += 1;
                for s in Seat::ALL {
                    let c = &mut per_seat[s.index()];
                    c.series_played += 1;
                    c.series_won += i64::from(series.won[s]);
                    c.series_lost += i64::from(!series.won[s]);
                    c.goat += i64::from(series.goat[s]);
                    c.points += series.points.map_or(0, |p| i64::from(p[s]));
                }
            }
        }
    }
    let players = Seat::ALL
        .into_iter()
        .filter(|s| !per_seat[s.index()].is_zero())
        .filter_map(|s| match &after.seats()[s] {
            SeatState::Person { player, .. } => Some((player.id.clone(), per_seat[s.index()])),
            _ => None,
        })
        .collect();
    StatsDelta { chat, players }
}
