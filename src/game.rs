//! One interface over every game kozyr hosts, so the table service and the
//! chat front-ends can run a table without knowing which game it plays.
//!
//! A [`Game`] is one *series* in the table's terms: for Kozel, deals until a
//! team has 12 defeat points; for Hearts, one game to its end score.

use serde::{Deserialize, Serialize};

use crate::cards::Seat;
use crate::{hearts, kozel};

/// Which game a table plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    Kozel,
    Hearts,
}

impl GameKind {
    pub const ALL: [GameKind; 2] = [GameKind::Kozel, GameKind::Hearts];

    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Kozel => "kozel",
            GameKind::Hearts => "hearts",
        }
    }
}

impl std::str::FromStr for GameKind {
    type Err = String;
    fn from_str(s: &str) -> Result<GameKind, String> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown game `{s}` (expected one of: kozel, hearts)"))
    }
}

/// The game options a table can set. Kozel has none; missing fields take
/// their defaults, so options saved before a game gained one still load.
///
/// ```
/// use kozyr::game::GameOptions;
/// let o: GameOptions = serde_json::from_str("{}").unwrap();
/// assert_eq!(o.hearts.end_score, 100);
/// assert!(!o.hearts.shoot_the_moon);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameOptions {
    pub hearts: hearts::HeartsOptions,
}

/// A series of one game in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum Game {
    Kozel(kozel::Series),
    Hearts(hearts::Match),
}

/// An action of either game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "game", content = "action", rename_all = "snake_case")]
pub enum GameAction {
    Kozel(kozel::Action),
    Hearts(hearts::Action),
}

/// An event of either game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", content = "event", rename_all = "snake_case")]
pub enum GameEvent {
    Kozel(kozel::Event),
    Hearts(hearts::Event),
}

/// What one seat may see, for rendering and for AI players.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", content = "view", rename_all = "snake_case")]
pub enum GameView {
    Kozel(kozel::SeriesView),
    Hearts(hearts::View),
}

/// Why a game refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "game", content = "error", rename_all = "snake_case")]
pub enum GameError {
    #[error(transparent)]
    Kozel(#[from] kozel::RuleError),
    #[error(transparent)]
    Hearts(#[from] hearts::RuleError),
    #[error("that action belongs to another game")]
    WrongGame,
}

impl Game {
    /// Starts a series; all of its randomness comes from `seed`.
    pub fn new(kind: GameKind, options: GameOptions, seed: u64) -> Game {
        match kind {
            GameKind::Kozel => Game::Kozel(kozel::Series::new(seed)),
            GameKind::Hearts => Game::Hearts(hearts::Match::new(options.hearts, seed)),
        }
    }

    pub fn kind(&self) -> GameKind {
        match self {
            Game::Kozel(_) => GameKind::Kozel,
            Game::Hearts(_) => GameKind::Hearts,
        }
    }

    /// Plays `action` for `seat`; on error nothing changed.
    pub fn apply(&mut self, seat: Seat, action: GameAction) -> Result<Vec<GameEvent>, GameError> {
        match (self, action) {
            (Game::Kozel(s), GameAction::Kozel(a)) => Ok(s
                .apply(seat, a)?
                .into_iter()
                .map(GameEvent::Kozel)
                .collect()),
            (Game::Hearts(m), GameAction::Hearts(a)) => Ok(m
                .apply(seat, a)?
                .into_iter()
                .map(GameEvent::Hearts)
                .collect()),
            _ => Err(GameError::WrongGame),
        }
    }

    /// Every action `seat` may take now (empty when it may not act).
    pub fn legal_actions(&self, seat: Seat) -> Vec<GameAction> {
        match self {
            Game::Kozel(s) => s
                .legal_actions(seat)
                .into_iter()
                .map(GameAction::Kozel)
                .collect(),
            Game::Hearts(m) => m
                .legal_actions(seat)
                .into_iter()
                .map(GameAction::Hearts)
                .collect(),
        }
    }

    /// The seats the game is waiting for; a turn timer runs for them.
    /// (Out-of-turn options such as a Kozel molodka do not count.) While
    /// Hearts players pass, that is every seat that has not passed yet.
    pub fn awaiting(&self) -> Vec<Seat> {
        match self {
            Game::Kozel(s) => s.to_act().into_iter().collect(),
            Game::Hearts(m) => m.awaiting().collect(),
        }
    }

    pub fn is_over(&self) -> bool {
        match self {
            Game::Kozel(s) => s.is_over(),
            Game::Hearts(m) => m.is_over(),
        }
    }

    pub fn view(&self, seat: Seat) -> GameView {
        match self {
            Game::Kozel(s) => GameView::Kozel(s.view(seat)),
            Game::Hearts(m) => GameView::Hearts(m.view(seat)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hearts_through_the_game_interface() {
        assert_eq!("Hearts".parse::<GameKind>(), Ok(GameKind::Hearts));
        assert_eq!(GameKind::Hearts.as_str(), "hearts");
        let mut game = Game::new(GameKind::Hearts, GameOptions::default(), 11);
        assert_eq!(game.kind(), GameKind::Hearts);
        // Passing is simultaneous: the game waits for all four seats.
        assert_eq!(game.awaiting(), Seat::ALL.to_vec());
        let s = Seat::ALL[2];
        let pass = game.legal_actions(s)[0];
        assert!(matches!(
            pass,
            GameAction::Hearts(hearts::Action::PassCards(_))
        ));
        let kozel = GameAction::Kozel(kozel::Action::Molodka);
        let before = game.clone();
        assert_eq!(game.apply(s, kozel), Err(GameError::WrongGame));
        assert_eq!(game, before);
        let events = game.apply(s, pass).unwrap();
        assert!(matches!(
            events[..],
            [GameEvent::Hearts(hearts::Event::Passed { .. })]
        ));
        assert_eq!(
            game.apply(s, pass),
            Err(hearts::RuleError::AlreadyPassed.into())
        );
        assert_eq!(game.awaiting().len(), 3);
        let GameView::Hearts(view) = game.view(s) else {
            panic!("a Hearts game gives Hearts views")
        };
        assert_eq!(view.deal.hand.len(), 10);
        let json = serde_json::to_string(&game).unwrap();
        assert_eq!(serde_json::from_str::<Game>(&json).unwrap(), game);
    }

    #[test]
    fn hearts_options_reach_the_match() {
        let options: GameOptions =
            serde_json::from_str(r#"{"hearts":{"shoot_the_moon":true}}"#).unwrap();
        assert_eq!(options.hearts.end_score, 100);
        let Game::Hearts(m) = Game::new(GameKind::Hearts, options, 1) else {
            panic!("asked for Hearts")
        };
        assert!(m.options().shoot_the_moon);
    }
}
