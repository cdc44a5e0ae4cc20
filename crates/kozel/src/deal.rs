use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use super::trick::{Played, Trick};
use super::{Action, Event, HAND_SIZE, RuleError, Team, can_beat, deck, points_of};
use kozyr_cards::{Card, CardSet, PerSeat, Seat, Suit};

const DECK_LEN: usize = 36;
const STOCK_LEN: usize = 20;
/// The revealed card is taken from the middle half of the stock (positions 5–14, top = 0).
const TRUMP_POSITIONS: std::ops::Range<u8> = 5..15;

/// A shuffled 36-card Kozel deck and the stock position of the card the
/// dealer reveals. Only a permutation of the Kozel deck gets through
/// [`Deck::new`], so a [`Deal`] never starts from a broken deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deck {
    cards: [Card; DECK_LEN],
    trump_position: u8,
}

/// Why a deck cannot be dealt.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    #[error("a Kozel deck holds each of the 36 cards 6–A exactly once")]
    NotAKozelDeck,
    #[error("the revealed card must come from the middle of the stock (positions 5-14)")]
    TrumpPosition,
}

impl Deck {
    /// Checks that `cards` is the 36-card deck in some order, dealt top first.
    pub fn new(cards: [Card; DECK_LEN], trump_position: u8) -> Result<Deck, DeckError> {
        let set: CardSet = cards.iter().collect();
        if set != deck() || set.len() as usize != DECK_LEN {
            return Err(DeckError::NotAKozelDeck);
        }
        if !TRUMP_POSITIONS.contains(&trump_position) {
            return Err(DeckError::TrumpPosition);
        }
        Ok(Deck {
            cards,
            trump_position,
        })
    }

    /// A shuffled deck with a randomly chosen revealed card.
    pub fn shuffled<R: Rng + ?Sized>(rng: &mut R) -> Deck {
        let mut cards = [Card::new(kozyr_cards::Rank::Ace, Suit::Spades); DECK_LEN];
        for (slot, c) in cards.iter_mut().zip(deck()) {
            *slot = c;
        }
        cards.shuffle(rng);
        let trump_position = rng.random_range(TRUMP_POSITIONS);
        Deck {
            cards,
            trump_position,
        }
    }
}

/// The scores of a finished deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealResult {
    pub team_points: [u32; 2],
    pub team_tricks: [u32; 2],
    pub defeat_points: [u32; 2],
    pub eggs: bool,
    /// Who took the last trick: the first leader of the next deal.
    pub last_winner: Seat,
}

impl DealResult {
    /// Scores a deal from the points and tricks each team took.
    ///
    /// 61+ wins; the loser gets 2 defeat points with 31–59, 4 with 30 or less
    /// if it took a trick, 6 if it took none; 60–60 is eggs and nobody gets any.
    pub fn score(team_points: [u32; 2], team_tricks: [u32; 2], last_winner: Seat) -> DealResult {
        let mut defeat_points = [0; 2];
        let eggs = team_points[0] == team_points[1];
        if !eggs {
            let loser = if team_points[0] < team_points[1] {
                0
            } else {
                1
            };
            defeat_points[loser] = match (team_points[loser], team_tricks[loser]) {
                (_, 0) => 6,
                (0..=30, _) => 4,
                _ => 2,
            };
        }
        DealResult {
            team_points,
            team_tricks,
            defeat_points,
            eggs,
            last_winner,
        }
    }
}

/// Why a serialized deal was refused: it is not a position play can reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("inconsistent Kozel deal: {0}")]
    Inconsistent(&'static str),
}

