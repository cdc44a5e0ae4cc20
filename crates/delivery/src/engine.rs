//! The delivery engine: every decision about a platform's messages in one
//! sans-IO state machine, as quinn-proto's `Connection` holds a
//! connection's. Inputs are plain calls with the time (`handle_*`); what
//! to do comes out of [`Engine::poll_job`], [`Engine::poll_store`] and
//! [`Engine::poll_timeout`]; the shell executes it and reports back.
//! Nothing here awaits or reads the clock.
//!
//! Today it holds the messages of a platform whose client keeps its limits
//! itself (Discord): its table messages with their turn pings, people's
//! hands, and the turn alerts. Telegram's paced lanes are still its
//! shell's (issue 28's later steps).
//!
//! What it decides, per table:
//! - latest wins: one job in flight, the newest state next ([`Latest`]);
//!   a job failed for now goes again after [`Policy`]'s pause;
//! - nothing that changes nothing: a render whose content hash is what
//!   the message shows is not sent (unless news is to be posted);
//! - news first: announcements held for the table's next job go out
//!   before its table call, so a table posted anew stays below them;
//! - posting anew: at a deal's start, when the shell says the message is
//!   buried, or when it is brought back; the old message then loses its
//!   buttons (saying the game started, when it was the lobby);
//! - what the store says the message shows ([`Recorded`]: unknown before
//!   a call that changes it, the new hash after), and the message's id
//!   once posted ([`StoreWrite::MessageRef`]);
//! - turn pings: the people whose turn alerts fire get one new message
//!   naming them, once per change of who they are; the old one goes; a
//!   table posted anew mentions them itself, so no ping then; who they
//!   are is the [`TurnAlerts`]' rule, fed by every render and activity.
//!
//! Per hand: latest wins, a failure retried after its pause, and an
//! expired way to the message (an interaction's token) forgotten.

use crate::{Map, Set};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::alerts::TurnAlerts;
use super::content::{Landed, Recorded, Write, Writes};
use super::latest::Latest;
use super::news::Unforgotten;
use super::transport::{self, Failure, Next, Policy, Recipient};
use kozyr_i18n::Lang;
use kozyr_table::{Announcement, ChatKey, HandView, Phase, SeatState, TableId, TableView, UserId};

/// A message's id on its platform.
pub type MessageId = u64;

/// What the shell makes of a table's state when its job is made.
#[derive(Clone, Debug)]
pub struct Rendered<M> {
    /// The table message, in the platform's markup.
    pub message: M,
    /// Its content hash ([`super::content`]).
    pub hash: i64,
    /// The people awaited whom the turn alerts tell (the engine names
    /// them to the render), with their ids on the platform and their turn
    /// lines: a new message pings them.
    pub alerted: Vec<(u64, String)>,
    /// Other people's chat has buried the table message.
    pub buried: bool,
}

/// Work for the shell: calls in order, each after the one before.
#[derive(Debug)]
pub enum Job<M, N> {
    Table(TableJob<M, N>),
    /// Edit a person's hand message to show `hand` (where the platform
    /// still lets it be edited; else report it done at once).
    Hand(Box<HandView>),
    Ping(PingJob),
    /// A ping that landed after its turn passed: it goes.
    DeletePing {
        chat: ChatKey,
        message: MessageId,
    },
}

/// One table's calls, in this order: the unknown write, the news, the
/// ping (when sequenced), the table call, the write of what it shows.
#[derive(Debug)]
pub struct TableJob<M, N> {
    pub table: TableId,
    pub chat: ChatKey,
    /// Make the stored hash unknown first ([`Writes::unknown_first`]).
    pub unknown_first: bool,
    /// Announcements to post first, each with the announcement when the
    /// store keeps it owed until it is posted ([`owed_settled`]).
    pub news: Vec<(N, Option<Announcement>)>,
    /// A ping's work that must land before the table's call.
    pub ping: Option<PingJob>,
    pub call: TableCall<M>,
    /// Once the call shows the message ([`shows`]), record this
    /// hash.
    pub then: Option<i64>,
    /// The table is closed: its last state.
    pub closed: bool,
    /// No other open table's job has gone to this chat.
    pub last_in_chat: bool,
}

