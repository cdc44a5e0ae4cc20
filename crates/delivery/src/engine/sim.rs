//! The engine against a simulated platform and store, in-process (as
//! quinn-proto's `Pair` drives two connections): no fake server, no
//! sleeps, time an input. Each run is made from a seed: tables get new
//! states (some showing what the one before showed, some starting a deal,
//! some with news), chat buries the table, the person's hands get new
//! states and are opened anew ("My hand": a new message, a new token) or
//! pressed on (the answer draws the hand after the move, a new token),
//! tokens expire, calls fail for now, and — in
//! the runs with kills — the process is killed between any two effects,
//! with the calls it had in flight landed up to that point, and a new
//! engine is restored from the store as a start restores one.
//!
//! After every step: what the store says a message shows is unknown or
//! what the platform shows. Once quiet: every table's recorded message
//! shows its newest state and is the only one of the table with buttons,
//! every announcement went out, every hand with a token shows its newest
//! state, and — without kills — each announcement went exactly once,
//! with no table edit that changed nothing, at most one ping per table,
//! and a hand edit that changes nothing only after an answer to a press
//! that went past its wait for an edit on its way (at most one each).

use crate::Map;
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::*;
use crate::hand_tokens::{HandToken, Tokens, answer_draws, answered_shows};
use kozyr_cards::{PerSeat, Seat};
use kozyr_game::GameKind;
use kozyr_i18n::Lang;
use kozyr_table::{Announcement, Player, SeatState, Settings, UserId};

const PERSON: UserId = UserId::Discord(7);

/// The owed announcement of news `n`.
fn series(n: u32) -> Announcement {
    Announcement::SeriesStarted { series_no: n }
}

/// Content: two consecutive versions often show the same.
fn hash_of(version: u64) -> i64 {
    (version / 2) as i64
}

fn chat() -> ChatKey {
    ChatKey::Discord(9)
}

fn view(table: TableId, version: u64) -> TableView {
    TableView {
        id: table,
        chat: chat(),
        title: "sim".into(),
        kind: GameKind::Kozel,
        phase: Phase::Playing,
        version,
        creator: UserId::Discord(1),
        settings: Settings::default(),
        // A person at the first seat, whose turn it is at every third
        // state: the turn alerts ping them (they have no hand to see).
        seats: PerSeat::from_fn(|s| match s.index() {
            0 => SeatState::Person {
                player: Player {
                    id: PERSON,
                    name: "Ana".into(),
                    lang: Lang::En,
                },
                away: false,
            },
            _ => SeatState::Ai,
        }),
        series_no: 1,
        awaiting: if version.is_multiple_of(3) {
            vec![Seat::ALL[0]]
        } else {
            vec![Seat::ALL[1]]
        },
        deadline: None,
        last_trick: None,
        last_deal: None,
        game: None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Table,
    News(u32),
    Ping,
}

#[derive(Clone, Copy, Debug)]
struct Msg {
    table: TableId,
    kind: Kind,
    hash: i64,
    buttons: bool,
}

/// A table's row in the store: its message and what it shows.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    message: Option<MessageId>,
    shown: Option<i64>,
}

/// A hand's token in flight (no `Debug` of its own: a secret).
struct Held(HandToken);

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Held(token)")
    }
}

/// One effect of a job still to happen.
#[derive(Debug)]
enum Step {
    Unknown,
    News(u32),
    Ping,
    Call,
    Then,
    Report,
}

#[derive(Debug)]
enum Flight {
    Table {
        job: TableJob<i64, u32>,
        steps: VecDeque<Step>,
        unknown: Option<Write>,
        outcome: Option<Outcome>,
        then: Option<Write>,
        /// Owed news posted that the store did not forget.
        unforgotten: Vec<Announcement>,
    },
    Ping {
        job: PingJob,
        posted: Option<Option<MessageId>>,
    },
    Store {
        write: StoreWrite,
        applied: Option<Write>,
    },
    /// A hand's edit through its token, as the outbox makes it: nothing
    /// goes when the hand shows it already.
    Hand {
        hand: Box<HandView>,
        token: Held,
        /// 0: the unknown write, 1: the call, 2: the write after, 3: done.
        step: u8,
        failed: Option<Failure>,
    },
}

