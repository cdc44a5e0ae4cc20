//! Discord ids ↔ the table service's typed ids, once, at the edge; and
//! Discord's locales ↔ kozyr's languages.

use twilight_model::id::Id;
use twilight_model::id::marker::{ChannelMarker, UserMarker};

use kozyr_i18n::Lang;
use kozyr_table::{ChatKey, UserId};

/// A channel (or thread) as a chat: one table per channel.
pub fn chat_key(channel: Id<ChannelMarker>) -> ChatKey {
    ChatKey::Discord(channel.get())
}

pub fn user_id(user: Id<UserMarker>) -> UserId {
    UserId::Discord(user.get())
}

/// The channel behind a chat key; `None` for another platform's chat (or
/// an id Discord never gives, 0).
pub fn channel_of(chat: &ChatKey) -> Option<Id<ChannelMarker>> {
    match chat {
        ChatKey::Discord(c) => Id::new_checked(*c),
        ChatKey::Telegram(_) => None,
    }
}

pub fn user_of(user: &UserId) -> Option<Id<UserMarker>> {
    match user {
        UserId::Discord(u) => Id::new_checked(*u),
        UserId::Telegram(_) => None,
    }
}

/// kozyr's language for a Discord locale (`en-US`, `pt-BR`, `ru`, `ro`).
///
/// ```
/// use kozyr_discord::ids::lang_of;
/// use kozyr_i18n::Lang;
/// assert_eq!(lang_of("pt-BR"), Some(Lang::Pt));
/// assert_eq!(lang_of("en-GB"), Some(Lang::En));
/// assert_eq!(lang_of("de"), None);
/// ```
pub fn lang_of(locale: &str) -> Option<Lang> {
    Lang::from_code(locale)
}

/// The Discord locales a language's texts are registered under.
pub fn locales_of(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &["en-US", "en-GB"],
        Lang::Ru => &["ru"],
        Lang::Pt => &["pt-BR"],
        Lang::Ro => &["ro"],
    }
}
