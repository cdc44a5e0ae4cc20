//! One interface over every game kozyr hosts, so the table service and the
//! chat front-ends can run a table without knowing which game it plays.
//!
//! A [`Game`] is one *series* in the table's terms: for Kozel, deals until a
//! team has 12 defeat points; for Hearts, one game to its end score.

use serde::{Deserialize, Serialize};

use crate::cards::Seat;
use crate::kozel;

/// Which game a table plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    Kozel,
}

impl GameKind {
    pub const ALL: [GameKind; 1] = [GameKind::Kozel];

    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Kozel => "kozel",
        }
    }
}

impl std::str::FromStr for GameKind {
    type Err = String;
    fn from_str(s: &str) -> Result<GameKind, String> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown game `{s}` (expected one of: kozel)"))
    }
}

/// The game options a table can set. Kozel has none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOptions {}

/// A series of one game in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum Game {
    Kozel(kozel::Series),
}

/// An action of either game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "game", content = "action", rename_all = "snake_case")]
pub enum GameAction {
    Kozel(kozel::Action),
}

/// An event of either game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", content = "event", rename_all = "snake_case")]
pub enum GameEvent {
    Kozel(kozel::Event),
}

/// What one seat may see, for rendering and for AI players.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", content = "view", rename_all = "snake_case")]
pub enum GameView {
    Kozel(kozel::SeriesView),
}

/// Why a game refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "game", content = "error", rename_all = "snake_case")]
pub enum GameError {
    #[error(transparent)]
    Kozel(#[from] kozel::RuleError),
    #[error("that action belongs to another game")]
    WrongGame,
}

impl Game {
    /// Starts a series; all of its randomness comes from `seed`.
    pub fn new(kind: GameKind, _options: GameOptions, seed: u64) -> Game {
        match kind {
            GameKind::Kozel => Game::Kozel(kozel::Series::new(seed)),
        }
    }

    pub fn kind(&self) -> GameKind {
        match self {
            Game::Kozel(_) => GameKind::Kozel,
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
        }
    }

    /// The seats the game is waiting for; a turn timer runs for them.
    /// (Out-of-turn options such as a Kozel molodka do not count.)
    pub fn awaiting(&self) -> Vec<Seat> {
        match self {
            Game::Kozel(s) => s.to_act().into_iter().collect(),
        }
    }

    pub fn is_over(&self) -> bool {
        match self {
            Game::Kozel(s) => s.is_over(),
        }
    }

    pub fn view(&self, seat: Seat) -> GameView {
        match self {
            Game::Kozel(s) => GameView::Kozel(s.view(seat)),
        }
    }
}
