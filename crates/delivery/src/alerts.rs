//! Turn alerts: who gets a notifying message when it becomes their turn.
//!
//! Edits notify nobody (Telegram's edits make no sound; a mention added to
//! a Discord message by an edit pings no one), so a person who looked away
//! would not learn that the table waits for them. When it becomes a
//! person's turn and they have not pressed or written anything for
//! [`TurnAlerts::quiet`] — they are not looking — the shell shows the turn
//! with one notifying message (Telegram: the hand posted anew at the
//! bottom of the private chat; Discord: a mention). Exactly one per turn:
//! renders while it stays their turn bring none, and when the turn passes
//! the shell learns whether one was sent, to remove it or make it silent.
//! A person who is looking (they pressed a moment ago) gets none: the
//! edit they watch is enough, and the budget is kept for everyone else.
//!
//! Sans-IO: time comes in as `now`; nothing here sends anything.

use crate::{Map, Set};
use std::time::{Duration, Instant};

use kozyr_table::{TableId, UserId};

/// How long without a press or a message before a person counts as not
/// looking. Longer than a thinking person's pause within a trick and than
/// a round of four people at a human pace (three others' moves of ~3 s and
/// their taps: 10–14 s), so someone who keeps playing is not buzzed at
/// every turn. At 10 s, 40 tables at a human pace alerted 74% of turns
/// (each a post and a delete where an edit was one: 645 more calls in
/// 90 s, the other hands' p50 from 12 s to 25 s); a person quiet for
/// 10–20 s is counted as looking (issue 28.4).
pub const QUIET: Duration = Duration::from_secs(20);

/// What a render of a person's hand means for their turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Nothing changed: no turn began or passed.
    Same,
    /// It became their turn; `alert`: tell them with a notifying message.
    Began { alert: bool },
    /// Their turn passed; `alerted`: they were told with one, which may
    /// now go (or be made silent).
    Passed { alerted: bool },
}

/// The turn alerts of every person at every table.
#[derive(Debug)]
pub struct TurnAlerts {
    /// `None`: alerts are off.
    quiet: Option<Duration>,
    /// When each person last pressed or wrote.
    seen: Map<UserId, Instant>,
    /// When the alerts started: a person not seen since counts as seen
    /// then. After a restart nobody has been seen, yet the turn that a
    /// render shows is not new, and people were at their screens a moment
    /// ago.
    since: Instant,
    /// (person, table) whose turn it is, and whether they were alerted.
    turns: Map<(UserId, TableId), bool>,
    /// (person, table) shown since the start: a turn seen at the first
    /// sight of a person's place is one a start found running, not new.
    known: Set<(UserId, TableId)>,
}

/// Past this many people remembered, those not seen within `quiet` are
/// forgotten (they count as not looking anyway).
const SEEN_LIMIT: usize = 4096;

impl TurnAlerts {
    /// Alerts for people quiet for `quiet`; `None` turns them off. `now`:
    /// the start, when everyone counts as seen.
    pub fn new(quiet: Option<Duration>, now: Instant) -> TurnAlerts {
        TurnAlerts {
            quiet,
            since: now,
            seen: Map::default(),
            turns: Map::default(),
            known: Set::default(),
        }
    }

    /// The quiet time after which a person counts as not looking.
    pub fn quiet(&self) -> Option<Duration> {
        self.quiet
    }

    /// `user` pressed a button or wrote to the bot: they are looking.
    pub fn handle_activity(&mut self, user: &UserId, now: Instant) {
        if self.seen.len() >= SEEN_LIMIT
            && let Some(quiet) = self.quiet
        {
            self.seen
                .retain(|_, at| now.saturating_duration_since(*at) < quiet);
        }
        self.seen.insert(user.clone(), now);
    }

    /// A render of `user`'s hand at `table`, which is (or is not) their
    /// turn.
    pub fn handle_hand(
        &mut self,
        user: &UserId,
        table: TableId,
        your_turn: bool,
        now: Instant,
    ) -> Turn {
        self.handle_turn(user, table, your_turn, false, now)
    }

    /// Like [`TurnAlerts::handle_hand`], for a platform on which a person
    /// may have no hand they could see an edit in (`unseen`: Discord's
    /// ephemeral hand whose token is gone): such a person counts as not
    /// looking — unless this is the first sight of their place since the
    /// start, whose turn is not new (a restart finds turns running, and
    /// every hand's token gone).
    pub fn handle_turn(
        &mut self,
        user: &UserId,
        table: TableId,
        your_turn: bool,
        unseen: bool,
        now: Instant,
    ) -> Turn {
        let key = (user.clone(), table);
        let first_sight = self.known.insert(key.clone());
        match (your_turn, self.turns.contains_key(&key)) {
            (true, true) | (false, false) => Turn::Same,
            (true, false) => {
                let alert = self.is_away(user, now) || (unseen && !first_sight);
                self.turns.insert(key, alert);
                Turn::Began { alert }
            }
            (false, true) => Turn::Passed {
                alerted: self.turns.remove(&key).unwrap_or(false),
            },
        }
    }

    /// `user`'s hand at `table` is gone (they left, the table closed).
    pub fn handle_gone(&mut self, user: &UserId, table: TableId) -> Turn {
        let key = (user.clone(), table);
        self.known.remove(&key);
        match self.turns.remove(&key) {
            Some(alerted) => Turn::Passed { alerted },
            None => Turn::Same,
        }
    }

