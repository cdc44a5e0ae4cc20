//! Screens from game views: pure functions, no network, no platform.
//!
//! Inputs are a [`GameView`](kozyr_game::GameView) (what one seat may
//! see), the legal actions of that seat where buttons depend on them, and
//! plain structs describing the table ([`TableInfo`]) that the service
//! fills in. Outputs are
//! [`Screen`]s: kozyr markup and rows of buttons whose presses are
//! [`Press`]es. Everything a user or a player name can influence is
//! escaped; every text stays under 2,000 characters (Discord's limit, below
//! Telegram's 4,096) and every press under 64 bytes (tested over random games).
//!
//! Game-specific parts live in one module per game ([`kozel`], [`hearts`]);
//! [`crate::games`] plugs them in behind one trait.

pub mod hearts;
pub mod kozel;
pub mod lobby;

use std::time::Duration;

use super::action::{Press, TableAction};
use super::screen::{Button, Screen};
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};
use kozyr_game::{GameError, GameKind};
use kozyr_i18n::{Args, Key, Lang, escape_html, key, tr, tr_html};
use kozyr_table::{DealEnd, TableId, TrickCards, TrickTaken};

pub use lobby::{
    SettingsInfo, game_menu, game_name, language_menu, language_set, lobby, settings,
    settings_saved, stop_kept, stop_prompt,
};

/// Who sits in a seat, as the front-end shows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Occupant {
    /// A person; `reachable` is false while the bot cannot message them.
    Human { name: String, reachable: bool },
    /// An AI player added to the table, numbered for display.
    Ai { number: u8 },
    /// An AI player standing in for a person who timed out.
    StandIn { name: String },
}

impl Occupant {
    pub fn human(name: impl Into<String>) -> Occupant {
        Occupant::Human {
            name: name.into(),
            reachable: true,
        }
    }

    /// The name to show, in `lang` (AI players have localized names).
    pub fn display(&self, lang: Lang) -> String {
        match self {
            Occupant::Human { name, .. } => clean_name(name),
            Occupant::Ai { number } => {
                tr(lang, key::AI_PLAYER, &Args::new().num("number", *number))
            }
            Occupant::StandIn { name } => tr(
                lang,
                key::AI_STAND_IN,
                &Args::new().text("name", clean_name(name)),
            ),
        }
    }
}

/// The longest name shown, in characters (Telegram allows 64 per name part).
const MAX_NAME: usize = 32;

/// Unicode's first-strong isolate and pop directional isolate: what lies
/// between them takes its direction from itself and passes none on.
const FSI: char = '\u{2068}';
const PDI: char = '\u{2069}';

/// The isolate marks a name could use to end its isolation early.
fn is_isolate_mark(c: char) -> bool {
    matches!(c, '\u{2066}'..='\u{2069}')
}

/// A person's name (or a chat's title) as shown: control characters and
/// isolate marks dropped, blank names replaced, long names cut, and the
/// whole set in a bidi isolate, so that a right-to-left override in it
/// (U+202E) turns nothing after it around (nothing a user types can break
/// the layout).
pub fn clean_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .filter(|c| !c.is_control() && !is_isolate_mark(*c))
        .collect::<String>()
        .trim()
        .to_owned();
    if cleaned.is_empty() {
        return "?".to_owned();
    }
    if cleaned.chars().count() > MAX_NAME {
        let mut cut: String = cleaned.chars().take(MAX_NAME - 1).collect();
        cut.push('…');
        return format!("{FSI}{cut}{PDI}");
    }
    format!("{FSI}{cleaned}{PDI}")
}

/// What the service knows about a table beyond the game: seats, version,
/// timer. Filled in by the front-end from the table service's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    pub table: TableId,
    /// The state version buttons are drawn for; presses with another are stale.
    pub version: u64,
    pub game: GameKind,
    pub seats: PerSeat<Option<Occupant>>,
    /// How long a seat has for each move while a turn timer runs (the
    /// table's setting, not the time left): a fixed fact, so the table
    /// message and the hands agree and never go stale between edits.
    pub turn_allowance: Option<Duration>,
    /// The last trick taken in this deal: its cards, who took it, its points.
    pub last_trick: Option<TrickTaken>,
    /// How the previous deal ended, while the next deal's first trick is
    /// being played (hands show it with the new cards).
    pub last_deal: Option<DealEnd>,
}

