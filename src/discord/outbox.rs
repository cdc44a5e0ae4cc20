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
//! The neutral decisions are [`crate::delivery`]'s: latest wins per table
//! and per hand ([`Latest`]: one call in flight, the newest state next),
//! what a failed call means and what follows it
//! ([`crate::delivery::transport`]: a 5xx or 429 retried after a pause, a
//! gone message posted anew, an expired token forgotten, a closed channel
//! stopping its table), announcements wait for the next render ([`News`]),
//! what a message shows is one [`crate::delivery::content`] hash, recorded
//! in the store as it changes (made unknown before each call that changes
//! it, written after: [`Recorded`]) as Telegram's are, and each hand's
//! token with what its hand shows, so a restart — even after a kill —
//! re-sends nothing already shown and keeps editing every open hand. Who is told that it is their turn is [`TurnAlerts`]'
//! rule: a person quiet for its quiet time, or whose hand cannot be edited
//! (its token is gone), when their turn comes — not a turn a start finds
//! already running. They are told by one mention that notifies: the table
//! message's own when it is posted anew, else a ping message naming only
//! them, which goes once the turn passes (at once if it lands after).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
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
use super::shared::{Local, Shared};
use crate::delivery::alerts::TurnAlerts;
use crate::delivery::content::{Landed, Recorded, Write, Writes, waited};
use crate::delivery::latest::Latest;
use crate::delivery::news::News;
use crate::delivery::restore::{self, orphans, restore};
use crate::delivery::transport::{self, Failure, Next, Policy, Recipient};
use crate::front::outputs;
use crate::i18n::{Args, key, tr};
use crate::table::{
    Announcement, HandView, Output, Phase, Platform, SeatState, TableId, TableView, UserId,
};

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

