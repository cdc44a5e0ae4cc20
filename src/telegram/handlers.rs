//! Updates → table-service commands. [`schema`] is the whole handler tree;
//! its only dependency is the front-end's [`Shared`] state (and the `Bot`
//! the dispatcher adds), so tests drive it through a real dispatcher.
//!
//! Every callback query is answered, with a popup in the presser's
//! language when the press did nothing. Callback data is untrusted: it is
//! parsed strictly, a hand's buttons act only for the presser's own seat
//! and only from their private chat, actions carry the table's version
//! (a press from an older state is refused), and each press and command
//! carries a de-duplication key (the callback query id, the update id), so
//! a redelivered update applies once.

use std::sync::Arc;

use teloxide::dispatching::UpdateHandler;
use teloxide::payloads::{AnswerCallbackQuerySetters, SendMessageSetters};
use teloxide::prelude::*;
use teloxide::types::{CallbackQuery, ChatId, Message, ParseMode, User};

use super::bot::Shared;
use super::callback::{Callback, ChatAction, TableAction};
use super::deeplink::DeepLink;
use super::render::{self, Rendered};
use crate::game::{GameAction, GameKind};
use crate::i18n::{Args, Key, Lang, key, tr, tr_html};
use crate::table::runtime::{Ack, Request, ServiceError, Target};
use crate::table::{
    Actor, ChatKey, Command, Effect, Platform, Player, Settings, Table, TableError, TableId,
    TurnTimer, UserId,
};
use crate::{hearts, kozel};

type HandlerResult = Result<(), teloxide::RequestError>;

/// The handler tree: messages (commands, chat migrations) and button presses.
pub fn schema() -> UpdateHandler<teloxide::RequestError> {
    dptree::entry()
        .branch(Update::filter_message().endpoint(on_message))
        .branch(Update::filter_callback_query().endpoint(on_callback))
}

fn user_id(u: &User) -> Option<UserId> {
    UserId::new(u.id.0.to_string()).ok()
}

fn player_of(u: &User, fallback: Lang) -> Option<Player> {
    let lang = u
        .language_code
        .as_deref()
        .and_then(Lang::from_code)
        .unwrap_or(fallback);
    Some(Player::new(user_id(u)?, &u.full_name(), lang))
}

fn chat_key(chat: ChatId) -> Option<ChatKey> {
    ChatKey::new(Platform::Telegram, chat.0.to_string()).ok()
}

/// The language for messages in `chat` outside a table's own texts.
async fn chat_lang(shared: &Shared, chat: ChatId, user: Option<&User>) -> Lang {
    if let Some(k) = chat_key(chat)
        && !chat.is_user()
        && let Ok(Some(l)) = shared.service.store().chat_language(&k).await
    {
        return l;
    }
    user.and_then(|u| u.language_code.as_deref())
        .and_then(Lang::from_code)
        .unwrap_or(shared.default_lang)
}

fn text_of(lang: Lang, k: Key) -> String {
    tr_html(lang, k, &Args::new())
}

async fn say(bot: &Bot, chat: ChatId, text: String) -> HandlerResult {
    bot.send_message(chat, text)
        .parse_mode(ParseMode::Html)
        .await
        .map(drop)
}

async fn say_rendered(bot: &Bot, chat: ChatId, r: Rendered) -> HandlerResult {
    let mut req = bot
        .send_message(chat, r.text.clone())
        .parse_mode(ParseMode::Html);
    if let Some(kb) = r.markup() {
        req = req.reply_markup(kb.clone());
    }
    req.await.map(drop)
}

