//! The effects runner: carries out, in Bot API calls, what the paced lane
//! ([`crate::delivery::lane`]) decides for every Telegram message.
//!
//! The lane holds every decision: one pacer for every chat (latest state
//! wins, at most what Telegram's limits allow, a 429 delays only its
//! chat), which message shows each table and what it shows across a kill,
//! announcements held for the next render, posting anew, what follows a
//! failed call, and turn alerts. This file gives it Telegram's ids and
//! markup (`Face`), runs each call it polls in a task of its own (a slow
//! chat never holds up another) with the store writes around it, and
//! carries out the [`Effect`]s that await the store or the service.
//!
//! Message ids are kept in the store (`message_refs`), so after a restart
//! the same messages are edited and the buttons on them keep working; a
//! person the bot cannot message is marked unreachable (the lobby then
//! shows them a deep link, and the turn timer plays for them).

use std::sync::Arc;
use std::time::{Duration, Instant};

use teloxide::payloads::{EditMessageTextSetters, SendMessageSetters};
use teloxide::prelude::Requester;
use teloxide::types::{ChatId, MessageId, ParseMode};
use tokio::sync::mpsc;

use super::failure::classify;
use super::ids;
use super::markup::Message;
/// The handlers' work for the outbox, under the name it had here.
pub use super::shared::Local;
use super::shared::{Shared, class_of};
use crate::delivery::content::{Landed, content_hash as hash_of_parts};
use crate::delivery::lane::{self, Action, Effect, Host, Markup, PacedLane, Restored};
use crate::delivery::pacing::{Limits, Priority, unix_ms};
use crate::delivery::transport::{Failure, Policy};
use crate::front::live::LiveEvent;
use crate::front::{Screen, outputs};
use crate::i18n::Lang;
use crate::outlet::service::{self, mark_shown, restore, save_writes};
use crate::outlet::waited;
use crate::table::Platform::Telegram;
use crate::table::{Announcement, ChatKey, HandView, Output, Platform, TableView, UserId};

/// A finished Bot API call.
pub type Done = lane::Done;

impl Markup for Message {
    /// Its text and its keyboard's JSON ([`crate::delivery::content`]).
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

/// Telegram as the lane sees it: chat ids, screens as messages, and what
/// the shell knows of chats and people.
struct Face<'a>(&'a Shared);

impl Face<'_> {
    fn message(&self, screen: &Screen) -> Message {
        Message::with_app(screen, &self.0.username, self.0.front.live().app())
    }
}

impl Host<i64> for Face<'_> {
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

    fn table(&self, view: &TableView) -> Message {
        self.message(&self.0.front.table_screen(view))
    }

    fn hand(&self, hand: &HandView, view: &TableView) -> Message {
        self.message(&self.0.front.hand_screen(hand, view))
    }

    fn announcement(&self, view: &TableView, a: &Announcement) -> Option<Message> {
        let screen = self.0.front.announcement(view, a)?;
        Some(self.message(&screen))
    }

    fn lobby_started(&self, lang: Lang) -> Message {
        self.message(&outputs::lobby_started(lang))
    }

    fn is_chat_gone(&self, chat: i64) -> bool {
        self.0.is_chat_gone(ChatId(chat))
    }

    fn is_unreachable(&self, user: &UserId) -> bool {
        self.0.front.is_unreachable(user)
    }

    fn set_unreachable(&self, user: &UserId) -> bool {
        self.0.front.set_unreachable(user, true)
    }

    fn fresh(&self, chat: i64, prio: Priority, took: Duration) {
        self.0
            .record_freshness(|f| f.record(class_of(&chat), prio, took));
    }

    fn name(&self) -> &'static str {
        "telegram"
    }
}

/// A Telegram message id as the lane keeps it.
fn lane_id(m: MessageId) -> Option<u64> {
    u64::try_from(m.0).ok()
}

/// The runner's state; [`crate::outlet::run`] drives it.
pub struct Outbox {
    shared: Arc<Shared>,
    lane: PacedLane<i64, Message>,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
}