struct World {
    rng: Xoshiro256PlusPlus,
    now: Instant,
    engine: Engine<i64, u32>,
    msgs: BTreeMap<MessageId, Msg>,
    next_id: MessageId,
    rows: Map<TableId, Row>,
    versions: Map<TableId, u64>,
    flights: Vec<Flight>,
    /// Announcements given to the engine and not posted yet.
    owed: Map<TableId, Vec<u32>>,
    next_news: u32,
    news_posted: Map<u32, u32>,
    unchanged_edits: u32,
    unchanged_hand_edits: u32,
    pings_posted: u32,
    buried: bool,
    /// The person's hands: whether the runs open them, the newest state of
    /// each, the tokens that edit them (as the outbox keeps them), and the
    /// platform's hand messages: (token → message, message → hash).
    hands: bool,
    hand_versions: Map<TableId, u64>,
    tokens: Tokens,
    token_messages: Map<String, MessageId>,
    hand_msgs: Map<MessageId, i64>,
    next_token: u32,
    hand_edits: u32,
    /// Answers to presses on a hand that went past their wait for an
    /// outbox edit on its way (they draw nothing; the outbox draws after).
    raced: u32,
    /// Calls fail for now and the process is killed only while true.
    chaos: bool,
    kills: bool,
    /// The store refuses a write now and then, or answers it only after
    /// the engine stopped waiting (it may have landed).
    store_faults: bool,
    /// The store also refuses, now and then, to make a hash unknown
    /// before a change (which still goes, so people see the game: the
    /// store may then keep a hash that is not true).
    unknown_faults: bool,
    /// How many of the next message-id writes the store refuses.
    refuse_refs: u32,
}

const TABLES: [TableId; 2] = [TableId(1), TableId(2)];

/// How long the bot uses a hand's token; the platform takes it a while
/// longer (Discord: 15 minutes against the bot's 14).
const TOKEN_LIFE: Duration = Duration::from_secs(60);
const PLATFORM_TOKEN_LIFE: Duration = Duration::from_secs(70);

/// What a hand message shows: two consecutive states often the same.
fn hand_hash(version: u64) -> i64 {
    1_000 + (version / 2) as i64
}

impl World {
    fn new(seed: u64, kills: bool) -> World {
        World {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            now: Instant::now(),
            engine: Engine::new(None, Instant::now()),
            msgs: BTreeMap::new(),
            next_id: 100,
            rows: Map::default(),
            versions: Map::default(),
            flights: Vec::new(),
            owed: Map::default(),
            next_news: 1,
            news_posted: Map::default(),
            unchanged_edits: 0,
            unchanged_hand_edits: 0,
            pings_posted: 0,
            buried: false,
            hands: false,
            hand_versions: Map::default(),
            tokens: Tokens::new(TOKEN_LIFE),
            token_messages: Map::default(),
            hand_msgs: Map::default(),
            next_token: 0,
            hand_edits: 0,
            raced: 0,
            chaos: true,
            kills,
            store_faults: false,
            unknown_faults: false,
            refuse_refs: 0,
        }
    }

    fn post(&mut self, table: TableId, kind: Kind, hash: i64, buttons: bool) -> MessageId {
        self.next_id += 1;
        self.msgs.insert(
            self.next_id,
            Msg {
                table,
                kind,
                hash,
                buttons,
            },
        );
        self.next_id
    }

    /// A new state of `table`, maybe with news or a deal's start.
    fn render(&mut self, table: TableId) {
        let v = self.versions.entry(table).or_insert(0);
        *v += 1;
        let v = *v;
        let mut news = Vec::new();
        if self.rng.random_bool(0.2) {
            let n = self.next_news;
            self.next_news += 1;
            self.owed.entry(table).or_default().push(n);
            news.push((Some(n), Some(series(n))));
        }
        let repost = self.rng.random_bool(0.1);
        self.engine
            .handle_render(view(table, v), news, repost, None, |_| true, self.now);
    }

    fn poll(&mut self) {
        let buried = self.buried;
        let now = self.now;
        while let Some(job) = self.engine.poll_job(now, |v, alerted| Rendered {
            message: hash_of(v.version),
            hash: hash_of(v.version),
            alerted: alerted.iter().map(|_| (7, "your turn".into())).collect(),
            buried,
        }) {
            match job {
                Job::Table(job) => {
                    let mut steps = VecDeque::new();
                    if job.unknown_first {
                        steps.push_back(Step::Unknown);
                    }
                    steps.extend(job.news.iter().map(|(n, _)| Step::News(*n)));
                    if job.ping.is_some() {
                        steps.push_back(Step::Ping);
                    }
                    steps.extend([Step::Call, Step::Then, Step::Report]);
                    self.flights.push(Flight::Table {
                        job,
                        steps,
                        unknown: None,
                        outcome: None,
                        then: None,
                        unforgotten: Vec::new(),
                    });
                }
                Job::Ping(job) => self.flights.push(Flight::Ping { job, posted: None }),
                // As the outbox: through the hand's fresh token, or done at
                // once when it has none (the person opens it anew).
                Job::Hand(hand) => match self.tokens.fresh(&PERSON, hand.table, now) {
                    Some(token) => self.flights.push(Flight::Hand {
                        hand,
                        token: Held(token),
                        step: 0,
                        failed: None,
                    }),
                    None => {
                        self.engine.handle_hand_done(*hand, None, now);
                    }
                },
                Job::DeletePing { message, .. } => {
                    self.msgs.remove(&message);
                }
            }
        }
        while let Some(write) = self.engine.poll_store() {
            self.flights.push(Flight::Store {
                write,
                applied: None,
            });
        }
    }

