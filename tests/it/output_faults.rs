//! What Telegram answers when an output cannot land as sent, through the
//! fake Bot API and the real client (issue 22): a group upgraded to a
//! supergroup that the bot learns of only from the 400 of its next write,
//! "chat not found" answered for a group that exists, and a hand message
//! its owner deleted (Telegram tells no bot of that).

use std::time::Duration;

use kozyr::front::action::{Press, TableAction};
use kozyr::table::Phase;
use kozyr::telegram::bot::Tuning;
use kozyr_loadtest::Driver;
use kozyr_test_kit::fakebot::{FakeBot, Fault, OutputKind, SimError};
use teloxide::types::{ChatId, MessageId, UserId};

use crate::support::telegram::{Setup, WAIT, World};
use crate::support::{eventually, fast_tuning};

/// No people of its own: each test brings its group with [`World::driver`].
async fn world() -> World {
    World::with(Setup {
        tuning: Tuning {
            chat_not_found_retry: Duration::from_millis(50),
            ..fast_tuning()
        },
        wait: WAIT,
        ..Setup::drivers_only()
    })
    .await
}

/// Everyone starts the bot and the first person opens a Kozel lobby.
async fn lobby(w: &World, d: &Driver) {
    for u in d.users {
        w.fake.start_bot(u, None).unwrap();
    }
    w.fake.user_says(d.group, d.users[0], "/kozel").unwrap();
    d.lobby_button("2").await.unwrap();
}

/// How many seats the open table in `chat` has taken, if there is one.
async fn seated_in(w: &World, chat: ChatId) -> Option<usize> {
    let t = w.open_table_in(chat).await?;
    Some(t.seats().iter().filter(|(_, s)| !s.is_empty()).count())
}

/// The newest message of `chat` with a hand keyboard drawn for `version`.
fn hand_at(fake: &FakeBot, chat: ChatId, version: u64) -> Option<MessageId> {
    fake.messages(chat).into_iter().rev().find_map(|m| {
        let kb = m.keyboard?;
        kb.buttons()
            .any(|b| {
                matches!(
                    b.callback_data().map(Press::parse),
                    Some(Ok(Press::Table { version: v, action: TableAction::Toggle(_), .. })) if v == version
                )
            })
            .then_some(m.id)
    })
}