/// One Kozel deal: from the dealt hands to the last trick.
///
/// Only [`Deal::new`] and play make one, and a deserialized deal is checked
/// first, so a damaged snapshot is refused with a [`DealError`] instead of
/// failing later:
///
/// ```
/// use kozyr_cards::Seat;
/// use kozyr_kozel::{Deal, Deck};
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7);
/// let dealer = Seat::new(0).unwrap();
/// let deal = Deal::new(dealer, dealer.next(), Deck::shuffled(&mut rng));
/// let json = serde_json::to_string(&deal).unwrap();
/// assert_eq!(serde_json::from_str::<Deal>(&json).unwrap(), deal);
/// // The same deal with the stock's top card doubled.
/// let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
/// v["stock"][1] = v["stock"][0].clone();
/// let err = serde_json::from_value::<Deal>(v).unwrap_err();
/// assert!(err.to_string().contains("inconsistent Kozel deal"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "DealRepr")]
pub struct Deal {
    dealer: Seat,
    first_leader: Seat,
    dealt: PerSeat<CardSet>,
    /// The stock as after the deal, top first; `drawn` cards are gone from the top.
    stock: [Card; STOCK_LEN],
    drawn: u8,
    trump_card: Card,
    hands: PerSeat<CardSet>,
    trick: Trick,
    piles: [CardSet; 2],
    tricks: [u32; 2],
    last_winner: Option<Seat>,
}

/// What a seat sees of the cards another seat has on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "cards", rename_all = "snake_case")]
pub enum TableCards {
    FaceUp(CardSet),
    /// Passed cards: only their number is known.
    FaceDown(u32),
}

/// Everything one seat may know about a deal, and nothing more: its own
/// hand, never another's, never passed cards, never the stock order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    pub seat: Seat,
    pub hand: CardSet,
    pub trump_card: Card,
    pub dealer: Seat,
    /// The seat that opened (or had to open) the deal's first trick.
    pub first_leader: Seat,
    /// The seat that opened (or must open) the current trick.
    pub leader: Seat,
    /// Whose play is the current lead: the leader or a molodka player.
    pub lead_seat: Seat,
    pub to_act: Option<Seat>,
    /// Cards per play in this trick; 0 before the lead.
    pub width: u32,
    pub table: PerSeat<Option<TableCards>>,
    /// The cards this seat itself passed face down in this trick.
    pub my_passed: CardSet,
    /// The play that currently wins the trick, once there is a lead.
    pub winning: Option<(Seat, CardSet)>,
    pub molodka: Option<Seat>,
    pub hand_sizes: PerSeat<u32>,
    pub stock_len: u32,
    pub team_tricks: [u32; 2],
}

