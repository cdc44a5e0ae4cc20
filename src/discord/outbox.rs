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
//! buried it ([`BURIED_AFTER`] messages below it, counted from the
//! gateway's MESSAGE_CREATE by [`Shared::chatter`]), the next render posts
//! it anew at the bottom, after the announcements that came with it, and
//! the old message is edited once to keep its text without its buttons.
//! Over the HTTP interactions endpoint alone (no gateway events) only the
//! first of the two would apply; kozyr keeps its gateway connection in
//! both modes.
//!
//! The neutral decisions are [`crate::delivery`]'s: announcements wait for
//! the next render ([`News`]), what a message shows is one
//! [`crate::delivery::content`] hash, kept over a graceful restart as
//! Telegram's are, so a restart re-sends nothing already shown. A turn is
//! announced by one mention that notifies: the table message's own when it
//! is posted anew, else a ping message, which goes once the turn passes.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use twilight_http::api_error::ApiError;
use twilight_http::error::{Error as HttpError, ErrorType};
use twilight_model::channel::message::{AllowedMentions, MessageFlags};
use twilight_model::id::Id;
use twilight_model::id::marker::{ChannelMarker, MessageMarker, UserMarker};

use super::hands::{hand_message, hash_of, no_mentions};
use super::ids;
use super::markup::{self, Message};
use super::shared::{Local, Shared};
use crate::delivery::news::News;
use crate::delivery::restore::restore;
use crate::front::outputs;
use crate::i18n::{Args, key, tr};
use crate::table::{HandView, Output, Phase, Platform, SeatState, TableId, TableView, UserId};

/// Other people's messages below the table message after which it counts
/// as buried: its next render posts it anew at the bottom. A Discord window
/// shows some 15–20 short chat lines, so past this the table and its
/// buttons have scrolled out of sight. Not fewer: a repost costs two calls
/// (the new message, the old one's buttons removed) instead of one edit,
/// and a lively channel would get a new table message at nearly every move.
pub const BURIED_AFTER: u32 = 15;

/// How long an outbox edit of a hand waits for an answer to a press on it
/// to go first; past this it goes anyway.
const HAND_EDIT_WAIT: Duration = Duration::from_secs(5);

/// A call sequenced into another task rather than spawned.
type Work = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Discord's error codes that matter here.
const UNKNOWN_MESSAGE: u64 = 10008;
const UNKNOWN_WEBHOOK: u64 = 10015;
const INVALID_WEBHOOK_TOKEN: u64 = 50027;
/// "Maximum number of edits to messages older than 1 hour reached."
const OLD_MESSAGE_EDITS: u64 = 30046;

fn api_code(e: &HttpError) -> Option<u64> {
    match e.kind() {
        ErrorType::Response {
            error: ApiError::General(g),
            ..
        } => Some(g.code),
        _ => None,
    }
}

fn status(e: &HttpError) -> Option<u16> {
    match e.kind() {
        ErrorType::Response { status, .. } => Some(status.get()),
        _ => None,
    }
}

/// A finished call.
pub enum Done {
    Table {
        table: TableId,
        posted: Option<Id<MessageMarker>>,
        gone: bool,
        /// A repost that did not happen: the next render tries again.
        repost_failed: bool,
    },
    Hand {
        user: UserId,
        table: TableId,
        expired: bool,
    },
    /// A turn ping was posted (or not).
    Ping {
        table: TableId,
        channel: Id<ChannelMarker>,
        /// Which ping of the table it was ([`Ping::generation`]).
        generation: u64,
        posted: Option<Id<MessageMarker>>,
    },
}

#[derive(Default)]
struct Slot {
    message: Option<Id<MessageMarker>>,
    latest: Option<TableView>,
    busy: bool,
    /// The last content sent, to skip edits that change nothing.
    shown: Option<i64>,
    /// The table's chat key, as its message id is kept under.
    chat: Option<String>,
    /// The next repost follows the lobby turning into the game: the old
    /// message says so, in this language, instead of keeping "can start".
    started: Option<crate::i18n::Lang>,
    /// Announcements, worded with the state after them, to post before the
    /// table's next call (so a reposted table comes below them).
    news: Vec<Message>,
    /// The next call posts the table anew: a deal starts.
    repost: bool,
    /// The table's channel, once rendered.
    channel: Option<Id<ChannelMarker>>,
}

