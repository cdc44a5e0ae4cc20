//! What the page shows, as JSON: the table and the person's hand, built
//! from the same views and screens the chat shows ([`Front::table_screen_alone`],
//! [`Front::hand_screen_alone`], each game's `GameFront`), as data — the
//! texts as styled spans, the cards and moves as the presses their buttons
//! carry — in the person's language. A spectator gets the table without
//! cards.

use serde::Serialize;

use kozyr_cards::{Card, Suit};
use kozyr_front::Front;
use kozyr_front::action::{Press, TableAction};
use kozyr_front::games::Played;
use kozyr_front::outputs::time_left;
use kozyr_front::rich::Rich;
use kozyr_front::screen::{ButtonTarget, Screen};
use kozyr_i18n::{Args, Lang, key, tr};
use kozyr_table::{HandView, Phase, SeatState, TableView, Timestamp};

/// The whole state of one person's page; every event carries all of it,
/// so a page that missed some catches up with the next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct State {
    pub table: i64,
    /// The table's state version: a move made at another is refused.
    pub version: u64,
    /// Counts up with every state the server makes: of two states of one
    /// version (a card selected in between), the page keeps the later.
    pub seq: u64,
    pub phase: &'static str,
    pub lang: &'static str,
    pub title: String,
    pub seats: Vec<SeatInfo>,
    /// The seat of the person looking (1-4), `None` for a spectator.
    pub you: Option<u8>,
    pub your_turn: bool,
    /// Time left of the turn timer when this state was made.
    pub deadline_in_ms: Option<u64>,
    /// What lies on the table, to draw: the trick in front of who played
    /// it, the trump card and the stock; `None` before the game starts.
    pub board: Option<BoardJson>,
    /// The group's table message: trump, stock, trick, whose turn, scores
    /// (also what a screen reader reads for the drawn table).
    pub table_text: Vec<SpanJson>,
    pub hand: Option<HandJson>,
    pub words: Words,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatInfo {
    pub seat: u8,
    pub name: String,
    pub ai: bool,
    /// The game waits for this seat.
    pub turn: bool,
}

/// A run of text with its style (`\n` breaks lines).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpanJson {
    pub t: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub b: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub i: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub m: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HandJson {
    /// The hand message's text: the trick, your turn, what beats, results.
    pub text: Vec<SpanJson>,
    pub cards: Vec<CardJson>,
    /// The moves open now (Lead, Beat, Pass, Molodka!, Clear, …).
    pub moves: Vec<MoveJson>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CardJson {
    /// Its face: `code`, `rank`, `suit`, `red`.
    #[serde(flatten)]
    pub face: FaceJson,
    pub selected: bool,
    /// Some move open now puts this card down.
    pub playable: bool,
    /// What the chat's button adds to the card (a trump's ★, an unplayable ✗).
    pub mark: String,
    /// The press its button carries: select it, or play it at once.
    pub press: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardJson {
    /// The trick's cards, in the order played.
    pub plays: Vec<PlayJson>,
    pub trump: Option<FaceJson>,
    pub stock: Option<u32>,
}

/// One seat's cards on the trick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayJson {
    /// 1-4, as in `seats`.
    pub seat: u8,
    /// Face up.
    pub cards: Vec<FaceJson>,
    /// How many lie face down (Kozel's discards).
    pub down: u32,
    /// These cards take the trick so far.
    pub winning: bool,
}

/// A card as it lies face up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaceJson {
    /// Notation: `TS` is 10♠.
    pub code: String,
    pub rank: &'static str,
    pub suit: String,
    pub red: bool,
}

fn face(c: Card) -> FaceJson {
    FaceJson {
        code: c.to_string(),
        rank: c.rank().label(),
        suit: c.suit().glyph().to_string(),
        red: matches!(c.suit(), Suit::Hearts | Suit::Diamonds),
    }
}

