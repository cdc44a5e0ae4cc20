//! What the Telegram shell's handlers and its outbox share: the neutral
//! front-end, the bot, the work the handlers hand the outbox ([`Local`]),
//! and what only Telegram needs (groups the bot left, a short admin
//! cache, closed menus, how fresh delivered messages were). Its own file,
//! so that the handlers and the outbox depend on it and not on each other
//! or on `bot`, which starts them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use teloxide::prelude::*;
use tokio::sync::mpsc;

use kozyr_delivery::lane::local::ClosedMenus;
use kozyr_delivery::pacing::{Class, Freshness};
use kozyr_front::Front;
use kozyr_front::core::Admins;
use kozyr_i18n::Lang;
use kozyr_outlet::trusted::Trusted;
use kozyr_table::{ChatKey, Player, UserId};

/// What the handlers ask of the outbox, besides the service's outputs.
pub type Local = kozyr_delivery::lane::local::Local<i64>;

/// The updates handed to the handlers and not yet handled, by update id
/// and chat (`listener`).
pub type Handled = kozyr_outlet::in_flight::InFlight<u32, ChatId>;

/// Held by the handlers while an update is handled: [`Handled::guard`].
pub type UpdateGuard = kozyr_outlet::in_flight::Guard<u32, ChatId>;

/// Which limits a chat has: Telegram's private chats have positive ids
/// (the user's), groups negative ones.
pub(super) fn class_of(chat: &i64) -> Class {
    if *chat > 0 {
        Class::Private
    } else {
        Class::Group
    }
}

/// How long an admin check from `getChatMember` is trusted.
const ADMIN_CACHE: Duration = Duration::from_secs(60);

/// What the Telegram shell shares between update handlers and the effects
/// runner: the neutral front-end, and what only Telegram needs.
pub struct Shared {
    pub front: Arc<Front>,
    pub bot: Bot,
    /// The bot's username, for deep links and `/cmd@bot` mentions.
    pub username: String,
    default_lang: Lang,
    /// Work for the effects runner from the handlers (re-renders,
    /// reachability of people and groups).
    local: mpsc::UnboundedSender<Local>,
    /// `getChatMember` answers, trusted for [`ADMIN_CACHE`].
    admins: Trusted<(ChatId, teloxide::types::UserId), bool>,
    /// How fresh the messages the outbox delivered were.
    freshness: Mutex<Freshness>,
    /// Menus that did their job: a press on one changes nothing.
    pub(super) closed_menus: ClosedMenus<i64>,
}

/// A std mutex whose holder panicked is still usable: every section here
/// leaves its map consistent.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Past this many cached admin answers, the expired ones are dropped.
const ADMIN_CACHE_SOFT_LIMIT: usize = 1024;

impl Shared {
    /// The person behind a Telegram user, in the language their client reports.
    pub fn player_of(&self, user: &teloxide::types::User) -> Player {
        let lang = super::ids::lang_of(user).unwrap_or(self.default_lang);
        Player::new(super::ids::user_id(user), &user.full_name(), lang)
    }

    /// The outbox records how fresh a delivered message was.
    pub(super) fn record_freshness(&self, f: impl FnOnce(&mut Freshness)) {
        f(&mut lock(&self.freshness));
    }

    /// How fresh the delivered messages were so far (`kozyr-loadtest`).
    pub fn freshness(&self) -> Freshness {
        lock(&self.freshness).clone()
    }

    /// How fresh the delivered messages were, and starts counting anew.
    pub fn take_freshness(&self) -> Freshness {
        std::mem::take(&mut *lock(&self.freshness))
    }

    /// Hands the effects runner work from outside the table service.
    pub fn notify(&self, local: Local) {
        let _ = self.local.send(local);
    }

    /// The bot is out of `chat`: its open table stops, and nothing more is
    /// sent there (the outbox's lane keeps which chats are gone).
    pub async fn chat_gone(&self, chat: ChatId) {
        self.notify(Local::ChatGone(chat.0));
        self.front.chat_gone(&super::ids::chat_key(chat)).await;
    }

    /// Whether `user` administers `chat` (briefly cached `getChatMember`).
    async fn telegram_admin(&self, chat: ChatId, user: teloxide::types::UserId) -> bool {
        if chat.is_user() {
            return false;
        }
        let ask = async {
            let member = self.bot.get_chat_member(chat, user).await;
            super::failure::record_call("getChatMember", &member);
            match member {
                Ok(m) => m.is_privileged(),
                Err(e) => {
                    tracing::warn!(error = %e, "getChatMember failed; treating as not an admin");
                    false
                }
            }
        };
        self.admins.answer((chat, user), ask).await
    }
}

impl Admins for Shared {
    async fn is_admin(&self, chat: &ChatKey, user: &UserId) -> bool {
        let (Some(chat), UserId::Telegram(user)) = (super::ids::chat_id(chat), user) else {
            return false;
        };
        self.telegram_admin(chat, teloxide::types::UserId(*user))
            .await
    }
}

impl Shared {
    pub fn new(
        front: Arc<Front>,
        bot: Bot,
        username: String,
        default_lang: Lang,
        local: mpsc::UnboundedSender<Local>,
    ) -> Shared {
        Shared {
            front,
            bot,
            username,
            default_lang,
            local,
            admins: Trusted::new(ADMIN_CACHE, ADMIN_CACHE_SOFT_LIMIT),
            freshness: Mutex::new(Freshness::default()),
            closed_menus: ClosedMenus::default(),
        }
    }
}