/// The popup key for a refused command.
fn refusal(lang: Lang, e: &ServiceError) -> String {
    let k = match e {
        ServiceError::Store(_) => key::ERR_TRY_AGAIN,
        ServiceError::Rejected(e) => match e {
            TableError::Illegal(g) => return render::rule_error(lang, g),
            TableError::NoOpenTable => key::ERR_NO_TABLE,
            TableError::TableAlreadyOpen => key::ERR_TABLE_EXISTS,
            TableError::NotAllowed => key::ERR_NOT_ALLOWED,
            TableError::NotSeated | TableError::NotYourSeat | TableError::UnknownPlayer => {
                key::ERR_NOT_SEATED
            }
            TableError::AlreadySeated => key::ERR_ALREADY_SEATED,
            TableError::TableFull => key::ERR_TABLE_FULL,
            TableError::SeatTaken { .. } => key::ERR_SEAT_TAKEN,
            TableError::SeatsNotFilled => key::ERR_NEED_FOUR,
            TableError::GameInProgress => key::ERR_GAME_STARTED,
            TableError::NotYourTurn => key::ERR_NOT_YOUR_TURN,
            TableError::TableClosed
            | TableError::NotPlaying
            | TableError::NotFinished
            | TableError::SeatAway
            | TableError::NotAway
            | TableError::StaleVersion { .. } => key::ERR_STALE,
            TableError::NotAnAi { .. } | TableError::SameSeat => key::ERR_BAD_BUTTON,
            TableError::NoTimer
            | TableError::TimerNotDue
            | TableError::SameChat
            | TableError::Internal(_) => key::ERR_TRY_AGAIN,
        },
    };
    tr(lang, k, &Args::new())
}

async fn submit(
    shared: &Shared,
    target: Target,
    actor: Actor,
    command: Command,
    dedup: String,
) -> Result<Ack, ServiceError> {
    let r = shared
        .service
        .submit(Request {
            target,
            actor,
            command,
            dedup: Some(dedup),
        })
        .await;
    if let Err(ServiceError::Store(e)) = &r {
        tracing::error!(error = %e, "store failure");
    }
    r
}

// ------------------------------------------------------------- messages

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

async fn on_message(bot: Bot, shared: Arc<Shared>, upd: Update, msg: Message) -> HandlerResult {
    if let Some(to) = msg.migrate_to_chat_id() {
        if let (Some(from), Some(to)) = (chat_key(msg.chat.id), chat_key(*to)) {
            let r = shared
                .service
                .submit(Request {
                    target: Target::Chat(from),
                    actor: Actor::System,
                    command: Command::MigrateChat { to },
                    dedup: Some(format!("tg:migrate:{}", msg.chat.id.0)),
                })
                .await;
            if let Err(e) = r
                && e.rejection().is_none()
            {
                tracing::error!(error = %e, "chat migration failed");
            }
        }
        return Ok(());
    }
    let (Some(text), Some(from)) = (msg.text(), msg.from.as_ref()) else {
        return Ok(());
    };
    let Some((name, args)) = parse_command(text, &shared.username) else {
        return Ok(());
    };
    if let Some(id) = user_id(from) {
        shared.remember_name(&id, &from.full_name());
    }
    let chat = msg.chat.id;
    let dedup = format!("tg:update:{}", upd.id.0);
    if chat.is_user() {
        return private_command(&bot, &shared, from, &name, args, &dedup).await;
    }
    let lang = chat_lang(&shared, chat, Some(from)).await;
    match name.as_str() {
        "new" => match args.to_ascii_lowercase().as_str() {
            "kozel" => create(&bot, &shared, &msg, from, GameKind::Kozel, &dedup).await,
            "hearts" => create(&bot, &shared, &msg, from, GameKind::Hearts, &dedup).await,
            _ => say_rendered(&bot, chat, render::game_menu(lang, 0)).await,
        },
        "kozel" => create(&bot, &shared, &msg, from, GameKind::Kozel, &dedup).await,
        "hearts" => create(&bot, &shared, &msg, from, GameKind::Hearts, &dedup).await,
        "help" | "start" => say(&bot, chat, text_of(lang, key::HELP_GROUP)).await,
        "rules" => {
            let table = open_table(&shared, chat).await;
            let text = match table.map(|t| t.kind()) {
                Some(GameKind::Kozel) => text_of(lang, key::RULES_KOZEL),
                Some(GameKind::Hearts) => text_of(lang, key::RULES_HEARTS),
                None => format!(
                    "{}\n\n{}",
                    text_of(lang, key::RULES_KOZEL),
                    text_of(lang, key::RULES_HEARTS)
                ),
            };
            say(&bot, chat, text).await
        }
        "score" => {
            let text = match open_table(&shared, chat).await {
                Some(t) if t.game().is_some() => score_text(&t.view()),
                _ => None,
            };
            say(
                &bot,
                chat,
                text.unwrap_or_else(|| text_of(lang, key::SCORE_NONE)),
            )
            .await
        }
        "stats" => say(&bot, chat, stats_text(&shared, chat, lang).await).await,
        "settings" => {
            if !shared.is_admin(chat, from.id).await {
                return say(&bot, chat, text_of(lang, key::ERR_ADMIN_ONLY)).await;
            }
            let table = open_table(&shared, chat).await;
            let s = table.as_ref().map_or_else(
                || Settings {
                    lang,
                    turn_timer: shared.default_turn_timer,
                    ..Settings::default()
                },
                |t| *t.settings(),
            );
            let info = render::SettingsInfo {
                version: table.as_ref().map_or(0, Table::version),
                lang: s.lang,
                turn_timer: s.turn_timer.map(TurnTimer::secs),
                hearts_end_score: s.options.hearts.end_score,
                shoot_the_moon: s.options.hearts.shoot_the_moon,
            };
            say_rendered(&bot, chat, render::settings(lang, &info)).await
        }
        "stop" => match open_table(&shared, chat).await {
            Some(t) => {
                let info = render::TableInfo {
                    table: t.id().0 as u64,
                    version: t.version(),
                    game: t.kind(),
                    seats: crate::cards::PerSeat::from_fn(|_| None),
                    turn_time_left: None,
                    last_trick: None,
                };
                say_rendered(&bot, chat, render::stop_prompt(lang, &info)).await
            }
            None => say(&bot, chat, text_of(lang, key::ERR_NO_TABLE)).await,
        },
        "kick" => {
            let target = msg.reply_to_message().and_then(|m| m.from.as_ref());
            let Some(target) = target.and_then(user_id) else {
                return say(&bot, chat, text_of(lang, key::KICK_HOW)).await;
            };
            let admin = shared.is_admin(chat, from.id).await;
            if !admin {
                return say(&bot, chat, text_of(lang, key::ERR_ADMIN_ONLY)).await;
            }
            let Some(actor) = person(&shared, from, admin) else {
                return Ok(());
            };
            let Some(k) = chat_key(chat) else {
                return Ok(());
            };
            match submit(
                &shared,
                Target::Chat(k),
                actor,
                Command::Kick { user: target },
                dedup,
            )
            .await
            {
                Ok(_) => Ok(()),
                Err(e) => say(&bot, chat, refusal(lang, &e)).await,
            }
        }
        "lang" => say_rendered(&bot, chat, render::language_menu(lang, 0)).await,
        _ => Ok(()),
    }
}

