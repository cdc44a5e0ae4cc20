//! Kozel's table message, hand message, results and popups.

use crate::screen::{Button, CardFace, Keyboard, MoveMark};

use super::{
    BACK, HandInfo, Screen, TableInfo, button, glyphs, last_trick_lines, line, shown_seconds,
    suit_name, trick_taken_lines,
};
use crate::action::TableAction;
use kozyr_cards::{Card, CardSet, Seat, Suit};
use kozyr_game::GameEvent;
use kozyr_i18n::{Args, Lang, key, tr, tr_html};
use kozyr_kozel::{
    Action, DealResult, RuleError, SERIES_LOSS, SeriesView, TableCards, Team, strength,
};

/// How many ways to beat the hint lists before "…".
const MAX_HINTS: usize = 6;

/// Cards in Kozel order: suit by suit (trump last), weakest first.
pub fn sorted(cards: CardSet, trump: Suit) -> Vec<Card> {
    let mut v: Vec<Card> = cards.iter().collect();
    v.sort_by_key(|c| (c.suit() == trump, c.suit(), strength(c.rank())));
    v
}

fn cards_text(cards: CardSet, trump: Suit) -> String {
    glyphs(sorted(cards, trump))
}

/// The team's name from its players: "Alice and Carol".
pub fn team_name(lang: Lang, info: &TableInfo, team: Team) -> String {
    let [a, b] = team.seats();
    tr(
        lang,
        key::TEAM_NAME,
        &Args::new()
            .text("first", info.name(lang, a))
            .text("second", info.name(lang, b)),
    )
}

/// The ways to beat listed by the engine, cheapest first (fewest trumps,
/// then the lowest cards), for the hint in the hand message.
pub fn beat_options(legal: &[Action], trump: Suit) -> Vec<CardSet> {
    let mut options: Vec<CardSet> = legal
        .iter()
        .filter_map(|a| match *a {
            Action::Beat(s) => Some(s),
            _ => None,
        })
        .collect();
    options.sort_by_key(|s| {
        let trumps = s.of_suit(trump).len();
        let weight: u32 = s
            .iter()
            .map(|c| u32::from(strength(c.rank()).unwrap_or(0)))
            .sum();
        (trumps, weight, s.bits())
    });
    options
}

/// Trump card, stock: the lines both messages open with.
fn deal_lines(lang: Lang, v: &SeriesView, out: &mut Vec<String>) {
    let d = &v.deal;
    let trump = d.trump_card;
    let mut l = line(
        lang,
        key::TABLE_TRUMP,
        Args::new()
            .html("card", trump.glyph())
            .text("suit", suit_name(lang, trump.suit())),
    );
    l.push_str(" · ");
    if d.stock_len == 0 {
        l.push_str(&line(lang, key::TABLE_STOCK_EMPTY, Args::new()));
    } else {
        l.push_str(&line(
            lang,
            key::TABLE_STOCK,
            Args::new().num("count", d.stock_len),
        ));
    }
    out.push(l);
}

/// The cards on the table, in the order they were played.
fn table_lines(lang: Lang, info: &TableInfo, v: &SeriesView, out: &mut Vec<String>) {
    let d = &v.deal;
    let trump = d.trump_card.suit();
    if let Some(m) = d.molodka {
        out.push(line(
            lang,
            key::TABLE_MOLODKA,
            Args::new().text("name", info.name(lang, m)),
        ));
    }
    for seat in d.lead_seat.clockwise() {
        let Some(cards) = d.table[seat] else { continue };
        let name = info.name(lang, seat);
        out.push(match cards {
            TableCards::FaceUp(set) => {
                let shown = cards_text(set, trump);
                let shown = if d.winning.is_some_and(|(w, _)| w == seat) {
                    format!("<b>{shown}</b>")
                } else {
                    shown
                };
                line(
                    lang,
                    key::TABLE_PLAYED,
                    Args::new().text("name", name).html("cards", shown),
                )
            }
            TableCards::FaceDown(n) => line(
                lang,
                key::TABLE_PASSED,
                Args::new()
                    .text("name", name)
                    .html("backs", BACK.repeat(n as usize)),
            ),
        });
    }
}

