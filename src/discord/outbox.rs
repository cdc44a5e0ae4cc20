//! The service's outputs as Discord REST calls.
//!
//! One public message per table, edited in place: at most one call per
//! table in flight and only the newest state is sent (latest wins);
//! twilight's rate limiter reads Discord's headers and holds a request
//! until its route's bucket allows it, so a 429 delays only that route.
//! Hands are edited through the player's newest interaction token while
//! Discord keeps it; a refused (expired) token is forgotten and the table
//! message then asks the person to press "My hand" again. Message ids are
//! kept through the service, so a restart edits the same messages.
//!
//! The live table stays where people look: when a deal starts (the
//! series' first and every next one) and when other people's chat has
//! buried it ([`crate::delivery::burial`]: messages below it, counted from
//! the gateway's MESSAGE_CREATE), the next render posts
//! it anew at the bottom, after the announcements that came with it, and
//! the old message is edited once to keep its text without its buttons.
//! Over the HTTP interactions endpoint alone (no gateway events) only the
//! first of the two would apply; kozyr keeps its gateway connection in
//! both modes.
//!
//! The neutral decisions are [`crate::delivery`]'s, made by its
//! [`Engine`]: for table messages, their turn pings and hands — latest
//! wins per message (one call in flight, the newest state next), what a
//! failed call means and what follows it ([`crate::delivery::transport`]:
//! a 5xx or 429 retried after a pause, a gone message posted anew, an
//! expired token forgotten, a closed channel stopping its table),
//! announcements before the next render ([`News`] holds them until it
//! comes), what a table message shows as one [`crate::delivery::content`]
//! hash recorded in the store as it changes (made unknown before each call
//! that changes it, written after), and who is told that it is their turn
//! (a person quiet for the quiet time, or whose hand cannot be edited —
//! its token is gone — when their turn comes; not a turn a start finds
//! running), by one mention that notifies: the table message's own when it
//! is posted anew, else a ping message naming only them, which goes once
//! the turn passes (at once if it lands after). This outbox renders a
//! state when the engine asks, runs each [`Job`]'s calls in order on a
//! task of its own, makes the engine's store writes and reports what
//! happened. Each hand's token is kept here with what its hand shows, so a
//! restart — even after a kill — re-sends nothing already shown and keeps
//! editing every open hand.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use twilight_http::error::Error as HttpError;
use twilight_model::channel::message::{AllowedMentions, MessageFlags};
use twilight_model::id::Id;
use twilight_model::id::marker::{ChannelMarker, MessageMarker, UserMarker};

use super::calls::classify;
use super::hands::{hand_message, hash_of, no_mentions};
use super::ids;
use super::markup::{self, Message};
use super::shared::{Local, Shared, lock};
use crate::delivery::engine::{
    self, Engine, Job, Outcome, PingJob, Rendered, StoreWrite, Strip, TableCall, TableDone,
    TableJob,
};
use crate::delivery::news::News;
use crate::delivery::restore::orphans;
use crate::delivery::transport::{self, Failure};
use crate::front::action::Press;
use crate::front::outputs;
use crate::i18n::{Args, key, tr};
use crate::outlet::jobs::{self, TableCalls};
use crate::outlet::service::{self, forget_owed, restore};
use crate::table::Platform::Discord;
use crate::table::{
    ChatKey, HandView, Output, Phase, Platform, SeatState, TableId, TableView, UserId,
};

/// How long an outbox edit of a hand waits for an answer to a press on it
/// to go first; past this it goes anyway.
const HAND_EDIT_WAIT: Duration = Duration::from_secs(5);

/// The table messages as the engine sees them: the message and whom it
/// mentions.
type TableOut = (Message, Vec<Id<UserMarker>>);

/// A finished call.
pub enum Done {
    Table(TableDone),
    /// A turn ping was posted (or not).
    Ping(PingJob, Option<u64>),
    /// A store write the engine asked for, and whether it landed.
    Stored(StoreWrite, bool),
    Hand {
        user: UserId,
        table: TableId,
        /// The state the call was to show.
        sent: Box<HandView>,
        /// The token it went through.
        token: String,
        failed: Option<Failure>,
    },
}

pub struct Outbox {
    shared: Arc<Shared>,
    /// Every decision about the table messages, their pings and the hands.
    engine: Engine<TableOut, Message>,
    /// Announcements waiting for the table's next render, which follows
    /// them in the same batch of outputs: worded with the state after.
    news: News,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
    in_flight: usize,
}

