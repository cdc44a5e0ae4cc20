//! The outbox of a platform whose limits the bot keeps itself
//! (Telegram's): every decision is the [`PacedLane`]'s; this loop feeds it
//! the service's outputs and the handlers' work with the loop's `now`,
//! runs each call it polls in a task of its own (a slow chat never holds
//! up another) with the store writes around it, and carries out the
//! [`Effect`]s that await the store or the service. A platform says how
//! its chats and messages look ([`Host`]) and how a call is made
//! ([`PacedPlatform`]).

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::service::{self, mark_shown, restore, save_writes};
use super::waited;
use kozyr_delivery::content::Landed;
use kozyr_delivery::lane::{Action, Done, Effect, Host, PacedLane, Restored, Wrote};
use kozyr_delivery::pacing::{Class, Limits, Priority, unix_ms};
use kozyr_delivery::told::{Here, Told, told};
use kozyr_delivery::transport::{Failure, Policy};
use kozyr_front::live::LiveEvent;
use kozyr_front::{Front, Reply, Screen};
use kozyr_table::{ChatKey, Output, Platform, Player, TableId, TableView, UserId};

/// What the platform's handlers hand the outbox besides the service's
/// outputs; chats and messages by the platform's ids.
#[derive(Clone, Debug)]
pub enum Local {
    /// Show this (a selection changed, a table to show again).
    Output(Output),
    /// Post this in the chat (a reply to a command or a press).
    Say { chat: i64, screen: Screen },
    /// Tell one person privately in `chat`, their private chat; if the bot
    /// turns out unable to write to them there, `in_group` is posted in
    /// `group` instead ([`kozyr_delivery::told`]).
    Tell {
        chat: i64,
        screen: Screen,
        group: i64,
        in_group: Screen,
    },
    /// A menu did its job: it loses its buttons, and shows `screen`
    /// (without buttons) instead when there is one.
    CloseMenu {
        chat: i64,
        message: u64,
        screen: Option<Screen>,
    },
    /// A person took a seat at `table`: tell them privately. If the bot
    /// cannot message them, their table shows them a deep link.
    Seated {
        table: TableId,
        user: UserId,
        screen: Screen,
    },
    /// The bot cannot message this person (they blocked it): their tables
    /// show it, and an AI player takes their seats in play.
    Unreachable(UserId),
    /// A person the bot could not reach wrote to it again: their hands are
    /// posted as fresh messages (the old ones are far up in the chat).
    Returned(UserId),
    /// Someone looked for the table: its message goes anew to the bottom
    /// of the group (it may have been deleted, which the platform tells no
    /// bot), the old one losing its buttons.
    BringTable(Box<TableView>),
    /// The bot is out of this group: nothing more goes there.
    ChatGone(i64),
    /// A person pressed a button, or wrote to the bot in private (`wrote`:
    /// their message). What they wrote brings their hands below it, posted
    /// anew: the platform tells no bot of a deletion, and a hand that is
    /// not there cannot be played from.
    Acted { user: UserId, wrote: Option<Wrote> },
    /// A person opened, closed or pressed in the Mini App.
    Live(LiveEvent),
}

/// Where one input came from, as the answers to it need to know.
#[derive(Clone, Copy, Debug)]
pub struct Asked<'a> {
    /// The chat it was sent in.
    pub here: Here<'a, i64>,
    /// Who sent it (`None`: nobody to answer to in private).
    pub from: Option<&'a Player>,
    /// Their private chat with the bot, and whether the bot can write there.
    pub private: Option<i64>,
    pub reachable: bool,
    /// The message pressed on (chat, message), when it was a press.
    pub pressed: Option<(i64, u64)>,
}

