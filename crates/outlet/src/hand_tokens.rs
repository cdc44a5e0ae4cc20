//! Hand messages edited through a token that expires: a platform that
//! lets the bot edit a person's private message only through the newest
//! answer to them (Discord's interaction tokens, 15 minutes) keeps each
//! hand's token here with what its message shows. Which token edits a
//! hand, when it expires and what a change must write first are
//! [`kozyr_delivery::hand_tokens`]'s decisions; here are its lock, the
//! store writes they ask for, and each hand's turn.
//!
//! Tokens are also kept in the store (through the service) from when
//! they arrive until they are refused or their hand is gone, with what
//! each hand shows, so a process that starts after a kill — or takes over
//! delivery — keeps editing every open hand until its token expires. What
//! a hand shows is made unknown there before each change of it and
//! recorded after ([`kozyr_delivery::content::Recorded`]'s rule). Tokens
//! are secrets: never logged.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{lock, waited};
use kozyr_delivery::content::Write;
use kozyr_delivery::hand_tokens::{HandToken, Tokens, answer_draws, answered_shows};
use kozyr_delivery::transport::Failure;
use kozyr_table::runtime::TableService;
use kozyr_table::storage::{HandTokenChange, HandTokenRow, Secret};
use kozyr_table::{TableId, UserId};

/// How long an outbox edit of a hand waits for the hand's turn, and an
/// answer that drew nothing for the edit on its way to land
/// ([`HandAnswer::went`]).
pub const EDIT_WAIT: Duration = Duration::from_secs(5);

/// The turn to change one hand message ([`HandTokens::turn`]).
type HandLock = Arc<tokio::sync::Mutex<()>>;

type Key = (UserId, TableId);

/// Every open hand's token, the turn to change each hand message, and
/// each table's live message, where its hand is asked for.
pub struct HandTokens {
    service: TableService,
    /// (person, table) → the newest token of their hand, and what the
    /// decisions about it are ([`Tokens`]).
    hands: Mutex<Tokens>,
    /// (person, table) → the turn to change their hand message: the
    /// outbox's edits and the answers to presses on it take it, so that
    /// what the message shows is known and nothing is sent twice.
    locks: Mutex<HashMap<Key, HandLock>>,
    /// Table → its live message: a hand asked for on an older one (the
    /// table was posted anew below since) is asked out of date.
    live: Mutex<HashMap<TableId, u64>>,
}

impl HandTokens {
    /// `life`: how long a token is used to edit its hand.
    pub fn new(service: TableService, life: Duration) -> HandTokens {
        HandTokens {
            service,
            hands: Mutex::new(Tokens::new(life)),
            locks: Mutex::new(HashMap::new()),
            live: Mutex::new(HashMap::new()),
        }
    }

    /// How long a hand's token is used.
    pub fn life(&self) -> Duration {
        lock(&self.hands).life()
    }

    /// Keeps `token`, given `at` (its answer's arrival: its life counts
    /// from then), as the newest of `user`'s hand at `table` — showing
    /// `shown` on `message` when known —, in the store too (one short write
    /// after the answer went, waited for at most
    /// [`kozyr_delivery::content::RECORD_WAIT`]).
    pub async fn given(
        &self,
        (user, table): (&UserId, TableId),
        (token, at): (String, Instant),
        shown: Option<i64>,
        message: Option<u64>,
    ) {
        let kept = HandToken {
            token: token.clone(),
            at,
            shown,
            message,
        };
        lock(&self.hands).given(user, table, kept);
        let row = HandTokenRow {
            table,
            user: user.clone(),
            token: Secret(token),
            given_at: self.service.now(),
            shown,
        };
        // Waited for a short while only: a slow store holds no hand up.
        let given = HandTokenChange::Given(row);
        self.change(table, given, "cannot keep a hand token").await;
    }

    /// A token the store kept from an earlier run, `age` old at `now`.
    pub fn restore(&self, row: HandTokenRow, age: Duration, now: Instant) {
        let place = (row.user, row.table);
        lock(&self.hands).restore(place, row.token.0, row.shown, (age, now));
    }

    /// Before a change of what `user`'s hand at `table` shows to `shown`:
    /// unless the store holds no hash for it or that very one, it is made
    /// unknown there first, so a kill between the change and its record
    /// never leaves a hash the hand does not show.
    pub async fn changing(&self, user: &UserId, table: TableId, shown: i64, now: Instant) {
        if let Some(t) = self.fresh(user, table, now) {
            self.unknown_before((user, table), &t, shown).await;
        }
    }