    /// How one store write goes (`unknown_first`: one that makes a hash
    /// unknown before a change): refused, or landed but answered too late
    /// (pending), now and then when the store has faults.
    fn store_write(&mut self, unknown_first: bool) -> Write {
        let faults = (self.store_faults, self.unknown_faults);
        crate::sim_store_write(&mut self.rng, faults, unknown_first)
    }

    fn ping(&mut self, job: &PingJob) -> Option<MessageId> {
        if let Some(old) = job.delete {
            self.msgs.remove(&old);
        }
        let posted = job
            .post
            .as_ref()
            .map(|_| self.post(job.table, Kind::Ping, 0, false));
        self.pings_posted += u32::from(posted.is_some());
        posted
    }

    /// One effect of the flight at `i`.
    fn advance(&mut self, i: usize) {
        let mut flight = self.flights.swap_remove(i);
        let finished = match &mut flight {
            Flight::Ping { job, posted } => match posted {
                None => {
                    let job = job.clone();
                    *posted = Some(self.ping(&job));
                    false
                }
                Some(p) => {
                    self.engine.handle_ping_done(job, *p);
                    true
                }
            },
            Flight::Store { write, applied } => match applied {
                None => {
                    let refused =
                        self.refuse_refs > 0 && matches!(write, StoreWrite::MessageRef { .. });
                    if refused {
                        self.refuse_refs -= 1;
                    }
                    let landed = if refused {
                        Write::Failed
                    } else {
                        self.store_write(false)
                    };
                    if let (
                        true,
                        StoreWrite::ForgetOwed {
                            table,
                            announcement: Announcement::SeriesStarted { series_no },
                        },
                    ) = (landed != Write::Failed, &write)
                        && let Some(o) = self.owed.get_mut(table)
                    {
                        o.retain(|x| x != series_no);
                    }
                    if landed != Write::Failed
                        && let StoreWrite::MessageRef {
                            table,
                            message,
                            hash,
                            ..
                        } = write
                    {
                        self.rows.insert(
                            *table,
                            Row {
                                message: Some(*message),
                                shown: Some(*hash),
                            },
                        );
                    }
                    *applied = Some(landed);
                    false
                }
                Some(landed) => {
                    self.engine.handle_stored(write, *landed == Write::Landed);
                    true
                }
            },
            Flight::Hand {
                hand,
                token: Held(token),
                step,
                failed,
            } => {
                let (table, hash) = (hand.table, hand_hash(hand.version));
                // The record rule, as `HandTokens::edit` keeps it: a hash
                // kept for the hand is made unknown before a change, the
                // new one kept once it landed; nothing when it shows it.
                let changes = token.changes(hash);
                match *step {
                    // Kept unknown only once the store made it so.
                    0 if changes
                        && token.unknown_first(hash)
                        && self.store_write(true) == Write::Landed =>
                    {
                        self.tokens.shown(&PERSON, table, &token.token, None);
                    }
                    1 if changes => *failed = self.edit_hand(token, hash),
                    // Shown once it landed, whatever the store could keep.
                    2 if changes && failed.is_none() => {
                        let _ = self.store_write(false);
                        self.tokens.shown(&PERSON, table, &token.token, Some(hash));
                    }
                    3 => {
                        let sent = (**hand).clone();
                        if self.engine.handle_hand_done(sent, *failed, self.now) {
                            self.tokens.forget(&PERSON, table, Some(&token.token));
                        }
                    }
                    _ => {}
                }
                *step += 1;
                *step > 3
            }
            Flight::Table {
                job,
                steps,
                unknown,
                outcome,
                then,
                unforgotten,
            } => {
                let table = job.table;
                match steps.pop_front().expect("a step") {
                    Step::Unknown => {
                        let write = self.store_write(true);
                        if write != Write::Failed
                            && let Some(r) = self.rows.get_mut(&table)
                        {
                            r.shown = None;
                        }
                        *unknown = Some(write);
                    }
                    Step::News(n) => {
                        self.post(table, Kind::News(n), 0, false);
                        *self.news_posted.entry(n).or_default() += 1;
                        let write = self.store_write(false);
                        if write != Write::Failed
                            && let Some(o) = self.owed.get_mut(&table)
                        {
                            o.retain(|x| *x != n);
                        }
                        if write != Write::Landed {
                            unforgotten.push(series(n));
                        }
                    }
                    Step::Ping => {
                        let p = job.ping.clone().expect("a ping");
                        let posted = self.ping(&p);
                        self.engine.handle_ping_done(&p, posted);
                    }
                    Step::Call => {
                        let fail = self.chaos && self.rng.random_bool(0.15);
                        *outcome = Some(match &job.call {
                            TableCall::Nothing => Outcome::Edited,
                            _ if fail => {
                                let f = if self.rng.random_bool(0.5) {
                                    Failure::Unavailable
                                } else {
                                    Failure::RateLimited(Duration::from_millis(700))
                                };
                                let c = match job.call {
                                    TableCall::Edit { .. } => transport::Call::Edit,
                                    _ => transport::Call::Post,
                                };
                                Outcome::Failed(f, c)
                            }
                            TableCall::Edit { message, content } => {
                                let m = self.msgs.get_mut(message).expect("an edited message");
                                if m.hash == *content {
                                    self.unchanged_edits += 1;
                                }
                                m.hash = *content;
                                m.buttons = true;
                                Outcome::Edited
                            }
                            TableCall::Post { content, strip } => {
                                let (content, strip) = (*content, *strip);
                                let id = self.post(table, Kind::Table, content, true);
                                if self.buried {
                                    self.buried = false;
                                }
                                if let Some(s) = strip
                                    && let Some(m) = self.msgs.get_mut(&s.message)
                                {
                                    m.buttons = false;
                                }
                                Outcome::Posted(Some(id))
                            }
                        });
                    }
                    Step::Then => {
                        if let (Some(h), Some(o)) = (job.then, outcome.as_ref())
                            && shows(o)
                        {
                            let write = self.store_write(false);
                            if write != Write::Failed
                                && let Some(r) = self.rows.get_mut(&table)
                            {
                                r.shown = Some(h);
                            }
                            *then = Some(write);
                        }
                    }
                    Step::Report => {
                        let done = TableDone {
                            table,
                            unknown: *unknown,
                            call: outcome.expect("a call"),
                            then: *then,
                            unforgotten: std::mem::take(unforgotten),
                        };
                        self.engine.handle_table_done(done, self.now);
                    }
                }
                steps.is_empty()
            }
        };
        if !finished {
            self.flights.push(flight);
        }
    }

