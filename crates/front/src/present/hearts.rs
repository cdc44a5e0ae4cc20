//! Hearts' table message, hand message, results and popups.

use crate::screen::{Button, CardFace, Keyboard};

use super::{
    HandInfo, Occupant, Screen, TableInfo, button, glyphs, last_trick_lines, line, shown_seconds,
    suit_name, trick_taken_lines,
};
use crate::action::TableAction;
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};
use kozyr_game::GameEvent;
use kozyr_hearts::{Action, Event, PassDirection, Phase, RuleError, Standing, View};
use kozyr_i18n::{Args, Lang, key, tr};

/// Cards per row of hand buttons: 13 cards make rows of 5, 5 and 3.
const CARDS_PER_ROW: usize = 5;

/// Suits in the order a Hearts hand is usually held.
const SUIT_ORDER: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Spades, Suit::Hearts];

/// Cards suit by suit (♣ ♦ ♠ ♥), low to high.
pub fn sorted(cards: CardSet) -> Vec<Card> {
    let mut v: Vec<Card> = cards.iter().collect();
    v.sort_by_key(|c| (SUIT_ORDER.iter().position(|&s| s == c.suit()), c.rank()));
    v
}

fn cards_text(cards: CardSet) -> String {
    glyphs(sorted(cards))
}

fn direction(lang: Lang, d: PassDirection) -> Option<String> {
    let k = match d {
        PassDirection::Left => key::HEARTS_PASS_LEFT,
        PassDirection::Right => key::HEARTS_PASS_RIGHT,
        PassDirection::Across => key::HEARTS_PASS_ACROSS,
        PassDirection::None => return None,
    };
    Some(tr(lang, k, &Args::new()))
}

fn title(lang: Lang, v: &View) -> String {
    line(
        lang,
        key::TABLE_TITLE,
        Args::new()
            .text("game", tr(lang, key::GAME_HEARTS, &Args::new()))
            .num("deal", v.deal.number),
    )
}

/// The cards on the current trick, leader first.
fn trick_lines(lang: Lang, info: &TableInfo, v: &View, out: &mut Vec<String>) {
    let Some(leader) = v.deal.leader else { return };
    for seat in leader.clockwise() {
        if let Some(card) = v.deal.table[seat] {
            out.push(line(
                lang,
                key::TABLE_PLAYED,
                Args::new()
                    .text("name", info.name(lang, seat))
                    .html("cards", card.glyph()),
            ));
        }
    }
}

fn turn_line(lang: Lang, info: &TableInfo, v: &View) -> Option<String> {
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
        None => line(lang, key::TABLE_TURN, Args::new().text("name", name)),
    })
}

/// Passing: which way, and how many players are still choosing.
fn passing_line(lang: Lang, v: &View) -> Option<String> {
    let d = &v.deal;
    match direction(lang, d.pass_direction) {
        None if d.tricks_played == 0 => Some(line(lang, key::HEARTS_NO_PASSING, Args::new())),
        None => None,
        Some(_) if d.phase != Phase::Passing => None,
        Some(dir) => {
            let waiting = d.has_passed.0.iter().filter(|p| !**p).count() as i64;
            Some(line(
                lang,
                key::HEARTS_PASSING,
                Args::new().text("direction", dir).num("count", waiting),
            ))
        }
    }
}

fn totals_lines(lang: Lang, info: &TableInfo, v: &View, out: &mut Vec<String>) {
    out.push(line(
        lang,
        key::HEARTS_TOTALS,
        Args::new().num("target", v.options.end_score),
    ));
    for (seat, &total) in v.totals.iter() {
        out.push(line(
            lang,
            key::HEARTS_TOTAL,
            Args::new()
                .text("name", info.name(lang, seat))
                .num("points", total),
        ));
    }
}