    /// The record rule's first half: a hash the store holds for the hand
    /// `token` reaches, other than `shown`, is made unknown there before
    /// the change to `shown` goes.
    async fn unknown_before(
        &self,
        (user, table): (&UserId, TableId),
        token: &HandToken,
        shown: i64,
    ) {
        if !token.unknown_first(shown) {
            return;
        }
        if self.store_shown(user, table, &token.token, None).await == Write::Landed {
            self.shown(user, table, &token.token, None);
        }
    }

    /// Edits the hand through `token` to show `shown` with `edit`, unless
    /// it shows that already: made unknown in the store first, recorded
    /// after it landed. What `edit` failed with, if it did.
    pub async fn edit<F: Future<Output = Result<(), Failure>>>(
        &self,
        (user, table): (&UserId, TableId),
        token: &HandToken,
        shown: i64,
        edit: impl FnOnce(String) -> F,
    ) -> Option<Failure> {
        if !token.changes(shown) {
            return None;
        }
        self.unknown_before((user, table), token, shown).await;
        if let Err(f) = edit(token.token.clone()).await {
            return Some(f);
        }
        // The message shows it now, whatever the store can keep: a record
        // still on its way, or one the store refused (the next change
        // makes it unknown there first, as it is known here).
        self.store_shown(user, table, &token.token, Some(shown))
            .await;
        self.shown(user, table, &token.token, Some(shown));
        None
    }

    /// Records in the store what the hand shows through `token` (`None`:
    /// not known), waiting for it at most
    /// [`kozyr_delivery::content::RECORD_WAIT`].
    async fn store_shown(
        &self,
        user: &UserId,
        table: TableId,
        token: &str,
        shown: Option<i64>,
    ) -> Write {
        let change = HandTokenChange::Shown {
            table,
            user: user.clone(),
            token: Secret(token.to_owned()),
            shown,
        };
        self.change(table, change, "cannot record what a hand shows")
            .await
    }

    /// Makes `change` in the store, waited for at most
    /// [`kozyr_delivery::content::RECORD_WAIT`]; `failed` is logged if it
    /// fails.
    async fn change(&self, table: TableId, change: HandTokenChange, failed: &'static str) -> Write {
        let service = self.service.clone();
        waited(async move {
            match service
                .records()
                .change_hand_token(change, service.now())
                .await
            {
                Ok(()) => true,
                Err(e) => {
                    tracing::warn!(error = %e, table = table.0, "{failed}");
                    false
                }
            }
        })
        .await
    }

    /// Forgets, in the store, `user`'s token at `table` (`token`: only if
    /// it is still that one; `user` `None`: everyone's at the table).
    fn unstore(&self, table: TableId, user: Option<&UserId>, token: Option<&str>) {
        let change = HandTokenChange::Forget {
            table,
            user: user.cloned(),
            token: token.map(|t| Secret(t.to_owned())),
        };
        let service = self.service.clone();
        // Outside the caller's loop; a newer token written meanwhile is
        // kept (`token`), and an expired one is never read again anyway.
        tokio::spawn(async move {
            if let Err(e) = service
                .records()
                .change_hand_token(change, service.now())
                .await
            {
                tracing::warn!(error = %e, table = table.0, "cannot forget a hand token");
            }
        });
    }

    /// The token that still edits `user`'s hand at `table` as of `now`.
    pub fn fresh(&self, user: &UserId, table: TableId, now: Instant) -> Option<HandToken> {
        lock(&self.hands).fresh(user, table, now)
    }

    /// Whether `message`, the hand message of `user` at `table` that the
    /// fresh token edits, shows `shown` already (as of `now`).
    pub fn shows(&self, place: (&UserId, TableId), message: u64, shown: i64, now: Instant) -> bool {
        lock(&self.hands).shows(place, message, shown, now)
    }

    /// What `message`, the hand message of `user` at `table` that the
    /// fresh token edits, is known to show (as of `now`).
    pub fn showing(&self, place: (&UserId, TableId), message: u64, now: Instant) -> Option<i64> {
        lock(&self.hands).showing(place, message, now)
    }

    /// Records what the hand shows now (after an edit through `token`):
    /// [`Tokens::shown`].
    pub fn shown(&self, user: &UserId, table: TableId, token: &str, shown: Option<i64>) {
        lock(&self.hands).shown(user, table, token, shown);
    }

