use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::{
    Action, Event, HAND_SIZE, PASS_SIZE, POINT_CARDS, PassDirection, RuleError, TRICKS,
    TWO_OF_CLUBS, points_of,
};
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};

const DECK_LEN: usize = 52;

/// Where a deal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Seats that have not passed yet choose their three cards.
    Passing,
    /// Tricks are being played.
    Playing,
    /// All thirteen tricks are played.
    Over,
}

/// A finished trick, kept so players can look back at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CompletedTrick {
    pub leader: Seat,
    /// The four cards in the order played, starting with the leader's.
    pub cards: [Card; 4],
    pub winner: Seat,
    pub points: u32,
}

impl CompletedTrick {
    /// The card `seat` played to this trick.
    pub fn card_of(&self, seat: Seat) -> Card {
        self.cards[self.leader.distance_to(seat) as usize]
    }
}

/// Why a deal cannot be set up from the given cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("a Hearts deck holds each of the 52 cards exactly once")]
    NotADeck,
    #[error("each hand holds 13 cards and together they hold the 52 cards once")]
    BadHands,
    #[error("deals are numbered from 1")]
    DealNumber,
    #[error("inconsistent deal state: {0}")]
    Inconsistent(&'static str),
}

/// One Hearts deal: thirteen cards each, the pass, and thirteen tricks.
///
/// Small and `Copy` (no heap), so the AI can copy a position and play it
/// out many times. Knows nothing of the options or the running totals;
/// [`super::Match`] scores it with [`super::score_deal`].
///
/// ```
/// use kozyr_cards::{CardSet, Seat};
/// use kozyr_hearts::{Action, Deal, Phase, RuleError};
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7);
/// let mut deal = Deal::shuffled(&mut rng, Seat::new(0).unwrap(), 1).unwrap();
/// assert_eq!(deal.phase(), Phase::Passing);
/// let s = Seat::new(2).unwrap();
/// let three: CardSet = deal.hand(s).iter().take(3).collect();
/// let events = deal.apply(s, Action::PassCards(three)).unwrap();
/// assert_eq!(events.len(), 1);
/// assert_eq!(deal.hand(s).len(), 10);
/// // Nothing changes when an action is refused.
/// let before = deal;
/// assert_eq!(deal.apply(s, Action::PassCards(three)), Err(RuleError::AlreadyPassed));
/// assert_eq!(deal, before);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "DealRepr")]
pub struct Deal {
    number: u32,
    dealer: Seat,
    dealt: PerSeat<CardSet>,
    /// What each seat passed, once it has; kept after the exchange.
    passes: PerSeat<Option<CardSet>>,
    hands: PerSeat<CardSet>,
    phase: Phase,
    /// The seat that leads (or led) the current trick.
    leader: Seat,
    /// The current trick's cards in play order; only the first `count` mean anything.
    trick: [Card; 4],
    count: u8,
    /// The seat whose card currently wins the trick (meaningful once led).
    winning: Seat,
    /// The cards each seat has taken in tricks.
    taken: PerSeat<CardSet>,
    hearts_broken: bool,
    tricks_played: u8,
    last_trick: Option<CompletedTrick>,
    /// The common rule: any heart played breaks hearts, not only one
    /// discarded by a player who could not follow (`HeartsOptions`).
    any_heart_breaks: bool,
}

/// Everything one seat may know about a deal, and nothing more: its own
/// hand, the cards it passed and received, and what is public.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealView {
    pub seat: Seat,
    /// The deal's number within the game, from 1.
    pub number: u32,
    pub dealer: Seat,
    pub phase: Phase,
    pub pass_direction: PassDirection,
    pub hand: CardSet,
    /// The cards this seat passed, once it has.
    pub passed: Option<CardSet>,
    /// The cards this seat received, once everyone has passed.
    pub received: Option<CardSet>,
    /// Which seats have already chosen their cards to pass.
    pub has_passed: PerSeat<bool>,
    /// The seat that leads the current trick; `None` while passing, since
    /// the two of clubs may still change hands.
    pub leader: Option<Seat>,
    pub to_act: Option<Seat>,
    /// The card each seat has put on the current trick.
    pub table: PerSeat<Option<Card>>,
    pub hearts_broken: bool,
    /// Card points taken so far this deal, before shooting the moon.
    pub points_taken: PerSeat<u32>,
    pub tricks_won: PerSeat<u32>,
    pub tricks_played: u32,
    /// Every card played so far this deal, the current trick included.
    pub played: CardSet,
    pub hand_sizes: PerSeat<u32>,
    pub last_trick: Option<CompletedTrick>,
}