/// A table's turn ping.
#[derive(Default)]
struct Ping {
    /// Who the current turn's mention named.
    who: Vec<u64>,
    /// The ping message, once posted.
    message: Option<Id<MessageMarker>>,
    /// Bumped by every change of `who`: a ping that lands after a newer
    /// one started is out of date, and goes.
    generation: u64,
}

#[derive(Default)]
struct HandSlot {
    latest: Option<HandView>,
    busy: bool,
}

pub struct Outbox {
    shared: Arc<Shared>,
    tables: HashMap<TableId, Slot>,
    hands: HashMap<(UserId, TableId), HandSlot>,
    /// Per table: who the last turn ping named, and its message.
    pings: HashMap<TableId, Ping>,
    /// Announcements waiting for the table's next render, which follows
    /// them in the same batch of outputs: worded with the state after.
    news: News,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
    in_flight: usize,
}

impl Outbox {
    pub async fn new(shared: Arc<Shared>) -> Outbox {
        let mut tables: HashMap<TableId, Slot> = HashMap::new();
        let restored = restore(shared.front.service(), Platform::Discord).await;
        for (table, _chat, message) in restored.messages {
            if let Some(m) = u64::try_from(message).ok().and_then(Id::new_checked) {
                tables.entry(table).or_default().message = Some(m);
                shared.set_live(table, m.get());
            }
        }
        // What the messages showed at the last graceful stop: the first
        // render that matches is not sent again.
        for (table, chat, hash) in restored.shown {
            if let Some(slot) = tables.get_mut(&table) {
                slot.shown = Some(hash);
                slot.chat = Some(chat);
            }
        }
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Outbox {
            shared,
            tables,
            hands: HashMap::new(),
            pings: HashMap::new(),
            news: News::default(),
            done_tx,
            done_rx,
            in_flight: 0,
        }
    }