/// The front's `replies` to one input as the outbox's work, in order, and
/// the short note that answers the press, if any. What concerns one
/// person goes where they read it ([`kozyr_delivery::told`]); a menu that
/// did its job is the pressed message.
pub fn answers(replies: Vec<Reply>, asked: &Asked<'_>) -> (Vec<Local>, Option<String>) {
    let mut popup = None;
    let chat = asked.here.chat;
    // A menu closes only when the input was a press on it.
    let close = |screen| {
        let (chat, message) = asked.pressed?;
        Some(Local::CloseMenu {
            chat,
            message,
            screen,
        })
    };
    let work = (replies.into_iter())
        .filter_map(|reply| match reply {
            Reply::Say(screen) => Some(Local::Say { chat, screen }),
            Reply::Tell(screen) => {
                let (private, reachable) = (asked.private, asked.reachable);
                Some(
                    match told(asked.here, asked.from, private, reachable, screen) {
                        Told::Here(chat, screen) => Local::Say { chat, screen },
                        Told::Private {
                            chat,
                            screen,
                            group,
                            in_group,
                        } => Local::Tell {
                            chat,
                            screen,
                            group,
                            in_group,
                        },
                    },
                )
            }
            Reply::Popup(text) => {
                popup = Some(text);
                None
            }
            Reply::CloseMenu => close(None),
            Reply::ReplaceMenu(screen) => close(Some(screen)),
            Reply::Render(output) => Some(Local::Output(output)),
            Reply::BringTable(view) => Some(Local::BringTable(view)),
            Reply::Seated { table, user, text } => Some(Local::Seated {
                table,
                user,
                screen: text,
            }),
        })
        .collect();
    (work, popup)
}

/// How many closed menus are remembered; older ones are forgotten first
/// (their edits went out long ago).
const CLOSED_MENUS: usize = 4096;

/// Menus that did their job, by (chat, message), newest last: a press on
/// one of their buttons (still shown until the paced edit that removes
/// them goes out, or pressed from an old client) changes nothing.
#[derive(Debug, Default)]
pub struct ClosedMenus(Mutex<(HashSet<Menu>, VecDeque<Menu>)>);

/// A menu message: (chat, message).
type Menu = (i64, u64);

impl ClosedMenus {
    pub fn close(&self, chat: i64, message: u64) {
        let (set, order) = &mut *super::lock(&self.0);
        if set.insert((chat, message)) {
            order.push_back((chat, message));
            while order.len() > CLOSED_MENUS {
                if let Some(old) = order.pop_front() {
                    set.remove(&old);
                }
            }
        }
    }

    pub fn is_closed(&self, chat: i64, message: u64) -> bool {
        super::lock(&self.0).0.contains(&(chat, message))
    }
}

