//! The bot's one output scheduler, sans-IO.
//!
//! Telegram lets a bot send or edit about 30 messages a second in all,
//! about one a second in a private chat and 20 a minute in a group, and
//! answers 429 with `retry_after` beyond that (and bans a bot that keeps
//! ignoring it). teloxide's `Throttle` adaptor paces only sends and freezes
//! every chat on a 429, so kozyr schedules every output itself, in one
//! place:
//!
//! - a *slot* (a table message, a hand) shows the latest content only:
//!   newer content replaces content not yet transmitted (latest wins);
//! - content identical to what Telegram already shows is not transmitted,
//!   and content is rendered again when it goes out ([`Pacer::poll_transmit_with`]),
//!   so a delayed message shows the state of the moment it is sent;
//! - each chat has its class's limits ([`Limits`]): a group at most one
//!   output per `min_interval` (3 s; `urgent_interval` for an urgent one)
//!   and `max_per_window` per `window` (20 a minute), a private chat one a
//!   second;
//! - the whole bot spends at most [`BotBudget::per_second`] outputs a second
//!   (a token bucket), and when that budget is short the most urgent work
//!   goes first, in three tiers ([`Priority::tier`]): the hand of the
//!   person who must act now before anything else (about two per move: the
//!   turn, a card selected), then group tables, replies and renders that
//!   change what buttons do, then the hands of everyone else. After
//!   [`TURN_RUN`] of the first tier in a row other ready work gets a turn,
//!   and after [`HANDS_EVERY`] of the first two one of the last goes, so no
//!   tier is starved: a hand waiting while it is not its person's turn
//!   shows the latest state when it goes (latest wins), so under pressure
//!   it costs one output per few moves instead of one per move. Within a
//!   tier an output is due at the time it was queued plus its
//!   [`Priority`]'s allowance and the earliest due goes first;
//! - one-off messages (announcements, replies) are queued in order and
//!   never dropped: a 429 or a network failure retries them;
//! - a 429 delays only its chat, by its `retry_after`;
//! - one output per chat is in flight at a time, so order is kept.
//!
//! The pacer does no IO and reads no clock: time comes in as `now`, work
//! goes out of [`Pacer::poll_transmit`], results come back through
//! [`Pacer::on_result`], and [`Pacer::poll_timeout`] says when to poll next.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use kozyr_delivery::pacing::{Outcome, Output, Pacer, PacerConfig};
//!
//! let mut pacer = Pacer::new(PacerConfig::default());
//! let t0 = Instant::now();
//! pacer.set("group", "table", "deal 1");
//! pacer.set("group", "table", "deal 1, trick 1"); // replaces the first
//! let tx = pacer.poll_transmit(t0).unwrap();
//! assert_eq!(tx.output, Output::Set { slot: "table", content: "deal 1, trick 1" });
//! pacer.on_result(tx.ticket, Outcome::Done, t0);
//!
//! pacer.set("group", "table", "trick 2");
//! assert!(pacer.poll_transmit(t0 + Duration::from_secs(1)).is_none()); // too soon
//! assert_eq!(pacer.poll_timeout(), Some(Some(t0 + Duration::from_secs(3))));
//! ```

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

/// The limits the pacer keeps, per chat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacerConfig {
    /// Least time between two outputs in a chat.
    pub min_interval: Duration,
    /// Least time between two outputs when the next one is urgent
    /// ([`Priority::is_urgent`]: it changes what the buttons do, or it is
    /// the hand of the person who must act). Never below what the chat's
    /// platform limit allows; the window below still holds.
    pub urgent_interval: Duration,
    pub window: Duration,
    /// Most outputs in a chat within any `window` (0: no such limit).
    pub max_per_window: usize,
}

impl Default for PacerConfig {
    /// Telegram's group limits: 20 a minute, spread at one every 3 seconds
    /// so that a table always has some of the minute left; an urgent
    /// output (the lobby turning into the game) need not wait the 3 s.
    fn default() -> Self {
        PacerConfig::group()
    }
}

impl PacerConfig {
    /// Telegram's group limits (see [`Default`]).
    pub fn group() -> Self {
        PacerConfig {
            min_interval: Duration::from_secs(3),
            urgent_interval: Duration::from_millis(500),
            window: Duration::from_secs(60),
            max_per_window: 20,
        }
    }

    /// Telegram's private-chat limit, one output a second, with margin:
    /// two calls sent 1.000 s apart reach Telegram a few ms closer and the
    /// second is refused.
    pub fn private() -> Self {
        PacerConfig {
            min_interval: PRIVATE_INTERVAL,
            urgent_interval: PRIVATE_INTERVAL,
            window: Duration::from_secs(60),
            max_per_window: 0,
        }
    }

    /// No per-chat limit at all (tests).
    pub fn unpaced() -> Self {
        PacerConfig {
            min_interval: Duration::ZERO,
            urgent_interval: Duration::ZERO,
            window: Duration::from_secs(60),
            max_per_window: 0,
        }
    }
}

