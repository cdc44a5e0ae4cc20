//! The paced lane: every decision about the messages of a platform whose
//! limits the bot keeps itself (Telegram), in one sans-IO state machine.
//! The shell feeds it the service's outputs and its handlers' work with
//! the time, polls the calls to make ([`PacedLane::poll_call`]), reports
//! each call's end ([`PacedLane::handle_done`]) and carries out the
//! [`Effect`]s it polls ([`PacedLane::poll_effect`]) before it polls for
//! calls again. Nothing here awaits or reads the clock.
//!
//! What it decides:
//! - one [`Pacer`] for every chat: latest state wins per message, at most
//!   what the chat's limits allow, a 429 delays only its chat;
//! - the message ids ("refs") of each table's message per chat, and what
//!   each shows across a kill ([`Recorded`]: unknown before a call that
//!   changes it, the new hash after), so a start after a kill sends
//!   nothing the platform shows already;
//! - announcements held for the table's next render, and owed ones
//!   forgotten once sent (a deal's start only once the live table was
//!   posted anew below it);
//! - posting anew: the table at a deal's start and when brought back (the
//!   old message loses its buttons), a hand at a turn alert or when its
//!   person writes (the old one deleted after);
//! - what follows a failed call ([`Policy`]), a group that became a
//!   supergroup, and a person the bot cannot reach.

use crate::{Map, Set};
use std::collections::VecDeque;
use std::fmt::Debug;
use std::hash::Hash;
use std::time::{Duration, Instant};

use super::alerts::{Turn, TurnAlerts};
use super::content::{Landed, Recorded, Writes};
use super::engine::MessageId;
use super::news::{News, Unforgotten, starts_a_deal};
use super::pacing::{Class, Limits, Outcome, Output as Transmission, Pacer, Priority, Ticket};
use super::transport::{self, Failure, Next, Policy, Recipient};
use kozyr_front::Screen;
use kozyr_front::live::LiveEvent;
use kozyr_i18n::Lang;
use kozyr_table::{Announcement, ChatKey, HandView, Output, Phase, TableId, TableView, UserId};

pub mod local;

use local::Local;

/// A message in the platform's markup, as the lane needs to know it.
pub trait Markup: Clone + PartialEq {
    /// Its content hash ([`super::content`]).
    fn hash(&self) -> i64;
    fn has_buttons(&self) -> bool;
    /// The same text without buttons.
    fn without_buttons(&self) -> Self;
}

/// What the lane asks of its shell: ids, markup, and what the shell knows
/// of chats and people. Each answer is immediate (nothing awaited).
pub trait Host<K> {
    type Message: Markup;
    /// The chat a table's chat key names.
    fn chat(&self, key: &ChatKey) -> Option<K>;
    /// A person's private chat with the bot.
    fn private_chat(&self, user: &UserId) -> Option<K>;
    /// The person whose private chat this is.
    fn person(&self, chat: K) -> Option<UserId>;
    fn table(&self, view: &TableView) -> Self::Message;
    fn hand(&self, hand: &HandView, view: &TableView) -> Self::Message;
    /// A screen as the platform's message (a reply, a note).
    fn word(&self, screen: &Screen) -> Self::Message;
    /// An announcement's message (`None`: this chat is not told it).
    fn announcement(&self, view: &TableView, a: &Announcement) -> Option<Self::Message>;
    /// What a lobby that turned into the game below it says instead.
    fn lobby_started(&self, lang: Lang) -> Self::Message;
    fn is_unreachable(&self, user: &UserId) -> bool;
    /// Marks `user` unreachable; whether they were not before.
    fn set_unreachable(&self, user: &UserId) -> bool;
    /// A message of `chat` shows the state that was new `took` ago.
    fn fresh(&self, chat: K, prio: Priority, took: Duration);
    /// The platform's name in the metrics.
    fn name(&self) -> &'static str;
}

/// A message of a chat that the pacer keeps current.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// The message showing a table (in a group) or a hand (in a private chat).
    Table(i64),
    /// A menu that loses its buttons, or an old message that goes.
    Menu(MessageId),
}

/// What a slot shows or a send posts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<K, M> {
    Show(M),
    /// The message keeps its text and loses its buttons.
    NoButtons,
    /// The message goes (a hand posted anew below it).
    Delete,
    /// A message about a table (a seat confirmation): when its person
    /// cannot be reached, the table should show them the way in.
    About(TableId, M),
    /// An announcement the store keeps until the chat got it
    /// ([`Announcement::is_owed`]).
    Owed(TableId, Box<Announcement>, M),
    /// What concerns one person, sent to their private chat; if the bot
    /// cannot write there, the second message goes to the group (`K`)
    /// instead.
    Told(M, K, M),
}

/// What a slot's content is made from, so that it is rendered again when
/// it goes out.
#[derive(Clone, Debug)]
enum Source {
    /// The table's latest view (kept in `views`).
    Table,
    Hand(Box<HandView>),
}

/// One platform call to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action<M> {
    Send(M),
    Edit(MessageId, M),
    NoButtons(MessageId),
    Delete(MessageId),
    /// Nothing to call: report it done.
    Nothing,
}

/// A call for the shell, with the store writes around it: in order,
/// `window_writes`, the unknown write (`unknown_first`), the call, and
/// once it shows the message, `then`.
#[derive(Debug)]
pub struct Call<K, M> {
    pub chat: K,
    pub action: Action<M>,
    /// A group's write times, recorded before the write goes: a kill
    /// after it cannot leave the next process a window short.
    pub window_writes: Option<Vec<Instant>>,
    /// Make the recorded hash of this table's message unknown first.
    pub unknown_first: Option<TableId>,
    /// Once the call shows the message, record that this table's message
    /// shows this hash.
    pub then: Option<(TableId, i64)>,
    /// Names the call when its result is reported ([`Done::call`]).
    pub id: CallId,
}

/// Names a call the lane made, for its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallId(u64);

/// What a call was, for the lane to take its result in.
#[derive(Debug)]
struct Pending<K, M> {
    ticket: Ticket<K>,
    /// The table the output was about.
    table: Option<TableId>,
    /// Whether a new message posted by it shows `table` from now on.
    keeps: bool,
    /// Since when the slot's message was out of date, and how urgent it was.
    stale: Option<(Instant, Priority)>,
    /// The owed announcement it posted.
    owed: Option<(TableId, Announcement)>,
    /// The slot to forget once the pacer has the result (a deleted message).
    forget: Option<Slot>,
    /// The table whose recorded message the call changed, with the writes
    /// around it ([`Recorded`]).
    shown: Option<(i64, Writes)>,
    /// What a new message posted by it shows: recorded with its id, and
    /// what the pacer takes the message to show once it landed.
    posted: Option<M>,
    /// Where a message told to one person goes if their chat refuses it.
    fallback: Option<(K, M)>,
    /// What kind of call it was, for what its failure means.
    kind: transport::Call,
    /// When it was polled: a refusal of a call made before its person
    /// came back says nothing of now.
    at: Instant,
}

/// A finished call.
#[derive(Debug)]
pub struct Done {
    pub call: CallId,
    /// What became of the writes around it.
    pub landed: Landed,
    /// The platform method, for the metrics.
    pub method: &'static str,
    /// `Ok(Some(id))`: a new message was posted.
    pub result: Result<Option<MessageId>, Failure>,
}

