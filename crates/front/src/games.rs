//! Each game plugs into the front-end through one trait, [`GameFront`],
//! implemented once per game; everything above (the front-end core and the
//! platform shells) asks [`front_of`] and never names a game.

use super::action::TableAction;
use super::present::{self, HandInfo, TableInfo};
use super::screen::Screen;
use kozyr_cards::{Card, CardSet, Seat};
use kozyr_game::{GameAction, GameEvent, GameKind, GameView};
use kozyr_hearts as hearts;
use kozyr_i18n::{Args, Lang, key, tr, tr_html};
use kozyr_kozel as kozel;
use kozyr_table::Settings;

/// What the front-end needs to know of one game.
pub trait GameFront: Sync {
    fn kind(&self) -> GameKind;

    /// The game's name ("Kozel").
    fn name(&self, lang: Lang) -> String;

    /// The rules, as `/rules` shows them (markup).
    fn rules(&self, lang: Lang) -> String;

    /// The public table message; `None` for another game's view.
    fn table(&self, lang: Lang, info: &TableInfo, view: &GameView) -> Option<Screen>;

    /// A seat's private hand with its buttons; `legal` is what the seat
    /// may do now. `None` for another game's view.
    fn hand(
        &self,
        lang: Lang,
        info: &HandInfo,
        view: &GameView,
        legal: &[GameAction],
    ) -> Option<Screen>;

    /// The chat's message for a game event (a deal or the series over);
    /// `view` is the public view after it. `None`: nothing to announce
    /// (tricks show on the table message itself).
    fn announcement(
        &self,
        lang: Lang,
        info: &TableInfo,
        event: &GameEvent,
        view: Option<&GameView>,
        settings: &Settings,
    ) -> Option<Screen>;

    /// The game move a hand button asks for; `None` for a button that is
    /// not a move of this game.
    fn action(&self, press: TableAction) -> Option<GameAction>;

    /// The cards in the seat's hand (what a selection may hold).
    fn hand_cards(&self, view: &GameView) -> CardSet;

    /// The number of the deal in play (a selection belongs to one deal).
    fn deal_no(&self, view: &GameView) -> u32;

    /// The cards `action` puts down as one set (what a multi-select menu
    /// chooses); `None` for a move of no set of cards or another game's.
    fn card_set(&self, action: GameAction) -> Option<CardSet>;

    /// What lies on the table, for a front-end that draws it rather than
    /// writes it (the Mini App). `None` for another game's view.
    fn board(&self, view: &GameView) -> Option<Board>;
}

/// What lies on the table as a front-end draws it: the current trick in
/// front of who played it, and what else the game shows in the middle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Board {
    /// Each seat's cards on the current trick, in the order played.
    pub plays: Vec<(Seat, Played)>,
    /// Whose cards take the trick so far, when the game says.
    pub winning: Option<Seat>,
    /// The card turned up for trump (Kozel).
    pub trump: Option<Card>,
    /// The cards left to draw (Kozel).
    pub stock: Option<u32>,
}

/// A seat's cards on the trick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Played {
    FaceUp(Vec<Card>),
    /// Passed face down (Kozel): only how many.
    FaceDown(u32),
}

/// What lies on the table of `view`, whatever game it is of.
pub fn board(view: &GameView) -> Board {
    front_for(view).board(view).unwrap_or_default()
}

/// The public table message in the group, whatever game `view` is of.
pub fn table(lang: Lang, info: &TableInfo, view: &GameView) -> Screen {
    front_for(view).table(lang, info, view).unwrap_or_default()
}

/// A player's private hand message with its buttons, whatever game `view`
/// is of. `legal` is what the engine says the seat may do now
/// (`Game::legal_actions`).
pub fn hand(lang: Lang, info: &HandInfo, view: &GameView, legal: &[GameAction]) -> Screen {
    front_for(view)
        .hand(lang, info, view, legal)
        .unwrap_or_default()
}

/// The front-end of game `kind`.
pub fn front_of(kind: GameKind) -> &'static dyn GameFront {
    match kind {
        GameKind::Kozel => &KozelFront,
        GameKind::Hearts => &HeartsFront,
    }
}

/// The front-end of whatever game `view` is of.
pub fn front_for(view: &GameView) -> &'static dyn GameFront {
    front_of(match view {
        GameView::Kozel(_) => GameKind::Kozel,
        GameView::Hearts(_) => GameKind::Hearts,
    })
}

struct KozelFront;

impl GameFront for KozelFront {
    fn kind(&self) -> GameKind {
        GameKind::Kozel
    }

    fn name(&self, lang: Lang) -> String {
        tr(lang, key::GAME_KOZEL, &Args::new())
    }

    fn rules(&self, lang: Lang) -> String {
        tr_html(lang, key::RULES_KOZEL, &Args::new())
    }

    fn table(&self, lang: Lang, info: &TableInfo, view: &GameView) -> Option<Screen> {
        let GameView::Kozel(v) = view else {
            return None;
        };
        Some(present::kozel::table(lang, info, v))
    }

    fn hand(
        &self,
        lang: Lang,
        info: &HandInfo,
        view: &GameView,
        legal: &[GameAction],
    ) -> Option<Screen> {
        let GameView::Kozel(v) = view else {
            return None;
        };
        let legal: Vec<kozel::Action> = legal.iter().filter_map(|a| a.kozel()).collect();
        Some(present::kozel::hand(lang, info, v, &legal))
    }