impl Deal {
    /// Deals `deck` one card at a time clockwise, starting left of `dealer`.
    /// `number` is the deal's number within the game (from 1); it sets the
    /// pass direction.
    ///
    /// ```
    /// use kozyr_cards::{Card, CardSet, Seat};
    /// use kozyr_hearts::{Deal, DealError, PassDirection, Phase};
    /// let deck: Vec<Card> = CardSet::FULL.iter().collect();
    /// let dealer = Seat::new(3).unwrap();
    /// let deal = Deal::new(&deck, dealer, 4).unwrap();
    /// assert_eq!(deal.pass_direction(), PassDirection::None);
    /// assert_eq!(deal.phase(), Phase::Playing);
    /// // Seat 0 got the first card, then every fourth: 2♠ 6♠ 10♠ A♠ 5♥ …
    /// assert!(deal.hand(Seat::new(0).unwrap()).contains("6S".parse().unwrap()));
    /// assert_eq!(Deal::new(&deck[1..], dealer, 4), Err(DealError::NotADeck));
    /// assert_eq!(Deal::new(&deck, dealer, 0), Err(DealError::DealNumber));
    /// ```
    pub fn new(deck: &[Card], dealer: Seat, number: u32) -> Result<Deal, DealError> {
        let set: CardSet = deck.iter().collect();
        if deck.len() != DECK_LEN || set != CardSet::FULL {
            return Err(DealError::NotADeck);
        }
        Deal::from_hands(deal_out(deck, dealer), dealer, number)
    }

    /// Sets up a deal from the four hands as dealt: each exactly 13 cards,
    /// together the whole deck.
    ///
    /// ```
    /// use kozyr_cards::{CardSet, PerSeat, Seat, Suit};
    /// use kozyr_hearts::{Deal, DealError};
    /// let by_suit = PerSeat(Suit::ALL.map(|s| CardSet::FULL.of_suit(s)));
    /// let deal = Deal::from_hands(by_suit, Seat::new(0).unwrap(), 4).unwrap();
    /// // Seat 3 holds the clubs, so it leads the two of clubs.
    /// assert_eq!(deal.to_act(), Seat::new(3));
    /// let mut short = by_suit;
    /// short[Seat::new(0).unwrap()] = CardSet::EMPTY;
    /// assert_eq!(Deal::from_hands(short, Seat::new(0).unwrap(), 4), Err(DealError::BadHands));
    /// ```
    pub fn from_hands(
        hands: PerSeat<CardSet>,
        dealer: Seat,
        number: u32,
    ) -> Result<Deal, DealError> {
        if number == 0 {
            return Err(DealError::DealNumber);
        }
        let union = hands.0.iter().fold(CardSet::EMPTY, |a, &h| a | h);
        if union != CardSet::FULL || hands.0.iter().any(|h| h.len() != HAND_SIZE) {
            return Err(DealError::BadHands);
        }
        Ok(Deal::from_valid_hands(hands, dealer, number))
    }

    /// Shuffles a deck with `rng` and deals it.
    pub fn shuffled<R: Rng + ?Sized>(
        rng: &mut R,
        dealer: Seat,
        number: u32,
    ) -> Result<Deal, DealError> {
        if number == 0 {
            return Err(DealError::DealNumber);
        }
        Ok(Deal::shuffled_numbered(rng, dealer, number))
    }

    /// [`Deal::shuffled`] for callers that know `number` is at least 1.
    pub(super) fn shuffled_numbered<R: Rng + ?Sized>(
        rng: &mut R,
        dealer: Seat,
        number: u32,
    ) -> Deal {
        let mut deck = [TWO_OF_CLUBS; DECK_LEN];
        for (slot, c) in deck.iter_mut().zip(CardSet::FULL) {
            *slot = c;
        }
        deck.shuffle(rng);
        Deal::from_valid_hands(deal_out(&deck, dealer), dealer, number.max(1))
    }

