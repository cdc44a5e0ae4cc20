//! The outbox of a platform whose decisions are a
//! [`kozyr_delivery::engine::Engine`]'s (Discord's): it feeds the engine
//! the service's outputs and the handlers' work with the loop's `now`,
//! words the announcements held for each render ([`News`]), runs each job
//! the engine polls on a task of its own ([`super::jobs`]), makes its
//! store writes, and reports every result back. A platform says only how
//! its messages look and how its calls are made ([`EnginePlatform`]).
//!
//! Hands are edited through their newest token while the platform keeps
//! it ([`HandTokens`]); a refused (expired) token is forgotten, and the
//! table message then asks the person to open their hand again.
//!
//! Whether a table message is buried by the chat below it is counted
//! here too ([`Burials`], as `delivery::burial` decides): from each post
//! of it, restored at a start from what the process before saved. The
//! platform only tells each message other people write.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::hand_tokens::{EDIT_WAIT, HandTokens};
use super::jobs::{self, TableCalls};
use super::lock;
use super::service;
use kozyr_delivery::Set;
use kozyr_delivery::burial::Burials;
use kozyr_delivery::engine::{
    Engine, Job, Outcome, PingJob, Rendered, StoreWrite, TableDone, TableJob,
};
use kozyr_delivery::news::News;
use kozyr_delivery::transport::Failure;
use kozyr_front::{Front, Screen};
use kozyr_table::{ChatKey, HandView, Output, Platform, TableId, TableView, UserId};

/// A platform under an [`EngineOutbox`]: its messages and its calls.
pub trait EnginePlatform: TableCalls<Table: Clone> + Send + Sync + 'static {
    /// A hand message, in the platform's markup.
    type Hand: Send;
    const PLATFORM: Platform;

    fn front(&self) -> &Front;
    fn tokens(&self) -> &HandTokens;
    /// Per chat with a table message: the messages other people wrote
    /// below it (the platform counts each as it comes:
    /// [`Burials::handle_message`]).
    fn burials(&self) -> &Mutex<Burials<u64>>;
    /// Whether `chat` is one of this platform's.
    fn serves(&self, chat: &ChatKey) -> bool;
    /// Whether `user` is one of this platform's people.
    fn serves_person(&self, user: &UserId) -> bool;
    /// An announcement (or a reminder) as the platform posts it.
    fn word(&self, screen: &Screen) -> Self::News;
    /// A table's state as its message shows it; `alerted`: the people
    /// awaited whom the turn alerts tell.
    fn render(&self, view: &TableView, alerted: &Set<UserId>, now: Instant) -> Drawn<Self::Table>;
    /// A person's hand as its message shows it, with the hash of that.
    fn hand(&self, hand: &HandView) -> impl Future<Output = Option<(Self::Hand, i64)>> + Send;
    /// Edits the hand message that `token` reaches.
    fn edit_hand(
        &self,
        token: String,
        m: Self::Hand,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    /// Tells a person privately, through their hand's `token`.
    fn remind(&self, token: String, m: Self::News) -> impl Future<Output = ()> + Send;
    /// Looks in `chat` for `table`'s messages that a kill kept from the
    /// store (`recorded`: the message the store names, if any) and
    /// settles them ([`kozyr_delivery::restore::orphans`]): the one found
    /// shows the table now.
    fn find_lost_post(
        &self,
        table: TableId,
        chat: ChatKey,
        recorded: Option<u64>,
    ) -> impl Future<Output = Option<u64>> + Send;
}

/// A table's state as the platform's message shows it.
#[derive(Clone, Debug)]
pub struct Drawn<T> {
    pub message: T,
    /// Its content hash ([`kozyr_delivery::content`]).
    pub hash: i64,
    /// The people awaited whom the turn alerts tell, with their ids on the
    /// platform and their turn lines: a new message pings them.
    pub alerted: Vec<(u64, String)>,
}

/// The number that keys a chat's burying count (Discord's channel id).
fn chat_number(chat: &ChatKey) -> u64 {
    match *chat {
        ChatKey::Discord(c) => c,
        ChatKey::Telegram(c) => c as u64,
    }
}

/// Work for the outbox from the handlers.
#[derive(Clone, Debug)]
pub enum Local {
    Output(Output),
    /// The person sent something (a press, a command): they are looking,
    /// for the turn alerts.
    Acted(UserId),
    /// Someone looked for the table: its message goes anew to the bottom
    /// of the chat (it may have been deleted or scrolled far up), the old
    /// one losing its buttons.
    BringTable(Box<TableView>),
}

