//! The effects runner: turns the table service's effects into Bot API calls.
//!
//! Group output (the table message, announcements) goes through a
//! [`Pacer`] per group — latest state wins, at most one output per
//! interval, 429s delay only their chat. Hand messages go through a second
//! pacer keyed by the person's private chat, without the group limits, so
//! they too are edited in place with the latest state only. Every Bot API
//! call runs in its own task and reports back here, so a slow chat never
//! holds up another.
//!
//! Message ids are kept in the store (`message_refs`), so after a restart
//! the same messages are edited and the buttons on them keep working; so is
//! what each message shows, as it changes (made unknown before each call
//! that changes it, recorded after: [`Recorded`]), so a start after a kill
//! sends nothing Telegram shows already ("message is not modified"). A
//! message that is gone is posted anew; a person the bot cannot message is
//! marked unreachable (the lobby then shows them a deep link, and the turn
//! timer plays for them).
//!
//! The decisions no platform owns are [`crate::delivery`]'s: the pacer,
//! what follows a failed call ([`crate::delivery::transport`]: this
//! outbox only counts a group's "chat not found" in a row and carries the
//! step out), the content hash, announcements held for the next render,
//! and turn alerts — a person not looking when their turn comes gets their hand
//! posted anew at the bottom of the private chat (a new message notifies,
//! an edit does not), and the old one is deleted after.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use teloxide::payloads::{EditMessageTextSetters, SendMessageSetters};
use teloxide::prelude::Requester;
use teloxide::types::{ChatId, MessageId, ParseMode};
use tokio::sync::mpsc;

use super::failure::classify;
use super::ids;
use super::markup::Message;
/// The handlers' work for the outbox, under the name it had here.
pub use super::shared::Local;
use super::shared::{Shared, class_of};
use crate::delivery::alerts::{Turn, TurnAlerts};
use crate::delivery::content::{Landed, Recorded, Writes, content_hash as hash_of_parts};
use crate::delivery::driver::waited;
use crate::delivery::news::{News, starts_a_deal};
use crate::delivery::pacing::{
    Class, Limits, Outcome, Output as Transmission, Pacer, Priority, Ticket, instant_of, unix_ms,
};
use crate::delivery::restore::{self, restore};
use crate::delivery::transport::{self, Failure, Next, Policy, Recipient};
use crate::front::{Screen, outputs};
use crate::i18n::Lang;
use crate::table::{Announcement, HandView, Output, Phase, Platform, TableId, TableView, UserId};

/// A message of a chat that the scheduler keeps current.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Slot {
    /// The message showing a table (in a group) or a hand (in a private chat).
    Table(i64),
    /// A menu that loses its buttons.
    Menu(i32),
}

/// What a slot shows or a send posts.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Show(Message),
    /// The message keeps its text and loses its buttons.
    NoButtons,
    /// The message goes (a hand posted anew below it).
    Delete,
    /// A message about a table (a seat confirmation): a 403 there means the
    /// table should show the person the bot's deep link.
    About(TableId, Message),
    /// An announcement the store keeps until the chat got it
    /// ([`Announcement::is_owed`]).
    Owed(TableId, Box<Announcement>, Message),
    /// What concerns one person, sent to their private chat; if the bot
    /// cannot write there, the second message goes to the group (the
    /// first `i64`) instead.
    Told(Message, i64, Message),
}

/// What a slot's content is made from, so that it is rendered again when
/// it goes out.
#[derive(Clone, Debug)]
enum Source {
    Table(Box<TableView>),
    Hand(Box<HandView>),
}

fn label(chat: i64) -> &'static str {
    match class_of(&chat) {
        Class::Group => "group",
        Class::Private => "private",
    }
}

/// A finished Bot API call.
pub struct Done {
    ticket: Ticket<i64>,
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
    /// around it and what they did ([`Recorded`]).
    shown: Option<(i64, Writes, Landed)>,
    /// What a new message posted by it shows, recorded with its id.
    posted_hash: Option<i64>,
    /// Where a message told to one person goes if their chat refuses it.
    fallback: Option<(i64, Message)>,
    /// What kind of call it was, for what its failure means.
    kind: transport::Call,
    /// The Bot API method, for the metrics.
    method: &'static str,
    result: Result<Option<MessageId>, Failure>,
}

type Queue = Pacer<i64, Slot, Piece>;

/// The runner's state; [`run`] drives it.
pub struct Outbox {
    shared: Arc<Shared>,
    /// Every output of the bot, in one scheduler.
    queue: Queue,
    /// (chat, table) → the message showing the table there.
    refs: HashMap<(i64, i64), MessageId>,
    /// (chat, table) → what that message is rendered from.
    sources: HashMap<(i64, i64), Source>,
    /// (chat, table) → a hash of what its message showed when the bot
    /// started: the first render that matches is not sent again.
    restored: HashMap<(i64, i64), i64>,
    /// (chat, table) → what the store says its message shows, kept true
    /// across a kill by the writes around each call.
    recorded: Recorded<(i64, i64)>,
    /// (chat, old message) → the table whose stored row may still name
    /// it: a table or hand posted anew below, until the new message's id
    /// is recorded. Editing or deleting it makes the row's hash untrue.
    replaced: HashMap<(i64, i32), i64>,
    /// (private chat, table): hands to post anew once their first post,
    /// on its way when the person wrote, has landed (its id is needed to
    /// delete it).
    reposts_due: HashSet<(i64, i64)>,
    /// (chat, table) → since when its message is out of date, and how urgently.
    stale: HashMap<(i64, i64), (Instant, Priority)>,
    /// The latest view of each table, for names in hands and announcements.
    views: HashMap<TableId, TableView>,
    /// Announcements wait for the table's next render, which follows them in
    /// the same batch of effects, so they are worded with the state after.
    news: News,
    /// Who is told, by a hand posted anew, that it is their turn.
    alerts: TurnAlerts,
    /// Groups that became supergroups (learnt from a 400 or the service
    /// message): old id → new id. Output still addressed to the old id
    /// goes to the new one.
    moved: HashMap<i64, i64>,
    /// Groups whose writes Telegram answered "chat not found", and how
    /// many times in a row.
    not_found: HashMap<i64, u32>,
    /// What follows a failed call (`delivery::transport`).
    policy: Policy,
    /// (chat, table) → owed announcements of a new deal that went out; the
    /// store forgets them once the live table was posted anew below them.
    reposting: HashMap<(i64, i64), Vec<Announcement>>,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
}

