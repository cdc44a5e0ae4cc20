//! The AI players of a chat table: one interface over both games, for the
//! table service, which knows no game.

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::{AgentConfig, AgentKind, Rules, Seen, UnknownAgent, hearts, kozel};
use kozyr_cards::Seat;
use kozyr_game::{Game, GameAction, GameEvent};
use kozyr_hearts::Match;
use kozyr_kozel::Series;

/// What one seat may know of either game when it decides: its view and the
/// current deal's events as that seat saw them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", content = "observation", rename_all = "snake_case")]
pub enum Observation {
    Kozel(kozel::Observation),
    Hearts(hearts::Observation),
}

impl Observation {
    pub fn seat(&self) -> Seat {
        match self {
            Observation::Kozel(o) => o.seat(),
            Observation::Hearts(o) => o.seat(),
        }
    }
}

/// The events of the deal in play, for either game: the per-game
/// [`kozel::DealLog`] and [`hearts::DealLog`] behind one interface, so a
/// table that knows no game can hand its AI players their observations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameDealLog {
    kozel: kozel::DealLog,
    hearts: hearts::DealLog,
}

impl GameDealLog {
    /// Appends `events`; a new deal starts a new log.
    pub fn record(&mut self, events: &[GameEvent]) {
        let mut k = Vec::new();
        let mut h = Vec::new();
        for e in events {
            match e {
                GameEvent::Kozel(e) => k.push(e.clone()),
                GameEvent::Hearts(e) => h.push(e.clone()),
            }
        }
        self.kozel.record(&k);
        self.hearts.record(&h);
    }

    /// What `seat` knows now of `game`: its view and the deal's events as
    /// that seat saw them.
    pub fn observation(&self, game: &Game, seat: Seat) -> Observation {
        match game {
            Game::Kozel(series) => Observation::Kozel(self.kozel.observation(series, seat)),
            Game::Hearts(game) => Observation::Hearts(self.hearts.observation(game, seat)),
        }
    }
}

/// A named agent for tables of either game. Agents keep per-decision state
/// only, so each decision gets a fresh one, seeded at random: a table's AI
/// player is not reproducible, and needs no memory beyond its observation.
#[derive(Clone, Copy, Debug)]
pub struct TableAgent {
    kind: AgentKind,
    config: AgentConfig,
}

impl TableAgent {
    /// The agent called `name` (`random`, `heuristic` or `search`): a
    /// string, or an [`AgentKind`] already parsed (see [`TableAgent::of`]).
    ///
    /// ```
    /// use kozyr_ai::{AgentConfig, AgentKind, TableAgent};
    /// let agent = TableAgent::new("heuristic", AgentConfig::default()).unwrap();
    /// assert_eq!(agent.kind(), AgentKind::Heuristic);
    /// assert!(TableAgent::new(&AgentKind::Search, AgentConfig::default()).is_ok());
    /// assert!(TableAgent::new("nobody", AgentConfig::default()).is_err());
    /// ```
    pub fn new(
        name: &(impl AsRef<str> + ?Sized),
        config: AgentConfig,
    ) -> Result<TableAgent, UnknownAgent> {
        Ok(TableAgent::of(name.as_ref().parse()?, config))
    }

    /// The agent of this kind.
    pub fn of(kind: AgentKind, config: AgentConfig) -> TableAgent {
        TableAgent { kind, config }
    }

    pub fn kind(&self) -> AgentKind {
        self.kind
    }

    pub fn name(&self) -> &'static str {
        self.kind.as_str()
    }

    /// One of `legal`; `None` when `legal` holds no action of the observed
    /// game (never, as the service asks).
    pub fn choose(&self, seen: &Observation, legal: &[GameAction]) -> Option<GameAction> {
        match seen {
            Observation::Kozel(o) => self
                .choose_in::<Series>(o, legal.iter().filter_map(|a| a.kozel()))
                .map(GameAction::Kozel),
            Observation::Hearts(o) => self
                .choose_in::<Match>(o, legal.iter().filter_map(|a| a.hearts()))
                .map(GameAction::Hearts),
        }
    }

    /// Whether to play `action` out of turn now (a Kozel molodka while
    /// another seat is to move). The table asks after every move of the
    /// others while the seat could, so this never searches: the search
    /// player answers with the rule of thumb (a molodka almost always takes
    /// the trick; see [`kozel::HeuristicAgent`]), the random player at random.
    pub fn wants_out_of_turn(&self, seen: &Observation, action: GameAction) -> bool {
        let (Observation::Kozel(seen), GameAction::Kozel(action)) = (seen, action) else {
            return false;
        };
        match self.kind {
            AgentKind::Random => self
                .kind
                .agent::<Series>(rand::rng().random(), &self.config)
                .wants_out_of_turn(seen, action),
            AgentKind::Heuristic | AgentKind::Search => {
                super::Agent::wants_out_of_turn(&mut kozel::HeuristicAgent, seen, action)
            }
        }
    }

    /// One of `legal`, by a fresh agent of this kind for the game `G`.
    fn choose_in<G: Rules>(
        &self,
        seen: &Seen<G>,
        legal: impl Iterator<Item = G::Action>,
    ) -> Option<G::Action> {
        let legal: Vec<G::Action> = legal.collect();
        if legal.is_empty() {
            return None;
        }
        let mut agent = self.kind.agent::<G>(rand::rng().random(), &self.config);
        Some(agent.choose(seen, &legal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kozyr_game::{GameKind, GameOptions};

    /// Plays a whole game of each kind with the table agent at every seat,
    /// through the game interface and a deal log kept as the service keeps it.
    #[test]
    fn plays_whole_games_of_both_kinds() {
        let agent = TableAgent::new("heuristic", AgentConfig::deterministic(4)).unwrap();
        for kind in [GameKind::Kozel, GameKind::Hearts] {
            let mut game = Game::new(kind, GameOptions::default(), 3);
            let mut log = GameDealLog::default();
            let mut moves = 0;
            while let Some(&seat) = game.awaiting().first() {
                let seen = log.observation(&game, seat);
                assert_eq!(seen.seat(), seat);
                let legal = game.legal_actions(seat);
                let action = agent.choose(&seen, &legal).unwrap();
                assert!(legal.contains(&action));
                let events = game.apply(seat, action).unwrap();
                log.record(&events);
                moves += 1;
                assert!(moves < 100_000);
            }
            assert!(game.is_over());
        }
        assert!(TableAgent::new("nobody", AgentConfig::default()).is_err());
    }

    #[test]
    fn a_new_deal_clears_the_log() {
        let mut game = Game::new(GameKind::Kozel, GameOptions::default(), 5);
        let mut log = GameDealLog::default();
        while let Game::Kozel(s) = &game {
            if s.deal_no() > 1 {
                break;
            }
            let seat = game.awaiting()[0];
            let a = game.legal_actions(seat)[0];
            let events = game.apply(seat, a).unwrap();
            log.record(&events);
        }
        let Observation::Kozel(seen) = log.observation(&game, game.awaiting()[0]) else {
            panic!("a Kozel game gives Kozel observations");
        };
        assert!(matches!(
            seen.history.as_slice(),
            [kozyr_kozel::SeenEvent::DealStarted { .. }]
        ));
    }
}