fn person(shared: &Shared, from: &User, admin: bool) -> Option<Actor> {
    Some(Actor::Person {
        player: player_of(from, shared.default_lang)?,
        admin,
    })
}

async fn open_table(shared: &Shared, chat: ChatId) -> Option<Table> {
    let k = chat_key(chat)?;
    shared.service.open_table(&k).await.ok().flatten()
}

fn score_text(view: &crate::table::TableView) -> Option<String> {
    let game = view.game.as_ref()?;
    let lang = view.settings.lang;
    let info = render::TableInfo {
        table: view.id.0 as u64,
        version: view.version,
        game: view.kind,
        seats: crate::cards::PerSeat::from_fn(|s| {
            view.seats[s]
                .person()
                .map(|p| render::Occupant::human(p.name.clone()))
        }),
        turn_time_left: None,
        last_trick: None,
    };
    Some(render::table(lang, &info, game).text)
}

async fn stats_text(shared: &Shared, chat: ChatId, lang: Lang) -> String {
    let Some(k) = chat_key(chat) else {
        return text_of(lang, key::STATS_EMPTY);
    };
    let game = open_table(shared, chat)
        .await
        .map_or(GameKind::Kozel, |t| t.kind());
    let board = match shared.service.store().leaderboard(&k, game, 10).await {
        Ok(b) => b,
        Err(e) => {
            tracing::error!(error = %e, "leaderboard");
            return tr(lang, key::ERR_TRY_AGAIN, &Args::new());
        }
    };
    if board.is_empty() {
        return text_of(lang, key::STATS_EMPTY);
    }
    let mut out = vec![text_of(lang, key::STATS_TITLE)];
    for (i, p) in board.iter().enumerate() {
        out.push(tr_html(
            lang,
            key::STATS_LINE,
            &Args::new()
                .num("place", i as i64 + 1)
                .text("name", p.name.clone().unwrap_or_else(|| "?".to_owned()))
                .num("games", p.counters.series_played)
                .num("wins", p.counters.series_won),
        ));
        if p.counters.goat > 0 {
            out.push(tr_html(
                lang,
                key::STATS_GOATS,
                &Args::new().num("count", p.counters.goat),
            ));
        }
    }
    out.join("\n")
}

