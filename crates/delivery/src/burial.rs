//! Whether a table message is buried by the chat below it, for a platform
//! whose groups the bot reads (Discord's MESSAGE_CREATE): counted from the
//! message's post, kept across a restart or a takeover through the store,
//! and past [`BURIED_AFTER`] the table's next render posts it anew at the
//! bottom. Sans-IO: the shell tells each message and saves the changes
//! [`Burials::take_changes`] gives.

use crate::Map;
use std::collections::VecDeque;
use std::hash::Hash;

use super::engine::MessageId;

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
    chats: Map<K, Below>,
    /// Each count as it changed since last taken (`None`: no longer
    /// counted), to be saved.
    changed: Map<K, Option<u32>>,
}

impl<K> Default for Burials<K> {
    fn default() -> Self {
        Burials {
            chats: Map::default(),
            changed: Map::default(),
        }
    }
}

/// The chat below one table message.
#[derive(Debug, Default)]
struct Below {
    count: u32,
    /// The table message it is below (0: not known — restored, or watched
    /// before its post landed). Message ids grow with time, so only a
    /// message with a higher id was said after it.
    since: MessageId,
    /// The newest messages counted, at most [`BURIED_AFTER`]: those said
    /// while the table's post was on its way are below it once it lands.
    recent: VecDeque<MessageId>,
}

impl<K: Copy + Eq + Hash + Ord> Burials<K> {
    /// The counts saved before this start: they go on from there.
    pub fn restore(&mut self, counts: impl IntoIterator<Item = (K, u32)>) {
        for (chat, count) in counts {
            let below = Below {
                count,
                ..Below::default()
            };
            self.chats.insert(chat, below);
        }
    }

    /// Starts counting the chat below `chat`'s table message (after a
    /// restart with nothing saved: from now, what came before is unknown).
    pub fn watch(&mut self, chat: K) {
        self.chats.entry(chat).or_default();
    }

    /// Someone other than the bot wrote `message` in `chat`. A message said
    /// before the table message (one that reached the bot late) is above it.
    pub fn handle_message(&mut self, chat: K, message: MessageId) {
        let Some(below) = self.chats.get_mut(&chat) else {
            return;
        };
        if message <= below.since {
            return;
        }
        below.count = below.count.saturating_add(1);
        below.recent.push_back(message);
        if below.recent.len() > BURIED_AFTER as usize {
            below.recent.pop_front();
        }
        self.changed.insert(chat, Some(below.count));
    }

    /// Other people's messages below `chat`'s table message.
    pub fn count(&self, chat: K) -> u32 {
        self.chats.get(&chat).map_or(0, |b| b.count)
    }

    /// Whether `chat`'s table message has scrolled out of sight.
    pub fn is_buried(&self, chat: K) -> bool {
        self.count(chat) >= BURIED_AFTER
    }

    /// The table message was posted anew as `posted`: below it is only
    /// what was said after it, which may have reached the bot while the
    /// post was on its way.
    pub fn reset(&mut self, chat: K, posted: MessageId) {
        let below = self.chats.entry(chat).or_default();
        below.since = posted;
        below.recent.retain(|&m| m > posted);
        below.count = below.recent.len() as u32;
        self.changed.insert(chat, Some(below.count));
    }

    /// `chat` has no live table message any more.
    pub fn unwatch(&mut self, chat: K) {
        if self.chats.remove(&chat).is_some() {
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
        b.handle_message(1_u64, 10);
        assert_eq!(b.count(1), 0);
        b.watch(1);
        for m in 11..10 + u64::from(BURIED_AFTER) {
            b.handle_message(1, m);
        }
        assert!(!b.is_buried(1));
        b.handle_message(1, 100);
        assert!(b.is_buried(1));
        assert_eq!(b.take_changes(), vec![(1, Some(BURIED_AFTER))]);
        b.reset(1, 200);
        assert!(!b.is_buried(1));
        b.unwatch(1);
        assert_eq!(b.take_changes(), vec![(1, None)]);
        assert_eq!(b.take_changes(), vec![]);
    }

    #[test]
    fn an_unsaved_change_is_tried_again_unless_a_newer_one_came() {
        let mut b = Burials::default();
        b.restore([(1_u64, 3), (2, 5)]);
        b.handle_message(1, 10);
        b.handle_message(2, 11);
        let failed = b.take_changes();
        assert_eq!(failed, vec![(1, Some(4)), (2, Some(6))]);
        b.handle_message(2, 12);
        b.unsaved(failed);
        assert_eq!(b.take_changes(), vec![(1, Some(4)), (2, Some(7))]);
    }

    /// Discord's ids grow with time: what was said while the table's post
    /// was on its way is below the table once the post lands, and a message
    /// from before it that reached the bot late is not.
    #[test]
    fn chat_said_while_the_post_was_on_its_way_is_below_it() {
        let mut b = Burials::default();
        b.watch(1_u64);
        for m in 1..=20 {
            b.handle_message(1, m * 10);
        }
        // The post anew got id 175: the messages 180, 190 and 200 came
        // after it, though the bot heard of them first.
        b.reset(1, 175);
        assert_eq!(b.count(1), 3);
        assert_eq!(b.take_changes(), vec![(1, Some(3))]);
        b.handle_message(1, 170);
        assert_eq!(b.count(1), 3, "said before the post: above it");
        b.handle_message(1, 210);
        assert_eq!(b.count(1), 4);
    }
}
