//! What a card menu may hold: for platforms that show a hand's cards as one
//! multi-select menu (Discord's string select) rather than a button per
//! card, the number of cards the moves open to the seat take.

use super::games::front_of;
use kozyr_game::GameAction;
use kozyr_table::HandView;

/// How many cards a selection may hold for the moves `hand` allows now: a
/// Kozel lead of 1–4, a beat or pass of exactly the trick's width, the
/// Hearts pass of exactly 3. `None` when no move takes a set of cards (not
/// the seat's turn, or a move of one card, which a press makes at once).
///
/// ```
/// use kozyr_game::GameAction;
/// use kozyr_hearts::Action;
/// let three = "2C 3C 4C".parse().unwrap();
/// assert_eq!(kozyr_front::select::bounds(&[GameAction::Hearts(Action::PassCards(three))]), Some((3, 3)));
/// ```
pub fn bounds(legal: &[GameAction]) -> Option<(usize, usize)> {
    let sizes = legal
        .iter()
        .filter_map(|&a| front_of(a.kind()).card_set(a))
        .map(|set| set.len() as usize);
    sizes.fold(None, |acc, n| match acc {
        None => Some((n, n)),
        Some((lo, hi)) => Some((lo.min(n), hi.max(n))),
    })
}

/// [`bounds`] of a hand.
pub fn bounds_of(hand: &HandView) -> Option<(usize, usize)> {
    bounds(&hand.legal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kozyr_kozel::Action;

    #[test]
    fn kozel_leads_span_their_sizes_and_nothing_is_none() {
        let set = |s: &str| s.parse().unwrap();
        let legal = [
            GameAction::Kozel(Action::Lead(set("AS"))),
            GameAction::Kozel(Action::Lead(set("AS KS TS"))),
            GameAction::Kozel(Action::Molodka),
        ];
        assert_eq!(bounds(&legal), Some((1, 3)));
        assert_eq!(bounds(&[GameAction::Kozel(Action::Molodka)]), None);
        assert_eq!(bounds(&[]), None);
    }
}
