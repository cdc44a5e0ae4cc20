//! The fake's state and the Bot API methods over it. Synchronous and
//! HTTP-free: `http.rs` parses requests, applies faults and long-polls;
//! everything Telegram would decide is decided here.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};
use teloxide::types::{ChatId, MessageId, UserId};

use super::html::{self, utf16_len};
use super::types::*;

/// Telegram's limits.
pub const MAX_TEXT_LEN: usize = 4096;
pub const MAX_CALLBACK_DATA: usize = 64;
pub const MAX_ANSWER_TEXT: usize = 200;
pub const MAX_BUTTONS: usize = 100;
pub const MAX_BUTTONS_PER_ROW: usize = 8;

/// A Bot API error: the HTTP status, the description, optional parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiFailure {
    pub code: u16,
    pub description: String,
    pub parameters: Option<Value>,
}

impl ApiFailure {
    pub fn new(code: u16, description: impl Into<String>) -> Self {
        ApiFailure {
            code,
            description: description.into(),
            parameters: None,
        }
    }

    fn bad(description: &str) -> Self {
        ApiFailure::new(400, format!("Bad Request: {description}"))
    }

    fn forbidden(description: &str) -> Self {
        ApiFailure::new(403, format!("Forbidden: {description}"))
    }

    pub fn retry_after(secs: u64) -> Self {
        ApiFailure {
            code: 429,
            description: format!("Too Many Requests: retry after {secs}"),
            parameters: Some(json!({ "retry_after": secs })),
        }
    }

    pub fn body(&self) -> Value {
        let mut v = json!({
            "ok": false,
            "error_code": self.code,
            "description": self.description,
        });
        if let Some(p) = &self.parameters {
            v["parameters"] = p.clone();
        }
        v
    }
}

type ApiResult = Result<Value, ApiFailure>;

#[derive(Clone, Debug)]
struct UserRec {
    spec: UserSpec,
    started: bool,
    blocked: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChatKind {
    Private(UserId),
    Group,
    Supergroup,
}

#[derive(Clone, Debug)]
struct ChatRec {
    id: ChatId,
    kind: ChatKind,
    title: String,
    members: BTreeMap<UserId, MemberStatus>,
    bot_status: MemberStatus,
    messages: BTreeMap<i32, MessageRec>,
    next_message_id: i32,
    migrated_to: Option<ChatId>,
    outputs: Vec<Output>,
    /// The private chat's rate ([`FakeBotConfig::private_limit`]).
    bucket: Bucket,
}

/// A token bucket's state: `tokens` left at `at` (full before first use).
#[derive(Clone, Copy, Debug, Default)]
struct Bucket {
    tokens: f64,
    at: Option<Instant>,
}

impl Bucket {
    fn level(&self, limit: RateLimit, now: Instant) -> f64 {
        match self.at {
            None => limit.burst,
            Some(at) => (self.tokens
                + now.saturating_duration_since(at).as_secs_f64() * limit.per_second)
                .min(limit.burst),
        }
    }

    /// `Err(wait)` while the bucket is empty.
    fn check(&self, limit: RateLimit, now: Instant) -> Result<(), std::time::Duration> {
        let level = self.level(limit, now);
        if level >= 1.0 {
            Ok(())
        } else {
            Err(std::time::Duration::from_secs_f64(
                (1.0 - level) / limit.per_second.max(1e-9),
            ))
        }
    }

    fn take(&mut self, limit: RateLimit, now: Instant) {
        self.tokens = self.level(limit, now) - 1.0;
        self.at = Some(now);
    }
}

/// Telegram's `retry_after`: whole seconds, at least one.
fn retry_after(wait: std::time::Duration) -> ApiFailure {
    ApiFailure::retry_after((wait.as_secs_f64().ceil() as u64).max(1))
}

#[derive(Clone, Debug)]
struct MessageRec {
    msg: FakeMessage,
    entities: Vec<html::Entity>,
    /// The reply markup as sent, for the Message JSON.
    markup: Option<Value>,
    date: i64,
    edit_date: Option<i64>,
    /// Extra fields of service messages (`migrate_to_chat_id`, ...).
    extra: Map<String, Value>,
}

#[derive(Clone, Debug)]
struct CallbackRec {
    user: UserId,
    data: String,
    /// The `callback_query` as delivered, for a delivery again.
    payload: Value,
    pressed_at: Instant,
    answer: Option<CallbackAnswer>,
}

/// The next update to deliver by webhook (`super::webhook`): its id, body, the URLs to pick from and
/// the secret to send.
pub(crate) struct Due {
    pub id: i64,
    pub body: Value,
    pub urls: Vec<String>,
    pub secret: Option<String>,
}

/// Whether Telegram may be pointed at `url` in a test: a loopback host.
pub(crate) fn is_local(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| {
        matches!(
            u.host_str(),
            Some("127.0.0.1" | "localhost" | "[::1]" | "::1")
        )
    })
}

/// Everything the fake knows.
pub(crate) struct World {
    pub config: FakeBotConfig,
    users: BTreeMap<UserId, UserRec>,
    chats: BTreeMap<ChatId, ChatRec>,
    updates: VecDeque<(i64, &'static str, Value)>,
    next_update_id: i64,
    allowed_updates: Option<Vec<String>>,
    callbacks: BTreeMap<String, CallbackRec>,
    callback_order: Vec<String>,
    next_callback: u64,
    next_user: u64,
    next_group: i64,
    calls: BTreeMap<String, u64>,
    failures: BTreeMap<String, u64>,
    /// (method, chat) → requests to that chat that got an error.
    failures_in: BTreeMap<(String, i64), u64>,
    commands: Vec<CommandList>,
    faults: Vec<Fault>,
    webhook: Option<String>,
    webhook_secret: Option<String>,
    /// The kinds of update `setWebhook` last asked for, if it named any.
    webhook_allowed: Option<Vec<String>>,
    /// Where webhook updates go instead of the URL `setWebhook` set (the
    /// replicas behind a test's load balancer).
    deliver_to: Option<Vec<String>>,
    deliveries: WebhookDeliveries,
    /// Bumped by every getUpdates; an older poll that sees a newer one is terminated (409).
    pub poll_generation: u64,
    /// The bot-wide rate ([`FakeBotConfig::bot_limit`]).
    bot_bucket: Bucket,
    limit_hits: LimitHits,
    /// The newest update id getUpdates has handed out.
    handed_out: i64,
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The canonical spelling of every method the fake answers.
const METHODS: &[&str] = &[
    "getMe",
    "getUpdates",
    "getWebhookInfo",
    "deleteWebhook",
    "setWebhook",
    "sendMessage",
    "editMessageText",
    "editMessageReplyMarkup",
    "answerCallbackQuery",
    "deleteMessage",
    "setMyCommands",
    "getMyCommands",
    "deleteMyCommands",
    "getChat",
    "getChatMember",
    "getChatAdministrators",
    "getChatMemberCount",
    "sendChatAction",
    "leaveChat",
    "close",
    "logOut",
];

/// The method's canonical name, if the fake knows it (Telegram ignores case).
pub fn canonical_method(name: &str) -> Option<&'static str> {
    METHODS
        .iter()
        .copied()
        .find(|m| m.eq_ignore_ascii_case(name))
}

impl World {
    pub fn new(config: FakeBotConfig) -> Self {
        World {
            config,
            users: BTreeMap::new(),
            chats: BTreeMap::new(),
            updates: VecDeque::new(),
            next_update_id: 1,
            allowed_updates: None,
            callbacks: BTreeMap::new(),
            callback_order: Vec::new(),
            next_callback: 1,
            next_user: 1001,
            next_group: 1,
            calls: BTreeMap::new(),
            failures: BTreeMap::new(),
            failures_in: BTreeMap::new(),
            commands: Vec::new(),
            faults: Vec::new(),
            webhook: None,
            webhook_secret: None,
            webhook_allowed: None,
            deliver_to: None,
            deliveries: WebhookDeliveries::default(),
            poll_generation: 0,
            bot_bucket: Bucket::default(),
            limit_hits: LimitHits::default(),
            handed_out: 0,
        }
    }

