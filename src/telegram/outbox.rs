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
//! the same messages are edited and the buttons on them keep working. A
//! message that is gone is posted anew; a person the bot cannot message is
//! marked unreachable (the lobby then shows them a deep link, and the turn
//! timer plays for them).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use teloxide::payloads::{EditMessageTextSetters, SendMessageSetters};
use teloxide::prelude::Requester;
use teloxide::types::{ChatId, MessageId, ParseMode};
use tokio::sync::{mpsc, watch};

use super::bot::Shared;
use super::failure::Failure;
use super::pacing::{Outcome, Output, Pacer, PacerConfig, Ticket};
use super::render::{self, HandInfo, LastTrick, Occupant, Rendered, TableInfo};
use crate::cards::PerSeat;
use crate::game::{GameEvent, GameView};
use crate::i18n::{Args, key, tr_html};
use crate::table::{
    Announcement, Effect, HandView, Phase, Platform, SeatState, TableId, TableView, Timestamp,
    UserId,
};
use crate::{hearts, kozel};

/// What the handlers ask of the runner, besides the service's effects.
#[derive(Clone, Debug)]
pub enum Local {
    /// Render this (a selection changed, a table to show again).
    Effect(Effect),
    /// The bot cannot message this person (they blocked it): their tables
    /// show it.
    Unreachable(UserId),
    /// A person the bot could not reach wrote to it again: their hands are
    /// posted as fresh messages (the old ones are far up in the chat).
    Returned(UserId),
    /// The bot is out of this group: nothing more goes there.
    ChatGone(ChatId),
}

/// Which pacer a transmission came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    Group,
    Private,
}

impl Lane {
    /// The metrics label.
    fn label(self) -> &'static str {
        match self {
            Lane::Group => "group",
            Lane::Private => "private",
        }
    }
}

/// A finished Bot API call.
struct Done {
    lane: Lane,
    ticket: Ticket<i64>,
    table: Option<TableId>,
    result: Result<Option<MessageId>, Failure>,
}

type Queue = Pacer<i64, i64, Rendered>;

/// The runner's state; [`run`] drives it.
pub struct Outbox {
    shared: Arc<Shared>,
    group: Queue,
    private: Queue,
    /// (chat, table) → the message showing the table there.
    refs: HashMap<(i64, i64), MessageId>,
    /// The latest view of each table, for names in hands and announcements.
    views: HashMap<TableId, TableView>,
    /// Announcements wait for the table's next render, which follows them in
    /// the same batch of effects, so they are worded with the state after.
    pending: HashMap<TableId, Vec<Announcement>>,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: mpsc::UnboundedReceiver<Done>,
}

fn chat_number(id: &str) -> Option<i64> {
    id.parse().ok()
}

