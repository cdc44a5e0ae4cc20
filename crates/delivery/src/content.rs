//! The content hash: what a message shows, as one number.
//!
//! FNV-1a over the message's parts (its text, then its buttons in a
//! platform's own serialization), each part after the first preceded by a
//! 0xff byte, which no UTF-8 text contains. Unlike std's hasher it is the
//! same on every build and every run, so a hash saved before a restart
//! still says whether a render would change anything. Telegram's hashes
//! saved by earlier versions are of this very form (text, 0xff, keyboard
//! JSON), so they stay valid.
//!
//! [`Recorded`] keeps, sans-IO, what the store says each message shows, so
//! that whichever process delivers next (a restart after a kill, a replica
//! taking over) sends only what differs and never leaves a screen stale.
//!
//! The race it closes: a kill can fall between a platform call and the
//! write that records it. Recording the new hash only after the call is not
//! enough: the state may move back (a hand "your turn" is sent, then a
//! commit makes it "waiting" again before the render), and a stale hash
//! would then equal the next render while the screen shows something else.
//! So before a call that changes what a message shows, its stored hash is
//! made unknown (NULL), durably; after the call succeeded the new hash is
//! written. Unknown means "send it". A call that shows what the store
//! already says costs no write; one on a message already unknown costs one
//! write, after the call, so the acting person's hand waits for at most one.
//!
//! A call waits for its write at most [`RECORD_WAIT`]
//! (`kozyr_outlet::waited`, above): a store
//! that slow is failing, and the screens do not wait for it. The write
//! still lands, and the record stays on the safe side — a hash it may hold
//! is made unknown again before the next change — so only a kill while
//! such a write is still on its way can leave one message's hash stale
//! (and only until that message changes again).

use crate::Map;
use std::hash::Hash;
use std::time::Duration;

/// How long a platform call waits for the write before or after it: a
/// write to a healthy store takes a few milliseconds; past this the store
/// is slow or locked, and people's screens do not wait for it.
pub const RECORD_WAIT: Duration = Duration::from_millis(50);

/// What became of a write a call waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    Landed,
    /// The store refused it: nothing was written.
    Failed,
    /// Still on its way after [`RECORD_WAIT`]: it may land later.
    Pending,
}

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// The hash of a message made of `parts` (see the module docs).
pub fn content_hash<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> i64 {
    let mut h = OFFSET;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(PRIME);
        }
    };
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            eat(&[0xff]);
        }
        eat(part);
    }
    h as i64
}

/// What the store holds for each message (`K`): a hash it shows, or —
/// absent — nothing known (NULL, or no row). A platform's outbox asks
/// [`Recorded::before`] what to write around each call and reports what
/// was written through [`Recorded::after`]; it makes at most one call per
/// message at a time, so the two never interleave for one key.
#[derive(Debug)]
pub struct Recorded<K> {
    stored: Map<K, i64>,
}

impl<K> Default for Recorded<K> {
    fn default() -> Self {
        Recorded {
            stored: Map::default(),
        }
    }
}

/// The writes around one call that changes a message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Writes {
    /// Make the stored hash unknown, durably, before the call.
    pub unknown_first: bool,
    /// Once the call succeeded, store this hash (the message shows it).
    pub then: Option<i64>,
}

/// What became of one call's [`Writes`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Landed {
    /// The unknown was written before the call (not one still pending).
    pub unknown_written: bool,
    /// The call succeeded (or the platform said it showed that already).
    pub shown: bool,
    /// The new hash was written after it, or may still be (pending).
    pub recorded: bool,
}

impl Landed {
    /// Takes in the write before the call.
    pub fn unknown(&mut self, w: Write) {
        self.unknown_written = w == Write::Landed;
    }

    /// Takes in the write after the call: one still on its way may land,
    /// so the record keeps the hash (and makes it unknown before the next
    /// change, which is safe either way).
    pub fn record(&mut self, w: Write) {
        self.recorded = w != Write::Failed;
    }
}

impl<K: Eq + Hash + Clone> Recorded<K> {
    /// What the store held at a start.
    pub fn restore(rows: impl IntoIterator<Item = (K, i64)>) -> Recorded<K> {
        Recorded {
            stored: rows.into_iter().collect(),
        }
    }