impl Outbox {
    /// `turn_alerts`: how long a person is quiet before their turn pings
    /// them (`None`: only those whose hand cannot be edited).
    pub async fn new(shared: Arc<Shared>, turn_alerts: Option<Duration>, now: Instant) -> Outbox {
        // The start: everyone counts as seen.
        let mut engine = Engine::new(turn_alerts, now);
        let life = shared.tokens.life();
        let restored = restore(shared.front.service(), Platform::Discord, Some(life)).await;
        // A table posted anew just before a kill, or whose first post's id
        // a kill kept from the store: the message found shows it now.
        let look = |table, chat: String, recorded: Option<u64>| {
            let shared = &*shared;
            async move {
                let channel = chat.strip_prefix("discord:")?.parse().ok();
                let channel = Id::new_checked(channel?)?;
                let recorded = recorded.and_then(Id::new_checked);
                let found = adopt_lost_post(shared, table, channel, recorded).await;
                found.map(Id::get)
            }
        };
        let service = shared.front.service();
        let lost = service::find_lost_posts(service, Discord, &restored, look).await;
        let messages =
            (restored.messages.into_iter()).map(|(t, c, m)| (t, c, u64::try_from(m).unwrap_or(0)));
        for (table, _chat, message) in messages.chain(lost) {
            if message != 0 {
                engine.restore_message(table, message);
                shared.set_live(table, message);
            }
        }
        // What the messages show, as recorded: the first render that
        // matches is not sent again.
        engine.restore_shown(restored.shown);
        // Hands opened before the stop stay editable while their tokens last.
        for (row, age) in restored.tokens {
            shared.tokens.restore(row, age, now);
        }
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let mut outbox = Outbox {
            shared,
            engine,
            news: News::default(),
            done_tx,
            done_rx,
            in_flight: 0,
        };
        outbox.take_owed(now).await;
        outbox
    }

    /// What a kill or a failed post left unposted
    /// ([`service::take_owed`]); a closed table's announcements are posted
    /// with its last view now.
    async fn take_owed(&mut self, now: Instant) {
        let service = self.shared.front.service().clone();
        for view in service::take_owed(&service, Platform::Discord, &mut self.news).await {
            self.on_output(Output::RenderTable(Box::new(view)), now);
        }
    }

    fn on_output(&mut self, output: Output, now: Instant) {
        match output {
            Output::RenderTable(view) => self.render_table(*view, false, now),
            Output::RenderHand(hand) => {
                if ids::user_of(&hand.player.id).is_none() {
                    return;
                }
                self.engine.handle_hand(*hand);
            }
            Output::DropHand { table, user, .. } => {
                self.engine.handle_gone(&user, table);
                self.shared.tokens.forget(&user, table, None);
            }
            Output::Announce {
                chat,
                table,
                announcement,
            } => {
                if ids::channel_of(&chat).is_some() {
                    self.news.hold(table, announcement);
                }
            }
            Output::Remind(spec) => {
                if ids::channel_of(&spec.chat).is_none() {
                    return;
                }
                for (player, screen) in self.shared.front.reminders(&spec) {
                    let Some(t) = self.shared.tokens.fresh(&player.id, spec.table, now) else {
                        continue;
                    };
                    let shared = self.shared.clone();
                    let m = markup::public(&screen, None, None);
                    tokio::spawn(async move {
                        let client = shared.http.interaction(shared.app);
                        let mentions = no_mentions();
                        let r = client
                            .create_followup(&t.token)
                            .content(&m.content)
                            .flags(MessageFlags::EPHEMERAL)
                            .allowed_mentions(Some(&mentions))
                            .await;
                        super::calls::record("create_followup", &r);
                        if let Err(e) = r {
                            tracing::debug!(error = %e, "a reminder failed");
                        }
                    });
                }
            }
        }
    }

    /// A table's new state for the engine, with the announcements held
    /// for it; `bring`: it is posted anew at the bottom.
    fn render_table(&mut self, view: TableView, bring: bool, now: Instant) {
        if ids::channel_of(&view.chat).is_none() {
            return;
        }
        let id = view.id;
        let due = self.news.take(id);
        let starts = due.repost;
        let leaves_lobby = due.leaves_lobby;
        let mut worded = Vec::new();
        for a in due.announcements {
            let owed = a.is_owed().then(|| a.clone());
            match self.shared.front.announcement(&view, &a) {
                Some(screen) => worded.push((markup::public(&screen, None, None), owed)),
                // Nothing to say: owed no more.
                None if owed.is_some() => {
                    let service = self.shared.front.service().clone();
                    tokio::spawn(async move { forget_owed(&service, Discord, id, &a).await });
                }
                None => {}
            }
        }
        let started = leaves_lobby.then_some(view.settings.lang);
        let shared = &self.shared;
        let unseen = |u: &UserId| shared.tokens.fresh(u, id, now).is_none();
        self.engine
            .handle_render(view, worded, starts || bring, started, unseen, now);
    }

