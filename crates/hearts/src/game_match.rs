use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{
    Action, Deal, DealScore, DealView, Event, HeartsOptions, RuleError, Standing, rank, score_deal,
};
use kozyr_cards::{PerSeat, Seat};

/// One game of Hearts: deals until someone has `end_score` points at the
/// end of a deal. The first dealer is random; the dealer moves one seat
/// clockwise each deal.
///
/// All randomness comes from the seed given to [`Match::new`]: the same
/// seed and the same actions give the same game, which is what lets the
/// table service rebuild a game from its event log.
///
/// ```
/// use kozyr_cards::Seat;
/// use kozyr_hearts::{Action, Event, HeartsOptions, Match, Phase};
/// let mut game = Match::new(HeartsOptions::default(), 42);
/// assert_eq!(game.deal().phase(), Phase::Passing);
/// // Everyone passes their first three legal choices; then the 2♣ leads.
/// for seat in Seat::ALL {
///     let pass = game.legal_actions(seat)[0];
///     game.apply(seat, pass).unwrap();
/// }
/// let leader = game.deal().to_act().unwrap();
/// let events = game.apply(leader, game.legal_actions(leader)[0]).unwrap();
/// assert_eq!(events, [Event::Play { seat: leader, card: "2C".parse().unwrap() }]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "MatchRepr")]
pub struct Match {
    options: HeartsOptions,
    seed: u64,
    deal: Deal,
    totals: PerSeat<u32>,
    results: Vec<DealScore>,
    ranking: Option<[Standing; 4]>,
}

/// Why a match cannot be set up from the given parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    #[error("the deal is already over")]
    DealOver,
    #[error("inconsistent match state: {0}")]
    Inconsistent(&'static str),
}

/// What a seat may see of a game: its view of the current deal and the score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    pub seat: Seat,
    pub options: HeartsOptions,
    /// Running totals, the deals finished so far included.
    pub totals: PerSeat<u32>,
    /// The finished deals' scores, in order.
    pub results: Vec<DealScore>,
    /// The final standings, once the game is over.
    pub ranking: Option<[Standing; 4]>,
    pub deal: DealView,
}

impl Match {
    /// Starts a game: a random first dealer, deal number 1 (pass left).
    pub fn new(options: HeartsOptions, seed: u64) -> Match {
        let mut rng = deal_rng(seed, 1);
        let dealer = Seat::ALL[rng.random_range(0..4usize)];
        let deal = Deal::shuffled_numbered(&mut rng, dealer, 1)
            .with_any_heart_breaks(options.any_heart_breaks);
        Match {
            options,
            seed,
            deal,
            totals: PerSeat::default(),
            results: Vec::new(),
            ranking: None,
        }
    }

    /// Resumes a game at `deal` with running totals `totals` (the deal's own
    /// points not yet counted). Later deals are shuffled from `seed` and
    /// their numbers, and the dealer keeps moving clockwise from `deal`'s.
    ///
    /// ```
    /// use kozyr_cards::{CardSet, PerSeat, Seat, Suit};
    /// use kozyr_hearts::{Deal, HeartsOptions, Match};
    /// let by_suit = PerSeat(Suit::ALL.map(|s| CardSet::FULL.of_suit(s)));
    /// let deal = Deal::from_hands(by_suit, Seat::new(0).unwrap(), 4).unwrap();
    /// let game = Match::from_deal(HeartsOptions::default(), 1, deal, PerSeat([90, 12, 40, 99])).unwrap();
    /// assert_eq!(game.totals(), PerSeat([90, 12, 40, 99]));
    /// assert!(!game.is_over());
    /// ```
    pub fn from_deal(
        options: HeartsOptions,
        seed: u64,
        deal: Deal,
        totals: PerSeat<u32>,
    ) -> Result<Match, MatchError> {
        if deal.is_over() {
            return Err(MatchError::DealOver);
        }
        Ok(Match {
            options,
            seed,
            deal: deal.with_any_heart_breaks(options.any_heart_breaks),
            totals,
            results: Vec::new(),
            ranking: None,
        })
    }