async fn create(
    bot: &Bot,
    shared: &Shared,
    msg: &Message,
    from: &User,
    kind: GameKind,
    dedup: &str,
) -> HandlerResult {
    let chat = msg.chat.id;
    let lang = chat_lang(shared, chat, Some(from)).await;
    match create_table(shared, chat, msg.chat.title(), from, kind, lang, dedup).await {
        Ok(_) => Ok(()),
        Err(e) => say(bot, chat, refusal(lang, &e)).await,
    }
}

async fn create_table(
    shared: &Shared,
    chat: ChatId,
    title: Option<&str>,
    from: &User,
    kind: GameKind,
    lang: Lang,
    dedup: &str,
) -> Result<Ack, ServiceError> {
    let Some(k) = chat_key(chat) else {
        return Err(TableError::Internal("chat id".into()).into());
    };
    let Some(player) = player_of(from, shared.default_lang) else {
        return Err(TableError::Internal("user id".into()).into());
    };
    let settings = Settings {
        lang,
        turn_timer: shared.default_turn_timer,
        ..Settings::default()
    };
    submit(
        shared,
        Target::Chat(k),
        Actor::person(player),
        Command::Create {
            kind,
            settings,
            title: title.unwrap_or("—").to_owned(),
            sit: true,
        },
        dedup.to_owned(),
    )
    .await
}

async fn private_command(
    bot: &Bot,
    shared: &Shared,
    from: &User,
    name: &str,
    args: &str,
    dedup: &str,
) -> HandlerResult {
    let chat = ChatId(from.id.0 as i64);
    let lang = chat_lang(shared, chat, Some(from)).await;
    let Some(user) = user_id(from) else {
        return Ok(());
    };
    // They wrote to the bot: it can message them again.
    if shared.set_unreachable(&user, false) {
        rerender_tables_of(shared, &user).await;
    }
    match name {
        "start" if !args.is_empty() => {
            let Ok(DeepLink::Join { table, seat }) = DeepLink::parse(args) else {
                return say(bot, chat, text_of(lang, key::START_WELCOME)).await;
            };
            let table = TableId(i64::try_from(table).unwrap_or(-1));
            let Some(actor) = person(shared, from, false) else {
                return Ok(());
            };
            shared.note_table(&user, table);
            let r = submit(
                shared,
                Target::Table(table),
                actor,
                Command::Join { seat },
                dedup.to_owned(),
            )
            .await;
            match r {
                Ok(_) | Err(ServiceError::Rejected(TableError::AlreadySeated)) => {
                    let t = shared.service.table(table).await.ok().flatten();
                    let (title, seat) = t
                        .as_ref()
                        .map(|t| (t.title().to_owned(), t.seat_of(&user)))
                        .unwrap_or_default();
                    let n = seat.map_or(0, |s| s.index() as i64 + 1);
                    say(
                        bot,
                        chat,
                        tr_html(
                            lang,
                            key::START_SEATED,
                            &Args::new().text("group", title).num("seat", n),
                        ),
                    )
                    .await?;
                    rerender_tables_of(shared, &user).await;
                    Ok(())
                }
                Err(e) => say(bot, chat, refusal(lang, &e)).await,
            }
        }
        "start" => say(bot, chat, text_of(lang, key::START_WELCOME)).await,
        "help" => say(bot, chat, text_of(lang, key::HELP_PRIVATE)).await,
        "rules" => {
            say(
                bot,
                chat,
                format!(
                    "{}\n\n{}",
                    text_of(lang, key::RULES_KOZEL),
                    text_of(lang, key::RULES_HEARTS)
                ),
            )
            .await
        }
        _ => say(bot, chat, text_of(lang, key::ERR_GROUP_ONLY)).await,
    }
}