fn board_json(game: &kozyr_game::GameView) -> BoardJson {
    let b = kozyr_front::games::board(game);
    BoardJson {
        plays: b
            .plays
            .into_iter()
            .map(|(seat, played)| {
                let (cards, down) = match played {
                    Played::FaceUp(cards) => (cards.into_iter().map(face).collect(), 0),
                    Played::FaceDown(n) => (Vec::new(), n),
                };
                PlayJson {
                    seat: seat.index() as u8 + 1,
                    cards,
                    down,
                    winning: b.winning == Some(seat),
                }
            })
            .collect(),
        trump: b.trump.map(face),
        stock: b.stock,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveJson {
    pub label: String,
    pub press: String,
    /// A move that changes nothing at the table (clearing a selection).
    pub minor: bool,
}

/// The page's own words, in the person's language.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Words {
    pub your_cards: String,
    pub spectator: String,
    pub reconnecting: String,
    pub table: String,
}

impl Words {
    pub fn of(lang: Lang) -> Words {
        let t = |k| tr(lang, k, &Args::new());
        Words {
            your_cards: t(key::WEBAPP_YOUR_CARDS),
            spectator: t(key::WEBAPP_SPECTATOR),
            reconnecting: t(key::WEBAPP_RECONNECTING),
            table: t(key::WEBAPP_TABLE),
        }
    }
}

fn spans(rich: &Rich) -> Vec<SpanJson> {
    rich.spans()
        .iter()
        .map(|s| SpanJson {
            t: s.text.clone(),
            b: s.style.bold,
            i: s.style.italic,
            m: s.style.mono,
        })
        .collect()
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Lobby => "lobby",
        Phase::Playing => "playing",
        Phase::Finished => "finished",
        Phase::Closed => "closed",
    }
}

/// The table message in `lang` rather than the group's: the same
/// presenters, given the view with the person's language.
fn table_in(front: &Front, view: &TableView, lang: Lang) -> Screen {
    let mut v = view.clone();
    v.settings.lang = lang;
    front.table_screen_alone(&v)
}

/// The state `user` sees of `view`, with `hand` when they are seated.
pub fn build(
    front: &Front,
    view: &TableView,
    hand: Option<&HandView>,
    lang: Lang,
    now: Timestamp,
    seq: u64,
) -> State {
    // AI players named as the texts name them ("🤖 AI 2"), not a bare 🤖.
    let info = kozyr_front::outputs::table_info(view, &|_| false);
    let seats = view
        .seats
        .iter()
        .map(|(seat, s)| SeatInfo {
            seat: seat.index() as u8 + 1,
            name: match s {
                SeatState::Person { player, .. } => player.name.clone(),
                SeatState::Ai => info.name(lang, seat),
                SeatState::Empty => String::new(),
            },
            ai: matches!(s, SeatState::Ai | SeatState::Person { away: true, .. }),
            turn: view.awaiting.contains(&seat),
        })
        .collect();
    let hand_json = hand.map(|h| hand_json(front, h, view));
    State {
        table: view.id.0,
        version: view.version,
        seq,
        phase: phase_name(view.phase),
        lang: lang.code(),
        title: view.title.clone(),
        seats,
        you: hand.map(|h| h.seat.index() as u8 + 1),
        your_turn: hand.is_some_and(|h| h.your_turn),
        deadline_in_ms: view
            .deadline
            .map(|d| u64::try_from(time_left(d, now).as_millis()).unwrap_or(u64::MAX)),
        board: view.game.as_ref().map(board_json),
        table_text: spans(&table_in(front, view, lang).rich()),
        hand: hand_json,
        words: Words::of(lang),
    }
}

fn hand_json(front: &Front, hand: &HandView, view: &TableView) -> HandJson {
    let screen = front.hand_screen_alone(hand, view);
    let mut cards = Vec::new();
    let mut moves = Vec::new();
    for b in screen.keyboard.buttons() {
        let ButtonTarget::Press(press) = b.target else {
            continue;
        };
        match b.card {
            Some(face) => cards.push(CardJson {
                face: self::face(face.card),
                selected: face.selected,
                playable: face.playable,
                mark: face.marks(),
                press: press.encode(),
            }),
            None => moves.push(MoveJson {
                label: b.label.clone(),
                press: press.encode(),
                minor: matches!(
                    press,
                    Press::Table {
                        action: TableAction::Clear,
                        ..
                    }
                ),
            }),
        }
    }
    HandJson {
        text: spans(&screen.rich()),
        cards,
        moves,
    }
}