    /// A kill -9 and a start: what was in flight stops where it was; a new
    /// engine reads the store, adopts a table posted anew whose id the
    /// kill kept from it, and every table is rendered again.
    fn restart(&mut self) {
        self.flights.clear();
        self.engine = Engine::new(None, self.now);
        // A table posted anew whose id the kill kept from the store: its
        // row's content is unknown; a table with no row at all: its first
        // post, if one went. Either is found as the Discord start does.
        for table in TABLES {
            let recorded = match self.rows.get(&table) {
                Some(Row {
                    message: Some(m),
                    shown: None,
                }) => *m,
                Some(_) => continue,
                None if self.versions.contains_key(&table) => 0,
                None => continue,
            };
            if let Some(a) = self.settle_lost_posts(table, recorded) {
                self.rows.insert(
                    table,
                    Row {
                        message: Some(a),
                        shown: None,
                    },
                );
            }
        }
        for (&table, row) in &self.rows {
            self.engine
                .restore_message(table, row.message.expect("a message"));
        }
        self.engine.restore_shown(
            self.rows
                .iter()
                .filter_map(|(t, r)| Some((*t, chat().to_string(), r.shown?))),
        );
        for table in TABLES {
            let Some(&v) = self.versions.get(&table) else {
                continue;
            };
            let news = self
                .owed
                .get(&table)
                .map(|o| o.iter().map(|n| (Some(*n), Some(series(*n)))).collect())
                .unwrap_or_default();
            self.engine
                .handle_render(view(table, v), news, false, None, |_| true, self.now);
        }
        // The service renders every open hand again; the tokens are the
        // store's, with what it says each hand shows.
        for (&table, &v) in &self.hand_versions {
            let h = HandView { table, ..hand(v) };
            self.engine.handle_hand(h);
        }
    }

    /// `table`'s messages with buttons from `from` on.
    fn live_posts(&self, table: TableId, from: MessageId) -> Vec<MessageId> {
        self.msgs
            .range(from..)
            .filter(|(_, m)| m.table == table && m.kind == Kind::Table && m.buttons)
            .map(|(id, _)| *id)
            .collect()
    }

    /// Settles `table`'s posts after the `recorded` message (0: none) as
    /// [`orphans`](super::super::restore::orphans) decides; the adopted one.
    fn settle_lost_posts(&mut self, table: TableId, recorded: MessageId) -> Option<MessageId> {
        let found = self.live_posts(table, recorded);
        let settle = super::super::restore::orphans(recorded, &found);
        for id in settle.delete {
            self.msgs.remove(&id);
        }
        if let Some(s) = settle.strip.and_then(|s| self.msgs.get_mut(&s)) {
            s.buttons = false;
        }
        settle.adopt
    }

    /// A new state of the person's hand at `table`.
    fn render_hand(&mut self, table: TableId) {
        let v = self.hand_versions.entry(table).or_insert(0);
        *v += 1;
        let h = HandView { table, ..hand(*v) };
        self.engine.handle_hand(h);
    }

