//! User-facing text in English, Russian, Portuguese and Romanian, from the
//! fluent files under this crate's `locales/` (compiled in with fluent-templates).
//!
//! Every message is named by a [`Key`] constant in [`key`], which also
//! lists the variables the message takes, so tests can check that every key
//! exists in every language and formats without errors, and code cannot
//! name a message that does not exist.
//!
//! Messages are Telegram HTML templates: they may contain `<b>` and the
//! like, and variables are inserted by [`tr_html`] escaped (text) or as is
//! ([`Arg::html`], already-rendered markup). Keys used in plain contexts —
//! buttons, popups, command descriptions — hold no markup at all.
//!
//! ```
//! use kozyr_i18n::{Args, Lang, key, tr};
//! let ru = Lang::from_telegram(Some("ru-RU"));
//! assert_eq!(tr(ru, key::TABLE_STOCK, &Args::new().num("count", 3)), "В колоде: 3 карты");
//! assert_eq!(tr(ru, key::TABLE_STOCK, &Args::new().num("count", 5)), "В колоде: 5 карт");
//! ```

use std::borrow::Cow;
use std::collections::HashMap;

use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, StaticLoader, langid};
use serde::{Deserialize, Serialize};

fluent_templates::static_loader! {
    static LOCALES = {
        locales: "./locales",
        fallback_language: "en",
        customise: |bundle| {
            // Unicode isolation marks around variables would show up in
            // Telegram as stray characters; names here are short and inline.
            bundle.set_use_isolating(false);
            // Each bundle is new, so the name is free; nothing to handle.
            let _ = bundle.add_function("RO_PLURAL", romanian_plural);
        },
    };
}

/// Romanian's plural category as CLDR defines it, for `locales/ro`:
/// intl_pluralrules 7.0.2 drops the `n % 100` from the "few" rule, which
/// would print "102 de puncte" where Romanian says "102 puncte".
///
/// one: 1; few: 0, 2–19, and 101–119, 201–219, …; other: the rest ("20 de").
fn romanian_plural<'a>(
    positional: &[FluentValue<'a>],
    _named: &fluent_templates::fluent_bundle::FluentArgs,
) -> FluentValue<'a> {
    let Some(FluentValue::Number(n)) = positional.first() else {
        return FluentValue::Error;
    };
    let fraction =
        n.value.fract() != 0.0 || n.options.minimum_fraction_digits.is_some_and(|d| d > 0);
    let whole = n.value.abs();
    let category = if whole == 1.0 && !fraction {
        "one"
    } else if fraction || whole == 0.0 || (1.0..=19.0).contains(&(whole % 100.0)) {
        "few"
    } else {
        "other"
    };
    FluentValue::from(category)
}

/// A language kozyr speaks.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Ru,
    Pt,
    Ro,
}

static EN: LanguageIdentifier = langid!("en");
static RU: LanguageIdentifier = langid!("ru");
static PT: LanguageIdentifier = langid!("pt");
static RO: LanguageIdentifier = langid!("ro");

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::En, Lang::Ru, Lang::Pt, Lang::Ro];

    /// The ISO 639-1 code: `en`, `ru`, `pt`, `ro`.
    pub const fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
            Lang::Pt => "pt",
            Lang::Ro => "ro",
        }
    }

    /// Parses a language tag such as Telegram's `language_code` (`pt-br`,
    /// `ru`, `en-US`); only the primary subtag counts. Moldovan (`mo`) is
    /// Romanian.
    ///
    /// ```
    /// use kozyr_i18n::Lang;
    /// assert_eq!(Lang::from_code("pt-br"), Some(Lang::Pt));
    /// assert_eq!(Lang::from_code("RO"), Some(Lang::Ro));
    /// assert_eq!(Lang::from_code("de"), None);
    /// ```
    pub fn from_code(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "ru" => Some(Lang::Ru),
            "pt" => Some(Lang::Pt),
            "ro" | "mo" => Some(Lang::Ro),
            _ => None,
        }
    }

    /// The language for a Telegram user's `language_code`, English when
    /// it is missing or one kozyr does not speak.
    pub fn from_telegram(language_code: Option<&str>) -> Lang {
        language_code.and_then(Lang::from_code).unwrap_or_default()
    }

    fn id(self) -> &'static LanguageIdentifier {
        match self {
            Lang::En => &EN,
            Lang::Ru => &RU,
            Lang::Pt => &PT,
            Lang::Ro => &RO,
        }
    }

    /// The language's name in itself (`Русский`), for language pickers.
    pub fn native_name(self) -> String {
        tr(self, key::LANGUAGE_NAME, &Args::new())
    }
}

