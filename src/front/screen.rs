//! Screens as data: what a chat or a person is shown, before any platform
//! turns it into its own markup and buttons.
//!
//! A [`Screen`] is rich text ([`Rich`], built from kozyr's small markup:
//! `<b>`, `<i>`, `<code>` and escaped text) and rows of [`Button`]s. A
//! button either sends a [`Press`] back (encoded by the shell into the
//! platform's callback data or custom id) or opens the bot's private chat
//! to seat a person ([`ButtonTarget::Onboard`]; Telegram draws a deep link),
//! or opens the table's live view, the Mini App ([`ButtonTarget::LiveView`]
//! in a private hand, [`ButtonTarget::LiveLink`] under the group's table;
//! a platform without one leaves them out).

use super::action::Press;
use super::rich::Rich;
use crate::cards::Seat;
use crate::table::TableId;

/// A message to send or to edit in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Screen {
    /// kozyr markup: `<b>`, `<i>`, `<code>`, with `&lt; &gt; &amp; &quot;`
    /// escapes for everything people typed. [`Screen::rich`] parses it.
    pub text: String,
    pub keyboard: Keyboard,
}

impl Screen {
    /// A screen without buttons.
    pub fn text(text: String) -> Screen {
        Screen {
            text,
            keyboard: Keyboard::default(),
        }
    }

    /// The text as a rich-text model, for a platform to serialize.
    pub fn rich(&self) -> Rich {
        Rich::from_markup(&self.text)
    }

    /// Every button's press, for checks and tests.
    pub fn presses(&self) -> impl Iterator<Item = Press> + '_ {
        self.keyboard.buttons().filter_map(|b| match b.target {
            ButtonTarget::Press(p) => Some(p),
            ButtonTarget::Onboard { .. }
            | ButtonTarget::LiveView { .. }
            | ButtonTarget::LiveLink { .. } => None,
        })
    }
}

/// Rows of buttons; empty when the message has none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Keyboard {
    pub rows: Vec<Vec<Button>>,
}

impl Keyboard {
    pub fn new<R, B>(rows: R) -> Keyboard
    where
        R: IntoIterator<Item = B>,
        B: IntoIterator<Item = Button>,
    {
        Keyboard {
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().collect::<Vec<_>>())
                .filter(|r| !r.is_empty())
                .collect(),
        }
    }

    pub fn append_row(mut self, row: impl IntoIterator<Item = Button>) -> Keyboard {
        let row: Vec<Button> = row.into_iter().collect();
        if !row.is_empty() {
            self.rows.push(row);
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn buttons(&self) -> impl Iterator<Item = &Button> {
        self.rows.iter().flatten()
    }
}

/// One button: a plain-text label and what pressing it does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Button {
    pub label: String,
    pub target: ButtonTarget,
}

/// What a button does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ButtonTarget {
    /// Comes back to the bot as this press.
    Press(Press),
    /// Opens the bot's private chat and seats the person who opens it there.
    Onboard { table: TableId, seat: Seat },
    /// Opens the Mini App at this table inside the chat app (Telegram: a
    /// `web_app` button, which Telegram allows in private chats only).
    LiveView { table: TableId },
    /// A link that opens the Mini App at this table from a group
    /// (Telegram: the app's direct link with the table as start parameter).
    LiveLink { table: TableId },
}

impl Button {
    pub fn press(label: impl Into<String>, press: Press) -> Button {
        Button {
            label: label.into(),
            target: ButtonTarget::Press(press),
        }
    }

    pub fn live_view(label: impl Into<String>, table: TableId) -> Button {
        Button {
            label: label.into(),
            target: ButtonTarget::LiveView { table },
        }
    }

    pub fn live_link(label: impl Into<String>, table: TableId) -> Button {
        Button {
            label: label.into(),
            target: ButtonTarget::LiveLink { table },
        }
    }

    pub fn onboard(label: impl Into<String>, table: TableId, seat: Seat) -> Button {
        Button {
            label: label.into(),
            target: ButtonTarget::Onboard { table, seat },
        }
    }
}