    /// The person presses "My hand": a new message shows their hand's
    /// newest state, and its token edits it from now on.
    fn open_hand(&mut self, table: TableId) {
        let Some(&v) = self.hand_versions.get(&table) else {
            return;
        };
        // The answer takes the hand's turn first: it waits for an edit of
        // the hand on its way (here: comes later), and past its 0.5 s wait
        // goes anyway: then the edit lands after it, on the old message.
        let editing = |f: &Flight| matches!(f, Flight::Hand { hand, .. } if hand.table == table);
        if self.flights.iter().any(editing) && self.rng.random_bool(0.7) {
            return;
        }
        self.next_id += 1;
        let message = self.next_id;
        self.hand_msgs.insert(message, hand_hash(v));
        // The answer's message id is not known (Discord does not say it).
        self.give_token(table, message, Some(hand_hash(v)), false);
    }

    /// An answer's new token, which edits `message` from now on (`known`:
    /// the bot knows that message, the one pressed on), as it is kept.
    fn give_token(&mut self, table: TableId, message: MessageId, shown: Option<i64>, known: bool) {
        self.next_token += 1;
        let token = format!("t{}", self.next_token);
        self.token_messages.insert(token.clone(), message);
        let kept = HandToken {
            token,
            at: self.now,
            shown,
            message: known.then_some(message),
        };
        self.tokens.given(&PERSON, table, kept);
    }

    /// The person picks a card on their hand message (the one the fresh
    /// token edits): the move makes a new state of the hand, and the
    /// answer draws it on that message unless it shows it already, as
    /// `HandAnswer` does: holding the hand's turn (an outbox edit on its
    /// way lands first); or, past its wait, draws nothing and takes the
    /// turn after the answer went (the edit on its way lands), and the
    /// outbox draws the new state. The answer's token edits the hand from
    /// then on.
    fn press_hand(&mut self, table: TableId) {
        let Some(token) = self.tokens.fresh(&PERSON, table, self.now) else {
            return;
        };
        let pressed = self.token_messages[&token.token];
        let editing = |f: &Flight| matches!(f, Flight::Hand { hand, .. } if hand.table == table);
        let turn = !self.flights.iter().any(editing) || self.rng.random_bool(0.7);
        self.raced += u32::from(!turn);
        let land_edits = |w: &mut World| {
            while let Some(i) = w.flights.iter().position(editing) {
                w.advance(i);
            }
        };
        if turn {
            land_edits(self);
        }
        // A move changes the hand: its new state shows something else.
        let before = self.hand_versions.get(&table).map(|v| hand_hash(*v));
        self.render_hand(table);
        if before == Some(hand_hash(self.hand_versions[&table])) {
            self.render_hand(table);
        }
        let hash = hand_hash(self.hand_versions[&table]);
        let place = (&PERSON, table);
        let shows = turn && self.tokens.shows(place, pressed, hash, self.now);
        if answer_draws(turn, shows) {
            if let Some(t) = self.tokens.fresh(&PERSON, table, self.now)
                && t.unknown_first(hash)
            {
                self.tokens.shown(&PERSON, table, &t.token, None);
            }
            let on = self
                .hand_msgs
                .get_mut(&pressed)
                .expect("the pressed message");
            if *on == hash {
                self.unchanged_hand_edits += 1;
            }
            *on = hash;
        }
        if !turn {
            land_edits(self);
        }
        let left = self.tokens.showing((&PERSON, table), pressed, self.now);
        let shown = answered_shows(turn, Some(hash), left);
        self.give_token(table, pressed, shown, true);
        if !turn {
            // What the handler asks of the outbox after the answer.
            self.engine.handle_hand(HandView {
                table,
                ..hand(self.hand_versions[&table])
            });
        }
    }

    /// The platform's edit of a hand message through `token`.
    fn edit_hand(&mut self, token: &HandToken, hash: i64) -> Option<Failure> {
        if self.now.saturating_duration_since(token.at) >= PLATFORM_TOKEN_LIFE {
            return Some(Failure::Expired);
        }
        if self.chaos && self.rng.random_bool(0.15) {
            return Some(Failure::Unavailable);
        }
        let message = self.token_messages[&token.token];
        let shown = self.hand_msgs.get_mut(&message).expect("a hand message");
        if *shown == hash {
            self.unchanged_hand_edits += 1;
        }
        *shown = hash;
        self.hand_edits += 1;
        None
    }

    fn step(&mut self) {
        match self.rng.random_range(0..10) {
            0..=2 => {
                let t = TABLES[self.rng.random_range(0..TABLES.len())];
                self.render(t);
            }
            3 => self.buried = self.rng.random_bool(0.3),
            6 if self.hands => {
                let t = TABLES[self.rng.random_range(0..TABLES.len())];
                match self.rng.random_range(0..10) {
                    0 | 1 => self.open_hand(t),
                    2..=4 => self.press_hand(t),
                    _ => self.render_hand(t),
                }
            }
            4 => self.now += Duration::from_millis(self.rng.random_range(0..1500)),
            5 if self.kills && self.rng.random_bool(0.3) => self.restart(),
            _ => {
                if !self.flights.is_empty() {
                    let i = self.rng.random_range(0..self.flights.len());
                    self.advance(i);
                }
            }
        }
        self.poll();
        self.check_records();
    }