/// Why a string is not a language kozyr speaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown language `{0}` (expected one of: en, ru, pt, ro)")]
pub struct ParseLangError(pub String);

impl std::str::FromStr for Lang {
    type Err = ParseLangError;
    fn from_str(s: &str) -> Result<Lang, ParseLangError> {
        Lang::from_code(s).ok_or_else(|| ParseLangError(s.chars().take(16).collect()))
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// A message id and the variables it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    id: &'static str,
    args: &'static [(&'static str, ArgKind)],
    plain: bool,
}

/// What a variable holds: plural forms select on numbers only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    Text,
    Num,
}

impl Key {
    pub const fn id(self) -> &'static str {
        self.id
    }

    /// The message's variables and what they hold.
    pub const fn args(self) -> &'static [(&'static str, ArgKind)] {
        self.args
    }

    /// Whether the message is shown as plain text (a button, a popup, a
    /// command description) and so must hold no markup.
    pub const fn is_plain(self) -> bool {
        self.plain
    }
}

/// A variable's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// Text from outside (a name, a title): escaped in HTML.
    Text(String),
    /// Markup kozyr rendered itself: inserted as is.
    Html(String),
    Number(i64),
}

impl Arg {
    pub fn html(markup: impl Into<String>) -> Arg {
        Arg::Html(markup.into())
    }
}

/// The variables of one message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Args(Vec<(&'static str, Arg)>);

impl Args {
    pub fn new() -> Args {
        Args::default()
    }

    /// Adds a text variable (escaped in HTML).
    pub fn text(mut self, name: &'static str, value: impl Into<String>) -> Args {
        self.0.push((name, Arg::Text(value.into())));
        self
    }

    /// Adds a variable holding markup kozyr rendered (not escaped).
    pub fn html(mut self, name: &'static str, markup: impl Into<String>) -> Args {
        self.0.push((name, Arg::Html(markup.into())));
        self
    }

    /// Adds a number; plural forms select on it.
    pub fn num(mut self, name: &'static str, value: impl Into<i64>) -> Args {
        self.0.push((name, Arg::Number(value.into())));
        self
    }

    /// Whether these are exactly the variables `key` declares, of the right kinds.
    pub fn matches(&self, key: Key) -> bool {
        self.0.len() == key.args.len()
            && key.args.iter().all(|&(name, kind)| {
                self.0.iter().any(|(n, a)| {
                    *n == name
                        && matches!(
                            (kind, a),
                            (ArgKind::Num, Arg::Number(_))
                                | (ArgKind::Text, Arg::Text(_) | Arg::Html(_))
                        )
                })
            })
    }

    fn to_fluent(&self, escape: bool) -> HashMap<Cow<'static, str>, FluentValue<'static>> {
        self.0
            .iter()
            .map(|(name, arg)| {
                let value = match arg {
                    Arg::Text(s) if escape => FluentValue::from(escape_html(s)),
                    Arg::Text(s) | Arg::Html(s) => FluentValue::from(s.clone()),
                    Arg::Number(n) => FluentValue::from(*n),
                };
                (Cow::Borrowed(*name), value)
            })
            .collect()
    }
}

/// Escapes text for Telegram's HTML parse mode.
///
/// ```
/// assert_eq!(kozyr_i18n::escape_html("<Tom & \"Jerry\">"), "&lt;Tom &amp; &quot;Jerry&quot;&gt;");
/// ```
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Why a message could not be formatted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("message `{key}` in `{lang}`: {reason}")]
pub struct FormatError {
    pub lang: Lang,
    pub key: &'static str,
    pub reason: String,
}

/// Formats `key` in `lang` exactly, without falling back to English.
pub fn try_format(lang: Lang, key: Key, args: &Args, html: bool) -> Result<String, FormatError> {
    LOCALES
        .lookup_single_language(lang.id(), key.id, Some(&args.to_fluent(html)))
        .map_err(|e| FormatError {
            lang,
            key: key.id,
            reason: e.to_string(),
        })
}

