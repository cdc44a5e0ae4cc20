//! The bot's configuration, from the environment (and a `.env` file, loaded
//! by `main`). Every variable is listed in `.env.example`.
//!
//! Parsing takes a lookup function rather than reading the process
//! environment, so tests can feed it anything.
//!
//! Beside it, what every platform's start needs from a configuration and
//! names no platform: [`startup`] (waiting for a platform that is not up
//! yet) and [`run`] (the table service over the store the configuration
//! names) — so a shell's crate names this one, never the application.

pub mod run;
pub mod startup;

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use kozyr_ai::AgentKind;
use kozyr_i18n::Lang;
use kozyr_table::TurnTimer;

/// A Telegram bot token. Its `Debug` and `Display` never show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Checks the shape BotFather gives tokens: `<bot id>:<secret>`.
    ///
    /// ```
    /// use kozyr_config::Token;
    /// assert!(Token::parse("123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11").is_ok());
    /// assert!(Token::parse("not a token").is_err());
    /// assert_eq!(format!("{:?}", Token::parse("1:abcdefghijklmnopqrstuvwxyz0123456789").unwrap()), "Token(1:***)");
    /// ```
    pub fn parse(s: &str) -> Result<Token, &'static str> {
        let s = s.trim();
        let (id, secret) = s.split_once(':').ok_or("expected <bot id>:<secret>")?;
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err("the part before ':' must be the bot's numeric id");
        }
        if secret.len() < 30
            || !secret
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err("the part after ':' must be the secret BotFather gave you");
        }
        Ok(Token(s.to_string()))
    }

    /// The token itself, for the Telegram client only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The bot's numeric id, the part of the token that is not secret.
    pub fn bot_id(&self) -> &str {
        self.0.split_once(':').map_or("", |(id, _)| id)
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({}:***)", self.bot_id())
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:***", self.bot_id())
    }
}

/// How the bot receives updates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpdateMode {
    LongPolling,
    Webhook {
        /// The public HTTPS URL Telegram posts to.
        url: url::Url,
        /// The local address to listen on.
        listen: SocketAddr,
        /// Checked against `X-Telegram-Bot-Api-Secret-Token`.
        secret: Option<String>,
    },
}

/// SQLite's `synchronous` setting, the store's own type.
pub use kozyr_store::Synchronous;

/// How log lines are written (`KOZYR_LOG_FORMAT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines; coloured only on a terminal without `NO_COLOR`.
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

impl LogFormat {
    /// Reads `KOZYR_LOG_FORMAT` through `var`. Separate from [`Config`]
    /// because commands that need no token (export, backup) log too.
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<LogFormat, ConfigError> {
        match var("KOZYR_LOG_FORMAT")
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            None | Some("") | Some("text") => Ok(LogFormat::Text),
            Some("json") => Ok(LogFormat::Json),
            Some(_) => Err(ConfigError::Malformed {
                var: "KOZYR_LOG_FORMAT",
                why: "expected text or json".into(),
            }),
        }
    }
}

/// Whether text logs may carry ANSI colours: only on a terminal, and never
/// with `NO_COLOR` set to anything non-empty (<https://no-color.org>).
pub fn log_colours(stdout_is_terminal: bool, no_color: Option<&str>) -> bool {
    stdout_is_terminal && no_color.is_none_or(str::is_empty)
}

/// The token line of `.env.example`: a copied file that was never filled in
/// has the right shape, so it is caught by value before any network call.
pub const PLACEHOLDER_TOKEN: &str = "123456789:replace-with-your-token-from-botfather";

/// A Discord bot token (`<base64 application id>.<timestamp>.<hmac>`).
/// Its `Debug` and `Display` never show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct DiscordToken {
    token: String,
    application_id: u64,
}

impl DiscordToken {
    /// Checks the shape the Developer Portal gives bot tokens: three parts
    /// separated by dots, the first the application's id in base64.
    ///
    /// ```
    /// use kozyr_config::DiscordToken;
    /// let t = DiscordToken::parse("MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789").unwrap();
    /// assert_eq!(t.application_id(), 123456789012345678);
    /// assert_eq!(t.to_string(), "123456789012345678.***");
    /// assert!(DiscordToken::parse("123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11").is_err());
    /// ```
    pub fn parse(s: &str) -> Result<DiscordToken, &'static str> {
        let s = s.trim();
        let parts: Vec<&str> = s.split('.').collect();
        let url_safe = |p: &str| {
            p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        if parts.len() != 3 || parts.iter().any(|p| p.is_empty() || !url_safe(p)) {
            return Err("expected three parts separated by dots, as the Developer Portal gives it");
        }
        let id = base64_decode(parts[0])
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|d| d.parse::<u64>().ok())
            .filter(|&id| id > 0)
            .ok_or("the part before the first '.' must be the application's id in base64")?;
        if parts[2].len() < 20 {
            return Err("the part after the last '.' is too short for a bot token");
        }
        Ok(DiscordToken {
            token: s.to_owned(),
            application_id: id,
        })
    }

    /// The token itself, for the Discord clients only.
    pub fn expose(&self) -> &str {
        &self.token
    }

    /// The application's (and its bot user's) id, read from the token.
    pub fn application_id(&self) -> u64 {
        self.application_id
    }
}

/// URL-safe base64 without padding, as the token's first part comes
/// (the caller has already refused any other character). Trailing bits are
/// allowed: an id's digits need not fill the last character.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const TOKEN_ID: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    TOKEN_ID.decode(s).ok()
}

impl fmt::Debug for DiscordToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DiscordToken({}.***)", self.application_id)
    }
}

impl fmt::Display for DiscordToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.***", self.application_id)
    }
}

