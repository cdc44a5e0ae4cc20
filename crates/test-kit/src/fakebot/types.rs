//! What tests see of the fake: messages, keyboards, callback answers,
//! outputs, faults. Plain data, cloned out of the server's state.

use std::time::{Duration, Instant};

use teloxide::types::{ChatId, MessageId, UserId};

/// How the fake is set up; [`FakeBotConfig::default`] suits most tests.
#[derive(Clone, Debug)]
pub struct FakeBotConfig {
    pub token: String,
    pub bot_id: u64,
    pub bot_username: String,
    pub bot_first_name: String,
    /// Telegram's group privacy mode: the bot sees only commands, replies to
    /// it and mentions of it in groups.
    pub privacy_mode: bool,
    /// Answer 429 when a group gets more than this many sent or edited
    /// messages in [`FakeBotConfig::group_window`]; `None` disables the check.
    pub group_limit: Option<usize>,
    pub group_window: Duration,
    /// Answer 429 when the bot as a whole sends or edits faster than this
    /// (Telegram: about 30 messages a second); `None` disables the check.
    pub bot_limit: Option<RateLimit>,
    /// Answer 429 when one private chat gets outputs faster than this
    /// (Telegram: about one a second, short bursts tolerated).
    pub private_limit: Option<RateLimit>,
}

/// A token bucket: `per_second` outputs sustained, up to `burst` at once.
/// Telegram's FAQ speaks of rates "we may allow short bursts that go over";
/// a bucket is that rule with a number on the burst.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    pub per_second: f64,
    pub burst: f64,
}

/// What webhook delivery did (see `fakebot::webhook`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhookDeliveries {
    /// Updates answered 200, each counted once.
    pub delivered: u64,
    /// Attempts that failed (no answer, or not 200) and were retried.
    pub failed: u64,
    /// Updates delivered, by the URL that took them.
    pub by_url: std::collections::BTreeMap<String, u64>,
}

/// How many calls the fake refused with 429 for each of Telegram's limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LimitHits {
    /// The bot-wide rate ([`FakeBotConfig::bot_limit`]).
    pub bot: u64,
    /// One private chat's rate ([`FakeBotConfig::private_limit`]).
    pub private: u64,
    /// One group's 20 a minute ([`FakeBotConfig::group_limit`]).
    pub group: u64,
}

impl LimitHits {
    pub fn total(&self) -> u64 {
        self.bot + self.private + self.group
    }
}

impl Default for FakeBotConfig {
    fn default() -> Self {
        FakeBotConfig {
            token: "123456:TEST-fake-token".to_owned(),
            bot_id: 123_456,
            bot_username: "kozyr_test_bot".to_owned(),
            bot_first_name: "Kozyr".to_owned(),
            privacy_mode: true,
            group_limit: None,
            group_window: Duration::from_secs(60),
            bot_limit: None,
            private_limit: None,
        }
    }
}

impl FakeBotConfig {
    /// Turns on Telegram's limit of 20 messages per minute in a group.
    pub fn strict_group_limit(mut self) -> Self {
        self.group_limit = Some(20);
        self
    }

    /// Turns on all of Telegram's output limits: 20 a minute in a group,
    /// about 30 a second for the whole bot, one a second in a private chat
    /// — strictly: a private chat's second output inside one second is
    /// refused, with no burst (Telegram's refusals are that strict; a bot
    /// paces with margin).
    pub fn telegram_limits(self) -> Self {
        FakeBotConfig {
            bot_limit: Some(RateLimit {
                per_second: 30.0,
                burst: 30.0,
            }),
            private_limit: Some(RateLimit {
                per_second: 1.0,
                burst: 1.0,
            }),
            ..self.strict_group_limit()
        }
    }
}

/// A simulated person. Only `first_name` is required.
#[derive(Clone, Debug, Default)]
pub struct UserSpec {
    pub first_name: String,
    pub last_name: Option<String>,
    pub username: Option<String>,
    pub language_code: Option<String>,
}

impl UserSpec {
    pub fn new(first_name: &str) -> Self {
        UserSpec {
            first_name: first_name.to_owned(),
            ..UserSpec::default()
        }
    }

    pub fn username(mut self, username: &str) -> Self {
        self.username = Some(username.to_owned());
        self
    }

    pub fn language(mut self, code: &str) -> Self {
        self.language_code = Some(code.to_owned());
        self
    }
}

/// A member's standing in a group, as `getChatMember` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberStatus {
    Creator,
    Administrator,
    Member,
    Left,
    Kicked,
}

impl MemberStatus {
    pub fn is_present(self) -> bool {
        matches!(
            self,
            MemberStatus::Creator | MemberStatus::Administrator | MemberStatus::Member
        )
    }
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Author {
    Bot,
    User(UserId),
}

/// What an inline button does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ButtonAction {
    Callback(String),
    Url(String),
    /// Opens a Mini App at this address (private chats only).
    WebApp(String),
    /// Any other kind (switch inline, login, ...), kept as JSON.
    Other(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Button {
    pub text: String,
    pub action: ButtonAction,
}

impl Button {
    pub fn callback_data(&self) -> Option<&str> {
        match &self.action {
            ButtonAction::Callback(d) => Some(d),
            _ => None,
        }
    }

    pub fn url(&self) -> Option<&str> {
        match &self.action {
            ButtonAction::Url(u) => Some(u),
            _ => None,
        }
    }

    /// The Mini App a `web_app` button opens.
    pub fn web_app(&self) -> Option<&str> {
        match &self.action {
            ButtonAction::WebApp(u) => Some(u),
            _ => None,
        }
    }
}

/// An inline keyboard, row by row.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Keyboard {
    pub rows: Vec<Vec<Button>>,
}

impl Keyboard {
    pub fn buttons(&self) -> impl Iterator<Item = &Button> {
        self.rows.iter().flatten()
    }