/// Renders again the tables (and hands) of `user` the front-end knows of.
async fn rerender_tables_of(shared: &Shared, user: &UserId) {
    for id in shared.known_tables_of(user) {
        if let Ok(Some(t)) = shared.service.table(id).await {
            shared.rerender(Effect::RenderTable(Box::new(t.view())));
            if let Some(seat) = t.seat_of(user)
                && let Some(h) = t.hand_view(seat)
            {
                shared.rerender(Effect::RenderHand(Box::new(h)));
            }
        }
    }
}

// ------------------------------------------------------------ callbacks

async fn answer(bot: &Bot, q: &CallbackQuery, popup: Option<String>) -> HandlerResult {
    let mut req = bot.answer_callback_query(q.id.clone());
    if let Some(text) = popup {
        req = req.text(text);
    }
    req.await.map(drop)
}

async fn on_callback(bot: Bot, shared: Arc<Shared>, q: CallbackQuery) -> HandlerResult {
    let lang = q
        .from
        .language_code
        .as_deref()
        .and_then(Lang::from_code)
        .unwrap_or(shared.default_lang);
    let popup = match handle_press(&bot, &shared, &q, lang).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e, "a button press failed");
            Some(tr(lang, key::ERR_TRY_AGAIN, &Args::new()))
        }
    };
    answer(&bot, &q, popup).await
}