/// `t` as unix milliseconds, given that `now` is `unix_now_ms`: how write
/// times are recorded for the next process ([`Pacer::window_writes`]).
pub fn unix_ms(t: Instant, now: Instant, unix_now_ms: i64) -> i64 {
    let ago = i64::try_from(now.saturating_duration_since(t).as_millis()).unwrap_or(i64::MAX);
    unix_now_ms.saturating_sub(ago)
}

/// A recorded write time (unix milliseconds) as an `Instant`, given that
/// `now` is `unix_now_ms`. A time ahead of `now` (another machine's clock
/// ahead of this one's) counts as `now`: the safe side.
pub fn instant_of(ms: i64, now: Instant, unix_now_ms: i64) -> Instant {
    let ago = u64::try_from(unix_now_ms.saturating_sub(ms)).unwrap_or(0);
    now.checked_sub(Duration::from_millis(ago)).unwrap_or(now)
}

/// A window's oldest write frees its place this much after the window:
/// the pacer counts a write from when it goes out, the platform from when
/// it arrives, and a later call that arrives faster than the oldest did
/// would otherwise land inside the window (a group's 21st write in a
/// minute; seen after a restart that knew the window exactly).
pub const WINDOW_MARGIN: Duration = Duration::from_millis(250);

/// One private chat's outputs are at least this far apart.
pub const PRIVATE_INTERVAL: Duration = Duration::from_millis(1050);

/// The bot-wide budget: a token bucket of `burst` outputs refilled at
/// `per_second`. `per_second == 0` means no bot-wide limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotBudget {
    pub per_second: u32,
    pub burst: u32,
}

impl BotBudget {
    /// Telegram's ~30 messages a second, spread evenly (no burst): never
    /// more than 30 in any second, even for a Telegram that counts in a
    /// sliding window.
    pub const TELEGRAM: BotBudget = BotBudget {
        per_second: 30,
        burst: 1,
    };

    pub const UNLIMITED: BotBudget = BotBudget {
        per_second: 0,
        burst: 0,
    };

    /// A budget of `per_second` (0: unlimited), spread evenly like
    /// [`BotBudget::TELEGRAM`].
    pub fn per_second(per_second: u32) -> BotBudget {
        BotBudget {
            per_second,
            burst: 1,
        }
    }
}

/// Which limits a chat has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Group,
    Private,
}

/// Every class's limits and the bot-wide budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub group: PacerConfig,
    pub private: PacerConfig,
    pub budget: BotBudget,
}

impl Default for Limits {
    /// Telegram's.
    fn default() -> Self {
        Limits {
            group: PacerConfig::group(),
            private: PacerConfig::private(),
            budget: BotBudget::TELEGRAM,
        }
    }
}

impl Limits {
    fn of(&self, class: Class) -> &PacerConfig {
        match class {
            Class::Group => &self.group,
            Class::Private => &self.private,
        }
    }
}

/// How many outputs of [`Priority::Turn`] go in a row, while other work
/// is ready, before one of the others: they get at least a third of the
/// budget. Without it, once the hands of people whose turn it is ask for
/// the whole budget, nothing else would ever go: no group table, and no
/// lobby for new tables. The turn's hands are about two outputs a move
/// (the turn, a card selected): at 40 tables at a human pace two thirds
/// of the budget. With 6 instead of 3 their p99 went from 5.2 s to 4.0 s
/// there and the group table's from 7.5 s to 15 s; with 2 instead of 3,
/// chat only at 50 tables, the group's p99 went from 5.10 s to 4.48 s and
/// the acting hand's from 0.95 s to 0.98 s (`docs/PERFORMANCE.md`).
pub const TURN_RUN: u32 = 2;

/// After this many outputs of the first two tiers in a row, while a hand
/// of the last waits, the hand goes: hands not on turn keep at least a
/// sixteenth of the budget. Small, because a group edit shows a move to
/// four people and such a hand is brought up to date at its person's turn
/// anyway; not nothing, because a hand after the game's end has no turn
/// to come.
pub const HANDS_EVERY: u32 = 16;

/// How long messages showed an out-of-date state: from the first change
/// not yet sent to the delivery of a message showing it (or a later state),
/// by whose message it was. Read by `kozyr-loadtest`; also in the metrics
/// (`kozyr_output_staleness_seconds`).
#[derive(Clone, Debug, Default)]
pub struct Freshness {
    /// The hand of the person who must act (from the change that made it
    /// their turn).
    pub actor: Vec<Duration>,
    /// Group table messages.
    pub group: Vec<Duration>,
    /// Everyone else's hands, the person's who just acted among them.
    pub others: Vec<Duration>,
}

impl Freshness {
    /// An output to a chat of `class` went out `took` after its state
    /// was new, at `prio`.
    pub fn record(&mut self, class: Class, prio: Priority, took: Duration) {
        let (list, label) = match (class, prio) {
            (Class::Group, _) => (&mut self.group, "group"),
            (Class::Private, Priority::Turn) => (&mut self.actor, "actor"),
            (Class::Private, _) => (&mut self.others, "others"),
        };
        // Bounded: a long-running bot keeps the metric, not every sample.
        if list.len() < 1_000_000 {
            list.push(took);
        }
        kozyr_metrics::output_staleness(label, took);
    }
}