    /// The turn to change `user`'s hand message at `table`, waited for at
    /// most `wait` (`None` then: what the message shows becomes unknown).
    /// Held by an outbox edit until it landed, and by a press on the hand
    /// until its answer went: the other then knows what the message shows
    /// (an edit in flight would otherwise leave it unknown, and the same
    /// content would go out again).
    pub async fn turn(
        &self,
        user: &UserId,
        table: TableId,
        wait: Duration,
    ) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let m = lock(&self.locks)
            .entry((user.clone(), table))
            .or_default()
            .clone();
        tokio::time::timeout(wait, m.lock_owned()).await.ok()
    }

    /// Begins an answer on `user`'s hand message at `table` to an
    /// interaction that arrived at `arrived` (a press on the hand, or a
    /// request for it): the hand's turn is taken first, waited for at most
    /// `wait` ([`HandAnswer`]).
    pub async fn answering(
        &self,
        user: &UserId,
        table: TableId,
        arrived: Instant,
        wait: Duration,
    ) -> HandAnswer<'_> {
        HandAnswer {
            turn: self.turn(user, table, wait).await,
            tokens: self,
            user: user.clone(),
            table,
            arrived,
        }
    }

    /// Forgets a token the platform refused (expired), or a hand that is
    /// gone (`token` `None`); whether one was known.
    pub fn forget(&self, user: &UserId, table: TableId, token: Option<&str>) -> bool {
        let known = lock(&self.hands).forget(user, table, token);
        if known {
            self.unstore(table, Some(user), token);
        }
        known
    }

    /// Forgets every hand token of a table (it closed).
    pub fn forget_table(&self, table: TableId) {
        if lock(&self.hands).forget_table(table) {
            self.unstore(table, None, None);
        }
        lock(&self.locks).retain(|(_, t), _| *t != table);
        lock(&self.live).remove(&table);
    }

    /// `message` shows `table` now. Message ids grow with time (Discord's
    /// snowflakes), so the newest is kept whatever order they are told in.
    pub fn table_shown(&self, table: TableId, message: u64) {
        let mut live = lock(&self.live);
        let newest = live.entry(table).or_insert(message);
        *newest = (*newest).max(message);
    }

    /// Whether `message` is an older message of `table`'s, posted anew
    /// below since (a new deal, buried by chat).
    pub fn is_replaced(&self, table: TableId, message: u64) -> bool {
        lock(&self.live).get(&table).is_some_and(|l| message < *l)
    }
}

/// An answer on a hand message, from before the work it answers until it
/// went: the record rule around an answer that changes the hand, carried
/// out here once for every answer.
///
/// It holds the hand's turn ([`HandTokens::turn`]), so no outbox edit of
/// the message lands meanwhile and what the message shows is known once
/// the answer went. Without the turn (an edit on its way past the wait)
/// the answer draws nothing, and takes the turn once it went: the edit
/// landed, the message shows what it left, and the outbox draws the
/// newest state after it. A hash the store holds is made unknown before
/// the answer changes the hand, and the answer's token is kept, with what
/// it shows, once it went: from then on that token edits the hand.
/// Dropped without [`HandAnswer::went`] (the answer never reached the
/// platform), the hand's older token keeps editing it.
pub struct HandAnswer<'a> {
    tokens: &'a HandTokens,
    user: UserId,
    table: TableId,
    /// When the interaction arrived: its token's life counts from then.
    arrived: Instant,
    turn: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl HandAnswer<'_> {
    pub fn table(&self) -> TableId {
        self.table
    }

    /// Whether the answer draws the hand showing `shown`: only with the
    /// hand's turn held, and not when `pressed`, the message pressed on,
    /// is known to show it already (a double tap, a pick racing a
    /// redraw); [`answer_draws`]. When it does, a hash the store holds for
    /// the hand is made unknown first.
    pub async fn must_draw(&self, shown: i64, pressed: Option<u64>) -> bool {
        let place = (&self.user, self.table);
        let shows_it = |message| self.tokens.shows(place, message, shown, self.arrived);
        if !answer_draws(self.turn.is_some(), pressed.is_some_and(shows_it)) {
            return false;
        }
        (self.tokens)
            .changing(&self.user, self.table, shown, self.arrived)
            .await;
        true
    }

    /// The answer went, with `token`: it edits the hand from now on (on
    /// `message` when known), which shows `drawn` if the turn was held,
    /// else what the edit on its way left ([`answered_shows`]). The turn
    /// goes with it.
    pub async fn went(mut self, token: String, drawn: Option<i64>, message: Option<u64>) {
        let held = self.turn.is_some();
        let place = (&self.user, self.table);
        let mut left = None;
        if !held {
            // It drew nothing: once the edit on its way landed, the message
            // shows what that edit left.
            self.turn = self.tokens.turn(place.0, place.1, EDIT_WAIT).await;
            if let (Some(_), Some(m)) = (&self.turn, message) {
                left = self.tokens.showing(place, m, self.arrived);
            }
        }
        let shown = answered_shows(held, drawn, left);
        (self.tokens)
            .given(place, (token, self.arrived), shown, message)
            .await;
    }
}