/// Work for the shell that awaits something (the store, the service).
/// Carried out in order, before the lane is polled again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect<K> {
    /// The store forgets an owed announcement: it was sent (or cannot be).
    ForgetOwed(TableId, Announcement),
    /// Record (or forget, `None`) the message showing `table` in `chat`;
    /// a posted one's result goes back through
    /// [`PacedLane::handle_ref_saved`].
    SaveRef {
        chat: K,
        table: TableId,
        message: Option<MessageId>,
        hash: Option<i64>,
    },
    /// The bot cannot message `user` any more: an AI player plays their
    /// seats at `tables` (their tables show it already).
    Lost { user: UserId, tables: Vec<TableId> },
    /// The bot cannot write to this chat any more: its tables stop.
    ChatGone(K),
    /// The group became a supergroup: its tables follow.
    ChatMoved { from: K, to: K },
    /// Record a group's latest write times, the newest as answered (the
    /// platform counts a write from its arrival, before its answer; the
    /// time recorded before the call is when it left).
    SaveWrites { chat: K, times: Vec<Instant> },
}

/// A person wrote to the bot in private: the message's id in their chat,
/// when known (`None`: every hand message may be above it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrote(pub Option<MessageId>);

/// Every output of one platform's bot, paced per chat; see the module.
pub struct PacedLane<K, M> {
    queue: Pacer<K, Slot, Piece<K, M>>,
    classify: fn(&K) -> Class,
    /// (chat, table) → the message showing the table there.
    refs: Map<(K, i64), MessageId>,
    /// (chat, table) → what that message is rendered from.
    sources: Map<(K, i64), Source>,
    /// (chat, table) → a hash of what its message showed when the bot
    /// started: the first render that matches is not sent again.
    restored: Map<(K, i64), i64>,
    /// (chat, table) → what the store says its message shows, kept true
    /// across a kill by the writes around each call.
    recorded: Recorded<(K, i64)>,
    /// (chat, old message) → the table whose stored row may still name
    /// it: a table or hand posted anew below, until the new message's id
    /// is recorded. Editing or deleting it makes the row's hash untrue.
    replaced: Map<(K, MessageId), i64>,
    /// Posts whose id the store refused (its row still names the message
    /// they replaced): saved again after the next call that lands, while
    /// each is still its table's live message.
    unsaved: Map<(K, i64), MessageId>,
    /// Owed announcements that went, which the store refused to forget.
    unforgotten: Unforgotten,
    /// The messages a post replaced whose id is on its way to the store:
    /// known as replaced again if the store refuses it.
    saving: Map<(K, i64), Vec<(MessageId, i64)>>,
    /// (private chat, table): hands to post anew once their first post,
    /// on its way when the person wrote, has landed (its id is needed to
    /// delete it).
    /// A `Some(w)` value: only when the post landed above the person's
    /// message `w`.
    reposts_due: Map<(K, i64), Option<MessageId>>,
    /// (chat, table) → since when its message is out of date, and how urgently.
    stale: Map<(K, i64), (Instant, Priority)>,
    /// The latest view of each table, for names in hands and announcements.
    views: Map<TableId, TableView>,
    /// Announcements wait for the table's next render, which follows them in
    /// the same batch of outputs, so they are worded with the state after.
    news: News,
    /// Who is told, by a hand posted anew, that it is their turn.
    alerts: TurnAlerts,
    /// Groups that became supergroups (learnt from a 400 or the service
    /// message): old id → new id. Output still addressed to the old id
    /// goes to the new one.
    moved: Map<K, K>,
    /// Groups whose writes the platform answered "chat not found", and how
    /// many times in a row.
    not_found: Map<K, u32>,
    /// Groups the bot is out of (removed, or their writes refused for
    /// good): nothing more goes there, until it is added again.
    gone: Set<K>,
    /// What follows a failed call.
    policy: Policy,
    /// (chat, table) → owed announcements of a new deal that went out; the
    /// store forgets them once the live table was posted anew below them.
    reposting: Map<(K, i64), Vec<Announcement>>,
    /// The calls in flight, by id: what each was.
    calls: Map<CallId, Pending<K, M>>,
    next_call: u64,
    /// (person, table)s watched live (the Mini App): the page shows the
    /// hand, so its chat message is not edited meanwhile and the bot's
    /// budget goes to everyone else.
    watching: Set<(UserId, TableId)>,
    /// Watched hands whose newest render (in `sources`) waits for the
    /// view to close: it then goes out once.
    held: Set<(UserId, TableId)>,
    /// (private chat, table): hands that came before any view of their
    /// table (a hand is drawn with its table's names): their newest
    /// render (in `sources`) goes with the table's next render.
    awaiting_view: Set<(K, i64)>,
    /// What awaits the store or the service, in order ([`PacedLane::poll_effect`]).
    effects: VecDeque<Effect<K>>,
    /// When each person last wrote to the bot: only a refusal of a call
    /// made after that finds them unreachable.
    wrote: Map<UserId, Instant>,
}

/// What a message showed when the process before stopped.
pub struct Restored<K> {
    /// (table, chat, message) of each table's message.
    pub messages: Vec<(TableId, K, MessageId)>,
    /// (table, chat, hash) of what each shows.
    pub shown: Vec<(TableId, K, i64)>,
}

