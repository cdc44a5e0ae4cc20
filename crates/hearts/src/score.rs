use serde::{Deserialize, Serialize};

use super::DEAL_POINTS;
use kozyr_cards::{PerSeat, Seat};

/// How one deal scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealScore {
    /// Card points each seat took in its tricks (26 in all).
    pub taken: PerSeat<u32>,
    /// What each seat scores: `taken`, unless someone shot the moon.
    pub points: PerSeat<u32>,
    /// Who shot the moon, when the option is on and one seat took all 26.
    pub moon_shooter: Option<Seat>,
}

/// Scores a deal from the card points each seat took. With `shoot_the_moon`,
/// a seat that took all 26 scores 0 and every other seat 26; without it,
/// points count as taken.
///
/// ```
/// use kozyr_cards::{PerSeat, Seat};
/// use kozyr_hearts::score_deal;
/// let all_to_2 = PerSeat([0, 0, 26, 0]);
/// let on = score_deal(all_to_2, true);
/// assert_eq!(on.points, PerSeat([26, 26, 0, 26]));
/// assert_eq!(on.moon_shooter, Seat::new(2));
/// let off = score_deal(all_to_2, false);
/// assert_eq!(off.points, all_to_2);
/// assert_eq!(off.moon_shooter, None);
/// ```
pub fn score_deal(taken: PerSeat<u32>, shoot_the_moon: bool) -> DealScore {
    let moon_shooter = shoot_the_moon
        .then(|| Seat::ALL.into_iter().find(|&s| taken[s] == DEAL_POINTS))
        .flatten();
    let points = match moon_shooter {
        Some(shooter) => PerSeat::from_fn(|s| if s == shooter { 0 } else { DEAL_POINTS }),
        None => taken,
    };
    DealScore {
        taken,
        points,
        moon_shooter,
    }
}

/// A seat's place at the end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Standing {
    /// 1 for the winner. Seats with equal totals share a place, and the next
    /// place is skipped: totals 10, 10, 30, 40 place 1, 1, 3, 4.
    pub place: u8,
    pub seat: Seat,
    pub total: u32,
}

/// Ranks seats by total, fewest points first; ties share a place and are
/// listed by seat.
///
/// ```
/// use kozyr_cards::PerSeat;
/// use kozyr_hearts::rank;
/// let r = rank(PerSeat([104, 40, 40, 77]));
/// let places: Vec<(u8, usize, u32)> = r.iter().map(|s| (s.place, s.seat.index(), s.total)).collect();
/// assert_eq!(places, [(1, 1, 40), (1, 2, 40), (3, 3, 77), (4, 0, 104)]);
/// ```
pub fn rank(totals: PerSeat<u32>) -> [Standing; 4] {
    let mut seats = Seat::ALL;
    seats.sort_by_key(|&s| (totals[s], s));
    seats.map(|seat| {
        let better = Seat::ALL
            .iter()
            .filter(|&&o| totals[o] < totals[seat])
            .count();
        Standing {
            place: better as u8 + 1,
            seat,
            total: totals[seat],
        }
    })
}