    /// The public message of `view`: the table, whose turn it is (they are
    /// mentioned, and only they), and the "My hand" button in play.
    /// Also: the turn lines of the people awaited whom the turn alerts
    /// tell, who get a new message that pings them — a mention added by an
    /// edit notifies no one.
    fn table_message(
        shared: &Shared,
        alerted: &HashSet<UserId>,
        view: &TableView,
        now: Instant,
    ) -> (Message, Vec<Id<UserMarker>>, Vec<(u64, String)>) {
        let screen = shared.front.table_screen(view);
        let lang = view.settings.lang;
        let mut lines = Vec::new();
        let mut pinged = Vec::new();
        let mut away = Vec::new();
        if view.phase == Phase::Playing {
            for &seat in &view.awaiting {
                let SeatState::Person {
                    player,
                    away: false,
                } = &view.seats[seat]
                else {
                    continue;
                };
                let Some(u) = ids::user_of(&player.id) else {
                    continue;
                };
                let mut line = format!(
                    "<@{}> — {}",
                    u.get(),
                    tr(lang, key::DISCORD_YOUR_TURN, &Args::new())
                );
                if shared.tokens.fresh(&player.id, view.id, now).is_none() {
                    line.push_str(": ");
                    line.push_str(&tr(lang, key::DISCORD_PRESS_MY_HAND, &Args::new()));
                }
                if alerted.contains(&player.id) {
                    away.push((u.get(), line.clone()));
                }
                lines.push(line);
                pinged.push(u);
            }
        }
        let extra = (!lines.is_empty()).then(|| lines.join("\n"));
        let hand_button = matches!(view.phase, Phase::Playing | Phase::Finished).then(|| {
            (
                tr(lang, key::DISCORD_MY_HAND, &Args::new()),
                markup::my_hand_id(view.id),
            )
        });
        let m = markup::public(
            &screen,
            extra.as_deref(),
            hand_button.as_ref().map(|(l, id)| (l.as_str(), id.clone())),
        );
        (m, pinged, away)
    }