/// The table message's own call.
#[derive(Debug)]
pub enum TableCall<M> {
    /// It shows this already: only the news goes.
    Nothing,
    /// Edit the message; if the platform says it is gone
    /// ([`post_anew`]), post it instead.
    Edit { message: MessageId, content: M },
    /// Post it, then take the buttons off the old message (`strip`).
    Post { content: M, strip: Option<Strip> },
}

/// The old message of a table posted anew: it keeps its text without
/// buttons, or says the game started (in `started`'s language) when it
/// was the lobby.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strip {
    pub message: MessageId,
    pub started: Option<Lang>,
}

/// A table's turn ping: the old one deleted, a new one posted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PingJob {
    pub table: TableId,
    pub chat: ChatKey,
    /// Which ping of the table this is; reported back with the result.
    pub generation: u64,
    pub delete: Option<MessageId>,
    /// Whom a new message names, and its lines.
    pub post: Option<(Vec<u64>, Vec<String>)>,
}

/// What became of a [`TableJob`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDone {
    pub table: TableId,
    /// The unknown write before the call, when there was one.
    pub unknown: Option<Write>,
    pub call: Outcome,
    /// The write after the call, when there was one.
    pub then: Option<Write>,
    /// Owed announcements that went (or never can) and that the store
    /// refused to forget: forgotten again later ([`StoreWrite::ForgetOwed`]).
    pub unforgotten: Vec<Announcement>,
}

/// What the table call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The message shows the state: edited, or it showed it already.
    Edited,
    /// A new message was posted (its id, when the answer could be read).
    Posted(Option<MessageId>),
    /// The call of this kind failed.
    Failed(Failure, transport::Call),
}

/// A store write the shell makes and reports with [`Engine::handle_stored`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreWrite {
    /// `table`'s message is now `message`, showing `hash`.
    MessageRef {
        table: TableId,
        chat: String,
        message: MessageId,
        hash: i64,
    },
    /// The chat is gone or closed to the bot: its table stops.
    ChatGone { chat: ChatKey },
    /// An owed announcement this chat is not told (nothing to say in it):
    /// owed no more.
    ForgetOwed {
        table: TableId,
        announcement: Announcement,
    },
}

#[derive(Debug)]
struct Slot<N> {
    message: Option<MessageId>,
    /// What the message is to show next, latest wins.
    state: Latest<TableView>,
    /// The state of the job in flight (tried again after a pause).
    sending: Option<TableView>,
    /// The newest state given, to draw again when who can see a hand
    /// changed ([`Engine::handle_hand_lost`]).
    newest: Option<TableView>,
    /// The last content sent, to skip edits that change nothing.
    shown: Option<i64>,
    chat: Option<String>,
    /// The next repost follows the lobby turning into the game.
    started: Option<Lang>,
    /// Announcements for the next job.
    news: Vec<(N, Option<Announcement>)>,
    /// The next job posts the table anew.
    repost: bool,
    /// The writes of the job in flight, and whether it reposts.
    writes: Writes,
    reposting: bool,
    /// What a message the job in flight posts shows.
    posting_hash: i64,
    /// The last state sent was the closed table's.
    closed: bool,
    /// The store refused the message's id: its row names an older
    /// message (or, had the refusal landed after all, this one), so each
    /// job makes the row's hash unknown and records none, and each job
    /// that lands tries the id again.
    unsaved: bool,
}

impl<N> Default for Slot<N> {
    fn default() -> Self {
        Slot {
            message: None,
            state: Latest::default(),
            sending: None,
            newest: None,
            shown: None,
            chat: None,
            started: None,
            news: Vec::new(),
            repost: false,
            writes: Writes::default(),
            reposting: false,
            posting_hash: 0,
            closed: false,
            unsaved: false,
        }
    }
}

/// A table's turn ping.
#[derive(Debug, Default)]
struct Ping {
    /// Who the current turn's ping named.
    who: Vec<u64>,
    message: Option<MessageId>,
    /// Bumped by every change of `who`: a ping that lands after a newer
    /// one started is out of date, and goes.
    generation: u64,
}

