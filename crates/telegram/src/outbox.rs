//! The effects runner: carries out, in Bot API calls, what the paced lane
//! ([`kozyr_delivery::lane`]) decides for every Telegram message.
//!
//! The lane holds every decision: one pacer for every chat (latest state
//! wins, at most what Telegram's limits allow, a 429 delays only its
//! chat), which message shows each table and what it shows across a kill,
//! announcements held for the next render, posting anew, what follows a
//! failed call, and turn alerts. [`kozyr_outlet::paced::PacedOutbox`]
//! runs it, with the handlers' work ([`kozyr_delivery::lane::local::Local`]);
//! this file gives it Telegram's ids and markup ([`Host`]) and each call
//! ([`PacedPlatform`]).
//!
//! Message ids are kept in the store (`message_refs`), so after a restart
//! the same messages are edited and the buttons on them keep working; a
//! person the bot cannot message is marked unreachable (the lobby then
//! shows them a deep link, and the turn timer plays for them).

use std::time::Duration;

use teloxide::payloads::{EditMessageTextSetters, SendMessageSetters};
use teloxide::prelude::Requester;
use teloxide::types::{ChatId, MessageId, ParseMode};

use super::failure::classify;
use super::ids;
use super::markup::Message;
use super::shared::{Shared, class_of};
use kozyr_delivery::content::content_hash as hash_of_parts;
use kozyr_delivery::lane::{self, Action, Host, Markup};
use kozyr_delivery::pacing::{Class, Priority};
use kozyr_delivery::transport::Failure;
use kozyr_front::{Front, Screen, outputs};
use kozyr_i18n::Lang;
use kozyr_outlet::paced::PacedPlatform;
use kozyr_table::{Announcement, ChatKey, HandView, Platform, TableView, UserId};

/// A finished Bot API call.
pub type Done = lane::Done;

impl Markup for Message {
    /// Its text and its keyboard's JSON ([`kozyr_delivery::content`]).
    fn hash(&self) -> i64 {
        let keyboard = self
            .keyboard
            .as_ref()
            .map(|kb| serde_json::to_string(kb).unwrap_or_default())
            .unwrap_or_default();
        hash_of_parts([self.html.as_bytes(), keyboard.as_bytes()])
    }

    fn has_buttons(&self) -> bool {
        self.keyboard.is_some()
    }

    fn without_buttons(&self) -> Self {
        Message {
            html: self.html.clone(),
            keyboard: None,
        }
    }
}

impl Shared {
    fn message(&self, screen: &Screen) -> Message {
        Message::with_app(screen, &self.username, self.front.live().app())
    }
}

/// Telegram as the lane sees it: chat ids, screens as messages, and what
/// the shell knows of chats and people.
impl Host<i64> for Shared {
    type Message = Message;

    fn chat(&self, key: &ChatKey) -> Option<i64> {
        ids::chat_id(key).map(|c| c.0)
    }

    fn private_chat(&self, user: &UserId) -> Option<i64> {
        ids::private_chat_of(user).map(|c| c.0)
    }

    fn person(&self, chat: i64) -> Option<UserId> {
        ids::user_of_private_chat(ChatId(chat))
    }

    fn word(&self, screen: &Screen) -> Message {
        self.message(screen)
    }

    fn table(&self, view: &TableView) -> Message {
        self.message(&self.front.table_screen(view))
    }

    fn hand(&self, hand: &HandView, view: &TableView) -> Message {
        self.message(&self.front.hand_screen(hand, view))
    }

    fn announcement(&self, view: &TableView, a: &Announcement) -> Option<Message> {
        let screen = self.front.announcement(view, a)?;
        Some(self.message(&screen))
    }

    fn lobby_started(&self, lang: Lang) -> Message {
        self.message(&outputs::lobby_started(lang))
    }

    fn is_unreachable(&self, user: &UserId) -> bool {
        self.front.is_unreachable(user)
    }

    fn set_unreachable(&self, user: &UserId) -> bool {
        self.front.set_unreachable(user, true)
    }

    fn fresh(&self, chat: i64, prio: Priority, took: Duration) {
        self.record_freshness(|f| f.record(class_of(&chat), prio, took));
    }

    fn name(&self) -> &'static str {
        "telegram"
    }
}

impl PacedPlatform for Shared {
    const PLATFORM: Platform = Platform::Telegram;

    fn front(&self) -> &Front {
        &self.front
    }

    fn chat_key(&self, chat: i64) -> ChatKey {
        ids::chat_key(ChatId(chat))
    }

    fn class_of(chat: &i64) -> Class {
        class_of(chat)
    }

    async fn deliver(&self, chat: i64, action: Action<Message>) -> Result<Option<u64>, Failure> {
        deliver(self, ChatId(chat), action).await
    }

    fn method_of(action: &Action<Message>) -> &'static str {
        method_of(action)
    }

    async fn chat_gone(&self, chat: i64) {
        Shared::chat_gone(self, ChatId(chat)).await
    }
}

/// The Bot API method of a call, for the metrics.
fn method_of(action: &Action<Message>) -> &'static str {
    match action {
        Action::Send(_) | Action::Nothing => "sendMessage",
        Action::Edit(..) => "editMessageText",
        Action::NoButtons(_) => "editMessageReplyMarkup",
        Action::Delete(_) => "deleteMessage",
    }
}

/// Performs one call. `Ok(Some(id))` when a new message was posted.
async fn deliver(
    shared: &Shared,
    chat: ChatId,
    action: Action<Message>,
) -> Result<Option<u64>, Failure> {
    let bot = &shared.bot;
    let edited = |r: Result<_, teloxide::RequestError>| r.map(|_| None).map_err(|e| classify(&e));
    // The lane's ids are Telegram's: each came from a message id.
    let id = |m: u64| {
        i32::try_from(m)
            .map(MessageId)
            .map_err(|_| Failure::Invalid)
    };
    match action {
        Action::Edit(m, content) => {
            let mut req = bot
                .edit_message_text(chat, id(m)?, content.html)
                .parse_mode(ParseMode::Html);
            if let Some(kb) = content.keyboard {
                req = req.reply_markup(kb);
            }
            edited(req.await.map(drop))
        }
        Action::NoButtons(m) => edited(bot.edit_message_reply_markup(chat, id(m)?).await.map(drop)),
        Action::Delete(m) => match bot.delete_message(chat, id(m)?).await {
            Ok(_) => Ok(None),
            Err(e) => Err(classify(&e)),
        },
        Action::Send(content) => {
            let mut req = bot
                .send_message(chat, content.html)
                .parse_mode(ParseMode::Html);
            if let Some(kb) = content.keyboard {
                req = req.reply_markup(kb);
            }
            match req.await {
                Ok(m) => Ok(ids::message_key(m.id)),
                Err(e) => Err(classify(&e)),
            }
        }
        Action::Nothing => Ok(None),
    }
}
