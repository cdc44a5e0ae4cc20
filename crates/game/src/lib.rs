//! One interface over every game kozyr hosts, so the table service and the
//! chat front-ends can run a table without knowing which game it plays.
//!
//! A [`Game`] is one *series* in the table's terms: for Kozel, deals until a
//! team has 12 defeat points; for Hearts, one game to its end score.

pub mod records;

use serde::{Deserialize, Serialize};

use kozyr_cards::{Card, CardSet, PerSeat, Seat};
use kozyr_hearts as hearts;
use kozyr_kozel as kozel;

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
/// use kozyr_game::GameOptions;
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

impl GameAction {
    /// The game this action belongs to.
    pub fn kind(self) -> GameKind {
        match self {
            GameAction::Kozel(_) => GameKind::Kozel,
            GameAction::Hearts(_) => GameKind::Hearts,
        }
    }

    /// The Kozel action, if this is one.
    pub fn kozel(self) -> Option<kozel::Action> {
        match self {
            GameAction::Kozel(a) => Some(a),
            GameAction::Hearts(_) => None,
        }
    }

    /// The Hearts action, if this is one.
    pub fn hearts(self) -> Option<hearts::Action> {
        match self {
            GameAction::Hearts(a) => Some(a),
            GameAction::Kozel(_) => None,
        }
    }
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
            Game::Hearts(m) => {
                let mut v = m.view(Seat::ALL[0]);
                v.deal.hand = CardSet::EMPTY;
                v.deal.passed = None;
                v.deal.received = None;
                GameView::Hearts(v)
            }
        }
    }

    /// The move played for `seat` when its turn timer runs out: the one
    /// that gives away least. Kozel: lead the lowest single card, or pass
    /// the lowest cards. Hearts: play the lowest legal card; pass the three
    /// most dangerous cards. `None` when `seat` is not awaited.
    ///
    /// ```
    /// use kozyr_game::{Game, GameKind, GameOptions};
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
            Game::Hearts(m) => hearts_safe_action(m, seat).map(GameAction::Hearts),
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
            Game::Hearts(m) => {
                let ranking = m.ranking()?;
                let mut won = PerSeat::<bool>::default();
                for standing in ranking {
                    won[standing.seat] = standing.place == 1;
                }
                let totals = m.totals();
                Some(SeriesOutcome {
                    won,
                    goat: PerSeat::default(),
                    points: Some(totals.map(|&t| i32::try_from(t).unwrap_or(i32::MAX))),
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

/// Hearts' timeout move: the lowest legal card (points break ties, so a
/// heart goes after a plain card of its rank); when passing, the three
/// cards most likely to take points.
fn hearts_safe_action(game: &hearts::Match, seat: Seat) -> Option<hearts::Action> {
    let deal = game.deal();
    let danger = |c: &Card| (c.rank(), hearts::points(*c));
    match deal.phase() {
        hearts::Phase::Passing => {
            let mut hand: Vec<Card> = deal.hand(seat).iter().collect();
            hand.sort_by_key(|c| std::cmp::Reverse(danger(c)));
            let n = hearts::PASS_SIZE as usize;
            (hand.len() >= n).then(|| hearts::Action::PassCards(hand[..n].iter().collect()))
        }
        _ => deal
            .legal_plays(seat)
            .iter()
            .min_by_key(danger)
            .map(hearts::Action::Play),
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

/// What an event does to the trick on the table, as everyone sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrickStep {
    /// `seat` put `cards` on the trick: face up, or face down (a Kozel
    /// pass, whose cards nobody sees).
    Play {
        seat: Seat,
        cards: CardSet,
        face_down: bool,
    },
    /// Everything on the trick went back and `seat` leads `cards` anew (a
    /// Kozel molodka).
    LeadAnew { seat: Seat, cards: CardSet },
    /// A deal started: the trick is empty.
    NewDeal,
}

impl GameEvent {
    /// What this event does to the trick in progress, if anything (the
    /// trick's end is [`GameEvent::trick_taken`]).
    pub fn trick_step(&self) -> Option<TrickStep> {
        let face_up = |seat: &Seat, cards: CardSet| TrickStep::Play {
            seat: *seat,
            cards,
            face_down: false,
        };
        match self {
            GameEvent::Kozel(k) => match k {
                kozel::Event::Lead { seat, cards } | kozel::Event::Beat { seat, cards } => {
                    Some(face_up(seat, *cards))
                }
                kozel::Event::Pass { seat, cards } => Some(TrickStep::Play {
                    seat: *seat,
                    cards: *cards,
                    face_down: true,
                }),
                kozel::Event::Molodka { seat, cards } => Some(TrickStep::LeadAnew {
                    seat: *seat,
                    cards: *cards,
                }),
                kozel::Event::DealStarted { .. } => Some(TrickStep::NewDeal),
                _ => None,
            },
            GameEvent::Hearts(h) => match h {
                hearts::Event::Play { seat, card } => Some(face_up(seat, CardSet::single(*card))),
                hearts::Event::DealStarted { .. } => Some(TrickStep::NewDeal),
                _ => None,
            },
        }
    }

    /// Logs a deal's or a series' end at `table` in `chat`, with the
    /// game's own result as fields; other events log nothing.
    pub fn log_end(
        &self,
        table: &dyn std::fmt::Display,
        chat: &dyn std::fmt::Display,
        last_move_by: &'static str,
    ) {
        match self {
            GameEvent::Kozel(kozel::Event::DealOver(r)) => tracing::info!(
                %table, %chat, game = "kozel",
                team_points = ?r.team_points,
                team_tricks = ?r.team_tricks,
                defeat_points = ?r.defeat_points,
                eggs = r.eggs,
                last_move_by,
                "deal ended"
            ),
            GameEvent::Kozel(kozel::Event::SeriesOver { goat, with_eggs }) => tracing::info!(
                %table, %chat, game = "kozel", goat = ?goat, with_eggs, "series ended"
            ),
            GameEvent::Hearts(hearts::Event::DealOver {
                deal,
                deal_points,
                total_points,
                moon_shooter,
            }) => tracing::info!(
                %table, %chat, game = "hearts",
                deal,
                deal_points = ?deal_points.0,
                total_points = ?total_points.0,
                moon_shooter = ?moon_shooter.map(|s| s.index()),
                last_move_by,
                "deal ended"
            ),
            GameEvent::Hearts(hearts::Event::GameOver { ranking }) => tracing::info!(
                %table, %chat, game = "hearts", ranking = ?ranking, "series ended"
            ),
            _ => {}
        }
    }

    /// Whether this event closes a trick, a deal or the series.
    pub fn milestone(&self) -> Option<Milestone> {
        match self {
            GameEvent::Kozel(kozel::Event::Trick { .. }) => Some(Milestone::Trick),
            GameEvent::Kozel(kozel::Event::DealOver(_)) => Some(Milestone::Deal),
            GameEvent::Kozel(kozel::Event::SeriesOver { .. }) => Some(Milestone::Series),
            GameEvent::Kozel(_) => None,
            GameEvent::Hearts(hearts::Event::Trick { .. }) => Some(Milestone::Trick),
            GameEvent::Hearts(hearts::Event::DealOver { .. }) => Some(Milestone::Deal),
            GameEvent::Hearts(hearts::Event::GameOver { .. }) => Some(Milestone::Series),
            GameEvent::Hearts(_) => None,
        }
    }

    /// Who took the trick this event closes, and the points in it.
    pub fn trick_taken(&self) -> Option<(Seat, u32)> {
        match self {
            GameEvent::Kozel(kozel::Event::Trick { winner, points, .. })
            | GameEvent::Hearts(hearts::Event::Trick { winner, points }) => {
                Some((*winner, *points))
            }
            _ => None,
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
            // A Hearts deal is won by whoever scored least in it.
            GameEvent::Hearts(hearts::Event::DealOver { deal_points, .. }) => {
                let least = deal_points.0.iter().copied().min().unwrap_or(0);
                Some(DealOutcome {
                    won: deal_points.map(|&p| p == least),
                    eggs: false,
                })
            }
            GameEvent::Hearts(_) => None,
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
