//! The rules of a long poll that confirms an update only once it was
//! handled, and of what reaches the handlers at all; sans-IO (the shell's
//! loop makes the calls and the waits, and says what happened).
//!
//! A platform that hands updates out by offset (Telegram's `getUpdates`)
//! forgets what is below the offset of the next call. [`Cursor`] never
//! asks past the oldest update still in flight, skips the
//! repeats such an ask brings back, says how long to wait for a handler
//! before asking again (50 ms, doubling to 0.2 s while nothing new
//! comes, so a handler stuck on a slow platform does not make the loop
//! spin), how long to pause after a failed call, and the offset that
//! confirms what was handled at a stop.
//!
//! [`admit`] is what an update meets before the handlers: a press over
//! its person's or its chat's rate, or any update of a chat with
//! [`CHAT_IN_FLIGHT`] already waiting, is turned away, so one person or
//! one chat cannot hold up the others. [`replace_lone_surrogates`] mends
//! a batch no JSON parser reads because a name was cut mid-emoji.

use std::time::{Duration, Instant};

use kozyr_front::press_limits::PressLimits;

/// How long a poll waits for a handler to finish before asking again;
/// the wait doubles while nothing new comes, up to [`RECHECK_MAX`].
pub const RECHECK: Duration = Duration::from_millis(50);
pub const RECHECK_MAX: Duration = Duration::from_millis(200);

/// The longest pause after failed calls in a row: 1 s doubling to 64 s.
const MAX_DOUBLINGS: u32 = 6;

/// Where a long poll stands: the id after the newest update it handed on,
/// the wait for a handler, the failures in a row.
#[derive(Debug)]
pub struct Cursor {
    next: u32,
    recheck: Duration,
    errors: u32,
}

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor {
            next: 0,
            recheck: RECHECK,
            errors: 0,
        }
    }
}

/// The next poll: from `offset` (what is below it is confirmed), held
/// open for `hold` while nothing comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    pub offset: u32,
    pub hold: Duration,
}

impl Cursor {
    /// The next poll, with `oldest` the oldest update still in flight:
    /// the offset never passes it, and with one in flight the platform
    /// answers at once anyway (with it again), so nothing is held.
    pub fn ask(&self, oldest: Option<u32>, hold: Duration) -> Ask {
        match oldest {
            Some(oldest) => Ask {
                offset: oldest,
                hold: Duration::ZERO,
            },
            None => Ask {
                offset: self.next,
                hold,
            },
        }
    }

    /// Whether an update of the batch (`id`, if it could be read) is new;
    /// the cursor moves past it. An update below the cursor was handed on
    /// already (in flight, it came back with the ask).
    pub fn take(&mut self, id: Option<u32>) -> bool {
        match id {
            Some(id) if id < self.next => false,
            Some(id) => {
                self.next = id.saturating_add(1);
                true
            }
            None => true,
        }
    }

    /// A batch was read, `fresh` updates of it handed on: how long to
    /// wait for a handler before asking again, if at all (`in_flight`:
    /// updates are still being handled; the wait ends early when one is).
    pub fn batch_read(&mut self, fresh: usize, in_flight: bool) -> Option<Duration> {
        self.errors = 0;
        if fresh > 0 {
            self.recheck = RECHECK;
            return None;
        }
        in_flight.then_some(self.recheck)
    }

    /// The wait [`Cursor::batch_read`] asked for ended: a handler
    /// `finished`, or nothing did and the next wait is longer.
    pub fn waited(&mut self, finished: bool) {
        self.recheck = if finished {
            RECHECK
        } else {
            (self.recheck * 2).min(RECHECK_MAX)
        };
    }

    /// A poll failed: the pause before the next, the platform's
    /// `retry_after` if it said one, else 1 s doubling with each failure
    /// in a row up to 64 s.
    pub fn failed(&mut self, retry_after: Option<Duration>) -> Duration {
        let pause = retry_after.unwrap_or(Duration::from_secs(1 << self.errors.min(MAX_DOUBLINGS)));
        self.errors += 1;
        pause
    }