/// A hash of a message's content: its text and its keyboard's JSON
/// ([`crate::delivery::content`]).
fn content_hash(m: &Message) -> i64 {
    let keyboard = m
        .keyboard
        .as_ref()
        .map(|kb| serde_json::to_string(kb).unwrap_or_default())
        .unwrap_or_default();
    hash_of_parts([m.html.as_bytes(), keyboard.as_bytes()])
}

/// Renders a slot's source with the latest views and the time of now.
fn render(
    shared: &Shared,
    views: &HashMap<TableId, TableView>,
    source: &Source,
) -> Option<Message> {
    let screen = match source {
        Source::Table(view) => shared.front.table_screen(view),
        Source::Hand(hand) => shared.front.hand_screen(hand, views.get(&hand.table)?),
    };
    Some(Message::with_app(
        &screen,
        &shared.username,
        shared.front.live().app(),
    ))
}

impl Outbox {
    pub async fn new(
        shared: Arc<Shared>,
        limits: Limits,
        not_found_retry: Duration,
        turn_alerts: Option<Duration>,
    ) -> Outbox {
        let saved = restore(shared.front.service(), Platform::Telegram, None).await;
        let mut refs = HashMap::new();
        for (table, chat, message) in saved.messages {
            if let (Ok(chat), Ok(m)) = (chat.parse::<i64>(), i32::try_from(message)) {
                refs.insert((chat, table.0), MessageId(m));
            }
        }
        let mut restored = HashMap::new();
        for (table, chat, hash) in saved.shown {
            if let Ok(chat) = chat.parse::<i64>() {
                restored.insert((chat, table.0), hash);
            }
        }
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let mut queue = Pacer::with_limits(limits, class_of);
        // The bot posted here before (it may have been killed a moment
        // ago): Telegram still counts those writes against each chat.
        // The start: everyone counts as seen, every window starts.
        let now = Instant::now();
        if !refs.is_empty() {
            queue.start_spent(now);
        }
        // Where the writes were recorded (every group's since this was
        // kept), the window counts from them exactly instead.
        restore_writes(&shared, &mut queue, limits.group.window).await;
        let recorded = Recorded::restore(restored.iter().map(|(k, h)| (*k, *h)));
        let mut outbox = Outbox {
            restored,
            recorded,
            replaced: HashMap::new(),
            reposts_due: HashSet::new(),
            shared,
            queue,
            refs,
            sources: HashMap::new(),
            stale: HashMap::new(),
            views: HashMap::new(),
            news: News::default(),
            alerts: TurnAlerts::new(turn_alerts, now),
            moved: HashMap::new(),
            not_found: HashMap::new(),
            policy: Policy {
                missing_retry: not_found_retry,
                ..Policy::default()
            },
            reposting: HashMap::new(),
            done_tx,
            done_rx,
        };
        outbox.take_owed(now).await;
        outbox
    }

    /// What a kill left unsent ([`restore::take_owed`]); a closed table's
    /// announcements are sent with its last view now.
    async fn take_owed(&mut self, now: Instant) {
        let service = self.shared.front.service().clone();
        for view in restore::take_owed(&service, Platform::Telegram, &mut self.news).await {
            self.on_output(Output::RenderTable(Box::new(view)), now)
                .await;
        }
    }

    /// The store forgets an owed announcement: it was sent (or cannot be).
    async fn forget_owed(&self, table: TableId, announcement: &Announcement) {
        let service = self.shared.front.service();
        restore::forget_owed(service, Platform::Telegram, table, announcement).await;
    }

    fn message(&self, screen: &Screen) -> Message {
        Message::with_app(
            screen,
            &self.shared.username,
            self.shared.front.live().app(),
        )
    }

    async fn view_of(&mut self, table: TableId) -> Option<TableView> {
        if let Some(v) = self.views.get(&table) {
            return Some(v.clone());
        }
        let v = self.shared.front.service().table_view(table).await.ok()??;
        self.views.insert(table, v.clone());
        Some(v)
    }