/// `user` sends `/start` to the bot: their hand at `version` comes back
/// as a new message in `dm`, below `older`.
async fn hand_anew_after_start(
    fake: &FakeBot,
    user: UserId,
    dm: ChatId,
    version: u64,
    older: MessageId,
) -> Result<MessageId, SimError> {
    fake.start_bot(user, None)?;
    fake.wait_for(WAIT, |f| hand_at(f, dm, version).filter(|m| m.0 > older.0))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_upgraded_without_notice_is_followed_from_the_400() {
    let mut w = world().await;
    let d = w.driver("Upgrade");
    lobby(&w, &d).await;
    // The group becomes a supergroup; the service message never reaches
    // the bot. Its next write to the old id is answered 400 with the new id.
    let new = w.fake.migrate_without_notice(d.group, d.users[0]).unwrap();
    let seat2 = d.lobby_button("2").await.unwrap();
    d.press_ok(d.users[1], d.group, &seat2).await.unwrap();
    // The lobby is posted in the supergroup, the table follows it there,
    // and play goes on from the new message.
    let moved = Driver {
        group: new,
        ..d.clone()
    };
    let seat3 = moved.lobby_button("3").await.unwrap();
    assert_eq!(seated_in(&w, new).await, Some(2));
    assert_eq!(seated_in(&w, d.group).await, None);
    moved.press_ok(d.users[2], new, &seat3).await.unwrap();
    eventually(WAIT, Duration::from_millis(20), "seat 3 taken", || async {
        (seated_in(&w, new).await == Some(3)).then_some(())
    })
    .await;
    // The old group got nothing after its upgrade.
    assert_eq!(w.fake.failures().get("editMessageText"), Some(&1));
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_not_found_is_retried_and_only_a_lasting_one_stops_the_table() {
    let mut w = world().await;
    let d = w.driver("NotFound");
    lobby(&w, &d).await;
    let edits = |f: &FakeBot| {
        f.outputs(d.group)
            .iter()
            .filter(|o| o.kind == OutputKind::Edit)
            .count()
    };
    let before = edits(&w.fake);
    // Twice "chat not found" for a group that is there: retried.
    w.fake
        .inject(Fault::chat_not_found().chat(d.group).times(2));
    let seat2 = d.lobby_button("2").await.unwrap();
    d.press_ok(d.users[1], d.group, &seat2).await.unwrap();
    w.fake
        .wait_for(WAIT, |f| (edits(f) > before).then_some(()))
        .await
        .expect("the lobby edited after two refusals");
    assert_eq!(w.fake.failures().get("editMessageText"), Some(&2));
    assert_eq!(seated_in(&w, d.group).await, Some(2), "the table stays");
    // Refused for good: after a few tries the table is stopped.
    w.fake.inject(Fault::chat_not_found().chat(d.group));
    let seat3 = d.lobby_button("3").await.unwrap();
    d.press_ok(d.users[2], d.group, &seat3).await.unwrap();
    eventually(
        WAIT,
        Duration::from_millis(20),
        "the table stopped",
        || async { seated_in(&w, d.group).await.is_none().then_some(()) },
    )
    .await;
    let refused = w.fake.failures().get("editMessageText").copied();
    assert_eq!(refused, Some(2 + 4), "four tries before giving up");
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_deleted_on_its_owners_turn_comes_back_when_they_act() {
    let mut w = world().await;
    let (d, t) = w.driven_table("Deleted").await;
    assert_eq!(t.phase(), Phase::Playing);
    let seat = t.awaiting()[0].index();
    let dm = d.dm(seat);
    let hand = w
        .fake
        .wait_for(WAIT, |f| hand_at(f, dm, t.version()))
        .await
        .unwrap();
    // Their turn, and they delete their hand: nothing changes, so nothing
    // would edit it; `/start` brings it back as a new message.
    w.fake.delete_message(dm, hand).unwrap();
    let again = hand_anew_after_start(&w.fake, d.users[seat], dm, t.version(), hand)
        .await
        .expect("the hand posted anew after /start");
    // Deleted again, then a graceful restart: what the bot saved as shown
    // does not hold back the hand that is gone.
    w.fake.delete_message(dm, again).unwrap();
    w.stop().await;
    w.start().await;
    let third = hand_anew_after_start(&w.fake, d.users[seat], dm, t.version(), again)
        .await
        .expect("the hand posted anew after a restart and /start");
    // A hand that is there is not probed with an edit that changes
    // nothing (Telegram answers those "message is not modified", each
    // spending the chat's one write a second; issue 28): `/start` posts it
    // anew below what they wrote, and the old one goes.
    let refused = |f: &FakeBot| f.failures_in(dm).get("editMessageText").copied();
    let before = refused(&w.fake);
    let fourth = hand_anew_after_start(&w.fake, d.users[seat], dm, t.version(), third)
        .await
        .expect("the hand posted anew after /start");
    w.fake
        .wait_for(WAIT, |f| {
            f.messages(dm).iter().all(|m| m.id != third).then_some(())
        })
        .await
        .expect("the hand before deleted");
    assert_eq!(hand_at(&w.fake, dm, t.version()), Some(fourth));
    // Play goes on from it; no press probes a hand either.
    d.play_safe(&t, Duration::ZERO).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        refused(&w.fake),
        before,
        "an edit of the hand refused (\"not modified\")"
    );
    w.stop().await;
}

/// The group's table message as the bot records it.
async fn table_message(
    w: &World,
    group: ChatId,
    table: kozyr::table::TableId,
) -> Option<MessageId> {
    let refs = w
        .service()
        .records()
        .open_message_refs(kozyr::table::Platform::Telegram)
        .await
        .unwrap();
    refs.into_iter()
        .find(|(t, chat, _)| *t == table && *chat == group.0.to_string())
        .map(|(_, _, m)| MessageId(i32::try_from(m).unwrap()))
}

/// An admin deleted the table message (Telegram tells no bot of that):
/// `/new` shows the group the open table, posted anew at the bottom with
/// its buttons, and says so in the group; before, the asker alone was told
/// "There is already a table" and the group saw nothing (issue 29.4).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_where_the_table_message_is_gone_shows_the_table_again() {
    let mut w = world().await;
    let (d, t) = w.driven_table("Gone").await;
    let shown = w
        .fake
        .wait_for(WAIT, |f| table_message_in(f, d.group))
        .await
        .unwrap();
    eventually(
        WAIT,
        Duration::from_millis(20),
        "the table message recorded",
        || async { (table_message(&w, d.group, t.id()).await == Some(shown.id)).then_some(()) },
    )
    .await;
    w.fake.delete_message(d.group, shown.id).unwrap();
    // Past the group's pace, so the answer is not held back by it.
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let asked = w.fake.user_says(d.group, d.users[2], "/kozel").unwrap();
    let said = w
        .fake
        .wait_for(WAIT, |f| {
            f.messages(d.group).into_iter().find(|m| {
                m.id.0 > asked.0 && m.text.contains("There is already a table in this chat")
            })
        })
        .await
        .expect("the group is told the table is there");
    let again = w
        .fake
        .wait_for(WAIT, |f| {
            table_message_in(f, d.group).filter(|m| m.id.0 > said.id.0)
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "the table posted anew below the answer: {:#?}",
                w.fake.messages(d.group)
            )
        });
    assert_eq!(again.text, shown.text);
    eventually(
        WAIT,
        Duration::from_millis(20),
        "the new message recorded",
        || async { (table_message(&w, d.group, t.id()).await == Some(again.id)).then_some(()) },
    )
    .await;
    // Nobody was told privately that the table exists.
    let dm = d.dm(2);
    assert!(
        w.fake
            .messages(dm)
            .iter()
            .all(|m| !m.text.contains("There is already a table")),
        "{:#?}",
        w.fake.messages(dm)
    );
    // Still the same table, and its game goes on from the new message.
    assert_eq!(w.open_table_in(d.group).await.unwrap().id(), t.id());
    w.stop().await;
}

