//! The outbox of a platform whose limits the bot keeps itself
//! (Telegram's): every decision is the [`PacedLane`]'s; this loop feeds it
//! the service's outputs and the handlers' work ([`Local`]) with the
//! loop's `now`, runs each call it polls in a task of its own (a slow chat
//! never holds up another) with the store writes around it, and carries
//! out the [`Effect`]s that await the store or the service. A platform
//! says how its chats and messages look ([`Host`]) and how a call is made
//! ([`PacedPlatform`]).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::service::{self, mark_shown, restore, save_writes};
use super::waited;
use kozyr_delivery::content::Landed;
use kozyr_delivery::lane::local::Local;
use kozyr_delivery::lane::{Action, Done, Effect, Host, PacedLane, Restored};
use kozyr_delivery::pacing::{Class, Limits, unix_ms};
use kozyr_delivery::transport::{Failure, Policy};
use kozyr_front::Front;
use kozyr_table::{ChatKey, Output, Platform};

/// A platform under a [`PacedOutbox`]. Its chats are `i64`s.
pub trait PacedPlatform: Host<i64, Message: Clone + Send + Sync> + Send + Sync + 'static {
    const PLATFORM: Platform;

    fn front(&self) -> &Front;
    /// A chat's key in the service.
    fn chat_key(&self, chat: i64) -> ChatKey;
    /// Which limits a chat has.
    fn class_of(chat: &i64) -> Class;
    /// Makes one call: `Ok(Some(id))` when a new message was posted.
    fn deliver(
        &self,
        chat: i64,
        action: Action<Self::Message>,
    ) -> impl Future<Output = Result<Option<u64>, Failure>> + Send;
    /// The platform's name of a call, for the metrics.
    fn method_of(action: &Action<Self::Message>) -> &'static str;
    /// The bot is out of `chat`: its tables stop.
    fn chat_gone(&self, chat: i64) -> impl Future<Output = ()> + Send;
}

pub struct PacedOutbox<P: PacedPlatform> {
    platform: Arc<P>,
    lane: PacedLane<i64, P::Message>,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
}

impl<P: PacedPlatform> PacedOutbox<P> {
    /// The outbox at a start (or a takeover): the messages and what they
    /// show as the last run kept them, every group's window from its
    /// recorded writes, and what a kill left owed.
    pub async fn new(
        platform: Arc<P>,
        limits: Limits,
        not_found_retry: Duration,
        turn_alerts: Option<Duration>,
        now: Instant,
    ) -> PacedOutbox<P> {
        let service = platform.front().service().clone();
        let saved = restore(&service, P::PLATFORM, None).await;
        let chat = |c: &str| c.parse::<i64>().ok();
        let messages = (saved.messages.into_iter())
            .filter_map(|(table, c, m)| Some((table, chat(&c)?, u64::try_from(m).ok()?)))
            .collect();
        let shown = (saved.shown.into_iter())
            .filter_map(|(table, c, hash)| Some((table, chat(&c)?, hash)))
            .collect();
        let policy = Policy {
            missing_retry: not_found_retry,
            ..Policy::default()
        };
        // The start: everyone counts as seen, every window starts.
        let restored = Restored { messages, shown };
        let mut lane = PacedLane::new(limits, P::class_of, policy, turn_alerts, restored, now);
        // Where the writes were recorded (every group's since this was
        // kept), the window counts from them exactly instead.
        let clocks = (now, service.now().millis());
        let window = limits.group.window;
        for (c, times) in service::chat_writes(&service, P::PLATFORM, window, clocks).await {
            if let Some(c) = chat(&c) {
                lane.restore_writes(c, times, now);
            }
        }
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let mut outbox = PacedOutbox {
            platform,
            lane,
            done_tx,
            done_rx,
        };
        // What a kill left unsent ([`service::take_owed`]); a closed
        // table's announcements are sent with its last view now.
        for view in service::take_owed(&service, P::PLATFORM, outbox.lane.news_mut()).await {
            outbox
                .on_output(Output::RenderTable(Box::new(view)), now)
                .await;
        }
        outbox
    }

    /// Takes one output of the table service in.
    async fn on_output(&mut self, output: Output, now: Instant) {
        let p = &*self.platform;
        // The Mini App's pages of this table read it again.
        p.front().live().changed(output.table());
        match output {
            Output::Remind(spec) => {
                for (person, screen) in p.front().reminders(&spec) {
                    self.lane.remind(&person.id, p.word(&screen), p);
                }
            }
            output => self.lane.handle_output(output, now, p),
        }
        self.run(now).await;
    }