    /// The first button whose text contains `needle`.
    pub fn find(&self, needle: &str) -> Option<&Button> {
        self.buttons().find(|b| b.text.contains(needle))
    }

    /// The first button whose callback data is exactly `data`.
    pub fn with_data(&self, data: &str) -> Option<&Button> {
        self.buttons().find(|b| b.callback_data() == Some(data))
    }
}

/// A message as the fake stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FakeMessage {
    pub chat: ChatId,
    pub id: MessageId,
    pub author: Author,
    /// The text after entity parsing, as users see it.
    pub text: String,
    /// The text as the bot sent it (HTML source in HTML parse mode).
    pub source: String,
    pub keyboard: Option<Keyboard>,
    pub reply_to: Option<MessageId>,
    /// How many times the bot edited it.
    pub edits: u32,
    pub deleted: bool,
}

/// How a callback query was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallbackAnswer {
    pub query_id: String,
    pub user: UserId,
    pub data: String,
    pub text: Option<String>,
    pub show_alert: bool,
    pub url: Option<String>,
    /// When the press became an update, and when the bot answered it:
    /// the latency a player feels.
    pub pressed_at: Instant,
    pub answered_at: Instant,
}

impl CallbackAnswer {
    pub fn latency(&self) -> std::time::Duration {
        self.answered_at.saturating_duration_since(self.pressed_at)
    }
}

/// A sent or edited message in one chat: what Telegram's per-chat limits count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    pub kind: OutputKind,
    pub message: MessageId,
    pub at: Instant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    Send,
    Edit,
}

/// A command list registered with `setMyCommands`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandList {
    /// The scope as JSON (`{"type":"default"}` when none was given).
    pub scope: String,
    pub language_code: String,
    pub commands: Vec<(String, String)>,
}

/// A fault the fake injects into matching requests instead of answering normally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Method name (case-insensitive); `None` matches every method.
    pub method: Option<String>,
    /// The request's `chat_id`; `None` matches every chat (and chat-less methods).
    pub chat: Option<ChatId>,
    pub kind: FaultKind,
    /// How many requests it hits; `None` for every one.
    pub times: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// 429 with `parameters.retry_after`.
    TooManyRequests { retry_after: u32 },
    /// A 5xx with a Telegram-shaped body.
    ServerError { status: u16 },
    /// Answer normally, but only after this long.
    Delay(Duration),
    /// Close the connection without answering.
    DropConnection,
    /// 400 "Bad Request: chat not found", as Telegram sometimes answers
    /// for a chat that exists.
    ChatNotFound,
    /// 400 "Bad Request: " and this, as Telegram answers a call it will
    /// not carry out (a message older than 48 hours: "message can't be
    /// deleted for everyone").
    BadRequest(&'static str),
}

impl Fault {
    pub fn new(kind: FaultKind) -> Self {
        Fault {
            method: None,
            chat: None,
            kind,
            times: None,
        }
    }

    pub fn too_many_requests(retry_after: u32) -> Self {
        Fault::new(FaultKind::TooManyRequests { retry_after })
    }

    pub fn server_error(status: u16) -> Self {
        Fault::new(FaultKind::ServerError { status })
    }

    pub fn delay(d: Duration) -> Self {
        Fault::new(FaultKind::Delay(d))
    }

    pub fn chat_not_found() -> Self {
        Fault::new(FaultKind::ChatNotFound)
    }

    pub fn drop_connection() -> Self {
        Fault::new(FaultKind::DropConnection)
    }

    pub fn bad_request(description: &'static str) -> Self {
        Fault::new(FaultKind::BadRequest(description))
    }

    pub fn method(mut self, method: &str) -> Self {
        self.method = Some(method.to_owned());
        self
    }

    pub fn chat(mut self, chat: ChatId) -> Self {
        self.chat = Some(chat);
        self
    }

    pub fn times(mut self, n: u32) -> Self {
        self.times = Some(n);
        self
    }
}

/// Why a simulated user action could not happen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("no such user {0}")]
    NoSuchUser(UserId),
    #[error("no such chat {0}")]
    NoSuchChat(ChatId),
    #[error("user {user} is not in chat {chat}")]
    NotAMember { user: UserId, chat: ChatId },
    #[error("message {message} is not in chat {chat}")]
    NoSuchMessage { chat: ChatId, message: MessageId },
    #[error("message {message} has no button with data {data:?}")]
    NoSuchButton { message: MessageId, data: String },
    #[error("chat {0} is not a basic group")]
    NotAGroup(ChatId),
    #[error("the bot is not in chat {0}")]
    BotNotInChat(ChatId),
    #[error("waited {0:?} and the condition never held")]
    Timeout(Duration),
}
