//! The real teloxide client against the fake Bot API server.

use std::time::Duration;

use kozyr_test_kit::fakebot::{
    Author, FakeBot, FakeBotConfig, Fault, MemberStatus, OutputKind, UserSpec,
};
use teloxide::dispatching::UpdateFilterExt;
use teloxide::prelude::*;
use teloxide::types::{
    ChatMemberStatus, ChatMigration, InlineKeyboardButton, InlineKeyboardMarkup, MessageId,
    ParseMode, UpdateKind,
};
use teloxide::{ApiError, RequestError};

const WAIT: Duration = Duration::from_secs(10);

fn keyboard(data: &str) -> InlineKeyboardMarkup {
    InlineKeyboardMarkup::new([[InlineKeyboardButton::callback("Press", data)]])
}

struct World {
    fake: FakeBot,
    bot: Bot,
    alice: UserId,
    bob: UserId,
    group: ChatId,
}

async fn world() -> World {
    let fake = FakeBot::start().await.unwrap();
    let alice = fake.add_user(UserSpec::new("Alice").username("alice").language("ru"));
    let bob = fake.add_user(UserSpec::new("Bob"));
    let group = fake.add_group("Friday <night>", &[alice, bob]);
    let bot = fake.bot();
    World {
        fake,
        bot,
        alice,
        bob,
        group,
    }
}

fn api_error(r: Result<impl std::fmt::Debug, RequestError>) -> ApiError {
    match r {
        Err(RequestError::Api(e)) => e,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn get_me_and_send_html_with_a_keyboard() {
    let w = world().await;
    let me = w.bot.get_me().await.unwrap();
    assert_eq!(me.username(), "kozyr_test_bot");
    assert!(
        !me.can_read_all_group_messages,
        "privacy mode is on by default"
    );

    let sent = w
        .bot
        .send_message(w.group, "<b>Kozel</b> · trump 10&amp;♠")
        .parse_mode(ParseMode::Html)
        .reply_markup(keyboard("t1.0.s"))
        .await
        .unwrap();
    assert_eq!(sent.chat.id, w.group);
    assert_eq!(sent.text(), Some("Kozel · trump 10&♠"));
    assert_eq!(sent.entities().map(<[_]>::len), Some(1));
    assert!(sent.reply_markup().is_some());

    let stored = w.fake.messages(w.group);
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].author, Author::Bot);
    assert_eq!(stored[0].text, "Kozel · trump 10&♠");
    let (id, kb) = w.fake.latest_keyboard(w.group).unwrap();
    assert_eq!(id, sent.id);
    assert_eq!(
        kb.find("Press").and_then(|b| b.callback_data()),
        Some("t1.0.s")
    );
    assert_eq!(w.fake.outputs(w.group)[0].kind, OutputKind::Send);
    assert_eq!(w.fake.calls_of("sendMessage"), 1);
}

#[tokio::test]
async fn edits_and_message_not_modified() {
    let w = world().await;
    let m = w
        .bot
        .send_message(w.group, "one")
        .reply_markup(keyboard("a"))
        .await
        .unwrap();
    let edited = w
        .bot
        .edit_message_text(w.group, m.id, "two")
        .reply_markup(keyboard("a"))
        .await
        .unwrap();
    assert_eq!(edited.text(), Some("two"));
    assert!(edited.edit_date().is_some());

    // The same text and keyboard again: Telegram refuses, teloxide names it.
    let again = w
        .bot
        .edit_message_text(w.group, m.id, "two")
        .reply_markup(keyboard("a"))
        .await;
    assert_eq!(api_error(again), ApiError::MessageNotModified);
    // Same text, other keyboard: a change.
    w.bot
        .edit_message_reply_markup(w.group, m.id)
        .reply_markup(keyboard("b"))
        .await
        .unwrap();
    let same_markup = w
        .bot
        .edit_message_reply_markup(w.group, m.id)
        .reply_markup(keyboard("b"))
        .await;
    assert_eq!(api_error(same_markup), ApiError::MessageNotModified);
    // An edit without a keyboard removes it.
    w.bot.edit_message_text(w.group, m.id, "two").await.unwrap();
    assert_eq!(w.fake.message(w.group, m.id).unwrap().keyboard, None);
    assert_eq!(w.fake.message(w.group, m.id).unwrap().edits, 3);

    let missing = w.bot.edit_message_text(w.group, MessageId(999), "x").await;
    assert_eq!(api_error(missing), ApiError::MessageToEditNotFound);
    let user_msg = w.fake.user_says(w.group, w.alice, "/hello").unwrap();
    let not_ours = w.bot.edit_message_text(w.group, user_msg, "x").await;
    assert_eq!(api_error(not_ours), ApiError::MessageCantBeEdited);

    w.bot.delete_message(w.group, m.id).await.unwrap();
    let gone = w.bot.edit_message_text(w.group, m.id, "three").await;
    assert_eq!(api_error(gone), ApiError::MessageToEditNotFound);
    let twice = w.bot.delete_message(w.group, m.id).await;
    assert_eq!(api_error(twice), ApiError::MessageToDeleteNotFound);
    let kinds: Vec<_> = w.fake.outputs(w.group).iter().map(|o| o.kind).collect();
    assert_eq!(
        kinds,
        [
            OutputKind::Send,
            OutputKind::Edit,
            OutputKind::Edit,
            OutputKind::Edit
        ]
    );
}