/// How urgent an output is when the budget is short.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// The hand of the person who must act now, and a lobby (the people
    /// who must act there — join, start — act on what it shows; a table
    /// has a few such outputs in its life).
    Turn,
    /// What a person who just did something waits for: a reply, a render
    /// that changes what buttons do.
    Acted,
    /// Group tables and announcements.
    Table,
    /// Hands that are not their person's turn, the hand of the person who
    /// just acted among them: they saw their press answered, and their
    /// hand is brought up to date at the latest when it is their turn.
    Background,
}

impl Priority {
    pub const ALL: [Priority; 4] = [
        Priority::Turn,
        Priority::Acted,
        Priority::Table,
        Priority::Background,
    ];

    /// Its name in metrics.
    pub fn label(self) -> &'static str {
        match self {
            Priority::Turn => "turn",
            Priority::Acted => "acted",
            Priority::Table => "table",
            Priority::Background => "background",
        }
    }

    /// How long after it was queued an output of this priority is due.
    /// The earliest due goes first: a priority is a head start, not a
    /// place that lower ones can never reach.
    pub fn allowance(self) -> Duration {
        match self {
            Priority::Turn => Duration::ZERO,
            Priority::Acted => Duration::from_millis(500),
            Priority::Table => Duration::from_secs(3),
            Priority::Background => Duration::from_secs(10),
        }
    }

    /// May skip a group's spreading interval (not its window).
    pub fn is_urgent(self) -> bool {
        self <= Priority::Acted
    }

    /// Its tier when the budget is short: every ready output of a lower
    /// tier goes before any of a higher one, but for [`TURN_RUN`] and
    /// [`HANDS_EVERY`]. At 40 tables at a human pace, with group tables
    /// and the hands of those who just acted in one tier ordered by due
    /// time, a group showed a move p99 12 s late: a due-time head start
    /// only reorders a queue that the budget cannot drain.
    pub fn tier(self) -> u8 {
        match self {
            Priority::Turn => 0,
            Priority::Acted | Priority::Table => 1,
            Priority::Background => 2,
        }
    }
}

/// What to do in the chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output<S, C> {
    /// Make the slot show `content`: edit its message, or send one if it
    /// has none (yet, or any more).
    Set { slot: S, content: C },
    /// Send a new message with `content`.
    Send { content: C },
}

/// Names a transmission when reporting its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ticket<K> {
    pub chat: K,
    id: u64,
}

/// An output to perform now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit<K, S, C> {
    pub ticket: Ticket<K>,
    pub output: Output<S, C>,
}

/// How a transmission went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The platform took it.
    Done,
    /// "message is not modified": the platform already shows it, a success.
    NotModified,
    /// 429: the chat waits this long; the output is retried after.
    RetryAfter(Duration),
    /// The slot's message is gone (deleted, chat history reset): the next
    /// output for the slot must be a new message. The content is retried.
    Gone,
    /// Failed for good (the bot was removed, a bad request): dropped.
    Failed,
}

/// Its tier ([`Priority::tier`]), when it is due, then its place in the
/// queue: the order in which ready chats are served.
type Rank = (u8, Option<Instant>, u64);

#[derive(Clone, Debug)]
struct Pending<C> {
    seq: u64,
    due: Option<Instant>,
    prio: Priority,
    content: C,
}

impl<C> Pending<C> {
    fn rank(&self) -> Rank {
        (self.prio.tier(), self.due, self.seq)
    }
}

#[derive(Clone, Debug)]
struct Slot<C> {
    /// Content waiting to go out, with its place in the chat's queue.
    wanted: Option<Pending<C>>,
    /// What the platform shows, as far as the pacer knows.
    shown: Option<C>,
}

#[derive(Clone, Debug)]
struct InFlight<S, C> {
    id: u64,
    seq: u64,
    due: Option<Instant>,
    prio: Priority,
    output: Output<S, C>,
    /// Its slot was forgotten meanwhile: the result says nothing about
    /// what the slot (now another message) shows.
    orphan: bool,
}

/// Where a chat is in the wake index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Index {
    /// May transmit now; waits only for the budget.
    Ready(Rank),
    /// May transmit at this time.
    Waiting(Instant, Rank),
}

#[derive(Clone, Debug)]
struct Chat<S, C> {
    class: Class,
    slots: BTreeMap<S, Slot<C>>,
    sends: VecDeque<Pending<C>>,
    in_flight: Option<InFlight<S, C>>,
    blocked_until: Option<Instant>,
    /// Times of the latest outputs, at most `max_per_window` of them.
    recent: VecDeque<Instant>,
    indexed: Option<Index>,
}

impl<S: Ord + Clone, C: Clone + PartialEq> Chat<S, C> {
    fn new(class: Class) -> Self {
        Chat {
            class,
            slots: BTreeMap::new(),
            sends: VecDeque::new(),
            in_flight: None,
            blocked_until: None,
            recent: VecDeque::new(),
            indexed: None,
        }
    }

