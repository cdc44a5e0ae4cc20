//! What the Discord shell's handlers and its outbox share: the neutral
//! front-end, the REST client, the work the handlers hand the outbox
//! ([`Local`]), and what only Discord needs (hand tokens, permissions,
//! chat below each table message). Its own file, so that the handlers and
//! the outbox depend on it and not on each other or on `bot`, which
//! starts them.
//!
//! Hand tokens are also kept in the store (through the service) from when
//! they arrive until they are refused or their hand is gone, with what
//! each hand shows, so a process that starts after a kill — or takes over
//! delivery — keeps editing every open hand until its token expires. What
//! a hand shows is made unknown there before each change of it and
//! recorded after ([`crate::delivery::content::Recorded`]'s rule). Tokens
//! are secrets: never logged.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use twilight_http::Client;
use twilight_model::http::interaction::InteractionResponse;
use twilight_model::id::Id;
use twilight_model::id::marker::ApplicationMarker;

use crate::delivery::burial::Burials;
use crate::delivery::content::Write;
use crate::front::Front;
use crate::front::core::Admins;
use crate::front::press_limits::{PressLimits, PressRates};
use crate::i18n::Lang;
use crate::outlet::waited;
use crate::table::storage::{HandTokenChange, HandTokenRow, Secret};
use crate::table::{ChatKey, Output, TableId, UserId};

/// Work for the outbox from the handlers.
#[derive(Clone, Debug)]
pub enum Local {
    Output(Output),
    /// The person sent an interaction (a press, a command): they are
    /// looking, for the turn alerts.
    Acted(UserId),
    /// Someone looked for the table: its message goes anew to the bottom
    /// of the channel (it may have been deleted or scrolled far up), the
    /// old one losing its buttons.
    BringTable(Box<crate::table::TableView>),
}

/// Past this many interactions being handled at once, those whose
/// handler never finished (it panicked) are looked for and forgotten.
const ARRIVED_LIMIT: usize = 4096;

/// How long after an interaction arrived a failed first answer (a 5xx, a
/// connection reset) is still tried again: Discord takes it within 3 s.
pub const ANSWER_RETRY_UNTIL: Duration = Duration::from_millis(2_400);

/// How long a hand's interaction token is used to edit it. Discord keeps a
/// token 15 minutes; a minute less leaves room for a slow edit.
pub const TOKEN_LIFE: Duration = Duration::from_secs(14 * 60);

/// A player's newest interaction on their hand message: its token edits
/// the hand (`PATCH /webhooks/{app}/{token}/messages/@original`). No
/// `Debug`: the token is a secret.
#[derive(Clone)]
pub struct HandToken {
    pub token: String,
    pub at: Instant,
    /// A hash of what the hand message shows, so an edit that would change
    /// nothing is not sent.
    pub shown: Option<i64>,
}

/// The turn to change one hand message ([`Shared::hand_turn`]).
type HandLock = Arc<tokio::sync::Mutex<()>>;

/// Past this many remembered permission answers, the map starts over.
const PERMS_LIMIT: usize = 4096;

