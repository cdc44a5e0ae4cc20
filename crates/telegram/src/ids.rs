//! Telegram's ids as kozyr's typed ids, converted here and nowhere else.

use teloxide::types::{ChatId, MessageId, User};

use kozyr_i18n::Lang;

use kozyr_table::{ChatKey, UserId};

pub fn chat_key(chat: ChatId) -> ChatKey {
    ChatKey::Telegram(chat.0)
}

pub fn user_id(user: &User) -> UserId {
    UserId::Telegram(user.id.0)
}

/// The chat of a Telegram chat key; `None` for another platform's.
pub fn chat_id(chat: &ChatKey) -> Option<ChatId> {
    match chat {
        ChatKey::Telegram(id) => Some(ChatId(*id)),
        ChatKey::Discord(_) => None,
    }
}

/// The private chat in which the bot talks to `user`. The Bot API defines
/// a private chat's id as the id of the user it is with; this is the one
/// place that relies on it. `None` for another platform's user.
pub fn private_chat_of(user: &UserId) -> Option<ChatId> {
    match user {
        UserId::Telegram(id) => i64::try_from(*id).ok().map(ChatId),
        UserId::Discord(_) => None,
    }
}

/// The person whose private chat `chat` is; `None` for a group.
pub fn user_of_private_chat(chat: ChatId) -> Option<UserId> {
    u64::try_from(chat.0)
        .ok()
        .filter(|_| chat.is_user())
        .map(UserId::Telegram)
}

/// A message id as delivery keeps it (Telegram's are positive).
pub fn message_key(m: MessageId) -> Option<u64> {
    u64::try_from(m.0).ok()
}

/// The language a person's Telegram app is set to, if kozyr speaks it.
pub fn lang_of(u: &User) -> Option<Lang> {
    u.language_code.as_deref().and_then(Lang::from_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_chats_and_users_map_both_ways() {
        let user = UserId::Telegram(42);
        let chat = private_chat_of(&user).unwrap();
        assert_eq!(user_of_private_chat(chat), Some(user));
        assert_eq!(user_of_private_chat(ChatId(-100)), None);
        assert_eq!(private_chat_of(&UserId::Discord(42)), None);
        assert_eq!(chat_id(&chat_key(ChatId(-100))), Some(ChatId(-100)));
    }
}
