//! The service's vocabulary: chats, players, seats, settings, phases.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use kozyr_game::GameOptions;
pub use kozyr_i18n::Lang;

/// Milliseconds since the Unix epoch. The service never reads the clock:
/// every command brings its own `now`.
///
/// ```
/// use kozyr_table::Timestamp;
/// let t = Timestamp::from_millis(1_000);
/// assert_eq!(t.plus_secs(2).millis(), 3_000);
/// ```
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(i64);

impl Timestamp {
    pub const fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    pub const fn millis(self) -> i64 {
        self.0
    }

    pub const fn plus_millis(self, ms: i64) -> Timestamp {
        Timestamp(self.0.saturating_add(ms))
    }

    pub const fn plus_secs(self, secs: u32) -> Timestamp {
        self.plus_millis(secs as i64 * 1000)
    }
}

/// The chat platform a chat or a user belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    Telegram,
    Discord,
}

impl Platform {
    pub const ALL: [Platform; 2] = [Platform::Telegram, Platform::Discord];

    pub const fn as_str(self) -> &'static str {
        match self {
            Platform::Telegram => "telegram",
            Platform::Discord => "discord",
        }
    }
}

impl FromStr for Platform {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Platform, IdError> {
        Platform::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or(IdError::UnknownPlatform)
    }
}

/// Why a chat or user id was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("not a platform id: Telegram's are integers, Discord's snowflakes")]
    Malformed,
    #[error("unknown platform")]
    UnknownPlatform,
}

/// An integer in its one canonical spelling (no `+`, no leading zeros), so
/// every id has exactly one text form.
fn canonical<T: FromStr + ToString>(s: &str) -> Result<T, IdError> {
    let n: T = s.parse().map_err(|_| IdError::Malformed)?;
    if n.to_string() == s {
        Ok(n)
    } else {
        Err(IdError::Malformed)
    }
}

/// A chat (group, channel, private chat) on some platform, by the
/// platform's own id type. A chat has at most one open table.
///
/// The text form — `platform` plus `id()` — is what the store keeps.
///
/// ```
/// use kozyr_table::{ChatKey, Platform};
/// let chat = ChatKey::new(Platform::Telegram, "-1001234").unwrap();
/// assert_eq!(chat, ChatKey::Telegram(-1001234));
/// assert_eq!(chat.id(), "-1001234");
/// assert!(ChatKey::new(Platform::Telegram, "").is_err());
/// assert!(ChatKey::new(Platform::Telegram, "a b").is_err());
/// assert!(ChatKey::new(Platform::Telegram, "+5").is_err()); // not canonical
/// assert!(ChatKey::new(Platform::Discord, "-5").is_err()); // snowflakes are unsigned
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "RawChatKey", into = "RawChatKey")]
pub enum ChatKey {
    /// A Telegram chat id (negative for groups).
    Telegram(i64),
    /// A Discord channel (or thread) snowflake.
    Discord(u64),
}

#[derive(Serialize, Deserialize)]
struct RawChatKey {
    platform: Platform,
    id: String,
}

impl TryFrom<RawChatKey> for ChatKey {
    type Error = IdError;
    fn try_from(r: RawChatKey) -> Result<ChatKey, IdError> {
        ChatKey::new(r.platform, r.id)
    }
}

impl From<ChatKey> for RawChatKey {
    fn from(c: ChatKey) -> RawChatKey {
        RawChatKey {
            platform: c.platform(),
            id: c.id(),
        }
    }
}

impl ChatKey {
    /// Parses the text form of a chat id on `platform`.
    pub fn new(platform: Platform, id: impl Into<String>) -> Result<ChatKey, IdError> {
        let id = id.into();
        Ok(match platform {
            Platform::Telegram => ChatKey::Telegram(canonical(&id)?),
            Platform::Discord => ChatKey::Discord(canonical(&id)?),
        })
    }

