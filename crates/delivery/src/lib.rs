//! Delivery: what each person is shown, when, and how often — the part of
//! output that no platform owns.
//!
//! The front makes screens; the shells know ids, markup and their
//! platform's calls. Between them, the decisions every platform needs are
//! made here, sans-IO (time comes in as an input, nothing here awaits;
//! `kozyr-outlet`, above it, is the loop that does):
//!
//! - [`pacing`]: the scheduler — latest state wins per message, nothing
//!   that changes nothing goes out, per-chat and bot-wide limits,
//!   priorities when the budget is short, retries after 429s;
//! - [`latest`]: latest wins for one message whose platform keeps its
//!   limits itself — one call in flight, the newest state next, a call
//!   failed for now tried again after its pause;
//! - [`content`]: the one content hash, the same on every build, by which
//!   what a message shows is compared and kept over a restart;
//! - [`news`]: announcements wait for their table's next render, worded
//!   with the state after them, and a deal's start posts the table anew;
//! - [`restore`]: which message shows each table, and what it showed at
//!   the last graceful stop, read once at a start;
//! - [`alerts`]: who is told, with a notifying message, that it is their
//!   turn — once per turn, only when they are not looking;
//! - [`transport`]: what a failed platform call means, in no platform's
//!   terms, and the one decision of what happens next (retry when, post
//!   anew, forget the message, mark the person unreachable, drop);
//! - [`told`]: where what concerns one person is said, when the bot may
//!   be unable to write to their private chat;
//! - [`hand_tokens`]: which token edits a hand the platform lets the bot
//!   reach only through the newest answer to its person, until it
//!   expires, and what a change of the hand writes first;
//! - [`polling`]: the intake's side — what reaches the handlers (a
//!   press over its rates, a chat with too many waiting), and a long
//!   poll's offset, which confirms an update only once it was handled;
//! - [`engine`]: the parts above combined in one state machine that the
//!   shell only executes, for a platform that keeps its limits itself
//!   (Discord's table messages, pings and hands);
//! - [`lane`]: the same for a platform whose limits the bot keeps
//!   through a [`pacing::Pacer`] (Telegram's every message).
//!
//! Each platform is a transport beneath these: it maps its failures into a
//! [`transport::Failure`] and does what [`transport::Policy::next`] says.
//! Telegram executes what the [`lane::PacedLane`] decides, in Bot API
//! calls (`kozyr-telegram`'s `outbox.rs`); Discord lets twilight keep its per-route
//! buckets and executes what the [`engine::Engine`] decides
//! (`kozyr-discord`'s `outbox.rs`).

pub mod alerts;
pub mod burial;
pub mod content;
pub mod engine;
pub mod gate;
pub mod hand_tokens;
pub mod interaction;
pub mod lane;
pub mod latest;
pub mod news;
pub mod pacing;
pub mod polling;
pub mod restore;
pub mod told;
pub mod transport;

/// The hasher of every map and set here: the same in every process, so
/// the order they are walked in follows from their keys alone, and each
/// decision from the inputs alone — a simulation's seed replays the same
/// run anywhere. Their keys are ids the platforms give (chats, people,
/// tables) and the bot's own routes, which no sender picks to collide.
pub type Fixed = std::hash::BuildHasherDefault<std::hash::DefaultHasher>;

/// A map walked in the same order in every process ([`Fixed`]).
pub type Map<K, V> = std::collections::HashMap<K, V, Fixed>;

/// A set walked in the same order in every process ([`Fixed`]).
pub type Set<T> = std::collections::HashSet<T, Fixed>;

/// The seeds a simulation test runs: `default` of them, or what
/// `KOZYR_SIM_SEEDS` says (`N`: seeds 0 to N; `A..B`), to search further
/// for a rare case (`KOZYR_SIM_SEEDS=1000..50000 cargo test --release -p
/// kozyr-delivery sim`). Each run goes through [`sim_run`], so a seed that
/// fails names itself, and replays alone the same way ([`Fixed`]).
#[cfg(test)]
pub(crate) fn sim_seeds(default: u64) -> std::ops::Range<u64> {
    let asked = std::env::var("KOZYR_SIM_SEEDS").ok();
    let parse = |s: &str| s.trim().parse::<u64>().ok();
    match asked.as_deref().map(|s| s.split_once("..")) {
        Some(Some((a, b))) => parse(a).zip(parse(b)).map(|(a, b)| a..b),
        Some(None) => asked.as_deref().and_then(parse).map(|n| 0..n),
        None => Some(0..default),
    }
    .unwrap_or_else(|| panic!("KOZYR_SIM_SEEDS is N or A..B, not {asked:?}"))
}

/// How one store write goes in a simulation whose store has `faults`
/// (`unknown_faults`: the writes that make a hash unknown before a change,
/// `unknown_first`, fail too): refused, or landed but answered after the
/// bot stopped waiting (pending), now and then; else landed.
#[cfg(test)]
pub(crate) fn sim_store_write(
    rng: &mut impl rand::Rng,
    (faults, unknown_faults): (bool, bool),
    unknown_first: bool,
) -> content::Write {
    use rand::RngExt;
    if !faults || (unknown_first && !unknown_faults) {
        return content::Write::Landed;
    }
    match rng.random_range(0..20) {
        0 | 1 => content::Write::Failed,
        2 => content::Write::Pending,
        _ => content::Write::Landed,
    }
}

/// Runs one simulation `seed` with `run`: a failure names the seed, so
/// that it can be run alone (`KOZYR_SIM_SEEDS=S..S+1`).
#[cfg(test)]
pub(crate) fn sim_run<T>(seed: u64, run: impl FnOnce(u64) -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(seed))) {
        Ok(t) => t,
        Err(e) => {
            let why = (e.downcast_ref::<String>().map(String::as_str))
                .or_else(|| e.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            panic!("seed {seed} failed: {why}")
        }
    }
}
