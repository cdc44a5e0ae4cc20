//! Button actions: what a button asks for, in at most 64 ASCII bytes —
//! within Telegram's 64-byte callback data and Discord's 100-character
//! custom ids, so every platform carries the same codec.
//!
//! Button data comes back from the platform untrusted — a modified client
//! can send anything — so [`Press::parse`] accepts exactly the strings
//! [`Press::encode`] produces and nothing else: every accepted string
//! re-encodes to itself. A press also carries the table and the state
//! version the button was drawn for, so the service can refuse stale ones.
//!
//! Grammar (numbers in lowercase base 36 without leading zeros):
//!
//! ```text
//! press    := "t" table "." version "." table-action   a table's button
//!           | "c" version "." chat-action               a chat's button
//! table-action :=
//!     "c" CARD    toggle a card          "x"       clear the selection
//!     "l" SET     Kozel lead             "b" SET   Kozel beat
//!     "p" SET     Kozel pass             "m"       Kozel molodka
//!     "h" SET     Hearts pass three      "y" CARD  Hearts play
//!     "j"         join (any free seat)   "s" SEAT  take seat 0-3
//!     "q"         leave                  "a"       add an AI player
//!     "g"         start                  "k" GAME  choose the game
//!     "r"         take the seat back     "n"       rematch
//!     "z" 0|1 ASKER   stop: cancel / confirm, answerable by ASKER only
//! chat-action :=
//!     "n" GAME    open a table           "L" LANG  chat language (en ru pt ro)
//!     "T" SECS|"-" turn timer (none)     "E" NUM   Hearts end score
//!     "M" 0|1     Hearts shoot the moon  "B" 0|1   Hearts: any heart breaks hearts
//! CARD := rank suit, e.g. "TS"; SET := the card set's bits in lowercase hex;
//! GAME := "k" (Kozel) | "h" (Hearts); ASKER := the number of the person who
//! asked, on the table's platform ([`asker_number`]), base 36
//! ```
//!
//! ```
//! use kozyr_front::action::{Press, TableAction};
//! use kozyr_table::TableId;
//! let c = Press::Table { table: TableId(42), version: 7, action: TableAction::Toggle("TS".parse().unwrap()) };
//! assert_eq!(c.encode(), "t16.7.cTS");
//! assert_eq!(Press::parse("t16.7.cTS"), Ok(c));
//! assert!(Press::parse("t016.7.cTS").is_err()); // not canonical
//! ```

use std::fmt::{self, Write as _};

use kozyr_cards::{Card, CardSet, Seat};
use kozyr_game::GameKind;
use kozyr_i18n::Lang;
use kozyr_table::{TableId, UserId};

/// The longest button data, in bytes: Telegram's limit (Discord's is 100).
pub const MAX_LEN: usize = 64;

/// A button press, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Press {
    /// A button on a table's message (lobby, table, hand, stop prompt).
    Table {
        table: TableId,
        version: u64,
        action: TableAction,
    },
    /// A button on a chat-level message (game menu, settings); the chat is
    /// the message's chat, `version` that of the chat's settings.
    Chat { version: u64, action: ChatAction },
}

/// What a table button does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableAction {
    /// Select or unselect a card in the hand message.
    Toggle(Card),
    /// Unselect every card.
    Clear,
    /// Kozel: lead these cards (the selection the button was drawn with).
    Lead(CardSet),
    Beat(CardSet),
    Pass(CardSet),
    Molodka,
    /// Hearts: pass these three cards.
    HeartsPass(CardSet),
    HeartsPlay(Card),
    /// Sit at any free seat.
    Join,
    TakeSeat(Seat),
    Leave,
    AddAi,
    Start,
    ChooseGame(GameKind),
    /// Take one's seat back from the AI player standing in.
    TakeBack,
    /// Answer to "stop this table?", which only the person who asked
    /// (`asker`, their [`asker_number`]) may give: the prompt is theirs.
    Stop {
        confirm: bool,
        asker: u64,
    },
    /// A finished table plays another series with the same seats.
    Rematch,
}

