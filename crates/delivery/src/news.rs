//! Announcements on their way to a chat.
//!
//! An announcement (a trick taken, a deal over, a series started) comes
//! from the table service just before the render of the state after it, in
//! the same batch of outputs. It waits here for that render, so that it is
//! worded with the state after (names, scores) and goes out before the
//! table message that shows that state; and when it opens a deal, the live
//! table is posted anew below it, where people look.

use crate::Map;

use kozyr_game::Milestone;
use kozyr_table::{Announcement, TableId};

/// Whether an announcement opens a deal (the series' first, or the next
/// one after a deal ended): the live table is then posted anew below it.
pub fn starts_a_deal(a: &Announcement) -> bool {
    matches!(
        a,
        Announcement::SeriesStarted { .. }
            | Announcement::Game {
                milestone: Milestone::Deal,
                ..
            }
    )
}

/// Owed announcements that went (or never can) and that the store refused
/// to forget: forgotten again once a call lands, and at a stop, or a start
/// would send them once more.
#[derive(Debug, Default)]
pub struct Unforgotten {
    held: Vec<(TableId, Announcement)>,
}

impl Unforgotten {
    /// The store refused to forget `a` of `table`.
    pub fn refused(&mut self, table: TableId, a: Announcement) {
        if !self.held.contains(&(table, a.clone())) {
            self.held.push((table, a));
        }
    }

    /// A call landed: every one held goes to the store again (and comes
    /// back through [`Unforgotten::refused`] if it is refused again).
    pub fn retry(&mut self) -> Vec<(TableId, Announcement)> {
        std::mem::take(&mut self.held)
    }

    /// Those held, for a stop to forget once more.
    pub fn held(&self) -> &[(TableId, Announcement)] {
        &self.held
    }
}

/// Announcements waiting for their table's next render.
#[derive(Debug, Default)]
pub struct News {
    pending: Map<TableId, Vec<Announcement>>,
}

/// What a table's render brings along.
#[derive(Debug, Default, PartialEq)]
pub struct Due {
    /// In the order they came, to go out before the render.
    pub announcements: Vec<Announcement>,
    /// One of them opens a deal: the table is posted anew below them.
    pub repost: bool,
    /// One of them opens a table's first series: the lobby turned into
    /// the game (a rematch starts a later series from the results).
    pub leaves_lobby: bool,
}

impl News {
    /// Keeps `announcement` until `table`'s next render.
    pub fn hold(&mut self, table: TableId, announcement: Announcement) {
        self.pending.entry(table).or_default().push(announcement);
    }

    /// What waits for `table`'s render, which is happening now.
    pub fn take(&mut self, table: TableId) -> Due {
        let announcements = self.pending.remove(&table).unwrap_or_default();
        let repost = announcements.iter().any(starts_a_deal);
        let leaves_lobby = announcements
            .iter()
            .any(|a| matches!(a, Announcement::SeriesStarted { series_no: 1 }));
        Due {
            announcements,
            repost,
            leaves_lobby,
        }
    }

    /// Whether anything waits for `table`.
    pub fn has(&self, table: TableId) -> bool {
        self.pending.contains_key(&table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn left() -> Announcement {
        Announcement::SeriesStarted { series_no: 1 }
    }

    #[test]
    fn a_rematch_and_a_next_deal_do_not_leave_a_lobby() {
        let mut news = News::default();
        news.hold(TableId(1), Announcement::SeriesStarted { series_no: 2 });
        let due = news.take(TableId(1));
        assert!(due.repost && !due.leaves_lobby);
    }

    #[test]
    fn a_render_takes_its_tables_news_in_order() {
        let mut news = News::default();
        let (a, b) = (TableId(1), TableId(2));
        assert_eq!(news.take(a), Due::default());
        news.hold(a, left());
        news.hold(b, left());
        assert!(news.has(a));
        let due = news.take(a);
        assert_eq!(due.announcements.len(), 1);
        assert!(due.repost, "a series' start posts the table anew");
        assert!(due.leaves_lobby, "the first series starts from the lobby");
        assert!(!news.has(a));
        assert!(news.has(b));
    }
}
