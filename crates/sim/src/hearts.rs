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

use super::{SimError, SimOptions, Summary};
use kozyr_ai::hearts::{DealLog, Observation};
use kozyr_ai::{AgentConfig, AgentKind, Budget, Rules};
use kozyr_cards::Seat;
use kozyr_hearts::{Action, HeartsOptions, Match};

pub use kozyr_hearts::DealRecord;

/// Plays one game of Hearts from `seed` and returns one record per deal.
///
/// ```
/// use kozyr_hearts::HeartsOptions;
/// use kozyr_sim::hearts::{play_game, random_chooser};
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
    let mut current = DealRecord::start(&game, table, series);
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
            if current.take(&event, game.is_over()) {
                let next = DealRecord::start(&game, table, series);
                records.push(std::mem::replace(&mut current, next));
            }
        }
    }
    Ok(records)
}

/// A chooser that picks uniformly among the legal actions, from its own
/// seeded generator: the [`kozyr_ai::RandomAgent`].
pub fn random_chooser(seed: u64) -> impl FnMut(Seat, &Observation, &[Action]) -> Action {
    let mut agent = kozyr_ai::RandomAgent::new(seed);
    // Never asked with nothing to choose; an empty pass is refused cleanly.
    move |_, _, legal| agent.pick(legal).unwrap_or(Match::EMPTY_ACTION)
}

pub use kozyr_ai::seeds::game_seed;

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