    /// Takes one output of the table service in.
    pub async fn on_output(&mut self, output: Output, now: Instant) {
        match output {
            Output::RenderTable(view) => {
                let Some(chat) = ids::chat_id(&view.chat).map(|c| self.current_chat(c)) else {
                    return;
                };
                let closed = view.phase == Phase::Closed;
                // A lobby is what the people who must act there (join,
                // start) act on, so it goes like the hand of a person whose
                // turn it is, and so does the render that turns it into the
                // game; another render that changes what the buttons do (a
                // deal ending) goes before the other tables.
                let old = self.views.get(&view.id).map(|v| v.phase);
                let prio = match old {
                    _ if view.phase == Phase::Lobby || old == Some(Phase::Lobby) => Priority::Turn,
                    Some(old) if old == view.phase => Priority::Table,
                    _ => Priority::Acted,
                };
                if self.shared.is_chat_gone(chat) {
                    for a in self.news.take(view.id).announcements {
                        if a.is_owed() {
                            self.forget_owed(view.id, &a).await;
                        }
                    }
                } else {
                    let due = self.news.take(view.id);
                    if due.repost {
                        // The lobby turned into the game below it.
                        let started = due.leaves_lobby.then_some(view.settings.lang);
                        self.repost(chat.0, view.id.0, prio, started);
                    }
                    for a in due.announcements {
                        match self.shared.front.announcement(&view, &a) {
                            Some(screen) => {
                                let m = self.message(&screen);
                                let piece = if a.is_owed() {
                                    Piece::Owed(view.id, Box::new(a), m)
                                } else {
                                    Piece::Show(m)
                                };
                                self.queue.send_with(chat.0, piece, prio);
                            }
                            None if a.is_owed() => self.forget_owed(view.id, &a).await,
                            None => {}
                        }
                    }
                    let content = self.message(&self.shared.front.table_screen(&view));
                    self.restore_shown(chat.0, view.id.0, &content);
                    self.queue
                        .set_with(chat.0, Slot::Table(view.id.0), Piece::Show(content), prio);
                    self.mark_stale(chat.0, view.id.0, prio, now);
                    self.sources
                        .insert((chat.0, view.id.0), Source::Table(view.clone()));
                }
                if closed {
                    self.views.remove(&view.id);
                    let id = view.id.0;
                    self.sources.retain(|(_, t), _| *t != id);
                    self.alerts.forget_table(view.id);
                } else {
                    self.views.insert(view.id, *view);
                }
            }
            Output::RenderHand(hand) => {
                if self.shared.front.is_unreachable(&hand.player.id) {
                    return;
                }
                let Some(chat) = ids::private_chat_of(&hand.player.id) else {
                    return;
                };
                let Some(view) = self.view_of(hand.table).await else {
                    return;
                };
                let key = (chat.0, hand.table.0);
                // Someone looking at the Mini App is looking (no alert).
                if let Some(at) = self.shared.front.live().looked_at(&hand.player.id, now) {
                    self.alerts.handle_activity(&hand.player.id, at);
                }
                let turn =
                    self.alerts
                        .handle_hand(&hand.player.id, hand.table, hand.your_turn, now);
                if turn == (Turn::Began { alert: true }) {
                    self.repost_hand(chat.0, hand.table.0);
                }
                // The hand of the person who just acted is one of the
                // others: their press was answered (see `Priority`).
                let prio = if hand.your_turn {
                    Priority::Turn
                } else {
                    Priority::Background
                };
                let content = self.render_hand(&hand, &view);
                self.restore_shown(chat.0, hand.table.0, &content);
                self.queue.set_with(
                    chat.0,
                    Slot::Table(hand.table.0),
                    Piece::Show(content),
                    prio,
                );
                self.mark_stale(chat.0, hand.table.0, prio, now);
                self.sources.insert(key, Source::Hand(hand));
            }
            Output::DropHand { table, user, .. } => {
                self.retire_hand(table, &user);
            }
            Output::Announce {
                table,
                announcement,
                ..
            } => {
                self.news.hold(table, announcement);
            }
            Output::Remind(spec) => {
                // Not a new group message: the group may get about 20
                // outputs a minute, shared by every table message edit. The
                // table message states the turn's allowance, which has not
                // changed, so it needs no edit; the awaited person is
                // reminded in their own chat.
                for (person, screen) in self.shared.front.reminders(&spec) {
                    let Some(chat) = ids::private_chat_of(&person.id) else {
                        continue;
                    };
                    let m = self.message(&screen);
                    self.queue.send_with(chat.0, Piece::Show(m), Priority::Turn);
                }
            }
        }
    }

    /// A deal starts: the live table moves to the bottom of the chat, below
    /// the announcements, where people look. The old message loses its
    /// buttons, before anything else of the render (`prio`) goes: nobody
    /// presses Start in a game that began. A lobby (`started`: in its
    /// language) says instead that the game started below, rather than
    /// keep "can start" above it; a message known to show no buttons is
    /// left alone (an edit would change nothing and spend the group's
    /// writes).
    fn repost(&mut self, chat: i64, table: i64, prio: Priority, started: Option<Lang>) {
        let Some(old) = self.refs.remove(&(chat, table)) else {
            return;
        };
        self.replaced.insert((chat, old.0), table);
        let shown = self.queue.expected(&chat, &Slot::Table(table)).cloned();
        self.queue.forget_slot(&chat, &Slot::Table(table));
        let piece = match (started, shown) {
            (Some(lang), _) => Piece::Show(self.message(&outputs::lobby_started(lang))),
            (None, Some(Piece::Show(m))) if m.keyboard.is_none() => return,
            (None, _) => Piece::NoButtons,
        };
        self.queue
            .set_with(chat, Slot::Menu(old.0), piece, prio.min(Priority::Acted));
    }