/// A finished call.
pub enum Done {
    Table(TableDone),
    /// A turn ping was posted (or not).
    Ping(PingJob, Option<u64>),
    /// A store write the engine asked for, and whether it landed.
    Stored(StoreWrite, bool),
    Hand {
        /// The state the call was to show.
        sent: Box<HandView>,
        /// The token it went through.
        token: String,
        failed: Option<Failure>,
    },
}

pub struct EngineOutbox<P: EnginePlatform> {
    platform: Arc<P>,
    /// Every decision about the table messages, their pings and the hands.
    engine: Engine<P::Table, P::News>,
    /// Announcements waiting for the table's next render, which follows
    /// them in the same batch of outputs: worded with the state after.
    news: News,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
    in_flight: usize,
}

impl<P: EnginePlatform> EngineOutbox<P> {
    /// The outbox at a start (or a takeover), from what the last run kept:
    /// each table's message (and those a kill kept from the store, found
    /// by the platform), what they show, and the hands' tokens still
    /// fresh. `turn_alerts`: how long a person is quiet before their turn
    /// tells them (`None`: only those whose hand cannot be edited).
    pub async fn start(
        platform: Arc<P>,
        turn_alerts: Option<Duration>,
        now: Instant,
    ) -> EngineOutbox<P> {
        // The start: everyone counts as seen.
        let mut engine = Engine::new(turn_alerts, now);
        let service = platform.front().service().clone();
        // Before any render asks whether a table is buried: the counts the
        // process serving before this one saved.
        service::restore_burials(&service, P::PLATFORM, platform.burials()).await;
        let life = platform.tokens().life();
        let restored = service::restore(&service, P::PLATFORM, Some(life)).await;
        // A table posted anew just before a kill, or whose first post's id
        // a kill kept from the store: the message found shows it now.
        let look = |table, chat: String, recorded: Option<u64>| {
            let platform = &*platform;
            async move {
                let chat = chat.parse::<ChatKey>().ok()?;
                platform.find_lost_post(table, chat, recorded).await
            }
        };
        let lost = service::find_lost_posts(&service, P::PLATFORM, &restored, look).await;
        let messages =
            (restored.messages.into_iter()).map(|(t, c, m)| (t, c, u64::try_from(m).unwrap_or(0)));
        for (table, _chat, message) in messages.chain(lost) {
            if message != 0 {
                engine.restore_message(table, message);
                platform.tokens().table_shown(table, message);
            }
        }
        // What the messages show, as recorded: the first render that
        // matches is not sent again.
        engine.restore_shown(restored.shown);
        // Hands opened before the stop stay editable while their tokens last.
        for (row, age) in restored.tokens {
            platform.tokens().restore(row, age, now);
        }
        EngineOutbox::new(platform, engine, now).await
    }

    /// An outbox over `engine` (restored by the platform's start); what a
    /// kill or a failed post left owed is taken in at once
    /// ([`service::take_owed`]): a closed table's announcements are posted
    /// with its last view.
    pub async fn new(
        platform: Arc<P>,
        engine: Engine<P::Table, P::News>,
        now: Instant,
    ) -> EngineOutbox<P> {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let mut outbox = EngineOutbox {
            platform,
            engine,
            news: News::default(),
            done_tx,
            done_rx,
            in_flight: 0,
        };
        let service = outbox.platform.front().service().clone();
        for view in service::take_owed(&service, P::PLATFORM, &mut outbox.news).await {
            outbox.on_output(Output::RenderTable(Box::new(view)), now);
        }
        outbox
    }

    fn on_output(&mut self, output: Output, now: Instant) {
        let p = &self.platform;
        match output {
            Output::RenderTable(view) => self.render_table(*view, false, now),
            Output::RenderHand(hand) if p.serves_person(&hand.player.id) => {
                self.engine.handle_hand(*hand)
            }
            Output::RenderHand(_) => {}
            Output::DropHand { table, user, .. } => {
                self.engine.handle_gone(&user, table);
                p.tokens().forget(&user, table, None);
            }
            Output::Announce {
                chat,
                table,
                announcement,
            } if p.serves(&chat) => self.news.hold(table, announcement),
            Output::Announce { .. } => {}
            Output::Remind(spec) if p.serves(&spec.chat) => {
                for (player, screen) in p.front().reminders(&spec) {
                    if let Some(t) = p.tokens().fresh(&player.id, spec.table, now) {
                        let (p, m) = (p.clone(), p.word(&screen));
                        tokio::spawn(async move { p.remind(t.token, m).await });
                    }
                }
            }
            Output::Remind(_) => {}
        }
    }