    // ---------------------------------------------------------------- JSON

    fn bot_json(&self) -> Value {
        json!({
            "id": self.config.bot_id,
            "is_bot": true,
            "first_name": self.config.bot_first_name,
            "username": self.config.bot_username,
        })
    }

    fn user_json(&self, id: UserId) -> Value {
        if id.0 == self.config.bot_id {
            return self.bot_json();
        }
        let Some(u) = self.users.get(&id) else {
            return json!({ "id": id.0, "is_bot": false, "first_name": "Unknown" });
        };
        let mut v = json!({ "id": id.0, "is_bot": false, "first_name": u.spec.first_name });
        if let Some(x) = &u.spec.last_name {
            v["last_name"] = json!(x);
        }
        if let Some(x) = &u.spec.username {
            v["username"] = json!(x);
        }
        if let Some(x) = &u.spec.language_code {
            v["language_code"] = json!(x);
        }
        v
    }

    fn chat_json(&self, chat: &ChatRec) -> Value {
        match chat.kind {
            ChatKind::Private(user) => {
                let u = self.user_json(user);
                let mut v =
                    json!({ "id": chat.id.0, "type": "private", "first_name": u["first_name"] });
                for k in ["last_name", "username"] {
                    if let Some(x) = u.get(k) {
                        v[k] = x.clone();
                    }
                }
                v
            }
            ChatKind::Group => json!({ "id": chat.id.0, "type": "group", "title": chat.title }),
            ChatKind::Supergroup => {
                json!({ "id": chat.id.0, "type": "supergroup", "title": chat.title })
            }
        }
    }

    fn message_json(&self, chat: &ChatRec, m: &MessageRec) -> Value {
        let from = match m.msg.author {
            Author::Bot => self.bot_json(),
            Author::User(u) => self.user_json(u),
        };
        let mut v = json!({
            "message_id": m.msg.id.0,
            "date": m.date,
            "chat": self.chat_json(chat),
            "from": from,
        });
        if !m.msg.text.is_empty() {
            v["text"] = json!(m.msg.text);
        }
        if !m.entities.is_empty() {
            v["entities"] = json!(m.entities);
        }
        if let Some(markup) = &m.markup {
            v["reply_markup"] = markup.clone();
        }
        if let Some(d) = m.edit_date {
            v["edit_date"] = json!(d);
        }
        if let Some(r) = m.msg.reply_to.and_then(|r| chat.messages.get(&r.0)) {
            // Telegram nests one level of reply, without its own reply.
            let mut inner = self.message_json(
                chat,
                &MessageRec {
                    msg: FakeMessage {
                        reply_to: None,
                        ..r.msg.clone()
                    },
                    ..r.clone()
                },
            );
            if let Some(o) = inner.as_object_mut() {
                o.remove("reply_to_message");
            }
            v["reply_to_message"] = inner;
        }
        if let Some(o) = v.as_object_mut() {
            o.extend(m.extra.clone());
        }
        v
    }

    fn member_json(&self, user: UserId, status: MemberStatus) -> Value {
        let u = self.user_json(user);
        match status {
            MemberStatus::Creator => {
                json!({ "status": "creator", "user": u, "is_anonymous": false })
            }
            MemberStatus::Administrator => json!({
                "status": "administrator", "user": u, "can_be_edited": false,
                "is_anonymous": false, "can_manage_chat": true, "can_delete_messages": true,
                "can_manage_video_chats": true, "can_restrict_members": true,
                "can_promote_members": false, "can_change_info": true, "can_invite_users": true,
                "can_post_stories": false, "can_edit_stories": false, "can_delete_stories": false,
                "can_pin_messages": true,
            }),
            MemberStatus::Member => json!({ "status": "member", "user": u }),
            MemberStatus::Left => json!({ "status": "left", "user": u }),
            MemberStatus::Kicked => json!({ "status": "kicked", "user": u, "until_date": 0 }),
        }
    }

    fn push_update(&mut self, kind: &'static str, payload: Value) {
        // A kind the bot did not ask for is never kept (nor delivered).
        if (self.allowed_updates.as_ref()).is_some_and(|a| !a.iter().any(|k| k == kind)) {
            return;
        }
        let id = self.next_update_id;
        self.next_update_id += 1;
        self.updates
            .push_back((id, kind, json!({ "update_id": id, kind: payload })));
    }

    // ------------------------------------------------------- bookkeeping

    pub fn record_call(&mut self, method: &str) {
        *self.calls.entry(method.to_owned()).or_default() += 1;
    }

    pub fn record_failure(&mut self, method: &str, chat: Option<i64>) {
        *self.failures.entry(method.to_owned()).or_default() += 1;
        if let Some(chat) = chat {
            *self
                .failures_in
                .entry((method.to_owned(), chat))
                .or_default() += 1;
        }
    }

    /// The first fault matching this request, used up by one.
    pub fn take_fault(&mut self, method: &str, chat: Option<ChatId>) -> Option<FaultKind> {
        let i = self.faults.iter().position(|f| {
            f.method
                .as_deref()
                .is_none_or(|m| m.eq_ignore_ascii_case(method))
                && f.chat.is_none_or(|c| Some(c) == chat)
                && f.times != Some(0)
        })?;
        let f = &mut self.faults[i];
        if let Some(n) = &mut f.times {
            *n -= 1;
        }
        let kind = f.kind;
        self.faults.retain(|f| f.times != Some(0));
        Some(kind)
    }