impl<K, M> PacedLane<K, M>
where
    K: Copy + Ord + Hash + Debug + From<i64>,
    M: Markup,
{
    /// A lane with `limits` (`classify`: which a chat has), starting at
    /// `now` from what the process before left.
    pub fn new(
        limits: Limits,
        classify: fn(&K) -> Class,
        policy: Policy,
        turn_alerts: Option<Duration>,
        restored: Restored<K>,
        now: Instant,
    ) -> Self {
        let refs: Map<(K, i64), MessageId> = restored
            .messages
            .into_iter()
            .map(|(t, c, m)| ((c, t.0), m))
            .collect();
        let shown: Map<(K, i64), i64> = restored
            .shown
            .into_iter()
            .map(|(t, c, h)| ((c, t.0), h))
            .collect();
        let mut queue = Pacer::with_limits(limits, classify);
        // The bot posted here before (it may have been killed a moment
        // ago): the platform still counts those writes against each chat.
        // With no sign of that, a process killed just before may still
        // have written (its posts not recorded yet): each chat's first
        // write waits its interval.
        if refs.is_empty() {
            queue.start_written(now);
        } else {
            queue.start_spent(now);
        }
        PacedLane {
            recorded: Recorded::restore(shown.iter().map(|(k, h)| (*k, *h))),
            restored: shown,
            queue,
            classify,
            refs,
            sources: Map::default(),
            replaced: Map::default(),
            unsaved: Map::default(),
            saving: Map::default(),
            unforgotten: Unforgotten::default(),
            reposts_due: Map::default(),
            stale: Map::default(),
            views: Map::default(),
            news: News::default(),
            watching: Set::default(),
            held: Set::default(),
            awaiting_view: Set::default(),
            effects: VecDeque::new(),
            wrote: Map::default(),
            alerts: TurnAlerts::new(turn_alerts, now),
            moved: Map::default(),
            not_found: Map::default(),
            gone: Set::default(),
            policy,
            reposting: Map::default(),
            calls: Map::default(),
            next_call: 0,
        }
    }

    /// `chat`'s latest writes were at `times`, as the process before
    /// recorded them: its window counts from those. The newest may have
    /// had no answer before the kill, so it counts as arriving as late as
    /// `now`.
    pub fn restore_writes(&mut self, chat: K, times: Vec<Instant>, now: Instant) {
        let mut times = times;
        times.sort_unstable();
        if let Some(newest) = times.last_mut() {
            *newest = (*newest).max(now);
        }
        self.queue.restore_writes(chat, times);
    }

    /// The announcements held for the next render (a start adds what a
    /// kill left owed).
    pub fn news_mut(&mut self) -> &mut News {
        &mut self.news
    }

    /// The open tables the lane knows `user` sits at.
    pub fn tables_seated(&self, user: &UserId) -> Vec<TableId> {
        self.views
            .values()
            .filter(|v| v.seat_of(user).is_some())
            .map(|v| v.id)
            .collect()
    }

    /// Where output for `chat` goes now: the supergroup it became, if it did.
    pub fn current_chat(&self, chat: K) -> K {
        self.moved.get(&chat).copied().unwrap_or(chat)
    }

    /// Takes one output of the table service in (reminders are worded by
    /// the shell and sent through [`PacedLane::remind`]).
    pub fn handle_output<H: Host<K, Message = M>>(
        &mut self,
        output: Output,
        now: Instant,
        host: &H,
    ) {
        match output {
            Output::RenderTable(view) => self.render_table(*view, now, host),
            Output::RenderHand(hand) => self.render_hand(*hand, now, host),
            Output::DropHand { table, user, .. } => self.retire_hand(table, &user, host),
            Output::Announce {
                table,
                announcement,
                ..
            } => self.news.hold(table, announcement),
            Output::Remind(_) => {}
        }
    }

    fn render_table<H: Host<K, Message = M>>(&mut self, view: TableView, now: Instant, host: &H) {
        let Some(chat) = host.chat(&view.chat).map(|c| self.current_chat(c)) else {
            return;
        };
        let closed = view.phase == Phase::Closed;
        // A lobby is what the people who must act there (join, start) act
        // on, so it goes like the hand of a person whose turn it is, and so
        // does the render that turns it into the game; another render that
        // changes what the buttons do (a deal ending) goes before the
        // other tables.
        let old = self.views.get(&view.id).map(|v| v.phase);
        let prio = match old {
            _ if view.phase == Phase::Lobby || old == Some(Phase::Lobby) => Priority::Turn,
            Some(old) if old == view.phase => Priority::Table,
            _ => Priority::Acted,
        };
        if self.gone.contains(&chat) {
            for a in self.news.take(view.id).announcements {
                if a.is_owed() {
                    self.effects.push_back(Effect::ForgetOwed(view.id, a));
                }
            }
        } else {
            let due = self.news.take(view.id);
            if due.repost {
                // The lobby turned into the game below it.
                let started = due.leaves_lobby.then_some(view.settings.lang);
                self.repost(chat, view.id.0, prio, started, host);
            }
            for a in due.announcements {
                match host.announcement(&view, &a) {
                    Some(m) => {
                        let piece = if a.is_owed() {
                            Piece::Owed(view.id, Box::new(a), m)
                        } else {
                            Piece::Show(m)
                        };
                        self.queue.send_with(chat, piece, prio);
                    }
                    None if a.is_owed() => self.effects.push_back(Effect::ForgetOwed(view.id, a)),
                    None => {}
                }
            }
            let content = host.table(&view);
            self.restore_shown(chat, view.id.0, &content);
            self.queue
                .set_with(chat, Slot::Table(view.id.0), Piece::Show(content), prio);
            self.mark_stale(chat, view.id.0, prio, now);
            self.sources.insert((chat, view.id.0), Source::Table);
        }
        let id = view.id.0;
        if closed {
            self.views.remove(&view.id);
            self.sources.retain(|(_, t), _| *t != id);
            self.held.retain(|(_, t)| *t != view.id);
            self.awaiting_view.retain(|(_, t)| *t != id);
            self.alerts.forget_table(view.id);
            return;
        }
        self.views.insert(view.id, view);
        // The hands that waited for this view go with it.
        let waited: Vec<(K, i64)> = self
            .awaiting_view
            .iter()
            .filter(|(_, t)| *t == id)
            .copied()
            .collect();
        for slot in waited {
            self.awaiting_view.remove(&slot);
            if let Some(Source::Hand(hand)) = self.sources.get(&slot).cloned() {
                self.render_hand(*hand, now, host);
            }
        }
    }

    fn render_hand<H: Host<K, Message = M>>(&mut self, hand: HandView, now: Instant, host: &H) {
        let Some(chat) = host.private_chat(&hand.player.id) else {
            return;
        };
        let slot = (chat, hand.table.0);
        if host.is_unreachable(&hand.player.id) {
            // Kept for when they write again (`handle_returned`).
            self.sources.insert(slot, Source::Hand(Box::new(hand)));
            return;
        }
        let Some(view) = self.views.get(&hand.table) else {
            // Drawn with the table's next render (a start renders every
            // open table).
            self.awaiting_view.insert(slot);
            self.sources.insert(slot, Source::Hand(Box::new(hand)));
            return;
        };
        let user = &hand.player.id;
        // Someone looking at the Mini App is looking (no alert).
        if self.watching.iter().any(|(u, _)| u == user) {
            self.alerts.handle_activity(user, now);
        }
        let key = (user.clone(), hand.table);
        if self.watching.contains(&key) && self.has_message(chat, hand.table.0) {
            // Held: the chat has this hand (with the Mini App's button), and
            // it catches up when the view closes. Only a first hand (or
            // one posted anew) goes while watched: the chat must have one.
            self.alerts
                .handle_hand(user, hand.table, hand.your_turn, now);
            self.held.insert(key);
            self.sources.insert(slot, Source::Hand(Box::new(hand)));
            return;
        }
        self.held.remove(&key);
        let content = host.hand(&hand, view);
        let turn = self
            .alerts
            .handle_hand(&hand.player.id, hand.table, hand.your_turn, now);
        if turn == (Turn::Began { alert: true }) {
            self.post_hand_anew(chat, hand.table.0);
        }
        // The hand of the person who just acted is one of the others:
        // their press was answered (see `Priority`).
        let prio = if hand.your_turn {
            Priority::Turn
        } else {
            Priority::Background
        };
        self.restore_shown(chat, hand.table.0, &content);
        self.queue
            .set_with(chat, Slot::Table(hand.table.0), Piece::Show(content), prio);
        self.mark_stale(chat, hand.table.0, prio, now);
        self.sources
            .insert((chat, hand.table.0), Source::Hand(Box::new(hand)));
    }

    /// Takes the handlers' work in ([`Local`]); an output among it is
    /// returned, for the shell to take in as it takes the service's.
    pub fn handle_local<H: Host<K, Message = M>>(
        &mut self,
        local: Local<K>,
        now: Instant,
        host: &H,
    ) -> Option<Output> {
        match local {
            Local::Output(o) => return Some(o),
            // The person who just asked waits for it (a `/stop` prompt, a
            // command's answer): it goes before the chat's table edits,
            // which a later one replaces anyway.
            Local::Say { chat, screen } => self.send(chat, host.word(&screen), Priority::Turn),
            Local::Tell {
                chat,
                screen,
                group,
                in_group,
            } => self.tell(chat, host.word(&screen), group, host.word(&in_group)),
            Local::CloseMenu {
                chat,
                message,
                screen,
            } => {
                let closing = screen.map(|s| host.word(&Screen::text(s.text)));
                self.close_menu(chat, message, closing);
            }
            Local::Seated {
                table,
                user,
                screen,
            } => {
                if let Some(chat) = host.private_chat(&user) {
                    self.seated(chat, table, host.word(&screen));
                }
            }
            Local::BringTable(view) => self.bring_table(*view, now, host),
            Local::Unreachable(user) => self.handle_unreachable(&user, None, now, host),
            Local::Acted { user, wrote } => self.handle_activity(&user, wrote, now, host),
            Local::Live(event) => match event {
                LiveEvent::Opened(user, table) => self.handle_live(&user, table, true, now, host),
                LiveEvent::Closed(user, table) => self.handle_live(&user, table, false, now, host),
                LiveEvent::Pressed(user) => self.handle_activity(&user, None, now, host),
            },
            Local::Returned(user) => self.handle_returned(&user, now, host),
            Local::ChatGone(chat) => {
                self.gone.insert(chat);
                self.forget_chat(chat);
            }
            Local::ChatBack(chat) => {
                // A table whose render came while the bot was out (the
                // service's outputs and the handlers' word that it is back
                // reach the lane by two ways, either first) is shown now.
                if self.gone.remove(&chat) {
                    let back: Vec<TableView> = (self.views.values())
                        .filter(|v| host.chat(&v.chat).map(|c| self.current_chat(c)) == Some(chat))
                        .cloned()
                        .collect();
                    for view in back {
                        self.render_table(view, now, host);
                    }
                }
            }
            Local::Outdated {
                chat,
                message,
                table,
            } => self.handle_outdated(chat, message, table, now, host),
        }
        None
    }

    /// A press on one of `message`'s own buttons in `chat` was refused:
    /// they were drawn for a state of `table` gone by. Any table's (or
    /// hand's) live message is left to its redraw, which is on its way; a
    /// message a post replaced, to its strip; any message while a post of
    /// the table there is on its way, to that post (it may be this one).
    /// Any other keeps buttons it should not have — a post a kill kept
    /// from the store, an old hand whose delete was lost or refused — and
    /// loses them: the press showed it has buttons, so the edit changes
    /// what it shows. One newer than the live message is at the bottom,
    /// where people look: the live one is brought below it.
    pub fn handle_outdated<H: Host<K, Message = M>>(
        &mut self,
        chat: K,
        message: MessageId,
        table: TableId,
        now: Instant,
        host: &H,
    ) {
        let chat = self.current_chat(chat);
        let key = (chat, table.0);
        let live = self.refs.get(&key).copied();
        let menu = Slot::Menu(message);
        // Any table's or hand's live message here is its redraw's (data
        // naming another table may come from an old client).
        let handled = self
            .refs
            .iter()
            .any(|((c, _), m)| *c == chat && *m == message)
            || self.replaced.contains_key(&(chat, message))
            || (self.saving.get(&key)).is_some_and(|old| old.iter().any(|(m, _)| *m == message))
            // With no live message, one is being posted: maybe this one.
            || (live.is_none() && self.queue.is_in_flight(&chat, &Slot::Table(table.0)))
            || self.queue.is_waiting(&chat, &menu)
            || self.queue.is_in_flight(&chat, &menu)
            || matches!(self.queue.expected(&chat, &menu), Some(Piece::NoButtons))
            || self.gone.contains(&chat);
        if handled {
            return;
        }
        (self.queue).set_with(chat, menu, Piece::NoButtons, Priority::Acted);
        if live.is_none_or(|live| message < live) {
            return;
        }
        match self.sources.get(&key) {
            Some(Source::Hand(_)) => self.hand_anew(key, Some(message), now, host),
            Some(Source::Table) => {
                if let Some(view) = self.views.get(&table).cloned() {
                    self.bring_table(view, now, host);
                }
            }
            None => {}
        }
    }

    /// Reminds `user` that the turn awaits them, in their private chat:
    /// not a new group message (a group's 20 a minute are its table's; the
    /// table states the turn's allowance, which has not changed).
    pub fn remind<H: Host<K, Message = M>>(&mut self, user: &UserId, message: M, host: &H) {
        if let Some(chat) = host.private_chat(user) {
            self.send(chat, message, Priority::Turn);
        }
    }

    /// Sends `message` to `chat` as a new message (a reply, a reminder).
    fn send(&mut self, chat: K, message: M, prio: Priority) {
        let chat = self.current_chat(chat);
        if !self.gone.contains(&chat) {
            self.queue.send_with(chat, Piece::Show(message), prio);
        }
    }

    /// Tells one person privately in `chat`, their private chat; if the
    /// bot cannot write to them there, `in_group` goes to `group` instead,
    /// so what they asked for is never lost.
    fn tell(&mut self, chat: K, message: M, group: K, in_group: M) {
        let group = self.current_chat(group);
        self.queue
            .send_with(chat, Piece::Told(message, group, in_group), Priority::Turn);
    }

    /// A person took a seat at `table`: told in their private chat.
    fn seated(&mut self, chat: K, table: TableId, message: M) {
        self.queue
            .send_with(chat, Piece::About(table, message), Priority::Acted);
    }

    /// A menu did its job: it loses its buttons, and shows `message`
    /// (without buttons) instead when there is one.
    fn close_menu(&mut self, chat: K, menu: MessageId, message: Option<M>) {
        let piece = message.map_or(Piece::NoButtons, Piece::Show);
        self.queue
            .set_with(chat, Slot::Menu(menu), piece, Priority::Acted);
    }

    /// Someone looked for the table: its message goes anew to the bottom
    /// of the group (it may have been deleted, which some platforms tell
    /// no bot), the old one losing its buttons.
    pub fn bring_table<H: Host<K, Message = M>>(
        &mut self,
        view: TableView,
        now: Instant,
        host: &H,
    ) {
        let Some(chat) = host.chat(&view.chat).map(|c| self.current_chat(c)) else {
            return;
        };
        if self.gone.contains(&chat) {
            return;
        }
        // Below the answer that says so, which goes at `Turn`.
        self.repost(chat, view.id.0, Priority::Turn, None, host);
        self.render_table(view, now, host);
    }

    /// A person pressed a button or (`wrote`) wrote to the bot in private.
    /// A press changes no hand message but by what it does. A message they
    /// wrote brings their hands below it, posted anew (those posted after
    /// it are below it already): one they deleted comes back (no bot is
    /// told of a deletion) without an edit that would change nothing to
    /// find out.
    pub fn handle_activity<H: Host<K, Message = M>>(
        &mut self,
        user: &UserId,
        wrote: Option<Wrote>,
        now: Instant,
        host: &H,
    ) {
        self.alerts.handle_activity(user, now);
        let Some(Wrote(wrote)) = wrote else {
            return;
        };
        self.note_wrote(user, now);
        let Some(chat) = host.private_chat(user) else {
            return;
        };
        let tables: Vec<i64> = self
            .sources
            .iter()
            .filter(|((c, _), s)| *c == chat && matches!(s, Source::Hand(_)))
            .map(|((_, t), _)| *t)
            .collect();
        for t in tables {
            self.hand_anew((chat, t), wrote, now, host);
        }
    }

    /// Whether `chat` has a message of `table`'s, or one on its way.
    fn has_message(&self, chat: K, table: i64) -> bool {
        let slot = Slot::Table(table);
        self.refs.contains_key(&(chat, table))
            || self.queue.is_waiting(&chat, &slot)
            || self.queue.is_in_flight(&chat, &slot)
    }

    /// `user` opened (`open`) or closed a live view of `table` (the Mini
    /// App): while one is open their chat hand there is held; when it
    /// closes, the hand's newest state goes out once. Either is looking.
    pub fn handle_live<H: Host<K, Message = M>>(
        &mut self,
        user: &UserId,
        table: TableId,
        open: bool,
        now: Instant,
        host: &H,
    ) {
        self.alerts.handle_activity(user, now);
        let key = (user.clone(), table);
        if open {
            self.watching.insert(key);
            return;
        }
        self.watching.remove(&key);
        if !self.held.remove(&key) {
            return;
        }
        let Some(chat) = host.private_chat(user) else {
            return;
        };
        if let Some(Source::Hand(hand)) = self.sources.get(&(chat, table.0)).cloned() {
            self.render_hand(*hand, now, host);
        }
    }

    /// `user` wrote to the bot at `now`. The times are kept while a call
    /// made before could still be answered.
    fn note_wrote(&mut self, user: &UserId, now: Instant) {
        const KEPT: Duration = Duration::from_secs(300);
        if self.wrote.len() >= 4096 {
            self.wrote
                .retain(|_, at| now.saturating_duration_since(*at) < KEPT);
        }
        self.wrote.insert(user.clone(), now);
    }

    /// Posts the hand at `table` anew in its person's private `chat`, the
    /// old message deleted after, or once its first post landed.
    /// `wrote`: the message they wrote, when known: a hand message posted
    /// after it (a higher id in the chat) is below it already.
    fn hand_anew<H: Host<K, Message = M>>(
        &mut self,
        (chat, table): (K, i64),
        wrote: Option<MessageId>,
        now: Instant,
        host: &H,
    ) {
        let Some(&shown) = self.refs.get(&(chat, table)) else {
            // Its first post is on its way: anew once it landed, if above
            // what they wrote; one that has not gone yet lands below it.
            if self.queue.is_in_flight(&chat, &Slot::Table(table)) {
                self.repost_due((chat, table), wrote);
            }
            return;
        };
        if wrote.is_some_and(|w| shown > w) {
            return;
        }
        let Some(Source::Hand(hand)) = self.sources.get(&(chat, table)).cloned() else {
            return;
        };
        self.post_hand_anew(chat, table);
        self.render_hand(*hand, now, host);
    }

    /// The message of `key` on its way is posted anew once it landed:
    /// always (`above` `None`), or if it landed above message `above`. Two
    /// reasons make one: the later of two messages, or always.
    fn repost_due(&mut self, key: (K, i64), above: Option<MessageId>) {
        let due = self.reposts_due.entry(key).or_insert(above);
        *due = match (*due, above) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
    }

    /// Nothing more goes to `chat` as it was (the bot is out of it, or a
    /// person's hands go anew): its messages are forgotten.
    pub fn forget_chat(&mut self, chat: K) {
        self.queue.forget(&chat);
        self.refs.retain(|(c, _), _| *c != chat);
        self.sources.retain(|(c, _), _| *c != chat);
    }

    /// The open tables `user` sits at or has a hand at.
    pub fn tables_of<H: Host<K, Message = M>>(&self, user: &UserId, host: &H) -> Vec<TableId> {
        let mut tables = self.tables_seated(user);
        if let Some(chat) = host.private_chat(user) {
            let hands = self.refs.keys().chain(self.sources.keys());
            for &(_, t) in hands.filter(|(c, _)| *c == chat) {
                if !tables.contains(&TableId(t)) {
                    tables.push(TableId(t));
                }
            }
        }
        tables.sort();
        tables
    }

    /// `user`, whom the bot could not reach, wrote to it again: their
    /// hands are posted as fresh messages (the old ones are far up in the
    /// chat), newest state, and their tables lose the way in.
    pub fn handle_returned<H: Host<K, Message = M>>(
        &mut self,
        user: &UserId,
        now: Instant,
        host: &H,
    ) {
        // They are looking, as after any message they write.
        self.alerts.handle_activity(user, now);
        self.note_wrote(user, now);
        let Some(chat) = host.private_chat(user) else {
            return;
        };
        let hands: Vec<HandView> = self
            .sources
            .iter()
            .filter(|((c, _), _)| *c == chat)
            .filter_map(|(_, s)| match s {
                Source::Hand(h) => Some((**h).clone()),
                Source::Table => None,
            })
            .collect();
        // Its writes still count against the chat's limits.
        self.queue.clear(&chat);
        self.refs.retain(|(c, _), _| *c != chat);
        self.sources.retain(|(c, _), _| *c != chat);
        self.render_tables_of(user, now, host);
        for hand in hands {
            self.render_hand(hand, now, host);
        }
    }

    /// The bot cannot message `user` any more (they blocked it, or never
    /// started it; `table`: where that showed): their tables show them the
    /// way in, and [`Effect::Lost`] hands their seats to an AI player.
    pub fn handle_unreachable<H: Host<K, Message = M>>(
        &mut self,
        user: &UserId,
        table: Option<TableId>,
        now: Instant,
        host: &H,
    ) {
        self.render_tables_of(user, now, host);
        let mut tables = self.tables_of(user, host);
        tables.extend(table.filter(|t| !tables.contains(t)));
        self.effects.push_back(Effect::Lost {
            user: user.clone(),
            tables,
        });
    }

    /// The tables `user` sits at, rendered again (whether the bot can
    /// reach them shows there).
    fn render_tables_of<H: Host<K, Message = M>>(&mut self, user: &UserId, now: Instant, host: &H) {
        for t in self.tables_seated(user) {
            if let Some(v) = self.views.get(&t).cloned() {
                self.render_table(v, now, host);
            }
        }
    }

    /// The next thing that awaits the store or the service, in order: the
    /// shell carries each out before it polls for calls again.
    pub fn poll_effect(&mut self) -> Option<Effect<K>> {
        self.effects.pop_front()
    }

    /// A deal starts: the live table moves to the bottom of the chat, below
    /// the announcements, where people look. The old message loses its
    /// buttons, before anything else of the render (`prio`) goes: nobody
    /// presses Start in a game that began. A lobby (`started`: in its
    /// language) says instead that the game started below, rather than
    /// keep "can start" above it; a message known to show no buttons is
    /// left alone (an edit would change nothing and spend the chat's
    /// writes).
    fn repost<H: Host<K, Message = M>>(
        &mut self,
        chat: K,
        table: i64,
        prio: Priority,
        started: Option<Lang>,
        host: &H,
    ) {
        let Some(old) = self.refs.remove(&(chat, table)) else {
            let slot = Slot::Table(table);
            if self.queue.is_in_flight(&chat, &slot) {
                // Its post is on its way: posted anew below once it landed.
                self.repost_due((chat, table), None);
            } else if self.queue.is_waiting(&chat, &slot) {
                // Its post waits at a place older than the news queued
                // now: the render that follows queues it after them.
                self.queue.forget_slot(&chat, &slot);
            }
            return;
        };
        self.replaced.insert((chat, old), table);
        let shown = self.queue.expected(&chat, &Slot::Table(table)).cloned();
        self.queue.forget_slot(&chat, &Slot::Table(table));
        let piece = match (started, shown) {
            (Some(lang), _) => Piece::Show(host.lobby_started(lang)),
            (None, Some(Piece::Show(m))) if !m.has_buttons() => return,
            (None, _) => Piece::NoButtons,
        };
        self.queue
            .set_with(chat, Slot::Menu(old), piece, prio.min(Priority::Acted));
    }

    /// A turn alert: the hand goes out as a new message at the bottom of
    /// the private chat, which notifies (an edit makes no sound); the old
    /// message is deleted after, when the chat has time.
    fn post_hand_anew(&mut self, chat: K, table: i64) {
        let Some(old) = self.refs.remove(&(chat, table)) else {
            // No message yet: the first one notifies anyway.
            return;
        };
        self.replaced.insert((chat, old), table);
        self.queue.forget_slot(&chat, &Slot::Table(table));
        self.queue
            .set_with(chat, Slot::Menu(old), Piece::Delete, Priority::Background);
    }

    /// Before the first render of a message after a restart: if it is what
    /// the message showed when the bot stopped, the pacer knows it is
    /// shown and does not send it again.
    fn restore_shown(&mut self, chat: K, table: i64, content: &M) {
        if let Some(hash) = self.restored.remove(&(chat, table))
            && hash == content.hash()
            && self.refs.contains_key(&(chat, table))
        {
            self.queue
                .assume_shown(chat, Slot::Table(table), Piece::Show(content.clone()));
        }
    }

    /// What each table's message shows, for the next start: (table, chat,
    /// hash), of chats with nothing in flight (one may show something
    /// newer).
    pub fn shown_rows(&self) -> Vec<(TableId, K, i64)> {
        self.queue
            .shown_all()
            .filter_map(|(chat, slot, piece)| match (slot, piece) {
                (Slot::Table(t), Piece::Show(m))
                    if self.refs.contains_key(&(*chat, *t))
                        && !self.unsaved.contains_key(&(*chat, *t))
                        && self.queue.is_idle(chat) =>
                {
                    Some((TableId(*t), *chat, m.hash()))
                }
                _ => None,
            })
            .collect()
    }

    /// The messages whose id the store refused, still live, for the next
    /// start: (table, chat, message, what it shows if known) — their rows
    /// name older messages, so [`PacedLane::shown_rows`] leaves them out.
    pub fn unsaved_refs(&self) -> Vec<(TableId, K, MessageId, Option<i64>)> {
        let refs = self.unsaved.iter();
        refs.filter(|(key, m)| self.refs.get(key) == Some(m))
            .map(|(&(chat, t), &m)| {
                let hash = self.queue.is_idle(&chat).then(|| self.shown_hash(&chat, t));
                (TableId(t), chat, m, hash.flatten())
            })
            .collect()
    }

    /// What the message of `table` in `chat` shows, as far as the pacer
    /// knows (a call on its way may change it).
    fn shown_hash(&self, chat: &K, table: i64) -> Option<i64> {
        match self.queue.shown(chat, &Slot::Table(table)) {
            Some(Piece::Show(shown)) => Some(shown.hash()),
            _ => None,
        }
    }

    /// The message of `table` in `chat` is to show something new.
    fn mark_stale(&mut self, chat: K, table: i64, prio: Priority, now: Instant) {
        if !self.queue.is_waiting(&chat, &Slot::Table(table)) {
            return;
        }
        let e = self.stale.entry((chat, table)).or_insert((now, prio));
        // Becoming someone's turn starts the clock of that turn.
        if prio < e.1 {
            *e = (now, prio);
        }
    }

    /// The person left the table: their hand message keeps its text and
    /// loses its buttons.
    fn retire_hand<H: Host<K, Message = M>>(&mut self, table: TableId, user: &UserId, host: &H) {
        let Some(chat) = host.private_chat(user) else {
            return;
        };
        self.sources.remove(&(chat, table.0));
        self.held.remove(&(user.clone(), table));
        self.awaiting_view.remove(&(chat, table.0));
        self.alerts.handle_gone(user, table);
        if let Some(Piece::Show(shown)) = self.queue.shown(&chat, &Slot::Table(table.0)).cloned() {
            self.queue.set_with(
                chat,
                Slot::Table(table.0),
                Piece::Show(shown.without_buttons()),
                Priority::Background,
            );
        }
    }

    fn label(&self, chat: &K) -> &'static str {
        match (self.classify)(chat) {
            Class::Group => "group",
            Class::Private => "private",
        }
    }

    /// The next call that may go out at `now`, rendered with the latest
    /// views (`None`: nothing may go now; see [`PacedLane::poll_timeout`]).
    pub fn poll_call<H: Host<K, Message = M>>(
        &mut self,
        now: Instant,
        host: &H,
    ) -> Option<Call<K, M>> {
        let PacedLane {
            queue,
            views,
            sources,
            ..
        } = self;
        let mut considered = Vec::new();
        let tx = queue.poll_transmit_with(now, |chat, slot, content| match slot {
            Slot::Table(t) => {
                considered.push((*chat, *t));
                let rendered = sources.get(&(*chat, *t)).and_then(|s| match s {
                    Source::Table => Some(host.table(views.get(&TableId(*t))?)),
                    Source::Hand(hand) => Some(host.hand(hand, views.get(&hand.table)?)),
                });
                rendered.map_or(content, Piece::Show)
            }
            Slot::Menu(_) => content,
        });
        // Rendered again, these showed what the platform shows: up to date.
        let sent = tx.as_ref().and_then(|tx| match &tx.output {
            Transmission::Set {
                slot: Slot::Table(t),
                ..
            } => Some((tx.ticket.chat, *t)),
            _ => None,
        });
        for key in considered {
            if Some(key) != sent {
                self.stale.remove(&key);
            }
        }
        let stale = sent.and_then(|key| self.stale.remove(&key));
        let Some(tx) = tx else {
            for class in [Class::Group, Class::Private] {
                let lane = if class == Class::Group {
                    "group"
                } else {
                    "private"
                };
                kozyr_metrics::pacer_waiting(lane, self.queue.chats_waiting_in(class));
            }
            let by_priority = self.queue.outputs_waiting();
            for (prio, n) in Priority::ALL.into_iter().zip(by_priority) {
                kozyr_metrics::scheduler_queue(prio.label(), n);
            }
            return None;
        };
        let chat = tx.ticket.chat;
        // A seat confirmation names its table only for when its person
        // cannot be reached; it is not the message that shows the table.
        let keeps = matches!(
            &tx.output,
            Transmission::Set {
                slot: Slot::Table(_),
                ..
            }
        );
        let mut owed = None;
        // A deleted message's slot is forgotten once it went.
        let mut forget = None;
        let mut fallback = None;
        // The table whose recorded message this call changes: a table or
        // hand edited, or an old one (still named by its row until the new
        // one's id is recorded) losing its buttons or deleted.
        let (shown_table, shown_hash, posting) = match &tx.output {
            Transmission::Set {
                slot: Slot::Table(t),
                content: Piece::Show(m),
            } => (
                Some(*t),
                Some(m.hash()),
                !self.refs.contains_key(&(chat, *t)),
            ),
            Transmission::Set {
                slot: Slot::Menu(id),
                ..
            } => (self.replaced.get(&(chat, *id)).copied(), None, false),
            _ => (None, None, false),
        };
        // A new message's hash is recorded with its id (`handle_done`).
        let posted = match &tx.output {
            Transmission::Set {
                content: Piece::Show(m),
                ..
            } if posting => Some(m.clone()),
            _ => None,
        };
        // A message whose id the store refused is not the one its row
        // names: what it shows is not recorded there (the id goes again
        // with it, [`PacedLane::handle_ref_saved`]).
        let unsaved = matches!(&tx.output, Transmission::Set { slot: Slot::Table(t), .. }
            if self.unsaved.contains_key(&(chat, *t)));
        let shown_table = shown_table.filter(|_| !posting && !unsaved);
        let writes = shown_table.map_or_else(Writes::default, |t| {
            self.recorded.before(&(chat, t), shown_hash)
        });
        let kind = if keeps {
            transport::Call::Edit
        } else if matches!(&tx.output, Transmission::Set { .. }) {
            transport::Call::Tidy
        } else {
            transport::Call::Post
        };
        let (table, action) = match tx.output {
            Transmission::Set {
                slot: Slot::Table(t),
                content: Piece::Show(m),
            } => (
                Some(TableId(t)),
                match self.refs.get(&(chat, t)).copied() {
                    Some(id) => Action::Edit(id, m),
                    None => Action::Send(m),
                },
            ),
            Transmission::Set {
                slot: Slot::Menu(id),
                content: Piece::Show(m),
            } => (None, Action::Edit(id, m)),
            Transmission::Set {
                slot: Slot::Menu(id),
                content: Piece::Delete,
            } => {
                forget = Some(Slot::Menu(id));
                (None, Action::Delete(id))
            }
            Transmission::Set {
                slot: Slot::Menu(id),
                ..
            } => (None, Action::NoButtons(id)),
            Transmission::Send {
                content: Piece::About(t, m),
            } => (Some(t), Action::Send(m)),
            Transmission::Send {
                content: Piece::Owed(t, a, m),
            } => {
                owed = Some((t, *a));
                (Some(t), Action::Send(m))
            }
            Transmission::Send {
                content: Piece::Told(m, group, in_group),
            } => {
                fallback = Some((group, in_group));
                (None, Action::Send(m))
            }
            Transmission::Set {
                content: Piece::NoButtons | Piece::About(..) | Piece::Owed(..) | Piece::Told(..),
                ..
            }
            | Transmission::Set {
                slot: Slot::Table(_),
                content: Piece::Delete,
            }
            | Transmission::Send {
                content: Piece::NoButtons | Piece::Delete,
            } => (None, Action::Nothing),
            Transmission::Send {
                content: Piece::Show(m),
            } => (None, Action::Send(m)),
        };
        let window_writes = ((self.classify)(&chat) == Class::Group && action != Action::Nothing)
            .then(|| self.queue.window_writes(&chat));
        let id = CallId(self.next_call);
        self.next_call += 1;
        let pending = Pending {
            ticket: tx.ticket,
            table,
            keeps,
            stale,
            owed,
            forget,
            shown: shown_table.map(|t| (t, writes)),
            posted,
            fallback,
            kind,
            at: now,
        };
        self.calls.insert(id, pending);
        Some(Call {
            chat,
            action,
            window_writes,
            unknown_first: shown_table.filter(|_| writes.unknown_first).map(TableId),
            then: shown_table.zip(writes.then).map(|(t, h)| (TableId(t), h)),
            id,
        })
    }

    /// Takes in a finished call.
    pub fn handle_done<H: Host<K, Message = M>>(&mut self, done: Done, now: Instant, host: &H) {
        let Done {
            call,
            landed,
            method,
            result,
        } = done;
        // A call of no lane's (reported twice, or to another): nothing.
        let Some(p) = self.calls.remove(&call) else {
            return;
        };
        let mut anew = None;
        let chat = p.ticket.chat;
        if let Some((t, writes)) = p.shown {
            self.recorded.after(&(chat, t), writes, landed);
        }
        let to = match (self.classify)(&chat) {
            Class::Group => Recipient::Chat,
            Class::Private => Recipient::Person,
        };
        let strikes = match result {
            Err(Failure::ChatMissing) => self.not_found.get(&chat).copied().unwrap_or(0),
            _ => 0,
        };
        // An edit answered "not modified" showed it: a success.
        let result = match result {
            Err(f) => match self.policy.next(f, p.kind, to, strikes) {
                Next::Shown => Ok(None),
                next => Err((f, next)),
            },
            Ok(m) => Ok(m),
        };
        kozyr_metrics::api_call(
            host.name(),
            method,
            result.as_ref().map_or_else(|(f, _)| f.label(), |_| "ok"),
        );
        let outcome = match result {
            Ok(new_message) => {
                self.not_found.remove(&chat);
                if let Some((since, prio)) = p.stale {
                    host.fresh(chat, prio, now - since);
                }
                if let (Some(m), Some(table), true) = (new_message, p.table, p.keeps) {
                    self.refs.insert((chat, table.0), m);
                    // Recorded, with what it shows, before the next output
                    // for this chat goes out.
                    self.save_ref(chat, table, m, p.posted.as_ref().map(Markup::hash));
                    // What it shows, for the pacer too: a post it lost
                    // track of (its chat was cleared while the post was on
                    // its way: its person came back) would otherwise be
                    // edited to show the same again.
                    if let Some(posted) = p.posted.clone() {
                        let slot = Slot::Table(table.0);
                        self.queue.assume_shown(chat, slot, Piece::Show(posted));
                    }
                    // The live table is posted anew below a new deal's news.
                    for a in self.reposting.remove(&(chat, table.0)).unwrap_or_default() {
                        self.effects.push_back(Effect::ForgetOwed(table, a));
                    }
                    // It was to move down while it was on its way (its
                    // person wrote; a deal's news went): anew below.
                    if let Some(wrote) = self.reposts_due.remove(&(chat, table.0))
                        && wrote.is_none_or(|w| m < w)
                    {
                        anew = Some(table.0);
                    }
                }
                if let Some((table, a)) = p.owed.clone() {
                    let key = (chat, table.0);
                    // Where the live table is against a deal's news that
                    // just landed: the table's post may have gone first (a
                    // render that matters more moves it up the chat's
                    // queue), and then it must go anew below the news.
                    let above = match (new_message, self.refs.get(&key)) {
                        _ if !starts_a_deal(&a) => Some(false),
                        (Some(news), Some(&shown)) => Some(shown < news),
                        _ => None,
                    };
                    let live = matches!(self.sources.get(&key), Some(Source::Table));
                    match above {
                        // Posted anew below it, which forgets it.
                        Some(true) if live => {
                            self.reposting.entry(key).or_default().push(a);
                            anew = Some(table.0);
                        }
                        // Below it already, no table to move down, or no
                        // deal's news: owed no more.
                        Some(_) => self.effects.push_back(Effect::ForgetOwed(table, a)),
                        // Its post is on its way, or waits: it lands below.
                        None => self.reposting.entry(key).or_default().push(a),
                    }
                }
                Outcome::Done
            }
            Err((failure, next)) => {
                let outcome = match next {
                    Next::Shown => Outcome::NotModified,
                    Next::RetryAfter(pause) => {
                        if failure == Failure::ChatMissing {
                            self.not_found.insert(chat, strikes + 1);
                            tracing::warn!(
                                ?chat,
                                strikes = strikes + 1,
                                ?pause,
                                "the platform says the group does not exist; retrying"
                            );
                        }
                        Outcome::RetryAfter(pause)
                    }
                    Next::PostAnew => {
                        if let Some(table) = p.table {
                            self.refs.remove(&(chat, table.0));
                            // Forgotten in the store too, before the id of
                            // the message posted anew: after a restart the
                            // next output posts it anew.
                            self.recorded.forget(&(chat, table.0));
                            self.effects.push_back(Effect::SaveRef {
                                chat,
                                table,
                                message: None,
                                hash: None,
                            });
                        }
                        Outcome::Gone
                    }
                    Next::Follow(to) => {
                        // The output in flight moves with the queue.
                        if let Some(to) = self.follow_migration(chat, K::from(to)) {
                            self.effects.push_back(to);
                        }
                        return;
                    }
                    Next::Unreachable => {
                        // A call made before its person wrote again (they
                        // unblocked the bot meanwhile) says nothing of now:
                        // it goes again.
                        let user = host.person(chat);
                        let back = user
                            .as_ref()
                            .and_then(|u| self.wrote.get(u))
                            .is_some_and(|w| *w >= p.at);
                        if back {
                            Outcome::RetryAfter(Duration::ZERO)
                        } else {
                            // What they asked for is said in the group instead.
                            if let Some((group, m)) = p.fallback.clone() {
                                self.send(group, m, Priority::Turn);
                            }
                            if let Some(user) = user
                                && host.set_unreachable(&user)
                            {
                                self.handle_unreachable(&user, p.table, now, host);
                            }
                            Outcome::Failed
                        }
                    }
                    Next::ChatGone => {
                        if failure == Failure::ChatMissing {
                            tracing::error!(
                                ?chat,
                                strikes = strikes + 1,
                                "the platform keeps saying this group does not exist; its table is stopped"
                            );
                        } else {
                            tracing::info!(?chat, "the bot cannot write to this group any more");
                        }
                        self.not_found.remove(&chat);
                        self.gone.insert(chat);
                        self.effects.push_back(Effect::ChatGone(chat));
                        Outcome::Failed
                    }
                    // A menu that is gone has no buttons left to remove.
                    Next::Forget => Outcome::Failed,
                    Next::Drop => {
                        tracing::warn!(?chat, ?failure, "the platform refused an output");
                        Outcome::Failed
                    }
                };
                // Still out of date, since then.
                if let (Some(stale), Some(table), true) = (p.stale, p.table, p.keeps) {
                    self.stale.entry((chat, table.0)).or_insert(stale);
                }
                if let Outcome::RetryAfter(pause) = outcome {
                    kozyr_metrics::pacer_pause(self.label(&chat), pause)
                }
                // Dropped for good: not owed any more (it would fail again).
                if let (Outcome::Failed | Outcome::Gone, Some((table, a))) = (outcome, &p.owed) {
                    self.effects
                        .push_back(Effect::ForgetOwed(*table, a.clone()));
                }
                outcome
            }
        };
        self.queue.on_result(p.ticket, outcome, now);
        if (self.classify)(&chat) == Class::Group
            && matches!(outcome, Outcome::Done | Outcome::NotModified)
        {
            let times = self.queue.window_writes(&chat);
            self.effects.push_back(Effect::SaveWrites { chat, times });
        }
        // Owed news the store would not forget: again, now it may.
        if matches!(outcome, Outcome::Done | Outcome::NotModified) {
            for (table, a) in self.unforgotten.retry() {
                self.effects.push_back(Effect::ForgetOwed(table, a));
            }
        }
        // The store may take again what it refused: a call to this chat
        // landed, and none is on its way to it (one at a time per chat),
        // so no write of an older call to the row can land after this one,
        // and what the message shows is known.
        if matches!(outcome, Outcome::Done | Outcome::NotModified) {
            let here: Vec<((K, i64), MessageId)> =
                self.unsaved.extract_if(|(c, _), _| *c == chat).collect();
            for ((chat, t), m) in here {
                if self.refs.get(&(chat, t)) == Some(&m) {
                    self.save_ref(chat, TableId(t), m, self.shown_hash(&chat, t));
                }
            }
        }
        if let Some(slot) = p.forget
            && !self.queue.is_waiting(&chat, &slot)
        {
            self.queue.forget_slot(&chat, &slot);
        }
        match anew.and_then(|t| self.sources.get(&(chat, t)).map(|s| (t, s))) {
            Some((t, Source::Hand(_))) => self.hand_anew((chat, t), None, now, host),
            Some((t, Source::Table)) => self.table_anew(chat, t, host),
            None => {}
        }
    }

    /// A table whose post was on its way when it was to move down (a
    /// deal's news went meanwhile): posted anew below, the message that
    /// just landed losing its buttons.
    fn table_anew<H: Host<K, Message = M>>(&mut self, chat: K, table: i64, host: &H) {
        let (Some(Source::Table), Some(view)) = (
            self.sources.get(&(chat, table)),
            self.views.get(&TableId(table)),
        ) else {
            return;
        };
        let content = host.table(view);
        self.repost(chat, table, Priority::Acted, None, host);
        // Not before the news waiting at the table's own priority.
        self.queue.set_with(
            chat,
            Slot::Table(table),
            Piece::Show(content),
            Priority::Table,
        );
    }

    /// The id of a posted message was recorded (`landed`) or not
    /// ([`Effect::SaveRef`]). Recorded, the row names the new message from
    /// now on, not the ones it replaced. Not recorded, the row still names
    /// the message it replaced, which stays known as replaced (a change of
    /// it makes the row's hash unknown first), and the id is saved again
    /// after the next call that lands: a restart would otherwise edit the
    /// old message, leaving the new one as it was, for good.
    pub fn handle_ref_saved(&mut self, chat: K, table: TableId, hash: Option<i64>, landed: bool) {
        let key = (chat, table.0);
        let replaced = self.saving.remove(&key).unwrap_or_default();
        if landed {
            self.recorded.posted(key, hash);
            self.unsaved.remove(&key);
            return;
        }
        for (old, t) in replaced {
            self.replaced.insert((chat, old), t);
        }
        if let Some(&m) = self.refs.get(&key) {
            self.unsaved.insert(key, m);
        }
    }

    /// Whether the store forgot an owed announcement
    /// ([`Effect::ForgetOwed`]): refused, it goes again after the next call
    /// that lands.
    pub fn handle_owed_forgotten(&mut self, table: TableId, a: Announcement, landed: bool) {
        if !landed {
            self.unforgotten.refused(table, a);
        }
    }

    /// The owed announcements that went and that the store has not
    /// forgotten yet, for a stop to forget once more.
    pub fn unforgotten(&self) -> &[(TableId, Announcement)] {
        self.unforgotten.held()
    }

    /// Records `message` as the one showing `table` in `chat` (showing
    /// `hash`, when known): from the [`Effect::SaveRef`] on, the row names
    /// it, not the messages it replaced — a change of those no longer
    /// touches the row ([`PacedLane::handle_ref_saved`] says if it did
    /// not land).
    fn save_ref(&mut self, chat: K, table: TableId, message: MessageId, hash: Option<i64>) {
        let replaced: Vec<(MessageId, i64)> = self
            .replaced
            .extract_if(|(c, _), t| *c == chat && *t == table.0)
            .map(|((_, old), t)| (old, t))
            .collect();
        self.saving
            .entry((chat, table.0))
            .or_default()
            .extend(replaced);
        self.effects.push_back(Effect::SaveRef {
            chat,
            table,
            message: Some(message),
            hash,
        });
    }

    /// The platform answered a write to `from` with the group's new id:
    /// its queue moves there at once, and the table follows — the service
    /// message saying so may come late, or never (the table is moved once,
    /// whichever comes first).
    fn follow_migration(&mut self, from: K, to: K) -> Option<Effect<K>> {
        if from == to {
            return None;
        }
        tracing::info!(
            ?from,
            ?to,
            "the group became a supergroup; its output follows"
        );
        let menus: Vec<Slot> = self
            .queue
            .slots(&from)
            .filter(|s| matches!(s, Slot::Menu(_)))
            .copied()
            .collect();
        self.queue.migrate(&from, to);
        // A menu's message id names a message of the old chat.
        for menu in menus {
            self.queue.forget_slot(&to, &menu);
        }
        self.refs.retain(|(c, _), _| *c != from);
        self.restored.retain(|(c, _), _| *c != from);
        self.recorded.retain(|(c, _)| *c != from);
        self.replaced.retain(|(c, _), _| *c != from);
        let moved: Vec<((K, i64), Source)> =
            self.sources.extract_if(|(c, _), _| *c == from).collect();
        for ((_, t), source) in moved {
            self.sources.insert((to, t), source);
        }
        let stale: Vec<_> = self.stale.extract_if(|(c, _), _| *c == from).collect();
        for ((_, t), since) in stale {
            self.stale.insert((to, t), since);
        }
        // A start that learns of the move again (the service had not been
        // told before a kill): the new chat's messages, restored with what
        // they show, are not sent the same again.
        let moved: Vec<i64> = (self.sources.keys())
            .filter(|(c, _)| *c == to)
            .map(|(_, t)| *t)
            .collect();
        for t in moved {
            if let Some(Piece::Show(m)) = self.queue.wanted(&to, &Slot::Table(t)).cloned() {
                self.restore_shown(to, t, &m);
            }
        }
        // A deal's news that went before the move is owed until the table
        // is posted below it, in the new chat now; a post due anew there
        // too (its id, of the old chat, is no mark any more).
        let reposting: Vec<_> = self.reposting.extract_if(|(c, _), _| *c == from).collect();
        for ((_, t), news) in reposting {
            self.reposting.entry((to, t)).or_default().extend(news);
        }
        let due: Vec<_> = self
            .reposts_due
            .extract_if(|(c, _), _| *c == from)
            .collect();
        for ((_, t), _) in due {
            self.repost_due((to, t), None);
        }
        let first = self.moved.insert(from, to).is_none();
        first.then_some(Effect::ChatMoved { from, to })
    }

    /// When the next call may go (`Some(None)`: now; `None`: nothing waits
    /// for a time).
    pub fn poll_timeout(&self) -> Option<Option<Instant>> {
        self.queue.poll_timeout()
    }

    /// Whether nothing waits to go out.
    pub fn idle(&self) -> bool {
        self.queue.poll_timeout().is_none()
    }
}

#[cfg(test)]
mod sim;