    pub fn platform(&self) -> Platform {
        match self {
            ChatKey::Telegram(_) => Platform::Telegram,
            ChatKey::Discord(_) => Platform::Discord,
        }
    }

    /// The id's text form (as the store keeps it).
    pub fn id(&self) -> String {
        match self {
            ChatKey::Telegram(n) => n.to_string(),
            ChatKey::Discord(n) => n.to_string(),
        }
    }
}

impl fmt::Display for ChatKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.platform().as_str(), self.id())
    }
}

/// The [`Display`](fmt::Display) form back: `platform:id`.
///
/// ```
/// use kozyr_table::ChatKey;
/// assert_eq!("discord:7".parse(), Ok(ChatKey::Discord(7)));
/// assert_eq!(ChatKey::Telegram(-5).to_string().parse(), Ok(ChatKey::Telegram(-5)));
/// assert!("7".parse::<ChatKey>().is_err());
/// assert!("slack:7".parse::<ChatKey>().is_err());
/// ```
impl FromStr for ChatKey {
    type Err = IdError;
    fn from_str(s: &str) -> Result<ChatKey, IdError> {
        let (platform, id) = s.split_once(':').ok_or(IdError::Malformed)?;
        ChatKey::new(platform.parse()?, id)
    }
}

/// A person on a chat platform, by the platform's own id type.
///
/// The text form is what snapshots and the store keep: a Telegram id as
/// its bare number (as kozyr always wrote it), others with their platform
/// in front.
///
/// ```
/// use kozyr_table::UserId;
/// let ann = UserId::new("42").unwrap();
/// assert_eq!(ann, UserId::Telegram(42));
/// assert_eq!(UserId::Discord(7).to_string(), "discord:7");
/// assert_eq!(UserId::new("discord:7"), Ok(UserId::Discord(7)));
/// assert!(UserId::new("042").is_err());
/// assert!(UserId::new("-1").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum UserId {
    Telegram(u64),
    Discord(u64),
}

impl UserId {
    /// Parses the text form.
    pub fn new(id: impl Into<String>) -> Result<UserId, IdError> {
        let id = id.into();
        match id.split_once(':') {
            None => Ok(UserId::Telegram(canonical(&id)?)),
            Some(("discord", n)) => Ok(UserId::Discord(canonical(n)?)),
            Some(_) => Err(IdError::UnknownPlatform),
        }
    }

    pub fn platform(&self) -> Platform {
        match self {
            UserId::Telegram(_) => Platform::Telegram,
            UserId::Discord(_) => Platform::Discord,
        }
    }
}

impl TryFrom<String> for UserId {
    type Error = IdError;
    fn try_from(s: String) -> Result<UserId, IdError> {
        UserId::new(s)
    }
}

impl From<UserId> for String {
    fn from(u: UserId) -> String {
        u.to_string()
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UserId::Telegram(n) => write!(f, "{n}"),
            UserId::Discord(n) => write!(f, "discord:{n}"),
        }
    }
}

/// A person: who they are on the platform, what to call them, how to talk to them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Player {
    pub id: UserId,
    pub name: String,
    pub lang: Lang,
}

impl Player {
    /// Display names come from users; this bounds what the service keeps.
    pub const MAX_NAME_CHARS: usize = 64;

    /// A player with the name trimmed and cut to [`Player::MAX_NAME_CHARS`].
    pub fn new(id: UserId, name: &str, lang: Lang) -> Player {
        let name: String = name.trim().chars().take(Self::MAX_NAME_CHARS).collect();
        Player { id, name, lang }
    }
}

/// Who sits in a seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeatState {
    #[default]
    Empty,
    /// A person. While `away`, an AI player plays the seat for them (after
    /// three turn timeouts in a row) until they take it back.
    Person {
        player: Player,
        #[serde(default)]
        away: bool,
    },
    Ai,
}

impl SeatState {
    pub fn is_empty(&self) -> bool {
        matches!(self, SeatState::Empty)
    }

    pub fn person(&self) -> Option<&Player> {
        match self {
            SeatState::Person { player, .. } => Some(player),
            _ => None,
        }
    }