#[tokio::test]
async fn telegram_limits_are_enforced() {
    let w = world().await;
    let long_data = "x".repeat(65);
    let r = w
        .bot
        .send_message(w.group, "hi")
        .reply_markup(keyboard(&long_data))
        .await;
    assert_eq!(api_error(r), ApiError::ButtonDataInvalid);
    w.bot
        .send_message(w.group, "hi")
        .reply_markup(keyboard(&"x".repeat(64)))
        .await
        .unwrap();

    // 4096 characters after entity parsing are fine, one more is not.
    let max = format!("<b>{}</b>", "я".repeat(4096));
    w.bot
        .send_message(w.group, max)
        .parse_mode(ParseMode::Html)
        .await
        .unwrap();
    let r = w.bot.send_message(w.group, "я".repeat(4097)).await;
    assert_eq!(api_error(r), ApiError::MessageIsTooLong);
    let m = w.bot.send_message(w.group, "short").await.unwrap();
    let r = w
        .bot
        .edit_message_text(w.group, m.id, "я".repeat(4097))
        .await;
    assert_eq!(api_error(r), ApiError::EditedMessageIsTooLong);

    let r = w
        .bot
        .send_message(w.group, "a < b")
        .parse_mode(ParseMode::Html)
        .await;
    assert!(matches!(api_error(r), ApiError::CantParseEntities(_)));
    let r = w.bot.send_message(w.group, "  ").await;
    assert_eq!(api_error(r), ApiError::MessageTextIsEmpty);
    let r = w.bot.send_message(ChatId(-42), "nobody").await;
    assert_eq!(api_error(r), ApiError::ChatNotFound);
}