    /// What the store says a message shows is unknown or true.
    fn check_records(&self) {
        // A store that refuses to make a hash unknown before a change may
        // keep one that is not: the change still goes.
        if self.unknown_faults {
            return;
        }
        for (table, row) in &self.rows {
            if let (Some(m), Some(h)) = (row.message, row.shown) {
                let shows = self.msgs.get(&m).map(|m| m.hash);
                assert_eq!(
                    shows,
                    Some(h),
                    "the store says {table:?}'s message {m} shows {h}"
                );
            }
        }
    }

    /// No more chaos: everything in flight lands and every retry goes.
    fn quiet(&mut self) {
        self.chaos = false;
        self.buried = false;
        for _ in 0..10_000 {
            self.poll();
            if !self.flights.is_empty() {
                self.advance(0);
            } else if let Some(t) = self.engine.poll_timeout() {
                self.now = self.now.max(t);
            } else {
                assert!(self.engine.idle(), "quiet, with work left");
                self.check_records();
                return;
            }
            self.check_records();
        }
        panic!("never quiet");
    }

    fn check_quiet(&mut self, killed: bool) {
        for table in TABLES {
            let Some(&v) = self.versions.get(&table) else {
                continue;
            };
            // A store with faults may not know the live message.
            let m = match self.rows.get(&table) {
                _ if self.store_faults => match self.live_posts(table, 0)[..] {
                    [m] => m,
                    ref live => panic!("live messages of {table:?}: {live:?}"),
                },
                Some(row) => row.message.expect("a recorded message"),
                None => panic!("no row for {table:?}"),
            };
            assert_eq!(
                self.msgs[&m].hash,
                hash_of(v),
                "{table:?} shows its newest state"
            );
            let live = self.live_posts(table, 0);
            assert_eq!(
                live,
                vec![m],
                "only the recorded message has buttons: {:?}",
                self.msgs
            );
            if !killed {
                let pings = self
                    .msgs
                    .values()
                    .filter(|x| x.table == table && x.kind == Kind::Ping)
                    .count();
                assert!(pings <= 1, "{table:?} has {pings} pings");
            }
        }
        // Every hand that still has a token shows its newest state.
        for (&table, &v) in &self.hand_versions {
            let token = self.tokens.fresh(&PERSON, table, self.now);
            if let Some(t) = token {
                let shows = self.hand_msgs[&self.token_messages[&t.token]];
                assert_eq!(
                    shows,
                    hand_hash(v),
                    "{table:?}'s hand shows its newest state"
                );
            }
        }
        for n in 1..self.next_news {
            let posted = self.news_posted.get(&n).copied().unwrap_or(0);
            assert!(posted >= 1, "announcement {n} never went");
            if !killed {
                assert_eq!(posted, 1, "announcement {n} went {posted} times");
            }
        }
        // Once quiet nothing is owed, but what the store refused to
        // forget, which the engine holds for its next job or its stop.
        let held = self.engine.unforgotten();
        for (&table, owed) in &self.owed {
            for &n in owed {
                assert!(
                    held.contains(&(table, series(n))),
                    "news {n} owed once quiet"
                );
            }
        }
        assert!(self.store_faults || held.is_empty());
        if !killed {
            assert_eq!(self.unchanged_edits, 0, "table edits that changed nothing");
            assert_eq!(
                self.unchanged_hand_edits, 0,
                "hand edits that changed nothing ({} answers came past their wait)",
                self.raced
            );
        }
    }
}

/// One run; how many pings it posted, and how many hand edits.
fn run(seed: u64, kills: bool) -> (u32, u32) {
    crate::sim_run(seed, |seed| {
        let mut w = World::new(seed, kills);
        w.hands = true;
        for _ in 0..200 {
            w.step();
        }
        w.quiet();
        w.check_quiet(kills);
        (w.pings_posted, w.hand_edits)
    })
}

#[test]
fn without_kills_every_table_ends_current_and_nothing_is_sent_twice() {
    let runs = crate::sim_seeds(1000).map(|seed| run(seed, false));
    let (pings, hand_edits) = runs.fold((0, 0), |(p, h), (a, b)| (p + a, h + b));
    assert!(pings > 0, "no run pinged anyone");
    assert!(hand_edits > 0, "no run edited a hand");
}

#[test]
fn a_kill_at_any_step_leaves_no_false_record_and_every_table_current() {
    for seed in crate::sim_seeds(1000) {
        run(seed, true);
    }
}