    fn from_valid_hands(hands: PerSeat<CardSet>, dealer: Seat, number: u32) -> Deal {
        let passing = PassDirection::for_deal(number) != PassDirection::None;
        let mut deal = Deal {
            number,
            dealer,
            dealt: hands,
            passes: PerSeat([None; 4]),
            hands,
            phase: if passing {
                Phase::Passing
            } else {
                Phase::Playing
            },
            leader: dealer,
            trick: [TWO_OF_CLUBS; 4],
            count: 0,
            winning: dealer,
            taken: PerSeat::default(),
            hearts_broken: false,
            tricks_played: 0,
            last_trick: None,
            any_heart_breaks: false,
        };
        deal.leader = deal.holder_of_two_of_clubs();
        deal.winning = deal.leader;
        deal
    }

    fn holder_of_two_of_clubs(&self) -> Seat {
        Seat::ALL
            .into_iter()
            .find(|&s| self.hands[s].contains(TWO_OF_CLUBS))
            .unwrap_or(self.leader)
    }

    /// The deal's number within the game, from 1.
    pub fn number(&self) -> u32 {
        self.number
    }

    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    pub fn pass_direction(&self) -> PassDirection {
        PassDirection::for_deal(self.number)
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The hands as dealt, before passing.
    pub fn dealt(&self) -> &PerSeat<CardSet> {
        &self.dealt
    }

    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat]
    }

    /// The cards `seat` passed, once it has chosen them.
    pub fn passed(&self, seat: Seat) -> Option<CardSet> {
        self.passes[seat]
    }

    /// The cards `seat` received, once the exchange has happened.
    pub fn received(&self, seat: Seat) -> Option<CardSet> {
        if self.phase == Phase::Passing {
            return None;
        }
        self.passes[self.pass_direction().source(seat)?]
    }

    /// The seat that leads (or led) the current trick. While passing, the
    /// holder of the two of clubs before the exchange.
    pub fn leader(&self) -> Seat {
        self.leader
    }

    /// Whose turn it is to play; `None` while passing (every seat that has
    /// not passed may act, see [`Deal::may_act`]) and once the deal is over.
    pub fn to_act(&self) -> Option<Seat> {
        (self.phase == Phase::Playing).then(|| self.leader.offset(self.count))
    }

    /// Whether `seat` has something to do now.
    pub fn may_act(&self, seat: Seat) -> bool {
        match self.phase {
            Phase::Passing => self.passes[seat].is_none(),
            Phase::Playing => self.to_act() == Some(seat),
            Phase::Over => false,
        }
    }

    /// The seats the deal is waiting for, in seat order. The iterator does
    /// not borrow the deal, so it can drive a loop that changes it.
    pub fn awaiting(&self) -> impl Iterator<Item = Seat> + use<> {
        let waiting = PerSeat::from_fn(|s| self.may_act(s));
        Seat::ALL.into_iter().filter(move |&s| waiting[s])
    }

    /// The current trick's cards in play order, the leader's first.
    pub fn trick(&self) -> &[Card] {
        &self.trick[..(self.count as usize).min(4)]
    }

    /// The card each seat has put on the current trick.
    pub fn table(&self) -> PerSeat<Option<Card>> {
        let mut table = PerSeat([None; 4]);
        for (i, &c) in self.trick().iter().enumerate() {
            table[self.leader.offset(i as u8)] = Some(c);
        }
        table
    }

    /// The suit of the current trick, once it is led.
    pub fn led_suit(&self) -> Option<Suit> {
        self.trick().first().map(|c| c.suit())
    }

    /// Whether a heart has been discarded on a trick led in another suit.
    pub fn hearts_broken(&self) -> bool {
        self.hearts_broken
    }

    /// The deal under the common rule when `on`: any heart played breaks
    /// hearts (a heart led when holding only hearts, or one followed to a
    /// heart lead, too). Set before the first card is played.
    ///
    /// ```
    /// use kozyr_cards::{CardSet, PerSeat, Seat, Suit};
    /// use kozyr_hearts::{Action, Deal};
    /// let by_suit = PerSeat(Suit::ALL.map(|s| CardSet::FULL.of_suit(s)));
    /// let deal = Deal::from_hands(by_suit, Seat::new(0).unwrap(), 4).unwrap();
    /// assert!(!deal.any_heart_breaks());
    /// assert!(deal.with_any_heart_breaks(true).any_heart_breaks());
    /// ```
    pub fn with_any_heart_breaks(mut self, on: bool) -> Deal {
        self.any_heart_breaks = on;
        self
    }

    /// Whether any heart played breaks hearts (see [`Deal::with_any_heart_breaks`]).
    pub fn any_heart_breaks(&self) -> bool {
        self.any_heart_breaks
    }

    pub fn tricks_played(&self) -> u32 {
        u32::from(self.tricks_played)
    }

    /// The cards `seat` has taken in tricks this deal.
    pub fn taken(&self, seat: Seat) -> CardSet {
        self.taken[seat]
    }

    /// Card points each seat has taken this deal (before shooting the moon).
    pub fn points_taken(&self) -> PerSeat<u32> {
        self.taken.map(|&t| points_of(t))
    }

    /// Every card played this deal, the current trick included.
    pub fn played(&self) -> CardSet {
        self.taken.0.iter().fold(CardSet::EMPTY, |a, &t| a | t) | self.trick().iter().collect()
    }

    pub fn last_trick(&self) -> Option<CompletedTrick> {
        self.last_trick
    }

    /// What `seat` may see.
    ///
    /// ```
    /// use kozyr_cards::{CardSet, PerSeat, Seat, Suit};
    /// use kozyr_hearts::{Action, Deal};
    /// let by_suit = PerSeat(Suit::ALL.map(|s| CardSet::FULL.of_suit(s)));
    /// let mut deal = Deal::from_hands(by_suit, Seat::new(0).unwrap(), 4).unwrap();
    /// let clubs = Seat::new(3).unwrap();
    /// deal.apply(clubs, Action::Play("2C".parse().unwrap())).unwrap();
    /// let view = deal.view(Seat::new(0).unwrap());
    /// assert_eq!(view.hand, CardSet::FULL.of_suit(Suit::Spades));
    /// assert_eq!(view.table[clubs], Some("2C".parse().unwrap()));
    /// assert_eq!(view.to_act, Seat::new(0));
    /// assert_eq!(view.hand_sizes[clubs], 12);
    /// ```
    pub fn view(&self, seat: Seat) -> DealView {
        DealView {
            seat,
            number: self.number,
            dealer: self.dealer,
            phase: self.phase,
            pass_direction: self.pass_direction(),
            hand: self.hands[seat],
            passed: self.passes[seat],
            received: self.received(seat),
            has_passed: self.passes.map(Option::is_some),
            leader: (self.phase != Phase::Passing).then_some(self.leader),
            to_act: self.to_act(),
            table: self.table(),
            hearts_broken: self.hearts_broken,
            points_taken: self.points_taken(),
            tricks_won: self.taken.map(|t| t.len() / 4),
            tricks_played: self.tricks_played(),
            played: self.played(),
            hand_sizes: self.hands.map(|h| h.len()),
            last_trick: self.last_trick,
        }
    }

    /// The cards `seat` may play now; empty when it is not its turn to play.
    ///
    /// ```
    /// use kozyr_cards::{CardSet, PerSeat, Seat, Suit};
    /// use kozyr_hearts::Deal;
    /// let by_suit = PerSeat(Suit::ALL.map(|s| CardSet::FULL.of_suit(s)));
    /// let deal = Deal::from_hands(by_suit, Seat::new(0).unwrap(), 4).unwrap();
    /// assert_eq!(deal.legal_plays(Seat::new(3).unwrap()).to_string(), "2C");
    /// assert!(deal.legal_plays(Seat::new(0).unwrap()).is_empty());
    /// ```
    pub fn legal_plays(&self, seat: Seat) -> CardSet {
        if self.to_act() != Some(seat) {
            return CardSet::EMPTY;
        }
        let hand = self.hands[seat];
        let first_trick = self.tricks_played == 0;
        match self.led_suit() {
            None if first_trick => hand & CardSet::single(TWO_OF_CLUBS),
            None if self.hearts_broken => hand,
            None => non_empty_or(hand - CardSet::FULL.of_suit(Suit::Hearts), hand),
            Some(led) => {
                let follow = hand.of_suit(led);
                if !follow.is_empty() {
                    follow
                } else if first_trick {
                    non_empty_or(hand - POINT_CARDS, hand)
                } else {
                    hand
                }
            }
        }
    }

    /// Appends every action `seat` may take now to `out`: each card it may
    /// play, or while it has to pass, each set of three cards of its hand
    /// (286 of them).
    pub fn legal_actions_into(&self, seat: Seat, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Passing if self.passes[seat].is_none() => {
                // Three nested walks over the hand's bits, lowest first.
                let mut first = self.hands[seat].bits();
                while first != 0 {
                    let a = first & first.wrapping_neg();
                    first ^= a;
                    let mut second = first;
                    while second != 0 {
                        let b = second & second.wrapping_neg();
                        second ^= b;
                        let mut third = second;
                        while third != 0 {
                            let c = third & third.wrapping_neg();
                            third ^= c;
                            out.push(Action::PassCards(CardSet::from_bits_truncate(a | b | c)));
                        }
                    }
                }
            }
            Phase::Playing => out.extend(self.legal_plays(seat).iter().map(Action::Play)),
            _ => {}
        }
    }

    /// Every action `seat` may take now.
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = Vec::new();
        self.legal_actions_into(seat, &mut v);
        v
    }

    /// Checks `action` by `seat` without changing anything.
    pub fn check(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        match (self.phase, action) {
            (Phase::Over, _) => Err(RuleError::DealOver),
            (Phase::Passing, Action::PassCards(cards)) => self.check_pass(seat, cards),
            (Phase::Passing, Action::Play(_)) => Err(RuleError::StillPassing),
            (Phase::Playing, Action::PassCards(_)) => Err(RuleError::NotPassing),
            (Phase::Playing, Action::Play(card)) => self.check_play(seat, card),
        }
    }

    fn check_pass(&self, seat: Seat, cards: CardSet) -> Result<(), RuleError> {
        if self.passes[seat].is_some() {
            return Err(RuleError::AlreadyPassed);
        }
        if let Some(card) = (cards - self.hands[seat]).first() {
            return Err(RuleError::NotInHand { card });
        }
        if cards.len() != PASS_SIZE {
            return Err(RuleError::WrongPassCount { got: cards.len() });
        }
        Ok(())
    }

    /// The same rules as [`Deal::legal_plays`], spelled out to say which one
    /// a card breaks; the property tests keep the two in agreement.
    fn check_play(&self, seat: Seat, card: Card) -> Result<(), RuleError> {
        if self.to_act() != Some(seat) {
            return Err(RuleError::NotYourTurn);
        }
        let hand = self.hands[seat];
        if !hand.contains(card) {
            return Err(RuleError::NotInHand { card });
        }
        let first_trick = self.tricks_played == 0;
        match self.led_suit() {
            None if first_trick && card != TWO_OF_CLUBS => Err(RuleError::MustLeadTwoOfClubs),
            None if card.suit() == Suit::Hearts
                && !self.hearts_broken
                && !(hand - CardSet::FULL.of_suit(Suit::Hearts)).is_empty() =>
            {
                Err(RuleError::HeartsNotBroken)
            }
            Some(led) if card.suit() != led && !hand.of_suit(led).is_empty() => {
                Err(RuleError::MustFollowSuit { suit: led })
            }
            Some(led)
                if card.suit() != led
                    && first_trick
                    && POINT_CARDS.contains(card)
                    && !(hand - POINT_CARDS).is_empty() =>
            {
                Err(RuleError::NoPointsOnFirstTrick)
            }
            _ => Ok(()),
        }
    }

    /// Plays `action` for `seat`, appending what happened to `events`. On
    /// error nothing changes and nothing is appended.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        self.check(seat, action)?;
        match action {
            Action::PassCards(cards) => self.pass(seat, cards, events),
            Action::Play(card) => self.play(seat, card, events),
        }
        Ok(())
    }

    /// Like [`Deal::apply_into`], returning the events.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        self.apply_into(seat, action, &mut events)?;
        Ok(events)
    }

    fn pass(&mut self, seat: Seat, cards: CardSet, events: &mut Vec<Event>) {
        let direction = self.pass_direction();
        let Some(to) = direction.target(seat) else {
            return;
        };
        self.hands[seat] = self.hands[seat] - cards;
        self.passes[seat] = Some(cards);
        events.push(Event::Passed { seat, to, cards });
        if self.passes.0.iter().any(Option::is_none) {
            return;
        }
        let mut received = PerSeat::<CardSet>::default();
        for from in Seat::ALL {
            if let (Some(to), Some(cards)) = (direction.target(from), self.passes[from]) {
                self.hands[to] |= cards;
                received[to] = cards;
            }
        }
        self.leader = self.holder_of_two_of_clubs();
        self.winning = self.leader;
        self.phase = Phase::Playing;
        events.push(Event::CardsExchanged {
            received,
            leader: self.leader,
        });
    }

    fn play(&mut self, seat: Seat, card: Card, events: &mut Vec<Event>) {
        self.hands[seat].remove(card);
        let slot = (self.count as usize).min(3);
        self.trick[slot] = card;
        if self.count == 0 {
            self.winning = seat;
        } else {
            let led = self.trick[0].suit();
            let best = self.trick[self.leader.distance_to(self.winning) as usize];
            if card.suit() == led {
                if card.index() > best.index() {
                    self.winning = seat;
                }
            } else if card.suit() == Suit::Hearts {
                self.hearts_broken = true;
            }
        }
        if self.any_heart_breaks && card.suit() == Suit::Hearts {
            self.hearts_broken = true;
        }
        self.count += 1;
        events.push(Event::Play { seat, card });
        if self.count == 4 {
            self.finish_trick(events);
        }
    }

    fn finish_trick(&mut self, events: &mut Vec<Event>) {
        let winner = self.winning;
        let cards: CardSet = self.trick.iter().collect();
        let points = points_of(cards);
        self.taken[winner] |= cards;
        self.last_trick = Some(CompletedTrick {
            leader: self.leader,
            cards: self.trick,
            winner,
            points,
        });
        self.tricks_played = self.tricks_played.saturating_add(1);
        self.count = 0;
        self.leader = winner;
        events.push(Event::Trick { winner, points });
        if u32::from(self.tricks_played) >= TRICKS {
            self.phase = Phase::Over;
        }
    }

    /// Describes the first broken invariant, if any. Every deal built by the
    /// constructors and changed by [`Deal::apply_into`] passes; a deal read
    /// back from a snapshot is checked with it.
    pub fn invariant_violation(&self) -> Option<&'static str> {
        let count = u32::from(self.count);
        let tricks = u32::from(self.tricks_played);
        let in_trick: CardSet = self.trick().iter().collect();
        let pending = |s: Seat| match self.phase {
            Phase::Passing => self.passes[s].unwrap_or(CardSet::EMPTY),
            _ => CardSet::EMPTY,
        };
        let parts = Seat::ALL
            .iter()
            .flat_map(|&s| [self.hands[s], pending(s), self.taken[s]])
            .chain([in_trick]);
        let (n, all) = parts.fold((0, CardSet::EMPTY), |(n, a), p| (n + p.len(), a | p));
        let dealt_union = self.dealt.0.iter().fold(CardSet::EMPTY, |a, &h| a | h);
        let passing_deal = self.pass_direction() != PassDirection::None;
        let checks = [
            (self.number >= 1, "deals are numbered from 1"),
            (
                dealt_union == CardSet::FULL && self.dealt.0.iter().all(|h| h.len() == HAND_SIZE),
                "the hands as dealt are not a deal",
            ),
            (
                n == 52 && all == CardSet::FULL,
                "not every card is present exactly once",
            ),
            (count < 4 && tricks <= TRICKS, "counters out of range"),
            (in_trick.len() == count, "the same card twice in the trick"),
            (
                (self.phase == Phase::Over) == (tricks == TRICKS),
                "the deal is over exactly after 13 tricks",
            ),
            (
                self.taken.0.iter().map(|t| t.len()).sum::<u32>() == 4 * tricks
                    && self.taken.0.iter().all(|t| t.len() % 4 == 0),
                "taken cards do not match the tricks played",
            ),
            (
                (self.last_trick.is_some()) == (tricks > 0),
                "the last trick is missing or extra",
            ),
            (
                self.phase != Phase::Passing || (passing_deal && tricks == 0 && count == 0),
                "passing only happens before the first trick of a passing deal",
            ),
            (
                Seat::ALL.iter().all(|&s| match self.passes[s] {
                    Some(p) => passing_deal && p.len() == PASS_SIZE && p.is_subset(self.dealt[s]),
                    None => self.phase == Phase::Passing || !passing_deal,
                }),
                "passes do not match the deal",
            ),
            (
                Seat::ALL.iter().all(|&s| {
                    let played = (tricks + u32::from(self.leader.distance_to(s) < self.count))
                        .min(HAND_SIZE);
                    let passed = match (self.phase, self.passes[s]) {
                        (Phase::Passing, Some(_)) => PASS_SIZE,
                        _ => 0,
                    };
                    self.hands[s].len() == HAND_SIZE - played - passed
                }),
                "hand sizes do not match the plays",
            ),
            (
                tricks > 0 || count > 0 || self.phase != Phase::Playing || {
                    self.hands[self.leader].contains(TWO_OF_CLUBS)
                },
                "the holder of the two of clubs must lead the first trick",
            ),
            (
                tricks > 0 || count == 0 || self.trick[0] == TWO_OF_CLUBS,
                "the first trick must be led with the two of clubs",
            ),
            (
                count == 0 || self.winning_is_consistent(),
                "the trick's winner is wrong",
            ),
            (
                !self.hearts_broken
                    || !(self.played() & CardSet::FULL.of_suit(Suit::Hearts)).is_empty(),
                "hearts are broken without a heart played",
            ),
        ];
        checks.into_iter().find(|(ok, _)| !ok).map(|(_, why)| why)
    }

    fn winning_is_consistent(&self) -> bool {
        let trick = self.trick();
        let Some(lead) = trick.first() else {
            return false;
        };
        let best = trick
            .iter()
            .enumerate()
            .filter(|(_, c)| c.suit() == lead.suit())
            .max_by_key(|(_, c)| c.index())
            .map_or(0, |(i, _)| i);
        self.leader.offset(best as u8) == self.winning
    }
}