/// The engine (see the module docs). `M`: a rendered table message; `N`:
/// a worded announcement.
#[derive(Debug)]
pub struct Engine<M, N> {
    tables: Map<TableId, Slot<N>>,
    /// Who is told, with a notifying message, that their turn came.
    alerts: TurnAlerts,
    /// Each person's hand at each table, latest wins.
    hands: Map<(UserId, TableId), Latest<HandView>>,
    /// Hands whose state may go now.
    hand_kick: VecDeque<(UserId, TableId)>,
    recorded: Recorded<TableId>,
    policy: Policy,
    pings: Map<TableId, Ping>,
    /// Owed announcements that went and that the store refused to forget.
    unforgotten: Unforgotten,
    /// Tables whose state may go now.
    kick: VecDeque<TableId>,
    jobs: VecDeque<Job<M, N>>,
    stores: VecDeque<StoreWrite>,
    /// Ping messages that landed after their turn passed: they go.
    stale_pings: VecDeque<(ChatKey, MessageId)>,
}

impl<M, N> Engine<M, N> {
    /// An engine started at `now` (everyone counts as seen then), whose
    /// turn alerts tell people quiet for `quiet` (`None`: only those with
    /// no hand they could see, [`Engine::handle_render`]).
    pub fn new(quiet: Option<Duration>, now: Instant) -> Self {
        Engine {
            tables: Map::default(),
            alerts: TurnAlerts::new(quiet, now),
            hands: Map::default(),
            hand_kick: VecDeque::new(),
            recorded: Recorded::default(),
            policy: Policy::default(),
            pings: Map::default(),
            unforgotten: Unforgotten::default(),
            kick: VecDeque::new(),
            jobs: VecDeque::new(),
            stores: VecDeque::new(),
            stale_pings: VecDeque::new(),
        }
    }
}

/// Whether an owed announcement is settled by its post's result: posted,
/// or refused for good (a pause or an outage leaves it owed, for the next
/// start).
pub fn owed_settled(result: &Result<(), Failure>) -> bool {
    match result {
        Ok(()) => true,
        Err(f) => !matches!(f, Failure::Unavailable | Failure::RateLimited(_)),
    }
}

/// Whether a table edit that failed with `f` is posted anew instead, in
/// the same job (the message is gone).
pub fn post_anew(f: Failure) -> bool {
    Policy::default().next(f, transport::Call::Edit, Recipient::Chat, 0) == Next::PostAnew
}

/// Whether the recorded message shows the job's state after `call`, so
/// that [`TableJob::then`] is written.
pub fn shows(call: &Outcome) -> bool {
    shows_with(&Policy::default(), call)
}

/// Whether the recorded message shows the state after `call`: edited, or
/// refused because it showed it already. A post shows it on a new message,
/// whose hash is written with its id.
fn shows_with(policy: &Policy, call: &Outcome) -> bool {
    match call {
        Outcome::Edited => true,
        Outcome::Posted(_) => false,
        Outcome::Failed(f, c) => policy.next(*f, *c, Recipient::Chat, 0) == Next::Shown,
    }
}

impl<M: Clone, N> Engine<M, N> {
    /// A message the store names for `table` at a start.
    pub fn restore_message(&mut self, table: TableId, message: MessageId) {
        self.tables.entry(table).or_default().message = Some(message);
    }

    /// What the store says `table`'s message (in `chat`) shows, at a start:
    /// the first render that matches is not sent again.
    pub fn restore_shown(&mut self, rows: impl IntoIterator<Item = (TableId, String, i64)>) {
        let mut recorded = Vec::new();
        for (table, chat, hash) in rows {
            if let Some(slot) = self.tables.get_mut(&table) {
                slot.shown = Some(hash);
                slot.chat = Some(chat);
                recorded.push((table, hash));
            }
        }
        self.recorded = Recorded::restore(recorded);
    }