impl Deal {
    /// Deals `deck` one card at a time clockwise, starting left of `dealer`;
    /// the other 20 cards are the stock.
    ///
    /// ```
    /// use kozyr_cards::Seat;
    /// use kozyr_kozel::{Deal, Deck};
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7);
    /// let dealer = Seat::new(3).unwrap();
    /// let deal = Deal::new(dealer, dealer.next(), Deck::shuffled(&mut rng));
    /// assert_eq!(deal.to_act(), Some(dealer.next()));
    /// assert_eq!(deal.stock_len(), 20);
    /// assert!(deal.stock().contains(&deal.trump_card()));
    /// ```
    pub fn new(dealer: Seat, first_leader: Seat, deck: Deck) -> Deal {
        let mut hands = PerSeat::<CardSet>::default();
        for (i, &c) in deck.cards[..16].iter().enumerate() {
            hands[dealer.offset(1 + (i % 4) as u8)].insert(c);
        }
        let mut stock = [deck.cards[16]; STOCK_LEN];
        stock.copy_from_slice(&deck.cards[16..]);
        Deal {
            dealer,
            first_leader,
            dealt: hands,
            trump_card: stock[deck.trump_position as usize],
            stock,
            drawn: 0,
            hands,
            trick: Trick::new(first_leader),
            piles: [CardSet::EMPTY; 2],
            tricks: [0; 2],
            last_winner: None,
        }
    }

    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    pub fn first_leader(&self) -> Seat {
        self.first_leader
    }

    /// The revealed card; its suit is trump. It stays in the stock.
    pub fn trump_card(&self) -> Card {
        self.trump_card
    }

    pub fn trump(&self) -> Suit {
        self.trump_card.suit()
    }

    /// The hands as dealt.
    pub fn dealt(&self) -> &PerSeat<CardSet> {
        &self.dealt
    }

    /// The stock as after the deal, top first (including cards drawn since).
    pub fn stock(&self) -> &[Card] {
        &self.stock
    }

    pub fn stock_len(&self) -> u32 {
        (STOCK_LEN - self.drawn as usize) as u32
    }

    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat]
    }

    /// The cards a team has taken.
    pub fn pile(&self, team: Team) -> CardSet {
        self.piles[team.index()]
    }

    pub fn team_tricks(&self) -> [u32; 2] {
        self.tricks
    }

    /// All cards on the table, face up and face down.
    pub fn table_cards(&self) -> CardSet {
        self.trick.cards()
    }

    /// The seat that opened (or must open) the current trick.
    pub fn leader(&self) -> Seat {
        self.trick.leader
    }

    /// Whose turn it is; `None` once the deal is over. A molodka may still
    /// come from another seat at any moment: see [`Deal::legal_actions`].
    pub fn to_act(&self) -> Option<Seat> {
        if self.is_over() {
            None
        } else {
            self.trick.turn()
        }
    }

    pub fn is_over(&self) -> bool {
        self.last_winner.is_some()
            && self.drawn as usize == STOCK_LEN
            && self.hands.0.iter().all(|h| h.is_empty())
    }

    /// The score, once the deal is over.
    pub fn result(&self) -> Option<DealResult> {
        let last = self.last_winner.filter(|_| self.is_over())?;
        let pts = [points_of(self.piles[0]), points_of(self.piles[1])];
        Some(DealResult::score(pts, self.tricks, last))
    }

    /// What `seat` may see.
    pub fn view(&self, seat: Seat) -> View {
        let t = &self.trick;
        View {
            seat,
            hand: self.hands[seat],
            trump_card: self.trump_card,
            dealer: self.dealer,
            first_leader: self.first_leader,
            leader: t.leader,
            lead_seat: t.lead_seat,
            to_act: self.to_act(),
            width: t.width(),
            table: t.played.map(|p| {
                p.map(|p| {
                    if p.face_up {
                        TableCards::FaceUp(p.cards)
                    } else {
                        TableCards::FaceDown(p.cards.len())
                    }
                })
            }),
            my_passed: t.played[seat]
                .filter(|p| !p.face_up)
                .map_or(CardSet::EMPTY, |p| p.cards),
            winning: (t.count > 0).then_some((t.winning, t.winning_cards)),
            molodka: t.molodka,
            hand_sizes: self.hands.map(|h| h.len()),
            stock_len: self.stock_len(),
            team_tricks: self.tricks,
        }
    }

    /// Checks whether `seat` may play a molodka now.
    pub fn check_molodka(&self, seat: Seat) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::DealOver);
        }
        let hand = self.hands[seat];
        if hand.len() != HAND_SIZE || !hand.is_one_suit() {
            return Err(RuleError::NoMolodka);
        }
        if let Some(m) = self.trick.molodka {
            let leader = self.trick.leader;
            if leader.distance_to(seat) >= leader.distance_to(m) {
                return Err(RuleError::MolodkaOutranked);
            }
        }
        Ok(())
    }

    /// Checks `action` by `seat` without changing anything.
    pub fn check(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::DealOver);
        }
        if let Action::Molodka = action {
            return self.check_molodka(seat);
        }
        if self.trick.turn() != Some(seat) {
            return Err(RuleError::NotYourTurn);
        }
        let cards = action.cards();
        let hand = self.hands[seat];
        if let Some(card) = (cards - hand).first() {
            return Err(RuleError::NotInHand { card });
        }
        if cards.is_empty() {
            return Err(RuleError::NoCards);
        }
        let led = self.trick.count > 0;
        match action {
            Action::Lead(_) if led => Err(RuleError::AlreadyLed),
            Action::Lead(_) if !cards.is_one_suit() => Err(RuleError::MixedSuits),
            Action::Lead(_) => Ok(()),
            Action::Beat(_) | Action::Pass(_) if !led => Err(RuleError::NothingLed),
            Action::Beat(_) | Action::Pass(_) if cards.len() != self.trick.width() => {
                Err(RuleError::WrongCount {
                    expected: self.trick.width(),
                    got: cards.len(),
                })
            }
            Action::Beat(_) if !can_beat(cards, self.trick.winning_cards, self.trump()) => {
                Err(RuleError::CannotBeat {
                    target: self.trick.winning_cards,
                })
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
        let cards = action.cards();
        match action {
            Action::Molodka => self.play_molodka(seat, events),
            // Leading a whole four-card hand of one suit is a molodka too.
            Action::Lead(c) if c == self.hands[seat] && self.check_molodka(seat).is_ok() => {
                self.play_molodka(seat, events)
            }
            Action::Lead(_) => {
                self.put(seat, cards, true);
                self.trick.winning = seat;
                self.trick.winning_cards = cards;
                events.push(Event::Lead { seat, cards });
            }
            Action::Beat(_) => {
                self.put(seat, cards, true);
                self.trick.winning = seat;
                self.trick.winning_cards = cards;
                events.push(Event::Beat { seat, cards });
            }
            Action::Pass(_) => {
                self.put(seat, cards, false);
                events.push(Event::Pass { seat, cards });
            }
        }
        if self.trick.count == 4 {
            self.finish_trick(events);
        }
        Ok(())
    }

    /// Like [`Deal::apply_into`], returning the events.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        self.apply_into(seat, action, &mut events)?;
        Ok(events)
    }

    fn put(&mut self, seat: Seat, cards: CardSet, face_up: bool) {
        self.hands[seat] = self.hands[seat] - cards;
        self.trick.played[seat] = Some(Played { cards, face_up });
        self.trick.count += 1;
    }

    fn play_molodka(&mut self, seat: Seat, events: &mut Vec<Event>) {
        for s in Seat::ALL {
            if let Some(p) = self.trick.played[s].take() {
                self.hands[s] |= p.cards;
            }
        }
        let cards = self.hands[seat];
        let t = &mut self.trick;
        t.lead_seat = seat;
        t.count = 0;
        t.molodka = Some(seat);
        self.put(seat, cards, true);
        self.trick.winning = seat;
        self.trick.winning_cards = cards;
        events.push(Event::Molodka { seat, cards });
    }

    fn finish_trick(&mut self, events: &mut Vec<Event>) {
        let winner = self.trick.winning;
        let cards = self.trick.cards();
        let team = Team::of(winner).index();
        self.piles[team] |= cards;
        self.tricks[team] += 1;
        self.last_winner = Some(winner);
        events.push(Event::Trick {
            winner,
            cards,
            points: points_of(cards),
        });
        // Hands are all the same size after a trick and the stock is a
        // multiple of four, so rounds of one card each refill everyone equally.
        while (self.drawn as usize) < STOCK_LEN && self.hands[winner].len() < HAND_SIZE {
            for seat in winner.clockwise() {
                let card = self.stock[self.drawn as usize];
                self.drawn += 1;
                self.hands[seat].insert(card);
                events.push(Event::Draw { seat, card });
            }
        }
        self.trick = Trick::new(winner);
        if let Some(r) = self.result() {
            events.push(Event::DealOver(r));
        }
    }

    /// Appends every action `seat` may take now to `out`. Cheap: a full
    /// hand has at most 15 leads or 6 answers of each kind.
    pub fn legal_actions_into(&self, seat: Seat, out: &mut Vec<Action>) {
        if self.is_over() {
            return;
        }
        if self.check_molodka(seat).is_ok() {
            out.push(Action::Molodka);
        }
        if self.trick.turn() != Some(seat) {
            return;
        }
        let hand = self.hands[seat];
        if self.trick.count == 0 {
            for suit in Suit::ALL {
                for_each_subset(hand.of_suit(suit), |s| out.push(Action::Lead(s)));
            }
        } else {
            let k = self.trick.width();
            let target = self.trick.winning_cards;
            let trump = self.trump();
            for_each_subset(hand, |s| {
                if s.len() == k {
                    if can_beat(s, target, trump) {
                        out.push(Action::Beat(s));
                    }
                    out.push(Action::Pass(s));
                }
            });
        }
    }

    /// Every action `seat` may take now.
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = Vec::new();
        self.legal_actions_into(seat, &mut v);
        v
    }

    /// Every seat that may act now: whoever's turn it is, and anyone who
    /// may play a molodka out of turn.
    pub fn seats_that_may_act(&self) -> impl Iterator<Item = Seat> + '_ {
        Seat::ALL
            .into_iter()
            .filter(|&s| self.to_act() == Some(s) || self.check_molodka(s).is_ok())
    }

    /// Checks the engine's invariants; used by tests.
    #[doc(hidden)]
    pub fn assert_invariants(&self) {
        if let Some(why) = self.invariant_violation() {
            panic!("{why}: {self:?}");
        }
    }

    /// The first invariant of every reachable deal that `self` breaks:
    /// what a deserialized deal is checked against.
    fn invariant_violation(&self) -> Option<&'static str> {
        /// Whether `sets` hold the 36 cards, each exactly once.
        fn each_card_once(sets: &[CardSet]) -> bool {
            let all = sets.iter().fold(CardSet::EMPTY, |a, &s| a | s);
            let n: u32 = sets.iter().map(|s| s.len()).sum();
            all == deck() && n as usize == DECK_LEN
        }
        let stock: Vec<CardSet> = self
            .stock
            .iter()
            .map(|&c| CardSet::from_iter([c]))
            .collect();
        let mut as_dealt = self.dealt.0.to_vec();
        as_dealt.extend(&stock);
        if !each_card_once(&as_dealt) {
            return Some("the hands as dealt and the stock are not the 36 cards, each once");
        }
        if self.dealt.0.iter().any(|h| h.len() != HAND_SIZE) {
            return Some("each hand is dealt 4 cards");
        }
        let Some(left) = stock.get(usize::from(self.drawn)..) else {
            return Some("more cards drawn than the stock held");
        };
        if !self.stock[TRUMP_POSITIONS.start as usize..TRUMP_POSITIONS.end as usize]
            .contains(&self.trump_card)
        {
            return Some("the revealed card is not in the middle of the stock");
        }
        let mut now = self.hands.0.to_vec();
        now.extend(left);
        now.extend([self.trick.cards(), self.piles[0], self.piles[1]]);
        if !each_card_once(&now) {
            return Some("the hands, stock, table and piles are not the 36 cards, each once");
        }
        if self.trick.count > 4 {
            return Some("more than four plays in a trick");
        }
        let sizes = self.hands.0.map(|h| h.len());
        if self.trick.count == 0 && sizes.iter().any(|&n| n != sizes[0]) {
            return Some("the hands differ in size between tricks");
        }
        None
    }
}