    /// A turn alert: the hand goes out as a new message at the bottom of
    /// the private chat, which notifies (an edit makes no sound); the old
    /// message is deleted after, when the chat has time.
    fn repost_hand(&mut self, chat: i64, table: i64) {
        let Some(old) = self.refs.remove(&(chat, table)) else {
            // No message yet: the first one notifies anyway.
            return;
        };
        self.replaced.insert((chat, old.0), table);
        self.queue.forget_slot(&chat, &Slot::Table(table));
        self.queue
            .set_with(chat, Slot::Menu(old.0), Piece::Delete, Priority::Background);
    }

    /// Before the first render of a message after a restart: if it is what
    /// the message showed when the bot stopped, the scheduler knows it is
    /// shown and does not send it again.
    fn restore_shown(&mut self, chat: i64, table: i64, content: &Message) {
        if let Some(hash) = self.restored.remove(&(chat, table))
            && hash == content_hash(content)
            && self.refs.contains_key(&(chat, table))
        {
            self.queue
                .assume_shown(chat, Slot::Table(table), Piece::Show(content.clone()));
        }
    }

    /// Records what each message shows, for the next start.
    async fn save_shown(&self) {
        let rows: Vec<(TableId, String, i64)> = self
            .queue
            .shown_all()
            .filter_map(|(chat, slot, piece)| match (slot, piece) {
                // A chat with an output in flight may show something newer.
                (Slot::Table(t), Piece::Show(m))
                    if self.refs.contains_key(&(*chat, *t)) && self.queue.is_idle(chat) =>
                {
                    Some((TableId(*t), chat.to_string(), content_hash(m)))
                }
                _ => None,
            })
            .collect();
        if rows.is_empty() {
            return;
        }
        if let Err(e) = self
            .shared
            .front
            .service()
            .save_shown_hashes(Platform::Telegram, rows)
            .await
        {
            tracing::warn!(error = %e, "cannot record what the messages show");
        }
    }

    /// The message of `table` in `chat` is to show something new.
    fn mark_stale(&mut self, chat: i64, table: i64, prio: Priority, now: Instant) {
        if !self.queue.is_waiting(&chat, &Slot::Table(table)) {
            return;
        }
        let e = self.stale.entry((chat, table)).or_insert((now, prio));
        // Becoming someone's turn starts the clock of that turn.
        if prio < e.1 {
            *e = (now, prio);
        }
    }

    fn render_hand(&self, hand: &HandView, view: &TableView) -> Message {
        self.message(&self.shared.front.hand_screen(hand, view))
    }

    /// Takes in work from the handlers.
    pub async fn on_local(&mut self, local: Local, now: Instant) {
        match local {
            Local::Output(o) => self.on_output(o, now).await,
            Local::Say { chat, screen } => {
                let chat = self.current_chat(chat);
                // The person who just asked waits for it (a `/stop`
                // prompt, a command's answer): it goes before the chat's
                // table edits, which a later one replaces anyway.
                if !self.shared.is_chat_gone(chat) {
                    let m = self.message(&screen);
                    self.queue.send_with(chat.0, Piece::Show(m), Priority::Turn);
                }
            }
            Local::Tell {
                chat,
                screen,
                group,
                in_group,
            } => {
                let group = self.current_chat(group);
                let m = self.message(&screen);
                let fallback = self.message(&in_group);
                self.queue
                    .send_with(chat.0, Piece::Told(m, group.0, fallback), Priority::Turn);
            }
            Local::CloseMenu {
                chat,
                message,
                screen,
            } => {
                let piece = match screen {
                    Some(s) => Piece::Show(self.message(&Screen::text(s.text))),
                    None => Piece::NoButtons,
                };
                self.queue
                    .set_with(chat.0, Slot::Menu(message.0), piece, Priority::Acted);
            }
            Local::Seated {
                table,
                user,
                screen,
            } => {
                if let Some(chat) = ids::private_chat_of(&user) {
                    let m = self.message(&screen);
                    self.queue
                        .send_with(chat.0, Piece::About(table, m), Priority::Acted);
                }
            }
            Local::BringTable(view) => {
                if let Some(chat) = ids::chat_id(&view.chat).map(|c| self.current_chat(c))
                    && !self.shared.is_chat_gone(chat)
                {
                    // Below the answer that says so, which goes at `Turn`.
                    self.repost(chat.0, view.id.0, Priority::Turn, None);
                    self.on_output(Output::RenderTable(view), now).await;
                }
            }
            Local::Unreachable(user) => self.lost(&user, None, now).await,
            Local::Acted { user, pressed } => {
                self.alerts.handle_activity(&user, now);
                // A press changes no hand message but by what it does. A
                // message they wrote in their private chat brings their
                // hands below it, posted anew: one they deleted comes back
                // (Telegram tells no bot of a deletion) without an edit
                // that would change nothing to find out.
                if pressed.is_none() {
                    self.repost_hands(&user, now).await;
                }
            }
            Local::Returned(user) => self.returned(&user, now).await,
            Local::ChatGone(chat) => {
                self.queue.forget(&chat.0);
                self.refs.retain(|(c, _), _| *c != chat.0);
                self.sources.retain(|(c, _), _| *c != chat.0);
            }
        }
    }