    pub fn inject(&mut self, fault: Fault) {
        self.faults.push(fault);
    }

    pub fn clear_faults(&mut self) {
        self.faults.clear();
    }

    pub fn calls(&self) -> BTreeMap<String, u64> {
        self.calls.clone()
    }

    pub fn failures(&self) -> BTreeMap<String, u64> {
        self.failures.clone()
    }

    pub fn failures_in(&self, chat: ChatId) -> BTreeMap<String, u64> {
        self.failures_in
            .iter()
            .filter(|((_, c), _)| *c == chat.0)
            .map(|((m, _), n)| (m.clone(), *n))
            .collect()
    }

    // ------------------------------------------------ test-side: people

    pub fn add_user(&mut self, spec: UserSpec) -> UserId {
        let id = UserId(self.next_user);
        self.next_user += 1;
        self.users.insert(
            id,
            UserRec {
                spec,
                started: false,
                blocked: false,
            },
        );
        // Every user has a private chat with the bot; whether the bot may
        // write there depends on them having started it.
        self.private_chat(id);
        id
    }

    fn user(&self, id: UserId) -> Result<&UserRec, SimError> {
        self.users.get(&id).ok_or(SimError::NoSuchUser(id))
    }

    pub fn add_group(
        &mut self,
        title: &str,
        members: &[UserId],
        supergroup: bool,
    ) -> Result<ChatId, SimError> {
        for &m in members {
            self.user(m)?;
        }
        let n = self.next_group;
        self.next_group += 1;
        let (id, kind) = if supergroup {
            (ChatId(-1_000_000_000_000 - n), ChatKind::Supergroup)
        } else {
            (ChatId(-4_000_000_000 - n), ChatKind::Group)
        };
        let members = members
            .iter()
            .enumerate()
            .map(|(i, &u)| {
                (
                    u,
                    if i == 0 {
                        MemberStatus::Creator
                    } else {
                        MemberStatus::Member
                    },
                )
            })
            .collect();
        self.chats
            .insert(id, ChatRec::new(id, kind, title, members));
        Ok(id)
    }

    pub fn set_member(
        &mut self,
        chat: ChatId,
        user: UserId,
        status: MemberStatus,
    ) -> Result<(), SimError> {
        self.user(user)?;
        let c = self
            .chats
            .get_mut(&chat)
            .ok_or(SimError::NoSuchChat(chat))?;
        if matches!(c.kind, ChatKind::Private(_)) {
            return Err(SimError::NotAGroup(chat));
        }
        c.members.insert(user, status);
        Ok(())
    }

    /// The bot's own membership in a group changes (added, made admin, kicked).
    pub fn set_bot_status(
        &mut self,
        chat: ChatId,
        by: UserId,
        status: MemberStatus,
    ) -> Result<(), SimError> {
        let c = self
            .chats
            .get_mut(&chat)
            .ok_or(SimError::NoSuchChat(chat))?;
        if matches!(c.kind, ChatKind::Private(_)) {
            return Err(SimError::NotAGroup(chat));
        }
        let old = std::mem::replace(&mut c.bot_status, status);
        self.push_my_chat_member(chat, by, old, status);
        Ok(())
    }

    fn push_my_chat_member(
        &mut self,
        chat: ChatId,
        by: UserId,
        old: MemberStatus,
        new: MemberStatus,
    ) {
        let bot = UserId(self.config.bot_id);
        let Some(c) = self.chats.get(&chat) else {
            return;
        };
        let payload = json!({
            "chat": self.chat_json(c),
            "from": self.user_json(by),
            "date": unix_now(),
            "old_chat_member": self.member_json(bot, old),
            "new_chat_member": self.member_json(bot, new),
        });
        self.push_update("my_chat_member", payload);
    }

    fn private_chat(&mut self, user: UserId) -> ChatId {
        let id = ChatId(user.0 as i64);
        self.chats.entry(id).or_insert_with(|| {
            let mut c = ChatRec::new(id, ChatKind::Private(user), "", BTreeMap::new());
            c.members.insert(user, MemberStatus::Member);
            c
        });
        id
    }

    /// A person writes `text` in `chat` (their private chat with the bot is
    /// `ChatId(user.0)`). Writing to the bot starts it and lifts a block.
    pub fn user_says(
        &mut self,
        chat: ChatId,
        user: UserId,
        text: &str,
        reply_to: Option<MessageId>,
    ) -> Result<MessageId, SimError> {
        self.user(user)?;
        if chat.0 == user.0 as i64 {
            self.private_chat(user);
            let was_blocked = {
                let u = self
                    .users
                    .get_mut(&user)
                    .ok_or(SimError::NoSuchUser(user))?;
                let b = u.blocked;
                u.started = true;
                u.blocked = false;
                b
            };
            if was_blocked {
                self.push_my_chat_member(chat, user, MemberStatus::Kicked, MemberStatus::Member);
            }
        }
        let privacy = self.config.privacy_mode;
        let mention = format!("@{}", self.config.bot_username);
        let c = self
            .chats
            .get_mut(&chat)
            .ok_or(SimError::NoSuchChat(chat))?;
        if !c.members.get(&user).is_some_and(|s| s.is_present()) {
            return Err(SimError::NotAMember { user, chat });
        }
        if let Some(r) = reply_to
            && c.live(r).is_none()
        {
            return Err(SimError::NoSuchMessage { chat, message: r });
        }
        let is_group = !matches!(c.kind, ChatKind::Private(_));
        let reply_to_bot = reply_to
            .and_then(|r| c.messages.get(&r.0))
            .is_some_and(|m| m.msg.author == Author::Bot);
        let bot_present = c.bot_status.is_present() || !is_group;
        let mut entities = Vec::new();
        if text.starts_with('/') {
            let len = text.find(char::is_whitespace).unwrap_or(text.len());
            entities.push(html::Entity {
                kind: "bot_command",
                offset: 0,
                length: utf16_len(&text[..len]),
                url: None,
                language: None,
                custom_emoji_id: None,
            });
        }
        let id = c.add_message(
            FakeMessage {
                chat,
                id: MessageId(0),
                author: Author::User(user),
                text: text.to_owned(),
                source: text.to_owned(),
                keyboard: None,
                reply_to,
                edits: 0,
                deleted: false,
            },
            entities,
            None,
        );
        // With privacy mode a bot gets commands meant for every bot or for
        // it by name (`/new`, `/new@kozyr_bot`), not `/new@other_bot`.
        let command_for_us = text.strip_prefix('/').is_some_and(|rest| {
            let command = rest.split(char::is_whitespace).next().unwrap_or_default();
            command
                .split_once('@')
                .is_none_or(|(_, bot)| mention[1..].eq_ignore_ascii_case(bot))
        });
        let sees =
            !is_group || !privacy || command_for_us || reply_to_bot || text.contains(&mention);
        if bot_present && sees {
            let payload = {
                let c = &self.chats[&chat];
                self.message_json(c, &c.messages[&id.0])
            };
            self.push_update("message", payload);
        }
        Ok(id)
    }