/// The Discord side of the configuration (`DISCORD_*`).
#[derive(Clone, Debug)]
pub struct DiscordConfig {
    pub token: DiscordToken,
    /// `scheme://host[:port]` of a Discord-compatible REST API (a proxy, a
    /// test's fake), without a path or a trailing `/`; requests go to
    /// `{api_url}/api/v10/…`.
    pub api_url: Option<String>,
    /// Overrides the gateway URL that `GET /gateway/bot` returns.
    pub gateway_url: Option<String>,
    /// Registers the slash commands in this one server only (quick testing).
    pub guild_id: Option<u64>,
    /// The application's public key (hex): turns on the HTTP interactions
    /// endpoint, which checks Discord's signatures with it.
    pub public_key: Option<String>,
    /// Where the HTTP interactions endpoint listens.
    pub interactions_listen: SocketAddr,
    /// `DISCORD_SHARDS`: the gateway shards this process runs; `None` runs
    /// every shard Discord recommends.
    pub shards: Option<ShardRange>,
}

/// Shards `first..=last` of `total` (`DISCORD_SHARDS=first-last/total`):
/// Discord sends each server's events to shard `(server id >> 22) %
/// total`, and large bots split the shards between processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardRange {
    pub first: u32,
    pub last: u32,
    pub total: u32,
}

impl ShardRange {
    /// `A-B/N` or `A/N`, with `A <= B < N`; the error says what is expected.
    pub fn parse(value: &str) -> Result<ShardRange, String> {
        let expected = || {
            "expected A-B/N (this process runs shards A to B of N, such as 0-3/8) \
             or A/N (one shard), with A <= B < N"
                .to_owned()
        };
        let number = |s: &str| -> Result<u32, String> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(expected());
            }
            s.parse::<u32>()
                .map_err(|_| format!("{s} is too large; {}", expected()))
        };
        let (shards, total) = value.split_once('/').ok_or_else(expected)?;
        let (first, last) = shards.split_once('-').unwrap_or((shards, shards));
        let range = ShardRange {
            first: number(first)?,
            last: number(last)?,
            total: number(total)?,
        };
        if range.total == 0 {
            return Err(format!("there must be at least one shard; {}", expected()));
        }
        if range.first > range.last || range.last >= range.total {
            return Err(expected());
        }
        Ok(range)
    }
}

impl fmt::Display for ShardRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}/{}", self.first, self.total)
        } else {
            write!(f, "{}-{}/{}", self.first, self.last, self.total)
        }
    }
}

/// The Telegram Mini App (`KOZYR_WEBAPP_*`): off without its URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebAppConfig {
    /// The page's public `https://` address (the admin's reverse proxy).
    pub url: String,
    /// Where the Mini App's HTTP server listens (plain HTTP behind the proxy).
    pub listen: SocketAddr,
    /// The app's short name registered with BotFather (`/newapp`): the
    /// group's table then links to it directly.
    pub short_name: Option<String>,
}

/// Everything `kozyr run` needs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Telegram's bot token; `None` runs without Telegram.
    pub token: Option<Token>,
    /// Discord's settings; `None` runs without Discord.
    pub discord: Option<DiscordConfig>,
    pub database_url: String,
    /// A self-hosted Bot API server (or a test's fake one).
    pub api_url: Option<url::Url>,
    pub log: String,
    /// Language for chats and players whose language is unknown.
    pub default_language: Lang,
    /// The turn timer of new tables; `None` is "no limit".
    pub default_turn_timer: Option<TurnTimer>,
    pub synchronous: Synchronous,
    pub update_mode: UpdateMode,
    /// The AI player at tables: `random`, `heuristic` or `search`.
    pub ai_player: AgentKind,
    /// How long the `search` AI player thinks per move.
    pub ai_think: Duration,
    pub log_format: LogFormat,
    /// Where to serve Prometheus metrics (`GET /metrics`); `None` is off.
    pub metrics_listen: Option<SocketAddr>,
    /// The most messages the bot sends and edits a second, in all chats
    /// (`KOZYR_TELEGRAM_RATE`; Telegram allows about 30).
    pub telegram_rate: u32,
    /// `KOZYR_HEALTH_FILE`: the heartbeat file; `None` puts it beside the
    /// database (see `health::heartbeat_path`).
    pub health_file: Option<String>,
    /// The Telegram Mini App; `None` is off.
    pub webapp: Option<WebAppConfig>,
    /// Settings given but without effect because the one they belong to is
    /// not set; `kozyr run` warns about each.
    pub ignored: Vec<Ignored>,
    /// The settings given with a value other than their default, secrets
    /// left out, for the start-up log line.
    pub changed: Vec<(&'static str, String)>,
}

/// A variable that is set but has no effect, because `needs` is unset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{var} is set but ignored: it needs {needs}, which is not set")]
pub struct Ignored {
    pub var: &'static str,
    pub needs: &'static str,
}

/// One variable `kozyr run` reads: its name, the flag that can give it
/// instead, its default as `kozyr run --help` shows it, and what it does.
/// The one list behind `--help`, the start-up line's "changed settings" and
/// the check that `.env.example` documents every variable.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub var: &'static str,
    pub flag: &'static str,
    pub default: Option<&'static str>,
    pub help: &'static str,
    /// Never shown: not in `--help`'s `[env: …]`, not in the logs.
    pub secret: bool,
}

const fn setting(
    var: &'static str,
    flag: &'static str,
    default: Option<&'static str>,
    help: &'static str,
) -> Setting {
    Setting {
        var,
        flag,
        default,
        help,
        secret: false,
    }
}

const fn secret(var: &'static str, flag: &'static str, help: &'static str) -> Setting {
    Setting {
        var,
        flag,
        default: None,
        help,
        secret: true,
    }
}