    /// The offset that confirms what was handled at a stop (`oldest`
    /// still in flight stays unconfirmed, so the platform delivers it
    /// again after a restart); `None` when nothing was ever read.
    pub fn confirming(&self, oldest: Option<u32>) -> Option<u32> {
        (self.next > 0).then(|| oldest.unwrap_or(self.next))
    }
}

/// Past this many updates of one chat in flight, more of that chat are
/// not handed to the handlers (they handle one chat's updates one after
/// another, so a flood's backlog would only grow, and with it the time
/// before the poll's offset passes it): presses are answered "too fast",
/// anything else is dropped.
pub const CHAT_IN_FLIGHT: usize = 32;

/// What happens to an update before the handlers see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Handed to the handlers.
    Dispatch,
    /// A press over its limits: answered "too fast" at once, beside the
    /// handlers, and it changes nothing.
    TooFast,
    /// Dropped: its chat has too many updates waiting.
    Drop,
}

/// Who pressed where, for a press; `None` for any other update.
pub type Presser = Option<(u64, i64)>;

/// What happens to an update with `waiting` updates of its chat in
/// flight; a press (`presser`) counts against its person's and its
/// chat's rate.
pub fn admit(
    limits: &mut PressLimits,
    waiting: usize,
    presser: Presser,
    now: Instant,
) -> Admission {
    let backlog = waiting >= CHAT_IN_FLIGHT;
    match presser {
        None if backlog => Admission::Drop,
        None => Admission::Dispatch,
        Some(_) if backlog => Admission::TooFast,
        Some((person, chat)) if limits.admit(person, chat, now) => Admission::Dispatch,
        Some(_) => Admission::TooFast,
    }
}

fn hex4(s: &str) -> Option<u16> {
    let digits = s.get(..4)?;
    if digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        u16::from_str_radix(digits, 16).ok()
    } else {
        None
    }
}