fn turn_line(lang: Lang, info: &TableInfo, v: &SeriesView) -> Option<String> {
    let seat = v.deal.to_act?;
    let name = info.name(lang, seat);
    Some(match info.turn_allowance {
        Some(allowance) => line(
            lang,
            key::TABLE_TURN_ALLOWANCE,
            Args::new()
                .text("name", name)
                .num("seconds", shown_seconds(allowance)),
        ),
        None if v.deal.width == 0 => line(lang, key::TABLE_TO_LEAD, Args::new().text("name", name)),
        None => line(lang, key::TABLE_TURN, Args::new().text("name", name)),
    })
}

fn score_lines(lang: Lang, info: &TableInfo, v: &SeriesView, out: &mut Vec<String>) {
    let tricks: Vec<String> = Team::ALL
        .iter()
        .map(|&t| {
            line(
                lang,
                key::TABLE_TRICKS,
                Args::new()
                    .text("team", team_name(lang, info, t))
                    .num("count", v.deal.team_tricks[t.index()]),
            )
        })
        .collect();
    out.push(tricks.join(" · "));
    out.push(line(
        lang,
        key::TABLE_SERIES,
        Args::new().num("loss", SERIES_LOSS),
    ));
    for t in Team::ALL {
        out.push(line(
            lang,
            key::TABLE_DEFEAT,
            Args::new()
                .text("team", team_name(lang, info, t))
                .num("points", v.defeat_points[t.index()]),
        ));
    }
    if v.eggs_seen {
        out.push(line(lang, key::TABLE_EGGS_SEEN, Args::new()));
    }
}

fn title(lang: Lang, v: &SeriesView) -> String {
    line(
        lang,
        key::TABLE_TITLE,
        Args::new()
            .text("game", tr(lang, key::GAME_KOZEL, &Args::new()))
            .num("deal", v.deal_no),
    )
}

/// The public table message: no hand, no passed card, only what all see.
pub fn table(lang: Lang, info: &TableInfo, v: &SeriesView) -> Screen {
    let mut out = vec![title(lang, v)];
    if let Some(goat) = v.goat {
        out.push(series_result_line(lang, info, goat, v.eggs_seen));
    } else {
        deal_lines(lang, v, &mut out);
        out.extend(turn_line(lang, info, v));
    }
    let mut played = Vec::new();
    table_lines(lang, info, v, &mut played);
    if !played.is_empty() {
        out.push(String::new());
        out.extend(played);
    }
    last_trick_lines(lang, info, &mut out);
    out.push(String::new());
    score_lines(lang, info, v, &mut out);
    Screen::text(out.join("\n"))
}

fn series_result_line(lang: Lang, info: &TableInfo, goat: Team, eggs: bool) -> String {
    let k = if eggs {
        key::SERIES_GOAT_EGGS
    } else {
        key::SERIES_GOAT
    };
    line(
        lang,
        k,
        Args::new().text("team", team_name(lang, info, goat)),
    )
}

/// What a seat may do now, read from the engine's legal actions.
struct Choices<'a> {
    lead: bool,
    /// Beat or pass: the seat answers a lead.
    answer: bool,
    molodka: bool,
    /// The ways to beat, cheapest first.
    beats: Vec<CardSet>,
    legal: &'a [Action],
}