/// Every variable of `kozyr run`, in the order of `.env.example`.
pub const SETTINGS: &[Setting] = &[
    secret(
        "TELOXIDE_TOKEN",
        "teloxide-token",
        "Telegram bot token from BotFather (at least one of the two tokens)",
    ),
    secret(
        "DISCORD_TOKEN",
        "discord-token",
        "Discord bot token from the Developer Portal",
    ),
    setting(
        "DISCORD_API_URL",
        "discord-api-url",
        None,
        "A Discord-compatible REST API instead of Discord's (needs DISCORD_TOKEN)",
    ),
    setting(
        "DISCORD_GATEWAY_URL",
        "discord-gateway-url",
        None,
        "The gateway URL instead of what Discord names (needs DISCORD_TOKEN)",
    ),
    setting(
        "DISCORD_GUILD_ID",
        "discord-guild-id",
        None,
        "Register the slash commands in this one server only (needs DISCORD_TOKEN)",
    ),
    setting(
        "DISCORD_PUBLIC_KEY",
        "discord-public-key",
        None,
        "Turns on the HTTP interactions endpoint (needs DISCORD_TOKEN)",
    ),
    setting(
        "DISCORD_INTERACTIONS_LISTEN",
        "discord-interactions-listen",
        Some("0.0.0.0:8444"),
        "host:port of the interactions endpoint (needs DISCORD_PUBLIC_KEY)",
    ),
    setting(
        "DISCORD_SHARDS",
        "discord-shards",
        None,
        "Gateway shards this process runs: A-B/N or A/N (default: all Discord recommends)",
    ),
    setting(
        "DATABASE_URL",
        "database-url",
        Some(DEFAULT_DATABASE_URL),
        "The SQLite database, created on first start",
    ),
    setting(
        "KOZYR_SQLITE_SYNCHRONOUS",
        "sqlite-synchronous",
        Some("full"),
        "SQLite durability: full or normal",
    ),
    setting(
        "TELOXIDE_API_URL",
        "teloxide-api-url",
        None,
        "A self-hosted Bot API server instead of api.telegram.org",
    ),
    setting(
        "RUST_LOG",
        "log",
        Some("info"),
        "Log level and filters (tracing EnvFilter syntax)",
    ),
    setting(
        "KOZYR_LOG_FORMAT",
        "log-format",
        Some("text"),
        "Log format: text or json",
    ),
    setting(
        "KOZYR_METRICS_LISTEN",
        "metrics-listen",
        None,
        "host:port to serve Prometheus metrics on (GET /metrics); off when unset",
    ),
    setting(
        "KOZYR_HEALTH_FILE",
        "health-file",
        None,
        "The heartbeat file `kozyr healthcheck` reads (default: kozyr.alive beside the database)",
    ),
    setting(
        "KOZYR_LANGUAGE",
        "language",
        Some("en"),
        "Language of chats and players whose language is unknown: en, ru, pt or ro",
    ),
    setting(
        "KOZYR_TURN_SECONDS",
        "turn-seconds",
        Some("60"),
        "Turn timer of new tables, 10-3600 seconds; 0 or off for none",
    ),
    setting(
        "WEBHOOK_URL",
        "webhook-url",
        None,
        "Webhook mode: the https:// URL Telegram posts to (long polling when unset)",
    ),
    setting(
        "WEBHOOK_LISTEN",
        "webhook-listen",
        Some("0.0.0.0:8443"),
        "host:port the webhook server listens on (needs WEBHOOK_URL)",
    ),
    secret(
        "WEBHOOK_SECRET",
        "webhook-secret",
        "Checked in Telegram's X-Telegram-Bot-Api-Secret-Token (needs WEBHOOK_URL)",
    ),
    setting(
        "KOZYR_AI_PLAYER",
        "ai-player",
        Some("search"),
        "The AI player: random, heuristic or search",
    ),
    setting(
        "KOZYR_AI_THINK_MS",
        "ai-think-ms",
        Some("300"),
        "How long the search AI thinks per move, 10-10000 ms",
    ),
    setting(
        "KOZYR_TELEGRAM_RATE",
        "telegram-rate",
        Some("30"),
        "The most Telegram messages sent and edited a second, all chats together",
    ),
    setting(
        "KOZYR_WEBAPP_URL",
        "webapp-url",
        None,
        "The Telegram Mini App's public https:// address; off when unset (needs TELOXIDE_TOKEN)",
    ),
    setting(
        "KOZYR_WEBAPP_LISTEN",
        "webapp-listen",
        Some("127.0.0.1:8445"),
        "host:port the Mini App's server listens on (needs KOZYR_WEBAPP_URL)",
    ),
    setting(
        "KOZYR_WEBAPP_SHORT_NAME",
        "webapp-short-name",
        None,
        "The Mini App's short name registered with BotFather, for links from groups (needs KOZYR_WEBAPP_URL)",
    ),
];

/// Settings that only mean something with another one set.
const DEPENDENT: &[(&str, &str)] = &[
    ("DISCORD_API_URL", "DISCORD_TOKEN"),
    ("DISCORD_GATEWAY_URL", "DISCORD_TOKEN"),
    ("DISCORD_GUILD_ID", "DISCORD_TOKEN"),
    ("DISCORD_PUBLIC_KEY", "DISCORD_TOKEN"),
    ("DISCORD_INTERACTIONS_LISTEN", "DISCORD_PUBLIC_KEY"),
    ("DISCORD_SHARDS", "DISCORD_TOKEN"),
    ("WEBHOOK_LISTEN", "WEBHOOK_URL"),
    ("WEBHOOK_SECRET", "WEBHOOK_URL"),
    ("KOZYR_WEBAPP_URL", "TELOXIDE_TOKEN"),
    ("KOZYR_WEBAPP_LISTEN", "KOZYR_WEBAPP_URL"),
    ("KOZYR_WEBAPP_SHORT_NAME", "KOZYR_WEBAPP_URL"),
];