/// Deals `deck` one card at a time clockwise, starting left of `dealer`.
fn deal_out(deck: &[Card], dealer: Seat) -> PerSeat<CardSet> {
    let mut hands = PerSeat::<CardSet>::default();
    for (i, &c) in deck.iter().enumerate() {
        hands[dealer.offset(1 + (i % 4) as u8)].insert(c);
    }
    hands
}

/// `set` unless it is empty, else `fallback`.
fn non_empty_or(set: CardSet, fallback: CardSet) -> CardSet {
    if set.is_empty() { fallback } else { set }
}

/// The serialized form of a [`Deal`]; turned back into one only if its
/// invariants hold, so a damaged snapshot cannot produce an impossible deal.
#[derive(Deserialize)]
struct DealRepr {
    number: u32,
    dealer: Seat,
    dealt: PerSeat<CardSet>,
    passes: PerSeat<Option<CardSet>>,
    hands: PerSeat<CardSet>,
    phase: Phase,
    leader: Seat,
    trick: [Card; 4],
    count: u8,
    winning: Seat,
    taken: PerSeat<CardSet>,
    hearts_broken: bool,
    tricks_played: u8,
    last_trick: Option<CompletedTrick>,
    #[serde(default)]
    any_heart_breaks: bool,
}

impl TryFrom<DealRepr> for Deal {
    type Error = DealError;
    fn try_from(r: DealRepr) -> Result<Deal, DealError> {
        let deal = Deal {
            number: r.number,
            dealer: r.dealer,
            dealt: r.dealt,
            passes: r.passes,
            hands: r.hands,
            phase: r.phase,
            leader: r.leader,
            trick: r.trick,
            count: r.count,
            winning: r.winning,
            taken: r.taken,
            hearts_broken: r.hearts_broken,
            tricks_played: r.tricks_played,
            last_trick: r.last_trick,
            any_heart_breaks: r.any_heart_breaks,
        };
        match deal.invariant_violation() {
            None => Ok(deal),
            Some(why) => Err(DealError::Inconsistent(why)),
        }
    }
}