    /// The most urgent queued output: its rank, priority, and slot (None
    /// for a send). Sends keep their order among themselves.
    fn next_item(&self) -> Option<(Rank, Priority, Option<&S>)> {
        let edit = self
            .slots
            .iter()
            .filter_map(|(s, slot)| slot.wanted.as_ref().map(|p| (p.rank(), p.prio, Some(s))))
            .min_by_key(|(rank, _, _)| *rank);
        let send = self.sends.front().map(|p| (p.rank(), p.prio, None));
        match (edit, send) {
            (Some(e), Some(s)) => Some(if e.0 < s.0 { e } else { s }),
            (e, s) => e.or(s),
        }
    }

    /// When this chat may transmit next, if it has work and nothing in flight.
    fn index(&self, config: &PacerConfig) -> Option<Index> {
        if self.in_flight.is_some() {
            return None;
        }
        let (rank, prio, _) = self.next_item()?;
        let mut at: Option<Instant> = self.blocked_until;
        let mut later = |t: Instant| at = Some(at.map_or(t, |a| a.max(t)));
        if let Some(&last) = self.recent.back() {
            let gap = if prio.is_urgent() {
                config.urgent_interval
            } else {
                config.min_interval
            };
            later(last + gap);
        }
        if config.max_per_window > 0 && self.recent.len() >= config.max_per_window {
            later(
                self.recent[self.recent.len() - config.max_per_window]
                    + config.window
                    + WINDOW_MARGIN,
            );
        }
        Some(match at {
            None => Index::Ready(rank),
            Some(t) => Index::Waiting(t, rank),
        })
    }

    /// What the platform will show in `slot` once the output in flight lands.
    fn expected(&self, slot: &S) -> Option<&C> {
        match &self.in_flight {
            // An orphan went to the message the slot had before it was
            // forgotten: it says nothing of what the slot will show.
            Some(InFlight {
                output: Output::Set { slot: s, content },
                orphan: false,
                ..
            }) if s == slot => Some(content),
            _ => self.slots.get(slot).and_then(|s| s.shown.as_ref()),
        }
    }
}

/// The bot-wide token bucket's state: `tokens` left at `at`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Option<Instant>,
}

impl Bucket {
    fn level(&self, b: BotBudget, now: Instant) -> f64 {
        match self.at {
            None => f64::from(b.burst),
            Some(at) => (self.tokens
                + now.saturating_duration_since(at).as_secs_f64() * f64::from(b.per_second))
            .min(f64::from(b.burst.max(1))),
        }
    }

    /// When the next output may go: `None` at once.
    fn available_at(&self, b: BotBudget) -> Option<Instant> {
        if b.per_second == 0 {
            return None;
        }
        let at = self.at?;
        (self.tokens < 1.0)
            .then(|| at + Duration::from_secs_f64((1.0 - self.tokens) / f64::from(b.per_second)))
    }

    fn take(&mut self, b: BotBudget, now: Instant) {
        if b.per_second > 0 {
            self.tokens = self.level(b, now) - 1.0;
            self.at = Some(now);
        }
    }
}

/// Paces output per chat and for the whole bot. `K` names chats, `S`
/// slots within a chat, `C` is the content (compared to skip identical
/// outputs).
#[derive(Clone, Debug)]
pub struct Pacer<K, S, C> {
    limits: Limits,
    classify: fn(&K) -> Class,
    chats: BTreeMap<K, Chat<S, C>>,
    /// Chats that may transmit now, most urgent first.
    ready: BTreeSet<(Rank, K)>,
    /// Chats that may transmit later, by when.
    waiting: BTreeSet<(Instant, Rank, K)>,
    /// Chats in the index, by class (for metrics).
    indexed: [usize; 2],
    bucket: Bucket,
    /// The latest time the pacer was told (outputs queued now are due from it).
    clock: Option<Instant>,
    /// Outputs of [`Priority::Turn`] transmitted since the last other one.
    turn_run: u32,
    /// Outputs of the first two tiers transmitted since the last of the
    /// third ([`HANDS_EVERY`]).
    urgent_run: u32,
    next_seq: u64,
    next_id: u64,
    /// Set by [`Pacer::start_spent`]: chats start with their windows full
    /// as of this time.
    spent_at: Option<Instant>,
    /// Set by [`Pacer::start_written`]: chats start as if written to at
    /// this time.
    written_at: Option<Instant>,
}

/// The write times a chat with `config` is assumed to have had up to `at`
/// ([`Pacer::start_spent`]).
fn spent_window(config: &PacerConfig, at: Instant) -> VecDeque<Instant> {
    let n = config.max_per_window;
    if n == 0 {
        return VecDeque::from([at]);
    }
    let step = config.window / u32::try_from(n).unwrap_or(u32::MAX);
    (0..n)
        .rev()
        .filter_map(|i| at.checked_sub(step * u32::try_from(i).unwrap_or(u32::MAX)))
        .collect()
}

fn class_index(c: Class) -> usize {
    match c {
        Class::Group => 0,
        Class::Private => 1,
    }
}

impl<K: Ord + Clone, S: Ord + Clone, C: Clone + PartialEq> Pacer<K, S, C> {
    /// A pacer where every chat has `config`'s limits and the bot has no
    /// budget of its own.
    pub fn new(config: PacerConfig) -> Self {
        Pacer::with_limits(
            Limits {
                group: config,
                private: config,
                budget: BotBudget::UNLIMITED,
            },
            |_| Class::Group,
        )
    }