    fn on_output(&mut self, output: Output) {
        match output {
            Output::RenderTable(view) => {
                if ids::channel_of(&view.chat).is_none() {
                    return;
                }
                let id = view.id;
                let due = self.news.take(id);
                let starts = due.repost;
                let leaves_lobby = due.leaves_lobby;
                let worded: Vec<Message> = due
                    .announcements
                    .iter()
                    .filter_map(|a| self.shared.front.announcement(&view, a))
                    .map(|screen| markup::public(&screen, None, None))
                    .collect();
                let slot = self.tables.entry(id).or_default();
                slot.news.extend(worded);
                slot.repost |= starts;
                if leaves_lobby {
                    slot.started = Some(view.settings.lang);
                }
                slot.latest = Some(*view);
                self.kick_table(id);
            }
            Output::RenderHand(hand) => {
                if ids::user_of(&hand.player.id).is_none() {
                    return;
                }
                let key = (hand.player.id.clone(), hand.table);
                self.hands.entry(key.clone()).or_default().latest = Some(*hand);
                self.kick_hand(key);
            }
            Output::DropHand { table, user, .. } => {
                self.hands.remove(&(user.clone(), table));
                self.shared.forget_hand(&user, table, None);
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
                    let Some(t) = self.shared.fresh_token(&player.id, spec.table) else {
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

    /// The public message of `view`: the table, whose turn it is (they are
    /// mentioned, and only they), and the "My hand" button in play.
    /// Also: the turn lines of the people awaited whose hand is not open
    /// (no live token), who get a new message that pings them — a mention
    /// added by an edit notifies no one.
    fn table_message(
        &self,
        view: &TableView,
    ) -> (Message, Vec<Id<UserMarker>>, Vec<(u64, String)>) {
        let screen = self.shared.front.table_screen(view);
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
                if self.shared.fresh_token(&player.id, view.id).is_none() {
                    line.push_str(": ");
                    line.push_str(&tr(lang, key::DISCORD_PRESS_MY_HAND, &Args::new()));
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

    /// Pings the people awaited whose hand is not open with a new message
    /// (the previous ping goes), once per change of who they are. The work
    /// is returned for the caller to run: spawned beside an edit, or in
    /// order before a table posted anew, which then stays the newest.
    ///
    /// A table message posted anew (`posting`) mentions them itself, and a
    /// new message notifies: a ping too would tell them twice.
    fn ping(
        &mut self,
        table: TableId,
        channel: Id<ChannelMarker>,
        away: Vec<(u64, String)>,
        closed: bool,
        posting: bool,
    ) -> Option<Work> {
        let who: Vec<u64> = if closed {
            Vec::new()
        } else {
            away.iter().map(|(u, _)| *u).collect()
        };
        let last = self.pings.entry(table).or_default();
        if last.who == who {
            return None;
        }
        last.who = who.clone();
        last.generation += 1;
        let generation = last.generation;
        let old = last.message.take();
        let post_new = !who.is_empty() && !posting;
        if old.is_none() && !post_new {
            return None;
        }
        let shared = self.shared.clone();
        let done = self.done_tx.clone();
        self.in_flight += 1;
        Some(Box::pin(async move {
            if let Some(old) = old {
                let r = shared.http.delete_message(channel, old).await;
                super::calls::record("delete_message", &r);
                if let Err(e) = r {
                    tracing::debug!(error = %e, "removing a turn ping failed");
                }
            }
            let mut posted = None;
            if post_new {
                let mentions = AllowedMentions {
                    users: who.iter().filter_map(|u| Id::new_checked(*u)).collect(),
                    ..AllowedMentions::default()
                };
                let m = Message {
                    content: markup::clip(
                        away.iter()
                            .map(|(_, l)| l.as_str())
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ),
                    components: Vec::new(),
                };
                match post(&shared, channel, &m, &mentions).await {
                    Ok(id) => posted = id,
                    Err(e) => tracing::warn!(error = %e, "a turn ping failed"),
                }
            }
            let _ = done.send(Done::Ping {
                table,
                channel,
                generation,
                posted,
            });
        }))
    }

    fn kick_table(&mut self, table: TableId) {
        let Some(slot) = self.tables.get_mut(&table) else {
            return;
        };
        if slot.busy {
            return;
        }
        let Some(view) = slot.latest.take() else {
            return;
        };
        let Some(channel) = ids::channel_of(&view.chat) else {
            return;
        };
        slot.channel = Some(channel);
        slot.chat = Some(view.chat.to_string());
        let message = slot.message;
        let shown = slot.shown;
        let closed = view.phase == Phase::Closed;
        // Chat counts from the table message's post; after a restart, from
        // now (what came before is unknown).
        self.shared.watch_channel(channel.get());
        let buried = !closed && self.shared.chatter(channel.get()) >= BURIED_AFTER;
        let repost = message.is_some() && (slot.repost || buried);
        slot.repost = false;
        let started = if repost { slot.started.take() } else { None };
        let news = std::mem::take(&mut slot.news);
        let (m, pinged, away) = self.table_message(&view);
        let ping = self.ping(table, channel, away, closed, message.is_none() || repost);
        let h = hash_of(&m);
        // A table posted anew goes below its ping, so it stays the newest.
        let ping = match ping {
            Some(work) if !repost => {
                tokio::spawn(work);
                None
            }
            p => p,
        };
        if shown == Some(h) && message.is_some() && news.is_empty() && !repost {
            return;
        }
        if let Some(slot) = self.tables.get_mut(&table) {
            slot.busy = true;
            slot.shown = Some(h);
        }
        if closed {
            self.shared.forget_table(table);
            // Nothing more to keep in view, unless another table of the
            // channel still is.
            let shared_channel = self
                .tables
                .iter()
                .any(|(t, s)| *t != table && s.channel == Some(channel));
            if !shared_channel {
                self.shared.unwatch_channel(channel.get());
            }
        }
        if repost {
            tracing::debug!(?table, buried, "posting the table anew at the bottom");
        }
        let shared = self.shared.clone();
        let done = self.done_tx.clone();
        self.in_flight += 1;
        tokio::spawn(async move {
            // What happened before the table's new state is said first.
            for n in &news {
                if let Err(e) = post(&shared, channel, n, &no_mentions()).await {
                    tracing::warn!(error = %e, "an announcement failed");
                }
            }
            if let Some(work) = ping {
                work.await;
            }
            let mentions = AllowedMentions {
                users: pinged,
                ..AllowedMentions::default()
            };
            let mut posted = None;
            let mut gone = false;
            let mut repost_failed = false;
            let edit = match message {
                Some(id) if !repost => {
                    let r = shared
                        .http
                        .update_message(channel, id)
                        .content(Some(&m.content))
                        .components(Some(&m.components))
                        .allowed_mentions(Some(&mentions))
                        .await;
                    super::calls::record("update_message", &r);
                    match r {
                        Ok(_) => true,
                        Err(e) => {
                            let code = api_code(&e);
                            if matches!(code, Some(UNKNOWN_MESSAGE | OLD_MESSAGE_EDITS)) {
                                tracing::info!(
                                    ?code,
                                    "the table message cannot be edited; posting it anew"
                                );
                                false
                            } else {
                                tracing::warn!(error = %e, "editing a table message failed");
                                if status(&e) == Some(403) {
                                    gone = true;
                                }
                                true
                            }
                        }
                    }
                }
                _ => false,
            };
            if !edit && !gone {
                match post(&shared, channel, &m, &mentions).await {
                    Ok(id) => {
                        posted = id;
                        if let Some(id) = posted {
                            shared.set_live(table, id.get());
                            // Chat below the table counts from here.
                            shared.reset_chatter(channel.get());
                        }
                        if repost
                            && posted.is_some()
                            && let Some(old) = message
                        {
                            let said = started.map(|lang| {
                                markup::public(&outputs::lobby_started(lang), None, None).content
                            });
                            strip(&shared, channel, old, said).await;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "posting a table message failed");
                        gone = status(&e) == Some(403) || api_code(&e) == Some(10003);
                        repost_failed = repost && !gone;
                    }
                }
            }
            let _ = done.send(Done::Table {
                table,
                posted,
                gone,
                repost_failed,
            });
        });
    }

    fn kick_hand(&mut self, key: (UserId, TableId)) {
        let Some(slot) = self.hands.get_mut(&key) else {
            return;
        };
        if slot.busy {
            return;
        }
        let Some(hand) = slot.latest.take() else {
            return;
        };
        let Some(token) = self.shared.fresh_token(&key.0, key.1) else {
            return;
        };
        slot.busy = true;
        let shared = self.shared.clone();
        let done = self.done_tx.clone();
        self.in_flight += 1;
        tokio::spawn(async move {
            let mut expired = false;
            // An answer to a press on this hand goes first: then the token
            // read below is its newest, with what the message shows.
            let turn = shared.hand_turn(&key.0, key.1, HAND_EDIT_WAIT).await;
            let token = shared.fresh_token(&key.0, key.1).unwrap_or(token);
            // The newest state, whatever the output carried: edits of one
            // hand may overtake each other on the way.
            let hand = match shared.front.service().hand_of(key.1, &key.0).await {
                Ok(Some(h)) => h,
                _ => hand,
            };
            if let Some(m) = hand_message(&shared, &hand).await {
                let h = hash_of(&m);
                if token.shown != Some(h) {
                    let client = shared.http.interaction(shared.app);
                    let mentions = no_mentions();
                    let r = client
                        .update_response(&token.token)
                        .content(Some(&m.content))
                        .components(Some(&m.components))
                        .allowed_mentions(Some(&mentions))
                        .await;
                    super::calls::record("update_response", &r);
                    match r {
                        Ok(_) => shared.hand_shown(&key.0, key.1, &token.token, h),
                        Err(e) => {
                            let code = api_code(&e);
                            if matches!(
                                code,
                                Some(UNKNOWN_WEBHOOK | INVALID_WEBHOOK_TOKEN | UNKNOWN_MESSAGE)
                            ) || status(&e) == Some(401)
                            {
                                expired = shared.forget_hand(&key.0, key.1, Some(&token.token));
                            } else {
                                tracing::warn!(error = %e, "editing a hand failed");
                            }
                        }
                    }
                }
            }
            drop(turn);
            let _ = done.send(Done::Hand {
                user: key.0,
                table: key.1,
                expired,
            });
        });
    }

    async fn on_done(&mut self, d: Done) {
        self.in_flight = self.in_flight.saturating_sub(1);
        match d {
            Done::Table {
                table,
                posted,
                gone,
                repost_failed,
            } => {
                let Some(slot) = self.tables.get_mut(&table) else {
                    return;
                };
                slot.busy = false;
                slot.repost |= repost_failed;
                if let Some(id) = posted {
                    slot.message = Some(id);
                    if let Ok(Some(view)) = self.shared.front.service().table_view(table).await {
                        let chat = view.chat.to_string();
                        let r = self
                            .shared
                            .front
                            .service()
                            .save_message_ref(
                                Platform::Discord,
                                table,
                                &chat,
                                Some(id.get() as i64),
                            )
                            .await;
                        if let Err(e) = r {
                            tracing::warn!(error = %e, "cannot keep a message id");
                        }
                    }
                }
                if gone {
                    // The channel is gone or closed to the bot: its table stops.
                    if let Ok(Some(view)) = self.shared.front.service().table_view(table).await {
                        self.shared.front.chat_gone(&view.chat).await;
                    }
                }
                if self.tables.get(&table).is_some_and(|s| s.latest.is_some()) {
                    self.kick_table(table);
                } else if self
                    .tables
                    .get(&table)
                    .is_some_and(|s| s.message.is_some() && s.latest.is_none())
                {
                    // A closed table's slot goes once its last state is shown.
                    if let Ok(Some(v)) = self.shared.front.service().table_view(table).await
                        && v.phase == Phase::Closed
                    {
                        self.tables.remove(&table);
                    }
                }
            }
            Done::Ping {
                table,
                channel,
                generation,
                posted,
            } => match self.pings.get_mut(&table) {
                Some(p) if p.generation == generation => p.message = posted,
                // The turn moved on while it was on its way: it goes now
                // (the newer ping found no message to remove).
                _ => {
                    if let Some(id) = posted {
                        let shared = self.shared.clone();
                        tokio::spawn(async move {
                            let r = shared.http.delete_message(channel, id).await;
                            super::calls::record("delete_message", &r);
                            if let Err(e) = r {
                                tracing::debug!(error = %e, "removing a turn ping failed");
                            }
                        });
                    }
                }
            },
            Done::Hand {
                user,
                table,
                expired,
            } => {
                let key = (user, table);
                if let Some(s) = self.hands.get_mut(&key) {
                    s.busy = false;
                }
                if expired {
                    // Their hand can no longer be edited: the table message
                    // tells them to press "My hand" when it is their turn.
                    if let Ok(Some(view)) = self.shared.front.service().table_view(table).await {
                        self.tables.entry(table).or_default().latest = Some(view);
                        self.kick_table(table);
                    }
                }
                if self.hands.get(&key).is_some_and(|s| s.latest.is_some()) {
                    self.kick_hand(key);
                }
            }
        }
    }
}

impl Outbox {
    /// Records what each table message shows, for the next start. A table
    /// with a call in flight or a newer state waiting may show something
    /// else: left out.
    async fn save_shown(&self) {
        let rows: Vec<(TableId, String, i64)> = self
            .tables
            .iter()
            .filter(|(_, s)| s.message.is_some() && !s.busy && s.latest.is_none())
            .filter_map(|(t, s)| Some((*t, s.chat.clone()?, s.shown?)))
            .collect();
        if rows.is_empty() {
            return;
        }
        let r = self
            .shared
            .front
            .service()
            .save_shown_hashes(Platform::Discord, rows)
            .await;
        if let Err(e) = r {
            tracing::warn!(error = %e, "cannot record what the messages show");
        }
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
        tracing::debug!(error = %e, code = ?api_code(&e), "the old table message keeps its buttons");
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

impl crate::delivery::driver::Outbox for Outbox {
    type Local = Local;
    type Done = Done;

    async fn on_output(&mut self, output: Output) {
        Outbox::on_output(self, output)
    }

    async fn on_local(&mut self, local: Local) {
        let Local::Output(o) = local;
        Outbox::on_output(self, o)
    }

    async fn on_done(&mut self, done: Done) {
        Outbox::on_done(self, done).await
    }

    /// Calls go out as soon as they are made (twilight holds each until
    /// its route's bucket allows it): idle once none is in flight.
    fn idle(&self) -> bool {
        self.in_flight == 0
    }

    fn finished(&mut self) -> &mut mpsc::UnboundedReceiver<Done> {
        &mut self.done_rx
    }

    async fn save_shown(&self) {
        Outbox::save_shown(self).await
    }
}