/// What the Discord shell shares between the handlers and the outbox.
pub struct Shared {
    pub front: Arc<Front>,
    pub http: Arc<Client>,
    /// Interaction callbacks' own client, without twilight's rate
    /// limiter: the limiter queues every callback behind the one in
    /// flight (their paths share one bucket), so one hung answer kept
    /// other people's interactions past Discord's 3 s. Discord does not
    /// count them against the bot's global limit.
    pub callbacks: Arc<Client>,
    /// Interactions being handled: when each arrived, for the 3 s Discord
    /// gives its first answer.
    arrived: Mutex<HashMap<u64, Instant>>,
    /// Each person's and each channel's presses accepted.
    presses: Mutex<PressLimits>,
    pub app: Id<ApplicationMarker>,
    pub default_lang: Lang,
    /// (person, table) → the newest interaction token of their hand.
    hands: Mutex<HashMap<(UserId, TableId), HandToken>>,
    /// (channel, person) → whether their last interaction there carried
    /// Manage Server, Manage Channels or Administrator.
    perms: Mutex<HashMap<(u64, u64), bool>>,
    local: mpsc::UnboundedSender<Local>,
    token_life: Duration,
    /// Interactions that came over the HTTP endpoint: their first answer
    /// is its HTTP response, not a REST call.
    over_http: Mutex<HashMap<u64, tokio::sync::oneshot::Sender<InteractionResponse>>>,
    /// (person, table) → the turn to change their hand message: the
    /// outbox's edits and the answers to presses on it take it, so that
    /// what the message shows is known and nothing is sent twice.
    hand_locks: Mutex<HashMap<(UserId, TableId), HandLock>>,
    /// The bot's own user id (from READY; 0 before): its messages never
    /// bury a table.
    bot_user: AtomicU64,
    /// Per channel with a table message: other people's messages since
    /// it was posted (MESSAGE_CREATE on the gateway). The core never sees
    /// chat; whether that buries the table is delivery's rule.
    pub(super) burials: Mutex<Burials<u64>>,
    /// Table → its live public message: a "My hand" pressed on an older
    /// one (a table posted anew since) is out of date.
    live: Mutex<HashMap<TableId, u64>>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// The first answer to `interaction` goes to `tx` (the HTTP endpoint).
    pub fn answer_over_http(
        &self,
        interaction: u64,
        tx: tokio::sync::oneshot::Sender<InteractionResponse>,
    ) {
        lock(&self.over_http).insert(interaction, tx);
    }

    /// Hands the answer to the HTTP request that brought the interaction;
    /// `None` when it came from the gateway.
    pub fn answered_over_http(
        &self,
        interaction: u64,
        answer: InteractionResponse,
    ) -> Option<bool> {
        let tx = lock(&self.over_http).remove(&interaction)?;
        Some(tx.send(answer).is_ok())
    }

    /// Interaction `id` arrived `now`; its first answer is due within
    /// Discord's 3 s from here ([`Shared::answer_due`]).
    pub fn arrived(&self, id: u64, now: Instant) {
        let mut arrived = lock(&self.arrived);
        // One whose handler never finished (it panicked) is forgotten
        // once its time is long gone.
        if arrived.len() >= ARRIVED_LIMIT {
            arrived.retain(|_, at| now.saturating_duration_since(*at) < TOKEN_LIFE);
        }
        arrived.insert(id, now);
    }

    /// Whether a press by `user` in `channel` at `now` is within their rates.
    pub fn admit_press(&self, user: u64, channel: u64, now: Instant) -> bool {
        // A channel id is a Discord snowflake (below 2^63): as i64 it
        // keys the channel's bucket.
        lock(&self.presses).admit(user, channel as i64, now)
    }

    /// Interaction `id` is handled: its time is no longer kept.
    pub fn handled(&self, id: u64) {
        lock(&self.arrived).remove(&id);
    }

    /// When interaction `id` arrived, while it is being handled.
    pub fn arrival(&self, id: u64) -> Option<Instant> {
        lock(&self.arrived).get(&id).copied()
    }

    /// By when interaction `id`'s first answer must have gone, with room
    /// for the answer's own trip (`None` for one not known to be handled:
    /// no time to try again).
    pub fn answer_due(&self, id: u64) -> Option<Instant> {
        self.arrival(id).map(|at| at + ANSWER_RETRY_UNTIL)
    }

    pub fn notify(&self, local: Local) {
        let _ = self.local.send(local);
    }

    pub fn set_admin(&self, channel: u64, user: u64, admin: bool) {
        let mut p = lock(&self.perms);
        if p.len() >= PERMS_LIMIT {
            p.clear();
        }
        p.insert((channel, user), admin);
    }

    /// Keeps `token`, given `at` (its interaction's arrival: its life
    /// counts from then), as the newest of `user`'s hand at `table`, in the
    /// store too (one short write after the answer went, waited for at
    /// most [`crate::delivery::content::RECORD_WAIT`]).
    pub async fn hand_token(
        &self,
        user: &UserId,
        table: TableId,
        (token, at): (String, Instant),
        shown: Option<i64>,
    ) {
        lock(&self.hands).insert(
            (user.clone(), table),
            HandToken {
                token: token.clone(),
                at,
                shown,
            },
        );
        let row = HandTokenRow {
            table,
            user: user.clone(),
            token: Secret(token),
            given_at: self.front.service().now(),
            shown,
        };
        let service = self.front.service().clone();
        // Waited for a short while only: a slow store holds no hand up.
        let _ = waited(async move {
            match service.change_hand_token(HandTokenChange::Given(row)).await {
                Ok(()) => true,
                Err(e) => {
                    tracing::warn!(error = %e, table = table.0, "cannot keep a hand token");
                    false
                }
            }
        })
        .await;
    }

