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
use kozyr_cards::{Card, Seat};
use kozyr_table::TableId;

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

/// One button: a plain-text label and what pressing it does; a hand's
/// card button also says, typed, what its label shows of the card.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Button {
    pub label: String,
    pub target: ButtonTarget,
    /// The card this button shows (a hand's card), whose label is
    /// [`CardFace::label`]: platforms that draw cards their own way (a
    /// select menu, the Mini App) read this, never the label.
    pub card: Option<CardFace>,
}

/// A card in a hand, as its button shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CardFace {
    pub card: Card,
    /// In the person's selection (✓).
    pub selected: bool,
    /// Of the trump suit (★).
    pub trump: bool,
    /// On the seat's turn no move plays it now (✗); pressing it is
    /// refused with the reason.
    pub barred: bool,
    /// Some move open now puts it down (set for every hand by
    /// `front::outputs::hand_screen`, from the moves themselves).
    pub playable: bool,
    /// The mark of a Kozel answer its one tap makes (⚔ beat, ↓ discard);
    /// `None` for a card its press selects, or plays as it is (Hearts).
    pub move_mark: Option<MoveMark>,
}

/// Which Kozel answer a card's one tap makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveMark {
    /// Kozel: beat the trick with this card (⚔).
    Beat,
    /// Kozel: discard this card (↓).
    Discard,
}

impl CardFace {
    /// A card to select, unmarked.
    pub fn of(card: Card) -> CardFace {
        CardFace {
            card,
            selected: false,
            trump: false,
            barred: false,
            playable: false,
            move_mark: None,
        }
    }

    /// The marks of the move its press makes (⚔ beat, ↓ discard).
    fn move_glyph(&self) -> &'static str {
        match self.move_mark {
            Some(MoveMark::Beat) => "⚔",
            Some(MoveMark::Discard) => "↓",
            None => "",
        }
    }

    /// What the card's button adds to its face, without the selection's
    /// ✓: ✗ when barred, the move's ⚔ or ↓, ★ for a trump.
    pub fn marks(&self) -> String {
        let barred = if self.barred { CardFace::BARRED } else { "" };
        let trump = if self.trump { "★" } else { "" };
        format!("{barred}{}{trump}", self.move_glyph())
    }

    /// The button's label: `✗✓⚔10♠★`, each mark only where it applies.
    pub fn label(&self) -> String {
        let barred = if self.barred { CardFace::BARRED } else { "" };
        let selected = if self.selected { "✓" } else { "" };
        let trump = if self.trump { "★" } else { "" };
        let (glyph, moves) = (self.card.glyph(), self.move_glyph());
        format!("{barred}{selected}{moves}{glyph}{trump}")
    }

    /// The mark of a barred card, which the hand's hint line names.
    pub const BARRED: &'static str = "✗";
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
            card: None,
        }
    }

    /// A hand's card button, labelled from its face.
    pub fn card(face: CardFace, press: Press) -> Button {
        Button {
            label: face.label(),
            target: ButtonTarget::Press(press),
            card: Some(face),
        }
    }

    pub fn live_view(label: impl Into<String>, table: TableId) -> Button {
        Button {
            label: label.into(),
            target: ButtonTarget::LiveView { table },
            card: None,
        }
    }

    pub fn live_link(label: impl Into<String>, table: TableId) -> Button {
        Button {
            label: label.into(),
            target: ButtonTarget::LiveLink { table },
            card: None,
        }
    }

    pub fn onboard(label: impl Into<String>, table: TableId, seat: Seat) -> Button {
        Button {
            label: label.into(),
            target: ButtonTarget::Onboard { table, seat },
            card: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_face_is_its_label_and_its_marks() {
        let ten = "TS".parse().unwrap();
        let plain = CardFace::of(ten);
        assert_eq!(
            (plain.label(), plain.marks()),
            ("10♠".into(), String::new())
        );
        let all = CardFace {
            selected: true,
            trump: true,
            barred: true,
            move_mark: Some(MoveMark::Beat),
            ..plain
        };
        assert_eq!(all.label(), "✗✓⚔10♠★");
        // The selection is the page's own to draw: not a mark.
        assert_eq!(all.marks(), "✗⚔★");
        let discard = CardFace {
            move_mark: Some(MoveMark::Discard),
            ..plain
        };
        assert_eq!(discard.label(), "↓10♠");
        let press = Press::Table {
            table: TableId(1),
            version: 1,
            action: crate::action::TableAction::Toggle(ten),
        };
        let b = Button::card(all, press);
        assert_eq!((b.label.as_str(), b.card), ("✗✓⚔10♠★", Some(all)));
    }
}
