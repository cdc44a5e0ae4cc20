//! The handlers' side of the paced lane: what they hand it besides the
//! service's outputs ([`Local`]), the front's replies to one input as that
//! work ([`answers`]: what concerns one person goes where they read it, a
//! menu closes only when the input was a press on it), and the menus
//! whose buttons act no more ([`ClosedMenus`]). The lane takes each
//! [`Local`] in with [`super::PacedLane::handle_local`].

use crate::Set;
use std::collections::VecDeque;
use std::hash::Hash;
use std::sync::Mutex;

use crate::engine::MessageId;
use crate::told::{Here, Told, told};
use kozyr_front::live::LiveEvent;
use kozyr_front::{Reply, Screen};
use kozyr_table::{Output, Player, TableId, TableView, UserId};

use super::Wrote;

/// A std mutex whose holder panicked is still usable: the set under it
/// is consistent after every section.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the platform's handlers hand the lane besides the service's
/// outputs ([`super::PacedLane::handle_local`]); chats by the platform's ids.
#[derive(Clone, Debug)]
pub enum Local<K> {
    /// Show this (a selection changed, a table to show again).
    Output(Output),
    /// Post this in the chat (a reply to a command or a press).
    Say { chat: K, screen: Screen },
    /// Tell one person privately in `chat`, their private chat; if the bot
    /// turns out unable to write to them there, `in_group` is posted in
    /// `group` instead ([`crate::told`]).
    Tell {
        chat: K,
        screen: Screen,
        group: K,
        in_group: Screen,
    },
    /// A menu did its job: it loses its buttons, and shows `screen`
    /// (without buttons) instead when there is one.
    CloseMenu {
        chat: K,
        message: MessageId,
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
    ChatGone(K),
    /// The bot was added to this group again.
    ChatBack(K),
    /// A person pressed a button, or wrote to the bot in private (`wrote`:
    /// their message). What they wrote brings their hands below it, posted
    /// anew: the platform tells no bot of a deletion, and a hand that is
    /// not there cannot be played from.
    Acted { user: UserId, wrote: Option<Wrote> },
    /// A person opened, closed or pressed in the Mini App.
    Live(LiveEvent),
    /// A press on one of `message`'s own buttons in `chat` was refused:
    /// they were drawn for a state of `table` gone by. Unless it is a live
    /// message, which a redraw is on its way to, it loses its buttons; one
    /// newer than the table's live message is a post a kill kept from the
    /// store, at the bottom where people look: the live one is brought
    /// below it ([`super::PacedLane::handle_outdated`]).
    Outdated {
        chat: K,
        message: MessageId,
        table: TableId,
    },
}

/// Where one input came from, as the answers to it need to know.
#[derive(Clone, Copy, Debug)]
pub struct Asked<'a, K> {
    /// The chat it was sent in.
    pub here: Here<'a, K>,
    /// Who sent it (`None`: nobody to answer to in private).
    pub from: Option<&'a Player>,
    /// Their private chat with the bot, and whether the bot can write there.
    pub private: Option<K>,
    pub reachable: bool,
    /// The message pressed on (chat, message), when it was a press.
    pub pressed: Option<(K, MessageId)>,
    /// Whether the press's data is one of the buttons the pressed message
    /// shows: a modified client may send any data on any message, and
    /// only a message's own buttons found out of date take them off.
    pub pressed_own_button: bool,
}

/// The front's `replies` to one input as the lane's work, in order, and
/// the short note that answers the press, if any. What concerns one
/// person goes where they read it ([`crate::told`]); a menu that
/// did its job is the pressed message.
pub fn answers<K: Copy + PartialEq>(
    replies: Vec<Reply>,
    asked: &Asked<'_, K>,
) -> (Vec<Local<K>>, Option<String>) {
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
            Reply::Outdated(table) => {
                let (chat, message) = asked.pressed.filter(|_| asked.pressed_own_button)?;
                Some(Local::Outdated {
                    chat,
                    message,
                    table,
                })
            }
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
#[derive(Debug)]
pub struct ClosedMenus<K>(Mutex<Closed<K>>);

/// The closed menus, and the order they closed in.
#[derive(Debug)]
struct Closed<K> {
    set: Set<Menu<K>>,
    order: VecDeque<Menu<K>>,
}

/// A menu message: (chat, message).
type Menu<K> = (K, MessageId);

impl<K> Default for ClosedMenus<K> {
    fn default() -> Self {
        ClosedMenus(Mutex::new(Closed {
            set: Set::default(),
            order: VecDeque::new(),
        }))
    }
}

impl<K: Copy + Eq + Hash> ClosedMenus<K> {
    pub fn close(&self, chat: K, message: MessageId) {
        let Closed { set, order } = &mut *lock(&self.0);
        if set.insert((chat, message)) {
            order.push_back((chat, message));
            while order.len() > CLOSED_MENUS {
                if let Some(old) = order.pop_front() {
                    set.remove(&old);
                }
            }
        }
    }

    pub fn is_closed(&self, chat: K, message: MessageId) -> bool {
        lock(&self.0).set.contains(&(chat, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each reply becomes the outbox's work, in order; a popup answers the
    /// press, and a menu closes, or a message loses buttons gone out of
    /// date, only when a press names it.
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
            pressed_own_button: true,
        };
        let text = |t: &str| Screen::text(t.into());
        let replies = vec![
            Reply::Say(text("said")),
            Reply::Popup("noted".into()),
            Reply::Tell(text("told")),
            Reply::ReplaceMenu(text("closed")),
            Reply::Outdated(TableId(3)),
        ];
        let show = |work: Vec<Local<i64>>| -> Vec<String> {
            (work.into_iter())
                .map(|l| match l {
                    Local::Say { chat, screen } => format!("say {chat} {}", screen.text),
                    Local::Tell { chat, group, .. } => format!("tell {chat} else {group}"),
                    Local::CloseMenu {
                        chat,
                        message,
                        screen,
                    } => format!("close {chat}/{message} {:?}", screen.map(|s| s.text)),
                    Local::Outdated {
                        chat,
                        message,
                        table,
                    } => format!("outdated {chat}/{message} of {}", table.0),
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
                "close -100/55 Some(\"closed\")",
                "outdated -100/55 of 3"
            ]
        );
        // Data the pressed message does not show (a modified client):
        // its buttons stay.
        let forged = Asked {
            pressed_own_button: false,
            ..asked
        };
        let (work, _) = answers(vec![Reply::Outdated(TableId(3))], &forged);
        assert!(work.is_empty(), "{work:?}");
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