fn format(lang: Lang, key: Key, args: &Args, html: bool) -> String {
    debug_assert!(
        args.matches(key),
        "`{}` takes {:?}, got {:?}",
        key.id,
        key.args,
        args.0
    );
    match try_format(lang, key, args, html) {
        Ok(s) => s,
        Err(e) => {
            // Tests keep every language complete; should one slip through,
            // English is better than nothing, and the id better than a panic.
            tracing::warn!("{e}");
            try_format(Lang::En, key, args, html).unwrap_or_else(|_| key.id.to_owned())
        }
    }
}

/// The message as plain text (buttons, popups): variables go in as they are.
pub fn tr(lang: Lang, key: Key, args: &Args) -> String {
    format(lang, key, args, false)
}

/// The message as Telegram HTML: text variables are escaped.
pub fn tr_html(lang: Lang, key: Key, args: &Args) -> String {
    format(lang, key, args, true)
}

/// The loader, for tools that want to list what the files hold.
pub fn loader() -> &'static StaticLoader {
    &LOCALES
}

macro_rules! keys {
    ($( $(#[$meta:meta])* $kind:ident $name:ident = $id:literal $( ( $($arg:ident : $ty:ident),* ) )? ; )*) => {
        $(
            $(#[$meta])*
            pub const $name: Key = Key {
                id: $id,
                args: &[$($((stringify!($arg), keys!(@ty $ty))),*)?],
                plain: keys!(@plain $kind),
            };
        )*
        /// Every key, for tests and tools.
        pub const ALL: &[Key] = &[$($name),*];
    };
    (@plain plain) => { true };
    (@plain html) => { false };
    (@ty text) => { super::ArgKind::Text };
    (@ty num) => { super::ArgKind::Num };
}

/// Every message kozyr shows. `plain` keys are shown without markup.
pub mod key {
    use super::Key;

    keys! {
        // Languages and games.
        plain LANGUAGE_NAME = "language-name";
        plain GAME_KOZEL = "game-kozel";
        plain GAME_HEARTS = "game-hearts";
        plain SUIT_SPADES = "suit-spades";
        plain SUIT_HEARTS = "suit-hearts";
        plain SUIT_DIAMONDS = "suit-diamonds";
        plain SUIT_CLUBS = "suit-clubs";
        plain TEAM_NAME = "team-name" (first: text, second: text);
        plain AI_PLAYER = "ai-player" (number: num);
        plain AI_STAND_IN = "ai-stand-in" (name: text);

        // Command descriptions for setMyCommands.
        plain CMD_NEW = "cmd-new";
        plain CMD_KOZEL = "cmd-kozel";
        plain CMD_HEARTS = "cmd-hearts";
        plain CMD_HELP = "cmd-help";
        plain CMD_RULES = "cmd-rules";
        plain CMD_SCORE = "cmd-score";
        plain CMD_STATS = "cmd-stats";
        plain CMD_SETTINGS = "cmd-settings";
        plain CMD_STOP = "cmd-stop";
        plain CMD_KICK = "cmd-kick";
        plain CMD_LANG = "cmd-lang";

        // Help, rules, onboarding.
        // `*_HAND_BUTTON`: the same where a person's cards are a message
        // only they see, behind the table's "My hand" button
        // (`front::HandPlace`).
        html HELP_GROUP = "help-group";
        html HELP_GROUP_HAND_BUTTON = "help-group-hand-button";
        html HELP_PRIVATE = "help-private";
        html HELP_PRIVATE_HAND_BUTTON = "help-private-hand-button";
        html RULES_KOZEL = "rules-kozel";
        html RULES_HEARTS = "rules-hearts";
        html START_WELCOME = "start-welcome";
        html START_SEATED = "start-seated" (group: text, seat: num);
        html START_SEATED_HAND_BUTTON = "start-seated-hand-button" (group: text, seat: num);
        html GAME_BEGINS = "game-begins" (game: text);
        html GAME_BEGINS_HAND_BUTTON = "game-begins-hand-button" (game: text);
        html DEAL_BEGINS = "deal-begins" (deal: num, dealer: text, leader: text);

        // Lobby.
        html CHOOSE_GAME = "choose-game";
        html LOBBY_TITLE = "lobby-title" (game: text);
        html LOBBY_CREATED_BY = "lobby-created-by" (name: text);
        html LOBBY_TEAM = "lobby-team" (team: text);
        html LOBBY_PARTNERS = "lobby-partners";
        html LOBBY_SEAT = "lobby-seat" (seat: num, name: text);
        html LOBBY_SEAT_FREE = "lobby-seat-free" (seat: num);
        html LOBBY_WAITING = "lobby-waiting" (count: num);
        html LOBBY_READY = "lobby-ready";
        html LOBBY_UNREACHABLE = "lobby-unreachable" (name: text);
        plain BTN_JOIN = "btn-join";
        plain BTN_TAKE_SEAT = "btn-take-seat" (seat: num);
        plain BTN_LEAVE = "btn-leave";
        plain BTN_ADD_AI = "btn-add-ai";
        plain BTN_START = "btn-start";
        plain BTN_OPEN_DM = "btn-open-dm" (name: text);

        // The public table message.
        html TABLE_TITLE = "table-title" (game: text, deal: num);
        html TABLE_TRUMP = "table-trump" (card: text, suit: text);
        html TABLE_STOCK = "table-stock" (count: num);
        html TABLE_STOCK_EMPTY = "table-stock-empty";
        html TABLE_TURN = "table-turn" (name: text);
        html TABLE_TURN_ALLOWANCE = "table-turn-allowance" (name: text, seconds: num);
        html TABLE_TO_LEAD = "table-to-lead" (name: text);
        html TABLE_PLAYED = "table-played" (name: text, cards: text);
        html TABLE_PASSED = "table-passed" (name: text, backs: text);
        html TABLE_MOLODKA = "table-molodka" (name: text);
        html TABLE_LAST_TRICK = "table-last-trick" (name: text, points: num);
        html TABLE_TRICKS = "table-tricks" (team: text, count: num);
        html TABLE_SERIES = "table-series" (loss: num);
        html TABLE_DEFEAT = "table-defeat" (team: text, points: num);
        html TABLE_EGGS_SEEN = "table-eggs-seen";

        // Hearts at the table.
        plain HEARTS_PASS_LEFT = "hearts-pass-left";
        plain HEARTS_PASS_RIGHT = "hearts-pass-right";
        plain HEARTS_PASS_ACROSS = "hearts-pass-across";
        html HEARTS_NO_PASSING = "hearts-no-passing";
        html HEARTS_PASSING = "hearts-passing" (direction: text, count: num);
        html HEARTS_BROKEN = "hearts-broken";
        html HEARTS_TOTALS = "hearts-totals" (target: num);
        html HEARTS_TOTAL = "hearts-total" (name: text, points: num);
        html HEARTS_DEAL_POINTS = "hearts-deal-points" (name: text, points: num);

        // Results.
        html DEAL_OVER = "deal-over" (deal: num);
        html DEAL_TEAM_RESULT = "deal-team-result" (team: text, points: num, tricks: num);
        html DEAL_DEFEAT = "deal-defeat" (team: text, points: num);
        html DEAL_NO_TRICK = "deal-no-trick" (team: text);
        html DEAL_EGGS = "deal-eggs";
        html SERIES_SCORE = "series-score" (first: text, a: num, second: text, b: num);
        html SERIES_OVER = "series-over";
        html SERIES_GOAT = "series-goat" (team: text);
        html SERIES_GOAT_EGGS = "series-goat-eggs" (team: text);
        html HEARTS_DEAL_OVER = "hearts-deal-over" (deal: num);
        html HEARTS_SHOT_MOON = "hearts-shot-moon" (name: text);
        html HEARTS_GAME_OVER = "hearts-game-over";
        html HEARTS_RANK = "hearts-rank" (place: num, name: text, points: num);
        html HEARTS_WINNER = "hearts-winner" (name: text);

        // The private hand message.
        html HAND_TITLE = "hand-title" (game: text, group: text);
        html HAND_TABLE = "hand-table";
        html HAND_YOUR_LEAD = "hand-your-lead";
        html HAND_YOUR_ANSWER = "hand-your-answer" (count: num);
        html HAND_WAITING = "hand-waiting" (name: text);
        html HAND_TURN_ALLOWANCE = "hand-turn-allowance" (seconds: num);
        html HAND_SELECTED = "hand-selected" (cards: text);
        html HAND_SELECT_HINT = "hand-select-hint";
        html HAND_ONE_TAP_HINT = "hand-one-tap-hint";
        html HAND_CAN_BEAT = "hand-can-beat" (options: text);
        html HAND_CANNOT_BEAT = "hand-cannot-beat" (count: num);
        html HAND_SELECTION_BEATS = "hand-selection-beats";
        html HAND_SELECTION_PASSES = "hand-selection-passes";
        html HAND_MOLODKA = "hand-molodka";
        html HAND_YOU_PASSED = "hand-you-passed" (cards: text);
        html HAND_AI_PLAYING = "hand-ai-playing";
        html HAND_SERIES_OVER = "hand-series-over";
        html HAND_HEARTS_PASS = "hand-hearts-pass" (direction: text);
        html HAND_HEARTS_PASSED = "hand-hearts-passed" (cards: text);
        html HAND_HEARTS_RECEIVED = "hand-hearts-received" (cards: text);
        html HAND_HEARTS_PLAY = "hand-hearts-play";
        html HAND_HEARTS_UNPLAYABLE = "hand-hearts-unplayable" (mark: text);
        plain BTN_LEAD = "btn-lead";
        plain BTN_BEAT = "btn-beat";
        plain BTN_PASS = "btn-pass";
        plain BTN_MOLODKA = "btn-molodka";
        plain BTN_CLEAR = "btn-clear";
        plain BTN_HEARTS_PASS = "btn-hearts-pass";
        plain BTN_TAKE_BACK = "btn-take-back";
        plain BTN_REMATCH = "btn-rematch";

        // Popups: the engines' rule errors.
        plain ERR_NOT_YOUR_TURN = "err-not-your-turn";
        plain ERR_DEAL_OVER = "err-deal-over";
        plain ERR_SERIES_OVER = "err-series-over";
        plain ERR_NOT_IN_HAND = "err-not-in-hand" (card: text);
        plain ERR_NO_CARDS = "err-no-cards";
        plain ERR_MIXED_SUITS = "err-mixed-suits";
        plain ERR_ALREADY_LED = "err-already-led";
        plain ERR_NOTHING_LED = "err-nothing-led";
        plain ERR_WRONG_COUNT = "err-wrong-count" (expected: num, got: num);
        plain ERR_CANNOT_BEAT = "err-cannot-beat" (target: text);
        plain ERR_NO_MOLODKA = "err-no-molodka";
        plain ERR_MOLODKA_OUTRANKED = "err-molodka-outranked";
        plain ERR_WRONG_GAME = "err-wrong-game";
        plain ERR_MUST_FOLLOW_SUIT = "err-must-follow-suit" (suit: text);
        plain ERR_HEARTS_NOT_BROKEN = "err-hearts-not-broken";
        plain ERR_NO_POINTS_FIRST_TRICK = "err-no-points-first-trick";
        plain ERR_LEAD_TWO_OF_CLUBS = "err-lead-two-of-clubs";
        plain ERR_PASS_THREE = "err-pass-three";
        plain ERR_ALREADY_PASSED = "err-already-passed";
        plain ERR_NOT_PASSING = "err-not-passing";
        plain ERR_STILL_PASSING = "err-still-passing";
        plain ERR_GAME_OVER = "err-game-over";

        // Popups: everything else.
        plain ERR_NOT_SEATED = "err-not-seated";
        plain ERR_ALREADY_SEATED = "err-already-seated";
        plain ERR_TABLE_FULL = "err-table-full";
        plain ERR_SEAT_TAKEN = "err-seat-taken";
        plain ERR_STALE = "err-stale";
        plain ERR_MENU_CLOSED = "err-menu-closed";
        plain ERR_NOT_ALLOWED = "err-not-allowed";
        plain ERR_ADMIN_ONLY = "err-admin-only";
        plain ERR_NO_TABLE = "err-no-table";
        plain ERR_TABLE_EXISTS = "err-table-exists";
        plain TABLE_SHOWN_AGAIN = "table-shown-again";
        plain ERR_NEED_FOUR = "err-need-four";
        plain ERR_GAME_STARTED = "err-game-started";
        plain ERR_GROUP_ONLY = "err-group-only";
        plain ERR_BAD_BUTTON = "err-bad-button";
        plain ERR_TRY_AGAIN = "err-try-again";
        plain ERR_TOO_FAST = "err-too-fast";
        plain ERR_ANONYMOUS = "err-anonymous";
        plain ERR_NOT_YOUR_QUESTION = "err-not-your-question";
        plain ERR_OTHER_CHAT = "err-other-chat";
        html TOLD_IN_GROUP = "told-in-group" (name: text);
        html TOLD_FROM = "told-from" (group: text);

        // Timers.
        html TIMER_REMINDER_DM = "timer-reminder-dm" (seconds: num);
        html TIMER_AUTO_PLAYED = "timer-auto-played" (name: text);
        html TIMER_HANDED_TO_AI = "timer-handed-to-ai" (name: text, count: num);
        html TIMER_TOOK_BACK = "timer-took-back" (name: text);
        html UNREACHABLE_TO_AI = "unreachable-to-ai" (name: text);

        // Settings and language.
        html SETTINGS_TITLE = "settings-title";
        html SETTINGS_LANGUAGE = "settings-language" (lang: text);
        html SETTINGS_TIMER = "settings-timer" (seconds: num);
        html SETTINGS_TIMER_NONE = "settings-timer-none";
        html SETTINGS_HEARTS_TARGET = "settings-hearts-target" (points: num);
        html SETTINGS_MOON_ON = "settings-moon-on";
        html SETTINGS_MOON_OFF = "settings-moon-off";
        plain SETTINGS_SAVED = "settings-saved";
        plain BTN_MOON_ON = "btn-moon-on";
        plain BTN_MOON_OFF = "btn-moon-off";
        html SETTINGS_BREAK_ANY = "settings-break-any";
        html SETTINGS_BREAK_DISCARD = "settings-break-discard";
        plain BTN_BREAK_ANY = "btn-break-any";
        plain BTN_BREAK_DISCARD = "btn-break-discard";
        plain BTN_SECONDS = "btn-seconds" (seconds: num);
        plain BTN_NO_LIMIT = "btn-no-limit";
        plain BTN_POINTS = "btn-points" (points: num);
        html LANG_CHOOSE = "lang-choose";
        html LANG_SET = "lang-set" (lang: text);

        // Score and statistics.
        html SCORE_NONE = "score-none";
        html STATS_TITLE = "stats-title";
        html STATS_LINE = "stats-line" (place: num, name: text, games: num, wins: num);
        html STATS_GOATS = "stats-goats" (count: num);
        html STATS_EMPTY = "stats-empty";

        // Stop and kick.
        html STOP_CONFIRM = "stop-confirm";
        html STOP_KEPT = "stop-kept";
        plain BTN_STOP_YES = "btn-stop-yes";
        plain BTN_STOP_NO = "btn-stop-no";
        html STOPPED = "stopped" (name: text);
        html KICKED = "kicked" (name: text);
        html KICK_HOW = "kick-how";

        // Discord: the table message's hand button and turn line, the card menu.
        plain DISCORD_MY_HAND = "discord-my-hand";
        plain DISCORD_YOUR_TURN = "discord-your-turn";
        plain DISCORD_PRESS_MY_HAND = "discord-press-my-hand";
        plain DISCORD_PICK_CARDS = "discord-pick-cards";
        plain DISCORD_NO_HAND = "discord-no-hand";

        // Delivery: an old lobby message once the game started below it.
        html LOBBY_STARTED = "lobby-started";

        // The Mini App: its buttons in the chat, and the page's own words.
        plain WEBAPP_OPEN = "webapp-open";
        plain WEBAPP_LINK = "webapp-link";
        plain WEBAPP_YOUR_CARDS = "webapp-your-cards";
        plain WEBAPP_SPECTATOR = "webapp-spectator";
        plain WEBAPP_RECONNECTING = "webapp-reconnecting";
        plain WEBAPP_TABLE = "webapp-table";
        plain WEBAPP_UNAUTHORIZED = "webapp-unauthorized";
        plain WEBAPP_FORBIDDEN = "webapp-forbidden";
        plain WEBAPP_NO_TABLE = "webapp-no-table";
    }
}

#[cfg(test)]
mod tests;
