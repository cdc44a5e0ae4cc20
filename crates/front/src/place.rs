//! [`HandPlace`]: where a person's cards are shown to them — the one way
//! the platforms differ that the front-end's words depend on ("your cards
//! come in a private message" would be wrong where they are a message only
//! the person sees under the table, and "My hand" where no such button is).

use kozyr_i18n::{Key, key};
use kozyr_table::{ChatKey, Platform};

/// Where the people at a chat's tables see their cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandPlace {
    /// In their private chat with the bot, beside the group (Telegram):
    /// hands are messages there, and the bot must be allowed to write.
    PrivateChat,
    /// Under the table, behind its "My hand" button, in a message only
    /// they see (Discord's ephemeral messages).
    HandButton,
}

impl HandPlace {
    /// Where the hands of tables in `chat` (or of a person writing in it)
    /// are shown: it follows from the platform the chat is on, and this is
    /// the one place that says so.
    ///
    /// ```
    /// use kozyr_front::HandPlace;
    /// use kozyr_table::ChatKey;
    /// assert_eq!(HandPlace::of(&ChatKey::Telegram(-100)), HandPlace::PrivateChat);
    /// assert_eq!(HandPlace::of(&ChatKey::Discord(7)), HandPlace::HandButton);
    /// ```
    pub fn of(chat: &ChatKey) -> HandPlace {
        match chat.platform() {
            Platform::Telegram => HandPlace::PrivateChat,
            Platform::Discord => HandPlace::HandButton,
        }
    }

    /// `/help` in a group or channel.
    pub fn help_group(self) -> Key {
        self.pick(key::HELP_GROUP, key::HELP_GROUP_HAND_BUTTON)
    }

    /// `/help` in a person's private chat with the bot.
    pub fn help_private(self) -> Key {
        self.pick(key::HELP_PRIVATE, key::HELP_PRIVATE_HAND_BUTTON)
    }

    /// The note to a person who took a seat.
    pub fn seated(self) -> Key {
        self.pick(key::START_SEATED, key::START_SEATED_HAND_BUTTON)
    }

    /// The announcement that a series begins.
    pub fn game_begins(self) -> Key {
        self.pick(key::GAME_BEGINS, key::GAME_BEGINS_HAND_BUTTON)
    }

    fn pick(self, private_chat: Key, hand_button: Key) -> Key {
        match self {
            HandPlace::PrivateChat => private_chat,
            HandPlace::HandButton => hand_button,
        }
    }
}
