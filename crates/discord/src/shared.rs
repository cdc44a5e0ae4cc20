//! What the Discord shell's handlers and its outbox share: the neutral
//! front-end, the REST client, the work the handlers hand the outbox
//! ([`Local`]), and what only Discord needs (hand tokens —
//! [`HandTokens`] —, permissions, chat below each table message). Its own file, so that the handlers and
//! the outbox depend on it and not on each other or on `bot`, which
//! starts them.
//!
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use twilight_http::Client;
use twilight_model::http::interaction::InteractionResponse;
use twilight_model::id::Id;
use twilight_model::id::marker::ApplicationMarker;

use kozyr_delivery::burial::Burials;
use kozyr_front::Front;
use kozyr_front::core::Admins;
use kozyr_front::press_limits::{PressLimits, PressRates};
use kozyr_i18n::Lang;
use kozyr_outlet::hand_tokens::HandTokens;
use kozyr_table::{ChatKey, UserId};

/// Work for the outbox from the handlers.
use kozyr_outlet::engine::Local;

/// How long a hand's interaction token is used to edit it. Discord keeps a
/// token 15 minutes; a minute less leaves room for a slow edit.
pub const TOKEN_LIFE: Duration = Duration::from_secs(14 * 60);

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
    /// Each person's and each channel's presses accepted.
    pub presses: Mutex<PressLimits>,
    pub app: Id<ApplicationMarker>,
    pub default_lang: Lang,
    /// (channel, person) → whether their last interaction there carried
    /// Manage Server, Manage Channels or Administrator.
    perms: Mutex<HashMap<(u64, u64), bool>>,
    local: mpsc::UnboundedSender<Local>,
    /// Each open hand's newest interaction token, and the turn to change
    /// its message.
    pub tokens: HandTokens,
    /// Interactions that came over the HTTP endpoint: their first answer
    /// is its HTTP response, not a REST call.
    over_http: Mutex<HashMap<u64, tokio::sync::oneshot::Sender<InteractionResponse>>>,
    /// The bot's own user id (from READY; 0 before): its messages never
    /// bury a table.
    bot_user: AtomicU64,
    /// Per channel with a table message: other people's messages since
    /// it was posted (MESSAGE_CREATE on the gateway). The core never sees
    /// chat; whether that buries the table is delivery's rule.
    pub(super) burials: Arc<Mutex<Burials<u64>>>,
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

    /// Whether `author` is the bot itself (its user, or its application
    /// for what it says in answers).
    pub fn is_bot(&self, author: u64) -> bool {
        author == self.bot_user.load(Ordering::Relaxed) || author == self.app.get()
    }

    /// `message` was posted in `channel` by `author` (a gateway
    /// MESSAGE_CREATE): counted against the channel's table message unless
    /// the bot wrote it (its announcements, pings and answers).
    pub fn on_message(&self, channel: u64, author: u64, message: u64) {
        if !self.is_bot(author) {
            lock(&self.burials).handle_message(channel, message);
        }
    }

    /// Other people's messages below the channel's table message.
    pub fn chatter(&self, channel: u64) -> u32 {
        lock(&self.burials).count(channel)
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
            tokens: HandTokens::new(front.service().clone(), token_life),
            front,
            http,
            callbacks,
            presses: Mutex::new(PressLimits::new(press_rates.person, press_rates.chat)),
            app,
            default_lang,
            perms: Mutex::new(HashMap::new()),
            local,
            over_http: Mutex::new(HashMap::new()),
            bot_user: AtomicU64::new(0),
            burials: Arc::default(),
        }
    }

    /// The bot's own user id, from READY.
    pub fn set_bot_user(&self, id: u64) {
        self.bot_user.store(id, Ordering::Relaxed);
    }
}