    /// A new state of `table`, with the announcements that came before it
    /// (worded with it; `None`: nothing to say in this chat, and an owed
    /// one is owed no more); `repost`: a deal starts, the table goes anew at
    /// the bottom; `started`: it leaves the lobby (the old message says so).
    /// `unseen`: whether a person has no hand they could see a change in
    /// (on Discord, its token is gone): a turn of theirs counts as not
    /// looked at.
    pub fn handle_render(
        &mut self,
        view: TableView,
        news: Vec<(Option<N>, Option<Announcement>)>,
        repost: bool,
        started: Option<Lang>,
        unseen: impl Fn(&UserId) -> bool,
        now: Instant,
    ) {
        self.note_turns(&view, unseen, now);
        let id = view.id;
        let slot = self.tables.entry(id).or_default();
        for (words, owed) in news {
            match (words, owed) {
                (Some(n), owed) => slot.news.push((n, owed)),
                (None, Some(announcement)) => {
                    let table = id;
                    let write = StoreWrite::ForgetOwed {
                        table,
                        announcement,
                    };
                    self.stores.push_back(write);
                }
                (None, None) => {}
            }
        }
        slot.repost |= repost;
        if started.is_some() {
            slot.started = started;
        }
        slot.newest = Some(view.clone());
        slot.state.put(view);
        self.kick.push_back(id);
    }

    /// Tells the turn alerts whose turn `view` shows: a person whose turn
    /// begins while they are not looking — quiet for the quiet time, or
    /// `unseen` — is to be pinged; not a turn a start finds running.
    fn note_turns(&mut self, view: &TableView, unseen: impl Fn(&UserId) -> bool, now: Instant) {
        if view.phase == Phase::Closed {
            self.alerts.forget_table(view.id);
            return;
        }
        for (seat, state) in view.seats.iter() {
            let SeatState::Person { player, away } = state else {
                continue;
            };
            let your_turn = !away && view.phase == Phase::Playing && view.awaiting.contains(&seat);
            self.alerts
                .handle_turn(&player.id, view.id, your_turn, unseen(&player.id), now);
        }
    }

    /// A person's hand at `table` can no longer be edited (the platform
    /// refused its token): the table's message is drawn again from the
    /// newest state, for it asks those with no hand to see to open it
    /// (`unseen`, as for [`Engine::handle_render`]).
    pub fn handle_hand_lost(
        &mut self,
        table: TableId,
        unseen: impl Fn(&UserId) -> bool,
        now: Instant,
    ) {
        let newest = self.tables.get(&table).and_then(|s| s.newest.clone());
        if let Some(view) = newest {
            self.handle_render(view, Vec::new(), false, None, unseen, now);
        }
    }

    /// `user` pressed a button or wrote to the bot: they are looking.
    pub fn handle_activity(&mut self, user: &UserId, now: Instant) {
        self.alerts.handle_activity(user, now);
    }

    /// `user`'s place at `table` is gone (they left, or it closed): their
    /// hand there is no longer kept current.
    pub fn handle_gone(&mut self, user: &UserId, table: TableId) {
        self.alerts.handle_gone(user, table);
        self.hands.remove(&(user.clone(), table));
    }

    /// A new state of a person's hand.
    pub fn handle_hand(&mut self, hand: HandView) {
        let key = (hand.player.id.clone(), hand.table);
        self.hands.entry(key.clone()).or_default().put(hand);
        self.hand_kick.push_back(key);
    }

    /// What became of a hand's edit (`sent`: the state it was to show).
    /// Returns whether the way to the message is to be forgotten: the
    /// platform no longer lets it be edited (its token expired).
    pub fn handle_hand_done(
        &mut self,
        sent: HandView,
        failed: Option<Failure>,
        now: Instant,
    ) -> bool {
        let key = (sent.player.id.clone(), sent.table);
        let Some(slot) = self.hands.get_mut(&key) else {
            return failed.is_some_and(|f| {
                self.policy
                    .next(f, transport::Call::Token, Recipient::Person, 0)
                    == Next::Forget
            });
        };
        let mut forget = false;
        match failed {
            None => slot.sent(),
            Some(f) => {
                match self
                    .policy
                    .next(f, transport::Call::Token, Recipient::Person, slot.strikes())
                {
                    Next::RetryAfter(pause) => slot.failed(sent, pause, now),
                    Next::Forget => {
                        slot.sent();
                        forget = true;
                    }
                    next => {
                        tracing::warn!(?f, ?next, "editing a hand failed");
                        slot.sent();
                    }
                }
            }
        }
        if slot.is_waiting() {
            self.hand_kick.push_back(key);
        }
        forget
    }