    /// Forgets every turn at `table` (it closed).
    pub fn forget_table(&mut self, table: TableId) {
        self.turns.retain(|(_, t), _| *t != table);
        self.known.retain(|(_, t)| *t != table);
    }

    /// Whether `user` is not looking: alerts are on and they have not
    /// pressed or written for `quiet`.
    pub fn is_away(&self, user: &UserId, now: Instant) -> bool {
        let Some(quiet) = self.quiet else {
            return false;
        };
        let seen = self.seen.get(user).copied().unwrap_or(self.since);
        now.saturating_duration_since(seen) >= quiet
    }

    /// The people whose turn it is and who were alerted, at `table`.
    pub fn alerted_at(&self, table: TableId) -> Set<UserId> {
        self.turns
            .iter()
            .filter(|((_, t), alerted)| *t == table && **alerted)
            .map(|((u, _), _)| u.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann() -> UserId {
        UserId::new("1").unwrap()
    }

    const T: TableId = TableId(7);
    const S: Duration = Duration::from_secs(1);

    /// (seconds since start, what happens, what the alerts answer).
    enum Step {
        Pressed,
        Hand(bool, Turn),
    }

    fn run(quiet: Option<Duration>, steps: &[(u64, Step)]) {
        let t0 = Instant::now();
        let mut alerts = TurnAlerts::new(quiet, t0);
        for (i, (at, step)) in steps.iter().enumerate() {
            let now = t0 + S * (*at as u32);
            match step {
                Step::Pressed => alerts.handle_activity(&ann(), now),
                Step::Hand(turn, want) => {
                    assert_eq!(alerts.handle_hand(&ann(), T, *turn, now), *want, "step {i}");
                }
            }
        }
    }

    use Step::*;
    use Turn::*;

    #[test]
    fn one_alert_per_turn_and_only_when_not_looking() {
        run(
            Some(QUIET),
            &[
                // Just started: everyone counts as seen at the start.
                (0, Hand(true, Began { alert: false })),
                (1, Hand(false, Passed { alerted: false })),
                // Never seen since a start 25 s ago: not looking.
                (25, Hand(true, Began { alert: true })),
                // Renders within the turn bring no second alert.
                (26, Hand(true, Same)),
                (27, Pressed),
                (28, Hand(false, Passed { alerted: true })),
                (29, Hand(false, Same)),
                // Pressed 8 s ago: looking.
                (35, Hand(true, Began { alert: false })),
                (36, Pressed),
                (37, Hand(false, Passed { alerted: false })),
                // 20 s of quiet: away again.
                (56, Hand(true, Began { alert: true })),
                (60, Hand(true, Same)),
            ],
        );
    }

    #[test]
    fn off_means_never() {
        run(
            None,
            &[
                (0, Hand(true, Began { alert: false })),
                (100, Hand(false, Passed { alerted: false })),
                (200, Hand(true, Began { alert: false })),
            ],
        );
    }

    #[test]
    fn a_person_who_cannot_see_their_hand_is_told_unless_a_start_found_the_turn() {
        let t0 = Instant::now();
        let mut alerts = TurnAlerts::new(Some(QUIET), t0);
        let bob = UserId::new("2").unwrap();
        // A start finds Ann's turn running: not new, though she has no
        // hand to see it in.
        assert_eq!(
            alerts.handle_turn(&ann(), T, true, true, t0),
            Began { alert: false }
        );
        assert_eq!(alerts.handle_turn(&bob, T, false, true, t0), Same);
        alerts.handle_activity(&bob, t0);
        assert_eq!(
            alerts.handle_turn(&ann(), T, false, true, t0 + S),
            Passed { alerted: false }
        );
        // Bob pressed a second ago, but without a hand he cannot see it.
        assert_eq!(
            alerts.handle_turn(&bob, T, true, true, t0 + S),
            Began { alert: true }
        );
        // Ann's hand is open and she is looking: no alert.
        assert_eq!(
            alerts.handle_turn(&bob, T, false, false, t0 + 2 * S),
            Passed { alerted: true }
        );
        assert_eq!(
            alerts.handle_turn(&ann(), T, true, false, t0 + 2 * S),
            Began { alert: false }
        );
        // Off: only those who cannot see their hand.
        let mut off = TurnAlerts::new(None, t0);
        assert_eq!(off.handle_turn(&bob, T, false, true, t0), Same);
        assert_eq!(
            off.handle_turn(&bob, T, true, true, t0 + 100 * S),
            Began { alert: true }
        );
    }

    #[test]
    fn a_hand_gone_passes_its_turn_and_tables_are_apart() {
        let t0 = Instant::now();
        let mut alerts = TurnAlerts::new(Some(QUIET), t0 - QUIET);
        assert_eq!(
            alerts.handle_hand(&ann(), T, true, t0),
            Began { alert: true }
        );
        assert_eq!(
            alerts.handle_hand(&ann(), TableId(8), true, t0),
            Began { alert: true }
        );
        assert_eq!(alerts.alerted_at(T).len(), 1);
        assert_eq!(alerts.handle_gone(&ann(), T), Passed { alerted: true });
        assert_eq!(alerts.handle_gone(&ann(), T), Same);
        alerts.forget_table(TableId(8));
        assert!(alerts.alerted_at(TableId(8)).is_empty());
    }
}