    /// Edits a person's hand through their newest token, on a task of its
    /// own.
    fn run_hand(&mut self, hand: HandView, now: Instant) {
        let key = (hand.player.id.clone(), hand.table);
        let Some(token) = self.shared.tokens.fresh(&key.0, key.1, now) else {
            // No open hand to edit: "My hand" draws it anew.
            self.engine.handle_hand_done(hand, None, now);
            return;
        };
        let shared = self.shared.clone();
        let done = self.done_tx.clone();
        self.in_flight += 1;
        tokio::spawn(async move {
            let mut failed = None;
            // An answer to a press on this hand goes first: then the token
            // read below is its newest, with what the message shows.
            let turn = shared.tokens.turn(&key.0, key.1, HAND_EDIT_WAIT).await;
            let token = shared.tokens.fresh(&key.0, key.1, now).unwrap_or(token);
            // The newest state, whatever the output carried: edits of one
            // hand may overtake each other on the way.
            let hand = match shared.front.service().hand_of(key.1, &key.0).await {
                Ok(Some(h)) => h,
                _ => hand,
            };
            if let Some(m) = hand_message(&shared, &hand).await {
                let place = (&key.0, key.1);
                let http = &shared.http;
                let app = shared.app;
                failed = shared
                    .tokens
                    .edit(place, &token, hash_of(&m), |token| async move {
                        let client = http.interaction(app);
                        let r = client
                            .update_response(&token)
                            .content(Some(&m.content))
                            .components(Some(&m.components))
                            .allowed_mentions(Some(&no_mentions()))
                            .await;
                        super::calls::record("update_response", &r);
                        r.map(|_| ()).map_err(|e| {
                            tracing::debug!(error = %e, "editing a hand failed");
                            classify(&e)
                        })
                    })
                    .await;
            }
            drop(turn);
            let _ = done.send(Done::Hand {
                user: key.0,
                table: key.1,
                sent: Box::new(hand),
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
                user,
                table,
                sent,
                token,
                failed,
            } => {
                let forget = self.engine.handle_hand_done(*sent, failed, now);
                if forget && self.shared.tokens.forget(&user, table, Some(&token)) {
                    // Their hand can no longer be edited: the table message
                    // tells them to press "My hand" when it is their turn.
                    if let Ok(Some(view)) = self.shared.front.service().table_view(table).await {
                        let shared = &self.shared;
                        let unseen = |u: &UserId| shared.tokens.fresh(u, table, now).is_none();
                        self.engine
                            .handle_render(view, Vec::new(), false, None, unseen, now);
                    }
                }
            }
        }
    }
}

impl Outbox {
    /// Carries out what the engine decided: its jobs, each on a task of
    /// its own, and its store writes.
    fn pump(&mut self, now: Instant) {
        // A job done at once (a hand with no token) may make another.
        loop {
            let mut jobs = Vec::new();
            let shared = &self.shared;
            while let Some(job) = self
                .engine
                .poll_job(now, |v, alerted| render(shared, alerted, v, now))
            {
                jobs.push(job);
            }
            if jobs.is_empty() {
                break;
            }
            self.run_jobs(jobs, now);
        }
        while let Some(write) = self.engine.poll_store() {
            let shared = self.shared.clone();
            let done = self.done_tx.clone();
            self.in_flight += 1;
            tokio::spawn(async move {
                let service = shared.front.service();
                let chat_gone = async |chat: ChatKey| shared.front.chat_gone(&chat).await;
                let landed = jobs::store((service, Discord), &write, chat_gone).await;
                let _ = done.send(Done::Stored(write, landed));
            });
        }
    }

    fn run_jobs(&mut self, jobs: Vec<Job<TableOut, Message>>, now: Instant) {
        for job in jobs {
            match job {
                Job::Table(job) => self.run_table(job),
                Job::Hand(hand) => self.run_hand(*hand, now),
                Job::Ping(job) => {
                    let shared = self.shared.clone();
                    let done = self.done_tx.clone();
                    self.in_flight += 1;
                    tokio::spawn(async move {
                        let posted = jobs::run_ping(&*shared, &job).await;
                        let _ = done.send(Done::Ping(job, posted));
                    });
                }
                Job::DeletePing { chat, message } => {
                    let shared = self.shared.clone();
                    tokio::spawn(async move { shared.delete(&chat, message).await });
                }
            }
        }
    }

    /// One table's job: its calls in order, on a task of its own.
    fn run_table(&mut self, job: TableJob<TableOut, Message>) {
        let Some(channel) = ids::channel_of(&job.chat) else {
            return;
        };
        if job.closed {
            self.shared.forget_table(job.table);
            // Nothing more to keep in view, unless another table of the
            // channel still is.
            if job.last_in_chat {
                lock(&self.shared.burials).unwatch(channel.get());
            }
        }
        if matches!(job.call, TableCall::Post { strip: Some(_), .. }) {
            tracing::debug!(table = job.table.0, "posting the table anew at the bottom");
        }
        let shared = self.shared.clone();
        let done = self.done_tx.clone();
        self.in_flight += 1 + usize::from(job.ping.is_some());
        tokio::spawn(async move {
            let service = shared.front.service();
            let pinged = |ping, posted| {
                let _ = done.send(Done::Ping(ping, posted));
            };
            let table = jobs::run_table(&*shared, (service, Discord), job, pinged).await;
            let _ = done.send(Done::Table(table));
        });
    }

    /// Records what each table message shows, for the next start.
    async fn save_shown(&self) {
        let rows = self.engine.shown_rows();
        service::save_shown(self.shared.front.service(), Discord, rows).await;
    }
}

/// A table's state as its message shows it, for the engine.
fn render(
    shared: &Shared,
    alerted: &HashSet<UserId>,
    view: &TableView,
    now: Instant,
) -> Rendered<TableOut> {
    let channel = ids::channel_of(&view.chat).map(Id::get);
    // Chat counts from the table message's post; after a restart, from
    // now (what came before is unknown).
    let buried = channel.is_some_and(|c| {
        let mut burials = lock(&shared.burials);
        burials.watch(c);
        burials.is_buried(c)
    });
    let (m, pinged, alerted) = Outbox::table_message(shared, alerted, view, now);
    Rendered {
        hash: hash_of(&m),
        message: (m, pinged),
        alerted,
        buried,
    }
}

/// Looks in `channel` for `table`'s messages that a kill kept from the
/// store, and settles them as [`orphans`] decides: the newest is the
/// table's message (returned), the others go.
///
/// With `recorded`, a post anew after that message: the messages from it
/// on that carry the table's "My hand" button count, and the recorded one
/// loses its buttons. Without, a first post, never recorded: the channel's
/// newest messages that carry any button of the table count.
async fn adopt_lost_post(
    shared: &Shared,
    table: TableId,
    channel: Id<ChannelMarker>,
    recorded: Option<Id<MessageMarker>>,
) -> Option<Id<MessageMarker>> {
    let r = match recorded {
        // `after` leaves out the id it names: from the recorded one on.
        Some(rec) => {
            let after = Id::new_checked(rec.get() - 1)?;
            let list = shared.http.channel_messages(channel);
            list.after(after).limit(100).await
        }
        None => shared.http.channel_messages(channel).limit(50).await,
    };
    super::calls::record("channel_messages", &r);
    let messages = match r {
        Ok(r) => r.models().await.ok()?,
        Err(e) => {
            tracing::debug!(error = %e, "cannot look for a table's lost posts");
            return None;
        }
    };
    let my_hand = format!("\"{}\"", markup::my_hand_id(table));
    let carries = |m: &twilight_model::channel::Message| match recorded {
        Some(_) => serde_json::to_string(&m.components).is_ok_and(|j| j.contains(&my_hand)),
        None => serde_json::to_value(&m.components).is_ok_and(|v| names_table(&v, table)),
    };
    let found: Vec<u64> = messages
        .iter()
        .filter(|m| shared.is_bot(m.author.id.get()) && carries(m))
        .map(|m| m.id.get())
        .collect();
    let settle = orphans(recorded.map_or(0, Id::get), &found);
    let adopt = Id::new_checked(settle.adopt?)?;
    tracing::info!(
        table = table.0,
        recorded = recorded.map(Id::get),
        adopted = adopt.get(),
        removed = settle.delete.len(),
        "a table message posted before the last stop, its id never kept, was found: it shows the table"
    );
    for id in settle.delete.into_iter().filter_map(Id::new_checked) {
        let r = shared.http.delete_message(channel, id).await;
        super::calls::record("delete_message", &r);
    }
    if let Some(old) = settle.strip.and_then(Id::new_checked) {
        strip(shared, channel, old, None).await;
    }
    Some(adopt)
}

/// Whether components (as JSON) hold a button of `table`: "My hand", or
/// a press of the table (a lobby's Join, a game's buttons).
fn names_table(v: &serde_json::Value, table: TableId) -> bool {
    match v {
        serde_json::Value::Array(items) => items.iter().any(|i| names_table(i, table)),
        serde_json::Value::Object(map) => map.iter().any(|(k, v)| match (k.as_str(), v) {
            ("custom_id", serde_json::Value::String(id)) => {
                markup::parse_my_hand(id) == Some(table)
                    || matches!(Press::parse(id), Ok(Press::Table { table: t, .. }) if t == table)
            }
            _ => names_table(v, table),
        }),
        _ => false,
    }
}

/// The old table message after the table was posted anew: it keeps its
/// text (or says `said` instead) and loses its buttons (one edit; a
/// refusal leaves it as it was, its buttons then answer as out of date).
async fn strip(
    shared: &Shared,
    channel: Id<ChannelMarker>,
    old: Id<MessageMarker>,
    said: Option<String>,
) {
    let mut edit = shared
        .http
        .update_message(channel, old)
        .components(Some(&[]));
    if let Some(text) = &said {
        edit = edit.content(Some(text));
    }
    let r = edit.await;
    super::calls::record("update_message", &r);
    if let Err(e) = r {
        tracing::debug!(error = %e, failure = ?classify(&e), "the old table message keeps its buttons");
    }
}

/// Posts `m` in `channel`; the new message's id, when Discord's answer
/// could be read.
async fn post(
    shared: &Shared,
    channel: Id<ChannelMarker>,
    m: &Message,
    mentions: &AllowedMentions,
) -> Result<Option<Id<MessageMarker>>, HttpError> {
    let r = shared
        .http
        .create_message(channel)
        .content(&m.content)
        .components(&m.components)
        .allowed_mentions(Some(mentions))
        .await;
    super::calls::record("create_message", &r);
    match r?.model().await {
        Ok(msg) => Ok(Some(msg.id)),
        Err(e) => {
            tracing::warn!(error = %e, "cannot read a posted message");
            Ok(None)
        }
    }
}

/// Discord's calls for the engine's jobs ([`jobs`]).
impl TableCalls for Shared {
    type Table = TableOut;
    type News = Message;

    async fn post(&self, chat: &ChatKey, (m, pinged): &TableOut) -> Result<Option<u64>, Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        let mentions = AllowedMentions {
            users: pinged.clone(),
            ..AllowedMentions::default()
        };
        let r = post(self, channel, m, &mentions).await;
        r.map(|id| id.map(Id::get)).map_err(|e| {
            tracing::warn!(error = %e, "posting a table message failed");
            classify(&e)
        })
    }

    async fn edit(
        &self,
        chat: &ChatKey,
        message: u64,
        (m, pinged): &TableOut,
    ) -> Result<(), Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        // No message to edit: the engine posts it anew.
        let id = Id::new_checked(message).ok_or(Failure::MessageGone)?;
        let mentions = AllowedMentions {
            users: pinged.clone(),
            ..AllowedMentions::default()
        };
        let r = self
            .http
            .update_message(channel, id)
            .content(Some(&m.content))
            .components(Some(&m.components))
            .allowed_mentions(Some(&mentions))
            .await;
        super::calls::record("update_message", &r);
        r.map(drop).map_err(|e| {
            let f = classify(&e);
            let shown = engine::shows(&Outcome::Failed(f, transport::Call::Edit));
            if !shown && !engine::post_anew(f) {
                tracing::warn!(error = %e, "editing a table message failed");
            }
            f
        })
    }