fn ranking_lines(lang: Lang, info: &TableInfo, ranking: &[Standing; 4], out: &mut Vec<String>) {
    for s in ranking {
        out.push(line(
            lang,
            key::HEARTS_RANK,
            Args::new()
                .num("place", s.place)
                .text("name", info.name(lang, s.seat))
                .num("points", s.total),
        ));
    }
    for s in ranking.iter().filter(|s| s.place == 1) {
        out.push(line(
            lang,
            key::HEARTS_WINNER,
            Args::new().text("name", info.name(lang, s.seat)),
        ));
    }
}

/// The public table message: only what every player sees.
pub fn table(lang: Lang, info: &TableInfo, v: &View) -> Screen {
    let d = &v.deal;
    let mut out = vec![title(lang, v)];
    if let Some(ranking) = &v.ranking {
        out.push(line(lang, key::HEARTS_GAME_OVER, Args::new()));
        ranking_lines(lang, info, ranking, &mut out);
        return Screen::text(out.join("\n"));
    }
    out.extend(passing_line(lang, v));
    out.extend(turn_line(lang, info, v));
    let mut trick = Vec::new();
    trick_lines(lang, info, v, &mut trick);
    if !trick.is_empty() {
        out.push(String::new());
        out.extend(trick);
    }
    if d.hearts_broken {
        out.push(line(lang, key::HEARTS_BROKEN, Args::new()));
    }
    last_trick_lines(lang, info, &mut out);
    let taken: Vec<(Seat, u32)> = d
        .points_taken
        .iter()
        .filter(|(_, p)| **p > 0)
        .map(|(s, p)| (s, *p))
        .collect();
    if !taken.is_empty() {
        out.push(String::new());
        for (seat, points) in taken {
            out.push(line(
                lang,
                key::HEARTS_DEAL_POINTS,
                Args::new()
                    .text("name", info.name(lang, seat))
                    .num("points", points),
            ));
        }
    }
    out.push(String::new());
    totals_lines(lang, info, v, &mut out);
    Screen::text(out.join("\n"))
}

/// The result of the deal before this one, with its last trick, shown with
/// the next deal's cards until that deal's first trick is taken.
fn previous_deal_lines(lang: Lang, t: &TableInfo, v: &View, out: &mut Vec<String>) {
    let Some(end) = &t.last_deal else { return };
    let GameEvent::Hearts(Event::DealOver {
        deal,
        deal_points,
        total_points,
        moon_shooter,
    }) = &end.result
    else {
        return;
    };
    out.push(String::new());
    let end_score = v.options.end_score;
    let summary = deal_over(
        lang,
        t,
        *deal,
        *deal_points,
        *total_points,
        *moon_shooter,
        end_score,
    );
    out.push(summary.text);
    if let Some(trick) = &end.last_trick {
        out.push(String::new());
        out.extend(trick_taken_lines(lang, t, trick));
    }
    out.push(String::new());
}

/// What the seat may do now, from the engine's legal actions.
struct Choices {
    pass: bool,
    /// The cards the seat may play; empty when it is not its turn.
    plays: CardSet,
}

impl Choices {
    fn of(legal: &[Action]) -> Choices {
        Choices {
            pass: legal.iter().any(|a| matches!(a, Action::PassCards(_))),
            plays: legal
                .iter()
                .filter_map(|a| match *a {
                    Action::Play(c) => Some(c),
                    Action::PassCards(_) => None,
                })
                .collect(),
        }
    }
}

/// A card the seat may not play now, on its turn: marked, still pressable
/// (the press is refused with the reason, and changes nothing).
const UNPLAYABLE: &str = CardFace::BARRED;