/// JSON text with every `\uXXXX` escape of a lone UTF-16 surrogate (which
/// JSON parsers reject) replaced by `\ufffd`; pairs are kept. A
/// platform may cut a name in the middle of an emoji: its batch of
/// updates is then read again repaired, rather than lost.
pub fn replace_lone_surrogates(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        let Some(unit) = escape.strip_prefix("\\u").and_then(hex4) else {
            // Another escape (or an escaped backslash): kept whole.
            let len = escape.chars().take(2).map(char::len_utf8).sum();
            out.push_str(&escape[..len]);
            rest = &escape[len..];
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        let paired = high
            && escape[6..]
                .strip_prefix("\\u")
                .and_then(hex4)
                .is_some_and(|next| (0xDC00..0xE000).contains(&next));
        if paired {
            out.push_str(&escape[..12]);
            rest = &escape[12..];
        } else {
            out.push_str(if high || low { "\\ufffd" } else { &escape[..6] });
            rest = &escape[6..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kozyr_front::press_limits::PressRates;

    const HOLD: Duration = Duration::from_secs(30);

    #[test]
    fn the_offset_never_passes_an_update_in_flight() {
        let mut c = Cursor::default();
        assert_eq!(c.confirming(None), None, "nothing read, nothing to confirm");
        assert_eq!(
            c.ask(None, HOLD),
            Ask {
                offset: 0,
                hold: HOLD
            }
        );
        assert!([5, 6, 7].map(|id| c.take(Some(id))).iter().all(|&new| new));
        // 6 is still being handled: asked from it, at once.
        let ask = c.ask(Some(6), HOLD);
        assert_eq!(
            ask,
            Ask {
                offset: 6,
                hold: Duration::ZERO
            }
        );
        // The answer brings 6 and 7 back, and 8 with them.
        let batch = [Some(6), Some(7), Some(8)].map(|id| c.take(id));
        assert_eq!(batch, [false, false, true]);
        assert_eq!(c.confirming(Some(6)), Some(6));
        // All handled: past the newest, holding.
        assert_eq!(
            c.ask(None, HOLD),
            Ask {
                offset: 9,
                hold: HOLD
            }
        );
        assert_eq!(c.confirming(None), Some(9));
        // One whose id cannot be read is new but moves nothing; one that
        // could be read but not parsed moves the cursor past it.
        assert!(c.take(None));
        assert!(c.take(Some(9)));
        assert_eq!(c.ask(None, HOLD).offset, 10);
    }

    #[test]
    fn the_wait_for_a_handler_doubles_while_nothing_comes() {
        let mut c = Cursor::default();
        // Nothing in flight: the next poll holds instead.
        assert_eq!(c.batch_read(0, false), None);
        let mut waits = Vec::new();
        for _ in 0..4 {
            waits.push(c.batch_read(0, true).unwrap().as_millis());
            c.waited(false);
        }
        assert_eq!(waits, [50, 100, 200, 200]);
        // Something new, or a handler finishing, starts over.
        assert_eq!(c.batch_read(2, true), None);
        assert_eq!(c.batch_read(0, true), Some(RECHECK));
        c.waited(false);
        c.waited(true);
        assert_eq!(c.batch_read(0, true), Some(RECHECK));
    }

    #[test]
    fn failed_polls_pause_longer_each_time_and_a_batch_starts_over() {
        let mut c = Cursor::default();
        let pauses: Vec<u64> = (0..8).map(|_| c.failed(None).as_secs()).collect();
        assert_eq!(pauses, [1, 2, 4, 8, 16, 32, 64, 64]);
        assert_eq!(c.failed(Some(Duration::from_secs(3))).as_secs(), 3);
        c.batch_read(0, false);
        assert_eq!(c.failed(None).as_secs(), 1);
    }

    #[test]
    fn a_flooded_chat_turns_updates_away_and_a_press_meets_its_rates() {
        let now = Instant::now();
        let mut limits = PressLimits::new(
            kozyr_front::press_limits::Rate {
                per_second: 0.001,
                burst: 1.0,
            },
            PressRates::PEOPLE.chat,
        );
        let ann = Some((7, -100));
        assert_eq!(admit(&mut limits, 0, None, now), Admission::Dispatch);
        assert_eq!(admit(&mut limits, 0, ann, now), Admission::Dispatch);
        // Ann's one press is spent; Bob in the same chat is not Ann.
        assert_eq!(admit(&mut limits, 0, ann, now), Admission::TooFast);
        assert_eq!(
            admit(&mut limits, 0, Some((8, -100)), now),
            Admission::Dispatch
        );
        // A chat with a backlog: a press is answered, the rest dropped,
        // and the press spends nothing of its person's rate.
        let full = CHAT_IN_FLIGHT;
        assert_eq!(admit(&mut limits, full, None, now), Admission::Drop);
        assert_eq!(
            admit(&mut limits, full, Some((9, -100)), now),
            Admission::TooFast
        );
        assert_eq!(
            admit(&mut limits, full - 1, Some((9, -100)), now),
            Admission::Dispatch
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters_and_pairs_stay() {
        let check = |raw: &str, expect: &str| assert_eq!(replace_lone_surrogates(raw), expect);
        check(r#"{"a":"x\ud83dy"}"#, r#"{"a":"x\ufffdy"}"#);
        check(r#"{"a":"\ude00"}"#, r#"{"a":"\ufffd"}"#);
        check(r#"{"a":"\ud83d\ude00"}"#, r#"{"a":"\ud83d\ude00"}"#);
        check(
            r#"{"a":"\\ud83d \u0041 \n ё"}"#,
            r#"{"a":"\\ud83d \u0041 \n ё"}"#,
        );
        check(r#"{"a":"\ud83d"#, r#"{"a":"\ufffd"#);
        check(r#"{"a":"\ud8"}"#, r#"{"a":"\ud8"}"#);
    }
}