/// `DISCORD_API_URL` as requests are built on it: `scheme://host[:port]`
/// of an http(s) URL without a path, query or fragment (a trailing `/`
/// is let be); `None` for anything else.
fn api_base(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let bare = matches!(parsed.scheme(), "http" | "https")
        && parsed.host_str().is_some()
        && parsed.path() == "/"
        && parsed.query().is_none()
        && parsed.fragment().is_none()
        && parsed.username().is_empty();
    bare.then(|| parsed.as_str().trim_end_matches('/').to_owned())
}

/// A listen address: `ip:port`, or `host:port` resolved now (an IPv4
/// address preferred, as `localhost` means to most admins). The error
/// names `var` and gives `example`'s port.
fn listen_addr(var: &'static str, value: &str, port: u16) -> Result<SocketAddr, ConfigError> {
    use std::net::ToSocketAddrs;
    if let Ok(addr) = value.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let malformed = || ConfigError::Malformed {
        var,
        why: format!("expected host:port, such as 0.0.0.0:{port} or localhost:{port}"),
    };
    let (host, p) = value.rsplit_once(':').ok_or_else(malformed)?;
    if host.is_empty() || p.parse::<u16>().is_err() {
        return Err(malformed());
    }
    let addrs: Vec<SocketAddr> = value
        .to_socket_addrs()
        .map_err(|e| ConfigError::Malformed {
            var,
            why: format!("cannot resolve {host}: {e}"),
        })?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| ConfigError::Malformed {
            var,
            why: format!("{host} has no address"),
        })
}

/// A variable that is missing or malformed; the message names it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{0} is not set (see .env.example)")]
    Missing(&'static str),
    #[error("{var} is malformed: {why}")]
    Malformed { var: &'static str, why: String },
    #[error(
        "TELOXIDE_TOKEN still holds the example value from .env.example: \
         put your token from BotFather (https://t.me/BotFather, /newbot) in TELOXIDE_TOKEN"
    )]
    PlaceholderToken,
}

pub const DEFAULT_DATABASE_URL: &str = "sqlite://kozyr.db";

impl Config {
    /// The store of this configuration (`DATABASE_URL`,
    /// `KOZYR_SQLITE_SYNCHRONOUS`).
    pub fn store_options(&self) -> kozyr_store::StoreOptions {
        kozyr_store::StoreOptions {
            synchronous: self.synchronous,
            ..kozyr_store::StoreOptions::new(self.database_url.clone())
        }
    }

