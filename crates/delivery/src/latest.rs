//! Latest wins, for one message kept current by calls that each take a
//! while: at most one call in flight, and when it ends only the newest
//! state waiting goes — the ones in between were never worth sending. A
//! call that failed for now (a 429, the platform down) is tried again
//! after its pause, unless a newer state came meanwhile, which then goes
//! instead at the same time.
//!
//! The [`pacing::Pacer`](super::pacing::Pacer) keeps such slots for a
//! platform whose limits kozyr keeps itself (Telegram); this is the slot
//! alone, for a platform whose client keeps its limits (twilight holds each
//! Discord call until its route's bucket allows it). Sans-IO: time comes in
//! as `now`.

use std::time::{Duration, Instant};

/// One message's latest-wins slot; `T`: the state it is to show.
#[derive(Debug)]
pub struct Latest<T> {
    /// The newest state not yet sent.
    waiting: Option<T>,
    /// A call is in flight.
    busy: bool,
    /// Nothing goes before this (a failed call's pause).
    not_before: Option<Instant>,
    /// Calls failed for now in a row, for the next pause.
    strikes: u32,
}

impl<T> Default for Latest<T> {
    fn default() -> Latest<T> {
        Latest {
            waiting: None,
            busy: false,
            not_before: None,
            strikes: 0,
        }
    }
}

impl<T> Latest<T> {
    /// A newer state: it replaces any state still waiting.
    pub fn put(&mut self, state: T) {
        self.waiting = Some(state);
    }

    /// The state to send now, if one waits and may go: the slot is then
    /// busy until [`Latest::sent`] or [`Latest::failed`].
    pub fn take(&mut self, now: Instant) -> Option<T> {
        if self.busy || self.not_before.is_some_and(|t| now < t) {
            return None;
        }
        let state = self.waiting.take()?;
        self.busy = true;
        self.not_before = None;
        Some(state)
    }

    /// The call landed (or failed for good: nothing is retried).
    pub fn sent(&mut self) {
        self.busy = false;
        self.strikes = 0;
    }

    /// The call with `state` failed for now: it goes again after `pause`,
    /// unless a newer state came meanwhile, which goes then instead.
    pub fn failed(&mut self, state: T, pause: Duration, now: Instant) {
        self.busy = false;
        self.strikes = self.strikes.saturating_add(1);
        self.not_before = Some(now + pause);
        if self.waiting.is_none() {
            self.waiting = Some(state);
        }
    }

    /// Calls failed for now in a row before this one.
    pub fn strikes(&self) -> u32 {
        self.strikes
    }

    /// Whether a call is in flight.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Whether a state waits to go.
    pub fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    /// When a waiting state may go, if it must wait for a pause to end
    /// (`None`: nothing waits for a time).
    pub fn wake(&self) -> Option<Instant> {
        if self.busy || self.waiting.is_none() {
            return None;
        }
        self.not_before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn one_call_at_a_time_and_only_the_newest_state() {
        let t0 = Instant::now();
        let mut slot = Latest::default();
        assert_eq!(slot.take(t0), None::<u32>);
        slot.put(1);
        assert_eq!(slot.take(t0), Some(1));
        assert!(slot.is_busy());
        slot.put(2);
        slot.put(3);
        assert_eq!(slot.take(t0), None, "one call in flight");
        slot.sent();
        assert_eq!(slot.take(t0), Some(3), "2 was never worth sending");
        slot.sent();
        assert_eq!(slot.take(t0), None);
    }

    #[test]
    fn a_failed_call_goes_again_after_its_pause_unless_a_newer_state_came() {
        let t0 = Instant::now();
        let mut slot = Latest::default();
        slot.put(1);
        let sent = slot.take(t0).unwrap();
        slot.failed(sent, 2 * S, t0);
        assert_eq!(slot.strikes(), 1);
        assert_eq!(slot.wake(), Some(t0 + 2 * S));
        assert_eq!(slot.take(t0 + S), None, "within the pause");
        assert_eq!(slot.take(t0 + 2 * S), Some(1));
        slot.sent();
        assert_eq!(slot.strikes(), 0);

        slot.put(2);
        let sent = slot.take(t0).unwrap();
        slot.put(3);
        slot.failed(sent, S, t0);
        assert_eq!(slot.take(t0 + S), Some(3), "the newer state instead");
        assert_eq!(slot.wake(), None);
    }
}