    /// The hash the store holds for `key`'s message, if one.
    pub fn stored(&self, key: &K) -> Option<i64> {
        self.stored.get(key).copied()
    }

    /// The writes around a call that makes `key`'s message show `shown`
    /// (`None`: something no hash is kept for — its buttons removed, the
    /// message deleted — which makes what the store holds untrue).
    pub fn before(&self, key: &K, shown: Option<i64>) -> Writes {
        match (self.stored.get(key), shown) {
            // The store already says so: a kill anywhere leaves it true.
            (Some(held), Some(new)) if *held == new => Writes::default(),
            (Some(_), then) => Writes {
                unknown_first: true,
                then,
            },
            (None, then) => Writes {
                unknown_first: false,
                then,
            },
        }
    }

    /// Takes in what the writes and the call of [`Recorded::before`] did.
    /// A write that failed leaves the store as it was, and so the record:
    /// a hash still held is made unknown again before the next change. The
    /// record errs on the side of a hash the store may hold: that costs at
    /// most an unknown written again, never a skipped change.
    pub fn after(&mut self, key: &K, writes: Writes, landed: Landed) {
        match writes.then {
            Some(h) if landed.shown && landed.recorded => {
                self.stored.insert(key.clone(), h);
            }
            _ if writes.unknown_first && landed.unknown_written => {
                self.stored.remove(key);
            }
            _ => {}
        }
    }

    /// A new message for `key` was recorded with `shown` (its row written
    /// with the hash in the same write as its id).
    pub fn posted(&mut self, key: K, shown: Option<i64>) {
        match shown {
            Some(h) => self.stored.insert(key, h),
            None => self.stored.remove(&key),
        };
    }

    /// The store no longer keeps `key`'s message (it was forgotten).
    pub fn forget(&mut self, key: &K) {
        self.stored.remove(key);
    }

    /// Keeps only the keys `keep` says.
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.stored.retain(|k, _| keep(k));
    }
}

#[cfg(test)]
mod tests {
    use super::{Landed, Recorded, Write, Writes, content_hash};

    #[test]
    fn is_fnv_1a_and_stable_across_builds() {
        // FNV-1a's published value for "a".
        assert_eq!(
            content_hash([b"a".as_slice()]) as u64,
            0xaf63_dc4c_8601_ec8c
        );
        assert_eq!(content_hash([].into_iter()) as u64, 0xcbf2_9ce4_8422_2325);
    }

    #[test]
    fn parts_are_kept_apart() {
        let ab_c = content_hash([b"ab".as_slice(), b"c".as_slice()]);
        let a_bc = content_hash([b"a".as_slice(), b"bc".as_slice()]);
        assert_ne!(ab_c, a_bc);
        assert_ne!(content_hash([b"abc".as_slice()]), ab_c);
        // A text without buttons hashes like the text and an empty part.
        assert_eq!(
            content_hash([b"t".as_slice(), b"".as_slice()]),
            content_hash([b"t".as_slice(), [].as_slice()])
        );
    }

    /// A message, what it shows on screen, and the store, through a run of
    /// renders in which a kill can fall at any step: whatever the store
    /// holds afterwards is either unknown or what the screen shows.
    #[derive(Default)]
    struct World {
        screen: i64,
        /// The store's hash (`None`: unknown).
        store: Option<i64>,
        record: Recorded<u8>,
    }

    impl World {
        fn new(shown: i64) -> World {
            World {
                screen: shown,
                store: Some(shown),
                record: Recorded::restore([(0, shown)]),
            }
        }

        /// Sends `content`, stopping after `steps` of its four steps
        /// (unknown written, call made, hash written, record told); the
        /// store's writes and the call all succeed.
        fn send(&mut self, content: i64, steps: usize) {
            let w = self.record.before(&0, Some(content));
            let mut landed = Landed::default();
            if steps == 0 {
                return;
            }
            if w.unknown_first {
                self.store = None;
                landed.unknown_written = true;
            }
            if steps == 1 {
                return;
            }
            self.screen = content;
            landed.shown = true;
            if steps == 2 {
                return;
            }
            if let Some(h) = w.then {
                self.store = Some(h);
                landed.recorded = true;
            }
            if steps == 3 {
                return;
            }
            self.record.after(&0, w, landed);
        }