    pub fn options(&self) -> HeartsOptions {
        self.options
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The deal in play, or the last one once the game is over.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The number of the current deal within the game, from 1.
    pub fn deal_no(&self) -> u32 {
        self.deal.number()
    }

    /// Running totals of the finished deals.
    pub fn totals(&self) -> PerSeat<u32> {
        self.totals
    }

    /// The finished deals' scores, in order (since [`Match::from_deal`], if resumed).
    pub fn results(&self) -> &[DealScore] {
        &self.results
    }

    /// The final standings, once the game is over.
    pub fn ranking(&self) -> Option<[Standing; 4]> {
        self.ranking
    }

    pub fn is_over(&self) -> bool {
        self.ranking.is_some()
    }

    /// Whose turn it is to play a card; `None` while passing and once over.
    pub fn to_act(&self) -> Option<Seat> {
        if self.is_over() {
            None
        } else {
            self.deal.to_act()
        }
    }

    /// Whether `seat` has something to do now.
    pub fn may_act(&self, seat: Seat) -> bool {
        !self.is_over() && self.deal.may_act(seat)
    }

    /// The seats the game is waiting for: while passing, every seat that has
    /// not passed; while playing, the seat to play.
    /// The iterator does not borrow the match.
    pub fn awaiting(&self) -> impl Iterator<Item = Seat> + use<> {
        let waiting = PerSeat::from_fn(|s| self.may_act(s));
        Seat::ALL.into_iter().filter(move |&s| waiting[s])
    }

    /// What `seat` may see.
    pub fn view(&self, seat: Seat) -> View {
        View {
            seat,
            options: self.options,
            totals: self.totals,
            results: self.results.clone(),
            ranking: self.ranking,
            deal: self.deal.view(seat),
        }
    }

    pub fn check(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::GameOver);
        }
        self.deal.check(seat, action)
    }

    pub fn legal_actions_into(&self, seat: Seat, out: &mut Vec<Action>) {
        if !self.is_over() {
            self.deal.legal_actions_into(seat, out);
        }
    }

    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = Vec::new();
        self.legal_actions_into(seat, &mut v);
        v
    }

    /// Plays an action. When it ends the deal, the deal is scored and either
    /// the game ends (someone has reached the end score) or the next deal is
    /// dealt. On error nothing changes and nothing is appended.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::GameOver);
        }
        self.deal.apply_into(seat, action, events)?;
        if !self.deal.is_over() {
            return Ok(());
        }
        let score = score_deal(self.deal.points_taken(), self.options.shoot_the_moon);
        for s in Seat::ALL {
            self.totals[s] = self.totals[s].saturating_add(score.points[s]);
        }
        self.results.push(score);
        events.push(Event::DealOver {
            deal: self.deal.number(),
            deal_points: score.points,
            total_points: self.totals,
            moon_shooter: score.moon_shooter,
        });
        if self.totals.0.iter().any(|&t| t >= self.options.end_score) {
            let ranking = rank(self.totals);
            self.ranking = Some(ranking);
            events.push(Event::GameOver { ranking });
            return Ok(());
        }
        let number = self.deal.number().saturating_add(1);
        let dealer = self.deal.dealer().next();
        self.deal = Deal::shuffled_numbered(&mut deal_rng(self.seed, number), dealer, number)
            .with_any_heart_breaks(self.options.any_heart_breaks);
        events.push(Event::DealStarted {
            deal: number,
            dealer,
            pass_direction: self.deal.pass_direction(),
        });
        Ok(())
    }

    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        self.apply_into(seat, action, &mut events)?;
        Ok(events)
    }

    fn invariant_violation(&self) -> Option<&'static str> {
        if let Some(why) = self.deal.invariant_violation() {
            return Some(why);
        }
        match self.ranking {
            None if self.deal.is_over() => Some("a finished deal was not followed by another"),
            Some(r) if !self.deal.is_over() || r != rank(self.totals) => {
                Some("the ranking does not match the totals")
            }
            Some(_) if self.totals.0.iter().all(|&t| t < self.options.end_score) => {
                Some("the game ended before anyone reached the end score")
            }
            _ if self.results.len() > self.deal.number() as usize => {
                Some("more results than deals")
            }
            _ => None,
        }
    }
}

/// Each deal's shuffle has its own generator, derived from the seed and the
/// deal number, so a game can be resumed from any deal.
fn deal_rng(seed: u64, deal_no: u32) -> Xoshiro256PlusPlus {
    // A different odd constant from Kozel's, so one seed gives unrelated
    // shuffles in the two games.
    let mixed = seed ^ u64::from(deal_no).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    Xoshiro256PlusPlus::seed_from_u64(mixed)
}

/// The serialized form of a [`Match`], checked on the way in.
#[derive(Deserialize)]
struct MatchRepr {
    options: HeartsOptions,
    seed: u64,
    deal: Deal,
    totals: PerSeat<u32>,
    results: Vec<DealScore>,
    ranking: Option<[Standing; 4]>,
}

impl TryFrom<MatchRepr> for Match {
    type Error = MatchError;
    fn try_from(r: MatchRepr) -> Result<Match, MatchError> {
        let m = Match {
            options: r.options,
            seed: r.seed,
            deal: r.deal,
            totals: r.totals,
            results: r.results,
            ranking: r.ranking,
        };
        match m.invariant_violation() {
            None => Ok(m),
            Some(why) => Err(MatchError::Inconsistent(why)),
        }
    }
}
