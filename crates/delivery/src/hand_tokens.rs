//! Hand messages a platform lets the bot edit only through the newest
//! answer to their person, whose token expires (Discord's interaction
//! tokens, 15 minutes): which token edits each hand, what its message
//! shows, and the decisions around a change of it, sans-IO.
//!
//! `kozyr_outlet::hand_tokens` keeps a [`Tokens`] under its lock, makes
//! the store writes these decisions ask for and holds each hand's turn
//! (an outbox edit and an answer to a press on the hand never overlap).
//! What a hand shows follows [`crate::content`]'s record rule: made
//! unknown in the store before a change ([`HandToken::unknown_first`]),
//! recorded after it landed.

use crate::Map;
use std::time::{Duration, Instant};

use kozyr_table::{TableId, UserId};

/// A person's newest answer on their hand message: its token edits the
/// hand. No `Debug`: the token is a secret.
#[derive(Clone)]
pub struct HandToken {
    pub token: String,
    /// When the answer's interaction arrived: the token's life counts
    /// from then.
    pub at: Instant,
    /// A hash of what the hand message shows, so an edit that would change
    /// nothing is not sent.
    pub shown: Option<i64>,
    /// The hand message the token edits, when known (a press on it says;
    /// the answer that posted it does not): a press on that message whose
    /// answer would show `shown` again needs no edit.
    pub message: Option<u64>,
}

impl HandToken {
    /// Whether an edit to show `shown` would change anything.
    pub fn changes(&self, shown: i64) -> bool {
        self.shown != Some(shown)
    }

    /// The record rule's first half: whether the hash the store holds for
    /// this hand must be made unknown before a change to `shown` goes (it
    /// holds one, and another).
    pub fn unknown_first(&self, shown: i64) -> bool {
        self.shown.is_some() && self.changes(shown)
    }
}

type Key = (UserId, TableId);

/// Every open hand's newest token, latest wins.
pub struct Tokens {
    life: Duration,
    hands: Map<Key, HandToken>,
}

impl Tokens {
    /// `life`: how long a token is used to edit its hand.
    pub fn new(life: Duration) -> Tokens {
        Tokens {
            life,
            hands: Map::default(),
        }
    }

    /// How long a hand's token is used.
    pub fn life(&self) -> Duration {
        self.life
    }

    /// Keeps `token` as the newest of `user`'s hand at `table`.
    pub fn given(&mut self, user: &UserId, table: TableId, token: HandToken) {
        self.hands.insert((user.clone(), table), token);
    }

    /// A token kept from an earlier run, `age` old at `now`; which message
    /// it edits is not known.
    pub fn restore(
        &mut self,
        (user, table): (UserId, TableId),
        token: String,
        shown: Option<i64>,
        (age, now): (Duration, Instant),
    ) {
        let at = now.checked_sub(age).unwrap_or(now);
        let kept = HandToken {
            token,
            at,
            shown,
            message: None,
        };
        self.hands.insert((user, table), kept);
    }

