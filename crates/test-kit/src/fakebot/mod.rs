//! An in-process fake of the Telegram Bot API, for tests and load tests.
//!
//! [`FakeBot::start`] binds an HTTP server to `127.0.0.1:0`; the real
//! teloxide client talks to it through [`FakeBot::bot`] (or
//! `Bot::new(token).set_api_url(fake.api_url())`, which is what
//! `TELOXIDE_API_URL` does for the binary). The fake keeps users, chats and
//! messages, serves `getUpdates` from a queue with long polling, and is
//! strict the way Telegram is: 64-byte callback data, 4096-character texts,
//! "message is not modified", 403 for users who never started the bot or
//! blocked it, 409 for a second poller, and whatever faults a test injects.
//!
//! Once the bot set a webhook, the fake POSTs each queued update to it
//! (or to the URLs a test gave, [`FakeBot::deliver_to`]) one at a time, in
//! order, retrying until one answers 200 (`webhook`); `getUpdates` is
//! refused meanwhile, as Telegram does.
//!
//! The test side simulates people ([`FakeBot::user_says`],
//! [`FakeBot::press`], [`FakeBot::start_bot`], [`FakeBot::block_bot`],
//! [`FakeBot::migrate_to_supergroup`]) and inspects what the bot did
//! ([`FakeBot::messages`], [`FakeBot::latest_keyboard`],
//! [`FakeBot::callback_answers`], [`FakeBot::outputs`], [`FakeBot::calls`]).
//!
//! Deliberate simplifications: only HTML parse mode (or none); only
//! messages with text (no media, no multipart uploads); after a migration
//! the supergroup starts with an empty history, so the bot must re-post
//! rather than edit old messages; descriptions of a few limit errors whose
//! real wording is unknown are the fake's own.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use kozyr_test_kit::fakebot::{FakeBot, UserSpec};
//! use teloxide::prelude::*;
//!
//! let fake = FakeBot::start().await?;
//! let alice = fake.add_user(UserSpec::new("Alice").language("ru"));
//! let group = fake.add_group("Friday night", &[alice]);
//! fake.user_says(group, alice, "/new").unwrap();
//! let bot = fake.bot();
//! let updates = bot.get_updates().await.unwrap();
//! assert_eq!(updates.len(), 1);
//! # Ok(()) }
//! ```

mod html;
mod http;
mod types;
mod webhook;
mod world;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use teloxide::Bot;
use teloxide::types::{ChatId, MessageId, UserId};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use html::{Entity, Parsed as ParsedHtml, parse as parse_html, utf16_len};
pub use types::*;
pub use world::{MAX_BUTTONS, MAX_BUTTONS_PER_ROW, MAX_CALLBACK_DATA, MAX_TEXT_LEN};

use http::Shared;
use world::World;

/// In any text the fake sends, this character goes out as the JSON escape
/// of a lone UTF-16 surrogate (`\ud83d`, half an emoji), which Telegram
/// can send for a name cut short and which JSON parsers reject.
pub const LONE_SURROGATE: char = '\u{E0FF}';

/// A running fake Bot API server. Dropping it stops the server.
pub struct FakeBot {
    shared: Arc<Shared>,
    addr: SocketAddr,
    server: JoinHandle<()>,
    /// Delivers queued updates by webhook once one is set (`webhook`).
    delivery: JoinHandle<()>,
}

impl Drop for FakeBot {
    fn drop(&mut self) {
        self.server.abort();
        self.delivery.abort();
    }
}

impl FakeBot {
    /// Starts a fake with [`FakeBotConfig::default`].
    pub async fn start() -> std::io::Result<FakeBot> {
        FakeBot::start_with(FakeBotConfig::default()).await
    }