    /// A person presses an inline button. With `check_keyboard`, the data
    /// must be on the message's keyboard, as with a real client.
    pub fn press(
        &mut self,
        user: UserId,
        chat: ChatId,
        message: MessageId,
        data: &str,
        check_keyboard: bool,
    ) -> Result<String, SimError> {
        self.user(user)?;
        let c = self.chats.get(&chat).ok_or(SimError::NoSuchChat(chat))?;
        if !c.members.get(&user).is_some_and(|s| s.is_present()) {
            return Err(SimError::NotAMember { user, chat });
        }
        let m = c
            .messages
            .get(&message.0)
            .filter(|m| !m.msg.deleted)
            .ok_or(SimError::NoSuchMessage { chat, message })?;
        let on_keyboard = m
            .msg
            .keyboard
            .as_ref()
            .is_some_and(|k| k.with_data(data).is_some());
        if check_keyboard && !on_keyboard {
            return Err(SimError::NoSuchButton {
                message,
                data: data.to_owned(),
            });
        }
        let id = format!("{}", 4_000_000_000_000u64 + self.next_callback);
        self.next_callback += 1;
        let payload = json!({
            "id": id,
            "from": self.user_json(user),
            "message": self.message_json(c, m),
            "chat_instance": format!("{}", chat.0.unsigned_abs()),
            "data": data,
        });
        self.callbacks.insert(
            id.clone(),
            CallbackRec {
                user,
                data: data.to_owned(),
                payload: payload.clone(),
                pressed_at: Instant::now(),
                answer: None,
            },
        );
        self.callback_order.push(id.clone());
        self.push_update("callback_query", payload);
        Ok(id)
    }

    /// Telegram delivers the press `query` again, as it does after a
    /// restart when the first delivery's update was not confirmed.
    pub fn deliver_again(&mut self, query: &str) -> bool {
        let Some(payload) = self.callbacks.get(query).map(|c| c.payload.clone()) else {
            return false;
        };
        self.push_update("callback_query", payload);
        true
    }

    /// An update as a test writes it (one a client library may reject).
    pub fn push_raw_update(&mut self, kind: &'static str, payload: Value) -> i64 {
        let id = self.next_update_id;
        self.push_update(kind, payload);
        id
    }

    pub fn block_bot(&mut self, user: UserId) -> Result<(), SimError> {
        self.user(user)?;
        let chat = self.private_chat(user);
        let u = self
            .users
            .get_mut(&user)
            .ok_or(SimError::NoSuchUser(user))?;
        if !u.blocked {
            u.blocked = true;
            self.push_my_chat_member(chat, user, MemberStatus::Member, MemberStatus::Kicked);
        }
        Ok(())
    }

    /// The group becomes a supergroup with a new id, the way Telegram does
    /// it: a service message in each, members and the bot carried over, the
    /// old id answering "group chat was upgraded" from now on.
    pub fn migrate(&mut self, chat: ChatId, by: UserId, notify: bool) -> Result<ChatId, SimError> {
        let old = self.chats.get(&chat).ok_or(SimError::NoSuchChat(chat))?;
        if old.kind != ChatKind::Group || old.migrated_to.is_some() {
            return Err(SimError::NotAGroup(chat));
        }
        let n = self.next_group;
        self.next_group += 1;
        let new_id = ChatId(-1_000_000_000_000 - n);
        let mut new = ChatRec::new(
            new_id,
            ChatKind::Supergroup,
            &old.title,
            old.members.clone(),
        );
        new.bot_status = old.bot_status;
        let bot_present = old.bot_status.is_present();
        self.chats.insert(new_id, new);
        let service = |w: &mut World, in_chat: ChatId, key: &str, other: ChatId| {
            let c = w.chats.get_mut(&in_chat)?;
            let mut extra = Map::new();
            extra.insert(key.to_owned(), json!(other.0));
            let id = c.add_message(
                FakeMessage {
                    chat: in_chat,
                    id: MessageId(0),
                    author: Author::User(by),
                    text: String::new(),
                    source: String::new(),
                    keyboard: None,
                    reply_to: None,
                    edits: 0,
                    deleted: false,
                },
                Vec::new(),
                None,
            );
            if let Some(m) = c.messages.get_mut(&id.0) {
                m.extra = extra;
            }
            let c = &w.chats[&in_chat];
            Some(w.message_json(c, &c.messages[&id.0]))
        };
        let to = service(self, chat, "migrate_to_chat_id", new_id);
        let from = service(self, new_id, "migrate_from_chat_id", chat);
        if let Some(c) = self.chats.get_mut(&chat) {
            c.migrated_to = Some(new_id);
        }
        if bot_present && notify {
            for payload in [to, from].into_iter().flatten() {
                self.push_update("message", payload);
            }
        }
        Ok(new_id)
    }

    /// Someone (an admin, or the user in a private chat) deletes a message.
    pub fn delete_by_user(&mut self, chat: ChatId, message: MessageId) -> Result<(), SimError> {
        let c = self
            .chats
            .get_mut(&chat)
            .ok_or(SimError::NoSuchChat(chat))?;
        let m = c
            .messages
            .get_mut(&message.0)
            .filter(|m| !m.msg.deleted)
            .ok_or(SimError::NoSuchMessage { chat, message })?;
        m.msg.deleted = true;
        Ok(())
    }

    // ------------------------------------------------ test-side: looking

    pub fn messages(&self, chat: ChatId) -> Vec<FakeMessage> {
        self.chats.get(&chat).map_or_else(Vec::new, |c| {
            c.messages
                .values()
                .filter(|m| !m.msg.deleted)
                .map(|m| m.msg.clone())
                .collect()
        })
    }

    pub fn message(&self, chat: ChatId, id: MessageId) -> Option<FakeMessage> {
        self.chats
            .get(&chat)?
            .messages
            .get(&id.0)
            .map(|m| m.msg.clone())
    }

    pub fn outputs(&self, chat: ChatId) -> Vec<Output> {
        self.chats
            .get(&chat)
            .map_or_else(Vec::new, |c| c.outputs.clone())
    }

    pub fn answers(&self) -> Vec<(String, Option<CallbackAnswer>)> {
        self.callback_order
            .iter()
            .map(|id| {
                (
                    id.clone(),
                    self.callbacks.get(id).and_then(|c| c.answer.clone()),
                )
            })
            .collect()
    }

    pub fn answer(&self, query: &str) -> Option<CallbackAnswer> {
        self.callbacks.get(query)?.answer.clone()
    }

