//! What Telegram answers when an output cannot land as sent, through the
//! fake Bot API and the real client (issue 22): a group upgraded to a
//! supergroup that the bot learns of only from the 400 of its next write,
//! "chat not found" answered for a group that exists, and a hand message
//! its owner deleted (Telegram tells no bot of that).

use std::sync::Arc;
use std::time::Duration;

use kozyr::fakebot::{FakeBot, FakeBotConfig, Fault, OutputKind};
use kozyr::front::action::{Press, TableAction};
use kozyr::loadtest::Driver;
use kozyr::table::{ChatKey, Phase, Platform};
use kozyr::telegram::bot::{RunningBot, Tuning, start};
use teloxide::types::{ChatId, MessageId};

use crate::support::{bot_config, eventually, fast_tuning};

const TOKEN: &str = "123456:FAULT-fake-token-kozyr-output-faults-0123456789";
const WAIT: Duration = Duration::from_secs(10);

struct Rig {
    fake: Arc<FakeBot>,
    dir: tempfile::TempDir,
    bot: Option<RunningBot>,
}

fn tuning() -> Tuning {
    Tuning {
        chat_not_found_retry: Duration::from_millis(50),
        ..fast_tuning()
    }
}

impl Rig {
    async fn new() -> Rig {
        let fake = FakeBot::start_with(FakeBotConfig {
            token: TOKEN.into(),
            ..FakeBotConfig::default()
        })
        .await
        .unwrap();
        let mut r = Rig {
            fake: Arc::new(fake),
            dir: tempfile::tempdir().unwrap(),
            bot: None,
        };
        r.start().await;
        r
    }

    async fn start(&mut self) {
        let config = bot_config(&self.fake, &self.dir);
        self.bot = Some(start(&config, tuning()).await.unwrap());
    }

    async fn stop(&mut self) {
        if let Some(b) = self.bot.take() {
            b.stop().await;
        }
    }

    fn bot(&self) -> &RunningBot {
        self.bot.as_ref().unwrap()
    }

    fn driver(&self, prefix: &str) -> Driver {
        let mut d = Driver::new(self.fake.clone(), prefix);
        d.patience = WAIT;
        d
    }

    /// Everyone starts the bot and the first person opens a Kozel lobby.
    async fn lobby(&self, d: &Driver) {
        for u in d.users {
            self.fake.start_bot(u, None).unwrap();
        }
        self.fake.user_says(d.group, d.users[0], "/kozel").unwrap();
        d.lobby_button("2").await.unwrap();
    }