#[tokio::test]
async fn private_chats_need_a_start_and_blocking_forbids() {
    let w = world().await;
    let dm = FakeBot::private_chat(w.bob);
    let r = w.bot.send_message(dm, "your hand").await;
    // Today's Bot API wording is "Forbidden: ..."; teloxide 0.17 only knows
    // an older "Unauthorized: ..." text, so it arrives as Unknown.
    assert_eq!(
        api_error(r),
        ApiError::Unknown("Forbidden: bot can't initiate conversation with a user".to_owned())
    );
    assert!(!w.fake.has_started(w.bob));

    w.fake.start_bot(w.bob, Some("j1a")).unwrap();
    assert!(w.fake.has_started(w.bob));
    w.bot.send_message(dm, "your hand").await.unwrap();

    w.fake.block_bot(w.bob).unwrap();
    let r = w.bot.send_message(dm, "again").await;
    assert_eq!(api_error(r), ApiError::BotBlocked);

    // The start with its payload, then the block, arrive as updates.
    let updates = w.bot.get_updates().await.unwrap();
    assert_eq!(updates.len(), 2);
    match &updates[0].kind {
        UpdateKind::Message(m) => assert_eq!(m.text(), Some("/start j1a")),
        other => panic!("{other:?}"),
    }
    match &updates[1].kind {
        UpdateKind::MyChatMember(u) => {
            assert_eq!(u.new_chat_member.status(), ChatMemberStatus::Banned);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn injected_429_hits_one_chat_and_carries_retry_after() {
    let w = world().await;
    let other = w.fake.add_group("Other", &[w.bob]);
    w.fake.inject(
        Fault::too_many_requests(7)
            .method("sendMessage")
            .chat(w.group)
            .times(1),
    );
    match w.bot.send_message(w.group, "x").await {
        Err(RequestError::RetryAfter(s)) => assert_eq!(s.seconds(), 7),
        other => panic!("expected RetryAfter, got {other:?}"),
    }
    w.bot.send_message(other, "unaffected").await.unwrap();
    w.bot
        .send_message(w.group, "after the fault is used up")
        .await
        .unwrap();
    assert_eq!(w.fake.calls_of("sendMessage"), 3);
    assert_eq!(w.fake.failures().get("sendMessage"), Some(&1));
}

#[tokio::test]
async fn strict_group_limit_answers_429_after_twenty() {
    let fake = FakeBot::start_with(FakeBotConfig::default().strict_group_limit())
        .await
        .unwrap();
    let a = fake.add_user(UserSpec::new("A"));
    let group = fake.add_group("G", &[a]);
    let bot = fake.bot();
    for i in 0..20 {
        bot.send_message(group, format!("{i}")).await.unwrap();
    }
    match bot.send_message(group, "21").await {
        Err(RequestError::RetryAfter(s)) => assert!((1..=60).contains(&s.seconds())),
        other => panic!("expected RetryAfter, got {other:?}"),
    }
    assert_eq!(
        fake.max_outputs_in_window(group, Duration::from_secs(60)),
        20
    );
}

#[tokio::test]
async fn server_errors_delays_and_dropped_connections() {
    let w = world().await;
    // teloxide sleeps 10 s after any 5xx, so look at the raw answer.
    w.fake
        .inject(Fault::server_error(502).method("getMe").times(1));
    let url = format!("{}bot{}/getMe", w.fake.api_url(), w.fake.token());
    let client = reqwest::Client::new();
    let resp = client.post(&url).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 502);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["ok"], false);
    assert_eq!(body["error_code"], 502);
    assert_eq!(
        client.post(&url).send().await.unwrap().status().as_u16(),
        200
    );

    w.fake
        .inject(Fault::drop_connection().method("getMe").times(1));
    match w.bot.get_me().await {
        Err(RequestError::Network(_)) => {}
        other => panic!("expected a network error, got {other:?}"),
    }
    w.bot.get_me().await.unwrap();

    w.fake.inject(
        Fault::delay(Duration::from_millis(300))
            .method("getMe")
            .times(1),
    );
    let started = std::time::Instant::now();
    w.bot.get_me().await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));

    let wrong_token = format!("{}botWRONG/getMe", w.fake.api_url());
    assert_eq!(
        client
            .post(&wrong_token)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16(),
        401
    );
    let unknown = format!("{}bot{}/sendHologram", w.fake.api_url(), w.fake.token());
    assert_eq!(
        client
            .post(&unknown)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16(),
        404
    );
    // Form-encoded parameters work too, as with any Bot API client.
    let send = format!("{}bot{}/sendMessage", w.fake.api_url(), w.fake.token());
    let resp = client
        .post(&send)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("chat_id={}&text=form", w.group.0))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(w.fake.last_bot_message(w.group).unwrap().text, "form");
}

#[tokio::test]
async fn get_updates_offsets_long_polls_and_conflicts() {
    let w = world().await;
    w.fake.user_says(w.group, w.alice, "/new kozel").unwrap();
    // Privacy mode: plain chatter and commands for other bots stay away.
    w.fake.user_says(w.group, w.bob, "hello all").unwrap();
    w.fake
        .user_says(w.group, w.bob, "/help@kozyr_test_bot")
        .unwrap();
    w.fake
        .user_says(w.group, w.bob, "/help@some_other_bot")
        .unwrap();
    let ups = w.bot.get_updates().await.unwrap();
    assert_eq!(ups.len(), 2);
    // Without an offset they stay; with one they are confirmed.
    assert_eq!(w.bot.get_updates().await.unwrap().len(), 2);
    let next = ups[1].id.as_offset();
    assert!(w.bot.get_updates().offset(next).await.unwrap().is_empty());
    assert_eq!(w.fake.pending_updates(), 0);

    // A long poll wakes up when an update arrives.
    let poll = tokio::spawn({
        let bot = w.bot.clone();
        async move { bot.get_updates().offset(next).timeout(8).await }
    });
    w.fake
        .wait_for(WAIT, |f| (f.calls_of("getUpdates") == 4).then_some(()))
        .await
        .unwrap();
    w.fake.user_says(w.group, w.alice, "/score").unwrap();
    let got = tokio::time::timeout(WAIT, poll)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(got.len(), 1);

    // A second poller ends the first with 409, as Telegram does.
    let first = tokio::spawn({
        let bot = w.bot.clone();
        async move { bot.get_updates().offset(next + 1).timeout(8).await }
    });
    w.fake
        .wait_for(WAIT, |f| (f.calls_of("getUpdates") == 5).then_some(()))
        .await
        .unwrap();
    let second = w.bot.get_updates().offset(next + 1).timeout(0).await;
    assert!(second.is_ok());
    let first = tokio::time::timeout(WAIT, first).await.unwrap().unwrap();
    assert_eq!(api_error(first), ApiError::TerminatedByOtherGetUpdates);
}