/// A finished call.
pub enum Done {
    Table {
        table: TableId,
        /// The state the call was to show (tried again after a pause).
        sent: Box<TableView>,
        posted: Option<Id<MessageMarker>>,
        /// It was to post the table anew at the bottom.
        repost: bool,
        /// What failed, and in which kind of call.
        failed: Option<(Failure, transport::Call)>,
        /// The writes around the call of what the recorded message shows,
        /// and what they did ([`Recorded`]).
        shown: (Writes, Landed),
        /// What a new message posted by it shows, recorded with its id.
        posted_hash: i64,
    },
    Hand {
        user: UserId,
        table: TableId,
        /// The state the call was to show.
        sent: Box<HandView>,
        /// The token it went through.
        token: String,
        failed: Option<Failure>,
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
    /// What the message is to show next, latest wins.
    state: Latest<TableView>,
    /// The last content sent, to skip edits that change nothing.
    shown: Option<i64>,
    /// The table's chat key, as its message id is kept under.
    chat: Option<String>,
    /// The next repost follows the lobby turning into the game: the old
    /// message says so, in this language, instead of keeping "can start".
    started: Option<crate::i18n::Lang>,
    /// Announcements, worded with the state after them, to post before the
    /// table's next call (so a reposted table comes below them); with the
    /// announcement when the store keeps it owed until it is posted.
    news: Vec<(Message, Option<Announcement>)>,
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

pub struct Outbox {
    shared: Arc<Shared>,
    tables: HashMap<TableId, Slot>,
    /// What the store says each table's message shows.
    recorded: Recorded<TableId>,
    /// Each person's hand at each table, latest wins.
    hands: HashMap<(UserId, TableId), Latest<HandView>>,
    /// Who is pinged when their turn comes.
    alerts: TurnAlerts,
    /// What follows a failed call.
    policy: Policy,
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
    /// `turn_alerts`: how long a person is quiet before their turn pings
    /// them (`None`: only those whose hand cannot be edited).
    pub async fn new(shared: Arc<Shared>, turn_alerts: Option<Duration>) -> Outbox {
        let mut tables: HashMap<TableId, Slot> = HashMap::new();
        let life = shared.token_life();
        let restored = restore(shared.front.service(), Platform::Discord, Some(life)).await;
        let unsure = restored.unsure();
        for (table, _chat, message) in restored.messages {
            if let Some(m) = u64::try_from(message).ok().and_then(Id::new_checked) {
                tables.entry(table).or_default().message = Some(m);
                shared.set_live(table, m.get());
            }
        }
        // What the messages show, as recorded: the first render that
        // matches is not sent again.
        let mut recorded = Vec::new();
        for (table, chat, hash) in restored.shown {
            if let Some(slot) = tables.get_mut(&table) {
                slot.shown = Some(hash);
                slot.chat = Some(chat);
                recorded.push((table, hash));
            }
        }
        // Hands opened before the stop stay editable while their tokens last.
        for (row, age) in restored.tokens {
            shared.restore_hand_token(row, age);
        }
        // A table posted anew just before a kill: its new message, not the
        // recorded one, shows it from now on.
        if unsure.len() > MAX_LOOKED_AFTER {
            tracing::warn!(
                tables = unsure.len(),
                looked_after = MAX_LOOKED_AFTER,
                "many table messages of unknown content at the start: only some are checked for later posts"
            );
        }
        for (table, chat, message) in unsure.into_iter().take(MAX_LOOKED_AFTER) {
            let channel = chat
                .strip_prefix("discord:")
                .and_then(|c| c.parse().ok())
                .and_then(Id::new_checked);
            let recorded = u64::try_from(message).ok().and_then(Id::new_checked);
            let (Some(channel), Some(recorded)) = (channel, recorded) else {
                continue;
            };
            let Some(adopted) = adopt_orphans(&shared, table, channel, recorded).await else {
                continue;
            };
            tables.entry(table).or_default().message = Some(adopted);
            shared.set_live(table, adopted.get());
            // Its content is not known: the first render edits it.
            if let Err(e) = shared
                .front
                .service()
                .save_message_ref(
                    Platform::Discord,
                    table,
                    &chat,
                    Some(adopted.get() as i64),
                    None,
                )
                .await
            {
                tracing::warn!(error = %e, "cannot keep a message id");
            }
        }
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let mut outbox = Outbox {
            shared,
            tables,
            recorded: Recorded::restore(recorded),
            hands: HashMap::new(),
            alerts: TurnAlerts::new(turn_alerts, Instant::now()),
            policy: Policy::default(),
            pings: HashMap::new(),
            news: News::default(),
            done_tx,
            done_rx,
            in_flight: 0,
        };
        outbox.take_owed().await;
        outbox
    }

    /// What a kill or a failed post left unposted
    /// ([`restore::take_owed`]); a closed table's announcements are posted
    /// with its last view now.
    async fn take_owed(&mut self) {
        let service = self.shared.front.service().clone();
        for view in restore::take_owed(&service, Platform::Discord, &mut self.news).await {
            self.on_output(Output::RenderTable(Box::new(view)));
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
                let mut worded = Vec::new();
                for a in due.announcements {
                    let owed = a.is_owed().then(|| a.clone());
                    match self.shared.front.announcement(&view, &a) {
                        Some(screen) => worded.push((markup::public(&screen, None, None), owed)),
                        // Nothing to say: owed no more.
                        None if owed.is_some() => {
                            tokio::spawn(forget_owed(self.shared.clone(), id, a));
                        }
                        None => {}
                    }
                }
                let slot = self.tables.entry(id).or_default();
                slot.news.extend(worded);
                slot.repost |= starts;
                if leaves_lobby {
                    slot.started = Some(view.settings.lang);
                }
                self.note_turns(&view);
                if let Some(slot) = self.tables.get_mut(&id) {
                    slot.state.put(*view);
                }
                self.kick_table(id);
            }
            Output::RenderHand(hand) => {
                if ids::user_of(&hand.player.id).is_none() {
                    return;
                }
                let key = (hand.player.id.clone(), hand.table);
                self.hands.entry(key.clone()).or_default().put(*hand);
                self.kick_hand(key);
            }
            Output::DropHand { table, user, .. } => {
                self.hands.remove(&(user.clone(), table));
                self.alerts.handle_gone(&user, table);
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

    /// Tells the turn alerts whose turn `view` shows: a person whose turn
    /// begins while they are not looking — quiet for the quiet time, or
    /// with no hand they could see it in (its token is gone) — is to be
    /// pinged.
    fn note_turns(&mut self, view: &TableView) {
        let now = Instant::now();
        if view.phase == Phase::Closed {
            self.alerts.forget_table(view.id);
            return;
        }
        for (seat, state) in view.seats.iter() {
            let SeatState::Person { player, away } = state else {
                continue;
            };
            if ids::user_of(&player.id).is_none() {
                continue;
            }
            let your_turn = !away && view.phase == Phase::Playing && view.awaiting.contains(&seat);
            let unseen = self.shared.fresh_token(&player.id, view.id).is_none();
            self.alerts
                .handle_turn(&player.id, view.id, your_turn, unseen, now);
        }
    }

    /// The public message of `view`: the table, whose turn it is (they are
    /// mentioned, and only they), and the "My hand" button in play.
    /// Also: the turn lines of the people awaited whom the turn alerts
    /// tell, who get a new message that pings them — a mention added by an
    /// edit notifies no one.
    fn table_message(
        &self,
        view: &TableView,
    ) -> (Message, Vec<Id<UserMarker>>, Vec<(u64, String)>) {
        let screen = self.shared.front.table_screen(view);
        let lang = view.settings.lang;
        let mut lines = Vec::new();
        let mut pinged = Vec::new();
        let mut away = Vec::new();
        let alerted = self.alerts.alerted_at(view.id);
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
        let Some(view) = slot.state.take(Instant::now()) else {
            return;
        };
        let Some(channel) = ids::channel_of(&view.chat) else {
            slot.state.sent();
            return;
        };
        slot.channel = Some(channel);
        let chat = view.chat.to_string();
        slot.chat = Some(chat.clone());
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
        let Some(slot) = self.tables.get_mut(&table) else {
            return;
        };
        // Shown already: only news (owed ones after a start) to post.
        let unchanged = shown == Some(h) && message.is_some() && !repost;
        if unchanged && news.is_empty() {
            slot.state.sent();
            return;
        }
        slot.shown = Some(h);
        // An edit makes the message show `h`; a repost leaves the row on
        // the old message, which loses its buttons, until the new one's id
        // is recorded (with its hash); a first post has no row to change.
        let writes = match message {
            Some(_) if !repost => self.recorded.before(&table, Some(h)),
            Some(_) => self.recorded.before(&table, None),
            None => Writes::default(),
        };
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
        let policy = self.policy;
        self.in_flight += 1;
        tokio::spawn(async move {
            let mut landed = Landed::default();
            if writes.unknown_first {
                landed.unknown(waited(mark_shown(shared.clone(), table, chat.clone(), None)).await);
            }
            // What happened before the table's new state is said first.
            for (n, owed) in news {
                match post(&shared, channel, &n, &no_mentions()).await {
                    Ok(_) => {
                        if let Some(a) = owed {
                            forget_owed(shared.clone(), table, a).await;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "an announcement failed");
                        // Owed still, for the next start, unless it can
                        // never go.
                        let f = classify(&e);
                        let lasting = !matches!(f, Failure::Unavailable | Failure::RateLimited(_));
                        if let (true, Some(a)) = (lasting, owed) {
                            forget_owed(shared.clone(), table, a).await;
                        }
                    }
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
            let mut failed = None;
            let edited = match message {
                // No edit that would change nothing.
                Some(_) if unchanged => {
                    landed.shown = true;
                    true
                }
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
                        Ok(_) => {
                            landed.shown = true;
                            true
                        }
                        Err(e) => {
                            let f = classify(&e);
                            match policy.next(f, transport::Call::Edit, Recipient::Chat, 0) {
                                Next::PostAnew => {
                                    tracing::info!(
                                        ?f,
                                        "the table message cannot be edited; posting it anew"
                                    );
                                    false
                                }
                                Next::Shown => {
                                    landed.shown = true;
                                    true
                                }
                                _ => {
                                    tracing::warn!(error = %e, "editing a table message failed");
                                    failed = Some((f, transport::Call::Edit));
                                    true
                                }
                            }
                        }
                    }
                }
                _ => false,
            };
            if !edited {
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
                        failed = Some((classify(&e), transport::Call::Post));
                    }
                }
            }
            if let (true, Some(h)) = (landed.shown, writes.then) {
                landed.record(waited(mark_shown(shared.clone(), table, chat, Some(h))).await);
            }
            let _ = done.send(Done::Table {
                table,
                sent: Box::new(view),
                posted,
                repost,
                failed,
                shown: (writes, landed),
                posted_hash: h,
            });
        });
    }

    fn kick_hand(&mut self, key: (UserId, TableId)) {
        let Some(slot) = self.hands.get_mut(&key) else {
            return;
        };
        let Some(hand) = slot.take(Instant::now()) else {
            return;
        };
        let Some(token) = self.shared.fresh_token(&key.0, key.1) else {
            // No open hand to edit: "My hand" draws it anew.
            slot.sent();
            return;
        };
        let shared = self.shared.clone();
        let done = self.done_tx.clone();
        self.in_flight += 1;
        tokio::spawn(async move {
            let mut failed = None;
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
                    // Unknown first, recorded after (`Recorded`'s rule).
                    if token.shown.is_some()
                        && shared
                            .store_hand_shown(&key.0, key.1, &token.token, None)
                            .await
                            == Write::Landed
                    {
                        shared.hand_shown(&key.0, key.1, &token.token, None);
                    }
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
                        Ok(_) => {
                            // One still on its way may land: kept as shown
                            // (the next change makes it unknown first).
                            if shared
                                .store_hand_shown(&key.0, key.1, &token.token, Some(h))
                                .await
                                != Write::Failed
                            {
                                shared.hand_shown(&key.0, key.1, &token.token, Some(h));
                            }
                        }
                        Err(e) => {
                            tracing::debug!(error = %e, "editing a hand failed");
                            failed = Some(classify(&e));
                        }
                    }
                }
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

    async fn on_done(&mut self, d: Done) {
        self.in_flight = self.in_flight.saturating_sub(1);
        match d {
            Done::Table {
                table,
                sent,
                posted,
                repost,
                failed,
                shown: (writes, landed),
                posted_hash,
            } => {
                let now = Instant::now();
                self.recorded.after(&table, writes, landed);
                let Some(slot) = self.tables.get_mut(&table) else {
                    return;
                };
                let mut gone = false;
                match failed {
                    None => slot.state.sent(),
                    Some((f, call)) => {
                        let strikes = slot.state.strikes();
                        // What the message shows is not known now.
                        slot.shown = None;
                        // A repost that did not happen: the next call tries again.
                        slot.repost |= repost;
                        match self.policy.next(f, call, Recipient::Chat, strikes) {
                            Next::RetryAfter(pause) => slot.state.failed(*sent, pause, now),
                            Next::ChatGone => {
                                gone = true;
                                slot.state.sent();
                            }
                            next => {
                                tracing::warn!(
                                    ?f,
                                    ?next,
                                    table = table.0,
                                    "a table message call failed"
                                );
                                slot.state.sent();
                            }
                        }
                    }
                }
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
                                Some(posted_hash),
                            )
                            .await;
                        match r {
                            Ok(()) => self.recorded.posted(table, Some(posted_hash)),
                            Err(e) => tracing::warn!(error = %e, "cannot keep a message id"),
                        }
                    }
                }
                if gone {
                    // The channel is gone or closed to the bot: its table stops.
                    if let Ok(Some(view)) = self.shared.front.service().table_view(table).await {
                        self.shared.front.chat_gone(&view.chat).await;
                    }
                }
                if self
                    .tables
                    .get(&table)
                    .is_some_and(|s| s.state.is_waiting())
                {
                    self.kick_table(table);
                } else if self
                    .tables
                    .get(&table)
                    .is_some_and(|s| s.message.is_some() && !s.state.is_waiting())
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
                sent,
                token,
                failed,
            } => {
                let key = (user, table);
                let mut expired = false;
                if let Some(slot) = self.hands.get_mut(&key) {
                    match failed {
                        None => slot.sent(),
                        Some(f) => match self.policy.next(
                            f,
                            transport::Call::Token,
                            Recipient::Person,
                            slot.strikes(),
                        ) {
                            Next::RetryAfter(pause) => slot.failed(*sent, pause, Instant::now()),
                            Next::Forget => {
                                slot.sent();
                                expired = self.shared.forget_hand(&key.0, key.1, Some(&token));
                            }
                            next => {
                                tracing::warn!(?f, ?next, "editing a hand failed");
                                slot.sent();
                            }
                        },
                    }
                } else if failed.is_some_and(|f| {
                    self.policy
                        .next(f, transport::Call::Token, Recipient::Person, 0)
                        == Next::Forget
                }) {
                    expired = self.shared.forget_hand(&key.0, key.1, Some(&token));
                }
                if expired {
                    // Their hand can no longer be edited: the table message
                    // tells them to press "My hand" when it is their turn.
                    if let Ok(Some(view)) = self.shared.front.service().table_view(table).await {
                        self.tables.entry(table).or_default().state.put(view);
                        self.kick_table(table);
                    }
                }
                if self.hands.get(&key).is_some_and(|s| s.is_waiting()) {
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
            .filter(|(_, s)| s.message.is_some() && !s.state.is_busy() && !s.state.is_waiting())
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

/// Records what the message of `table` (in `chat`, as its row names it)
/// shows (`None`: about to change, not known); whether the write landed.
async fn mark_shown(shared: Arc<Shared>, table: TableId, chat: String, shown: Option<i64>) -> bool {
    let row = vec![(table, chat, shown)];
    match shared
        .front
        .service()
        .mark_shown(Platform::Discord, row)
        .await
    {
        Ok(()) => true,
        // At a stop, after the drain: the record stays on the safe side
        // (`delivery::content`).
        Err(e) if e.is_closed() => false,
        Err(e) => {
            tracing::warn!(error = %e, table = table.0, "cannot record what a message shows");
            false
        }
    }
}

/// At most this many tables are checked for posts anew at a start (one
/// call each): a kill leaves a handful; many more means something else.
const MAX_LOOKED_AFTER: usize = 50;

/// Looks in `channel` for `table`'s messages posted after `recorded` (a
/// post anew whose id a kill kept from the store) and settles them as
/// [`orphans`] decides: the newest is the table's message (returned), the
/// others go, the recorded one loses its buttons.
async fn adopt_orphans(
    shared: &Shared,
    table: TableId,
    channel: Id<ChannelMarker>,
    recorded: Id<MessageMarker>,
) -> Option<Id<MessageMarker>> {
    // `after` leaves out the id it names: from the recorded one on.
    let after = Id::new_checked(recorded.get() - 1)?;
    let r = shared
        .http
        .channel_messages(channel)
        .after(after)
        .limit(100)
        .await;
    super::calls::record("channel_messages", &r);
    let messages = match r {
        Ok(r) => r.models().await.ok()?,
        Err(e) => {
            tracing::debug!(error = %e, "cannot look for later table messages");
            return None;
        }
    };
    let button = format!("\"{}\"", markup::my_hand_id(table));
    let found: Vec<u64> = messages
        .iter()
        .filter(|m| shared.is_bot(m.author.id.get()))
        .filter(|m| serde_json::to_string(&m.components).is_ok_and(|json| json.contains(&button)))
        .map(|m| m.id.get())
        .collect();
    let settle = orphans(recorded.get(), &found);
    let adopt = Id::new_checked(settle.adopt?)?;
    tracing::info!(
        table = table.0,
        recorded = recorded.get(),
        adopted = adopt.get(),
        removed = settle.delete.len(),
        "a table message posted anew before the last stop was found: it shows the table"
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

/// The store forgets an owed announcement: it was posted (or never can be).
async fn forget_owed(shared: Arc<Shared>, table: TableId, announcement: Announcement) {
    let service = shared.front.service();
    restore::forget_owed(service, Platform::Discord, table, &announcement).await;
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
        match local {
            Local::Output(o) => Outbox::on_output(self, o),
            Local::Acted(user) => self.alerts.handle_activity(&user, Instant::now()),
            Local::BringTable(view) => {
                // Posted anew by the render's call, or by the next one
                // when a call of the table is in flight.
                self.tables.entry(view.id).or_default().repost = true;
                Outbox::on_output(self, Output::RenderTable(view));
            }
        }
    }

    async fn on_done(&mut self, done: Done) {
        Outbox::on_done(self, done).await
    }

    /// Calls go out as soon as they are made (twilight holds each until
    /// its route's bucket allows it); what waits here is a call failed for
    /// now, tried again after its pause.
    fn transmit(&mut self, now: Instant) {
        let tables: Vec<TableId> = self
            .tables
            .iter()
            .filter(|(_, s)| s.state.wake().is_some_and(|t| t <= now))
            .map(|(t, _)| *t)
            .collect();
        for t in tables {
            self.kick_table(t);
        }
        let hands: Vec<(UserId, TableId)> = self
            .hands
            .iter()
            .filter(|(_, s)| s.wake().is_some_and(|t| t <= now))
            .map(|(k, _)| k.clone())
            .collect();
        for k in hands {
            self.kick_hand(k);
        }
    }

    fn next_wake(&self) -> Option<Instant> {
        let tables = self.tables.values().filter_map(|s| s.state.wake());
        let hands = self.hands.values().filter_map(Latest::wake);
        tables.chain(hands).min()
    }

    /// Idle once no call is in flight and none waits to be tried again.
    fn idle(&self) -> bool {
        self.in_flight == 0 && self.next_wake().is_none()
    }

    fn finished(&mut self) -> &mut mpsc::UnboundedReceiver<Done> {
        &mut self.done_rx
    }

    async fn save_shown(&self) {
        Outbox::save_shown(self).await
    }
}