/// The serialized form of a [`Deal`]; turned back into one only if its
/// invariants hold, so a damaged snapshot cannot produce an impossible deal.
#[derive(Deserialize)]
struct DealRepr {
    dealer: Seat,
    first_leader: Seat,
    dealt: PerSeat<CardSet>,
    stock: [Card; STOCK_LEN],
    drawn: u8,
    trump_card: Card,
    hands: PerSeat<CardSet>,
    trick: Trick,
    piles: [CardSet; 2],
    tricks: [u32; 2],
    last_winner: Option<Seat>,
}

impl TryFrom<DealRepr> for Deal {
    type Error = DealError;

    fn try_from(r: DealRepr) -> Result<Deal, DealError> {
        let deal = Deal {
            dealer: r.dealer,
            first_leader: r.first_leader,
            dealt: r.dealt,
            stock: r.stock,
            drawn: r.drawn,
            trump_card: r.trump_card,
            hands: r.hands,
            trick: r.trick,
            piles: r.piles,
            tricks: r.tricks,
            last_winner: r.last_winner,
        };
        match deal.invariant_violation() {
            None => Ok(deal),
            Some(why) => Err(DealError::Inconsistent(why)),
        }
    }
}

/// Calls `f` with every non-empty subset of `set`.
fn for_each_subset(set: CardSet, mut f: impl FnMut(CardSet)) {
    let mask = set.bits();
    let mut sub = mask;
    while sub != 0 {
        f(CardSet::from_bits_truncate(sub));
        sub = (sub - 1) & mask;
    }
}