    /// The next work, made now: `render` draws a state as the shell shows
    /// it, and whom of its awaited people the turn alerts tell.
    pub fn poll_job(
        &mut self,
        now: Instant,
        mut render: impl FnMut(&TableView, &Set<UserId>) -> Rendered<M>,
    ) -> Option<Job<M, N>> {
        if let Some(job) = self.jobs.pop_front() {
            return Some(job);
        }
        if let Some((chat, message)) = self.stale_pings.pop_front() {
            return Some(Job::DeletePing { chat, message });
        }
        let due: Vec<TableId> = self
            .tables
            .iter()
            .filter(|(_, s)| s.state.wake().is_some_and(|t| t <= now))
            .map(|(t, _)| *t)
            .collect();
        self.kick.extend(due);
        let due: Vec<(UserId, TableId)> = self
            .hands
            .iter()
            .filter(|(_, s)| s.wake().is_some_and(|t| t <= now))
            .map(|(k, _)| k.clone())
            .collect();
        self.hand_kick.extend(due);
        while let Some(key) = self.hand_kick.pop_front() {
            if let Some(hand) = self.hands.get_mut(&key).and_then(|s| s.take(now)) {
                return Some(Job::Hand(Box::new(hand)));
            }
        }
        while let Some(table) = self.kick.pop_front() {
            self.make_job(table, now, &mut render);
            if let Some(job) = self.jobs.pop_front() {
                return Some(job);
            }
        }
        None
    }

    fn make_job(
        &mut self,
        table: TableId,
        now: Instant,
        render: &mut impl FnMut(&TableView, &Set<UserId>) -> Rendered<M>,
    ) {
        let Some(slot) = self.tables.get_mut(&table) else {
            return;
        };
        let Some(view) = slot.state.take(now) else {
            return;
        };
        let chat = view.chat.clone();
        let row = chat.to_string();
        slot.chat = Some(row.clone());
        let message = slot.message;
        let shown = slot.shown;
        let closed = view.phase == Phase::Closed;
        let alerted = self.alerts.alerted_at(table);
        let r = render(&view, &alerted);
        let buried = !closed && r.buried;
        let repost = message.is_some() && (slot.repost || buried);
        slot.repost = false;
        let started = if repost { slot.started.take() } else { None };
        let news = std::mem::take(&mut slot.news);
        let h = r.hash;
        let unchanged = shown == Some(h) && message.is_some() && !repost;
        let ping = self.ping(table, &chat, r.alerted, closed, message.is_none() || repost);
        // A table posted anew goes below its ping, so it stays the newest.
        let ping = match ping {
            Some(p) if !repost => {
                self.jobs.push_back(Job::Ping(p));
                None
            }
            p => p,
        };
        let Some(slot) = self.tables.get_mut(&table) else {
            return;
        };
        if unchanged && news.is_empty() {
            slot.state.sent();
            return;
        }
        slot.shown = Some(h);
        // An edit makes the message show `h`; a repost leaves the row on
        // the old message, which loses its buttons, until the new one's id
        // is recorded (with its hash); a first post has no row to change.
        let writes = match message {
            // The row may name this message or an older one (a refusal may
            // still have landed): made unknown, whichever, and no hash kept.
            _ if slot.unsaved => Writes {
                unknown_first: true,
                then: None,
            },
            Some(_) if !repost => self.recorded.before(&table, Some(h)),
            Some(_) => self.recorded.before(&table, None),
            None => Writes::default(),
        };
        slot.writes = writes;
        slot.reposting = repost;
        slot.posting_hash = h;
        slot.sending = Some(view);
        let call = match message {
            Some(_) if unchanged => TableCall::Nothing,
            Some(m) if !repost => TableCall::Edit {
                message: m,
                content: r.message,
            },
            old => TableCall::Post {
                content: r.message,
                strip: old.filter(|_| repost).map(|m| Strip {
                    message: m,
                    started,
                }),
            },
        };
        let last_in_chat = closed
            && !self
                .tables
                .iter()
                .any(|(t, s)| *t != table && s.chat.as_deref() == Some(row.as_str()));
        self.jobs.push_back(Job::Table(TableJob {
            table,
            chat,
            unknown_first: writes.unknown_first,
            news,
            ping,
            call,
            then: writes.then,
            closed,
            last_in_chat,
        }));
    }