    pub fn commands(&self) -> Vec<CommandList> {
        self.commands.clone()
    }

    pub fn chats(&self) -> Vec<ChatId> {
        self.chats.keys().copied().collect()
    }

    pub fn is_group(&self, chat: ChatId) -> bool {
        self.chats
            .get(&chat)
            .is_some_and(|c| !matches!(c.kind, ChatKind::Private(_)))
    }

    pub fn pending_updates(&self) -> usize {
        self.updates.len()
    }

    pub fn member_status(&self, chat: ChatId, user: UserId) -> Option<MemberStatus> {
        self.chats.get(&chat)?.members.get(&user).copied()
    }

    pub fn has_started(&self, user: UserId) -> bool {
        self.users
            .get(&user)
            .is_some_and(|u| u.started && !u.blocked)
    }

    // ------------------------------------------------------ getUpdates

    /// Confirms updates below `offset` and returns what is left, as Telegram does.
    pub fn take_updates(
        &mut self,
        offset: i64,
        limit: usize,
        allowed: Option<Vec<String>>,
    ) -> Vec<Value> {
        if let Some(a) = allowed.filter(|a| !a.is_empty()) {
            self.allowed_updates = Some(a);
        }
        if offset > 0 {
            while self.updates.front().is_some_and(|(id, _, _)| *id < offset) {
                self.updates.pop_front();
            }
        } else if offset < 0 {
            let keep = offset.unsigned_abs() as usize;
            while self.updates.len() > keep {
                self.updates.pop_front();
            }
        }
        if let Some(allowed) = &self.allowed_updates {
            self.updates
                .retain(|(_, kind, _)| allowed.iter().any(|a| a == kind));
        }
        let out: Vec<(i64, Value)> = self
            .updates
            .iter()
            .take(limit.clamp(1, 100))
            .map(|(id, _, v)| (*id, v.clone()))
            .collect();
        if let Some((id, _)) = out.last() {
            self.handed_out = self.handed_out.max(*id);
        }
        out.into_iter().map(|(_, v)| v).collect()
    }

    /// Updates getUpdates handed out that no later offset confirmed.
    pub fn handed_out_unconfirmed(&self) -> usize {
        self.updates
            .iter()
            .filter(|(id, _, _)| *id <= self.handed_out)
            .count()
    }

    /// The webhook's URL and secret, as `setWebhook` last set them.
    pub fn webhook(&self) -> Option<(String, Option<String>)> {
        Some((self.webhook.clone()?, self.webhook_secret.clone()))
    }

    /// The kinds of update `setWebhook` last asked for.
    pub fn webhook_allowed_updates(&self) -> Option<Vec<String>> {
        self.webhook_allowed.clone()
    }

    pub fn webhook_active(&self) -> bool {
        self.webhook.is_some()
    }

    /// Sends webhook updates to `urls` (each to one picked at random)
    /// rather than to the URL `setWebhook` set.
    pub fn deliver_to(&mut self, urls: Vec<String>) {
        self.deliver_to = Some(urls);
    }

    /// The oldest queued update, if a webhook is set and there is a URL
    /// on this machine to deliver it to (see `super::webhook`).
    pub(crate) fn next_delivery(&self) -> Option<Due> {
        let set = self.webhook.as_ref()?;
        let urls = match &self.deliver_to {
            Some(urls) => urls.clone(),
            None if is_local(set) => vec![set.clone()],
            None => return None,
        };
        let (id, _, body) = self.updates.front()?;
        (!urls.is_empty()).then(|| Due {
            id: *id,
            body: body.clone(),
            urls,
            secret: self.webhook_secret.clone(),
        })
    }

    /// An attempt to deliver update `id` to `url`: answered 200
    /// (`delivered`, the update leaves the queue) or not (it stays).
    pub(crate) fn record_delivery(&mut self, id: i64, url: &str, delivered: bool) {
        if delivered {
            if let Some(at) = self.updates.iter().position(|(u, _, _)| *u == id) {
                self.updates.remove(at);
            }
            self.deliveries.delivered += 1;
            *self.deliveries.by_url.entry(url.to_owned()).or_default() += 1;
        } else {
            self.deliveries.failed += 1;
        }
    }

    pub fn webhook_deliveries(&self) -> WebhookDeliveries {
        self.deliveries.clone()
    }

    // ------------------------------------------------------ Bot API

    /// Answers one Bot API call (everything but getUpdates' waiting).
    pub fn call(&mut self, method: &str, p: &Map<String, Value>, now: Instant) -> ApiResult {
        match method {
            "getMe" => Ok(self.get_me()),
            "getWebhookInfo" => Ok(json!({
                "url": self.webhook.clone().unwrap_or_default(),
                "has_custom_certificate": false,
                "pending_update_count": self.updates.len(),
            })),
            "deleteWebhook" => {
                self.webhook = None;
                if bool_param(p, "drop_pending_updates") {
                    self.updates.clear();
                }
                Ok(json!(true))
            }
            "setWebhook" => {
                let url = str_param(p, "url").unwrap_or_default();
                self.webhook = (!url.is_empty()).then_some(url);
                self.webhook_secret = str_param(p, "secret_token");
                // As for getUpdates: one setting, kept until changed.
                if let Some(a) = list_param(p, "allowed_updates").filter(|a| !a.is_empty()) {
                    self.allowed_updates = Some(a.clone());
                    self.webhook_allowed = Some(a);
                }
                Ok(json!(true))
            }
            "sendMessage" => self.send_message(p, now),
            "editMessageText" => self.edit_message(p, now, true),
            "editMessageReplyMarkup" => self.edit_message(p, now, false),
            "answerCallbackQuery" => self.answer_callback(p, now),
            "deleteMessage" => self.delete_message(p),
            "setMyCommands" => self.set_commands(p),
            "getMyCommands" => {
                let (scope, lang) = command_key(p);
                let list = self
                    .commands
                    .iter()
                    .find(|c| c.scope == scope && c.language_code == lang);
                Ok(json!(list.map_or_else(Vec::new, |l| {
                    l.commands
                        .iter()
                        .map(|(c, d)| json!({ "command": c, "description": d }))
                        .collect()
                })))
            }
            "deleteMyCommands" => {
                let (scope, lang) = command_key(p);
                self.commands
                    .retain(|c| !(c.scope == scope && c.language_code == lang));
                Ok(json!(true))
            }
            "getChat" => self.get_chat(p),
            "getChatMember" => self.get_chat_member(p),
            "getChatAdministrators" => self.get_chat_admins(p),
            "getChatMemberCount" => {
                let c = self.reachable_chat(p)?;
                Ok(json!(
                    c.members.values().filter(|s| s.is_present()).count() + 1
                ))
            }
            "sendChatAction" => self.reachable_chat(p).map(|_| json!(true)),
            "leaveChat" => {
                let id = self.reachable_chat(p)?.id;
                let bot = UserId(self.config.bot_id);
                let _ = self.set_bot_status(id, bot, MemberStatus::Left);
                Ok(json!(true))
            }
            "close" | "logOut" => Ok(json!(true)),
            _ => Err(ApiFailure::new(404, "Not Found")),
        }
    }