/// The number a stop prompt's buttons carry for the person who asked:
/// their id on their platform (the table's, as the prompt is shown in
/// the table's chat or to its asker alone).
pub fn asker_number(user: &UserId) -> u64 {
    match user {
        UserId::Telegram(n) | UserId::Discord(n) => *n,
    }
}

impl TableAction {
    /// Whether the button belongs on a person's hand (their private chat,
    /// or a message only they see) rather than on the table's message.
    pub fn is_hand(self) -> bool {
        matches!(
            self,
            TableAction::Toggle(_)
                | TableAction::Clear
                | TableAction::Lead(_)
                | TableAction::Beat(_)
                | TableAction::Pass(_)
                | TableAction::Molodka
                | TableAction::HeartsPass(_)
                | TableAction::HeartsPlay(_)
                | TableAction::TakeBack
        )
    }

    /// The card a card button carries: every button that stands for one
    /// card of the hand (select it, or play it at once). A platform may
    /// show such buttons otherwise (Discord: a select menu of cards).
    ///
    /// ```
    /// use kozyr_cards::Card;
    /// use kozyr_front::action::TableAction;
    /// let c: Card = "QS".parse().unwrap();
    /// assert_eq!(TableAction::HeartsPlay(c).card(), Some(c));
    /// assert_eq!(TableAction::Toggle(c).card(), Some(c));
    /// assert_eq!(TableAction::Clear.card(), None);
    /// ```
    pub fn card(self) -> Option<Card> {
        match self {
            TableAction::Toggle(c) | TableAction::HeartsPlay(c) => Some(c),
            TableAction::Clear
            | TableAction::Lead(_)
            | TableAction::Beat(_)
            | TableAction::Pass(_)
            | TableAction::Molodka
            | TableAction::HeartsPass(_)
            | TableAction::Join
            | TableAction::TakeSeat(_)
            | TableAction::Leave
            | TableAction::AddAi
            | TableAction::Start
            | TableAction::ChooseGame(_)
            | TableAction::TakeBack
            | TableAction::Stop { .. }
            | TableAction::Rematch => None,
        }
    }
}

/// What a chat button does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChatAction {
    NewTable(GameKind),
    SetLanguage(Lang),
    /// Seconds per turn; `None` for no limit.
    SetTurnTimer(Option<u32>),
    SetHeartsEndScore(u32),
    SetShootTheMoon(bool),
    /// Hearts: any heart played breaks hearts (on) or only a discarded one (off).
    SetAnyHeartBreaks(bool),
}

/// Why button data was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PressError {
    #[error("button data is {0} bytes, more than 64")]
    TooLong(usize),
    #[error("button data is not one kozyr made")]
    Malformed,
}

fn game_char(g: GameKind) -> char {
    match g {
        GameKind::Kozel => 'k',
        GameKind::Hearts => 'h',
    }
}

fn game_from(s: &str) -> Option<GameKind> {
    match s {
        "k" => Some(GameKind::Kozel),
        "h" => Some(GameKind::Hearts),
        _ => None,
    }
}

/// Lowercase base 36, as short as possible.
fn base36(mut n: u64, out: &mut String) {
    let mut buf = [0u8; 13];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize];
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.extend(buf[i..].iter().map(|&b| b as char));
}

/// Parses canonical base 36 (no sign, no leading zeros, no overflow).
fn parse_base36(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 13 || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    s.bytes().try_fold(0u64, |acc, b| {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'z' => b - b'a' + 10,
            _ => return None,
        };
        acc.checked_mul(36)?.checked_add(u64::from(d))
    })
}