    /// A token the store kept from an earlier run, `age` old at `now`.
    pub fn restore_hand_token(&self, row: HandTokenRow, age: Duration, now: Instant) {
        let at = now.checked_sub(age).unwrap_or(now);
        lock(&self.hands).insert(
            (row.user, row.table),
            HandToken {
                token: row.token.0,
                at,
                shown: row.shown,
            },
        );
    }

    /// Before a change of what `user`'s hand at `table` shows to `shown`:
    /// unless the store holds no hash for it or that very one, it is made
    /// unknown there first, so a kill between the change and its record
    /// never leaves a hash the hand does not show.
    pub async fn hand_changing(&self, user: &UserId, table: TableId, shown: i64, now: Instant) {
        let Some(t) = self.fresh_token(user, table, now) else {
            return;
        };
        if t.shown.is_none() || t.shown == Some(shown) {
            return;
        }
        if self.store_hand_shown(user, table, &t.token, None).await == Write::Landed {
            self.hand_shown(user, table, &t.token, None);
        }
    }

    /// Records in the store what the hand shows through `token` (`None`:
    /// not known), waiting for it at most
    /// [`crate::delivery::content::RECORD_WAIT`].
    pub async fn store_hand_shown(
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
        let service = self.front.service().clone();
        waited(async move {
            match service.change_hand_token(change).await {
                Ok(()) => true,
                Err(e) => {
                    tracing::warn!(error = %e, table = table.0, "cannot record what a hand shows");
                    false
                }
            }
        })
        .await
    }

    /// Forgets, in the store, `user`'s token at `table` (`token`: only if
    /// it is still that one; `user` `None`: everyone's at the table).
    fn unstore_tokens(&self, table: TableId, user: Option<&UserId>, token: Option<&str>) {
        let change = HandTokenChange::Forget {
            table,
            user: user.cloned(),
            token: token.map(|t| Secret(t.to_owned())),
        };
        let service = self.front.service().clone();
        // Outside the outbox's loop; a newer token written meanwhile is
        // kept (`token`), and an expired one is never read again anyway.
        tokio::spawn(async move {
            if let Err(e) = service.change_hand_token(change).await {
                tracing::warn!(error = %e, table = table.0, "cannot forget a hand token");
            }
        });
    }

    /// How long a hand's token is used.
    pub fn token_life(&self) -> Duration {
        self.token_life
    }