    /// The ping of `table` for the people `alerted` (none once `closed`),
    /// once per change of who they are; `posting`: the table message is
    /// posted now, mentioning them itself.
    fn ping(
        &mut self,
        table: TableId,
        chat: &ChatKey,
        alerted: Vec<(u64, String)>,
        closed: bool,
        posting: bool,
    ) -> Option<PingJob> {
        let (who, lines): (Vec<u64>, Vec<String>) = if closed {
            (Vec::new(), Vec::new())
        } else {
            alerted.into_iter().unzip()
        };
        let last = self.pings.entry(table).or_default();
        if last.who == who {
            return None;
        }
        last.who = who.clone();
        last.generation += 1;
        let old = last.message.take();
        let post = (!who.is_empty() && !posting).then_some((who, lines));
        if old.is_none() && post.is_none() {
            return None;
        }
        Some(PingJob {
            table,
            chat: chat.clone(),
            generation: last.generation,
            delete: old,
            post,
        })
    }

    /// What became of a ping's post; a ping the turn left behind goes.
    pub fn handle_ping_done(&mut self, job: &PingJob, posted: Option<MessageId>) {
        match self.pings.get_mut(&job.table) {
            Some(p) if p.generation == job.generation => p.message = posted,
            // The turn moved on while it was on its way: it goes now (the
            // newer ping found no message to remove).
            _ => {
                if let Some(id) = posted {
                    self.stale_pings.push_back((job.chat.clone(), id));
                }
            }
        }
    }

    /// What became of a table's job.
    pub fn handle_table_done(&mut self, done: TableDone, now: Instant) {
        let table = done.table;
        let Some(slot) = self.tables.get_mut(&table) else {
            return;
        };
        let Some(sent) = slot.sending.take() else {
            return;
        };
        let writes = slot.writes;
        let shown_now = shows_with(&self.policy, &done.call);
        // Owed news the store would not forget: again once a job landed
        // (this one's own go next time).
        if shown_now {
            for (t, announcement) in self.unforgotten.retry() {
                self.stores.push_back(StoreWrite::ForgetOwed {
                    table: t,
                    announcement,
                });
            }
        }
        for a in done.unforgotten {
            self.unforgotten.refused(table, a);
        }
        let landed = Landed {
            unknown_written: done.unknown == Some(Write::Landed),
            shown: shown_now,
            recorded: done.then.is_some_and(|w| w != Write::Failed),
        };
        self.recorded.after(&table, writes, landed);
        let closed = sent.phase == Phase::Closed;
        let chat = sent.chat.clone();
        match done.call {
            // Settled below, once a posted message's id is kept.
            Outcome::Edited | Outcome::Posted(_) => {}
            Outcome::Failed(..) if shown_now => {}
            Outcome::Failed(f, call) => {
                let strikes = slot.state.strikes();
                // What the message shows is not known now.
                slot.shown = None;
                // A repost that did not happen: the next job tries again.
                slot.repost |= slot.reposting;
                match self.policy.next(f, call, Recipient::Chat, strikes) {
                    Next::RetryAfter(pause) => {
                        slot.state.failed(sent, pause, now);
                        return;
                    }
                    Next::ChatGone => {
                        self.stores
                            .push_back(StoreWrite::ChatGone { chat: chat.clone() });
                    }
                    next => {
                        tracing::warn!(?f, ?next, table = table.0, "a table message call failed");
                    }
                }
            }
        }
        // The id to keep, with what its message shows: a new message's, or
        // one the store refused, again. The table's next job waits for it
        // to be kept: an edit recorded before it would land on the old
        // message's row.
        let keep = match done.call {
            Outcome::Posted(Some(id)) => {
                slot.message = Some(id);
                Some((id, slot.posting_hash))
            }
            _ if slot.unsaved && shown_now => slot.message.zip(slot.shown),
            _ => None,
        };
        slot.closed = closed;
        if let Some((message, hash)) = keep {
            self.stores.push_back(StoreWrite::MessageRef {
                table,
                chat: chat.to_string(),
                message,
                hash,
            });
            return;
        }
        slot.state.sent();
        self.settle(table);
    }