fn parse_card(s: &str) -> Option<Card> {
    // `Card::from_str` also takes `10S` and lowercase; the encoder never
    // writes those, and the re-encoding check rejects them.
    (s.len() == 2).then(|| s.parse().ok()).flatten()
}

fn parse_set(s: &str) -> Option<CardSet> {
    if s.is_empty() || s.len() > 16 || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    let bits = u64::from_str_radix(s, 16).ok()?;
    let set = CardSet::from_bits_truncate(bits);
    (set.bits() == bits).then_some(set)
}

fn parse_flag(s: &str) -> Option<bool> {
    match s {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

impl TableAction {
    fn write(self, out: &mut String) {
        // Writing to a String cannot fail.
        let _ = match self {
            TableAction::Toggle(c) => write!(out, "c{c}"),
            TableAction::Clear => write!(out, "x"),
            TableAction::Lead(s) => write!(out, "l{:x}", s.bits()),
            TableAction::Beat(s) => write!(out, "b{:x}", s.bits()),
            TableAction::Pass(s) => write!(out, "p{:x}", s.bits()),
            TableAction::Molodka => write!(out, "m"),
            TableAction::HeartsPass(s) => write!(out, "h{:x}", s.bits()),
            TableAction::HeartsPlay(c) => write!(out, "y{c}"),
            TableAction::Join => write!(out, "j"),
            TableAction::TakeSeat(s) => write!(out, "s{s}"),
            TableAction::Leave => write!(out, "q"),
            TableAction::AddAi => write!(out, "a"),
            TableAction::Start => write!(out, "g"),
            TableAction::ChooseGame(g) => write!(out, "k{}", game_char(g)),
            TableAction::TakeBack => write!(out, "r"),
            TableAction::Stop { confirm, asker } => {
                let _ = write!(out, "z{}", u8::from(confirm));
                base36(asker, out);
                Ok(())
            }
            TableAction::Rematch => write!(out, "n"),
        };
    }

    fn parse(s: &str) -> Option<TableAction> {
        let (tag, rest) = s.split_at_checked(1)?;
        let bare = |a| rest.is_empty().then_some(a);
        match tag {
            "c" => parse_card(rest).map(TableAction::Toggle),
            "x" => bare(TableAction::Clear),
            "l" => parse_set(rest).map(TableAction::Lead),
            "b" => parse_set(rest).map(TableAction::Beat),
            "p" => parse_set(rest).map(TableAction::Pass),
            "m" => bare(TableAction::Molodka),
            "h" => parse_set(rest).map(TableAction::HeartsPass),
            "y" => parse_card(rest).map(TableAction::HeartsPlay),
            "j" => bare(TableAction::Join),
            "s" => match rest.as_bytes() {
                [d @ b'0'..=b'3'] => Seat::new(d - b'0').map(TableAction::TakeSeat),
                _ => None,
            },
            "q" => bare(TableAction::Leave),
            "a" => bare(TableAction::AddAi),
            "g" => bare(TableAction::Start),
            "k" => game_from(rest).map(TableAction::ChooseGame),
            "r" => bare(TableAction::TakeBack),
            "z" => {
                let (flag, asker) = rest.split_at_checked(1)?;
                Some(TableAction::Stop {
                    confirm: parse_flag(flag)?,
                    asker: parse_base36(asker)?,
                })
            }
            "n" => bare(TableAction::Rematch),
            _ => None,
        }
    }
}

impl ChatAction {
    fn write(self, out: &mut String) {
        match self {
            ChatAction::NewTable(g) => {
                out.push('n');
                out.push(game_char(g));
            }
            ChatAction::SetLanguage(l) => {
                out.push('L');
                out.push_str(l.code());
            }
            ChatAction::SetTurnTimer(None) => out.push_str("T-"),
            ChatAction::SetTurnTimer(Some(secs)) => {
                out.push('T');
                base36(u64::from(secs), out);
            }
            ChatAction::SetHeartsEndScore(n) => {
                out.push('E');
                base36(u64::from(n), out);
            }
            ChatAction::SetShootTheMoon(on) => {
                out.push('M');
                out.push(if on { '1' } else { '0' });
            }
            ChatAction::SetAnyHeartBreaks(on) => {
                out.push('B');
                out.push(if on { '1' } else { '0' });
            }
        }
    }

    fn parse(s: &str) -> Option<ChatAction> {
        let (tag, rest) = s.split_at_checked(1)?;
        let small = |r: &str| parse_base36(r).and_then(|n| u32::try_from(n).ok());
        match tag {
            "n" => game_from(rest).map(ChatAction::NewTable),
            // Only the exact codes, not every tag `Lang::from_code` accepts.
            "L" => Lang::ALL
                .into_iter()
                .find(|l| l.code() == rest)
                .map(ChatAction::SetLanguage),
            "T" if rest == "-" => Some(ChatAction::SetTurnTimer(None)),
            "T" => small(rest).map(|n| ChatAction::SetTurnTimer(Some(n))),
            "E" => small(rest).map(ChatAction::SetHeartsEndScore),
            "M" => parse_flag(rest).map(ChatAction::SetShootTheMoon),
            "B" => parse_flag(rest).map(ChatAction::SetAnyHeartBreaks),
            _ => None,
        }
    }
}

impl Press {
    /// The table a press is about (`None` for a chat's buttons).
    pub fn table(&self) -> Option<TableId> {
        match self {
            Press::Table { table, .. } => Some(*table),
            Press::Chat { .. } => None,
        }
    }

    /// The button data for a button; never longer than [`MAX_LEN`].
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(48);
        match *self {
            Press::Table {
                table,
                version,
                action,
            } => {
                out.push('t');
                // Table ids are assigned from 1 up; a negative one is no
                // table, and its data can never parse.
                base36(u64::try_from(table.0).unwrap_or(u64::MAX), &mut out);
                out.push('.');
                base36(version, &mut out);
                out.push('.');
                action.write(&mut out);
            }
            Press::Chat { version, action } => {
                out.push('c');
                base36(version, &mut out);
                out.push('.');
                action.write(&mut out);
            }
        }
        out
    }

    /// Decodes button data; anything [`Press::encode`] would not have
    /// written is [`PressError::Malformed`].
    pub fn parse(data: &str) -> Result<Press, PressError> {
        if data.len() > MAX_LEN {
            return Err(PressError::TooLong(data.len()));
        }
        let parsed = Self::parse_loose(data).ok_or(PressError::Malformed)?;
        // The fields are checked one by one above; comparing the re-encoding
        // closes whatever gap is left (case, spellings `Card` also accepts).
        if parsed.encode() != data {
            return Err(PressError::Malformed);
        }
        Ok(parsed)
    }

    fn parse_loose(data: &str) -> Option<Press> {
        let (kind, rest) = data.split_at_checked(1)?;
        match kind {
            "t" => {
                let mut parts = rest.splitn(3, '.');
                let table = TableId(i64::try_from(parse_base36(parts.next()?)?).ok()?);
                let version = parse_base36(parts.next()?)?;
                let action = TableAction::parse(parts.next()?)?;
                Some(Press::Table {
                    table,
                    version,
                    action,
                })
            }
            "c" => {
                let (version, action) = rest.split_once('.')?;
                Some(Press::Chat {
                    version: parse_base36(version)?,
                    action: ChatAction::parse(action)?,
                })
            }
            _ => None,
        }
    }
}

/// What a card menu asks for: a platform's multi-select of a hand's cards
/// (Discord's string select), each option's value a press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuPick<'a> {
    /// Every value toggles a card of one table's hand: the selection is
    /// these cards.
    Select(TableId, CardSet),
    /// One value that is not a toggle (a card that plays at once).
    One(&'a str),
}

impl<'a> MenuPick<'a> {
    /// Reads a menu's chosen values; a value that is not button data, a
    /// mix of toggles and other presses, toggles of two tables, or
    /// nothing chosen is [`PressError::Malformed`].
    pub fn parse(values: &'a [String]) -> Result<MenuPick<'a>, PressError> {
        let presses = values
            .iter()
            .map(|v| Press::parse(v))
            .collect::<Result<Vec<_>, _>>()?;
        let mut selection: Option<(TableId, CardSet)> = None;
        for press in &presses {
            let Press::Table {
                table,
                action: TableAction::Toggle(card),
                ..
            } = *press
            else {
                return match values {
                    [one] => Ok(MenuPick::One(one)),
                    _ => Err(PressError::Malformed),
                };
            };
            match &mut selection {
                None => selection = Some((table, CardSet::from_iter([card]))),
                Some((t, set)) if *t == table => set.insert(card),
                Some(_) => return Err(PressError::Malformed),
            }
        }
        let (table, set) = selection.ok_or(PressError::Malformed)?;
        Ok(MenuPick::Select(table, set))
    }
}

/// A join link's payload: the start parameter of a link that opens the
/// bot's private chat and seats a person who never wrote to the bot
/// (Telegram's `t.me/<bot>?start=<payload>`, behind a
/// [`ButtonTarget::Onboard`](crate::ButtonTarget::Onboard) button). Like
/// button data it comes back untrusted, so [`JoinLink::parse`] accepts
/// exactly what [`JoinLink::encode`] writes:
///
/// ```text
/// payload := "j" table ["-" SEAT]      at most 16 of A-Z a-z 0-9 _ -
/// ```
///
/// ```
/// use kozyr_cards::Seat;
/// use kozyr_front::action::JoinLink;
/// use kozyr_table::TableId;
/// let link = JoinLink { table: TableId(42), seat: Seat::new(2) };
/// assert_eq!(link.encode(), "j16-2");
/// assert_eq!(JoinLink::parse("j16-2"), Ok(link));
/// assert!(JoinLink::parse("j016-2").is_err()); // not canonical
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JoinLink {
    pub table: TableId,
    /// The seat to take; `None`: any free one.
    pub seat: Option<Seat>,
}

impl JoinLink {
    /// The payload: lowercase base 36 and digits only, within every
    /// platform's start parameter (Telegram: 64 of `A-Z a-z 0-9 _ -`).
    pub fn encode(&self) -> String {
        let mut out = String::from("j");
        // Table ids are assigned from 1 up; a negative one names no table
        // and its payload never parses.
        base36(u64::try_from(self.table.0).unwrap_or(u64::MAX), &mut out);
        if let Some(seat) = self.seat {
            let _ = write!(out, "-{seat}");
        }
        out
    }

    /// Decodes a payload; anything [`JoinLink::encode`] would not have
    /// written is [`PressError::Malformed`].
    pub fn parse(payload: &str) -> Result<JoinLink, PressError> {
        if payload.len() > MAX_LEN {
            return Err(PressError::TooLong(payload.len()));
        }
        let loose = || {
            let rest = payload.strip_prefix('j')?;
            let (table, seat) = match rest.split_once('-') {
                Some((t, s)) => (t, Some(s)),
                None => (rest, None),
            };
            let table = TableId(i64::try_from(parse_base36(table)?).ok()?);
            let seat = match seat {
                None => None,
                Some(s) => Some(Seat::new(s.parse().ok()?)?),
            };
            Some(JoinLink { table, seat })
        };
        let parsed = loose().ok_or(PressError::Malformed)?;
        if parsed.encode() != payload {
            return Err(PressError::Malformed);
        }
        Ok(parsed)
    }
}

impl fmt::Display for Press {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

impl std::str::FromStr for Press {
    type Err = PressError;
    fn from_str(s: &str) -> Result<Press, PressError> {
        Press::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use kozyr_cards::Suit;

    fn check(c: Press, expect: &str) {
        assert_eq!(c.encode(), expect);
        assert_eq!(Press::parse(expect), Ok(c), "{expect}");
    }

    #[test]
    fn a_card_menu_is_a_selection_of_one_table_or_one_press() {
        let card = |s: &str| s.parse::<Card>().unwrap();
        let press = |table, action| Press::Table {
            table: TableId(table),
            version: 3,
            action,
        };
        let toggle = |table, c: &str| press(table, TableAction::Toggle(card(c))).encode();
        let values = [toggle(5, "AS"), toggle(5, "TS")];
        let both = CardSet::from_iter([card("AS"), card("TS")]);
        assert_eq!(
            MenuPick::parse(&values),
            Ok(MenuPick::Select(TableId(5), both))
        );
        let play = [press(5, TableAction::HeartsPlay(card("QS"))).encode()];
        assert_eq!(MenuPick::parse(&play), Ok(MenuPick::One(&play[0])));
        let bad =
            |values: &[String]| assert_eq!(MenuPick::parse(values), Err(PressError::Malformed));
        bad(&[]);
        bad(&[toggle(5, "AS"), toggle(6, "TS")]);
        bad(&[toggle(5, "AS"), play[0].clone()]);
        bad(&[toggle(5, "AS"), "t5.3.cXX".to_owned()]);
        assert_eq!(
            play.first().and_then(|d| Press::parse(d).ok()?.table()),
            Some(TableId(5))
        );
    }

    #[test]
    fn encodings_are_as_documented() {
        let card = |s: &str| s.parse::<Card>().unwrap();
        let set = |s: &str| s.parse::<CardSet>().unwrap();
        let t = |action| Press::Table {
            table: TableId(1295),
            version: 36,
            action,
        };
        check(t(TableAction::Toggle(card("TS"))), "tzz.10.cTS");
        check(t(TableAction::Clear), "tzz.10.x");
        check(t(TableAction::Lead(set("AS"))), "tzz.10.l1000");
        check(t(TableAction::Beat(set("6H 7H"))), "tzz.10.b300000");
        check(t(TableAction::Pass(CardSet::EMPTY)), "tzz.10.p0");
        check(t(TableAction::Molodka), "tzz.10.m");
        check(
            t(TableAction::HeartsPass(set("2C 3C 4C"))),
            "tzz.10.h7000000000000",
        );
        check(t(TableAction::HeartsPlay(card("QS"))), "tzz.10.yQS");
        check(t(TableAction::Join), "tzz.10.j");
        check(t(TableAction::TakeSeat(Seat::new(3).unwrap())), "tzz.10.s3");
        check(t(TableAction::Leave), "tzz.10.q");
        check(t(TableAction::AddAi), "tzz.10.a");
        check(t(TableAction::Start), "tzz.10.g");
        check(t(TableAction::ChooseGame(GameKind::Kozel)), "tzz.10.kk");
        check(t(TableAction::ChooseGame(GameKind::Hearts)), "tzz.10.kh");
        check(t(TableAction::TakeBack), "tzz.10.r");
        check(
            t(TableAction::Stop {
                confirm: true,
                asker: 1295,
            }),
            "tzz.10.z1zz",
        );
        check(
            t(TableAction::Stop {
                confirm: false,
                asker: 0,
            }),
            "tzz.10.z00",
        );
        check(t(TableAction::Rematch), "tzz.10.n");
        let c = |action| Press::Chat { version: 0, action };
        check(c(ChatAction::NewTable(GameKind::Kozel)), "c0.nk");
        check(c(ChatAction::NewTable(GameKind::Hearts)), "c0.nh");
        check(c(ChatAction::SetLanguage(Lang::Ro)), "c0.Lro");
        check(c(ChatAction::SetTurnTimer(None)), "c0.T-");
        check(c(ChatAction::SetTurnTimer(Some(90))), "c0.T2i");
        check(c(ChatAction::SetHeartsEndScore(100)), "c0.E2s");
        check(c(ChatAction::SetShootTheMoon(false)), "c0.M0");
        check(c(ChatAction::SetAnyHeartBreaks(true)), "c0.B1");
    }

    #[test]
    fn rejects_near_misses() {
        for bad in [
            "",
            "t",
            "t1",
            "t1.2",
            "t1.2.",
            "t1.2.?",
            "T1.2.x",
            "t01.2.x",
            "t1.02.x",
            "t1.2.xx",
            "t1.2.cts",
            "t1.2.c10S",
            "t1.2.cTX",
            "t1.2.l",
            "t1.2.l01",
            "t1.2.lA",
            "t1.2.l2000",
            "t1.2.s4",
            "t1.2.s",
            "t1.2.s00",
            "t1.2.z2",
            // A stop answer names who may give it, canonically.
            "t1.2.z1",
            "t1.2.z",
            "t1.2.z10a",
            "t1.2.z1A",
            "t1.2.z1-1",
            "t1.2.z13w5e11264sgsg",
            "t1.2.kx",
            "t1.2.kK",
            "t-1.2.x",
            "t1.2.x.",
            "t1..x",
            "tzzzzzzzzzzzzzz.1.x",
            // Past i64::MAX: no table has that id.
            "t1y2p0ij32e8e8.1.x",
            "t1.2.lffffffffffffffff",
            "c.nk",
            "c0.Len-US",
            "c0.LEN",
            "c0.T",
            "c0.T0-",
            "c0.T1y2p0tbc",
            "c0.M",
            "c0.n",
            "x1.2.x",
            "t1.2.x\n",
            " t1.2.x",
        ] {
            assert!(Press::parse(bad).is_err(), "{bad:?} parsed");
        }
        assert_eq!(Press::parse(&"t".repeat(65)), Err(PressError::TooLong(65)));
    }

    #[test]
    fn the_longest_callback_fits() {
        let widest = Press::Table {
            table: TableId(i64::MAX),
            version: u64::MAX,
            action: TableAction::HeartsPass(CardSet::FULL),
        };
        assert!(widest.encode().len() <= MAX_LEN, "{}", widest.encode());
        assert_eq!(Press::parse(&widest.encode()), Ok(widest));
        let stop = Press::Table {
            table: TableId(i64::MAX),
            version: u64::MAX,
            action: TableAction::Stop {
                confirm: true,
                asker: u64::MAX,
            },
        };
        assert!(stop.encode().len() <= MAX_LEN, "{}", stop.encode());
        assert_eq!(Press::parse(&stop.encode()), Ok(stop));
    }

    fn any_card() -> impl Strategy<Value = Card> {
        (0u8..4, 0u8..13)
            .prop_map(|(s, r)| Card::new(kozyr_cards::Rank::ALL[r as usize], Suit::ALL[s as usize]))
    }

    fn any_set() -> impl Strategy<Value = CardSet> {
        any::<u64>().prop_map(CardSet::from_bits_truncate)
    }

    fn any_table_action() -> impl Strategy<Value = TableAction> {
        prop_oneof![
            any_card().prop_map(TableAction::Toggle),
            Just(TableAction::Clear),
            any_set().prop_map(TableAction::Lead),
            any_set().prop_map(TableAction::Beat),
            any_set().prop_map(TableAction::Pass),
            Just(TableAction::Molodka),
            any_set().prop_map(TableAction::HeartsPass),
            any_card().prop_map(TableAction::HeartsPlay),
            Just(TableAction::Join),
            (0u8..4).prop_map(|s| TableAction::TakeSeat(Seat::new(s).unwrap())),
            Just(TableAction::Leave),
            Just(TableAction::AddAi),
            Just(TableAction::Start),
            (0usize..2).prop_map(|i| TableAction::ChooseGame(GameKind::ALL[i])),
            Just(TableAction::TakeBack),
            (any::<bool>(), any::<u64>())
                .prop_map(|(confirm, asker)| TableAction::Stop { confirm, asker }),
            Just(TableAction::Rematch),
        ]
    }

    fn any_chat_action() -> impl Strategy<Value = ChatAction> {
        prop_oneof![
            (0usize..2).prop_map(|i| ChatAction::NewTable(GameKind::ALL[i])),
            (0usize..4).prop_map(|i| ChatAction::SetLanguage(Lang::ALL[i])),
            proptest::option::of(any::<u32>()).prop_map(ChatAction::SetTurnTimer),
            any::<u32>().prop_map(ChatAction::SetHeartsEndScore),
            any::<bool>().prop_map(ChatAction::SetShootTheMoon),
            any::<bool>().prop_map(ChatAction::SetAnyHeartBreaks),
        ]
    }

    fn any_callback() -> impl Strategy<Value = Press> {
        prop_oneof![
            (0..=i64::MAX, any::<u64>(), any_table_action()).prop_map(
                |(table, version, action)| Press::Table {
                    table: TableId(table),
                    version,
                    action
                }
            ),
            (any::<u64>(), any_chat_action())
                .prop_map(|(version, action)| Press::Chat { version, action }),
        ]
    }

    #[test]
    fn join_links_reject_what_they_did_not_write() {
        for bad in [
            "",
            "j",
            "j-1",
            "j1-",
            "j1-4",
            "j01",
            "jA",
            "J1",
            "j1-01",
            "j1_2",
            "x1",
            "j1 2",
            "jzzzzzzzzzzzzzz",
            // Past i64::MAX: no table has that id.
            "j1y2p0ij32e8e8",
            "j1-2-3",
            "j+1",
        ] {
            assert!(JoinLink::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn join_links_round_trip_within_16_safe_bytes(table in 0..=i64::MAX, seat in proptest::option::of(0u8..4)) {
            let link = JoinLink { table: TableId(table), seat: seat.and_then(Seat::new) };
            let p = link.encode();
            prop_assert!(p.len() <= 16, "{p}");
            prop_assert!(p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'), "{p}");
            prop_assert_eq!(JoinLink::parse(&p), Ok(link));
        }

        #[test]
        fn arbitrary_join_links_never_panic(s in "\\PC{0,70}") {
            if let Ok(link) = JoinLink::parse(&s) {
                prop_assert_eq!(link.encode(), s);
            }
        }

        #[test]
        fn round_trips_within_64_bytes(c in any_callback()) {
            let data = c.encode();
            prop_assert!(data.len() <= MAX_LEN, "{data}");
            prop_assert!(data.is_ascii());
            prop_assert_eq!(Press::parse(&data), Ok(c));
        }

        #[test]
        fn arbitrary_strings_never_panic_and_accepted_ones_are_canonical(s in "\\PC{0,80}") {
            if let Ok(c) = Press::parse(&s) {
                prop_assert_eq!(c.encode(), s);
            }
        }

        #[test]
        fn near_valid_strings_are_canonical_when_accepted(s in "[tc][0-9a-z]{0,3}\\.[0-9a-z.]{0,3}[a-zA-Z0-9.\\-]{0,6}") {
            if let Ok(c) = Press::parse(&s) {
                prop_assert_eq!(c.encode(), s);
            }
        }

        #[test]
        fn mutations_of_valid_data_are_caught_or_canonical(c in any_callback(), i in any::<prop::sample::Index>(), b in 0x20u8..0x7f) {
            let mut bytes = c.encode().into_bytes();
            let i = i.index(bytes.len());
            bytes[i] = b;
            let s = String::from_utf8(bytes).unwrap();
            if let Ok(other) = Press::parse(&s) {
                prop_assert_eq!(other.encode(), s);
            }
        }
    }
}
