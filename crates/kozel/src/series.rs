use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{Action, Deal, DealResult, Deck, Event, RuleError, Team, View};
use kozyr_cards::Seat;

/// Defeat points at which a team has lost the series and is the goat.
pub const SERIES_LOSS: u32 = 12;

/// A series of Kozel deals, played until one team has 12 defeat points.
///
/// All randomness comes from the seed given to [`Series::new`]: the same
/// seed and the same actions give the same series, which is what lets the
/// table service rebuild a series from its event log.
///
/// ```
/// use kozyr_kozel::{Action, Series};
/// let mut series = Series::new(42);
/// let seat = series.deal().to_act().unwrap();
/// let lead = series.deal().legal_actions(seat)[0];
/// let events = series.apply(seat, lead).unwrap();
/// assert!(!events.is_empty());
/// // A rejected action changes nothing.
/// let before = series.clone();
/// assert!(series.apply(seat, Action::Molodka).is_err() || series != before);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Series {
    seed: u64,
    deal_no: u32,
    pub(super) deal: Deal,
    pub(super) defeat_points: [u32; 2],
    pub(super) eggs_seen: bool,
    results: Vec<DealResult>,
    goat: Option<Team>,
}

/// What a seat may see of the series: its view of the current deal and the score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeriesView {
    pub deal_no: u32,
    pub deal: View,
    pub defeat_points: [u32; 2],
    pub eggs_seen: bool,
    pub goat: Option<Team>,
}

impl Series {
    /// Starts a series: a random first dealer, and the player to the
    /// dealer's left leads.
    pub fn new(seed: u64) -> Series {
        let mut rng = Self::deal_rng(seed, 1);
        let dealer = Seat::ALL[rng.random_range(0..4usize)];
        let deal = Deal::new(dealer, dealer.next(), Deck::shuffled(&mut rng));
        Series {
            seed,
            deal_no: 1,
            deal,
            defeat_points: [0; 2],
            eggs_seen: false,
            results: Vec::new(),
            goat: None,
        }
    }

    /// Each deal's shuffle has its own generator, derived from the seed and
    /// the deal number, so a series can be resumed from any deal.
    fn deal_rng(seed: u64, deal_no: u32) -> Xoshiro256PlusPlus {
        let mixed = seed ^ (u64::from(deal_no)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Xoshiro256PlusPlus::seed_from_u64(mixed)
    }

    /// The deal in play, or the last one once the series is over.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The number of the current deal, from 1.
    pub fn deal_no(&self) -> u32 {
        self.deal_no
    }

    pub fn defeat_points(&self) -> [u32; 2] {
        self.defeat_points
    }

    /// Whether any deal so far ended 60–60.
    pub fn eggs_seen(&self) -> bool {
        self.eggs_seen
    }

    /// The finished deals' results, in order.
    pub fn results(&self) -> &[DealResult] {
        &self.results
    }

    /// The losing team, once the series is over.
    pub fn goat(&self) -> Option<Team> {
        self.goat
    }

    pub fn is_over(&self) -> bool {
        self.goat.is_some()
    }

    pub fn to_act(&self) -> Option<Seat> {
        if self.is_over() {
            None
        } else {
            self.deal.to_act()
        }
    }

    pub fn view(&self, seat: Seat) -> SeriesView {
        SeriesView {
            deal_no: self.deal_no,
            deal: self.deal.view(seat),
            defeat_points: self.defeat_points,
            eggs_seen: self.eggs_seen,
            goat: self.goat,
        }
    }

    pub fn check(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::SeriesOver);
        }
        self.deal.check(seat, action)
    }

    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if self.is_over() {
            Vec::new()
        } else {
            self.deal.legal_actions(seat)
        }
    }

    /// Plays an action. When it ends the deal, the deal is scored and either
    /// the series ends or the next deal is dealt: the dealer moves one seat
    /// clockwise and the winner of the last trick leads.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::SeriesOver);
        }
        self.deal.apply_into(seat, action, events)?;
        let Some(result) = self.deal.result() else {
            return Ok(());
        };
        self.results.push(result);
        for t in 0..2 {
            self.defeat_points[t] += result.defeat_points[t];
        }
        self.eggs_seen |= result.eggs;
        if let Some(goat) = Team::ALL
            .into_iter()
            .find(|t| self.defeat_points[t.index()] >= super::SERIES_LOSS)
        {
            self.goat = Some(goat);
            events.push(Event::SeriesOver {
                goat,
                with_eggs: self.eggs_seen,
            });
            return Ok(());
        }
        self.deal_no += 1;
        let mut rng = Self::deal_rng(self.seed, self.deal_no);
        let dealer = self.deal.dealer().next();
        self.deal = Deal::new(dealer, result.last_winner, Deck::shuffled(&mut rng));
        events.push(Event::DealStarted {
            deal: self.deal_no,
            dealer,
            first_leader: result.last_winner,
            trump_card: self.deal.trump_card(),
        });
        Ok(())
    }

    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        self.apply_into(seat, action, &mut events)?;
        Ok(events)
    }
}
