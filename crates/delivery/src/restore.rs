//! What a platform's output starts from after a restart (or when this
//! process takes over delivery from one that died): which message shows
//! each table, what it shows, and the hand tokens that still edit
//! people's hands, as `kozyr_outlet::service` reads them once from the
//! service; and which of a kill's doubtful posts is kept.

use std::time::Duration;

use kozyr_table::TableId;
use kozyr_table::storage::HandTokenRow;

/// A platform's messages as the last run left them.
#[derive(Debug, Default)]
pub struct Restored {
    /// (table, chat, message id): the message that shows a table (or a
    /// person's hand) in a chat, edited again rather than posted anew.
    pub messages: Vec<(TableId, String, i64)>,
    /// (table, chat, content hash): what that message shows, as recorded
    /// while it changed ([`crate::content::Recorded`]: a hash is
    /// made unknown before each call that changes it, so one read here is
    /// true even after a kill). Messages not known are left out.
    pub shown: Vec<(TableId, String, i64)>,
    /// The hand tokens still fresh, each with its age at the read.
    pub tokens: Vec<(HandTokenRow, Duration)>,
}

impl Restored {
    /// The messages whose content is not known (a call on them was under
    /// way, or failed, when the last run ended): (table, chat, message).
    /// A kill while a table was posted anew leaves exactly such a row —
    /// the new message out, its id not yet recorded — so these are the
    /// tables to look for [`Orphans`] of.
    pub fn unsure(&self) -> Vec<(TableId, String, i64)> {
        let known: crate::Set<(TableId, &str)> = self
            .shown
            .iter()
            .map(|(t, c, _)| (*t, c.as_str()))
            .collect();
        self.messages
            .iter()
            .filter(|(t, c, _)| !known.contains(&(*t, c.as_str())))
            .cloned()
            .collect()
    }
}

/// What a start does about a table's messages that came after the
/// recorded one: a table posted anew whose new id a kill kept from the
/// store. Left alone, the new message sits at the bottom with live buttons
/// that nothing edits any more, while the recorded one above goes on.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Orphans {
    /// The newest of them: it shows the table from now on (recorded).
    pub adopt: Option<u64>,
    /// The recorded message, when it still has the table's buttons: they
    /// go, its text stays (as after any posting anew).
    pub strip: Option<u64>,
    /// Older posts anew than the adopted one: removed.
    pub delete: Vec<u64>,
}

/// The decision for one table: `recorded` is the message the store names,
/// `found` the platform's messages that carry the table's own buttons, from
/// the recorded one on. Message ids grow with time on the platforms this
/// serves (Discord's snowflakes).
pub fn orphans(recorded: u64, found: &[u64]) -> Orphans {
    let mut newer: Vec<u64> = found.iter().copied().filter(|id| *id > recorded).collect();
    newer.sort_unstable();
    let Some(adopt) = newer.pop() else {
        return Orphans::default();
    };
    Orphans {
        adopt: Some(adopt),
        strip: found.contains(&recorded).then_some(recorded),
        delete: newer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_anew_a_kill_kept_from_the_store_is_adopted_and_the_old_loses_its_buttons() {
        assert_eq!(
            orphans(10, &[10, 12]),
            Orphans {
                adopt: Some(12),
                strip: Some(10),
                delete: vec![]
            }
        );
        // Stripped already, and two posts anew: the newest stays.
        assert_eq!(
            orphans(10, &[14, 12]),
            Orphans {
                adopt: Some(14),
                strip: None,
                delete: vec![12]
            }
        );
    }

    #[test]
    fn nothing_newer_changes_nothing() {
        assert_eq!(orphans(10, &[10, 9]), Orphans::default());
        assert_eq!(orphans(10, &[]), Orphans::default());
    }

    #[test]
    fn only_messages_of_unknown_content_are_looked_after() {
        let t = |n| TableId(n);
        let r = Restored {
            messages: vec![(t(1), "c".into(), 10), (t(2), "c".into(), 20)],
            shown: vec![(t(1), "c".into(), 77)],
            tokens: vec![],
        };
        assert_eq!(r.unsure(), vec![(t(2), "c".to_owned(), 20)]);
    }
}