    /// Posts the hands of `user` anew at the bottom of their private chat,
    /// the old messages deleted when the chat has time.
    async fn repost_hands(&mut self, user: &UserId, now: Instant) {
        let Some(chat) = ids::private_chat_of(user) else {
            return;
        };
        let tables: Vec<i64> = self
            .sources
            .iter()
            .filter(|((c, _), s)| *c == chat.0 && matches!(s, Source::Hand(_)))
            .map(|((_, t), _)| *t)
            .collect();
        for t in tables {
            self.repost_hand_of(user, chat.0, t, now).await;
        }
    }

    /// Posts the hand of `user` at `table` anew in their private `chat`.
    async fn repost_hand_of(&mut self, user: &UserId, chat: i64, table: i64, now: Instant) {
        if !self.refs.contains_key(&(chat, table)) {
            // Its first post is on its way: anew once it landed.
            self.reposts_due.insert((chat, table));
            return;
        }
        let service = self.shared.front.service().clone();
        let Ok(Some(hand)) = service.hand_of(TableId(table), user).await else {
            return;
        };
        self.repost_hand(chat, table);
        self.on_output(Output::RenderHand(Box::new(hand)), now)
            .await;
    }

    /// Posts the person's hands anew, and their tables without the deep link.
    async fn returned(&mut self, user: &UserId, now: Instant) {
        let Some(chat) = ids::private_chat_of(user) else {
            return;
        };
        self.queue.forget(&chat.0);
        self.refs.retain(|(c, _), _| *c != chat.0);
        self.sources.retain(|(c, _), _| *c != chat.0);
        let tables = self.tables_of(user).await;
        let service = self.shared.front.service().clone();
        for id in tables {
            let Ok(Some(view)) = service.table_view(id).await else {
                continue;
            };
            if view.phase == Phase::Closed {
                continue;
            }
            let hand = service.hand_of(id, user).await.ok().flatten();
            self.on_output(Output::RenderTable(Box::new(view)), now)
                .await;
            if let Some(h) = hand {
                self.on_output(Output::RenderHand(Box::new(h)), now).await;
            }
        }
    }

    /// The person left the table: their hand message keeps its text and loses its buttons.
    fn retire_hand(&mut self, table: TableId, user: &UserId) {
        let Some(chat) = ids::private_chat_of(user) else {
            return;
        };
        let key = (chat.0, table.0);
        self.sources.remove(&key);
        self.alerts.handle_gone(user, table);
        if let Some(Piece::Show(shown)) = self.queue.shown(&chat.0, &Slot::Table(table.0)).cloned()
        {
            self.queue.set_with(
                chat.0,
                Slot::Table(table.0),
                Piece::Show(Message {
                    html: shown.html,
                    keyboard: None,
                }),
                Priority::Background,
            );
        }
    }