    /// A table's new state for the engine, with the announcements held
    /// for it; `bring`: it is posted anew at the bottom.
    fn render_table(&mut self, view: TableView, bring: bool, now: Instant) {
        let p = &self.platform;
        if !p.serves(&view.chat) {
            return;
        }
        let id = view.id;
        let due = self.news.take(id);
        let worded = (due.announcements.into_iter())
            .map(|a| {
                let words = p.front().announcement(&view, &a).map(|s| p.word(&s));
                (words, a.is_owed().then_some(a))
            })
            .collect();
        let started = due.leaves_lobby.then_some(view.settings.lang);
        let unseen = |u: &UserId| p.tokens().fresh(u, id, now).is_none();
        let repost = due.repost || bring;
        (self.engine).handle_render(view, worded, repost, started, unseen, now);
    }

    /// Edits a person's hand through their newest token, on a task of its
    /// own.
    fn run_hand(&mut self, hand: HandView, now: Instant) {
        let (user, table) = (hand.player.id.clone(), hand.table);
        let Some(token) = self.platform.tokens().fresh(&user, table, now) else {
            // No open hand to edit: the person opens it anew.
            self.engine.handle_hand_done(hand, None, now);
            return;
        };
        let p = self.platform.clone();
        let done = self.done_tx.clone();
        self.in_flight += 1;
        tokio::spawn(async move {
            let tokens = p.tokens();
            // An answer to a press on this hand goes first: then the token
            // read below is its newest, with what the message shows.
            let turn = tokens.turn(&user, table, EDIT_WAIT).await;
            let token = tokens.fresh(&user, table, now).unwrap_or(token);
            // The newest state, whatever the output carried: edits of one
            // hand may overtake each other on the way.
            let hand = match p.front().service().hand_of(table, &user).await {
                Ok(Some(h)) => h,
                _ => hand,
            };
            let mut failed = None;
            if let Some((m, hash)) = p.hand(&hand).await {
                let edit = |token| p.edit_hand(token, m);
                failed = tokens.edit((&user, table), &token, hash, edit).await;
            }
            drop(turn);
            let sent = Box::new(hand);
            let _ = done.send(Done::Hand {
                sent,
                token: token.token,
                failed,
            });
        });
    }

    async fn on_done(&mut self, d: Done, now: Instant) {
        self.in_flight = self.in_flight.saturating_sub(1);
        match d {
            Done::Table(done) => self.engine.handle_table_done(done, now),
            Done::Ping(job, posted) => self.engine.handle_ping_done(&job, posted),
            Done::Stored(write, landed) => self.engine.handle_stored(&write, landed),
            Done::Hand {
                sent,
                token,
                failed,
            } => {
                let (user, table) = (sent.player.id.clone(), sent.table);
                let forget = self.engine.handle_hand_done(*sent, failed, now);
                let tokens = self.platform.tokens();
                if forget && tokens.forget(&user, table, Some(&token)) {
                    let unseen = |u: &UserId| tokens.fresh(u, table, now).is_none();
                    self.engine.handle_hand_lost(table, unseen, now);
                }
            }
        }
    }

    /// Carries out what the engine decided: its jobs, each on a task of
    /// its own, and its store writes.
    fn pump(&mut self, now: Instant) {
        // A job done at once (a hand with no token) may make another.
        loop {
            let mut polled = Vec::new();
            let p = &self.platform;
            let render = |v: &TableView, alerted: &Set<UserId>| {
                let Drawn {
                    message,
                    hash,
                    alerted,
                } = p.render(v, alerted, now);
                // Chat counts from the table message's post; after a
                // restart with nothing saved, from now.
                let mut burials = lock(p.burials());
                burials.watch(chat_number(&v.chat));
                let buried = burials.is_buried(chat_number(&v.chat));
                Rendered {
                    message,
                    hash,
                    alerted,
                    buried,
                }
            };
            while let Some(job) = (self.engine).poll_job(now, render) {
                polled.push(job);
            }
            if polled.is_empty() {
                break;
            }
            for job in polled {
                self.run_job(job, now);
            }
        }
        while let Some(write) = self.engine.poll_store() {
            let (p, done) = (self.platform.clone(), self.done_tx.clone());
            self.in_flight += 1;
            tokio::spawn(async move {
                let on = (p.front().service(), P::PLATFORM);
                let chat_gone = async |chat: ChatKey| p.front().chat_gone(&chat).await;
                let landed = jobs::store(on, &write, chat_gone).await;
                let _ = done.send(Done::Stored(write, landed));
            });
        }
    }