    async fn seated_in(&self, chat: ChatId) -> Option<usize> {
        let key = ChatKey::new(Platform::Telegram, chat.0.to_string()).unwrap();
        let t = self.bot().service().open_table(&key).await.unwrap()?;
        Some(t.seats().iter().filter(|(_, s)| !s.is_empty()).count())
    }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_upgraded_without_notice_is_followed_from_the_400() {
    let mut r = Rig::new().await;
    let d = r.driver("Upgrade");
    r.lobby(&d).await;
    // The group becomes a supergroup; the service message never reaches
    // the bot. Its next write to the old id is answered 400 with the new id.
    let new = r.fake.migrate_without_notice(d.group, d.users[0]).unwrap();
    let seat2 = d.lobby_button("2").await.unwrap();
    d.press_ok(d.users[1], d.group, &seat2).await.unwrap();
    // The lobby is posted in the supergroup, the table follows it there,
    // and play goes on from the new message.
    let moved = Driver {
        group: new,
        ..d.clone()
    };
    let seat3 = moved.lobby_button("3").await.unwrap();
    assert_eq!(r.seated_in(new).await, Some(2));
    assert_eq!(r.seated_in(d.group).await, None);
    moved.press_ok(d.users[2], new, &seat3).await.unwrap();
    eventually(WAIT, Duration::from_millis(20), "seat 3 taken", || async {
        (r.seated_in(new).await == Some(3)).then_some(())
    })
    .await;
    // The old group got nothing after its upgrade.
    assert_eq!(r.fake.failures().get("editMessageText"), Some(&1));
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_not_found_is_retried_and_only_a_lasting_one_stops_the_table() {
    let mut r = Rig::new().await;
    let d = r.driver("NotFound");
    r.lobby(&d).await;
    let edits = |f: &FakeBot| {
        f.outputs(d.group)
            .iter()
            .filter(|o| o.kind == OutputKind::Edit)
            .count()
    };
    let before = edits(&r.fake);
    // Twice "chat not found" for a group that is there: retried.
    r.fake
        .inject(Fault::chat_not_found().chat(d.group).times(2));
    let seat2 = d.lobby_button("2").await.unwrap();
    d.press_ok(d.users[1], d.group, &seat2).await.unwrap();
    r.fake
        .wait_for(WAIT, |f| (edits(f) > before).then_some(()))
        .await
        .expect("the lobby edited after two refusals");
    assert_eq!(r.fake.failures().get("editMessageText"), Some(&2));
    assert_eq!(r.seated_in(d.group).await, Some(2), "the table stays");
    // Refused for good: after a few tries the table is stopped.
    r.fake.inject(Fault::chat_not_found().chat(d.group));
    let seat3 = d.lobby_button("3").await.unwrap();
    d.press_ok(d.users[2], d.group, &seat3).await.unwrap();
    eventually(
        WAIT,
        Duration::from_millis(20),
        "the table stopped",
        || async { r.seated_in(d.group).await.is_none().then_some(()) },
    )
    .await;
    let refused = r.fake.failures().get("editMessageText").copied();
    assert_eq!(refused, Some(2 + 4), "four tries before giving up");
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_deleted_on_its_owners_turn_comes_back_when_they_act() {
    let mut r = Rig::new().await;
    let d = r.driver("Deleted");
    d.open_kozel_table().await.unwrap();
    let key = d.chat_key();
    let t = r.bot().service().open_table(&key).await.unwrap().unwrap();
    assert_eq!(t.phase(), Phase::Playing);
    let seat = t.awaiting()[0].index();
    let dm = d.dm(seat);
    let hand = r
        .fake
        .wait_for(WAIT, |f| hand_at(f, dm, t.version()))
        .await
        .unwrap();
    // Their turn, and they delete their hand: nothing changes, so nothing
    // would edit it; `/start` brings it back as a new message.
    r.fake.delete_message(dm, hand).unwrap();
    r.fake.start_bot(d.users[seat], None).unwrap();
    let again = r
        .fake
        .wait_for(WAIT, |f| {
            hand_at(f, dm, t.version()).filter(|m| m.0 > hand.0)
        })
        .await
        .expect("the hand posted anew after /start");
    // Deleted again, then a graceful restart: what the bot saved as shown
    // does not hold back the hand that is gone.
    r.fake.delete_message(dm, again).unwrap();
    r.stop().await;
    r.start().await;
    r.fake.start_bot(d.users[seat], None).unwrap();
    let third = r
        .fake
        .wait_for(WAIT, |f| {
            hand_at(f, dm, t.version()).filter(|m| m.0 > again.0)
        })
        .await
        .expect("the hand posted anew after a restart and /start");
    // A hand that is there is not posted twice: the probe is an edit that
    // Telegram answers "message is not modified".
    let refused = |f: &FakeBot| f.failures().get("editMessageText").copied();
    let before = refused(&r.fake);
    r.fake.start_bot(d.users[seat], None).unwrap();
    r.fake
        .wait_for(WAIT, |f| (refused(f) > before).then_some(()))
        .await
        .expect("the hand checked");
    assert_eq!(hand_at(&r.fake, dm, t.version()), Some(third));
    // And play goes on from it.
    d.play_safe(&t, Duration::ZERO).await.unwrap();
    r.stop().await;
}