/// Carries out a press; returns the popup to show, if any.
async fn handle_press(
    bot: &Bot,
    shared: &Shared,
    q: &CallbackQuery,
    lang: Lang,
) -> Result<Option<String>, teloxide::RequestError> {
    let bad = || Some(tr(lang, key::ERR_BAD_BUTTON, &Args::new()));
    let (Some(data), Some(message)) = (q.data.as_deref(), q.message.as_ref()) else {
        return Ok(bad());
    };
    let Ok(callback) = Callback::parse(data) else {
        return Ok(bad());
    };
    let Some(user) = user_id(&q.from) else {
        return Ok(bad());
    };
    shared.remember_name(&user, &q.from.full_name());
    let chat = message.chat().id;
    let dedup = format!("tg:callback:{}", q.id);
    match callback {
        Callback::Chat { action, .. } => {
            chat_press(bot, shared, q, chat, action, lang, dedup).await
        }
        Callback::Table {
            table,
            version,
            action,
        } => {
            let Ok(id) = i64::try_from(table) else {
                return Ok(bad());
            };
            let id = TableId(id);
            let Ok(Some(t)) = shared.service.table(id).await else {
                return Ok(Some(tr(lang, key::ERR_STALE, &Args::new())));
            };
            shared.note_table(&user, id);
            let in_own_dm = chat.0 == q.from.id.0 as i64;
            let in_table_chat = t.chat().id() == chat.0.to_string();
            let hand_action = matches!(
                action,
                TableAction::Toggle(_)
                    | TableAction::Clear
                    | TableAction::Lead(_)
                    | TableAction::Beat(_)
                    | TableAction::Pass(_)
                    | TableAction::Molodka
                    | TableAction::HeartsPass(_)
                    | TableAction::HeartsPlay(_)
                    | TableAction::TakeBack
            );
            // Hand buttons live in the person's private chat; table buttons
            // in the table's chat. Anything else was not drawn by kozyr.
            if (hand_action && !in_own_dm) || (!hand_action && !in_table_chat) {
                return Ok(bad());
            }
            table_press(bot, shared, q, &t, version, action, &user, lang, dedup).await
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn chat_press(
    bot: &Bot,
    shared: &Shared,
    q: &CallbackQuery,
    chat: ChatId,
    action: ChatAction,
    lang: Lang,
    dedup: String,
) -> Result<Option<String>, teloxide::RequestError> {
    if chat.is_user() {
        return Ok(Some(tr(lang, key::ERR_GROUP_ONLY, &Args::new())));
    }
    let title = q
        .message
        .as_ref()
        .and_then(|m| m.regular_message())
        .and_then(|m| m.chat.title())
        .map(str::to_owned);
    let chat_lang = chat_lang(shared, chat, Some(&q.from)).await;
    if let ChatAction::NewTable(kind) = action {
        return Ok(
            match create_table(
                shared,
                chat,
                title.as_deref(),
                &q.from,
                kind,
                chat_lang,
                &dedup,
            )
            .await
            {
                Ok(_) => None,
                Err(e) => Some(refusal(lang, &e)),
            },
        );
    }
    if !shared.is_admin(chat, q.from.id).await {
        return Ok(Some(tr(lang, key::ERR_ADMIN_ONLY, &Args::new())));
    }
    let Some(k) = chat_key(chat) else {
        return Ok(None);
    };
    let table = shared.service.open_table(&k).await.ok().flatten();
    let mut settings = table.as_ref().map_or(
        Settings {
            lang: chat_lang,
            turn_timer: shared.default_turn_timer,
            ..Settings::default()
        },
        |t| *t.settings(),
    );
    match action {
        ChatAction::NewTable(_) => {}
        ChatAction::SetLanguage(l) => {
            settings.lang = l;
            if let Err(e) = shared
                .service
                .store()
                .save_chat_language(&k, l, shared.service.now())
                .await
            {
                tracing::error!(error = %e, "saving the chat language");
                return Ok(Some(tr(lang, key::ERR_TRY_AGAIN, &Args::new())));
            }
            say(
                bot,
                chat,
                tr_html(l, key::LANG_SET, &Args::new().text("lang", l.native_name())),
            )
            .await?;
        }
        ChatAction::SetTurnTimer(secs) => {
            settings.turn_timer = secs.and_then(TurnTimer::from_secs);
        }
        ChatAction::SetHeartsEndScore(n) => {
            if !render::lobby::END_SCORE_CHOICES.contains(&n) {
                return Ok(Some(tr(lang, key::ERR_BAD_BUTTON, &Args::new())));
            }
            settings.options.hearts.end_score = n;
        }
        ChatAction::SetShootTheMoon(on) => settings.options.hearts.shoot_the_moon = on,
    }
    if table.is_some() {
        let Some(actor) = person(shared, &q.from, true) else {
            return Ok(None);
        };
        if let Err(e) = submit(
            shared,
            Target::Chat(k),
            actor,
            Command::ChangeSettings { settings },
            dedup,
        )
        .await
        {
            return Ok(Some(refusal(lang, &e)));
        }
    }
    Ok(Some(tr(lang, key::SETTINGS_SAVED, &Args::new())))
}

#[allow(clippy::too_many_arguments)]
async fn table_press(
    bot: &Bot,
    shared: &Shared,
    q: &CallbackQuery,
    t: &Table,
    version: u64,
    action: TableAction,
    user: &UserId,
    lang: Lang,
    dedup: String,
) -> Result<Option<String>, teloxide::RequestError> {
    let stale = || Some(tr(lang, key::ERR_STALE, &Args::new()));
    let id = t.id();
    let seat = t.seat_of(user);
    let game_action = |a: GameAction| -> Option<GameAction> { Some(a) };
    let act = match action {
        TableAction::Toggle(card) => {
            // Selection is the person's own UI state: it needs their seat
            // and the card in their hand, not the exact version.
            let Some(seat) = seat else {
                return Ok(Some(tr(lang, key::ERR_NOT_SEATED, &Args::new())));
            };
            let Some(hand) = t.hand_view(seat) else {
                return Ok(stale());
            };
            if !hand_cards(&hand.game).contains(card) {
                return Ok(stale());
            }
            let mut sel = shared.selection(user, id) & hand_cards(&hand.game);
            if sel.contains(card) {
                sel.remove(card);
            } else {
                sel.insert(card);
            }
            shared.set_selection(user, id, sel);
            shared.rerender(Effect::RenderHand(Box::new(hand)));
            return Ok(None);
        }
        TableAction::Clear => {
            shared.clear_selection(user, id);
            if let Some(h) = seat.and_then(|s| t.hand_view(s)) {
                shared.rerender(Effect::RenderHand(Box::new(h)));
            }
            return Ok(None);
        }
        TableAction::Lead(s) => game_action(GameAction::Kozel(kozel::Action::Lead(s))),
        TableAction::Beat(s) => game_action(GameAction::Kozel(kozel::Action::Beat(s))),
        TableAction::Pass(s) => game_action(GameAction::Kozel(kozel::Action::Pass(s))),
        TableAction::Molodka => game_action(GameAction::Kozel(kozel::Action::Molodka)),
        TableAction::HeartsPass(s) => game_action(GameAction::Hearts(hearts::Action::PassCards(s))),
        TableAction::HeartsPlay(c) => game_action(GameAction::Hearts(hearts::Action::Play(c))),
        _ => None,
    };
    let admin = if matches!(
        action,
        TableAction::Start | TableAction::Stop { .. } | TableAction::AddAi
    ) {
        shared
            .is_admin(ChatId(t.chat().id().parse().unwrap_or(0)), q.from.id)
            .await
    } else {
        false
    };
    let Some(actor) = person(shared, &q.from, admin) else {
        return Ok(None);
    };
    let command = if let Some(action) = act {
        let Some(seat) = seat else {
            return Ok(Some(tr(lang, key::ERR_NOT_SEATED, &Args::new())));
        };
        if version != t.version() {
            return Ok(stale());
        }
        Command::Act {
            seat,
            action,
            version,
        }
    } else {
        match action {
            TableAction::Join => Command::Join { seat: None },
            TableAction::TakeSeat(s) => Command::Join { seat: Some(s) },
            TableAction::Leave => Command::Leave,
            TableAction::AddAi => Command::AddAi { seat: None },
            TableAction::Start => Command::Start,
            TableAction::TakeBack => Command::TakeBack,
            TableAction::Stop { confirm: false } => {
                remove_keyboard(bot, q).await;
                return Ok(None);
            }
            TableAction::Stop { confirm: true } => Command::Stop,
            _ => return Ok(Some(tr(lang, key::ERR_BAD_BUTTON, &Args::new()))),
        }
    };
    let joining = matches!(command, Command::Join { .. });
    let acting = matches!(command, Command::Act { .. });
    let stopping = matches!(command, Command::Stop);
    match submit(shared, Target::Table(id), actor, command, dedup).await {
        Ok(ack) => {
            if acting && !ack.duplicate {
                shared.clear_selection(user, id);
            }
            if stopping {
                remove_keyboard(bot, q).await;
            }
            if joining && !ack.duplicate {
                check_reachable(bot, shared, user, &q.from, t).await;
            }
            Ok(None)
        }
        Err(e) => Ok(Some(refusal(lang, &e))),
    }
}

fn hand_cards(view: &crate::game::GameView) -> crate::cards::CardSet {
    match view {
        crate::game::GameView::Kozel(v) => v.deal.hand,
        crate::game::GameView::Hearts(v) => v.deal.hand,
    }
}

async fn remove_keyboard(bot: &Bot, q: &CallbackQuery) {
    if let Some(m) = q.message.as_ref() {
        let _ = bot.edit_message_reply_markup(m.chat().id, m.id()).await;
    }
}

/// After a join: can the bot message this person? If not (403), the lobby
/// shows them a deep link that opens the bot's chat.
async fn check_reachable(bot: &Bot, shared: &Shared, user: &UserId, from: &User, t: &Table) {
    let lang = from
        .language_code
        .as_deref()
        .and_then(Lang::from_code)
        .unwrap_or(shared.default_lang);
    let seat = shared
        .service
        .table(t.id())
        .await
        .ok()
        .flatten()
        .and_then(|t| t.seat_of(user))
        .map_or(0, |s| s.index() as i64 + 1);
    let text = tr_html(
        lang,
        key::START_SEATED,
        &Args::new()
            .text("group", t.title().to_owned())
            .num("seat", seat),
    );
    let r = bot
        .send_message(ChatId(from.id.0 as i64), text)
        .parse_mode(ParseMode::Html)
        .await;
    if let Err(e) = r
        && super::failure::Failure::of(&e) == super::failure::Failure::Unreachable
        && shared.set_unreachable(user, true)
        && let Ok(Some(now)) = shared.service.table(t.id()).await
    {
        shared.rerender(Effect::RenderTable(Box::new(now.view())));
    }
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