/// A platform under a [`PacedOutbox`]. Its chats are `i64`s.
pub trait PacedPlatform: Host<i64, Message: Clone + Send + Sync> + Send + Sync + 'static {
    const PLATFORM: Platform;

    fn front(&self) -> &Front;
    /// A screen as the platform's message.
    fn word(&self, screen: &Screen) -> Self::Message;
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
                // Not a new group message: the group may get about 20
                // outputs a minute, shared by every table message edit. The
                // table message states the turn's allowance, which has not
                // changed, so it needs no edit; the awaited person is
                // reminded in their own chat.
                for (person, screen) in p.front().reminders(&spec) {
                    if let Some(chat) = p.private_chat(&person.id) {
                        let m = p.word(&screen);
                        self.lane.send(chat, m, Priority::Turn, p);
                    }
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
                    service::forget_owed(&service, P::PLATFORM, table, &a).await;
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

impl<P: PacedPlatform> PacedOutbox<P> {
    /// Hands the lane the handlers' work; an output among it is
    /// returned, to be taken in as the service's are.
    fn take_local(&mut self, local: Local, now: Instant) -> Option<Output> {
        let (lane, host) = (&mut self.lane, &*self.platform);
        match local {
            Local::Output(o) => return Some(o),
            // The person who just asked waits for it (a `/stop` prompt, a
            // command's answer): it goes before the chat's table edits,
            // which a later one replaces anyway.
            Local::Say { chat, screen } => {
                lane.send(chat, host.word(&screen), Priority::Turn, host)
            }
            Local::Tell {
                chat,
                screen,
                group,
                in_group,
            } => lane.tell(chat, host.word(&screen), group, host.word(&in_group)),
            Local::CloseMenu {
                chat,
                message,
                screen,
            } => {
                let closing = screen.map(|s| host.word(&Screen::text(s.text)));
                lane.close_menu(chat, message, closing);
            }
            Local::Seated {
                table,
                user,
                screen,
            } => {
                if let Some(chat) = host.private_chat(&user) {
                    lane.seated(chat, table, host.word(&screen));
                }
            }
            Local::BringTable(view) => lane.bring_table(*view, now, host),
            Local::Unreachable(user) => lane.handle_unreachable(&user, None, now, host),
            Local::Acted { user, wrote } => lane.handle_activity(&user, wrote, now, host),
            Local::Live(event) => match event {
                LiveEvent::Opened(user, table) => lane.handle_live(&user, table, true, now, host),
                LiveEvent::Closed(user, table) => lane.handle_live(&user, table, false, now, host),
                LiveEvent::Pressed(user) => lane.handle_activity(&user, None, now, host),
            },
            Local::Returned(user) => lane.handle_returned(&user, now, host),
            Local::ChatGone(chat) => lane.forget_chat(chat),
        }
        None
    }
}

impl<P: PacedPlatform> super::Outbox for PacedOutbox<P> {
    type Local = Local;
    type Done = Done;

    async fn on_output(&mut self, output: Output, now: Instant) {
        PacedOutbox::on_output(self, output, now).await
    }

    async fn on_local(&mut self, local: Local, now: Instant) {
        match self.take_local(local, now) {
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
        let rows = self.lane.shown_rows().into_iter();
        let rows = rows.map(|(t, chat, hash)| (t, chat.to_string(), hash));
        service::save_shown(self.platform.front().service(), P::PLATFORM, rows.collect()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each reply becomes the outbox's work, in order; a popup answers the
    /// press, and a menu closes only when a press names it.
    #[test]
    fn the_answers_to_an_input_are_the_outboxs_work_in_order() {
        // In the default language (English).
        let ann = Player::new(UserId::Telegram(7), "Ann", Default::default());
        let asked = Asked {
            here: Here {
                chat: -100,
                title: Some("Friday"),
            },
            from: Some(&ann),
            private: Some(7),
            reachable: true,
            pressed: Some((-100, 55)),
        };
        let text = |t: &str| Screen::text(t.into());
        let replies = vec![
            Reply::Say(text("said")),
            Reply::Popup("noted".into()),
            Reply::Tell(text("told")),
            Reply::ReplaceMenu(text("closed")),
        ];
        let show = |work: Vec<Local>| -> Vec<String> {
            (work.into_iter())
                .map(|l| match l {
                    Local::Say { chat, screen } => format!("say {chat} {}", screen.text),
                    Local::Tell { chat, group, .. } => format!("tell {chat} else {group}"),
                    Local::CloseMenu {
                        chat,
                        message,
                        screen,
                    } => format!("close {chat}/{message} {:?}", screen.map(|s| s.text)),
                    other => format!("{other:?}"),
                })
                .collect()
        };
        let (work, popup) = answers(replies.clone(), &asked);
        assert_eq!(popup.as_deref(), Some("noted"));
        assert_eq!(
            show(work),
            [
                "say -100 said",
                "tell 7 else -100",
                "close -100/55 Some(\"closed\")"
            ]
        );
        // Not a press, and a person the bot cannot write to.
        let asked = Asked {
            pressed: None,
            reachable: false,
            ..asked
        };
        let (work, _) = answers(replies, &asked);
        let work = show(work);
        assert_eq!(work.len(), 2, "{work:?}");
        assert!(work[1].starts_with("say -100 ") && work[1].ends_with("\ntold"));
    }

    #[test]
    fn a_closed_menu_stays_closed_until_many_newer_ones() {
        let menus = ClosedMenus::default();
        menus.close(-100, 1);
        assert!(menus.is_closed(-100, 1) && !menus.is_closed(-100, 2));
        for m in 2..=CLOSED_MENUS as u64 {
            menus.close(-100, m);
        }
        assert!(menus.is_closed(-100, 1));
        menus.close(-100, 0);
        assert!(!menus.is_closed(-100, 1) && menus.is_closed(-100, 2));
    }
}