    pub async fn start_with(config: FakeBotConfig) -> std::io::Result<FakeBot> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new(World::new(config)));
        let server = tokio::spawn(http::serve(listener, shared.clone()));
        let delivery = tokio::spawn(webhook::deliver(shared.clone()));
        Ok(FakeBot {
            shared,
            addr,
            server,
            delivery,
        })
    }

    // ------------------------------------------------------------ setup

    /// The base URL to give teloxide (`set_api_url`) or `TELOXIDE_API_URL`.
    pub fn api_url(&self) -> url::Url {
        let text = format!("http://{}/", self.addr);
        // A socket address always forms a valid URL.
        url::Url::parse(&text).unwrap_or_else(|_| unreachable!("{text} is a URL"))
    }

    pub fn token(&self) -> String {
        self.shared.lock().config.token.clone()
    }

    pub fn bot_username(&self) -> String {
        self.shared.lock().config.bot_username.clone()
    }

    pub fn bot_id(&self) -> UserId {
        UserId(self.shared.lock().config.bot_id)
    }

    /// A real teloxide client pointed at this fake.
    pub fn bot(&self) -> Bot {
        Bot::new(self.token()).set_api_url(self.api_url())
    }

    fn mutate<T>(&self, f: impl FnOnce(&mut World) -> T) -> T {
        let out = f(&mut self.shared.lock());
        self.shared.changed();
        out
    }

    fn read<T>(&self, f: impl FnOnce(&World) -> T) -> T {
        f(&self.shared.lock())
    }

    pub fn add_user(&self, spec: UserSpec) -> UserId {
        self.mutate(|w| w.add_user(spec))
    }

    /// A basic group with the bot and `members`; the first member created it.
    ///
    /// # Panics
    /// If a member was not made with [`FakeBot::add_user`] (a test bug).
    pub fn add_group(&self, title: &str, members: &[UserId]) -> ChatId {
        self.mutate(|w| w.add_group(title, members, false))
            .unwrap_or_else(|e| panic!("add_group: {e}"))
    }

    /// Like [`FakeBot::add_group`], for a supergroup.
    pub fn add_supergroup(&self, title: &str, members: &[UserId]) -> ChatId {
        self.mutate(|w| w.add_group(title, members, true))
            .unwrap_or_else(|e| panic!("add_supergroup: {e}"))
    }

    /// Makes `user` an admin, a member, or removes them, in a group.
    pub fn set_member(
        &self,
        chat: ChatId,
        user: UserId,
        status: MemberStatus,
    ) -> Result<(), SimError> {
        self.mutate(|w| w.set_member(chat, user, status))
    }

    /// `by` changes the bot's membership (kick it, add it back, make it admin);
    /// the bot gets a `my_chat_member` update.
    pub fn set_bot_status(
        &self,
        chat: ChatId,
        by: UserId,
        status: MemberStatus,
    ) -> Result<(), SimError> {
        self.mutate(|w| w.set_bot_status(chat, by, status))
    }

    /// The private chat of `user` with the bot.
    pub fn private_chat(user: UserId) -> ChatId {
        ChatId(user.0 as i64)
    }

    // ---------------------------------------------------- people acting

    /// `user` writes `text` in `chat` (a group, or [`FakeBot::private_chat`]).
    /// In groups with privacy mode the bot only gets commands, replies to it
    /// and mentions; the message is stored either way.
    pub fn user_says(&self, chat: ChatId, user: UserId, text: &str) -> Result<MessageId, SimError> {
        self.mutate(|w| w.user_says(chat, user, text, None))
    }

    /// `user` replies to `to` with `text` (for `/kick` and the like).
    pub fn user_replies(
        &self,
        chat: ChatId,
        user: UserId,
        to: MessageId,
        text: &str,
    ) -> Result<MessageId, SimError> {
        self.mutate(|w| w.user_says(chat, user, text, Some(to)))
    }

    /// `user` presses Start in their private chat, through a deep link when
    /// `payload` is given (`t.me/<bot>?start=<payload>` sends `/start <payload>`).
    pub fn start_bot(&self, user: UserId, payload: Option<&str>) -> Result<MessageId, SimError> {
        let text = match payload {
            Some(p) => format!("/start {p}"),
            None => "/start".to_owned(),
        };
        self.mutate(|w| w.user_says(FakeBot::private_chat(user), user, &text, None))
    }

    /// `user` presses the inline button with callback `data` on a message;
    /// returns the callback query id. The button must be on the message.
    pub fn press(
        &self,
        user: UserId,
        chat: ChatId,
        message: MessageId,
        data: &str,
    ) -> Result<String, SimError> {
        self.mutate(|w| w.press(user, chat, message, data, true))
    }

    /// Like [`FakeBot::press`] with any data, as a modified client could send.
    pub fn press_raw(
        &self,
        user: UserId,
        chat: ChatId,
        message: MessageId,
        data: &str,
    ) -> Result<String, SimError> {
        self.mutate(|w| w.press(user, chat, message, data, false))
    }

    /// Telegram delivers the press `query` again, in a new update, as after
    /// a restart that had not confirmed it; `false` for an unknown query.
    pub fn deliver_again(&self, query: &str) -> bool {
        self.mutate(|w| w.deliver_again(query))
    }

    /// Queues an update of `kind` with `payload` exactly as given, however
    /// malformed; returns its update id.
    pub fn push_raw_update(&self, kind: &'static str, payload: serde_json::Value) -> i64 {
        self.mutate(|w| w.push_raw_update(kind, payload))
    }

    /// `user` blocks the bot: sends to them get 403 until they write again.
    pub fn block_bot(&self, user: UserId) -> Result<(), SimError> {
        self.mutate(|w| w.block_bot(user))
    }

    /// `by` upgrades a basic group to a supergroup; returns the new chat id.
    pub fn migrate_to_supergroup(&self, chat: ChatId, by: UserId) -> Result<ChatId, SimError> {
        self.mutate(|w| w.migrate(chat, by, true))
    }

    /// Like [`FakeBot::migrate_to_supergroup`], but the bot gets no service
    /// message (lost, or not sent yet): it learns of the new id only from
    /// the 400 with `migrate_to_chat_id` its next write to the old id gets.
    pub fn migrate_without_notice(&self, chat: ChatId, by: UserId) -> Result<ChatId, SimError> {
        self.mutate(|w| w.migrate(chat, by, false))
    }

    /// Someone deletes a message (an admin in a group, or the user in a DM).
    pub fn delete_message(&self, chat: ChatId, message: MessageId) -> Result<(), SimError> {
        self.mutate(|w| w.delete_by_user(chat, message))
    }

    // ------------------------------------------------------------ faults

    pub fn inject(&self, fault: Fault) {
        self.mutate(|w| w.inject(fault));
    }

    pub fn clear_faults(&self) {
        self.mutate(World::clear_faults);
    }

    // ---------------------------------------------------------- looking

    /// The chat's messages that are not deleted, oldest first.
    pub fn messages(&self, chat: ChatId) -> Vec<FakeMessage> {
        self.read(|w| w.messages(chat))
    }

    /// One message, deleted or not.
    pub fn message(&self, chat: ChatId, id: MessageId) -> Option<FakeMessage> {
        self.read(|w| w.message(chat, id))
    }

    /// The chat's newest message from the bot.
    pub fn last_bot_message(&self, chat: ChatId) -> Option<FakeMessage> {
        self.messages(chat)
            .into_iter()
            .rev()
            .find(|m| m.author == Author::Bot)
    }

    /// The keyboard of the newest message that has one.
    pub fn latest_keyboard(&self, chat: ChatId) -> Option<(MessageId, Keyboard)> {
        self.messages(chat)
            .into_iter()
            .rev()
            .find_map(|m| m.keyboard.map(|k| (m.id, k)))
    }

    /// Every callback query so far with its answer, oldest first.
    pub fn callback_answers(&self) -> Vec<(String, Option<CallbackAnswer>)> {
        self.read(World::answers)
    }

    pub fn callback_answer(&self, query_id: &str) -> Option<CallbackAnswer> {
        self.read(|w| w.answer(query_id))
    }

    /// Callback queries the bot has not answered.
    pub fn unanswered_callbacks(&self) -> Vec<String> {
        self.callback_answers()
            .into_iter()
            .filter(|(_, a)| a.is_none())
            .map(|(id, _)| id)
            .collect()
    }

    /// Sent and edited messages in `chat`, in order, with when they happened.
    pub fn outputs(&self, chat: ChatId) -> Vec<Output> {
        self.read(|w| w.outputs(chat))
    }

    /// The most outputs `chat` got within any `window` (Telegram allows a
    /// group about 20 a minute).
    pub fn max_outputs_in_window(&self, chat: ChatId, window: Duration) -> usize {
        let at: Vec<Instant> = self.outputs(chat).iter().map(|o| o.at).collect();
        let mut best = 0;
        let mut start = 0;
        for end in 0..at.len() {
            while at[end].duration_since(at[start]) >= window {
                start += 1;
            }
            best = best.max(end + 1 - start);
        }
        best
    }

    /// Requests received, by method (faulted and failed ones included).
    pub fn calls(&self) -> BTreeMap<String, u64> {
        self.read(World::calls)
    }

    pub fn calls_of(&self, method: &str) -> u64 {
        self.calls()
            .iter()
            .filter(|(m, _)| m.eq_ignore_ascii_case(method))
            .map(|(_, n)| n)
            .sum()
    }

    /// Sends and edits refused with 429, by the limit they hit.
    pub fn limit_hits(&self) -> LimitHits {
        self.read(World::limit_hits)
    }

    /// Requests that got an error, by method.
    pub fn failures(&self) -> BTreeMap<String, u64> {
        self.read(World::failures)
    }

    /// Requests to `chat` that got an error, by method.
    pub fn failures_in(&self, chat: ChatId) -> BTreeMap<String, u64> {
        self.read(|w| w.failures_in(chat))
    }

    /// Command lists registered with `setMyCommands`.
    pub fn commands(&self) -> Vec<CommandList> {
        self.read(World::commands)
    }

    /// Every chat the fake knows (private chats included).
    pub fn chats(&self) -> Vec<ChatId> {
        self.read(World::chats)
    }

    /// Whether `chat` is a group or supergroup (where the per-group limit applies).
    pub fn is_group(&self, chat: ChatId) -> bool {
        self.read(|w| w.is_group(chat))
    }

    /// Updates queued and not yet confirmed by an offset.
    pub fn pending_updates(&self) -> usize {
        self.read(World::pending_updates)
    }

    /// Updates the bot received through getUpdates and has not confirmed
    /// (by a later call's offset): Telegram would deliver them again.
    pub fn handed_out_unconfirmed(&self) -> usize {
        self.read(World::handed_out_unconfirmed)
    }

    pub fn member_status(&self, chat: ChatId, user: UserId) -> Option<MemberStatus> {
        self.read(|w| w.member_status(chat, user))
    }

    /// The webhook's URL and secret, as the bot last set them.
    pub fn webhook(&self) -> Option<(String, Option<String>)> {
        self.read(|w| w.webhook())
    }

    /// The kinds of update `setWebhook` last asked for.
    pub fn webhook_allowed_updates(&self) -> Option<Vec<String>> {
        self.read(|w| w.webhook_allowed_updates())
    }

    /// Once the bot set a webhook, delivers each update to one of `urls`
    /// picked at random (retrying another when one fails) instead of the
    /// URL the bot set: the replicas behind a load balancer.
    pub fn deliver_to(&self, urls: Vec<url::Url>) {
        self.mutate(|w| w.deliver_to(urls.into_iter().map(String::from).collect()));
    }

    /// What webhook delivery did so far.
    pub fn webhook_deliveries(&self) -> WebhookDeliveries {
        self.read(World::webhook_deliveries)
    }

    /// Whether the bot may write to `user` (started and not blocked).
    pub fn has_started(&self, user: UserId) -> bool {
        self.read(|w| w.has_started(user))
    }

    /// Waits until `f` returns `Some`, re-checking after every change to
    /// the fake; gives up after `timeout`.
    pub async fn wait_for<T>(
        &self,
        timeout: Duration,
        mut f: impl FnMut(&FakeBot) -> Option<T>,
    ) -> Result<T, SimError> {
        let mut rx = self.shared.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            rx.borrow_and_update();
            if let Some(v) = f(self) {
                return Ok(v);
            }
            tokio::select! {
                _ = rx.changed() => {}
                _ = tokio::time::sleep_until(deadline) => {
                    return f(self).ok_or(SimError::Timeout(timeout));
                }
            }
        }
    }
}