    /// A pacer with `limits`; `classify` says which limits a chat has.
    pub fn with_limits(limits: Limits, classify: fn(&K) -> Class) -> Self {
        Pacer {
            limits,
            classify,
            chats: BTreeMap::new(),
            ready: BTreeSet::new(),
            waiting: BTreeSet::new(),
            indexed: [0; 2],
            bucket: Bucket {
                tokens: 0.0,
                at: None,
            },
            clock: None,
            turn_run: 0,
            urgent_run: 0,
            next_seq: 0,
            next_id: 0,
            spent_at: None,
            written_at: None,
        }
    }

    /// For a bot that restarts: what it wrote before is forgotten, but
    /// Telegram still counts it. Every chat starts as if it had spent its
    /// whole window in writes evenly spread over the `window` up to `now`
    /// (a group's 20 a minute: one every 3 s, the last at `now`), so the
    /// first write waits one spacing and the pace never bursts above the
    /// limit across the restart; a chat without a window limit starts as if
    /// it had just been written to.
    pub fn start_spent(&mut self, now: Instant) {
        self.spent_at = Some(now);
        self.clock = Some(self.clock.map_or(now, |c| c.max(now)));
        let chats: Vec<K> = self.chats.keys().cloned().collect();
        for chat in chats {
            if let Some(c) = self.chats.get_mut(&chat) {
                c.recent = spent_window(self.limits.of(c.class), now);
            }
            self.reindex(&chat);
        }
    }

    /// For a bot that starts where no sign says it wrote before, but a
    /// process killed a moment ago may have (its first post not recorded
    /// yet): a chat without a window limit starts as if written to at
    /// `now`, so its first write waits its interval (a private chat's
    /// 1.05 s). A window is restored from its recorded writes instead
    /// ([`Pacer::restore_writes`]); a phantom write would take a place in it.
    pub fn start_written(&mut self, now: Instant) {
        self.written_at = Some(now);
        self.clock = Some(self.clock.map_or(now, |c| c.max(now)));
    }

    /// The times of `chat`'s latest outputs that its window counts, oldest
    /// first, for the next process to know the window exactly
    /// ([`Pacer::restore_writes`]); empty for a chat whose class has no
    /// window limit (its interval alone is kept by [`Pacer::start_spent`]).
    pub fn window_writes(&self, chat: &K) -> Vec<Instant> {
        match self.chats.get(chat) {
            Some(c) if self.limits.of(c.class).max_per_window > 0 => {
                c.recent.iter().copied().collect()
            }
            _ => Vec::new(),
        }
    }