impl Outbox {
    pub async fn new(
        shared: Arc<Shared>,
        limits: Limits,
        not_found_retry: Duration,
        turn_alerts: Option<Duration>,
        now: Instant,
    ) -> Outbox {
        let saved = restore(shared.front.service(), Platform::Telegram, None).await;
        let messages = saved
            .messages
            .into_iter()
            .filter_map(|(table, chat, message)| {
                let m = i32::try_from(message).ok()?;
                Some((table, chat.parse::<i64>().ok()?, lane_id(MessageId(m))?))
            })
            .collect();
        let shown = saved
            .shown
            .into_iter()
            .filter_map(|(table, chat, hash)| Some((table, chat.parse::<i64>().ok()?, hash)))
            .collect();
        let policy = Policy {
            missing_retry: not_found_retry,
            ..Policy::default()
        };
        // The start: everyone counts as seen, every window starts.
        let restored = Restored { messages, shown };
        let mut lane = PacedLane::new(limits, class_of, policy, turn_alerts, restored, now);
        // Where the writes were recorded (every group's since this was
        // kept), the window counts from them exactly instead.
        let unix_now = shared.front.service().now().millis();
        let window = limits.group.window;
        let service = shared.front.service();
        for (chat, times) in service::chat_writes(service, Telegram, window, (now, unix_now)).await
        {
            if let Ok(chat) = chat.parse::<i64>() {
                lane.restore_writes(chat, times, now);
            }
        }
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let mut outbox = Outbox {
            shared,
            lane,
            done_tx,
            done_rx,
        };
        outbox.take_owed(now).await;
        outbox
    }

    /// What a kill left unsent ([`service::take_owed`]); a closed table's
    /// announcements are sent with its last view now.
    async fn take_owed(&mut self, now: Instant) {
        let service = self.shared.front.service().clone();
        for view in service::take_owed(&service, Platform::Telegram, self.lane.news_mut()).await {
            self.on_output(Output::RenderTable(Box::new(view)), now)
                .await;
        }
    }

    /// Takes one output of the table service in.
    pub async fn on_output(&mut self, output: Output, now: Instant) {
        // The Mini App's pages of this table read it again.
        self.shared.front.live().changed(output.table());
        match output {
            Output::Remind(spec) => {
                // Not a new group message: the group may get about 20
                // outputs a minute, shared by every table message edit. The
                // table message states the turn's allowance, which has not
                // changed, so it needs no edit; the awaited person is
                // reminded in their own chat.
                let face = Face(&self.shared);
                for (person, screen) in self.shared.front.reminders(&spec) {
                    if let Some(chat) = ids::private_chat_of(&person.id) {
                        let m = face.message(&screen);
                        self.lane.send(chat.0, m, Priority::Turn, &face);
                    }
                }
            }
            output => self.lane.handle_output(output, now, &Face(&self.shared)),
        }
        self.run(now).await;
    }

    /// Takes in work from the handlers.
    pub async fn on_local(&mut self, local: Local, now: Instant) {
        let face = Face(&self.shared);
        match local {
            Local::Output(o) => self.on_output(o, now).await,
            Local::Say { chat, screen } => {
                // The person who just asked waits for it (a `/stop`
                // prompt, a command's answer): it goes before the chat's
                // table edits, which a later one replaces anyway.
                let m = face.message(&screen);
                self.lane.send(chat.0, m, Priority::Turn, &face);
            }
            Local::Tell {
                chat,
                screen,
                group,
                in_group,
            } => {
                let (m, fallback) = (face.message(&screen), face.message(&in_group));
                self.lane.tell(chat.0, m, group.0, fallback);
            }
            Local::CloseMenu {
                chat,
                message,
                screen,
            } => {
                let m = screen.map(|s| face.message(&Screen::text(s.text)));
                if let Some(id) = lane_id(message) {
                    self.lane.close_menu(chat.0, id, m);
                }
            }
            Local::Seated {
                table,
                user,
                screen,
            } => {
                if let Some(chat) = ids::private_chat_of(&user) {
                    let m = face.message(&screen);
                    self.lane.seated(chat.0, table, m);
                }
            }
            Local::BringTable(view) => self.lane.bring_table(*view, now, &face),
            Local::Unreachable(user) => self.lane.handle_unreachable(&user, None, now, &face),
            Local::Acted { user, pressed } => {
                self.lane
                    .handle_activity(&user, pressed.is_none(), now, &face);
            }
            Local::Live(event) => match event {
                LiveEvent::Opened(user, table) => {
                    self.lane.handle_live(&user, table, true, now, &face);
                }
                LiveEvent::Closed(user, table) => {
                    self.lane.handle_live(&user, table, false, now, &face);
                }
                LiveEvent::Pressed(user) => self.lane.handle_activity(&user, false, now, &face),
            },
            Local::Returned(user) => self.lane.handle_returned(&user, now, &face),
            Local::ChatGone(chat) => self.lane.forget_chat(chat.0),
        }
        self.run(now).await;
    }