    fn get_me(&self) -> Value {
        let mut v = self.bot_json();
        v["can_join_groups"] = json!(true);
        v["can_read_all_group_messages"] = json!(!self.config.privacy_mode);
        v["supports_inline_queries"] = json!(false);
        v["can_connect_to_business"] = json!(false);
        v["has_main_web_app"] = json!(false);
        v
    }

    /// The chat a call targets, if the bot may write there.
    fn reachable_chat(&self, p: &Map<String, Value>) -> Result<&ChatRec, ApiFailure> {
        let id = chat_param(p)?;
        let c = self
            .chats
            .get(&id)
            .ok_or_else(|| ApiFailure::bad("chat not found"))?;
        if let Some(to) = c.migrated_to {
            return Err(ApiFailure {
                code: 400,
                description: "Bad Request: group chat was upgraded to a supergroup chat".to_owned(),
                parameters: Some(json!({ "migrate_to_chat_id": to.0 })),
            });
        }
        match c.kind {
            ChatKind::Private(user) => {
                let u = &self.users[&user];
                if u.blocked {
                    return Err(ApiFailure::forbidden("bot was blocked by the user"));
                }
                if !u.started {
                    return Err(ApiFailure::forbidden(
                        "bot can't initiate conversation with a user",
                    ));
                }
            }
            ChatKind::Group | ChatKind::Supergroup => {
                let what = if c.kind == ChatKind::Group {
                    "group"
                } else {
                    "supergroup"
                };
                match c.bot_status {
                    MemberStatus::Kicked => {
                        return Err(ApiFailure::forbidden(&format!(
                            "bot was kicked from the {what} chat"
                        )));
                    }
                    MemberStatus::Left => {
                        return Err(ApiFailure::forbidden(&format!(
                            "bot is not a member of the {what} chat"
                        )));
                    }
                    _ => {}
                }
            }
        }
        Ok(c)
    }

    /// Telegram's output limits for one send or edit in `chat`: the
    /// group's 20 a minute, the private chat's rate, the bot-wide rate.
    /// Counts the output against them when it may go out.
    fn check_limits(&mut self, chat: ChatId, now: Instant) -> Result<(), ApiFailure> {
        let c = self
            .chats
            .get(&chat)
            .ok_or_else(|| ApiFailure::bad("chat not found"))?;
        match c.kind {
            ChatKind::Group | ChatKind::Supergroup => {
                if let Some(limit) = self.config.group_limit {
                    let window = self.config.group_window;
                    let recent: Vec<Instant> = c
                        .outputs
                        .iter()
                        .map(|o| o.at)
                        .filter(|&at| now.saturating_duration_since(at) < window)
                        .collect();
                    if recent.len() >= limit {
                        let frees_at = recent[recent.len() - limit] + window;
                        self.limit_hits.group += 1;
                        return Err(retry_after(frees_at.saturating_duration_since(now)));
                    }
                }
            }
            ChatKind::Private(_) => {
                if let Some(limit) = self.config.private_limit
                    && let Err(wait) = c.bucket.check(limit, now)
                {
                    self.limit_hits.private += 1;
                    return Err(retry_after(wait));
                }
            }
        }
        if let Some(limit) = self.config.bot_limit {
            if let Err(wait) = self.bot_bucket.check(limit, now) {
                self.limit_hits.bot += 1;
                return Err(retry_after(wait));
            }
            self.bot_bucket.take(limit, now);
        }
        if let (Some(limit), Some(c)) = (self.config.private_limit, self.chats.get_mut(&chat))
            && matches!(c.kind, ChatKind::Private(_))
        {
            c.bucket.take(limit, now);
        }
        Ok(())
    }

    /// How many calls were refused with 429, by limit.
    pub fn limit_hits(&self) -> LimitHits {
        self.limit_hits
    }

    fn send_message(&mut self, p: &Map<String, Value>, now: Instant) -> ApiResult {
        let chat = self.reachable_chat(p)?;
        let id = chat.id;
        let private = matches!(chat.kind, ChatKind::Private(_));
        let (source, parsed) = parse_text(p)?;
        if utf16_len(&parsed.text) > MAX_TEXT_LEN {
            return Err(ApiFailure::bad("message is too long"));
        }
        let (keyboard, markup) = parse_markup(p, private)?;
        let reply_to = match p.get("reply_parameters").map(json_value) {
            Some(Some(rp)) => rp.get("message_id").and_then(Value::as_i64),
            _ => int_param(p, "reply_to_message_id"),
        }
        .map(|r| MessageId(r as i32));
        if let Some(r) = reply_to
            && chat.live(r).is_none()
        {
            return Err(ApiFailure::bad("message to be replied not found"));
        }
        self.check_limits(id, now)?;
        let c = self
            .chats
            .get_mut(&id)
            .ok_or_else(|| ApiFailure::bad("chat not found"))?;
        let mid = c.add_message(
            FakeMessage {
                chat: id,
                id: MessageId(0),
                author: Author::Bot,
                text: parsed.text,
                source,
                keyboard,
                reply_to,
                edits: 0,
                deleted: false,
            },
            parsed.entities,
            markup,
        );
        c.outputs.push(Output {
            kind: OutputKind::Send,
            message: mid,
            at: now,
        });
        let c = &self.chats[&id];
        Ok(self.message_json(c, &c.messages[&mid.0]))
    }

