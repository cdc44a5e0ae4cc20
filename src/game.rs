//! One interface over every game kozyr hosts, so the table service and the
//! chat front-ends can run a table without knowing which game it plays.
//!
//! A [`Game`] is one *series* in the table's terms: for Kozel, deals until a
//! team has 12 defeat points; for Hearts, one game to its end score.

use serde::{Deserialize, Serialize};

use crate::cards::{Card, CardSet, PerSeat, Seat};
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

    /// What everyone at the table may see: a view with no hand in it.
    ///
    /// The view's own-seat fields are meaningless here (Kozel: `seat` is 0,
    /// `hand` and `my_passed` are empty); front-ends render the public
    /// table message from it.
    pub fn public_view(&self) -> GameView {
        match self {
            Game::Kozel(s) => {
                let mut v = s.view(Seat::ALL[0]);
                v.deal.hand = CardSet::EMPTY;
                v.deal.my_passed = CardSet::EMPTY;
                GameView::Kozel(v)
            }
        }
    }

    /// The move played for `seat` when its turn timer runs out: the one
    /// that gives away least. Kozel: lead the lowest single card, or pass
    /// the lowest cards. `None` when `seat` is not awaited.
    ///
    /// ```
    /// use kozyr::game::{Game, GameKind, GameOptions};
    /// let game = Game::new(GameKind::Kozel, GameOptions::default(), 9);
    /// let seat = game.awaiting()[0];
    /// let safe = game.safe_action(seat).unwrap();
    /// assert!(game.legal_actions(seat).contains(&safe));
    /// assert_eq!(game.safe_action(seat.next()), None);
    /// ```
    pub fn safe_action(&self, seat: Seat) -> Option<GameAction> {
        if !self.awaiting().contains(&seat) {
            return None;
        }
        let safe = match self {
            Game::Kozel(s) => kozel_safe_action(s, seat).map(GameAction::Kozel),
        };
        let legal = self.legal_actions(seat);
        // The rule above always yields a legal move; should an engine change
        // break that, any legal move is still better than a stuck table.
        match safe {
            Some(a) if legal.contains(&a) => Some(a),
            _ => legal.first().copied(),
        }
    }

    /// How the series went for each seat, once it is over.
    pub fn series_outcome(&self) -> Option<SeriesOutcome> {
        match self {
            Game::Kozel(s) => {
                let goat = s.goat()?;
                let lost = PerSeat::from_fn(|seat| kozel::Team::of(seat) == goat);
                Some(SeriesOutcome {
                    won: lost.map(|l| !l),
                    goat: lost,
                    points: None,
                })
            }
        }
    }
}

/// Kozel's timeout move: cards ordered by what they are worth to keep —
/// points first, then trumps above plain cards, then rank.
fn kozel_safe_action(series: &kozel::Series, seat: Seat) -> Option<kozel::Action> {
    let deal = series.deal();
    let trump = deal.trump();
    let key = |c: &Card| {
        let rank = kozel::strength(c.rank()).unwrap_or(0);
        (kozel::points(*c), c.suit() == trump, rank)
    };
    let mut hand: Vec<Card> = deal.hand(seat).iter().collect();
    hand.sort_by_key(key);
    let width = series.view(seat).deal.width as usize;
    if width == 0 {
        hand.first()
            .map(|&c| kozel::Action::Lead(CardSet::single(c)))
    } else {
        (hand.len() >= width).then(|| kozel::Action::Pass(hand[..width].iter().collect()))
    }
}

/// The stage of a game an event closes, for announcements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Milestone {
    Trick,
    Deal,
    Series,
}

/// How one finished deal went for each seat, for statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealOutcome {
    /// Seats on the side that won the deal (none when nobody won).
    pub won: PerSeat<bool>,
    /// Kozel's 60–60 "eggs".
    pub eggs: bool,
}

/// How a finished series went for each seat, for statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesOutcome {
    pub won: PerSeat<bool>,
    /// Kozel: the losing team is the goat.
    pub goat: PerSeat<bool>,
    /// Final scores, for games that keep them (Hearts).
    pub points: Option<PerSeat<i32>>,
}

impl GameEvent {
    /// Whether this event closes a trick, a deal or the series.
    pub fn milestone(&self) -> Option<Milestone> {
        match self {
            GameEvent::Kozel(kozel::Event::Trick { .. }) => Some(Milestone::Trick),
            GameEvent::Kozel(kozel::Event::DealOver(_)) => Some(Milestone::Deal),
            GameEvent::Kozel(kozel::Event::SeriesOver { .. }) => Some(Milestone::Series),
            GameEvent::Kozel(_) => None,
        }
    }

    /// The result of a deal, if this event scores one.
    pub fn deal_outcome(&self) -> Option<DealOutcome> {
        match self {
            GameEvent::Kozel(kozel::Event::DealOver(r)) => {
                let [a, b] = r.team_points;
                let winner = (a != b).then(|| kozel::Team::ALL[usize::from(b > a)]);
                Some(DealOutcome {
                    won: PerSeat::from_fn(|s| Some(kozel::Team::of(s)) == winner),
                    eggs: r.eggs,
                })
            }
            GameEvent::Kozel(_) => None,
        }
    }
}
