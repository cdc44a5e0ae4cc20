//! Telegram updates → the front-end's inputs. [`handle`] takes each
//! update the intake lets through (`listener`), with the shell's
//! [`Shared`] state.
//!
//! What is Telegram's own stays here: `/cmd@bot` addressing, `/start`
//! deep links, a group becoming a supergroup, the bot blocked or removed
//! (`my_chat_member`), answering every callback query. What a command or a
//! press means is [`kozyr_front::Front`]'s business.

use std::sync::Arc;

use teloxide::payloads::AnswerCallbackQuerySetters;
use teloxide::prelude::*;
use teloxide::types::{
    AllowedUpdate, CallbackQuery, ChatMemberUpdated, InlineKeyboardButtonKind,
    MaybeInaccessibleMessage, Message, UpdateKind, User,
};

use super::ids;
use super::shared::{Local, Shared, UpdateGuard};
use kozyr_delivery::lane::Wrote;
use kozyr_delivery::lane::local::{Asked, answers};
use kozyr_delivery::told::Here;
use kozyr_front::action::JoinLink;
use kozyr_front::core::{BotCommand, Origin};
use kozyr_front::{Reply, Screen};
use kozyr_i18n::{Args, key, tr, tr_html};
use kozyr_table::runtime::DedupKey;
use kozyr_table::{Platform, Player};

type HandlerResult = Result<(), teloxide::RequestError>;

/// The kinds of update the bot asks Telegram for, polling or by webhook.
pub const ALLOWED: [AllowedUpdate; 3] = [
    AllowedUpdate::Message,
    AllowedUpdate::CallbackQuery,
    AllowedUpdate::MyChatMember,
];

/// Handles one update: messages (commands, chat migrations), button
/// presses and the bot's own membership. The update is handled once the
/// last clone of `guard` is gone.
pub async fn handle(shared: Arc<Shared>, update: Update, guard: UpdateGuard) {
    let handled = match update.kind {
        UpdateKind::Message(msg) => on_message(shared, update.id.0, msg).await,
        UpdateKind::CallbackQuery(q) => on_callback(shared, q, guard).await,
        UpdateKind::MyChatMember(m) => on_my_chat_member(shared, m).await,
        _ => Ok(()),
    };
    if let Err(e) = handled {
        super::failure::log_handler_error("update handler", &e);
    }
}

/// The bot's own membership changed: a person blocked (or unblocked) it in
/// their private chat, or a group removed (or added) it.
async fn on_my_chat_member(shared: Arc<Shared>, m: ChatMemberUpdated) -> HandlerResult {
    let present = m.new_chat_member.kind.is_present();
    if let Some(user) = ids::user_of_private_chat(m.chat.id) {
        if shared.front.set_unreachable(&user, !present) {
            shared.notify(if present {
                Local::Returned(user)
            } else {
                Local::Unreachable(user)
            });
        }
    } else if present {
        shared.notify(Local::ChatBack(m.chat.id.0));
    } else {
        shared.chat_gone(m.chat.id).await;
    }
    Ok(())
}