    async fn strip(&self, chat: &ChatKey, old: Strip) {
        let (Some(channel), Some(old_id)) = (ids::channel_of(chat), Id::new_checked(old.message))
        else {
            return;
        };
        let said = old
            .started
            .map(|lang| markup::public(&outputs::lobby_started(lang), None, None).content);
        strip(self, channel, old_id, said).await;
    }

    async fn announce(&self, chat: &ChatKey, n: &Message) -> Result<(), Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        let r = post(self, channel, n, &no_mentions()).await;
        r.map(drop).map_err(|e| {
            tracing::warn!(error = %e, "an announcement failed");
            classify(&e)
        })
    }

    async fn ping(
        &self,
        chat: &ChatKey,
        who: &[u64],
        lines: &[String],
    ) -> Result<Option<u64>, Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        let mentions = AllowedMentions {
            users: who.iter().filter_map(|u| Id::new_checked(*u)).collect(),
            ..AllowedMentions::default()
        };
        let m = Message {
            content: markup::clip(lines.join("\n")),
            components: Vec::new(),
        };
        let r = post(self, channel, &m, &mentions).await;
        r.map(|id| id.map(Id::get)).map_err(|e| {
            tracing::warn!(error = %e, "a turn ping failed");
            classify(&e)
        })
    }

    async fn delete(&self, chat: &ChatKey, message: u64) {
        let (Some(channel), Some(id)) = (ids::channel_of(chat), Id::new_checked(message)) else {
            return;
        };
        let r = self.http.delete_message(channel, id).await;
        super::calls::record("delete_message", &r);
        if let Err(e) = r {
            tracing::debug!(error = %e, "removing a turn ping failed");
        }
    }

    fn posted(&self, table: TableId, chat: &ChatKey, message: u64) {
        self.set_live(table, message);
        // Chat below the table counts from here.
        if let Some(channel) = ids::channel_of(chat) {
            lock(&self.burials).reset(channel.get());
        }
    }
}

impl crate::outlet::Outbox for Outbox {
    type Local = Local;
    type Done = Done;

    async fn on_output(&mut self, output: Output, now: Instant) {
        Outbox::on_output(self, output, now)
    }

    async fn on_local(&mut self, local: Local, now: Instant) {
        match local {
            Local::Output(o) => Outbox::on_output(self, o, now),
            Local::Acted(user) => self.engine.handle_activity(&user, now),
            // Posted anew by the render's job, or by the next one when a
            // job of the table is in flight.
            Local::BringTable(view) => self.render_table(*view, true, now),
        }
    }

    async fn on_done(&mut self, done: Done, now: Instant) {
        Outbox::on_done(self, done, now).await
    }

    /// Calls go out as soon as they are made (twilight holds each until
    /// its route's bucket allows it); what waits here is a call failed for
    /// now, tried again after its pause.
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

    async fn save_shown(&self) {
        Outbox::save_shown(self).await
    }
}