    fn edit_message(&mut self, p: &Map<String, Value>, now: Instant, with_text: bool) -> ApiResult {
        if p.contains_key("inline_message_id") {
            return Err(ApiFailure::bad("the fake does not support inline messages"));
        }
        let chat = self.reachable_chat(p)?;
        let id = chat.id;
        let private = matches!(chat.kind, ChatKind::Private(_));
        let mid = int_param(p, "message_id")
            .ok_or_else(|| ApiFailure::bad("message identifier is not specified"))?;
        let m = chat
            .messages
            .get(&(mid as i32))
            .filter(|m| !m.msg.deleted)
            .ok_or_else(|| ApiFailure::bad("message to edit not found"))?;
        if m.msg.author != Author::Bot || m.msg.text.is_empty() {
            return Err(ApiFailure::bad("message can't be edited"));
        }
        let (source, parsed) = if with_text {
            let (s, parsed) = parse_text(p)?;
            if utf16_len(&parsed.text) > MAX_TEXT_LEN {
                return Err(ApiFailure::bad("MESSAGE_TOO_LONG"));
            }
            (s, parsed)
        } else {
            (
                m.msg.source.clone(),
                html::Parsed {
                    text: m.msg.text.clone(),
                    entities: m.entities.clone(),
                },
            )
        };
        // Without `reply_markup` an edit removes the inline keyboard.
        let (keyboard, markup) = parse_markup(p, private)?;
        if parsed.text == m.msg.text && parsed.entities == m.entities && markup == m.markup {
            return Err(ApiFailure::bad(
                "message is not modified: specified new message content and reply markup are \
                 exactly the same as a current content and reply markup of the message",
            ));
        }
        self.check_limits(id, now)?;
        let c = self
            .chats
            .get_mut(&id)
            .ok_or_else(|| ApiFailure::bad("chat not found"))?;
        let m = c
            .messages
            .get_mut(&(mid as i32))
            .ok_or_else(|| ApiFailure::bad("message to edit not found"))?;
        m.msg.text = parsed.text;
        m.msg.source = source;
        m.entities = parsed.entities;
        m.msg.keyboard = keyboard;
        m.markup = markup;
        m.msg.edits += 1;
        m.edit_date = Some(unix_now());
        c.outputs.push(Output {
            kind: OutputKind::Edit,
            message: MessageId(mid as i32),
            at: now,
        });
        let c = &self.chats[&id];
        Ok(self.message_json(c, &c.messages[&(mid as i32)]))
    }

    fn delete_message(&mut self, p: &Map<String, Value>) -> ApiResult {
        let chat = self.reachable_chat(p)?;
        let id = chat.id;
        let bot_admin = matches!(
            chat.bot_status,
            MemberStatus::Administrator | MemberStatus::Creator
        );
        let private = matches!(chat.kind, ChatKind::Private(_));
        let mid = int_param(p, "message_id")
            .ok_or_else(|| ApiFailure::bad("message identifier is not specified"))?
            as i32;
        let c = self
            .chats
            .get_mut(&id)
            .ok_or_else(|| ApiFailure::bad("chat not found"))?;
        let m = c
            .messages
            .get_mut(&mid)
            .filter(|m| !m.msg.deleted)
            .ok_or_else(|| ApiFailure::bad("message to delete not found"))?;
        if m.msg.author != Author::Bot && !bot_admin && !private {
            return Err(ApiFailure::bad("message can't be deleted"));
        }
        m.msg.deleted = true;
        Ok(json!(true))
    }

    fn answer_callback(&mut self, p: &Map<String, Value>, now: Instant) -> ApiResult {
        let invalid = || {
            ApiFailure::bad("query is too old and response timeout expired or query id is invalid")
        };
        let id = str_param(p, "callback_query_id").ok_or_else(invalid)?;
        let text = str_param(p, "text").filter(|t| !t.is_empty());
        if text
            .as_deref()
            .is_some_and(|t| t.chars().count() > MAX_ANSWER_TEXT)
        {
            return Err(ApiFailure::bad("MESSAGE_TOO_LONG"));
        }
        let rec = self.callbacks.get_mut(&id).ok_or_else(invalid)?;
        if rec.answer.is_some() {
            return Err(invalid());
        }
        rec.answer = Some(CallbackAnswer {
            query_id: id.clone(),
            user: rec.user,
            data: rec.data.clone(),
            text,
            show_alert: bool_param(p, "show_alert"),
            url: str_param(p, "url"),
            pressed_at: rec.pressed_at,
            answered_at: now,
        });
        Ok(json!(true))
    }

    fn set_commands(&mut self, p: &Map<String, Value>) -> ApiResult {
        let list = p
            .get("commands")
            .and_then(json_value)
            .and_then(|v| v.as_array().cloned())
            .ok_or_else(|| ApiFailure::bad("parameter \"commands\" is required"))?;
        if list.len() > 100 {
            return Err(ApiFailure::bad("BOT_COMMANDS_TOO_MUCH"));
        }
        let mut commands = Vec::new();
        for c in list {
            let command = c.get("command").and_then(Value::as_str).unwrap_or_default();
            let description = c
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let command_ok = (1..=32).contains(&command.len())
                && command
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_');
            if !command_ok {
                return Err(ApiFailure::bad("BOT_COMMAND_INVALID"));
            }
            if !(1..=256).contains(&description.chars().count()) {
                return Err(ApiFailure::bad("command description must be non-empty"));
            }
            commands.push((command.to_owned(), description.to_owned()));
        }
        let (scope, language_code) = command_key(p);
        self.commands
            .retain(|c| !(c.scope == scope && c.language_code == language_code));
        self.commands.push(CommandList {
            scope,
            language_code,
            commands,
        });
        Ok(json!(true))
    }

    fn known_chat(&self, p: &Map<String, Value>) -> Result<&ChatRec, ApiFailure> {
        let id = chat_param(p)?;
        let c = self
            .chats
            .get(&id)
            .ok_or_else(|| ApiFailure::bad("chat not found"))?;
        if !matches!(c.kind, ChatKind::Private(_)) && !c.bot_status.is_present() {
            return Err(ApiFailure::bad("chat not found"));
        }
        Ok(c)
    }

    fn get_chat(&self, p: &Map<String, Value>) -> ApiResult {
        let c = self.known_chat(p)?;
        let mut v = self.chat_json(c);
        v["accent_color_id"] = json!(0);
        v["max_reaction_count"] = json!(11);
        v["accepted_gift_types"] = json!({
            "unlimited_gifts": false, "limited_gifts": false,
            "unique_gifts": false, "premium_subscription": false,
        });
        Ok(v)
    }

    fn get_chat_member(&self, p: &Map<String, Value>) -> ApiResult {
        let c = self.known_chat(p)?;
        let user = int_param(p, "user_id").ok_or_else(|| ApiFailure::bad("user not found"))?;
        let user = UserId(user as u64);
        if user.0 == self.config.bot_id {
            return Ok(self.member_json(user, c.bot_status));
        }
        if !self.users.contains_key(&user) {
            return Err(ApiFailure::bad("user not found"));
        }
        let status = c.members.get(&user).copied().unwrap_or(MemberStatus::Left);
        Ok(self.member_json(user, status))
    }

    fn get_chat_admins(&self, p: &Map<String, Value>) -> ApiResult {
        let c = self.known_chat(p)?;
        if matches!(c.kind, ChatKind::Private(_)) {
            return Err(ApiFailure::bad(
                "there are no administrators in the private chat",
            ));
        }
        let mut admins: Vec<Value> = c
            .members
            .iter()
            .filter(|(_, s)| matches!(s, MemberStatus::Creator | MemberStatus::Administrator))
            .map(|(&u, &s)| self.member_json(u, s))
            .collect();
        if c.bot_status == MemberStatus::Administrator {
            admins.push(self.member_json(UserId(self.config.bot_id), c.bot_status));
        }
        Ok(json!(admins))
    }
}

impl ChatRec {
    /// A message that exists and is not deleted.
    fn live(&self, id: MessageId) -> Option<&MessageRec> {
        self.messages.get(&id.0).filter(|m| !m.msg.deleted)
    }