impl<'a> Choices<'a> {
    fn of(legal: &'a [Action], trump: Suit) -> Choices<'a> {
        let can = |f: fn(&Action) -> bool| legal.iter().any(f);
        Choices {
            lead: can(|a| matches!(a, Action::Lead(_))),
            answer: can(|a| matches!(a, Action::Pass(_))),
            molodka: can(|a| matches!(a, Action::Molodka)),
            beats: beat_options(legal, trump),
            legal,
        }
    }

    /// Whether the engine would take `action` now.
    fn allows(&self, action: Action) -> bool {
        self.legal.contains(&action)
    }
}

/// The private hand message with card toggles and the action buttons that apply.
pub fn hand(lang: Lang, info: &HandInfo, v: &SeriesView, legal: &[Action]) -> Screen {
    let t = info.table;
    let d = &v.deal;
    let mut out = vec![line(
        lang,
        key::HAND_TITLE,
        Args::new()
            .text("game", tr(lang, key::GAME_KOZEL, &Args::new()))
            .text("group", super::clean_name(info.group_title)),
    )];
    previous_deal_lines(lang, t, v, &mut out);
    if let Some(goat) = v.goat {
        out.push(line(lang, key::HAND_SERIES_OVER, Args::new()));
        out.push(series_result_line(lang, t, goat, v.eggs_seen));
        return Screen::text(super::lines(&out));
    }
    deal_lines(lang, v, &mut out);
    let waits = info.waits_under_table(legal.is_empty());
    let mut played = Vec::new();
    if !waits {
        table_lines(lang, t, v, &mut played);
    }
    if !played.is_empty() {
        out.push(line(lang, key::HAND_TABLE, Args::new()));
        out.extend(played);
    }
    last_trick_lines(lang, t, &mut out);
    let trump = d.trump_card.suit();
    if !d.my_passed.is_empty() {
        out.push(line(
            lang,
            key::HAND_YOU_PASSED,
            Args::new().html("cards", cards_text(d.my_passed, trump)),
        ));
    }
    out.push(String::new());
    if matches!(t.seats[info.seat], Some(super::Occupant::StandIn { .. })) {
        out.push(line(lang, key::HAND_AI_PLAYING, Args::new()));
        let take_back = button(
            tr(lang, key::BTN_TAKE_BACK, &Args::new()),
            t.callback(TableAction::TakeBack),
        );
        return Screen {
            text: super::lines(&out),
            keyboard: Keyboard::new([[take_back]]),
        };
    }
    let choices = Choices::of(legal, trump);
    let selection = info.selection & d.hand;
    prompt_lines(lang, info, v, &choices, waits, selection, &mut out);
    Screen {
        text: super::lines(&out),
        keyboard: hand_keyboard(lang, info, v, &choices, waits, selection),
    }
}

/// The result of the deal before this one, with its last trick: a hand
/// shows it with the next deal's cards until that deal's first trick is
/// taken, so nobody is dealt new cards without seeing how the deal ended.
fn previous_deal_lines(lang: Lang, t: &TableInfo, v: &SeriesView, out: &mut Vec<String>) {
    let Some(end) = &t.last_deal else { return };
    let GameEvent::Kozel(kozyr_kozel::Event::DealOver(result)) = &end.result else {
        return;
    };
    // The view is the next deal's, unless this deal ended the series.
    let deal_no = if v.goat.is_some() {
        v.deal_no
    } else {
        v.deal_no.saturating_sub(1).max(1)
    };
    out.push(String::new());
    out.push(deal_over(lang, t, deal_no, result, v.defeat_points).text);
    if let Some(trick) = &end.last_trick {
        out.push(String::new());
        out.extend(trick_taken_lines(lang, t, trick));
    }
    out.push(String::new());
}

/// Whose turn, the timer, the selection and what it can do.
fn prompt_lines(
    lang: Lang,
    info: &HandInfo,
    v: &SeriesView,
    choices: &Choices,
    waits: bool,
    selection: CardSet,
    out: &mut Vec<String>,
) {
    let d = &v.deal;
    let trump = d.trump_card.suit();
    if choices.lead {
        out.push(line(lang, key::HAND_YOUR_LEAD, Args::new()));
    } else if choices.answer {
        out.push(line(
            lang,
            key::HAND_YOUR_ANSWER,
            Args::new().num("count", d.width),
        ));
    } else if let Some(s) = d.to_act.filter(|_| !waits) {
        let name = info.table.name(lang, s);
        out.push(line(
            lang,
            key::HAND_WAITING,
            Args::new().text("name", name),
        ));
    }
    if let Some(allowance) = info.table.turn_allowance
        && d.to_act == Some(info.seat)
    {
        out.push(line(
            lang,
            key::HAND_TURN_ALLOWANCE,
            Args::new().num("seconds", shown_seconds(allowance)),
        ));
    }
    if choices.molodka {
        out.push(line(lang, key::HAND_MOLODKA, Args::new()));
    }
    if d.hand.is_empty() {
        return;
    }
    if one_tap_answer(info, v, choices) {
        out.push(line(lang, key::HAND_ONE_TAP_HINT, Args::new()));
    } else if selection.is_empty() {
        out.push(line(lang, key::HAND_SELECT_HINT, Args::new()));
    } else {
        let cards = cards_text(selection, trump);
        out.push(line(
            lang,
            key::HAND_SELECTED,
            Args::new().html("cards", cards),
        ));
    }
    if !choices.answer {
        return;
    }
    if selection.len() == d.width && !one_tap_answer(info, v, choices) {
        let k = if choices.beats.contains(&selection) {
            key::HAND_SELECTION_BEATS
        } else {
            key::HAND_SELECTION_PASSES
        };
        out.push(line(lang, k, Args::new()));
    }
    if choices.beats.is_empty() {
        out.push(line(
            lang,
            key::HAND_CANNOT_BEAT,
            Args::new().num("count", d.width),
        ));
    } else {
        let mut shown: Vec<String> = choices
            .beats
            .iter()
            .take(MAX_HINTS)
            .map(|&s| cards_text(s, trump))
            .collect();
        if choices.beats.len() > MAX_HINTS {
            shown.push("…".to_owned());
        }
        let options = shown.join(" · ");
        out.push(line(
            lang,
            key::HAND_CAN_BEAT,
            Args::new().html("options", options),
        ));
    }
}

/// Whether this hand answers one card with one tap on a card's move
/// button: an answer of one card where the hand asks for it (a chat).
/// Leads keep selecting first, as a lead may hold several cards.
fn one_tap_answer(info: &HandInfo, v: &SeriesView, choices: &Choices) -> bool {
    info.layout.one_tap() && choices.answer && v.deal.width == 1
}

/// Card toggles (✓ selected, ★ trump), then the actions that apply; the
/// action buttons carry the selection they were drawn with. An answer of
/// one card in a chat is a row of ⚔ buttons (beat with this card) over a
/// row of ↓ buttons (discard it), each the whole move: a person who answers
/// taps once, and the hand is not redrawn to show a selection.
fn hand_keyboard(
    lang: Lang,
    info: &HandInfo,
    v: &SeriesView,
    choices: &Choices,
    waits: bool,
    selection: CardSet,
) -> Keyboard {
    let t = info.table;
    let trump = v.deal.trump_card.suit();
    let label = |k| tr(lang, k, &Args::new());
    // A selection (a pick, Clear) needs the card and the seat alone, and a
    // hand that waits has no move to offer: one that waits under the table
    // names no version in its buttons, so it is not redrawn for a move
    // that changed nothing else in it.
    let pick = |action| info.press(waits, action);
    if one_tap_answer(info, v, choices) {
        let moves = |make: fn(CardSet) -> Action, wrap: fn(CardSet) -> TableAction, mark| {
            sorted(v.deal.hand, trump)
                .into_iter()
                .filter(|&c| choices.allows(make(CardSet::single(c))))
                .map(|c| {
                    let face = CardFace {
                        trump: c.suit() == trump,
                        move_mark: Some(mark),
                        ..CardFace::of(c)
                    };
                    Button::card(face, t.callback(wrap(CardSet::single(c))))
                })
                .collect::<Vec<Button>>()
        };
        let mut rows = vec![
            moves(Action::Beat, TableAction::Beat, MoveMark::Beat),
            moves(Action::Pass, TableAction::Pass, MoveMark::Discard),
        ];
        if choices.molodka {
            let molodka = button(label(key::BTN_MOLODKA), t.callback(TableAction::Molodka));
            rows.push(vec![molodka]);
        }
        rows.retain(|r| !r.is_empty());
        return Keyboard::new(rows);
    }
    let cards: Vec<Button> = sorted(v.deal.hand, trump)
        .into_iter()
        .map(|c| {
            let face = CardFace {
                selected: selection.contains(c),
                trump: c.suit() == trump,
                ..CardFace::of(c)
            };
            Button::card(face, pick(TableAction::Toggle(c)))
        })
        .collect();
    // A Kozel hand holds four cards; rows of four keep any hand tidy.
    let mut rows: Vec<Vec<Button>> = cards.chunks(4).map(<[_]>::to_vec).collect();
    // A move button appears once the selection makes that move: Beat only
    // when the selected cards beat (what the hint line says), Lead when
    // they are of one suit, Pass when they are as many as were led. Leads
    // stay select-then-Lead even for one card: a lead may hold several
    // cards, and a tap that sometimes plays and sometimes selects would
    // play cards people meant to add to.
    let wanted = [
        (
            choices.allows(Action::Lead(selection)),
            key::BTN_LEAD,
            TableAction::Lead(selection),
        ),
        (
            choices.allows(Action::Beat(selection)),
            key::BTN_BEAT,
            TableAction::Beat(selection),
        ),
        (
            choices.allows(Action::Pass(selection)),
            key::BTN_PASS,
            TableAction::Pass(selection),
        ),
        (choices.molodka, key::BTN_MOLODKA, TableAction::Molodka),
        (!selection.is_empty(), key::BTN_CLEAR, TableAction::Clear),
    ];
    let actions: Vec<Button> = wanted
        .into_iter()
        .filter(|(applies, _, _)| *applies)
        .map(|(_, k, action)| button(label(k), pick(action)))
        .collect();
    if !actions.is_empty() {
        rows.push(actions);
    }
    Keyboard::new(rows)
}

/// The announcement when a deal ends (a new message in the group).
/// `defeat_points` are the series totals after this deal.
pub fn deal_over(
    lang: Lang,
    info: &TableInfo,
    deal_no: u32,
    result: &DealResult,
    defeat_points: [u32; 2],
) -> Screen {
    let mut out = vec![line(lang, key::DEAL_OVER, Args::new().num("deal", deal_no))];
    for t in Team::ALL {
        out.push(line(
            lang,
            key::DEAL_TEAM_RESULT,
            Args::new()
                .text("team", team_name(lang, info, t))
                .num("points", result.team_points[t.index()])
                .num("tricks", result.team_tricks[t.index()]),
        ));
    }
    if result.eggs {
        out.push(line(lang, key::DEAL_EGGS, Args::new()));
    }
    for t in Team::ALL {
        let i = t.index();
        if result.defeat_points[i] > 0 {
            if result.team_tricks[i] == 0 {
                out.push(line(
                    lang,
                    key::DEAL_NO_TRICK,
                    Args::new().text("team", team_name(lang, info, t)),
                ));
            }
            out.push(line(
                lang,
                key::DEAL_DEFEAT,
                Args::new()
                    .text("team", team_name(lang, info, t))
                    .num("points", result.defeat_points[i]),
            ));
        }
    }
    out.push(line(
        lang,
        key::SERIES_SCORE,
        Args::new()
            .text("first", team_name(lang, info, Team::ALL[0]))
            .num("a", defeat_points[0])
            .text("second", team_name(lang, info, Team::ALL[1]))
            .num("b", defeat_points[1]),
    ));
    Screen::text(out.join("\n"))
}

/// The announcement when the series ends: the goat, with eggs when it applies.
pub fn series_over(
    lang: Lang,
    info: &TableInfo,
    goat: Team,
    with_eggs: bool,
    defeat_points: [u32; 2],
) -> Screen {
    let out = [
        line(lang, key::SERIES_OVER, Args::new()),
        line(
            lang,
            key::SERIES_SCORE,
            Args::new()
                .text("first", team_name(lang, info, Team::ALL[0]))
                .num("a", defeat_points[0])
                .text("second", team_name(lang, info, Team::ALL[1]))
                .num("b", defeat_points[1]),
        ),
        series_result_line(lang, info, goat, with_eggs),
    ];
    Screen::text(out.join("\n"))
}

/// "Deal 3: Bob dealt, Carol leads."
pub fn deal_begins(
    lang: Lang,
    info: &TableInfo,
    deal_no: u32,
    dealer: Seat,
    leader: Seat,
) -> Screen {
    Screen::text(tr_html(
        lang,
        key::DEAL_BEGINS,
        &Args::new()
            .num("deal", deal_no)
            .text("dealer", info.name(lang, dealer))
            .text("leader", info.name(lang, leader)),
    ))
}

/// The popup for a refused Kozel action.
pub fn rule_error(lang: Lang, e: &RuleError) -> String {
    let none = Args::new();
    match e {
        RuleError::NotYourTurn => tr(lang, key::ERR_NOT_YOUR_TURN, &none),
        RuleError::DealOver => tr(lang, key::ERR_DEAL_OVER, &none),
        RuleError::SeriesOver => tr(lang, key::ERR_SERIES_OVER, &none),
        RuleError::NotInHand { card } => tr(
            lang,
            key::ERR_NOT_IN_HAND,
            &Args::new().text("card", card.glyph()),
        ),
        RuleError::NoCards => tr(lang, key::ERR_NO_CARDS, &none),
        RuleError::MixedSuits => tr(lang, key::ERR_MIXED_SUITS, &none),
        RuleError::AlreadyLed => tr(lang, key::ERR_ALREADY_LED, &none),
        RuleError::NothingLed => tr(lang, key::ERR_NOTHING_LED, &none),
        RuleError::WrongCount { expected, got } => tr(
            lang,
            key::ERR_WRONG_COUNT,
            &Args::new().num("expected", *expected).num("got", *got),
        ),
        RuleError::CannotBeat { target } => tr(
            lang,
            key::ERR_CANNOT_BEAT,
            &Args::new().text("target", glyphs(target.iter())),
        ),
        RuleError::NoMolodka => tr(lang, key::ERR_NO_MOLODKA, &none),
        RuleError::MolodkaOutranked => tr(lang, key::ERR_MOLODKA_OUTRANKED, &none),
    }
}