    fn transmit(&mut self, now: Instant) {
        loop {
            let Outbox {
                queue,
                shared,
                views,
                sources,
                ..
            } = self;
            let mut considered = Vec::new();
            let tx = queue.poll_transmit_with(now, |chat, slot, content| match slot {
                Slot::Table(t) => {
                    considered.push((*chat, *t));
                    sources
                        .get(&(*chat, *t))
                        .and_then(|s| render(shared, views, s))
                        .map_or(content, Piece::Show)
                }
                Slot::Menu(_) => content,
            });
            // Rendered again, these showed what Telegram shows: up to date.
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
                    crate::metrics::pacer_waiting(lane, self.queue.chats_waiting_in(class));
                }
                let by_priority = self.queue.outputs_waiting();
                for (prio, n) in crate::delivery::pacing::Priority::ALL
                    .into_iter()
                    .zip(by_priority)
                {
                    crate::metrics::scheduler_queue(prio.label(), n);
                }
                break;
            };
            let chat = tx.ticket.chat;
            // A seat confirmation names its table only for a 403; it is not
            // the message that shows the table.
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
            // The table whose recorded message this call changes: a table
            // or hand edited, or an old one (still named by its row until
            // the new one's id is recorded) losing its buttons or deleted.
            let (shown_table, shown_hash, posting) = match &tx.output {
                Transmission::Set {
                    slot: Slot::Table(t),
                    content: Piece::Show(m),
                } => (
                    Some(*t),
                    Some(content_hash(m)),
                    !self.refs.contains_key(&(chat, *t)),
                ),
                Transmission::Set {
                    slot: Slot::Menu(id),
                    ..
                } => (self.replaced.get(&(chat, *id)).copied(), None, false),
                _ => (None, None, false),
            };
            // A new message's hash is recorded with its id (`on_done`).
            let posted_hash = shown_hash.filter(|_| posting);
            let shown_table = shown_table.filter(|_| !posting);
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
            let (table, call) = match tx.output {
                Transmission::Set {
                    slot: Slot::Table(t),
                    content: Piece::Show(m),
                } => (
                    Some(TableId(t)),
                    match self.refs.get(&(chat, t)).copied() {
                        Some(id) => Call::Edit(id, m),
                        None => Call::Send(m),
                    },
                ),
                Transmission::Set {
                    slot: Slot::Menu(id),
                    content: Piece::Show(m),
                } => (None, Call::Edit(MessageId(id), m)),
                Transmission::Set {
                    slot: Slot::Menu(id),
                    content: Piece::Delete,
                } => {
                    forget = Some(Slot::Menu(id));
                    (None, Call::Delete(MessageId(id)))
                }
                Transmission::Set {
                    slot: Slot::Menu(id),
                    ..
                } => (None, Call::NoButtons(MessageId(id))),
                Transmission::Send {
                    content: Piece::About(t, m),
                } => (Some(t), Call::Send(m)),
                Transmission::Send {
                    content: Piece::Owed(t, a, m),
                } => {
                    owed = Some((t, *a));
                    (Some(t), Call::Send(m))
                }
                Transmission::Send {
                    content: Piece::Told(m, group, in_group),
                } => {
                    fallback = Some((group, in_group));
                    (None, Call::Send(m))
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
                } => (None, Call::Nothing),
                Transmission::Send {
                    content: Piece::Show(m),
                } => (None, Call::Send(m)),
            };
            // A group's write times, recorded before the write goes: a
            // kill after it cannot leave the next process a window short.
            let window_writes = (class_of(&chat) == Class::Group && !matches!(call, Call::Nothing))
                .then(|| {
                    // The service's wall clock: write times are compared
                    // across processes, so not as `Instant`s.
                    let unix_now = self.shared.front.service().now().millis();
                    let times = self.queue.window_writes(&chat);
                    times
                        .into_iter()
                        .map(|t| unix_ms(t, now, unix_now))
                        .collect::<Vec<_>>()
                });
            let shared = self.shared.clone();
            let done = self.done_tx.clone();
            let ticket = tx.ticket;
            tokio::spawn(async move {
                let method = call.method();
                if let Some(times) = window_writes {
                    waited(save_writes(shared.clone(), chat, times)).await;
                }
                let mut landed = Landed::default();
                if let (true, Some(t)) = (writes.unknown_first, shown_table) {
                    landed.unknown(waited(mark_shown(shared.clone(), chat, t, None)).await);
                }
                let result = deliver(&shared, ChatId(chat), call).await;
                // "Not modified": it shows exactly that already.
                landed.shown = matches!(result, Ok(_) | Err(Failure::NotModified));
                if let (true, Some(h), Some(t)) = (landed.shown, writes.then, shown_table) {
                    landed.record(waited(mark_shown(shared.clone(), chat, t, Some(h))).await);
                }
                let _ = done.send(Done {
                    ticket,
                    table,
                    keeps,
                    stale,
                    owed,
                    forget,
                    shown: shown_table.map(|t| (t, writes, landed)),
                    posted_hash,
                    fallback,
                    kind,
                    method,
                    result,
                });
            });
        }
    }

    async fn on_done(&mut self, done: Done, now: Instant) {
        let chat = done.ticket.chat;
        if let Some((t, writes, landed)) = done.shown {
            self.recorded.after(&(chat, t), writes, landed);
        }
        let to = match class_of(&chat) {
            Class::Group => Recipient::Chat,
            Class::Private => Recipient::Person,
        };
        let strikes = match done.result {
            Err(Failure::ChatMissing) => self.not_found.get(&chat).copied().unwrap_or(0),
            _ => 0,
        };
        // An edit Telegram answers "not modified" showed it: a success.
        let result = match done.result {
            Err(f) => match self.policy.next(f, done.kind, to, strikes) {
                Next::Shown => Ok(None),
                next => Err((f, next)),
            },
            Ok(m) => Ok(m),
        };
        crate::metrics::api_call(
            "telegram",
            done.method,
            result.as_ref().map_or_else(|(f, _)| f.label(), |_| "ok"),
        );
        let outcome = match result {
            Ok(new_message) => {
                self.not_found.remove(&chat);
                if let Some((since, prio)) = done.stale {
                    self.shared
                        .record_freshness(|f| f.record(chat, prio, now - since));
                }
                if let (Some(m), Some(table), true) = (new_message, done.table, done.keeps) {
                    self.refs.insert((chat, table.0), m);
                    // Recorded, with what it shows, before the next output
                    // for this chat goes out. The row names the new message
                    // from now on, not the one it replaced.
                    self.replaced
                        .retain(|(c, _), t| !(*c == chat && *t == table.0));
                    match self
                        .shared
                        .front
                        .service()
                        .save_message_ref(
                            Platform::Telegram,
                            table,
                            &chat.to_string(),
                            Some(i64::from(m.0)),
                            done.posted_hash,
                        )
                        .await
                    {
                        Ok(()) => self.recorded.posted((chat, table.0), done.posted_hash),
                        Err(e) => {
                            tracing::warn!(error = %e, "cannot record a message id");
                        }
                    }
                    // The live table is posted anew below a new deal's news.
                    for a in self.reposting.remove(&(chat, table.0)).unwrap_or_default() {
                        self.forget_owed(table, &a).await;
                    }
                    // Its person wrote while it was on its way: anew below.
                    if self.reposts_due.remove(&(chat, table.0))
                        && let Some(Source::Hand(hand)) = self.sources.get(&(chat, table.0))
                    {
                        let user = hand.player.id.clone();
                        self.repost_hand_of(&user, chat, table.0, now).await;
                    }
                }
                if let Some((table, a)) = done.owed {
                    if starts_a_deal(&a) {
                        self.reposting.entry((chat, table.0)).or_default().push(a);
                    } else {
                        self.forget_owed(table, &a).await;
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
                                chat,
                                strikes = strikes + 1,
                                ?pause,
                                "Telegram says the group does not exist; retrying"
                            );
                        }
                        Outcome::RetryAfter(pause)
                    }
                    Next::PostAnew => {
                        if let Some(table) = done.table {
                            self.refs.remove(&(chat, table.0));
                            self.forget_ref(chat, table).await;
                        }
                        Outcome::Gone
                    }
                    Next::Follow(to) => {
                        // The output in flight moves with the queue.
                        self.follow_migration(chat, to);
                        return;
                    }
                    Next::Unreachable => {
                        // What they asked for is said in the group instead.
                        if let Some((group, m)) = done.fallback.clone() {
                            let group = self.current_chat(ChatId(group));
                            if !self.shared.is_chat_gone(group) {
                                self.queue
                                    .send_with(group.0, Piece::Show(m), Priority::Turn);
                            }
                        }
                        if let Some(user) = ids::user_of_private_chat(ChatId(chat))
                            && self.shared.front.set_unreachable(&user, true)
                        {
                            self.lost(&user, done.table, now).await;
                        }
                        Outcome::Failed
                    }
                    Next::ChatGone => {
                        if failure == Failure::ChatMissing {
                            tracing::error!(
                                chat,
                                strikes = strikes + 1,
                                "Telegram keeps saying this group does not exist; its table is stopped"
                            );
                        } else {
                            tracing::info!(chat, "the bot cannot write to this group any more");
                        }
                        self.not_found.remove(&chat);
                        let shared = self.shared.clone();
                        tokio::spawn(async move { shared.chat_gone(ChatId(chat)).await });
                        Outcome::Failed
                    }
                    // A menu that is gone has no buttons left to remove.
                    Next::Forget => Outcome::Failed,
                    Next::Drop => {
                        tracing::warn!(chat, ?failure, "Telegram refused an output");
                        Outcome::Failed
                    }
                };
                // Still out of date, since then.
                if let (Some(stale), Some(table), true) = (done.stale, done.table, done.keeps) {
                    self.stale.entry((chat, table.0)).or_insert(stale);
                }
                if let Outcome::RetryAfter(pause) = outcome {
                    crate::metrics::pacer_pause(label(chat), pause)
                }
                // Dropped for good: not owed any more (it would fail again).
                if let (Outcome::Failed | Outcome::Gone, Some((table, a))) = (outcome, &done.owed) {
                    self.forget_owed(*table, a).await;
                }
                outcome
            }
        };
        self.queue.on_result(done.ticket, outcome, now);
        if let Some(slot) = done.forget
            && !self.queue.is_waiting(&chat, &slot)
        {
            self.queue.forget_slot(&chat, &slot);
        }
    }

    /// Where output for `chat` goes now: the supergroup it became, if it did.
    fn current_chat(&self, chat: ChatId) -> ChatId {
        ChatId(self.moved.get(&chat.0).copied().unwrap_or(chat.0))
    }

    /// Forgets, in the store too, the message that showed `table` in `chat`
    /// (it is gone): after a restart the next output posts it anew.
    /// Awaited, so that it lands before the id of the message posted anew.
    async fn forget_ref(&mut self, chat: i64, table: TableId) {
        self.recorded.forget(&(chat, table.0));
        let r = self
            .shared
            .front
            .service()
            .save_message_ref(Platform::Telegram, table, &chat.to_string(), None, None)
            .await;
        if let Err(e) = r {
            tracing::warn!(error = %e, "cannot forget a message id");
        }
    }

    /// Telegram answered a write to `from` with the group's new id (a 400
    /// with `migrate_to_chat_id`): its queue moves there at once, and the
    /// table follows — the service message saying so may come late, or
    /// never (the table is moved once, whichever comes first).
    fn follow_migration(&mut self, from: i64, to: i64) {
        if from == to {
            return;
        }
        tracing::info!(
            from,
            to,
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
        let moved: Vec<((i64, i64), Source)> =
            self.sources.extract_if(|(c, _), _| *c == from).collect();
        for ((_, t), source) in moved {
            self.sources.insert((to, t), source);
        }
        let stale: Vec<_> = self.stale.extract_if(|(c, _), _| *c == from).collect();
        for ((_, t), since) in stale {
            self.stale.insert((to, t), since);
        }
        let first = self.moved.insert(from, to).is_none();
        if first {
            let shared = self.shared.clone();
            tokio::spawn(async move {
                shared
                    .front
                    .chat_moved(&ids::chat_key(ChatId(from)), &ids::chat_key(ChatId(to)))
                    .await;
            });
        }
    }

    /// The open tables `user` sits at or has a hand message of.
    async fn tables_of(&self, user: &UserId) -> Vec<TableId> {
        let mut tables = self.shared.tables_with_hand_of(user).await;
        for v in self.views.values() {
            if v.seat_of(user).is_some() && !tables.contains(&v.id) {
                tables.push(v.id);
            }
        }
        tables
    }

    /// The bot cannot message `user` any more (they blocked it; `table`:
    /// where that showed): their tables show it, and an AI player plays
    /// their seats in play until they take them back.
    async fn lost(&mut self, user: &UserId, table: Option<TableId>, now: Instant) {
        if let Some(t) = table {
            // Known here, so that its message shows the deep link.
            let _ = self.view_of(t).await;
        }
        self.show_unreachable(user, now).await;
        let mut tables = self.tables_of(user).await;
        tables.extend(table.filter(|t| !tables.contains(t)));
        let shared = self.shared.clone();
        let user = user.clone();
        tokio::spawn(async move { shared.front.hand_over(&user, &tables).await });
    }

    /// The bot cannot message `user`: their tables show them a deep link.
    async fn show_unreachable(&mut self, user: &UserId, now: Instant) {
        let user = user.clone();
        let tables: Vec<TableId> = self
            .views
            .values()
            .filter(|v| v.seat_of(&user).is_some())
            .map(|v| v.id)
            .collect();
        for t in tables {
            if let Some(v) = self.views.get(&t).cloned() {
                Box::pin(self.on_output(Output::RenderTable(Box::new(v)), now)).await;
            }
        }
    }

    fn next_wake(&self) -> Option<Instant> {
        self.queue
            .poll_timeout()
            .map(|t| t.unwrap_or_else(Instant::now))
    }

    /// Whether nothing waits to go out.
    fn idle(&self) -> bool {
        self.queue.poll_timeout().is_none() && self.done_rx.is_empty()
    }
}