    /// The token that still edits `user`'s hand at `table` as of `now`.
    pub fn fresh_token(&self, user: &UserId, table: TableId, now: Instant) -> Option<HandToken> {
        let mut h = lock(&self.hands);
        let key = (user.clone(), table);
        match h.get(&key) {
            Some(t) if now.saturating_duration_since(t.at) < self.token_life => Some(t.clone()),
            Some(_) => {
                h.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Records what the hand shows now (after an edit through `token`).
    /// An edit through an older token may have landed on the same message
    /// after a newer answer drew it: unless it showed the same, what the
    /// message shows is unknown, and the next render is sent.
    pub fn hand_shown(&self, user: &UserId, table: TableId, token: &str, shown: Option<i64>) {
        if let Some(t) = lock(&self.hands).get_mut(&(user.clone(), table)) {
            if t.token == token {
                t.shown = shown;
            } else if t.shown != shown {
                t.shown = None;
            }
        }
    }

    /// The turn to change `user`'s hand message at `table`, waited for at
    /// most `wait` (`None` then: what the message shows becomes unknown).
    /// Held by an outbox edit until it landed, and by a press on the hand
    /// until its answer went: the other then knows what the message shows
    /// (an edit in flight would otherwise leave it unknown, and the same
    /// content would go out again).
    pub async fn hand_turn(
        &self,
        user: &UserId,
        table: TableId,
        wait: Duration,
    ) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let m = lock(&self.hand_locks)
            .entry((user.clone(), table))
            .or_default()
            .clone();
        tokio::time::timeout(wait, m.lock_owned()).await.ok()
    }

    /// Forgets a token Discord refused (expired), or a hand that is gone.
    pub fn forget_hand(&self, user: &UserId, table: TableId, token: Option<&str>) -> bool {
        let mut h = lock(&self.hands);
        let key = (user.clone(), table);
        if token.is_none_or(|t| h.get(&key).is_some_and(|k| k.token == t)) {
            let known = h.remove(&key).is_some();
            drop(h);
            if known {
                self.unstore_tokens(table, Some(user), token);
            }
            return known;
        }
        false
    }

    /// Whether `author` is the bot itself (its user, or its application
    /// for what it says in answers).
    pub fn is_bot(&self, author: u64) -> bool {
        author == self.bot_user.load(Ordering::Relaxed) || author == self.app.get()
    }

    /// A message was posted in `channel` by `author` (a gateway
    /// MESSAGE_CREATE): counted against the channel's table message unless
    /// the bot wrote it (its announcements, pings and answers).
    pub fn on_message(&self, channel: u64, author: u64) {
        if !self.is_bot(author) {
            lock(&self.burials).handle_message(channel);
        }
    }

    /// Other people's messages below the channel's table message.
    pub fn chatter(&self, channel: u64) -> u32 {
        lock(&self.burials).count(channel)
    }

    /// `message` shows `table` now. Snowflakes grow with time, so the
    /// newest is kept whatever order the outbox reports them in.
    pub fn set_live(&self, table: TableId, message: u64) {
        let mut l = lock(&self.live);
        let e = l.entry(table).or_insert(message);
        *e = (*e).max(message);
    }

    /// Whether `message` is an old message of `table`: it was posted anew
    /// below since (a new deal, buried by chat).
    pub fn is_replaced(&self, table: TableId, message: u64) -> bool {
        lock(&self.live).get(&table).is_some_and(|l| message < *l)
    }

    /// Forgets every hand token of a table (it closed).
    pub fn forget_table(&self, table: TableId) {
        let mut hands = lock(&self.hands);
        let had = hands.keys().any(|(_, t)| *t == table);
        hands.retain(|(_, t), _| *t != table);
        drop(hands);
        if had {
            self.unstore_tokens(table, None, None);
        }
        lock(&self.hand_locks).retain(|(_, t), _| *t != table);
        lock(&self.live).remove(&table);
    }
}

impl Admins for Shared {
    /// Manage Server or Manage Channels (or Administrator) as the person's
    /// last interaction in the channel said, or the creator of its table.
    async fn is_admin(&self, chat: &ChatKey, user: &UserId) -> bool {
        let (ChatKey::Discord(c), UserId::Discord(u)) = (chat, user) else {
            return false;
        };
        if lock(&self.perms).get(&(*c, *u)).copied().unwrap_or(false) {
            return true;
        }
        matches!(
            self.front.service().open_table_view(chat).await,
            Ok(Some(v)) if &v.creator == user
        )
    }
}

impl Shared {
    pub fn new(
        front: Arc<Front>,
        (http, callbacks): (Arc<Client>, Arc<Client>),
        app: Id<ApplicationMarker>,
        default_lang: Lang,
        local: mpsc::UnboundedSender<Local>,
        token_life: Duration,
        press_rates: PressRates,
    ) -> Shared {
        Shared {
            front,
            http,
            callbacks,
            arrived: Mutex::new(HashMap::new()),
            presses: Mutex::new(PressLimits::new(press_rates.person, press_rates.chat)),
            app,
            default_lang,
            hands: Mutex::new(HashMap::new()),
            perms: Mutex::new(HashMap::new()),
            local,
            token_life,
            over_http: Mutex::new(HashMap::new()),
            hand_locks: Mutex::new(HashMap::new()),
            bot_user: AtomicU64::new(0),
            burials: Mutex::new(Burials::default()),
            live: Mutex::new(HashMap::new()),
        }
    }

    /// The bot's own user id, from READY.
    pub fn set_bot_user(&self, id: u64) {
        self.bot_user.store(id, Ordering::Relaxed);
    }
}