    /// Carries out the lane's effects, in order (and those they lead to).
    async fn run(&mut self, now: Instant) {
        let service = self.shared.front.service().clone();
        while let Some(effect) = self.lane.poll_effect() {
            match effect {
                Effect::ForgetOwed(table, a) => {
                    service::forget_owed(&service, Platform::Telegram, table, &a).await;
                }
                Effect::SaveRef {
                    chat,
                    table,
                    message,
                    hash,
                } => {
                    let id = message.and_then(|m| i64::try_from(m).ok());
                    let place = (table, chat.to_string());
                    let saved =
                        service::save_message_ref(&service, Telegram, (table, &place.1), id, hash)
                            .await;
                    if message.is_some() {
                        self.lane.handle_ref_saved(chat, table, hash, saved);
                    }
                }
                Effect::Lost { user, tables } => {
                    let shared = self.shared.clone();
                    tokio::spawn(async move { shared.front.hand_over(&user, &tables).await });
                }
                Effect::ChatGone(chat) => {
                    let shared = self.shared.clone();
                    tokio::spawn(async move { shared.chat_gone(ChatId(chat)).await });
                }
                Effect::SaveWrites { chat, times } => {
                    let unix_now = service.now().millis();
                    let times = times.into_iter().map(|t| unix_ms(t, now, unix_now));
                    let chat = chat.to_string();
                    waited(save_writes(
                        service.clone(),
                        Telegram,
                        chat,
                        times.collect(),
                    ))
                    .await;
                }
                Effect::ChatMoved { from, to } => {
                    let shared = self.shared.clone();
                    tokio::spawn(async move {
                        let (from, to) = (ids::chat_key(ChatId(from)), ids::chat_key(ChatId(to)));
                        shared.front.chat_moved(&from, &to).await;
                    });
                }
            }
        }
    }

    /// Starts every call the lane lets go at `now`, each in a task of its
    /// own with the store writes around it.
    fn transmit(&mut self, now: Instant) {
        while let Some(call) = self.lane.poll_call(now, &Face(&self.shared)) {
            let chat = call.chat;
            let window_writes = call.window_writes.map(|times| {
                // The service's wall clock: write times are compared
                // across processes, so not as `Instant`s.
                let unix_now = self.shared.front.service().now().millis();
                times
                    .into_iter()
                    .map(|t| unix_ms(t, now, unix_now))
                    .collect::<Vec<_>>()
            });
            let shared = self.shared.clone();
            let done = self.done_tx.clone();
            tokio::spawn(async move {
                let method = method_of(&call.action);
                let service = shared.front.service().clone();
                if let Some(times) = window_writes {
                    let write = save_writes(service.clone(), Telegram, chat.to_string(), times);
                    waited(write).await;
                }
                let mut landed = Landed::default();
                if let Some(t) = call.unknown_first {
                    let place = (t, chat.to_string());
                    landed
                        .unknown(waited(mark_shown(service.clone(), Telegram, place, None)).await);
                }
                let result = deliver(&shared, ChatId(chat), call.action).await;
                // "Not modified": it shows exactly that already.
                landed.shown = matches!(result, Ok(_) | Err(Failure::NotModified));
                if let (true, Some((t, h))) = (landed.shown, call.then) {
                    let place = (t, chat.to_string());
                    landed.record(waited(mark_shown(service, Telegram, place, Some(h))).await);
                }
                let _ = done.send(Done {
                    call: call.id,
                    landed,
                    method,
                    result,
                });
            });
        }
    }

    async fn on_done(&mut self, done: Done, now: Instant) {
        self.lane.handle_done(done, now, &Face(&self.shared));
        self.run(now).await;
    }

    /// Records what each message shows, for the next start.
    async fn save_shown(&self) {
        let rows = self.lane.shown_rows().into_iter();
        let rows = rows.map(|(t, chat, hash)| (t, chat.to_string(), hash));
        service::save_shown(self.shared.front.service(), Telegram, rows.collect()).await;
    }

    fn next_wake(&self, now: Instant) -> Option<Instant> {
        self.lane.poll_timeout().map(|t| t.unwrap_or(now))
    }

    /// Whether nothing waits to go out.
    fn idle(&self) -> bool {
        self.lane.idle() && self.done_rx.is_empty()
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
                Ok(m) => Ok(lane_id(m.id)),
                Err(e) => Err(classify(&e)),
            }
        }
        Action::Nothing => Ok(None),
    }
}

impl crate::outlet::Outbox for Outbox {
    type Local = Local;
    type Done = Done;

    async fn on_output(&mut self, output: Output, now: Instant) {
        Outbox::on_output(self, output, now).await
    }

    async fn on_local(&mut self, local: Local, now: Instant) {
        Outbox::on_local(self, local, now).await
    }

    async fn on_done(&mut self, done: Done, now: Instant) {
        Outbox::on_done(self, done, now).await
    }

    fn transmit(&mut self, now: Instant) {
        Outbox::transmit(self, now)
    }

    fn next_wake(&self, now: Instant) -> Option<Instant> {
        Outbox::next_wake(self, now)
    }

    fn idle(&self) -> bool {
        Outbox::idle(self)
    }

    fn finished(&mut self) -> &mut mpsc::UnboundedReceiver<Done> {
        &mut self.done_rx
    }

    async fn save_shown(&self) {
        Outbox::save_shown(self).await
    }
}