/// Records what the message showing `table` in `chat` shows (`None`: it
/// is about to change, not known); whether the write landed.
async fn mark_shown(shared: Arc<Shared>, chat: i64, table: i64, shown: Option<i64>) -> bool {
    let row = vec![(TableId(table), chat.to_string(), shown)];
    match shared
        .front
        .service()
        .mark_shown(Platform::Telegram, row)
        .await
    {
        Ok(()) => true,
        // At a stop, after the drain: the record stays on the safe side
        // (`delivery::content`).
        Err(e) if e.is_closed() => false,
        Err(e) => {
            tracing::warn!(error = %e, chat, table, "cannot record what a message shows");
            false
        }
    }
}

/// Records a group's latest write times (`Pacer::window_writes`).
async fn save_writes(shared: Arc<Shared>, chat: i64, times: Vec<i64>) -> bool {
    let service = shared.front.service();
    match service
        .save_chat_writes(Platform::Telegram, &chat.to_string(), &times)
        .await
    {
        Ok(()) => true,
        Err(e) if e.is_closed() => false,
        Err(e) => {
            tracing::warn!(error = %e, chat, "cannot record a group's write times");
            false
        }
    }
}

/// Gives the pacer every group's write times recorded within the last
/// `window` (by this process before a restart, or by the replica that
/// served before a takeover).
async fn restore_writes(shared: &Shared, queue: &mut Pacer<i64, Slot, Piece>, window: Duration) {
    let (now, unix_now) = (Instant::now(), shared.front.service().now().millis());
    let since = unix_now.saturating_sub(i64::try_from(window.as_millis()).unwrap_or(i64::MAX));
    let rows = match shared
        .front
        .service()
        .chat_writes(Platform::Telegram, since)
        .await
    {
        Ok(rows) => rows,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the groups' write times: their windows are guessed");
            return;
        }
    };
    for (chat, times) in rows {
        let Ok(chat) = chat.parse::<i64>() else {
            continue;
        };
        let times = times.into_iter().filter(|ms| *ms >= since);
        queue.restore_writes(chat, times.map(|ms| instant_of(ms, now, unix_now)));
    }
}