impl Outbox {
    pub async fn new(shared: Arc<Shared>, group: PacerConfig, private: PacerConfig) -> Outbox {
        let mut refs = HashMap::new();
        match shared
            .service
            .store()
            .open_message_refs(Platform::Telegram)
            .await
        {
            Ok(rows) => {
                for (table, chat, message) in rows {
                    if let (Some(chat), Ok(m)) = (chat_number(&chat), i32::try_from(message)) {
                        refs.insert((chat, table.0), MessageId(m));
                    }
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot read message ids; messages will be posted anew")
            }
        }
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Outbox {
            shared,
            group: Pacer::new(group),
            private: Pacer::new(private),
            refs,
            views: HashMap::new(),
            pending: HashMap::new(),
            done_tx,
            done_rx,
        }
    }

    fn table_info(&self, view: &TableView) -> TableInfo {
        let unreachable = self.shared.unreachable_users();
        let mut ai = 0u8;
        let seats = PerSeat::from_fn(|s| match &view.seats[s] {
            SeatState::Empty => None,
            SeatState::Person { player, away: true } => Some(Occupant::StandIn {
                name: player.name.clone(),
            }),
            SeatState::Person { player, .. } => Some(Occupant::Human {
                name: player.name.clone(),
                reachable: !unreachable.contains(&player.id),
            }),
            SeatState::Ai => {
                ai += 1;
                Some(Occupant::Ai { number: ai })
            }
        });
        let now = self.shared.service.now();
        TableInfo {
            table: view.id.0 as u64,
            version: view.version,
            game: view.kind,
            seats,
            turn_time_left: view.deadline.map(|d| time_left(d, now)),
            last_trick: view.last_trick.map(|t| LastTrick {
                winner: t.winner,
                points: t.points,
            }),
        }
    }

    fn render_table(&self, view: &TableView) -> Rendered {
        let lang = view.settings.lang;
        let info = self.table_info(view);
        let mut out = match (&view.game, view.phase) {
            (Some(game), Phase::Playing | Phase::Finished | Phase::Closed) => {
                render::table(lang, &info, game)
            }
            _ => {
                let creator = view
                    .seats
                    .iter()
                    .find_map(|(_, s)| s.person().filter(|p| p.id == view.creator))
                    .map(|p| p.name.clone())
                    .or_else(|| self.shared.name_of(&view.creator))
                    .unwrap_or_else(|| "?".to_owned());
                render::lobby(lang, &info, &creator, &self.shared.username)
            }
        };
        match view.phase {
            Phase::Closed => out.keyboard = Default::default(),
            Phase::Finished => out = render::with_rematch(lang, &info, out),
            Phase::Lobby | Phase::Playing => {}
        }
        out
    }

    fn render_hand(&self, hand: &HandView, view: &TableView) -> Rendered {
        let info = self.table_info(view);
        let selection = self.shared.selection(&hand.player.id, hand.table);
        let hinfo = HandInfo {
            table: &info,
            group_title: &hand.title,
            seat: hand.seat,
            selection,
        };
        render::hand(hand.player.lang, &hinfo, &hand.game, &hand.legal)
    }

    fn announcement(&self, view: &TableView, a: &Announcement) -> Option<Rendered> {
        let lang = view.settings.lang;
        let info = self.table_info(view);
        let text = |k, args: Args| Rendered {
            text: tr_html(lang, k, &args),
            keyboard: Default::default(),
        };
        match a {
            Announcement::SeriesStarted { .. } => Some(text(
                key::GAME_BEGINS,
                Args::new().text("game", render::game_name(lang, view.kind)),
            )),
            Announcement::Game { event, .. } => match (event, &view.game) {
                (GameEvent::Kozel(kozel::Event::DealOver(result)), Some(GameView::Kozel(v))) => {
                    let deal_no = if v.goat.is_some() {
                        v.deal_no
                    } else {
                        v.deal_no.saturating_sub(1).max(1)
                    };
                    Some(render::kozel::deal_over(
                        lang,
                        &info,
                        deal_no,
                        result,
                        v.defeat_points,
                    ))
                }
                (
                    GameEvent::Kozel(kozel::Event::SeriesOver { goat, with_eggs }),
                    Some(GameView::Kozel(v)),
                ) => Some(render::kozel::series_over(
                    lang,
                    &info,
                    *goat,
                    *with_eggs,
                    v.defeat_points,
                )),
                (
                    GameEvent::Hearts(hearts::Event::DealOver {
                        deal,
                        deal_points,
                        total_points,
                        moon_shooter,
                    }),
                    _,
                ) => Some(render::hearts::deal_over(
                    lang,
                    &info,
                    *deal,
                    *deal_points,
                    *total_points,
                    *moon_shooter,
                    view.settings.options.hearts.end_score,
                )),
                (GameEvent::Hearts(hearts::Event::GameOver { ranking }), _) => {
                    Some(render::hearts::game_over(lang, &info, ranking))
                }
                // Tricks show on the table message itself.
                _ => None,
            },
            Announcement::AutoPlayed { seat, .. } => Some(text(
                key::TIMER_AUTO_PLAYED,
                Args::new().text("name", info.name(lang, *seat)),
            )),
            Announcement::HandedToAi {
                player,
                unreachable: true,
                ..
            } => Some(text(
                key::UNREACHABLE_TO_AI,
                Args::new().text("name", player.name.clone()),
            )),
            Announcement::HandedToAi { player, .. } => Some(text(
                key::TIMER_HANDED_TO_AI,
                Args::new()
                    .text("name", player.name.clone())
                    .num("count", i64::from(crate::table::TIMEOUTS_BEFORE_AI)),
            )),
            Announcement::TakenBack { player, .. } => Some(text(
                key::TIMER_TOOK_BACK,
                Args::new().text("name", player.name.clone()),
            )),
            Announcement::Left {
                player,
                kicked: true,
                ..
            } => Some(text(
                key::KICKED,
                Args::new().text("name", player.name.clone()),
            )),
            Announcement::Stopped { by } => {
                let name = by
                    .as_ref()
                    .and_then(|u| self.shared.name_of(u))
                    .unwrap_or_else(|| "—".to_owned());
                Some(text(key::STOPPED, Args::new().text("name", name)))
            }
            Announcement::Left { .. } | Announcement::ChatMoved { .. } => None,
        }
    }

    async fn view_of(&mut self, table: TableId) -> Option<TableView> {
        if let Some(v) = self.views.get(&table) {
            return Some(v.clone());
        }
        let t = self.shared.service.table(table).await.ok()??;
        let v = t.view();
        self.views.insert(table, v.clone());
        Some(v)
    }

    /// Takes one effect in.
    pub async fn on_effect(&mut self, effect: Effect) {
        match effect {
            Effect::RenderTable(view) => {
                let Some(chat) = chat_number(view.chat.id()) else {
                    return;
                };
                if self.shared.is_chat_gone(ChatId(chat)) {
                    self.pending.remove(&view.id);
                    if view.phase == Phase::Closed {
                        self.shared.clear_selections(view.id);
                        self.views.remove(&view.id);
                    } else {
                        self.views.insert(view.id, *view);
                    }
                    return;
                }
                for a in self.pending.remove(&view.id).unwrap_or_default() {
                    if let Some(r) = self.announcement(&view, &a) {
                        self.group.send(chat, r);
                    }
                }
                let content = self.render_table(&view);
                self.group.set(chat, view.id.0, content);
                if view.phase == Phase::Closed {
                    self.shared.clear_selections(view.id);
                    self.views.remove(&view.id);
                } else {
                    self.views.insert(view.id, *view);
                }
            }
            Effect::RenderHand(hand) => {
                if self.shared.is_unreachable(&hand.player.id) {
                    return;
                }
                let Some(chat) = chat_number(hand.player.id.as_str()) else {
                    return;
                };
                let Some(view) = self.view_of(hand.table).await else {
                    return;
                };
                let content = self.render_hand(&hand, &view);
                self.private.set(chat, hand.table.0, content);
            }
            Effect::DropHand { table, user, .. } => {
                self.retire_hand(table, &user);
            }
            Effect::Announce {
                table,
                announcement,
                ..
            } => {
                self.pending.entry(table).or_default().push(announcement);
            }
            Effect::Remind(spec) => {
                // Not a new group message: the group may get about 20
                // outputs a minute, shared by every table message edit. The
                // table message shows the time left (one edit, latest wins),
                // and the awaited person is reminded in their own chat.
                let Some(view) = self.view_of(spec.table).await else {
                    return;
                };
                Box::pin(self.on_effect(Effect::RenderTable(Box::new(view.clone())))).await;
                let left = time_left(spec.deadline, self.shared.service.now());
                for p in spec.awaiting.iter().filter_map(|a| a.player.as_ref()) {
                    if self.shared.is_unreachable(&p.id) {
                        continue;
                    }
                    let Some(chat) = chat_number(p.id.as_str()) else {
                        continue;
                    };
                    let text = tr_html(
                        p.lang,
                        key::TIMER_REMINDER_DM,
                        &Args::new().num("seconds", render::shown_seconds(left)),
                    );
                    self.private.send(
                        chat,
                        Rendered {
                            text,
                            keyboard: Default::default(),
                        },
                    );
                }
            }
            // Timers and AI moves are the service's own business.
            Effect::ArmTimer(_) | Effect::DisarmTimer { .. } | Effect::AiMove(_) => {}
        }
    }

    /// Takes in work from the handlers.
    pub async fn on_local(&mut self, local: Local) {
        match local {
            Local::Effect(e) => self.on_effect(e).await,
            Local::Unreachable(user) => self.show_unreachable(&user).await,
            Local::Returned(user) => self.returned(&user).await,
            Local::ChatGone(chat) => {
                self.group.forget(&chat.0);
                self.refs.retain(|(c, _), _| *c != chat.0);
            }
        }
    }

    /// Posts the person's hands anew, and their tables without the deep link.
    async fn returned(&mut self, user: &UserId) {
        let Some(chat) = chat_number(user.as_str()) else {
            return;
        };
        self.private.forget(&chat);
        self.refs.retain(|(c, _), _| *c != chat);
        let mut tables = self.shared.tables_of(user).await;
        for v in self.views.values() {
            if v.seats
                .iter()
                .any(|(_, s)| s.person().is_some_and(|p| &p.id == user))
                && !tables.contains(&v.id)
            {
                tables.push(v.id);
            }
        }
        for id in tables {
            let Ok(Some(t)) = self.shared.service.table(id).await else {
                continue;
            };
            if t.phase() == Phase::Closed {
                continue;
            }
            let view = t.view();
            let hand = t.seat_of(user).and_then(|s| t.hand_view(s));
            self.on_effect(Effect::RenderTable(Box::new(view))).await;
            if let Some(h) = hand {
                self.on_effect(Effect::RenderHand(Box::new(h))).await;
            }
        }
    }

    /// The person left the table: their hand message keeps its text and loses its buttons.
    fn retire_hand(&mut self, table: TableId, user: &UserId) {
        self.shared.clear_selection(user, table);
        let Some(chat) = chat_number(user.as_str()) else {
            return;
        };
        if let Some(shown) = self.private.shown(&chat, &table.0).cloned() {
            self.private.set(
                chat,
                table.0,
                Rendered {
                    text: shown.text,
                    keyboard: Default::default(),
                },
            );
        }
    }

    fn transmit(&mut self, now: Instant) {
        for lane in [Lane::Group, Lane::Private] {
            loop {
                let pacer = match lane {
                    Lane::Group => &mut self.group,
                    Lane::Private => &mut self.private,
                };
                let Some(tx) = pacer.poll_transmit(now) else {
                    crate::metrics::pacer_waiting(lane.label(), pacer.chats_waiting());
                    break;
                };
                let chat = tx.ticket.chat;
                let (table, known, content, edit) = match tx.output {
                    Output::Set { slot, content } => (
                        Some(TableId(slot)),
                        self.refs.get(&(chat, slot)).copied(),
                        content,
                        true,
                    ),
                    Output::Send { content } => (None, None, content, false),
                };
                let shared = self.shared.clone();
                let done = self.done_tx.clone();
                let ticket = tx.ticket;
                let method = if edit && known.is_some() {
                    "editMessageText"
                } else {
                    "sendMessage"
                };
                tokio::spawn(async move {
                    let result = deliver(&shared, ChatId(chat), known, &content, edit).await;
                    crate::metrics::bot_api_call(
                        method,
                        result
                            .as_ref()
                            .map_or_else(crate::metrics::failure_outcome, |_| "ok"),
                    );
                    let _ = done.send(Done {
                        lane,
                        ticket,
                        table,
                        result,
                    });
                });
            }
        }
    }

    async fn on_done(&mut self, done: Done) {
        let now = Instant::now();
        let chat = done.ticket.chat;
        let outcome = match done.result {
            Ok(new_message) => {
                if let (Some(m), Some(table)) = (new_message, done.table) {
                    self.refs.insert((chat, table.0), m);
                    let store = self.shared.service.store().clone();
                    let at = self.shared.service.now();
                    // Recorded before the next output for this chat goes out.
                    if let Err(e) = store
                        .save_message_ref(
                            Platform::Telegram,
                            table,
                            &chat.to_string(),
                            Some(i64::from(m.0)),
                            at,
                        )
                        .await
                    {
                        tracing::warn!(error = %e, "cannot record a message id");
                    }
                }
                Outcome::Done
            }
            Err(f) => {
                match f {
                    Failure::MessageGone => {
                        if let Some(table) = done.table {
                            self.refs.remove(&(chat, table.0));
                        }
                    }
                    Failure::Unreachable if done.lane == Lane::Private => {
                        if let Ok(user) = UserId::new(chat.to_string())
                            && self.shared.set_unreachable(&user, true)
                        {
                            self.show_unreachable(&user).await;
                            let shared = self.shared.clone();
                            tokio::spawn(async move { shared.hand_over(&user).await });
                        }
                    }
                    Failure::Unreachable => {
                        tracing::info!(chat, "the bot cannot write to this group any more");
                        let shared = self.shared.clone();
                        tokio::spawn(async move { shared.chat_gone(ChatId(chat)).await });
                    }
                    Failure::Rejected => tracing::warn!(chat, "Telegram refused an output"),
                    _ => {}
                }
                let outcome = f.pacing_outcome();
                if let Outcome::RetryAfter(pause) = outcome {
                    crate::metrics::pacer_pause(done.lane.label(), pause)
                }
                outcome
            }
        };
        match done.lane {
            Lane::Group => self.group.on_result(done.ticket, outcome, now),
            Lane::Private => self.private.on_result(done.ticket, outcome, now),
        }
    }

    /// The bot cannot message `user`: their tables show them a deep link.
    async fn show_unreachable(&mut self, user: &UserId) {
        let user = user.clone();
        let tables: Vec<TableId> = self
            .views
            .values()
            .filter(|v| {
                v.seats
                    .iter()
                    .any(|(_, s)| s.person().is_some_and(|p| p.id == user))
            })
            .map(|v| v.id)
            .collect();
        for t in tables {
            if let Some(v) = self.views.get(&t).cloned() {
                Box::pin(self.on_effect(Effect::RenderTable(Box::new(v)))).await;
            }
        }
    }

    fn next_wake(&self) -> Option<Instant> {
        let a = self.group.poll_timeout();
        let b = self.private.poll_timeout();
        let now = Instant::now();
        [a, b].into_iter().flatten().map(|t| t.unwrap_or(now)).min()
    }

    /// Whether nothing waits to go out.
    fn idle(&self) -> bool {
        self.group.poll_timeout().is_none()
            && self.private.poll_timeout().is_none()
            && self.done_rx.is_empty()
    }
}

fn time_left(deadline: Timestamp, now: Timestamp) -> Duration {
    Duration::from_millis(u64::try_from(deadline.millis() - now.millis()).unwrap_or(0))
}

/// Performs one output. `Ok(Some(id))` when a new message was posted.
async fn deliver(
    shared: &Shared,
    chat: ChatId,
    known: Option<MessageId>,
    content: &Rendered,
    edit: bool,
) -> Result<Option<MessageId>, Failure> {
    let bot = &shared.bot;
    if let (true, Some(id)) = (edit, known) {
        let mut req = bot
            .edit_message_text(chat, id, content.text.clone())
            .parse_mode(ParseMode::Html);
        if let Some(kb) = content.markup() {
            req = req.reply_markup(kb.clone());
        }
        return match req.await {
            Ok(_) => Ok(None),
            Err(e) => match Failure::of(&e) {
                Failure::NotModified => Ok(None),
                f => Err(f),
            },
        };
    }
    let mut req = bot
        .send_message(chat, content.text.clone())
        .parse_mode(ParseMode::Html);
    if let Some(kb) = content.markup() {
        req = req.reply_markup(kb.clone());
    }
    match req.await {
        Ok(m) => Ok(Some(m.id)),
        Err(e) => Err(Failure::of(&e)),
    }
}

/// Runs the outbox until `stop` turns true and the queues are drained
/// (or `drain_for` passed).
pub async fn run(
    mut outbox: Outbox,
    mut effects: mpsc::UnboundedReceiver<Effect>,
    mut local: mpsc::UnboundedReceiver<Local>,
    mut stop: watch::Receiver<bool>,
    drain_for: Duration,
) {
    let mut stopping_since: Option<Instant> = None;
    loop {
        outbox.transmit(Instant::now());
        if let Some(since) = stopping_since
            && (outbox.idle() || since.elapsed() >= drain_for)
        {
            break;
        }
        let wake = outbox.next_wake();
        let sleep = async {
            match (wake, stopping_since) {
                (Some(t), _) => tokio::time::sleep_until(t.into()).await,
                (None, Some(_)) => tokio::time::sleep(Duration::from_millis(20)).await,
                (None, None) => std::future::pending().await,
            }
        };
        tokio::select! {
            Some(e) = effects.recv() => outbox.on_effect(e).await,
            Some(l) = local.recv() => outbox.on_local(l).await,
            Some(d) = outbox.done_rx.recv() => outbox.on_done(d).await,
            _ = sleep => {}
            r = stop.changed(), if stopping_since.is_none() => {
                if r.is_err() || *stop.borrow() {
                    stopping_since = Some(Instant::now());
                }
            }
        }
    }
}