    fn run_job(&mut self, job: Job<P::Table, P::News>, now: Instant) {
        let (p, done) = (self.platform.clone(), self.done_tx.clone());
        match job {
            Job::Table(job) => self.run_table(job),
            Job::Hand(hand) => self.run_hand(*hand, now),
            Job::Ping(job) => {
                self.in_flight += 1;
                tokio::spawn(async move {
                    let posted = jobs::run_ping(&*p, &job).await;
                    let _ = done.send(Done::Ping(job, posted));
                });
            }
            Job::DeletePing { chat, message } => {
                tokio::spawn(async move { p.delete(&chat, message).await });
            }
        }
    }

    /// One table's job: its calls in order, on a task of its own.
    fn run_table(&mut self, job: TableJob<P::Table, P::News>) {
        if !self.platform.serves(&job.chat) {
            return;
        }
        let chat = chat_number(&job.chat);
        if job.closed {
            self.platform.tokens().forget_table(job.table);
            // Nothing more to keep in view, unless another table of the
            // chat still is.
            if job.last_in_chat {
                lock(self.platform.burials()).unwatch(chat);
            }
        }
        let (p, done) = (self.platform.clone(), self.done_tx.clone());
        self.in_flight += 1 + usize::from(job.ping.is_some());
        tokio::spawn(async move {
            let on = (p.front().service(), P::PLATFORM);
            let pinged = |ping, posted| {
                let _ = done.send(Done::Ping(ping, posted));
            };
            let table = jobs::run_table(&*p, on, job, pinged).await;
            if let Outcome::Posted(Some(message)) = table.call {
                p.tokens().table_shown(table.table, message);
                // Chat below the table counts from here: what was said
                // after it.
                lock(p.burials()).reset(chat, message);
            }
            let _ = done.send(Done::Table(table));
        });
    }
}

impl<P: EnginePlatform> super::Outbox for EngineOutbox<P> {
    type Local = Local;
    type Done = Done;

    async fn on_output(&mut self, output: Output, now: Instant) {
        EngineOutbox::on_output(self, output, now)
    }

    async fn on_local(&mut self, local: Local, now: Instant) {
        match local {
            Local::Output(o) => EngineOutbox::on_output(self, o, now),
            Local::Acted(user) => self.engine.handle_activity(&user, now),
            // Posted anew by the render's job, or by the next one when a
            // job of the table is in flight.
            Local::BringTable(view) => self.render_table(*view, true, now),
        }
    }

    async fn on_done(&mut self, done: Done, now: Instant) {
        EngineOutbox::on_done(self, done, now).await
    }

    /// Calls go out as soon as they are made (the platform's client holds
    /// each until its limits allow it); what waits here is a call failed
    /// for now, tried again after its pause.
    fn transmit(&mut self, now: Instant) {
        self.pump(now);
    }

    fn next_wake(&self, _now: Instant) -> Option<Instant> {
        self.engine.poll_timeout()
    }

    /// Idle once no call is in flight and none waits to be tried again.
    fn idle(&self) -> bool {
        self.in_flight == 0 && self.engine.poll_timeout().is_none() && self.engine.idle()
    }

    fn finished(&mut self) -> &mut mpsc::UnboundedReceiver<Done> {
        &mut self.done_rx
    }

    /// Records what each table message shows, for the next start.
    async fn save_shown(&self) {
        let service = self.platform.front().service();
        let rows = self.engine.shown_rows();
        service::save_shown(service, P::PLATFORM, rows).await;
        // What the store refused, once more: news sent, and ids a start
        // edits.
        for (table, a) in self.engine.unforgotten() {
            service::forget_owed(service, P::PLATFORM, *table, a).await;
        }
        for write in self.engine.unsaved_refs() {
            jobs::store((service, P::PLATFORM), &write, async |_| {}).await;
        }
    }
}