/// One Bot API call of the outbox.
enum Call {
    Send(Message),
    Edit(MessageId, Message),
    NoButtons(MessageId),
    Delete(MessageId),
    Nothing,
}

impl Call {
    fn method(&self) -> &'static str {
        match self {
            Call::Send(_) | Call::Nothing => "sendMessage",
            Call::Edit(..) => "editMessageText",
            Call::NoButtons(_) => "editMessageReplyMarkup",
            Call::Delete(_) => "deleteMessage",
        }
    }
}

/// Performs one output. `Ok(Some(id))` when a new message was posted.
async fn deliver(shared: &Shared, chat: ChatId, call: Call) -> Result<Option<MessageId>, Failure> {
    let bot = &shared.bot;
    let edited = |r: Result<_, teloxide::RequestError>| r.map(|_| None).map_err(|e| classify(&e));
    match call {
        Call::Edit(id, content) => {
            let mut req = bot
                .edit_message_text(chat, id, content.html)
                .parse_mode(ParseMode::Html);
            if let Some(kb) = content.keyboard {
                req = req.reply_markup(kb);
            }
            edited(req.await.map(drop))
        }
        Call::NoButtons(id) => edited(bot.edit_message_reply_markup(chat, id).await.map(drop)),
        Call::Delete(id) => match bot.delete_message(chat, id).await {
            Ok(_) => Ok(None),
            Err(e) => Err(classify(&e)),
        },
        Call::Send(content) => {
            let mut req = bot
                .send_message(chat, content.html)
                .parse_mode(ParseMode::Html);
            if let Some(kb) = content.keyboard {
                req = req.reply_markup(kb);
            }
            match req.await {
                Ok(m) => Ok(Some(m.id)),
                Err(e) => Err(classify(&e)),
            }
        }
        Call::Nothing => Ok(None),
    }
}

impl crate::delivery::driver::Outbox for Outbox {
    type Local = Local;
    type Done = Done;

    async fn on_output(&mut self, output: Output, now: Instant) {
        Outbox::on_output(self, output, now).await
    }

    async fn on_local(&mut self, local: Local, now: Instant) {
        Outbox::on_local(self, local, now).await
    }

    async fn on_done(&mut self, done: Done, now: Instant) {
        Outbox::on_done(self, done, now).await
    }

    fn transmit(&mut self, now: Instant) {
        Outbox::transmit(self, now)
    }

    fn next_wake(&self) -> Option<Instant> {
        Outbox::next_wake(self)
    }

    fn idle(&self) -> bool {
        Outbox::idle(self)
    }

    fn finished(&mut self) -> &mut mpsc::UnboundedReceiver<Done> {
        &mut self.done_rx
    }

    async fn save_shown(&self) {
        Outbox::save_shown(self).await
    }
}
