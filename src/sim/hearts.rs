//! Hearts deal records: plays whole games with a chooser per decision and
//! writes one record per deal, in the format of issue 3.
//!
//! Entry point: [`play_game`]`(table, series, options, seed, choose)` plays
//! one game (deals until someone reaches `options.end_score`) and returns
//! its [`DealRecord`]s in order; serialize each with `serde_json` for one
//! JSON line per deal. `choose(seat, seen, legal)` picks one of `legal`
//! (never empty) from what `seat` may know (its view and the events it saw); for different players per seat,
//! dispatch on `seat` inside the closure. [`random_chooser`] is a seeded
//! uniform chooser; [`game_seed`] derives each game's seed from a run seed.
//!
//! The function is pure: no IO, no clock; the same arguments and choices
//! give the same records.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{SimError, SimOptions, Summary};
use crate::ai::hearts::{DealLog, Observation};
use crate::ai::{AgentConfig, AgentKind, Budget, Rules};
use crate::cards::{CardSet, Seat};
use crate::hearts::{Action, Event, HeartsOptions, Match, PassDirection};

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

/// Plays one game of Hearts from `seed` and returns one record per deal.
///
/// ```
/// use kozyr::hearts::HeartsOptions;
/// use kozyr::sim::hearts::{play_game, random_chooser};
/// let records = play_game("t", 1, HeartsOptions::default(), 5, random_chooser(9)).unwrap();
/// let last = records.last().unwrap();
/// assert!(last.game_over && last.total_points.iter().any(|&t| t >= 100));
/// assert!(records.iter().all(|r| r.events.len() == 52 + 13));
/// ```
pub fn play_game<C>(
    table: &str,
    series: u32,
    options: HeartsOptions,
    seed: u64,
    mut choose: C,
) -> Result<Vec<DealRecord>, SimError>
where
    C: FnMut(Seat, &Observation, &[Action]) -> Action,
{
    let mut game = Match::new(options, seed);
    let mut log = DealLog::default();
    let mut records = Vec::new();
    let mut current = start_record(&game, table, series);
    let mut legal = Vec::new();
    let mut events = Vec::new();
    while let Some(seat) = game.awaiting().next() {
        legal.clear();
        game.legal_actions_into(seat, &mut legal);
        let action = choose(seat, &log.observation(&game, seat), &legal);
        events.clear();
        game.apply_into(seat, action, &mut events)
            .map_err(|error| SimError::IllegalChoice {
                seat: seat.index() as u8,
                reason: format!("{action:?}: {error}"),
            })?;
        log.record(&events);
        for event in events.drain(..) {
            match event {
                Event::Passed { seat, cards, .. } => {
                    if let Some(slot) = current.passes.get_mut(seat.index()) {
                        *slot = cards;
                    }
                }
                Event::Play { .. } | Event::Trick { .. } => current.events.push(event),
                Event::DealOver {
                    deal_points,
                    total_points,
                    ..
                } => {
                    current.deal_points = deal_points.0;
                    current.total_points = total_points.0;
                    current.game_over = game.is_over();
                    let next = start_record(&game, table, series);
                    records.push(std::mem::replace(&mut current, next));
                }
                Event::DealStarted { .. }
                | Event::CardsExchanged { .. }
                | Event::GameOver { .. } => {}
            }
        }
    }
    Ok(records)
}

/// A record for the deal `game` is in, with what is known at its start.
fn start_record(game: &Match, table: &str, series: u32) -> DealRecord {
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

/// A chooser that picks uniformly among the legal actions, from its own
/// seeded generator: the [`crate::ai::RandomAgent`].
pub fn random_chooser(seed: u64) -> impl FnMut(Seat, &Observation, &[Action]) -> Action {
    let mut agent = crate::ai::RandomAgent::new(seed);
    // Never asked with nothing to choose; an empty pass is refused cleanly.
    move |_, _, legal| agent.pick(legal).unwrap_or(Match::EMPTY_ACTION)
}

/// The seed of game `series` in a run seeded with `run_seed`: distinct
/// games, reproducible from the run seed alone.
pub fn game_seed(run_seed: u64, series: u32) -> u64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(run_seed ^ (u64::from(series) << 32));
    rng.random()
}

/// One seat's decision maker.
type Chooser = Box<dyn FnMut(Seat, &Observation, &[Action]) -> Action>;

/// A chooser for a player of `kind` at one seat. Searching players get a
/// fixed number of playouts, so the same arguments give the same records.
fn chooser(kind: AgentKind, seed: u64) -> Chooser {
    let config = AgentConfig::deterministic(Budget::DEFAULT_PLAYOUTS);
    let mut agent = kind.agent::<Match>(seed, &config);
    Box::new(move |_, seen, legal| agent.choose(seen, legal))
}

/// `kozyr simulate --game hearts`: plays `opts.series` games and writes their records.
pub(super) fn run(opts: &SimOptions, out: &mut dyn std::io::Write) -> Result<Summary, SimError> {
    let mut summary = Summary::default();
    for n in 1..=opts.series {
        let mut players = Vec::with_capacity(4);
        for (i, &kind) in opts.players.iter().enumerate() {
            players.push(chooser(
                kind,
                super::derive_seed(opts.seed, u64::from(n), i as u64 + 1),
            ));
        }
        let choose = |seat: Seat, seen: &Observation, legal: &[Action]| {
            (players[seat.index()])(seat, seen, legal)
        };
        let records = play_game(
            &opts.table,
            n,
            opts.options.hearts,
            game_seed(opts.seed, n),
            choose,
        )?;
        for record in &records {
            serde_json::to_writer(&mut *out, record)?;
            out.write_all(b"\n")?;
        }
        summary.deals += records.len() as u64;
        summary.series += 1;
    }
    out.flush()?;
    Ok(summary)
}