    /// The token that still edits `user`'s hand at `table` as of `now`;
    /// an expired one is forgotten.
    pub fn fresh(&mut self, user: &UserId, table: TableId, now: Instant) -> Option<HandToken> {
        let key = (user.clone(), table);
        match self.hands.get(&key) {
            Some(t) if now.saturating_duration_since(t.at) < self.life => Some(t.clone()),
            Some(_) => {
                self.hands.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Whether `message`, the hand message of `user` at `table` that the
    /// fresh token edits, shows `shown` already (as of `now`).
    pub fn shows(
        &mut self,
        (user, table): (&UserId, TableId),
        message: u64,
        shown: i64,
        now: Instant,
    ) -> bool {
        self.fresh(user, table, now)
            .is_some_and(|t| t.message == Some(message) && t.shown == Some(shown))
    }

    /// What `message`, the hand message of `user` at `table` that the
    /// fresh token edits, is known to show (as of `now`).
    pub fn showing(
        &mut self,
        (user, table): (&UserId, TableId),
        message: u64,
        now: Instant,
    ) -> Option<i64> {
        let t = self.fresh(user, table, now)?;
        t.shown.filter(|_| t.message == Some(message))
    }

    /// Records what the hand shows now, after an edit through `token`. An
    /// edit through an older token may have landed on the same message
    /// after a newer answer to a press on it drew it: unless it showed the
    /// same, what the message shows is unknown, and the next render is
    /// sent. A newest token with no message known came with a message of
    /// its own (a "My hand" answer: older tokens edit older messages), or
    /// from the store at a start (no older one is in use since).
    pub fn shown(&mut self, user: &UserId, table: TableId, token: &str, shown: Option<i64>) {
        if let Some(t) = self.hands.get_mut(&(user.clone(), table)) {
            if t.token == token {
                t.shown = shown;
            } else if t.message.is_some() && t.shown != shown {
                t.shown = None;
            }
        }
    }

    /// Forgets a token the platform refused (expired; only while it is
    /// still the newest), or a hand that is gone (`token` `None`); whether
    /// one was forgotten.
    pub fn forget(&mut self, user: &UserId, table: TableId, token: Option<&str>) -> bool {
        let key = (user.clone(), table);
        let newest = |t: &str| self.hands.get(&key).is_some_and(|k| k.token == t);
        token.is_none_or(newest) && self.hands.remove(&key).is_some()
    }

    /// Forgets every hand token of a table (it closed); whether it had one.
    pub fn forget_table(&mut self, table: TableId) -> bool {
        let before = self.hands.len();
        self.hands.retain(|(_, t), _| *t != table);
        self.hands.len() != before
    }
}

/// Whether an answer to a press on a hand draws the hand showing
/// `shown`: only with the hand's turn held (no outbox edit of it on its
/// way) and the message pressed on not known to show it already (a double
/// tap, a pick racing a redraw). Without the turn the answer leaves the
/// message as it is, and the outbox draws it once the edit on its way
/// landed: an answer drawn meanwhile could land before or after that
/// edit, so what the message shows after both would be unknown and the
/// next draw might change nothing — or the older edit, landing last,
/// would show an older state until then.
pub fn answer_draws(turn_held: bool, pressed_shows_it: bool) -> bool {
    turn_held && !pressed_shows_it
}

/// What the pressed hand message shows once an answer to a press on it
/// went: with the hand's turn held, `drawn` (what the answer drew, or
/// showed already); without it the answer drew nothing
/// ([`answer_draws`]), so what the message showed as last known once the
/// turn was taken after the answer (`left`: the edit on its way landed).
pub fn answered_shows(turn_held: bool, drawn: Option<i64>, left: Option<i64>) -> Option<i64> {
    if turn_held { drawn } else { left }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(n: u64) -> UserId {
        UserId::new(format!("discord:{n}")).unwrap()
    }

    fn token(t: &str, at: Instant, shown: Option<i64>, message: Option<u64>) -> HandToken {
        HandToken {
            token: t.into(),
            at,
            shown,
            message,
        }
    }

    #[test]
    fn a_token_edits_its_hand_for_its_life_and_then_is_forgotten() {
        let (ann, t0) = (person(1), Instant::now());
        let mut tokens = Tokens::new(Duration::from_secs(60));
        tokens.given(&ann, TableId(7), token("a", t0, Some(5), Some(70)));
        let later = t0 + Duration::from_secs(59);
        assert_eq!(tokens.fresh(&ann, TableId(7), later).unwrap().token, "a");
        assert!(tokens.fresh(&ann, TableId(8), later).is_none());
        assert!(tokens.shows((&ann, TableId(7)), 70, 5, later));
        assert!(!tokens.shows((&ann, TableId(7)), 71, 5, later));
        assert!(!tokens.shows((&ann, TableId(7)), 70, 6, later));
        assert_eq!(tokens.showing((&ann, TableId(7)), 70, later), Some(5));
        assert_eq!(tokens.showing((&ann, TableId(7)), 71, later), None);
        let expired = t0 + Duration::from_secs(60);
        assert!(tokens.fresh(&ann, TableId(7), expired).is_none());
        // Gone for good, not only too old to be used now.
        assert!(!tokens.forget(&ann, TableId(7), None));
    }

    #[test]
    fn an_older_tokens_edit_leaves_what_the_hand_shows_unknown_unless_the_same() {
        let (ann, t0) = (person(1), Instant::now());
        let mut tokens = Tokens::new(Duration::from_secs(60));
        // A press answered on message 70: an older token edits it too.
        tokens.given(&ann, TableId(7), token("new", t0, Some(5), Some(70)));
        tokens.shown(&ann, TableId(7), "old", Some(5));
        assert_eq!(tokens.fresh(&ann, TableId(7), t0).unwrap().shown, Some(5));
        tokens.shown(&ann, TableId(7), "old", Some(6));
        assert_eq!(tokens.fresh(&ann, TableId(7), t0).unwrap().shown, None);
        tokens.shown(&ann, TableId(7), "new", Some(6));
        assert_eq!(tokens.fresh(&ann, TableId(7), t0).unwrap().shown, Some(6));
        // "My hand": a message of its own, which an older token's edit
        // does not reach.
        tokens.given(&ann, TableId(7), token("mine", t0, Some(6), None));
        tokens.shown(&ann, TableId(7), "new", Some(8));
        assert_eq!(tokens.fresh(&ann, TableId(7), t0).unwrap().shown, Some(6));
    }

    #[test]
    fn a_refused_token_is_forgotten_only_while_it_is_the_newest() {
        let (ann, bob, t0) = (person(1), person(2), Instant::now());
        let mut tokens = Tokens::new(Duration::from_secs(60));
        tokens.given(&ann, TableId(7), token("new", t0, None, None));
        assert!(!tokens.forget(&ann, TableId(7), Some("old")));
        assert!(tokens.fresh(&ann, TableId(7), t0).is_some());
        assert!(tokens.forget(&ann, TableId(7), Some("new")));
        assert!(tokens.fresh(&ann, TableId(7), t0).is_none());
        tokens.given(&ann, TableId(7), token("a", t0, None, None));
        tokens.given(&bob, TableId(7), token("b", t0, None, None));
        tokens.given(&bob, TableId(8), token("c", t0, None, None));
        assert!(tokens.forget_table(TableId(7)));
        assert!(!tokens.forget_table(TableId(7)));
        assert!(tokens.fresh(&bob, TableId(8), t0).is_some());
    }

    #[test]
    fn a_restored_tokens_life_counts_from_its_first_answer() {
        let (ann, t0) = (person(1), Instant::now());
        let mut tokens = Tokens::new(Duration::from_secs(60));
        let age = Duration::from_secs(50);
        tokens.restore((ann.clone(), TableId(7)), "a".into(), Some(3), (age, t0));
        let t = tokens.fresh(&ann, TableId(7), t0).unwrap();
        assert_eq!((t.shown, t.message), (Some(3), None));
        assert!(
            tokens
                .fresh(&ann, TableId(7), t0 + Duration::from_secs(10))
                .is_none()
        );
    }

    #[test]
    fn the_record_rule_and_the_answers_decisions() {
        let t0 = Instant::now();
        // Unknown first only when the store holds another hash.
        assert!(token("a", t0, Some(1), None).unknown_first(2));
        assert!(!token("a", t0, Some(2), None).unknown_first(2));
        assert!(!token("a", t0, None, None).unknown_first(2));
        assert!(!token("a", t0, Some(2), None).changes(2));
        assert!(token("a", t0, None, None).changes(2));
        // An answer draws only with the turn held and the pressed message
        // not showing it; without the turn it draws nothing, and the
        // message shows what it was left with.
        assert!(!answer_draws(true, true));
        assert!(answer_draws(true, false));
        assert!(!answer_draws(false, true));
        assert!(!answer_draws(false, false));
        assert_eq!(answered_shows(true, Some(4), Some(3)), Some(4));
        assert_eq!(answered_shows(false, Some(4), Some(3)), Some(3));
        assert_eq!(answered_shows(false, Some(4), None), None);
    }
}