#[test]
fn a_deal_start_posts_the_table_anew_below_its_news_and_strips_the_old() {
    let mut w = World::new(0, false);
    w.chaos = false;
    w.render(TABLES[0]);
    w.quiet();
    let first = w.rows[&TABLES[0]].message.expect("posted");
    w.owed.entry(TABLES[0]).or_default().push(77);
    w.versions.insert(TABLES[0], 9);
    w.engine.handle_render(
        view(TABLES[0], 9),
        vec![(Some(77), Some(Announcement::SeriesStarted { series_no: 1 }))],
        true,
        None,
        |_| true,
        w.now,
    );
    w.quiet();
    let now = w.rows[&TABLES[0]].message.expect("posted anew");
    let news = w
        .msgs
        .iter()
        .find(|(_, m)| m.kind == Kind::News(77))
        .map(|(id, _)| *id)
        .expect("the news went");
    assert!(first < news && news < now, "{first} < {news} < {now}");
    assert!(!w.msgs[&first].buttons);
}

/// An announcement with nothing to say in the chat: not posted, and an
/// owed one is owed no more (the store forgets it); the table's state goes
/// as it would without it.
#[test]
fn an_owed_announcement_with_nothing_to_say_is_forgotten_not_posted() {
    let mut w = World::new(0, false);
    w.chaos = false;
    w.render(TABLES[0]);
    w.quiet();
    let owed = Announcement::SeriesStarted { series_no: 3 };
    w.versions.insert(TABLES[0], 9);
    let news = vec![(None, Some(owed.clone())), (None, None)];
    (w.engine).handle_render(view(TABLES[0], 9), news, false, None, |_| true, w.now);
    let forget = StoreWrite::ForgetOwed {
        table: TABLES[0],
        announcement: owed,
    };
    assert_eq!(w.engine.poll_store(), Some(forget));
    assert_eq!(w.engine.poll_store(), None);
    w.quiet();
    assert!(!w.msgs.values().any(|m| matches!(m.kind, Kind::News(_))));
    w.check_quiet(false);
}

/// A person whose hand can no longer be edited: the table is drawn again
/// from the newest state given (its message asks those with no hand to
/// see to open it); a table the engine never saw is left alone.
#[test]
fn a_hand_lost_draws_its_table_again_from_the_newest_state() {
    let mut w = World::new(0, false);
    w.chaos = false;
    let t = TABLES[0];
    w.render(t);
    w.render(t);
    w.quiet();
    let newest = w.versions[&t];
    w.engine.handle_hand_lost(TABLES[1], |_| true, w.now);
    w.engine.handle_hand_lost(t, |_| true, w.now);
    let mut drawn = Vec::new();
    let render = |v: &TableView, _: &crate::Set<UserId>| {
        drawn.push((v.id, v.version));
        Rendered {
            message: -1,
            hash: -1,
            alerted: Vec::new(),
            buried: false,
        }
    };
    let job = w.engine.poll_job(w.now, render);
    assert!(matches!(job, Some(Job::Table(_))), "{job:?}");
    assert_eq!(drawn, vec![(t, newest)]);
}

fn hand(version: u64) -> HandView {
    let game = kozyr_game::Game::new(GameKind::Kozel, kozyr_game::GameOptions::default(), 3);
    let seat = Seat::ALL[0];
    HandView {
        table: TABLES[0],
        chat: chat(),
        title: "sim".into(),
        kind: GameKind::Kozel,
        phase: Phase::Playing,
        version,
        seat,
        player: Player {
            id: PERSON,
            name: "Ana".into(),
            lang: Lang::En,
        },
        away: false,
        game: game.view(seat),
        legal: Vec::new(),
        your_turn: false,
        deadline: None,
        last_trick: None,
        last_deal: None,
    }
}

/// The version of the hand job polled now, if one.
fn hand_job(e: &mut Engine<i64, u32>, now: Instant) -> Option<u64> {
    let render =
        |_: &TableView, _: &crate::Set<UserId>| -> Rendered<i64> { unreachable!("no table") };
    match e.poll_job(now, render)? {
        Job::Hand(h) => Some(h.version),
        _ => None,
    }
}

#[test]
fn a_hand_gets_its_newest_state_after_its_edit_and_retries_or_forgets_by_the_failure() {
    let t0 = Instant::now();
    let mut e: Engine<i64, u32> = Engine::new(None, t0);
    e.handle_hand(hand(1));
    assert_eq!(hand_job(&mut e, t0), Some(1));
    // While it is on its way, two newer states: only the newest goes next.
    e.handle_hand(hand(2));
    e.handle_hand(hand(3));
    assert_eq!(hand_job(&mut e, t0), None, "one edit in flight");
    assert!(!e.handle_hand_done(hand(1), None, t0));
    assert_eq!(hand_job(&mut e, t0), Some(3));
    // The platform is down: the same state again after a pause.
    assert!(!e.handle_hand_done(hand(3), Some(Failure::Unavailable), t0));
    assert_eq!(hand_job(&mut e, t0), None, "not before its pause");
    let at = e.poll_timeout().expect("a retry");
    assert!(at > t0);
    assert_eq!(hand_job(&mut e, at), Some(3));
    // Its token expired: forgotten, nothing retried.
    assert!(e.handle_hand_done(hand(3), Some(Failure::Expired), at));
    assert_eq!(hand_job(&mut e, at + Duration::from_secs(60)), None);
    assert!(e.idle());
    // A hand whose place went: its late failure still says to forget.
    e.handle_hand(hand(4));
    assert_eq!(hand_job(&mut e, at), Some(4));
    e.handle_gone(&PERSON, TABLES[0]);
    assert!(e.handle_hand_done(hand(4), Some(Failure::Expired), at));
    assert_eq!(hand_job(&mut e, at), None);
    assert!(e.idle());
}