    /// `chat`'s latest outputs were at `times`, as the process before this
    /// one recorded them ([`Pacer::window_writes`]): its window and its
    /// spacing count from those instead of [`Pacer::start_spent`]'s even
    /// guess, which urgent writes 0.5 s apart can make wrong.
    pub fn restore_writes(&mut self, chat: K, times: impl IntoIterator<Item = Instant>) {
        let mut times: Vec<Instant> = times.into_iter().collect();
        times.sort_unstable();
        let max = self.limits.of((self.classify)(&chat)).max_per_window.max(1);
        let skip = times.len().saturating_sub(max);
        let c = self.chat(&chat);
        c.recent = times.into_iter().skip(skip).collect();
        self.reindex(&chat);
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Chats with output waiting to go out (now or when paced), for metrics.
    pub fn chats_waiting(&self) -> usize {
        self.ready.len() + self.waiting.len()
    }

    /// Outputs waiting to go out, per priority in [`Priority::ALL`]'s
    /// order, for metrics (a walk over the chats: call it when idle).
    pub fn outputs_waiting(&self) -> [usize; 4] {
        let mut n = [0; 4];
        let pending = self.chats.values().flat_map(|c| {
            let slots = c.slots.values().filter_map(|s| s.wanted.as_ref());
            slots.chain(c.sends.iter()).map(|p| p.prio)
        });
        for prio in pending {
            if let Some(i) = Priority::ALL.iter().position(|&p| p == prio) {
                n[i] += 1;
            }
        }
        n
    }

    /// Chats of `class` with output waiting to go out, for metrics.
    pub fn chats_waiting_in(&self, class: Class) -> usize {
        self.indexed[class_index(class)]
    }

    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    fn due(&self, prio: Priority) -> Option<Instant> {
        self.clock.map(|t| t + prio.allowance())
    }

    fn chat(&mut self, chat: &K) -> &mut Chat<S, C> {
        let class = (self.classify)(chat);
        let config = *self.limits.of(class);
        let (spent_at, written_at) = (self.spent_at, self.written_at);
        self.chats.entry(chat.clone()).or_insert_with(|| {
            let mut c = Chat::new(class);
            if let Some(at) = spent_at {
                c.recent = spent_window(&config, at);
            } else if let Some(at) = written_at
                && config.max_per_window == 0
            {
                c.recent = VecDeque::from([at]);
            }
            c
        })
    }

    fn unindex(&mut self, chat: &K) {
        let Some(c) = self.chats.get_mut(chat) else {
            return;
        };
        match c.indexed.take() {
            Some(Index::Ready(rank)) => {
                self.ready.remove(&(rank, chat.clone()));
            }
            Some(Index::Waiting(t, rank)) => {
                self.waiting.remove(&(t, rank, chat.clone()));
            }
            None => return,
        }
        self.indexed[class_index(c.class)] -= 1;
    }

    fn reindex(&mut self, chat: &K) {
        self.unindex(chat);
        let Some(c) = self.chats.get_mut(chat) else {
            return;
        };
        c.indexed = c.index(self.limits.of(c.class));
        match c.indexed {
            Some(Index::Ready(rank)) => {
                self.ready.insert((rank, chat.clone()));
            }
            Some(Index::Waiting(t, rank)) => {
                self.waiting.insert((t, rank, chat.clone()));
            }
            None => return,
        }
        self.indexed[class_index(c.class)] += 1;
    }

    /// Makes `slot` in `chat` show `content`, replacing content that has
    /// not gone out yet; nothing happens if the platform will show it anyway.
    pub fn set(&mut self, chat: K, slot: S, content: C) {
        self.set_with(chat, slot, content, Priority::Table);
    }

    /// [`Pacer::set`] with a priority.
    pub fn set_with(&mut self, chat: K, slot: S, content: C, prio: Priority) {
        let seq = self.seq();
        let due = self.due(prio);
        let c = self.chat(&chat);
        if c.expected(&slot) == Some(&content) {
            if let Some(s) = c.slots.get_mut(&slot) {
                s.wanted = None;
            }
        } else {
            let s = c.slots.entry(slot).or_insert(Slot {
                wanted: None,
                shown: None,
            });
            // Keep the place in the queue and the earlier due time; the
            // content and the priority are the newest.
            let (seq, due) = match &s.wanted {
                Some(p) => (p.seq, p.due.min(due).or(p.due).or(due)),
                None => (seq, due),
            };
            s.wanted = Some(Pending {
                seq,
                due,
                prio,
                content,
            });
        }
        self.reindex(&chat);
    }

    /// Queues a new message in `chat`; sends are never merged or dropped.
    pub fn send(&mut self, chat: K, content: C) {
        self.send_with(chat, content, Priority::Table);
    }

    /// [`Pacer::send`] with a priority.
    pub fn send_with(&mut self, chat: K, content: C, prio: Priority) {
        let seq = self.seq();
        let due = self.due(prio);
        self.chat(&chat).sends.push_back(Pending {
            seq,
            due,
            prio,
            content,
        });
        self.reindex(&chat);
    }

    /// The next output to perform at `now`, if any chat may have one.
    /// Call until `None`, then again at [`Pacer::poll_timeout`].
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit<K, S, C>> {
        self.poll_transmit_with(now, |_, _, c| c)
    }

    /// Like [`Pacer::poll_transmit`], with a slot's content made anew by
    /// `render` as it goes out (a message showing state shows the state of
    /// the moment it is sent); content that the platform shows already is
    /// skipped without spending the budget.
    pub fn poll_transmit_with(
        &mut self,
        now: Instant,
        mut render: impl FnMut(&K, &S, C) -> C,
    ) -> Option<Transmit<K, S, C>> {
        self.clock = Some(self.clock.map_or(now, |c| c.max(now)));
        loop {
            while let Some((t, rank, chat)) = self.waiting.first().cloned() {
                if t > now {
                    break;
                }
                self.waiting.remove(&(t, rank, chat.clone()));
                self.ready.insert((rank, chat.clone()));
                if let Some(c) = self.chats.get_mut(&chat) {
                    c.indexed = Some(Index::Ready(rank));
                }
            }
            let chat = self.next_ready()?;
            if self
                .bucket
                .available_at(self.limits.budget)
                .is_some_and(|t| t > now)
            {
                return None;
            }
            self.unindex(&chat);
            let c = self.chats.get_mut(&chat)?;
            let ((_, due, seq), prio, slot) = c.next_item().map(|(r, p, s)| (r, p, s.cloned()))?;
            let output = match slot {
                Some(slot) => {
                    let s = c.slots.get_mut(&slot)?;
                    let p = s.wanted.take()?;
                    let content = render(&chat, &slot, p.content);
                    if s.shown.as_ref() == Some(&content) {
                        self.reindex(&chat);
                        continue;
                    }
                    Output::Set { slot, content }
                }
                None => Output::Send {
                    content: c.sends.pop_front()?.content,
                },
            };
            let max = self.limits.of(c.class).max_per_window.max(1);
            c.recent.push_back(now);
            while c.recent.len() > max {
                c.recent.pop_front();
            }
            let id = self.next_id;
            self.next_id += 1;
            c.in_flight = Some(InFlight {
                id,
                seq,
                due,
                prio,
                output: output.clone(),
                orphan: false,
            });
            self.bucket.take(self.limits.budget, now);
            // The time waited, from when it was queued (due minus its head start).
            let queued = due.map(|d| d.checked_sub(prio.allowance()).unwrap_or(d));
            kozyr_metrics::output_wait(
                prio.label(),
                queued.map_or(Duration::ZERO, |q| now.saturating_duration_since(q)),
            );
            self.turn_run = if prio.tier() == 0 {
                self.turn_run.saturating_add(1)
            } else {
                0
            };
            self.urgent_run = if prio.tier() < 2 {
                self.urgent_run.saturating_add(1)
            } else {
                0
            };
            return Some(Transmit {
                ticket: Ticket { chat, id },
                output,
            });
        }
    }

    /// The ready chat to serve next: the most urgent, unless a tier had
    /// its run and a later tier has work ready: after [`HANDS_EVERY`] of
    /// the first two tiers, the first hand of the third; after
    /// [`TURN_RUN`] of the first, the first of the others.
    fn next_ready(&self) -> Option<K> {
        let ((tier, ..), chat) = self.ready.first()?;
        let first_from = |from: u8| {
            self.ready
                .iter()
                .find(|((tier, ..), _)| *tier >= from)
                .map(|(_, chat)| chat.clone())
        };
        if *tier < 2
            && self.urgent_run >= HANDS_EVERY
            && let Some(hand) = first_from(2)
        {
            return Some(hand);
        }
        if *tier == 0
            && self.turn_run >= TURN_RUN
            && let Some(other) = first_from(1)
        {
            return Some(other);
        }
        Some(chat.clone())
    }

    /// Reports how a transmission went.
    pub fn on_result(&mut self, ticket: Ticket<K>, outcome: Outcome, now: Instant) {
        self.clock = Some(self.clock.map_or(now, |c| c.max(now)));
        let Some(c) = self.chats.get_mut(&ticket.chat) else {
            return;
        };
        let Some(flight) = c.in_flight.take_if(|f| f.id == ticket.id) else {
            return;
        };
        // The platform counts a write from when it arrives, which is some
        // time before its answer: the chat's next write is spaced from the
        // answer, so a call held up on its way (a slow network, a busy
        // machine) cannot land closer than the interval to the next one.
        if matches!(outcome, Outcome::Done | Outcome::NotModified)
            && let Some(t) = c.recent.back_mut()
        {
            *t = (*t).max(now);
        }
        let unrecord = |c: &mut Chat<S, C>| {
            c.recent.pop_back();
        };
        let retry = |content| Pending {
            seq: flight.seq,
            due: flight.due,
            prio: flight.prio,
            content,
        };
        if flight.orphan {
            match outcome {
                Outcome::Done | Outcome::NotModified => {}
                Outcome::RetryAfter(d) => {
                    unrecord(c);
                    c.blocked_until = Some(c.blocked_until.map_or(now + d, |b| b.max(now + d)));
                }
                Outcome::Gone | Outcome::Failed => unrecord(c),
            }
            self.reindex(&ticket.chat);
            return;
        }
        match (outcome, flight.output.clone()) {
            (Outcome::Done | Outcome::NotModified, Output::Set { slot, content }) => {
                if let Some(s) = c.slots.get_mut(&slot) {
                    if s.wanted.as_ref().is_some_and(|p| p.content == content) {
                        s.wanted = None;
                    }
                    s.shown = Some(content);
                }
            }
            (Outcome::Done | Outcome::NotModified, Output::Send { .. }) => {}
            (Outcome::RetryAfter(d), output) => {
                unrecord(c);
                c.blocked_until = Some(c.blocked_until.map_or(now + d, |b| b.max(now + d)));
                match output {
                    Output::Set { slot, content } => {
                        if let Some(s) = c.slots.get_mut(&slot) {
                            // Newer content keeps waiting, at the old place.
                            match &mut s.wanted {
                                Some(p) => {
                                    p.seq = p.seq.min(flight.seq);
                                    p.due = p.due.min(flight.due).or(p.due).or(flight.due);
                                }
                                None => s.wanted = Some(retry(content)),
                            }
                        }
                    }
                    Output::Send { content } => c.sends.push_front(retry(content)),
                }
            }
            (Outcome::Gone, Output::Set { slot, content }) => {
                unrecord(c);
                if let Some(s) = c.slots.get_mut(&slot) {
                    s.shown = None;
                    if s.wanted.is_none() {
                        s.wanted = Some(retry(content));
                    }
                }
            }
            (Outcome::Gone | Outcome::Failed, _) => unrecord(c),
        }
        self.reindex(&ticket.chat);
    }

    /// When a chat may next transmit: `Some(None)` at once, `Some(Some(t))`
    /// at `t`, `None` when nothing waits (or only behind outputs in flight).
    pub fn poll_timeout(&self) -> Option<Option<Instant>> {
        if !self.ready.is_empty() {
            return Some(self.bucket.available_at(self.limits.budget));
        }
        self.waiting.first().map(|(t, _, _)| Some(*t))
    }

    /// What the pacer believes `slot` shows in `chat`.
    pub fn shown(&self, chat: &K, slot: &S) -> Option<&C> {
        self.chats.get(chat)?.slots.get(slot)?.shown.as_ref()
    }

    /// What `slot` in `chat` waits to show, if anything.
    pub fn wanted(&self, chat: &K, slot: &S) -> Option<&C> {
        let slot = self.chats.get(chat)?.slots.get(slot)?;
        slot.wanted.as_ref().map(|p| &p.content)
    }

    /// What `slot` in `chat` will show once the output in flight lands
    /// (what it shows, if none is in flight for it).
    pub fn expected(&self, chat: &K, slot: &S) -> Option<&C> {
        self.chats.get(chat)?.expected(slot)
    }

    /// Every slot with what the platform shows in it, as far as the pacer knows.
    pub fn shown_all(&self) -> impl Iterator<Item = (&K, &S, &C)> {
        self.chats.iter().flat_map(|(k, c)| {
            c.slots
                .iter()
                .filter_map(move |(s, slot)| slot.shown.as_ref().map(|shown| (k, s, shown)))
        })
    }

    /// Tells the pacer what the platform shows in `slot` (known from before a
    /// restart), so that the same content is not sent again.
    pub fn assume_shown(&mut self, chat: K, slot: S, content: C) {
        let c = self.chat(&chat);
        let s = c.slots.entry(slot).or_insert(Slot {
            wanted: None,
            shown: None,
        });
        s.shown = Some(content);
    }

    /// The slots the pacer keeps for `chat`.
    pub fn slots(&self, chat: &K) -> impl Iterator<Item = &S> {
        self.chats
            .get(chat)
            .into_iter()
            .flat_map(|c| c.slots.keys())
    }

    /// Whether content for `slot` in `chat` waits to go out.
    pub fn is_waiting(&self, chat: &K, slot: &S) -> bool {
        self.chats
            .get(chat)
            .and_then(|c| c.slots.get(slot))
            .is_some_and(|s| s.wanted.is_some())
    }

    /// Whether an output for `slot` in `chat` is on its way.
    pub fn is_in_flight(&self, chat: &K, slot: &S) -> bool {
        self.chats
            .get(chat)
            .and_then(|c| c.in_flight.as_ref())
            .is_some_and(|f| {
                !f.orphan && matches!(&f.output, Output::Set { slot: s, .. } if s == slot)
            })
    }

    /// Whether anything waits or is in flight for `chat`.
    pub fn is_idle(&self, chat: &K) -> bool {
        self.chats
            .get(chat)
            .is_none_or(|c| c.in_flight.is_none() && c.next_item().is_none())
    }

    /// Drops everything about `chat` (the bot left it, the table closed).
    pub fn forget(&mut self, chat: &K) {
        self.unindex(chat);
        self.chats.remove(chat);
    }

    /// Drops what `chat`'s messages show and wait for (they are posted
    /// anew), but not what the platform counts: its recent writes, a
    /// pause, the call in flight (whose result then sets nothing).
    pub fn clear(&mut self, chat: &K) {
        if let Some(c) = self.chats.get_mut(chat) {
            c.slots.clear();
            c.sends.clear();
            if let Some(f) = &mut c.in_flight {
                f.orphan = true;
            }
        }
        self.reindex(chat);
    }

    /// Drops what `slot` in `chat` shows and waits for, without touching the
    /// chat's other slots (a message that is no longer the live one).
    pub fn forget_slot(&mut self, chat: &K, slot: &S) {
        if let Some(c) = self.chats.get_mut(chat) {
            c.slots.remove(slot);
            if let Some(f) = &mut c.in_flight
                && matches!(&f.output, Output::Set { slot: s, .. } if s == slot)
            {
                f.orphan = true;
            }
        }
        self.reindex(chat);
    }

    /// A group became a supergroup: its queue moves to the new id. The new
    /// chat shows nothing yet, so every slot is sent anew.
    pub fn migrate(&mut self, from: &K, to: K) {
        self.unindex(from);
        let Some(mut c) = self.chats.remove(from) else {
            return;
        };
        if let Some(f) = c.in_flight.take() {
            let retry = |content| Pending {
                seq: f.seq,
                due: f.due,
                prio: f.prio,
                content,
            };
            match f.output {
                Output::Set { slot, content } => {
                    if let Some(s) = c.slots.get_mut(&slot)
                        && s.wanted.is_none()
                    {
                        s.wanted = Some(retry(content));
                    }
                }
                Output::Send { content } => c.sends.push_front(retry(content)),
            }
            c.recent.pop_back();
        }
        for s in c.slots.values_mut() {
            if s.wanted.is_none() {
                s.wanted = s.shown.take().map(|content| Pending {
                    seq: 0,
                    due: None,
                    prio: Priority::Table,
                    content,
                });
            }
            s.shown = None;
        }
        match self.chats.get_mut(&to) {
            // The bot already wrote to the new chat: what it queued there
            // stays, the old chat's work joins it.
            Some(existing) => {
                for (slot, s) in c.slots {
                    let e = existing.slots.entry(slot).or_insert(Slot {
                        wanted: None,
                        shown: None,
                    });
                    if e.wanted.is_none() && e.shown.is_none() {
                        e.wanted = s.wanted;
                    }
                }
                let mut sends: Vec<_> = existing.sends.drain(..).chain(c.sends).collect();
                sends.sort_by_key(|p| p.seq);
                existing.sends = sends.into();
            }
            None => {
                self.chats.insert(to.clone(), c);
            }
        }
        self.reindex(&to);
    }
}

#[cfg(test)]
mod tests;