impl TableInfo {
    /// The name of whoever sits at `seat`.
    pub fn name(&self, lang: Lang, seat: Seat) -> String {
        self.seats[seat]
            .as_ref()
            .map_or_else(|| "—".to_owned(), |o| o.display(lang))
    }

    fn callback(&self, action: TableAction) -> Press {
        Press::Table {
            table: self.table,
            version: self.version,
            action,
        }
    }
}

/// The private hand message's own inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandInfo<'a> {
    pub table: &'a TableInfo,
    /// The group the table plays in, so a player at two tables can tell them apart.
    pub group_title: &'a str,
    pub seat: Seat,
    /// The cards the player has selected (front-end state).
    pub selection: CardSet,
    /// Where the hand is shown, which decides how it asks for a move.
    pub layout: HandLayout,
}

impl HandInfo<'_> {
    /// Whether this hand waits under the table's message: its seat has no
    /// move now (`idle`) and the message above shows the cards on the
    /// table and whose turn it is, so the hand leaves those out.
    fn waits_under_table(&self, idle: bool) -> bool {
        self.layout == HandLayout::UnderTable && idle
    }

    /// A hand button's press: at the table's version, or at none
    /// ([`UNVERSIONED`]) on a hand that `waits` under the table, so another
    /// seat's move does not change the hand.
    fn press(&self, waits: bool, action: TableAction) -> Press {
        if !waits {
            return self.table.callback(action);
        }
        Press::Table {
            table: self.table.table,
            version: UNVERSIONED,
            action,
        }
    }
}

/// The version a hand that waits under the table draws in its buttons:
/// none. A selection needs the card and the seat alone; a play from such a
/// hand is refused as out of turn while the seat has none, and as out of
/// date once it has (no table is at version 0 once cards are dealt).
pub const UNVERSIONED: u64 = 0;

/// How a hand is drawn, by where it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandLayout {
    /// A private chat of its own (Telegram): it shows everything the
    /// person needs, and answers one card with one tap on that card's move
    /// button, as every redraw is a call the platform paces.
    PrivateChat,
    /// Under the table's message, in the table's chat (Discord's ephemeral
    /// hand behind "My hand"): one tap too; while the person has no move
    /// it leaves out what the table message shows (the cards on the table,
    /// whose turn it is) and its card picks name no version, so it changes
    /// only when their cards, the last trick or their turn do.
    UnderTable,
    /// The Mini App's page, which selects cards on the page before a move.
    MiniApp,
}

impl From<crate::HandPlace> for HandLayout {
    fn from(place: crate::HandPlace) -> HandLayout {
        match place {
            crate::HandPlace::PrivateChat => HandLayout::PrivateChat,
            crate::HandPlace::HandButton => HandLayout::UnderTable,
        }
    }
}

impl HandLayout {
    /// Whether a move of one card that is not a lead is made with one tap.
    pub fn one_tap(self) -> bool {
        self != HandLayout::MiniApp
    }
}

/// Whole seconds begun of `time`: a reminder sent a few milliseconds
/// after it was due says "15 s", never "14 s"; an allowance is shown as set.
pub fn shown_seconds(time: Duration) -> u32 {
    let begun = time.as_secs() + u64::from(time.subsec_nanos() > 0);
    u32::try_from(begun).unwrap_or(u32::MAX)
}

fn line(lang: Lang, key: Key, args: Args) -> String {
    tr_html(lang, key, &args)
}

/// The suit's name in `lang` ("spades", "пики").
pub fn suit_name(lang: Lang, suit: Suit) -> String {
    let k = match suit {
        Suit::Spades => key::SUIT_SPADES,
        Suit::Hearts => key::SUIT_HEARTS,
        Suit::Diamonds => key::SUIT_DIAMONDS,
        Suit::Clubs => key::SUIT_CLUBS,
    };
    tr(lang, k, &Args::new())
}