/// The newest message in `chat` that shows a Kozel deal in play: the
/// table message.
fn table_message_in(fake: &FakeBot, chat: ChatId) -> Option<kozyr_test_kit::fakebot::FakeMessage> {
    fake.messages(chat).into_iter().rev().find(|m| {
        m.author == kozyr_test_kit::fakebot::Author::Bot
            && !m.deleted
            && m.text.starts_with("Kozel · deal")
    })
}

/// A hand left behind with its buttons — its delete refused here, as a
/// kill between the post of the new hand and the delete of the old one
/// leaves it — loses them at the first press on one of them once the game
/// moved on (a card it shows left the hand): the press is answered "out
/// of date", the old message's buttons go in one edit that changes what
/// it shows, and the live hand keeps its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_left_behind_loses_its_buttons_at_a_press_out_of_date() {
    let mut w = world().await;
    let (d, t) = w.driven_table("Behind").await;
    let seat = t.awaiting()[0].index();
    let dm = d.dm(seat);
    let old = w
        .fake
        .wait_for(WAIT, |f| hand_at(f, dm, t.version()))
        .await
        .unwrap();
    // Telegram deletes no message older than 48 hours.
    let too_old = Fault::bad_request("message can't be deleted for everyone");
    w.fake.inject(too_old.method("deleteMessage").chat(dm));
    // `/start` posts the hand anew below; the old one's delete is refused.
    let live = hand_anew_after_start(&w.fake, d.users[seat], dm, t.version(), old)
        .await
        .expect("the hand posted anew after /start");
    w.fake
        .wait_for(WAIT, |f| f.failures_in(dm).get("deleteMessage").map(|_| ()))
        .await
        .expect("the old hand's delete refused");
    // The move goes from the live hand: the cards it takes leave the hand.
    let played = match t.game().unwrap().safe_action(t.awaiting()[0]).unwrap() {
        kozyr::game::GameAction::Kozel(
            kozyr::kozel::Action::Lead(s)
            | kozyr::kozel::Action::Beat(s)
            | kozyr::kozel::Action::Pass(s),
        ) => s,
        other => panic!("{other:?}"),
    };
    d.play_safe(&t, Duration::ZERO).await.unwrap();
    w.fake
        .wait_for(WAIT, |f| {
            (hand_at(f, dm, t.version()) != Some(live)).then_some(())
        })
        .await
        .expect("the live hand redrawn after the move");
    let old_message = |f: &FakeBot| f.messages(dm).into_iter().find(|m| m.id == old);
    let card_gone = (old_message(&w.fake).and_then(|m| m.keyboard))
        .expect("the hand left behind keeps its buttons")
        .buttons()
        .filter_map(|b| b.callback_data().map(str::to_owned))
        .find(|data| {
            matches!(
                Press::parse(data),
                Ok(Press::Table { action: TableAction::Toggle(c), .. }) if played.contains(c)
            )
        })
        .expect("a button of a card played");
    let q = w
        .fake
        .press_raw(d.users[seat], dm, old, &card_gone)
        .unwrap();
    let answer = d.answer(&q).await.unwrap();
    let stale = kozyr::i18n::tr(
        kozyr::i18n::Lang::En,
        kozyr::i18n::key::ERR_STALE,
        &Default::default(),
    );
    assert_eq!(answer.text.as_deref(), Some(stale.as_str()));
    w.fake
        .wait_for(WAIT, |f| {
            old_message(f).filter(|m| m.keyboard.is_none()).map(|_| ())
        })
        .await
        .expect("the hand left behind lost its buttons");
    let live_message = w.fake.messages(dm).into_iter().find(|m| m.id == live);
    assert!(
        live_message.is_some_and(|m| m.keyboard.is_some()),
        "the live hand keeps its buttons"
    );
    assert_eq!(
        w.fake.failures_in(dm).get("editMessageReplyMarkup"),
        None,
        "an edit that changed nothing"
    );
    w.stop().await;
}