    fn new(
        id: ChatId,
        kind: ChatKind,
        title: &str,
        members: BTreeMap<UserId, MemberStatus>,
    ) -> Self {
        ChatRec {
            id,
            kind,
            title: title.to_owned(),
            members,
            bot_status: MemberStatus::Member,
            messages: BTreeMap::new(),
            next_message_id: 1,
            migrated_to: None,
            outputs: Vec::new(),
            bucket: Bucket::default(),
        }
    }

    fn add_message(
        &mut self,
        mut msg: FakeMessage,
        entities: Vec<html::Entity>,
        markup: Option<Value>,
    ) -> MessageId {
        let id = MessageId(self.next_message_id);
        self.next_message_id += 1;
        msg.id = id;
        self.messages.insert(
            id.0,
            MessageRec {
                msg,
                entities,
                markup,
                date: unix_now(),
                edit_date: None,
                extra: Map::new(),
            },
        );
        id
    }
}

// ------------------------------------------------------------ parameters

/// A parameter that may arrive as JSON or, from a form, as a JSON string.
fn json_value(v: &Value) -> Option<Value> {
    match v {
        Value::String(s) => serde_json::from_str(s).ok(),
        other => Some(other.clone()),
    }
}

/// A list parameter: a JSON array, or its text (form-encoded calls).
fn list_param(p: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    let v = match p.get(key)? {
        Value::String(s) => serde_json::from_str(s).ok()?,
        other => other.clone(),
    };
    serde_json::from_value(v).ok()
}

fn str_param(p: &Map<String, Value>, key: &str) -> Option<String> {
    match p.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn int_param(p: &Map<String, Value>, key: &str) -> Option<i64> {
    match p.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn bool_param(p: &Map<String, Value>, key: &str) -> bool {
    match p.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true" || s == "1",
        _ => false,
    }
}

/// The `chat_id` of a request, if it names one; used to match faults too.
pub fn chat_of(p: &Map<String, Value>) -> Option<ChatId> {
    int_param(p, "chat_id").map(ChatId)
}

fn chat_param(p: &Map<String, Value>) -> Result<ChatId, ApiFailure> {
    chat_of(p).ok_or_else(|| ApiFailure::bad("chat not found"))
}

fn command_key(p: &Map<String, Value>) -> (String, String) {
    let scope = p
        .get("scope")
        .and_then(json_value)
        .unwrap_or_else(|| json!({ "type": "default" }));
    (
        scope.to_string(),
        str_param(p, "language_code").unwrap_or_default(),
    )
}

fn parse_text(p: &Map<String, Value>) -> Result<(String, html::Parsed), ApiFailure> {
    let source = str_param(p, "text").unwrap_or_default();
    let parsed = match str_param(p, "parse_mode").as_deref() {
        None | Some("") => html::Parsed {
            text: source.clone(),
            entities: Vec::new(),
        },
        Some(m) if m.eq_ignore_ascii_case("html") => html::parse(&source)
            .map_err(|e| ApiFailure::bad(&format!("can't parse entities: {e}")))?,
        Some(other) => {
            return Err(ApiFailure::bad(&format!(
                "the fake supports only HTML, not {other}"
            )));
        }
    };
    if parsed.text.trim().is_empty() {
        return Err(ApiFailure::bad("message text is empty"));
    }
    Ok((source, parsed))
}

/// Validates `reply_markup` like Telegram and returns the keyboard for
/// tests and the markup for the Message JSON (inline keyboards only).
/// `web_app` buttons only in `private` chats, at `https://` addresses,
/// as Telegram allows them.
fn parse_markup(
    p: &Map<String, Value>,
    private: bool,
) -> Result<(Option<Keyboard>, Option<Value>), ApiFailure> {
    let Some(markup) = p.get("reply_markup").and_then(json_value) else {
        return Ok((None, None));
    };
    let Some(rows) = markup.get("inline_keyboard") else {
        // Reply keyboards and the like are accepted and not shown in Message.
        return Ok((None, None));
    };
    let cant_parse = || ApiFailure::bad("can't parse reply keyboard markup JSON object");
    let rows = rows.as_array().ok_or_else(cant_parse)?;
    let mut keyboard = Keyboard::default();
    let mut total = 0;
    for row in rows {
        let row = row.as_array().ok_or_else(cant_parse)?;
        if row.len() > MAX_BUTTONS_PER_ROW {
            return Err(ApiFailure::bad("reply markup is too long"));
        }
        total += row.len();
        let mut out = Vec::new();
        for b in row {
            let text = b.get("text").and_then(Value::as_str).unwrap_or_default();
            if text.trim().is_empty() {
                return Err(ApiFailure::bad(
                    "can't parse inline keyboard button: Text must be non-empty",
                ));
            }
            let action = if let Some(d) = b.get("callback_data") {
                let d = d.as_str().unwrap_or_default();
                if d.is_empty() || d.len() > MAX_CALLBACK_DATA {
                    return Err(ApiFailure::bad("BUTTON_DATA_INVALID"));
                }
                ButtonAction::Callback(d.to_owned())
            } else if let Some(u) = b.get("url") {
                let u = u.as_str().unwrap_or_default();
                let ok = url::Url::parse(u)
                    .is_ok_and(|u| matches!(u.scheme(), "http" | "https" | "tg") && u.has_host());
                if !ok {
                    return Err(ApiFailure::bad("BUTTON_URL_INVALID"));
                }
                ButtonAction::Url(u.to_owned())
            } else if let Some(w) = b.get("web_app") {
                if !private {
                    return Err(ApiFailure::bad("BUTTON_TYPE_INVALID"));
                }
                let u = w.get("url").and_then(Value::as_str).unwrap_or_default();
                let ok = url::Url::parse(u).is_ok_and(|u| u.scheme() == "https" && u.has_host());
                if !ok {
                    return Err(ApiFailure::bad("BUTTON_URL_INVALID"));
                }
                ButtonAction::WebApp(u.to_owned())
            } else if b.as_object().is_some_and(|o| o.len() > 1) {
                ButtonAction::Other(b.to_string())
            } else {
                return Err(ApiFailure::bad(
                    "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
                ));
            };
            out.push(Button {
                text: text.to_owned(),
                action,
            });
        }
        keyboard.rows.push(out);
    }
    if total > MAX_BUTTONS {
        return Err(ApiFailure::bad("reply markup is too long"));
    }
    if total == 0 {
        return Ok((None, None));
    }
    Ok((Some(keyboard), Some(json!({ "inline_keyboard": rows }))))
}