        /// True unless the store claims what the screen does not show.
        fn sound(&self) -> bool {
            self.store.is_none_or(|h| h == self.screen)
        }

        /// What a process taking over sends for a render of `content`.
        fn sends_after_a_kill(&self, content: i64) -> bool {
            self.store != Some(content)
        }
    }

    #[test]
    fn a_kill_at_any_step_never_leaves_a_screen_believed_shown_that_is_not() {
        // "waiting" (1) → "your turn" (2) → "waiting" (1) again: the state
        // moves back, the very case where a hash recorded only after the
        // call would equal the render while the screen shows the other.
        for kill_at in 0..4 {
            let mut w = World::new(1);
            w.send(2, 4);
            w.send(1, kill_at);
            assert!(w.sound(), "killed at step {kill_at}");
            // The next process renders "waiting": whenever it would skip
            // it, the screen shows it; once the hash is written it skips.
            if !w.sends_after_a_kill(1) {
                assert_eq!(w.screen, 1, "step {kill_at}");
            }
            assert_eq!(w.sends_after_a_kill(1), kill_at < 3, "step {kill_at}");
        }
        // Recording only after the call (no unknown first) is the bug this
        // closes: killed between the call and the record, the store's old
        // "waiting" equals the render while the screen shows "your turn".
        let mut naive = World::new(1);
        naive.screen = 2;
        assert!(!naive.sound() && !naive.sends_after_a_kill(1));
    }

    #[test]
    fn what_the_store_already_says_costs_no_write() {
        let r = Recorded::restore([(0u8, 5)]);
        assert_eq!(r.before(&0, Some(5)), Writes::default());
        // A change: unknown first, then the new hash.
        assert_eq!(
            r.before(&0, Some(6)),
            Writes {
                unknown_first: true,
                then: Some(6)
            }
        );
        // Already unknown: only the write after the call.
        assert_eq!(
            r.before(&1, Some(6)),
            Writes {
                unknown_first: false,
                then: Some(6)
            }
        );
        // Buttons removed: unknown, nothing to record after.
        assert_eq!(
            r.before(&0, None),
            Writes {
                unknown_first: true,
                then: None
            }
        );
    }

    #[test]
    fn a_write_not_waited_for_counts_as_maybe_landed() {
        // What `outlet::waited` gives for a write still on its way.
        let slow = Write::Pending;
        // The unknown still on its way: the record keeps the old hash; the
        // new hash still on its way: kept as the store may hold it, so the
        // next change makes it unknown first.
        let mut r = Recorded::restore([(0u8, 5)]);
        let w = r.before(&0, Some(6));
        let mut landed = Landed {
            shown: true,
            ..Landed::default()
        };
        landed.unknown(slow);
        landed.record(slow);
        r.after(&0, w, landed);
        assert_eq!(r.stored(&0), Some(6));
        assert!(r.before(&0, Some(7)).unknown_first);
        // The hash refused after an unknown that landed: unknown it is.
        let mut landed = Landed {
            shown: true,
            ..Landed::default()
        };
        landed.unknown(Write::Landed);
        landed.record(Write::Failed);
        let w = r.before(&0, Some(7));
        r.after(&0, w, landed);
        assert_eq!(r.stored(&0), None);
    }

    #[test]
    fn failed_writes_keep_the_record_as_the_store_is() {
        let mut r = Recorded::restore([(0u8, 5)]);
        let w = r.before(&0, Some(6));
        // The unknown could not be written; the call went, its hash too.
        r.after(
            &0,
            w,
            Landed {
                unknown_written: false,
                shown: true,
                recorded: true,
            },
        );
        assert_eq!(r.stored(&0), Some(6));
        // Unknown written, the call failed: unknown it stays.
        let w = r.before(&0, Some(7));
        r.after(
            &0,
            w,
            Landed {
                unknown_written: true,
                shown: false,
                recorded: false,
            },
        );
        assert_eq!(r.stored(&0), None);
        // Neither write landed: the store still holds 6, and so does the
        // record, so the next change makes it unknown first again.
        let mut r = Recorded::restore([(0u8, 6)]);
        let w = r.before(&0, Some(7));
        r.after(&0, w, Landed::default());
        assert_eq!(r.stored(&0), Some(6));
        assert!(r.before(&0, Some(8)).unknown_first);
    }
}