    /// After a table's job and its writes: the next state goes, or a
    /// closed table's slot goes once its last state is shown.
    fn settle(&mut self, table: TableId) {
        let Some(slot) = self.tables.get(&table) else {
            return;
        };
        if slot.state.is_waiting() {
            self.kick.push_back(table);
        } else if slot.closed && slot.message.is_some() && !slot.state.is_busy() {
            self.tables.remove(&table);
            self.pings.remove(&table);
        }
    }

    /// The next store write to make.
    pub fn poll_store(&mut self) -> Option<StoreWrite> {
        self.stores.pop_front()
    }

    /// What became of a [`StoreWrite::MessageRef`] (whether it landed):
    /// refused, the row still names an older message, and the id goes
    /// again after the table's next job that lands (a restart would
    /// otherwise take the older message for the table's).
    pub fn handle_stored(&mut self, write: &StoreWrite, landed: bool) {
        let (table, message, hash) = match write {
            StoreWrite::MessageRef {
                table,
                message,
                hash,
                ..
            } => (table, message, hash),
            StoreWrite::ForgetOwed {
                table,
                announcement,
            } => {
                if !landed {
                    self.unforgotten.refused(*table, announcement.clone());
                }
                return;
            }
            StoreWrite::ChatGone { .. } => return,
        };
        if landed {
            self.recorded.posted(*table, Some(*hash));
        }
        if let Some(slot) = self.tables.get_mut(table) {
            if slot.message == Some(*message) {
                slot.unsaved = !landed;
            }
            slot.state.sent();
        }
        self.settle(*table);
    }

    /// When a job failed for now may go again.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let tables = self.tables.values().filter_map(|s| s.state.wake());
        let hands = self.hands.values().filter_map(Latest::wake);
        tables.chain(hands).min()
    }

    /// Whether nothing waits: no job, write or retry pending, no job in
    /// flight.
    pub fn idle(&self) -> bool {
        self.jobs.is_empty()
            && self.stores.is_empty()
            && self.stale_pings.is_empty()
            && self.kick.is_empty()
            && self.hand_kick.is_empty()
            && self
                .tables
                .values()
                .all(|s| !s.state.is_busy() && !s.state.is_waiting())
            && self.hands.values().all(|s| !s.is_busy() && !s.is_waiting())
    }

    /// What each table message shows, for the next start: a table with a
    /// job in flight or a newer state waiting may show something else, and
    /// is left out.
    pub fn shown_rows(&self) -> Vec<(TableId, String, i64)> {
        self.settled()
            .filter(|(_, s)| !s.unsaved)
            .filter_map(|(t, s)| Some((*t, s.chat.clone()?, s.shown?)))
            .collect()
    }

    /// The messages whose id the store refused, for the next start (their
    /// rows name older messages, so [`Engine::shown_rows`] leaves them
    /// out): each as the write that keeps it, with what it shows.
    pub fn unsaved_refs(&self) -> Vec<StoreWrite> {
        self.settled()
            .filter(|(_, s)| s.unsaved)
            .filter_map(|(t, s)| {
                Some(StoreWrite::MessageRef {
                    table: *t,
                    chat: s.chat.clone()?,
                    message: s.message?,
                    hash: s.shown?,
                })
            })
            .collect()
    }

    /// The owed announcements that went and that the store has not
    /// forgotten yet, for a stop to forget once more.
    pub fn unforgotten(&self) -> &[(TableId, Announcement)] {
        self.unforgotten.held()
    }

    /// The tables with a message and nothing on its way or waiting.
    fn settled(&self) -> impl Iterator<Item = (&TableId, &Slot<N>)> {
        self.tables
            .iter()
            .filter(|(_, s)| s.message.is_some() && !s.state.is_busy() && !s.state.is_waiting())
    }
}

#[cfg(test)]
mod sim;