/// The private hand message: cards to select and Pass 3 while passing;
/// in play, a card's button plays it (one press), the cards that may not
/// be played now marked.
pub fn hand(lang: Lang, info: &HandInfo, v: &View, legal: &[Action]) -> Screen {
    let t = info.table;
    let d = &v.deal;
    let mut out = vec![line(
        lang,
        key::HAND_TITLE,
        Args::new()
            .text("game", tr(lang, key::GAME_HEARTS, &Args::new()))
            .text("group", super::clean_name(info.group_title)),
    )];
    previous_deal_lines(lang, t, v, &mut out);
    if let Some(ranking) = &v.ranking {
        out.push(line(lang, key::HEARTS_GAME_OVER, Args::new()));
        ranking_lines(lang, t, ranking, &mut out);
        return Screen::text(super::lines(&out));
    }
    if let Some(passed) = d.passed.filter(|_| d.phase == Phase::Passing) {
        out.push(line(
            lang,
            key::HAND_HEARTS_PASSED,
            Args::new().html("cards", cards_text(passed)),
        ));
    }
    if let Some(received) = d.received.filter(|_| d.tricks_played == 0) {
        out.push(line(
            lang,
            key::HAND_HEARTS_RECEIVED,
            Args::new().html("cards", cards_text(received)),
        ));
    }
    let waits = info.waits_under_table(legal.is_empty());
    let mut trick = Vec::new();
    if !waits {
        trick_lines(lang, t, v, &mut trick);
    }
    if !trick.is_empty() {
        out.push(line(lang, key::HAND_TABLE, Args::new()));
        out.extend(trick);
    }
    last_trick_lines(lang, t, &mut out);
    out.push(String::new());
    if matches!(t.seats[info.seat], Some(Occupant::StandIn { .. })) {
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
    let choices = Choices::of(legal);
    let selection = info.selection & d.hand;
    if choices.pass {
        if let Some(dir) = direction(lang, d.pass_direction) {
            out.push(line(
                lang,
                key::HAND_HEARTS_PASS,
                Args::new().text("direction", dir),
            ));
        }
    } else if !choices.plays.is_empty() {
        out.push(line(lang, key::HAND_HEARTS_PLAY, Args::new()));
        if choices.plays != d.hand {
            out.push(line(
                lang,
                key::HAND_HEARTS_UNPLAYABLE,
                Args::new().text("mark", UNPLAYABLE),
            ));
        }
    } else if let Some(s) = d.to_act.filter(|_| !waits) {
        out.push(line(
            lang,
            key::HAND_WAITING,
            Args::new().text("name", t.name(lang, s)),
        ));
    }
    let my_turn = choices.pass || !choices.plays.is_empty();
    if let (Some(allowance), true) = (t.turn_allowance, my_turn) {
        out.push(line(
            lang,
            key::HAND_TURN_ALLOWANCE,
            Args::new().num("seconds", shown_seconds(allowance)),
        ));
    }
    // Selecting is for passing; in play a tap plays the card.
    if !d.hand.is_empty() && (d.phase == Phase::Passing || !selection.is_empty()) {
        if selection.is_empty() {
            out.push(line(lang, key::HAND_SELECT_HINT, Args::new()));
        } else {
            out.push(line(
                lang,
                key::HAND_SELECTED,
                Args::new().html("cards", cards_text(selection)),
            ));
        }
    }
    Screen {
        text: super::lines(&out),
        keyboard: hand_keyboard(lang, info, v, &choices, waits, selection),
    }
}

fn hand_keyboard(
    lang: Lang,
    info: &HandInfo,
    v: &View,
    choices: &Choices,
    waits: bool,
    selection: CardSet,
) -> Keyboard {
    let t = info.table;
    // A hand that waits under the table names no version in its buttons
    // (a selection needs the card and the seat alone; a play out of turn
    // is refused either way), so another seat's move does not edit it.
    let pick = |action| info.press(waits, action);
    // Passing picks three cards; once the tricks begin, a card's button
    // plays it (on another's turn the press is refused: not your turn).
    let playing = v.deal.phase != Phase::Passing;
    let my_turn = !choices.plays.is_empty();
    let cards: Vec<Button> = sorted(v.deal.hand)
        .into_iter()
        .map(|c| {
            let face = CardFace {
                selected: selection.contains(c),
                barred: my_turn && !choices.plays.contains(c),
                ..CardFace::of(c)
            };
            let action = if playing {
                TableAction::HeartsPlay(c)
            } else {
                TableAction::Toggle(c)
            };
            Button::card(face, pick(action))
        })
        .collect();
    let mut rows: Vec<Vec<Button>> = cards.chunks(CARDS_PER_ROW).map(<[_]>::to_vec).collect();
    let label = |k| tr(lang, k, &Args::new());
    let mut actions = Vec::new();
    if choices.pass {
        actions.push(button(
            label(key::BTN_HEARTS_PASS),
            t.callback(TableAction::HeartsPass(selection)),
        ));
    }
    if !selection.is_empty() {
        actions.push(button(label(key::BTN_CLEAR), pick(TableAction::Clear)));
    }
    if !actions.is_empty() {
        rows.push(actions);
    }
    Keyboard::new(rows)
}

/// The announcement when a deal ends: points this deal, the moon, totals.
pub fn deal_over(
    lang: Lang,
    info: &TableInfo,
    deal_no: u32,
    deal_points: PerSeat<u32>,
    totals: PerSeat<u32>,
    moon_shooter: Option<Seat>,
    end_score: u32,
) -> Screen {
    let mut out = vec![line(
        lang,
        key::HEARTS_DEAL_OVER,
        Args::new().num("deal", deal_no),
    )];
    if let Some(s) = moon_shooter {
        out.push(line(
            lang,
            key::HEARTS_SHOT_MOON,
            Args::new().text("name", info.name(lang, s)),
        ));
    }
    for (seat, &points) in deal_points.iter() {
        out.push(line(
            lang,
            key::HEARTS_DEAL_POINTS,
            Args::new()
                .text("name", info.name(lang, seat))
                .num("points", points),
        ));
    }
    out.push(String::new());
    out.push(line(
        lang,
        key::HEARTS_TOTALS,
        Args::new().num("target", end_score),
    ));
    for (seat, &total) in totals.iter() {
        out.push(line(
            lang,
            key::HEARTS_TOTAL,
            Args::new()
                .text("name", info.name(lang, seat))
                .num("points", total),
        ));
    }
    Screen::text(out.join("\n"))
}

/// The announcement when the game ends: the ranking and the winner(s).
pub fn game_over(lang: Lang, info: &TableInfo, ranking: &[Standing; 4]) -> Screen {
    let mut out = vec![line(lang, key::HEARTS_GAME_OVER, Args::new())];
    ranking_lines(lang, info, ranking, &mut out);
    Screen::text(out.join("\n"))
}

/// The popup for a refused Hearts action.
pub fn rule_error(lang: Lang, e: &RuleError) -> String {
    let none = Args::new();
    match e {
        RuleError::NotYourTurn => tr(lang, key::ERR_NOT_YOUR_TURN, &none),
        RuleError::GameOver => tr(lang, key::ERR_GAME_OVER, &none),
        RuleError::DealOver => tr(lang, key::ERR_DEAL_OVER, &none),
        RuleError::NotInHand { card } => tr(
            lang,
            key::ERR_NOT_IN_HAND,
            &Args::new().text("card", card.glyph()),
        ),
        RuleError::WrongPassCount { .. } => tr(lang, key::ERR_PASS_THREE, &none),
        RuleError::AlreadyPassed => tr(lang, key::ERR_ALREADY_PASSED, &none),
        RuleError::NotPassing => tr(lang, key::ERR_NOT_PASSING, &none),
        RuleError::StillPassing => tr(lang, key::ERR_STILL_PASSING, &none),
        RuleError::MustLeadTwoOfClubs => tr(lang, key::ERR_LEAD_TWO_OF_CLUBS, &none),
        RuleError::MustFollowSuit { suit } => tr(
            lang,
            key::ERR_MUST_FOLLOW_SUIT,
            &Args::new().text("suit", suit_name(lang, *suit)),
        ),
        RuleError::NoPointsOnFirstTrick => tr(lang, key::ERR_NO_POINTS_FIRST_TRICK, &none),
        RuleError::HeartsNotBroken => tr(lang, key::ERR_HEARTS_NOT_BROKEN, &none),
    }
}