    /// Carries out the lane's effects, in order (and those they lead to).
    async fn run(&mut self, now: Instant) {
        let service = self.platform.front().service().clone();
        while let Some(effect) = self.lane.poll_effect() {
            match effect {
                Effect::ForgetOwed(table, a) => {
                    let landed = service::forget_owed(&service, P::PLATFORM, table, &a).await;
                    self.lane.handle_owed_forgotten(table, a, landed);
                }
                Effect::SaveRef {
                    chat,
                    table,
                    message,
                    hash,
                } => {
                    let id = message.and_then(|m| i64::try_from(m).ok());
                    let row = chat.to_string();
                    let saved =
                        service::save_message_ref(&service, P::PLATFORM, (table, &row), id, hash)
                            .await;
                    if message.is_some() {
                        self.lane.handle_ref_saved(chat, table, hash, saved);
                    }
                }
                Effect::Lost { user, tables } => {
                    let p = self.platform.clone();
                    tokio::spawn(async move { p.front().hand_over(&user, &tables).await });
                }
                Effect::ChatGone(chat) => {
                    let p = self.platform.clone();
                    tokio::spawn(async move { p.chat_gone(chat).await });
                }
                Effect::SaveWrites { chat, times } => {
                    let unix_now = service.now().millis();
                    let times = times.into_iter().map(|t| unix_ms(t, now, unix_now));
                    let write = save_writes(
                        service.clone(),
                        P::PLATFORM,
                        chat.to_string(),
                        times.collect(),
                    );
                    waited(write).await;
                }
                Effect::ChatMoved { from, to } => {
                    let p = self.platform.clone();
                    tokio::spawn(async move {
                        let (from, to) = (p.chat_key(from), p.chat_key(to));
                        p.front().chat_moved(&from, &to).await;
                    });
                }
            }
        }
    }

    /// Starts every call the lane lets go at `now`, each in a task of its
    /// own with the store writes around it.
    fn transmit(&mut self, now: Instant) {
        while let Some(call) = self.lane.poll_call(now, &*self.platform) {
            let chat = call.chat;
            let window_writes = call.window_writes.map(|times| {
                // The service's wall clock: write times are compared
                // across processes, so not as `Instant`s.
                let unix_now = self.platform.front().service().now().millis();
                let times = times.into_iter().map(|t| unix_ms(t, now, unix_now));
                times.collect::<Vec<_>>()
            });
            let (p, done) = (self.platform.clone(), self.done_tx.clone());
            tokio::spawn(async move {
                let method = P::method_of(&call.action);
                let service = p.front().service().clone();
                if let Some(times) = window_writes {
                    let write = save_writes(service.clone(), P::PLATFORM, chat.to_string(), times);
                    waited(write).await;
                }
                let mut landed = Landed::default();
                if let Some(t) = call.unknown_first {
                    let place = (t, chat.to_string());
                    landed.unknown(
                        waited(mark_shown(service.clone(), P::PLATFORM, place, None)).await,
                    );
                }
                let result = p.deliver(chat, call.action).await;
                // "Not modified": it shows exactly that already.
                landed.shown = matches!(result, Ok(_) | Err(Failure::NotModified));
                if let (true, Some((t, h))) = (landed.shown, call.then) {
                    let place = (t, chat.to_string());
                    landed.record(waited(mark_shown(service, P::PLATFORM, place, Some(h))).await);
                }
                let _ = done.send(Done {
                    call: call.id,
                    landed,
                    method,
                    result,
                });
            });
        }
    }
}

impl<P: PacedPlatform> super::Outbox for PacedOutbox<P> {
    type Local = Local<i64>;
    type Done = Done;

    async fn on_output(&mut self, output: Output, now: Instant) {
        PacedOutbox::on_output(self, output, now).await
    }

    async fn on_local(&mut self, local: Local<i64>, now: Instant) {
        match (self.lane).handle_local(local, now, &*self.platform) {
            Some(output) => PacedOutbox::on_output(self, output, now).await,
            None => self.run(now).await,
        }
    }

    async fn on_done(&mut self, done: Done, now: Instant) {
        self.lane.handle_done(done, now, &*self.platform);
        self.run(now).await;
    }

    fn transmit(&mut self, now: Instant) {
        PacedOutbox::transmit(self, now);
    }

    fn next_wake(&self, now: Instant) -> Option<Instant> {
        self.lane.poll_timeout().map(|t| t.unwrap_or(now))
    }

    /// Whether nothing waits to go out.
    fn idle(&self) -> bool {
        self.lane.idle() && self.done_rx.is_empty()
    }

    fn finished(&mut self) -> &mut mpsc::UnboundedReceiver<Done> {
        &mut self.done_rx
    }

    /// Records what each message shows, for the next start.
    async fn save_shown(&self) {
        let service = self.platform.front().service();
        let rows = self.lane.shown_rows().into_iter();
        let rows = rows.map(|(t, chat, hash)| (t, chat.to_string(), hash));
        service::save_shown(service, P::PLATFORM, rows.collect()).await;
        // What the store refused, once more: news sent, and ids a start
        // edits.
        for (table, a) in self.lane.unforgotten() {
            service::forget_owed(service, P::PLATFORM, *table, a).await;
        }
        for (table, chat, message, hash) in self.lane.unsaved_refs() {
            let (row, id) = (chat.to_string(), i64::try_from(message).ok());
            service::save_message_ref(service, P::PLATFORM, (table, &row), id, hash).await;
        }
    }
}
