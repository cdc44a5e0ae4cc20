//! Whether a table message is buried by the chat below it, for a platform
//! whose groups the bot reads (Discord's MESSAGE_CREATE): counted from the
//! message's post, kept across a restart or a takeover through the store,
//! and past [`BURIED_AFTER`] the table's next render posts it anew at the
//! bottom. Sans-IO: the shell tells each message and saves the changes
//! [`Burials::take_changes`] gives.

use std::collections::HashMap;
use std::hash::Hash;

/// Other people's messages below the table message after which it counts
/// as buried: its next render posts it anew at the bottom. A Discord window
/// shows some 15–20 short chat lines, so past this the table and its
/// buttons have scrolled out of sight. Not fewer: a repost costs two calls
/// (the new message, the old one's buttons removed) instead of one edit,
/// and a lively channel would get a new table message at nearly every move.
pub const BURIED_AFTER: u32 = 15;

/// Per chat with a table message: other people's messages below it.
#[derive(Debug)]
pub struct Burials<K> {
    counts: HashMap<K, u32>,
    /// Each count as it changed since last taken (`None`: no longer
    /// counted), to be saved.
    changed: HashMap<K, Option<u32>>,
}

impl<K> Default for Burials<K> {
    fn default() -> Self {
        Burials {
            counts: HashMap::new(),
            changed: HashMap::new(),
        }
    }
}

impl<K: Copy + Eq + Hash + Ord> Burials<K> {
    /// The counts saved before this start: they go on from there.
    pub fn restore(&mut self, counts: impl IntoIterator<Item = (K, u32)>) {
        self.counts.extend(counts);
    }

    /// Starts counting the chat below `chat`'s table message (after a
    /// restart with nothing saved: from now, what came before is unknown).
    pub fn watch(&mut self, chat: K) {
        self.counts.entry(chat).or_insert(0);
    }

    /// Someone other than the bot wrote in `chat`.
    pub fn handle_message(&mut self, chat: K) {
        if let Some(n) = self.counts.get_mut(&chat) {
            *n = n.saturating_add(1);
            self.changed.insert(chat, Some(*n));
        }
    }

    /// Other people's messages below `chat`'s table message.
    pub fn count(&self, chat: K) -> u32 {
        self.counts.get(&chat).copied().unwrap_or(0)
    }

    /// Whether `chat`'s table message has scrolled out of sight.
    pub fn is_buried(&self, chat: K) -> bool {
        self.count(chat) >= BURIED_AFTER
    }

    /// The table message was posted anew: nothing is below it.
    pub fn reset(&mut self, chat: K) {
        self.counts.insert(chat, 0);
        self.changed.insert(chat, Some(0));
    }

    /// `chat` has no live table message any more.
    pub fn unwatch(&mut self, chat: K) {
        if self.counts.remove(&chat).is_some() {
            self.changed.insert(chat, None);
        }
    }

    /// The counts changed since the last call, to be saved, in order.
    pub fn take_changes(&mut self) -> Vec<(K, Option<u32>)> {
        let mut changed: Vec<_> = std::mem::take(&mut self.changed).into_iter().collect();
        changed.sort_unstable();
        changed
    }

    /// Changes that could not be saved, to be tried again (unless a newer
    /// change of the same chat came meanwhile).
    pub fn unsaved(&mut self, changes: Vec<(K, Option<u32>)>) {
        for (chat, n) in changes {
            self.changed.entry(chat).or_insert(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watched_chat_is_buried_after_its_count_and_a_post_anew_starts_again() {
        let mut b = Burials::default();
        // Not watched: its chat is not counted.
        b.handle_message(1_u64);
        assert_eq!(b.count(1), 0);
        b.watch(1);
        for _ in 0..BURIED_AFTER - 1 {
            b.handle_message(1);
        }
        assert!(!b.is_buried(1));
        b.handle_message(1);
        assert!(b.is_buried(1));
        assert_eq!(b.take_changes(), vec![(1, Some(BURIED_AFTER))]);
        b.reset(1);
        assert!(!b.is_buried(1));
        b.unwatch(1);
        assert_eq!(b.take_changes(), vec![(1, None)]);
        assert_eq!(b.take_changes(), vec![]);
    }

    #[test]
    fn an_unsaved_change_is_tried_again_unless_a_newer_one_came() {
        let mut b = Burials::default();
        b.restore([(1_u64, 3), (2, 5)]);
        b.handle_message(1);
        b.handle_message(2);
        let failed = b.take_changes();
        assert_eq!(failed, vec![(1, Some(4)), (2, Some(6))]);
        b.handle_message(2);
        b.unsaved(failed);
        assert_eq!(b.take_changes(), vec![(1, Some(4)), (2, Some(7))]);
    }
}