/// The table message of a finished table: its text, and a button to play
/// another series with the same seats.
pub fn with_rematch(lang: Lang, info: &TableInfo, mut rendered: Screen) -> Screen {
    rendered.keyboard = rendered.keyboard.append_row([button(
        tr(lang, key::BTN_REMATCH, &Args::new()),
        info.callback(TableAction::Rematch),
    )]);
    rendered
}

/// The popup for a refused action.
pub fn rule_error(lang: Lang, error: &GameError) -> String {
    match error {
        GameError::Kozel(e) => kozel::rule_error(lang, e),
        GameError::Hearts(e) => hearts::rule_error(lang, e),
        GameError::WrongGame => tr(lang, key::ERR_WRONG_GAME, &Args::new()),
    }
}

/// A popup without variables (generic errors, "saved").
pub fn popup(lang: Lang, key: Key) -> String {
    tr(lang, key, &Args::new())
}

/// Lines joined into a message, a run of blank lines kept as one (parts
/// of a message that may be absent each bring their own spacing).
fn lines(out: &[String]) -> String {
    let mut kept: Vec<&str> = Vec::with_capacity(out.len());
    for l in out {
        if !(l.is_empty() && kept.last().is_some_and(|p| p.is_empty())) {
            kept.push(l);
        }
    }
    kept.join("\n")
}

/// A face-down card.
const BACK: &str = "🂠";

/// The cards of one play, suit by suit, weakest first in the game's order.
fn play_text(game: GameKind, cards: CardSet) -> String {
    let mut v: Vec<Card> = cards.iter().collect();
    match game {
        GameKind::Kozel => v.sort_by_key(|c| (c.suit(), kozyr_kozel::strength(c.rank()))),
        GameKind::Hearts => v = hearts::sorted(cards),
    }
    glyphs(v)
}

/// A taken trick: who took it and its points, then every play in the
/// order made (passed cards face down), the winning play in bold.
fn trick_taken_lines(lang: Lang, info: &TableInfo, trick: &TrickTaken) -> Vec<String> {
    let mut out = vec![line(
        lang,
        key::TABLE_LAST_TRICK,
        Args::new()
            .text("name", info.name(lang, trick.winner))
            .num("points", trick.points),
    )];
    let plays: Vec<String> = trick
        .plays
        .iter()
        .map(|p| {
            let name = escape_html(&info.name(lang, p.seat));
            match p.cards {
                TrickCards::FaceUp(cards) if p.seat == trick.winner => {
                    format!("<b>{name} {}</b>", play_text(info.game, cards))
                }
                TrickCards::FaceUp(cards) => format!("{name} {}", play_text(info.game, cards)),
                TrickCards::FaceDown(n) => format!("{name} {}", BACK.repeat(n as usize)),
            }
        })
        .collect();
    if !plays.is_empty() {
        out.push(plays.join(" · "));
    }
    out
}

/// A deal's result with its last trick below it (the deal-over
/// announcement: the table message moves on to the next deal).
pub fn with_trick(lang: Lang, info: &TableInfo, mut screen: Screen, trick: &TrickTaken) -> Screen {
    let mut text = screen.text;
    text.push_str("\n\n");
    text.push_str(&trick_taken_lines(lang, info, trick).join("\n"));
    screen.text = text;
    screen
}

/// The lines for the last trick of the table, if one was taken this deal.
fn last_trick_lines(lang: Lang, info: &TableInfo, out: &mut Vec<String>) {
    if let Some(trick) = &info.last_trick {
        out.push(String::new());
        out.extend(trick_taken_lines(lang, info, trick));
    }
}

/// Cards as people read them, in the order given: `10♠ K♠`.
fn glyphs(cards: impl IntoIterator<Item = kozyr_cards::Card>) -> String {
    cards
        .into_iter()
        .map(|c| c.glyph())
        .collect::<Vec<_>>()
        .join(" ")
}

fn button(text: impl Into<String>, press: Press) -> Button {
    Button::press(text, press)
}

/// A button label from a name: short, so rows stay readable.
fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        return name.to_owned();
    }
    let mut s: String = name.chars().take(max - 1).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests;