    /// Reads the configuration through `var`, e.g. `|k| std::env::var(k).ok()`.
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |k: &str| {
            var(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let bad = |var: &'static str, why: String| ConfigError::Malformed { var, why };

        let token = match get("TELOXIDE_TOKEN") {
            None => None,
            Some(t) if t == PLACEHOLDER_TOKEN || t.contains("replace-with-your-token") => {
                return Err(ConfigError::PlaceholderToken);
            }
            Some(t) => Some(Token::parse(&t).map_err(|why| bad("TELOXIDE_TOKEN", why.into()))?),
        };
        let discord = match get("DISCORD_TOKEN") {
            None => None,
            Some(t) => {
                let token =
                    DiscordToken::parse(&t).map_err(|why| bad("DISCORD_TOKEN", why.into()))?;
                let api_url = match get("DISCORD_API_URL") {
                    None => None,
                    Some(u) => Some(api_base(&u).ok_or_else(|| {
                        bad(
                            "DISCORD_API_URL",
                            "expected http(s)://host[:port] without a path".into(),
                        )
                    })?),
                };
                let gateway_url = get("DISCORD_GATEWAY_URL");
                if let Some(u) = &gateway_url
                    && !(u.starts_with("ws://") || u.starts_with("wss://"))
                {
                    return Err(bad("DISCORD_GATEWAY_URL", "expected a ws(s) URL".into()));
                }
                let guild_id = match get("DISCORD_GUILD_ID") {
                    None => None,
                    Some(g) => Some(g.parse::<u64>().ok().filter(|&g| g > 0).ok_or_else(|| {
                        bad("DISCORD_GUILD_ID", "expected a server's numeric id".into())
                    })?),
                };
                let public_key = get("DISCORD_PUBLIC_KEY");
                if let Some(k) = &public_key
                    && (k.len() != 64 || !k.bytes().all(|b| b.is_ascii_hexdigit()))
                {
                    return Err(bad(
                        "DISCORD_PUBLIC_KEY",
                        "expected the 64 hex digits of the application's public key".into(),
                    ));
                }
                let interactions_listen = listen_addr(
                    "DISCORD_INTERACTIONS_LISTEN",
                    &get("DISCORD_INTERACTIONS_LISTEN").unwrap_or_else(|| "0.0.0.0:8444".into()),
                    8444,
                )?;
                let shards = match get("DISCORD_SHARDS") {
                    None => None,
                    Some(s) => {
                        Some(ShardRange::parse(&s).map_err(|why| bad("DISCORD_SHARDS", why))?)
                    }
                };
                Some(DiscordConfig {
                    token,
                    api_url,
                    gateway_url,
                    guild_id,
                    public_key,
                    interactions_listen,
                    shards,
                })
            }
        };
        if token.is_none() && discord.is_none() {
            return Err(ConfigError::Missing("TELOXIDE_TOKEN or DISCORD_TOKEN"));
        }

        let database_url = get("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.into());
        // SQLite, or PostgreSQL for a bot that outgrew one file (`kozyr_store::Backend`).
        if !["sqlite:", "postgres://", "postgresql://"]
            .iter()
            .any(|scheme| database_url.starts_with(scheme))
        {
            return Err(bad(
                "DATABASE_URL",
                "expected sqlite://PATH or postgres://USER@HOST/DATABASE".into(),
            ));
        }
        let api_url = match get("TELOXIDE_API_URL") {
            None => None,
            Some(u) => Some(
                url::Url::parse(&u)
                    .ok()
                    .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
                    .ok_or_else(|| bad("TELOXIDE_API_URL", "expected an http(s) URL".into()))?,
            ),
        };
        // Exactly the four codes: a tag such as `en-US` is a client's, not a setting.
        let default_language = match get("KOZYR_LANGUAGE") {
            None => Lang::En,
            Some(code) => Lang::ALL
                .into_iter()
                .find(|l| l.code().eq_ignore_ascii_case(&code))
                .ok_or_else(|| {
                    let codes: Vec<&str> = Lang::ALL.iter().map(|l| l.code()).collect();
                    bad(
                        "KOZYR_LANGUAGE",
                        format!("expected one of {}", codes.join(", ")),
                    )
                })?,
        };
        let default_turn_timer = match get("KOZYR_TURN_SECONDS")
            .map(|s| s.to_ascii_lowercase())
            .as_deref()
        {
            None => TurnTimer::from_secs(60),
            Some("0") | Some("none") | Some("off") => None,
            Some(s) => match s.parse::<u32>() {
                Ok(n) if (10..=3600).contains(&n) => TurnTimer::from_secs(n),
                _ => {
                    return Err(bad(
                        "KOZYR_TURN_SECONDS",
                        "expected 10-3600 seconds, or 0 for no limit".into(),
                    ));
                }
            },
        };
        let synchronous = match get("KOZYR_SQLITE_SYNCHRONOUS")
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("full") => Synchronous::Full,
            Some("normal") => Synchronous::Normal,
            Some(_) => {
                return Err(bad(
                    "KOZYR_SQLITE_SYNCHRONOUS",
                    "expected full or normal".into(),
                ));
            }
        };
        let ai_player = match get("KOZYR_AI_PLAYER") {
            None => AgentKind::Search,
            Some(name) => name
                .to_ascii_lowercase()
                .parse::<AgentKind>()
                .map_err(|_| {
                    bad(
                        "KOZYR_AI_PLAYER",
                        format!("expected one of {}", AgentKind::names()),
                    )
                })?,
        };
        let ai_think = match get("KOZYR_AI_THINK_MS") {
            None => Duration::from_millis(300),
            Some(s) => match s.parse::<u64>() {
                Ok(ms) if (10..=10_000).contains(&ms) => Duration::from_millis(ms),
                _ => {
                    return Err(bad(
                        "KOZYR_AI_THINK_MS",
                        "expected 10-10000 milliseconds".into(),
                    ));
                }
            },
        };
        let telegram_rate = match get("KOZYR_TELEGRAM_RATE") {
            None => 30,
            Some(s) => match s.parse::<u32>() {
                Ok(n) if (1..=1000).contains(&n) => n,
                _ => {
                    return Err(bad(
                        "KOZYR_TELEGRAM_RATE",
                        "expected 1-1000 messages a second".into(),
                    ));
                }
            },
        };
        let update_mode = match get("WEBHOOK_URL") {
            None => UpdateMode::LongPolling,
            Some(url) => {
                let url = url::Url::parse(&url)
                    .ok()
                    .filter(|u| u.scheme() == "https" && u.host_str().is_some())
                    .ok_or_else(|| {
                        bad("WEBHOOK_URL", "Telegram only posts to https:// URLs".into())
                    })?;
                let listen = listen_addr(
                    "WEBHOOK_LISTEN",
                    &get("WEBHOOK_LISTEN").unwrap_or_else(|| "0.0.0.0:8443".into()),
                    8443,
                )?;
                let secret = get("WEBHOOK_SECRET");
                if let Some(s) = &secret
                    && (s.len() > 256
                        || !s
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
                {
                    return Err(bad(
                        "WEBHOOK_SECRET",
                        "1-256 characters of A-Z a-z 0-9 _ -".into(),
                    ));
                }
                UpdateMode::Webhook {
                    url,
                    listen,
                    secret,
                }
            }
        };
        let log_format = LogFormat::from_lookup(&var)?;
        let metrics_listen = match get("KOZYR_METRICS_LISTEN") {
            None => None,
            Some(a) => Some(listen_addr("KOZYR_METRICS_LISTEN", &a, 9090)?),
        };
        let webapp = match get("KOZYR_WEBAPP_URL") {
            Some(url) if token.is_some() => {
                let parsed = url::Url::parse(&url).ok();
                if parsed
                    .as_ref()
                    .is_none_or(|u| u.scheme() != "https" || u.host_str().is_none())
                {
                    return Err(bad(
                        "KOZYR_WEBAPP_URL",
                        "Telegram opens Mini Apps only at https:// addresses".into(),
                    ));
                }
                let listen = listen_addr(
                    "KOZYR_WEBAPP_LISTEN",
                    &get("KOZYR_WEBAPP_LISTEN").unwrap_or_else(|| "127.0.0.1:8445".into()),
                    8445,
                )?;
                let short_name = get("KOZYR_WEBAPP_SHORT_NAME");
                if let Some(s) = &short_name
                    && (!(3..=30).contains(&s.len())
                        || !s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                {
                    return Err(bad(
                        "KOZYR_WEBAPP_SHORT_NAME",
                        "3-30 characters of A-Z a-z 0-9 _, as BotFather gave it".into(),
                    ));
                }
                Some(WebAppConfig {
                    url,
                    listen,
                    short_name,
                })
            }
            _ => None,
        };
        let ignored = DEPENDENT
            .iter()
            .filter(|(var, needs)| get(var).is_some() && get(needs).is_none())
            .map(|&(var, needs)| Ignored { var, needs })
            .collect();
        let changed = SETTINGS
            .iter()
            .filter(|s| !s.secret)
            .filter_map(|s| {
                let value = get(s.var)?;
                let default = s.default.is_some_and(|d| d.eq_ignore_ascii_case(&value));
                (!default).then_some((s.var, value))
            })
            .collect();
        Ok(Config {
            token,
            discord,
            database_url,
            api_url,
            log: get("RUST_LOG").unwrap_or_else(|| "info".into()),
            default_language,
            default_turn_timer,
            synchronous,
            update_mode,
            ai_player,
            ai_think,
            log_format,
            metrics_listen,
            telegram_rate,
            health_file: get("KOZYR_HEALTH_FILE"),
            webapp,
            ignored,
            changed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const TOKEN: &str = "123456789:AAE-abcdefghijklmnopqrstuvwxyz_012";

    fn check(vars: &[(&str, &str)], expect: Result<(), &str>) -> Option<Config> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let got = Config::from_lookup(|k| map.get(k).cloned());
        match (&got, expect) {
            (Ok(_), Ok(())) => {}
            (Err(e), Err(want)) => assert_eq!(e.to_string(), want),
            _ => panic!("{vars:?}: expected {expect:?}, got {got:?}"),
        }
        got.ok()
    }

    #[test]
    fn variables() {
        check(
            &[],
            Err("TELOXIDE_TOKEN or DISCORD_TOKEN is not set (see .env.example)"),
        );
        check(
            &[("TELOXIDE_TOKEN", "  ")],
            Err("TELOXIDE_TOKEN or DISCORD_TOKEN is not set (see .env.example)"),
        );
        check(
            &[("TELOXIDE_TOKEN", "abc:def")],
            Err("TELOXIDE_TOKEN is malformed: the part before ':' must be the bot's numeric id"),
        );
        check(
            &[("TELOXIDE_TOKEN", "12:short")],
            Err(
                "TELOXIDE_TOKEN is malformed: the part after ':' must be the secret BotFather gave you",
            ),
        );
        let c = check(&[("TELOXIDE_TOKEN", TOKEN)], Ok(())).unwrap();
        assert_eq!(c.database_url, DEFAULT_DATABASE_URL);
        // The default is a file in the working directory.
        assert_eq!(
            kozyr_store::database_path(&c.database_url),
            Some(std::path::absolute("kozyr.db").unwrap())
        );
        assert_eq!(c.update_mode, UpdateMode::LongPolling);
        assert_eq!(c.default_turn_timer, TurnTimer::from_secs(60));
        assert_eq!(c.default_language, Lang::En);
        assert_eq!(c.synchronous, Synchronous::Full);
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("DATABASE_URL", "mysql://x")],
            Err(
                "DATABASE_URL is malformed: expected sqlite://PATH or postgres://USER@HOST/DATABASE",
            ),
        );
        let c = check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("DATABASE_URL", "postgres://kozyr@db/kozyr"),
            ],
            Ok(()),
        )
        .unwrap();
        assert_eq!(c.database_url, "postgres://kozyr@db/kozyr");
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_LANGUAGE", "de")],
            Err("KOZYR_LANGUAGE is malformed: expected one of en, ru, pt, ro"),
        );
        let c = check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_TURN_SECONDS", "0")],
            Ok(()),
        )
        .unwrap();
        assert_eq!(c.default_turn_timer, None);
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_TURN_SECONDS", "5")],
            Err("KOZYR_TURN_SECONDS is malformed: expected 10-3600 seconds, or 0 for no limit"),
        );
        for bad_hook in ["http://x", "https://", "https//x", "https://x y/hook"] {
            check(
                &[("TELOXIDE_TOKEN", TOKEN), ("WEBHOOK_URL", bad_hook)],
                Err("WEBHOOK_URL is malformed: Telegram only posts to https:// URLs"),
            );
        }
        for bad_api in ["127.0.0.1:8081", "ftp://x", "http://", "http://x y"] {
            check(
                &[("TELOXIDE_TOKEN", TOKEN), ("TELOXIDE_API_URL", bad_api)],
                Err("TELOXIDE_API_URL is malformed: expected an http(s) URL"),
            );
        }
        let c = check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("WEBHOOK_URL", "https://bot.example/hook"),
                ("WEBHOOK_SECRET", "s3cret"),
            ],
            Ok(()),
        )
        .unwrap();
        assert!(
            matches!(c.update_mode, UpdateMode::Webhook { ref secret, .. } if secret.as_deref() == Some("s3cret"))
        );
        check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("WEBHOOK_URL", "https://x/"),
                ("WEBHOOK_LISTEN", "nope"),
            ],
            Err(
                "WEBHOOK_LISTEN is malformed: expected host:port, such as 0.0.0.0:8443 or localhost:8443",
            ),
        );
        check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("KOZYR_SQLITE_SYNCHRONOUS", "off"),
            ],
            Err("KOZYR_SQLITE_SYNCHRONOUS is malformed: expected full or normal"),
        );
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_AI_PLAYER", "genius")],
            Err("KOZYR_AI_PLAYER is malformed: expected one of random, heuristic, search"),
        );
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_AI_THINK_MS", "5")],
            Err("KOZYR_AI_THINK_MS is malformed: expected 10-10000 milliseconds"),
        );
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_TELEGRAM_RATE", "0")],
            Err("KOZYR_TELEGRAM_RATE is malformed: expected 1-1000 messages a second"),
        );
        let c = check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_TELEGRAM_RATE", "20")],
            Ok(()),
        )
        .unwrap();
        assert_eq!(c.telegram_rate, 20);
        let c = check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("KOZYR_AI_PLAYER", "heuristic"),
                ("KOZYR_AI_THINK_MS", "50"),
            ],
            Ok(()),
        )
        .unwrap();
        assert_eq!(
            (c.ai_player.as_str(), c.ai_think),
            ("heuristic", Duration::from_millis(50))
        );
    }

    #[test]
    fn discord_variables() {
        const DISCORD: &str =
            "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789";
        let c = check(&[("DISCORD_TOKEN", DISCORD)], Ok(())).unwrap();
        assert!(c.token.is_none());
        let d = c.discord.unwrap();
        assert_eq!(d.token.application_id(), 123456789012345678);
        assert_eq!((d.api_url, d.gateway_url, d.guild_id), (None, None, None));
        let shown = format!("{:?} {}", d.token, d.token);
        assert!(!shown.contains("abcdefghij"), "{shown}");
        check(
            &[("DISCORD_TOKEN", "abc")],
            Err(
                "DISCORD_TOKEN is malformed: expected three parts separated by dots, as the Developer Portal gives it",
            ),
        );
        check(
            &[(
                "DISCORD_TOKEN",
                "bm9wZQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789",
            )],
            Err(
                "DISCORD_TOKEN is malformed: the part before the first '.' must be the application's id in base64",
            ),
        );
        check(
            &[("DISCORD_TOKEN", DISCORD), ("DISCORD_GUILD_ID", "x")],
            Err("DISCORD_GUILD_ID is malformed: expected a server's numeric id"),
        );
        check(
            &[
                ("DISCORD_TOKEN", DISCORD),
                ("DISCORD_GATEWAY_URL", "http://x"),
            ],
            Err("DISCORD_GATEWAY_URL is malformed: expected a ws(s) URL"),
        );
        let c = check(
            &[
                ("DISCORD_TOKEN", DISCORD),
                ("TELOXIDE_TOKEN", TOKEN),
                ("DISCORD_API_URL", "http://127.0.0.1:9"),
                ("DISCORD_GUILD_ID", "42"),
            ],
            Ok(()),
        )
        .unwrap();
        assert!(c.token.is_some());
        let d = c.discord.unwrap();
        assert_eq!(
            (d.api_url.as_deref(), d.guild_id),
            (Some("http://127.0.0.1:9"), Some(42))
        );
        // Requests are built as `{url}/api/v10/…`: a path would be lost.
        for bad_api in [
            "http://127.0.0.1:9/api",
            "127.0.0.1:9",
            "http://x?q=1",
            "ws://x",
        ] {
            check(
                &[("DISCORD_TOKEN", DISCORD), ("DISCORD_API_URL", bad_api)],
                Err("DISCORD_API_URL is malformed: expected http(s)://host[:port] without a path"),
            );
        }
        let c = check(
            &[
                ("DISCORD_TOKEN", DISCORD),
                ("DISCORD_API_URL", "https://discord.example/"),
            ],
            Ok(()),
        );
        assert_eq!(
            c.unwrap().discord.unwrap().api_url.as_deref(),
            Some("https://discord.example")
        );
    }

    #[test]
    fn discord_shards() {
        const DISCORD: &str =
            "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789";
        const EXPECTED: &str = "expected A-B/N (this process runs shards A to B of N, \
            such as 0-3/8) or A/N (one shard), with A <= B < N";
        /// (first, last, total, as the start-up line shows it)
        type Parsed = (u32, u32, u32, &'static str);
        let cases: &[(&str, Result<Parsed, String>)] = &[
            ("0-3/8", Ok((0, 3, 8, "0-3/8"))),
            ("1/2", Ok((1, 1, 2, "1/2"))),
            ("0/1", Ok((0, 0, 1, "0/1"))),
            ("2-2/3", Ok((2, 2, 3, "2/3"))),
            ("4-7/8", Ok((4, 7, 8, "4-7/8"))),
            ("8/8", Err(EXPECTED.into())),
            ("3-1/8", Err(EXPECTED.into())),
            ("0-8/8", Err(EXPECTED.into())),
            (
                "0/0",
                Err(format!("there must be at least one shard; {EXPECTED}")),
            ),
            ("2", Err(EXPECTED.into())),
            ("-1/2", Err(EXPECTED.into())),
            ("0--1/2", Err(EXPECTED.into())),
            ("a-b/c", Err(EXPECTED.into())),
            ("+1/2", Err(EXPECTED.into())),
            ("0 - 1/2", Err(EXPECTED.into())),
            ("0-1/2/3", Err(EXPECTED.into())),
            (
                "0/99999999999",
                Err(format!("99999999999 is too large; {EXPECTED}")),
            ),
        ];
        for (value, want) in cases {
            let error = want
                .as_ref()
                .err()
                .map(|why| format!("DISCORD_SHARDS is malformed: {why}"));
            let got = check(
                &[("DISCORD_TOKEN", DISCORD), ("DISCORD_SHARDS", value)],
                error.as_deref().map_or(Ok(()), Err),
            );
            if let Ok((first, last, total, shown)) = want {
                let range = got.and_then(|c| c.discord).and_then(|d| d.shards);
                assert_eq!(
                    range,
                    Some(ShardRange {
                        first: *first,
                        last: *last,
                        total: *total
                    }),
                    "{value}"
                );
                assert_eq!(range.map(|r| r.to_string()).as_deref(), Some(*shown));
            }
        }
        // Unset: every recommended shard.
        let c = check(&[("DISCORD_TOKEN", DISCORD)], Ok(())).unwrap();
        assert_eq!(c.discord.and_then(|d| d.shards), None);
    }

    #[test]
    fn the_example_token_asks_for_a_real_one() {
        check(
            &[("TELOXIDE_TOKEN", PLACEHOLDER_TOKEN)],
            Err(
                "TELOXIDE_TOKEN still holds the example value from .env.example: put your token \
                 from BotFather (https://t.me/BotFather, /newbot) in TELOXIDE_TOKEN",
            ),
        );
        // The example file's line is what a copied .env holds.
        let example = include_str!("../../../.env.example");
        assert!(example.contains(&format!("TELOXIDE_TOKEN={PLACEHOLDER_TOKEN}\n")));
    }

    #[test]
    fn log_format_colours_and_metrics_address() {
        let c = check(&[("TELOXIDE_TOKEN", TOKEN)], Ok(())).unwrap();
        assert_eq!((c.log_format, c.metrics_listen), (LogFormat::Text, None));
        let c = check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("KOZYR_LOG_FORMAT", "JSON"),
                ("KOZYR_METRICS_LISTEN", "127.0.0.1:9090"),
            ],
            Ok(()),
        )
        .unwrap();
        assert_eq!(c.log_format, LogFormat::Json);
        assert_eq!(c.metrics_listen, Some("127.0.0.1:9090".parse().unwrap()));
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_LOG_FORMAT", "xml")],
            Err("KOZYR_LOG_FORMAT is malformed: expected text or json"),
        );
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_METRICS_LISTEN", "9090")],
            Err(
                "KOZYR_METRICS_LISTEN is malformed: expected host:port, such as 0.0.0.0:9090 or localhost:9090",
            ),
        );
        assert!(log_colours(true, None));
        assert!(log_colours(true, Some("")));
        assert!(!log_colours(true, Some("1")));
        assert!(!log_colours(false, None));
    }

    #[test]
    fn words_are_case_insensitive_and_addresses_may_be_host_names() {
        let c = check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("KOZYR_LANGUAGE", "RU"),
                ("KOZYR_TURN_SECONDS", "Off"),
                ("KOZYR_AI_PLAYER", "Heuristic"),
                ("KOZYR_SQLITE_SYNCHRONOUS", "NORMAL"),
                ("KOZYR_METRICS_LISTEN", "localhost:9090"),
                ("WEBHOOK_URL", "https://bot.example/hook"),
                ("WEBHOOK_LISTEN", "localhost:8443"),
            ],
            Ok(()),
        )
        .unwrap();
        assert_eq!(c.default_language, Lang::Ru);
        assert_eq!(c.default_turn_timer, None);
        assert_eq!(c.ai_player, AgentKind::Heuristic);
        assert_eq!(c.synchronous, Synchronous::Normal);
        assert_eq!(c.metrics_listen, Some("127.0.0.1:9090".parse().unwrap()));
        assert!(
            matches!(c.update_mode, UpdateMode::Webhook { listen, .. } if listen == "127.0.0.1:8443".parse().unwrap())
        );
        check(
            &[("TELOXIDE_TOKEN", TOKEN), ("KOZYR_METRICS_LISTEN", ":9090")],
            Err(
                "KOZYR_METRICS_LISTEN is malformed: expected host:port, such as 0.0.0.0:9090 or localhost:9090",
            ),
        );
    }

    #[test]
    fn settings_without_the_one_they_need_are_reported() {
        let c = check(
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("DISCORD_GUILD_ID", "42"),
                ("WEBHOOK_SECRET", "s3cret"),
                ("KOZYR_LANGUAGE", "en"),
                ("KOZYR_TURN_SECONDS", "90"),
            ],
            Ok(()),
        )
        .unwrap();
        let ignored: Vec<String> = c.ignored.iter().map(|i| i.to_string()).collect();
        assert_eq!(
            ignored,
            [
                "DISCORD_GUILD_ID is set but ignored: it needs DISCORD_TOKEN, which is not set",
                "WEBHOOK_SECRET is set but ignored: it needs WEBHOOK_URL, which is not set",
            ]
        );
        // Defaults and secrets are left out of the start-up line's list.
        assert_eq!(
            c.changed,
            [
                ("DISCORD_GUILD_ID", "42".to_owned()),
                ("KOZYR_TURN_SECONDS", "90".to_owned())
            ]
        );
    }

    #[test]
    fn every_variable_read_is_listed_and_documented() {
        let asked = std::sync::Mutex::new(std::collections::BTreeSet::new());
        let _ = Config::from_lookup(|k| {
            asked.lock().unwrap().insert(k.to_owned());
            match k {
                "TELOXIDE_TOKEN" => Some(TOKEN.to_owned()),
                "DISCORD_TOKEN" => Some(
                    "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789".into(),
                ),
                "WEBHOOK_URL" => Some("https://bot.example/hook".into()),
                _ => None,
            }
        })
        .unwrap();
        let listed: std::collections::BTreeSet<String> =
            SETTINGS.iter().map(|s| s.var.to_owned()).collect();
        assert_eq!(*asked.lock().unwrap(), listed);
        let example = include_str!("../../../.env.example");
        let readme = include_str!("../../../README.md");
        for s in SETTINGS {
            assert!(
                example.contains(&format!("{}=", s.var)),
                "{} not in .env.example",
                s.var
            );
            assert!(readme.contains(s.var), "{} not in README.md", s.var);
        }
    }

    #[test]
    fn the_token_never_shows() {
        let c = check(&[("TELOXIDE_TOKEN", TOKEN)], Ok(())).unwrap();
        let shown = format!("{c:?} {}", c.token.as_ref().unwrap());
        assert!(!shown.contains("AAE-abc"), "{shown}");
        assert!(shown.contains("123456789"));
    }
}