#[tokio::test]
async fn callback_queries_are_answered_once() {
    let w = world().await;
    let m = w
        .bot
        .send_message(w.group, "table")
        .reply_markup(keyboard("t1.2.s"))
        .await
        .unwrap();
    assert!(
        w.fake
            .press(w.alice, w.group, m.id, "not-on-the-keyboard")
            .is_err()
    );
    let q = w.fake.press(w.alice, w.group, m.id, "t1.2.s").unwrap();
    let raw = w
        .fake
        .press_raw(w.bob, w.group, m.id, "hostile\u{0}data")
        .unwrap();
    let ups = w.bot.get_updates().await.unwrap();
    let UpdateKind::CallbackQuery(cq) = &ups[0].kind else {
        panic!("{:?}", ups[0])
    };
    assert_eq!(cq.id.0, q);
    assert_eq!(cq.from.id, w.alice);
    assert_eq!(cq.data.as_deref(), Some("t1.2.s"));
    assert_eq!(cq.regular_message().map(|m| m.id), Some(m.id));
    assert_eq!(w.fake.unanswered_callbacks(), vec![q.clone(), raw.clone()]);

    w.bot
        .answer_callback_query(cq.id.clone())
        .text("Not your turn")
        .show_alert(true)
        .await
        .unwrap();
    let a = w.fake.callback_answer(&q).unwrap();
    assert_eq!(
        (a.text.as_deref(), a.show_alert, a.user),
        (Some("Not your turn"), true, w.alice)
    );
    assert!(a.answered_at >= a.pressed_at);
    let twice = w.bot.answer_callback_query(cq.id.clone()).await;
    assert_eq!(api_error(twice), ApiError::InvalidQueryId);
    assert_eq!(w.fake.unanswered_callbacks(), vec![raw]);
}

#[tokio::test]
async fn members_admins_chat_and_commands() {
    let w = world().await;
    w.fake
        .set_member(w.group, w.bob, MemberStatus::Administrator)
        .unwrap();
    let alice = w.bot.get_chat_member(w.group, w.alice).await.unwrap();
    assert!(alice.is_owner());
    let admins = w.bot.get_chat_administrators(w.group).await.unwrap();
    assert_eq!(admins.len(), 2);
    assert!(
        admins
            .iter()
            .any(|m| m.user.id == w.bob && m.is_administrator())
    );
    let me = w
        .bot
        .get_chat_member(w.group, w.fake.bot_id())
        .await
        .unwrap();
    assert_eq!(me.status(), ChatMemberStatus::Member);
    let chat = w.bot.get_chat(w.group).await.unwrap();
    assert_eq!(chat.title(), Some("Friday <night>"));

    w.bot
        .set_my_commands([teloxide::types::BotCommand::new("new", "Open a table")])
        .language_code("ru")
        .await
        .unwrap();
    let r = w
        .bot
        .set_my_commands([teloxide::types::BotCommand::new("Bad-Name", "x")])
        .await;
    assert!(r.is_err());
    let lists = w.fake.commands();
    assert_eq!(lists.len(), 1);
    assert_eq!(lists[0].language_code, "ru");
    assert_eq!(
        lists[0].commands,
        vec![("new".to_owned(), "Open a table".to_owned())]
    );
}