/// A seed replays the same run, kills and all, in any process: a failure
/// a search of seeds found runs again alone (`KOZYR_SIM_SEEDS=S..S+1`).
#[test]
fn a_seed_replays_the_same_run() {
    let trace = |seed| {
        let mut w = World::new(seed, true);
        w.hands = true;
        for _ in 0..200 {
            w.step();
        }
        w.quiet();
        (format!("{:?}", w.msgs), w.pings_posted, w.hand_edits)
    };
    for seed in crate::sim_seeds(50) {
        assert!(trace(seed) == trace(seed), "seed {seed} ran two ways");
    }
}

/// A store that refuses writes now and then, or answers them too late:
/// what people see is as without faults — every table and hand current
/// once quiet, each announcement once, no edit that changes nothing —
/// and, unless it refused to make a hash unknown before a change, what it
/// says a table message shows is unknown or true.
#[test]
fn a_store_that_refuses_writes_now_and_then_changes_nothing_people_see() {
    for unknown_faults in [false, true] {
        for seed in crate::sim_seeds(1000) {
            crate::sim_run(seed, |seed| {
                let mut w = World::new(seed, false);
                w.hands = true;
                w.store_faults = true;
                w.unknown_faults = unknown_faults;
                for _ in 0..200 {
                    w.step();
                }
                w.quiet();
                w.check_quiet(false);
            });
        }
    }
}

/// A table posted, then posted anew, the store refusing the new
/// message's id: the world, the table, and the first message (the one its
/// row still names).
fn refused_repost() -> (World, TableId, MessageId) {
    let t = TABLES[0];
    let mut w = World::new(0, false);
    w.chaos = false;
    w.render(t);
    w.quiet();
    let first = w.rows[&t].message.expect("posted");
    w.refuse_refs = 1;
    let v = w.versions[&t] + 1;
    w.versions.insert(t, v);
    w.engine
        .handle_render(view(t, v), Vec::new(), true, None, |_| true, w.now);
    w.quiet();
    assert_eq!(w.rows[&t].message, Some(first), "the id was refused");
    (w, t, first)
}

/// A table posted anew whose id the store refused: its row still names
/// the old message, so the table's next job that lands keeps the id again,
/// with what it shows — a restart then edits the live message, not the
/// old one (which would get its buttons back beside it).
#[test]
fn a_messages_id_the_store_refused_is_kept_by_the_next_job() {
    let (mut w, t, first) = refused_repost();
    // A state that shows something else (two in a row may not).
    let v = w.versions[&t] + 2;
    w.versions.insert(t, v);
    w.engine
        .handle_render(view(t, v), Vec::new(), false, None, |_| true, w.now);
    w.quiet();
    let live = w.live_posts(t, 0);
    assert_eq!(live.len(), 1);
    assert_ne!(live[0], first);
    assert_eq!(w.rows[&t].message, Some(live[0]));
    assert_eq!(w.rows[&t].shown, Some(w.msgs[&live[0]].hash));
    w.restart();
    w.quiet();
    w.check_quiet(false);
}

/// A kill at any step while the store refuses writes now and then (not
/// the ones that make a hash unknown first): no false record, and once
/// quiet every table current on one live message.
#[test]
fn a_kill_at_any_step_with_a_store_refusing_writes_leaves_no_false_record() {
    for seed in crate::sim_seeds(1000) {
        crate::sim_run(seed, |seed| {
            let mut w = World::new(seed, true);
            w.hands = true;
            w.store_faults = true;
            for _ in 0..200 {
                w.step();
            }
            w.quiet();
            w.check_quiet(true);
        });
    }
}

/// A graceful stop while a table's id is unsaved (the store refused it,
/// and no job of the table landed since): the stop keeps that id with
/// what the message shows, and writes no hash on the row of the message
/// it replaced; the start then edits the live message, nothing twice.
#[test]
fn a_stop_keeps_an_id_the_store_refused() {
    let (mut w, t, _) = refused_repost();
    // The stop, as the outbox makes it.
    let shown = w.engine.shown_rows();
    assert!(!shown.iter().any(|(st, _, _)| *st == t));
    let unsaved = w.engine.unsaved_refs();
    assert_eq!(unsaved.len(), 1);
    for write in unsaved {
        let StoreWrite::MessageRef {
            table,
            message,
            hash,
            ..
        } = write
        else {
            panic!("{write:?}");
        };
        let row = Row {
            message: Some(message),
            shown: Some(hash),
        };
        w.rows.insert(table, row);
    }
    w.check_records();
    w.restart();
    w.quiet();
    w.check_quiet(false);
}