    fn announcement(
        &self,
        lang: Lang,
        info: &TableInfo,
        event: &GameEvent,
        view: Option<&GameView>,
        _settings: &Settings,
    ) -> Option<Screen> {
        let (GameEvent::Kozel(event), Some(GameView::Kozel(v))) = (event, view) else {
            return None;
        };
        match event {
            kozel::Event::DealOver(result) => {
                // The view is the state after the event: the next deal has
                // begun, unless this deal ended the series (a goat).
                let deal_no = if v.goat.is_some() {
                    v.deal_no
                } else {
                    v.deal_no.saturating_sub(1).max(1)
                };
                Some(present::kozel::deal_over(
                    lang,
                    info,
                    deal_no,
                    result,
                    v.defeat_points,
                ))
            }
            kozel::Event::SeriesOver { goat, with_eggs } => Some(present::kozel::series_over(
                lang,
                info,
                *goat,
                *with_eggs,
                v.defeat_points,
            )),
            _ => None,
        }
    }

    fn action(&self, press: TableAction) -> Option<GameAction> {
        let a = match press {
            TableAction::Lead(s) => kozel::Action::Lead(s),
            TableAction::Beat(s) => kozel::Action::Beat(s),
            TableAction::Pass(s) => kozel::Action::Pass(s),
            TableAction::Molodka => kozel::Action::Molodka,
            _ => return None,
        };
        Some(GameAction::Kozel(a))
    }

    fn hand_cards(&self, view: &GameView) -> CardSet {
        match view {
            GameView::Kozel(v) => v.deal.hand,
            GameView::Hearts(_) => CardSet::EMPTY,
        }
    }

    fn deal_no(&self, view: &GameView) -> u32 {
        match view {
            GameView::Kozel(v) => v.deal_no,
            GameView::Hearts(_) => 0,
        }
    }

    fn card_set(&self, action: GameAction) -> Option<CardSet> {
        match action.kozel()? {
            kozel::Action::Lead(s) | kozel::Action::Beat(s) | kozel::Action::Pass(s) => Some(s),
            _ => None,
        }
    }

    fn board(&self, view: &GameView) -> Option<Board> {
        let GameView::Kozel(v) = view else {
            return None;
        };
        let d = &v.deal;
        let plays = d
            .lead_seat
            .clockwise()
            .filter_map(|seat| {
                let played = match d.table[seat]? {
                    kozel::TableCards::FaceUp(set) => Played::FaceUp(set.iter().collect()),
                    kozel::TableCards::FaceDown(n) => Played::FaceDown(n),
                };
                Some((seat, played))
            })
            .collect();
        Some(Board {
            plays,
            winning: d.winning.map(|(seat, _)| seat),
            trump: Some(d.trump_card),
            stock: Some(d.stock_len),
        })
    }
}

struct HeartsFront;

impl GameFront for HeartsFront {
    fn kind(&self) -> GameKind {
        GameKind::Hearts
    }

    fn name(&self, lang: Lang) -> String {
        tr(lang, key::GAME_HEARTS, &Args::new())
    }

    fn rules(&self, lang: Lang) -> String {
        tr_html(lang, key::RULES_HEARTS, &Args::new())
    }

    fn table(&self, lang: Lang, info: &TableInfo, view: &GameView) -> Option<Screen> {
        let GameView::Hearts(v) = view else {
            return None;
        };
        Some(present::hearts::table(lang, info, v))
    }

    fn hand(
        &self,
        lang: Lang,
        info: &HandInfo,
        view: &GameView,
        legal: &[GameAction],
    ) -> Option<Screen> {
        let GameView::Hearts(v) = view else {
            return None;
        };
        let legal: Vec<hearts::Action> = legal.iter().filter_map(|a| a.hearts()).collect();
        Some(present::hearts::hand(lang, info, v, &legal))
    }

    fn announcement(
        &self,
        lang: Lang,
        info: &TableInfo,
        event: &GameEvent,
        _view: Option<&GameView>,
        settings: &Settings,
    ) -> Option<Screen> {
        let GameEvent::Hearts(event) = event else {
            return None;
        };
        match event {
            hearts::Event::DealOver {
                deal,
                deal_points,
                total_points,
                moon_shooter,
            } => Some(present::hearts::deal_over(
                lang,
                info,
                *deal,
                *deal_points,
                *total_points,
                *moon_shooter,
                settings.options.hearts.end_score,
            )),
            hearts::Event::GameOver { ranking } => {
                Some(present::hearts::game_over(lang, info, ranking))
            }
            _ => None,
        }
    }

    fn action(&self, press: TableAction) -> Option<GameAction> {
        let a = match press {
            TableAction::HeartsPass(s) => hearts::Action::PassCards(s),
            TableAction::HeartsPlay(c) => hearts::Action::Play(c),
            _ => return None,
        };
        Some(GameAction::Hearts(a))
    }

    fn hand_cards(&self, view: &GameView) -> CardSet {
        match view {
            GameView::Hearts(v) => v.deal.hand,
            GameView::Kozel(_) => CardSet::EMPTY,
        }
    }

    fn deal_no(&self, view: &GameView) -> u32 {
        match view {
            GameView::Hearts(v) => v.deal.number,
            GameView::Kozel(_) => 0,
        }
    }

    fn card_set(&self, action: GameAction) -> Option<CardSet> {
        match action.hearts()? {
            hearts::Action::PassCards(s) => Some(s),
            hearts::Action::Play(_) => None,
        }
    }

    fn board(&self, view: &GameView) -> Option<Board> {
        let GameView::Hearts(v) = view else {
            return None;
        };
        let plays = v
            .deal
            .leader
            .into_iter()
            .flat_map(Seat::clockwise)
            .filter_map(|seat| Some((seat, Played::FaceUp(vec![v.deal.table[seat]?]))))
            .collect();
        Some(Board {
            plays,
            ..Board::default()
        })
    }
}