#[tokio::test]
async fn kicked_bot_and_migrated_group() {
    let w = world().await;
    let new = w.fake.migrate_to_supergroup(w.group, w.alice).unwrap();
    match w.bot.send_message(w.group, "x").await {
        Err(RequestError::MigrateToChatId(id)) => assert_eq!(id, new),
        other => panic!("expected MigrateToChatId, got {other:?}"),
    }
    w.bot.send_message(new, "moved").await.unwrap();
    let ups = w.bot.get_updates().await.unwrap();
    let kinds: Vec<_> = ups
        .iter()
        .map(|u| match &u.kind {
            UpdateKind::Message(m) => match m.chat_migration() {
                Some(ChatMigration::To { chat_id }) if *chat_id == new => "to",
                Some(ChatMigration::From { chat_id }) if *chat_id == w.group => "from",
                _ => "other",
            },
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["to", "from"]);

    w.fake
        .set_bot_status(new, w.alice, MemberStatus::Kicked)
        .unwrap();
    let r = w.bot.send_message(new, "still here?").await;
    assert_eq!(api_error(r), ApiError::BotKickedFromSupergroup);
}

/// A miniature bot on teloxide's Dispatcher: `/ping` gets a message with a
/// button; pressing it answers the callback and edits the message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispatcher_bot_runs_against_the_fake() {
    let w = world().await;
    async fn on_message(bot: Bot, msg: Message) -> ResponseResult<()> {
        if msg.text().is_some_and(|t| t.starts_with("/ping")) {
            bot.send_message(msg.chat.id, "pong")
                .reply_markup(keyboard("again"))
                .await?;
        }
        Ok(())
    }
    async fn on_callback(bot: Bot, q: CallbackQuery) -> ResponseResult<()> {
        bot.answer_callback_query(q.id.clone())
            .text("pressed")
            .await?;
        if let Some(m) = q.regular_message() {
            bot.edit_message_text(m.chat.id, m.id, format!("pressed by {}", q.from.first_name))
                .await?;
        }
        Ok(())
    }
    let handler = dptree::entry()
        .branch(Update::filter_message().endpoint(on_message))
        .branch(Update::filter_callback_query().endpoint(on_callback));
    let mut dispatcher = Dispatcher::builder(w.bot.clone(), handler).build();
    let shutdown = dispatcher.shutdown_token();
    let running = tokio::spawn(async move { dispatcher.dispatch().await });

    w.fake.user_says(w.group, w.alice, "/ping").unwrap();
    let (id, kb) = w
        .fake
        .wait_for(WAIT, |f| f.latest_keyboard(w.group))
        .await
        .unwrap();
    let data = kb
        .find("Press")
        .and_then(|b| b.callback_data())
        .unwrap()
        .to_owned();
    let q = w.fake.press(w.bob, w.group, id, &data).unwrap();
    let answer = w
        .fake
        .wait_for(WAIT, |f| f.callback_answer(&q))
        .await
        .unwrap();
    assert_eq!(answer.text.as_deref(), Some("pressed"));
    let edited = w
        .fake
        .wait_for(WAIT, |f| f.message(w.group, id).filter(|m| m.edits == 1))
        .await
        .unwrap();
    assert_eq!(edited.text, "pressed by Bob");
    assert!(w.fake.unanswered_callbacks().is_empty());

    // Shutting down waits for the listener to stop polling.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match shutdown.shutdown() {
            Ok(done) => {
                done.await;
                break;
            }
            // The dispatcher may not have finished starting up yet.
            Err(_) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("{e:?}"),
        }
    }
    tokio::time::timeout(WAIT, running).await.unwrap().unwrap();
}

/// kozyr's own pieces against the fake: the command menus are accepted
/// in every language, and failures read the way the front-end expects.
#[tokio::test]
async fn kozyr_commands_and_failure_classes_against_the_fake() {
    use kozyr::delivery::transport::Failure;
    use kozyr::i18n::Lang;
    use kozyr::telegram::commands::bot_commands;
    use kozyr::telegram::failure::classify;

    let w = world().await;
    for lang in Lang::ALL {
        w.bot
            .set_my_commands(bot_commands(lang))
            .language_code(lang.code())
            .await
            .unwrap();
    }
    assert_eq!(w.fake.commands().len(), 4);

    let class = |r: Result<Message, RequestError>| classify(&r.unwrap_err());
    let m = w.bot.send_message(w.group, "x").await.unwrap();
    assert_eq!(
        class(w.bot.edit_message_text(w.group, m.id, "x").await),
        Failure::NotModified
    );
    assert_eq!(
        class(
            w.bot
                .send_message(FakeBot::private_chat(w.bob), "hand")
                .await
        ),
        Failure::Refused
    );
    w.fake
        .inject(Fault::too_many_requests(3).chat(w.group).times(1));
    assert_eq!(
        class(w.bot.send_message(w.group, "y").await),
        Failure::RateLimited(Duration::from_secs(3))
    );
    w.fake.delete_message(w.group, m.id).unwrap();
    assert_eq!(
        class(w.bot.edit_message_text(w.group, m.id, "z").await),
        Failure::MessageGone
    );
    let new = w.fake.migrate_to_supergroup(w.group, w.alice).unwrap();
    assert_eq!(
        class(w.bot.send_message(w.group, "y").await),
        Failure::Moved(new.0)
    );
    w.fake
        .set_bot_status(new, w.alice, MemberStatus::Kicked)
        .unwrap();
    assert_eq!(class(w.bot.send_message(new, "y").await), Failure::Refused);
    w.fake.inject(Fault::drop_connection().times(1));
    assert_eq!(
        class(
            w.bot
                .send_message(FakeBot::private_chat(w.alice), "y")
                .await
        ),
        Failure::Unavailable
    );
}