    /// Whether the AI plays this seat: an AI seat, or a person who is away.
    pub fn ai_controlled(&self) -> bool {
        matches!(self, SeatState::Ai | SeatState::Person { away: true, .. })
    }
}

/// A turn timer, in whole seconds.
///
/// ```
/// use kozyr_table::TurnTimer;
/// assert_eq!(TurnTimer::from_secs(60).unwrap().secs(), 60);
/// assert!(TurnTimer::from_secs(1).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct TurnTimer(u32);

impl TurnTimer {
    pub const MIN_SECS: u32 = 5;
    pub const MAX_SECS: u32 = 86_400;

    pub const fn from_secs(secs: u32) -> Option<TurnTimer> {
        if secs >= Self::MIN_SECS && secs <= Self::MAX_SECS {
            Some(TurnTimer(secs))
        } else {
            None
        }
    }

    pub const fn secs(self) -> u32 {
        self.0
    }

    /// How long before the deadline the reminder goes out: a quarter of the
    /// timer, at most 15 seconds.
    pub const fn remind_before_secs(self) -> u32 {
        let q = self.0 / 4;
        if q < 15 { q } else { 15 }
    }
}

impl TryFrom<u32> for TurnTimer {
    type Error = String;
    fn try_from(secs: u32) -> Result<TurnTimer, String> {
        TurnTimer::from_secs(secs).ok_or_else(|| {
            format!(
                "a turn timer is {}-{} seconds, not {secs}",
                TurnTimer::MIN_SECS,
                TurnTimer::MAX_SECS
            )
        })
    }
}

impl From<TurnTimer> for u32 {
    fn from(t: TurnTimer) -> u32 {
        t.0
    }
}

/// A table's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub lang: Lang,
    /// `None` is "no limit".
    pub turn_timer: Option<TurnTimer>,
    #[serde(default)]
    pub options: GameOptions,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            lang: Lang::En,
            turn_timer: TurnTimer::from_secs(60),
            options: GameOptions::default(),
        }
    }
}

/// Where a table is in its life. A chat's *open* table is the one not closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Seating players.
    Lobby,
    /// A series is being played.
    Playing,
    /// The series is over; the same seats may play a rematch.
    Finished,
    /// Stopped, or replaced by a newer table in the chat. Final.
    Closed,
}

impl Phase {
    pub const ALL: [Phase; 4] = [Phase::Lobby, Phase::Playing, Phase::Finished, Phase::Closed];

    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Lobby => "lobby",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
            Phase::Closed => "closed",
        }
    }
}

impl FromStr for Phase {
    type Err = String;
    fn from_str(s: &str) -> Result<Phase, String> {
        Phase::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown phase `{s}`"))
    }
}

/// What one seat put on a trick, as everyone at the table saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "cards", rename_all = "snake_case")]
pub enum TrickCards {
    FaceUp(kozyr_cards::CardSet),
    /// Passed face down (Kozel): only their number is public.
    FaceDown(u32),
}

/// One play on a trick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TrickPlay {
    pub seat: kozyr_cards::Seat,
    pub cards: TrickCards,
}

/// A completed trick: every play on it in the order made (the last lead
/// first: a Kozel molodka takes the table back and starts it again), who
/// took it and its points. Shown until the next trick is taken, so nobody
/// misses how a trick ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TrickTaken {
    pub winner: kozyr_cards::Seat,
    pub points: u32,
    #[serde(default)]
    pub plays: Vec<TrickPlay>,
}

/// How the previous deal ended, shown (hands too) with the next deal's
/// cards until that deal's first trick is taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealEnd {
    /// The game's deal-over event (its result and scores).
    pub result: kozyr_game::GameEvent,
    /// The deal's last trick.
    pub last_trick: Option<TrickTaken>,
}

/// A table's id, assigned by the service when the table is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TableId(pub i64);

impl fmt::Display for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