/// A command addressed to this bot: its name (lowercase) and the rest.
fn parse_command<'a>(text: &'a str, username: &str) -> Option<(String, &'a str)> {
    let text = text.strip_prefix('/')?;
    let (head, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let (name, mention) = head.split_once('@').unwrap_or((head, ""));
    if !mention.is_empty() && !mention.eq_ignore_ascii_case(username) {
        return None;
    }
    if name.is_empty() || name.len() > 32 {
        return None;
    }
    Some((name.to_ascii_lowercase(), rest.trim()))
}

fn origin_of(msg_chat: &teloxide::types::Chat) -> Origin {
    Origin {
        chat: ids::chat_key(msg_chat.id),
        private: msg_chat.is_private(),
        title: msg_chat.title().map(str::to_owned),
    }
}

async fn on_message(shared: Arc<Shared>, update: u32, msg: Message) -> HandlerResult {
    if let Some(to) = msg.migrate_to_chat_id() {
        shared
            .front
            .chat_moved(&ids::chat_key(msg.chat.id), &ids::chat_key(*to))
            .await;
        return Ok(());
    }
    let Some(from) = msg.from.as_ref() else {
        return Ok(());
    };
    if !is_person(from, msg.sender_chat.as_ref()) {
        return from_no_person(&shared, &msg).await;
    }
    let player = shared.player_of(from);
    // Whatever a person writes to the bot, it can message them again.
    if msg.chat.is_private() && shared.front.set_unreachable(&player.id, false) {
        shared.notify(Local::Returned(player.id.clone()));
    }
    if msg.chat.is_private() {
        let (user, wrote) = (player.id.clone(), Some(Wrote(ids::message_key(msg.id))));
        shared.notify(Local::Acted { user, wrote });
    }
    let Some(text) = msg.text() else {
        return Ok(());
    };
    let Some((name, args)) = parse_command(text, &shared.username) else {
        return Ok(());
    };
    let dedup = DedupKey::update(Platform::Telegram, update);
    let origin = origin_of(&msg.chat);
    if origin.private && name == "start" && !args.is_empty() {
        let replies = match JoinLink::parse(args) {
            Ok(JoinLink { table, seat }) => {
                shared.front.join_by_link(&player, table, seat, dedup).await
            }
            Err(_) => {
                shared
                    .front
                    .command(&*shared, &player, &origin, BotCommand::Start, dedup)
                    .await
            }
        };
        return carry_out(&shared, &msg.chat, Some(&player), replies).await;
    }
    let Some(mut command) = BotCommand::parse(&name, args) else {
        return Ok(());
    };
    if command == BotCommand::Kick(None)
        && let Some(target) = msg.reply_to_message().and_then(|m| m.from.as_ref())
    {
        command = BotCommand::Kick(Some(ids::user_id(target)));
    }
    let replies = shared
        .front
        .command(&*shared, &player, &origin, command, dedup)
        .await;
    carry_out(&shared, &msg.chat, Some(&player), replies).await
}

/// Telegram's own account, the sender of a linked channel's forwarded
/// posts ("Telegram", 777000).
const TELEGRAM_SERVICE_USER: u64 = 777_000;

/// Whether `from` is a person who may take a seat: not a bot (an anonymous
/// admin's messages come from the bot "GroupAnonymousBot"), not Telegram's
/// own account, and not writing in the name of a chat (`sender_chat`).
fn is_person(from: &User, sender_chat: Option<&teloxide::types::Chat>) -> bool {
    !from.is_bot && from.id.0 != TELEGRAM_SERVICE_USER && sender_chat.is_none()
}

/// A message sent in the name of a chat (an anonymous admin writes as the
/// group, a linked channel's posts come forwarded as user 777000) or by a
/// bot: nobody to seat or to answer to. A command an anonymous admin sends
/// to this bot is told why nothing happens; the rest is let be.
async fn from_no_person(shared: &Shared, msg: &Message) -> HandlerResult {
    let as_the_group = msg
        .sender_chat
        .as_ref()
        .is_some_and(|c| c.id == msg.chat.id);
    let Some((name, args)) = msg.text().and_then(|t| parse_command(t, &shared.username)) else {
        return Ok(());
    };
    if !as_the_group || BotCommand::parse(&name, args).is_none() {
        return Ok(());
    }
    tracing::debug!(chat = msg.chat.id.0, command = %name, "a command from an anonymous admin");
    let origin = origin_of(&msg.chat);
    let lang = shared.front.chat_lang(&origin.chat, None).await;
    let text = tr_html(lang, key::ERR_ANONYMOUS, &Args::new());
    carry_out(
        shared,
        &msg.chat,
        None,
        vec![Reply::Say(Screen::text(text))],
    )
    .await
}

/// Carries out the front-end's replies to a message from `from` (`None`:
/// nobody to answer to in private). Everything posted or edited goes
/// through the outbox's scheduler, which keeps Telegram's limits and
/// retries after a 429.
async fn carry_out(
    shared: &Shared,
    chat: &teloxide::types::Chat,
    from: Option<&Player>,
    replies: Vec<Reply>,
) -> HandlerResult {
    let _ = perform(shared, chat, from, None, replies);
    Ok(())
}

/// Whether `data` is one of the buttons `message` shows (a modified client
/// may send any data on any message).
fn shows_button(message: &MaybeInaccessibleMessage, data: &str) -> bool {
    let MaybeInaccessibleMessage::Regular(m) = message else {
        return false;
    };
    let mut buttons =
        (m.reply_markup().into_iter()).flat_map(|k| k.inline_keyboard.iter().flatten());
    buttons.any(|b| matches!(&b.kind, InlineKeyboardButtonKind::CallbackData(d) if d == data))
}

/// Carries out `replies` to an input in `chat` (`pressed`: the message a
/// press was on, with the press's data); returns the popup, if any.
fn perform(
    shared: &Shared,
    chat: &teloxide::types::Chat,
    from: Option<&Player>,
    pressed: Option<(&MaybeInaccessibleMessage, &str)>,
    replies: Vec<Reply>,
) -> Option<String> {
    let asked = Asked {
        here: Here {
            chat: chat.id.0,
            title: chat.title(),
        },
        from,
        private: from.and_then(|p| ids::private_chat_of(&p.id)).map(|c| c.0),
        reachable: from.is_some_and(|p| !shared.front.is_unreachable(&p.id)),
        pressed: pressed.and_then(|(m, _)| Some((m.chat().id.0, ids::message_key(m.id())?))),
        pressed_own_button: pressed.is_some_and(|(m, data)| shows_button(m, data)),
    };
    let (work, popup) = answers(replies, &asked);
    for local in work {
        if let Local::CloseMenu { chat, message, .. } = local {
            shared.closed_menus.close(chat, message);
        }
        shared.notify(local);
    }
    popup
}

// ------------------------------------------------------------ callbacks

async fn on_callback(shared: Arc<Shared>, q: CallbackQuery, guard: UpdateGuard) -> HandlerResult {
    let player = shared.player_of(&q.from);
    let popup = if is_person(&q.from, None) {
        handle_press(&shared, &q, &player).await
    } else {
        Some(tr(player.lang, key::ERR_NOT_ALLOWED, &Args::new()))
    };
    // A press and its outcome (a popup is a refusal or a note).
    tracing::debug!(
        user = q.from.id.0,
        data = q.data.as_deref().unwrap_or(""),
        popup = popup.as_deref().unwrap_or(""),
        "press answered"
    );
    let mut req = shared.bot.answer_callback_query(q.id.clone());
    if let Some(text) = popup {
        req = req.text(text);
    }
    // Answered on a task of its own: the press is handled (committed or
    // refused) already, and the answer's round trip must not hold up the
    // chat's next update (a flood's presses, each
    // waiting there for its answer, held every other chat's updates back
    // for seconds). The update stays in flight until the answer went, so
    // a kill before it means Telegram delivers the press again and the
    // recorded outcome is answered then: no press goes unanswered.
    // A press delivered again had been answered the first time (or waited
    // past Telegram's time to answer): its spent id is logged as routine.
    tokio::spawn(async move {
        let _in_flight = guard;
        let answered = req.await;
        super::failure::record_call("answerCallbackQuery", &answered);
        if let Err(e) = answered {
            super::failure::log_handler_error("answerCallbackQuery", &e);
        }
    });
    Ok(())
}

/// Carries out a press; returns the popup to show, if any.
async fn handle_press(shared: &Shared, q: &CallbackQuery, player: &Player) -> Option<String> {
    let (Some(data), Some(message)) = (q.data.as_deref(), q.message.as_ref()) else {
        return Some(tr(player.lang, key::ERR_BAD_BUTTON, &Args::new()));
    };
    let chat = match message {
        teloxide::types::MaybeInaccessibleMessage::Regular(m) => m.chat.clone(),
        teloxide::types::MaybeInaccessibleMessage::Inaccessible(m) => m.chat.clone(),
    };
    // A menu that did its job keeps no working buttons, even while the
    // edit that removes them waits for the group's turn.
    let menu = ids::message_key(message.id()).map(|m| (chat.id.0, m));
    if menu.is_some_and(|(chat, m)| shared.closed_menus.is_closed(chat, m)) {
        return Some(tr(player.lang, key::ERR_MENU_CLOSED, &Args::new()));
    }
    shared.notify(Local::Acted {
        user: player.id.clone(),
        wrote: None,
    });
    let mut origin = origin_of(&chat);
    // A hand's buttons count only in the presser's own private chat.
    origin.private = ids::private_chat_of(&player.id) == Some(chat.id);
    let dedup = DedupKey::callback(Platform::Telegram, &q.id.0);
    let replies = shared
        .front
        .press(shared, player, &origin, data, dedup)
        .await;
    perform(shared, &chat, Some(player), Some((message, data)), replies)
}

#[cfg(test)]
mod tests {
    use super::parse_command;

    #[test]
    fn commands_addressed_to_this_bot_only() {
        let check = |text: &str, expect: Option<(&str, &str)>| {
            let got = parse_command(text, "kozyr_bot");
            assert_eq!(
                got.as_ref().map(|(n, a)| (n.as_str(), *a)),
                expect,
                "{text}"
            );
        };
        check("/new", Some(("new", "")));
        check("/new kozel", Some(("new", "kozel")));
        check("/NEW@Kozyr_Bot hearts ", Some(("new", "hearts")));
        check("/new@other_bot", None);
        check("hello", None);
        check("/", None);
    }
}
