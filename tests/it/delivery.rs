//! Delivery end to end, through the strict fakes, as four people pressing
//! only what they see: what goes out, and what does not.
//!
//! - Telegram: the old lobby says the game started below it (not "can
//!   start"), and a new deal spends no edit on an old table message that
//!   has no buttons (Telegram would answer "message is not modified").
//! - Discord: no edit changes nothing a message shows, the first player of
//!   a series is notified once, and a restart re-sends nothing already
//!   shown.

use std::time::Duration;

use kozyr::cards::CardSet;
use kozyr::config::Config;
use kozyr::fakebot::{FakeBot, FakeBotConfig, UserSpec};
use kozyr::front::action::{Press, TableAction};
use kozyr::game::{GameAction, GameView};
use kozyr::table::{Phase, Table, TableId};
use kozyr::telegram::bot::{RunningBot, Tuning, start};
use kozyr::{hearts, kozel};
use teloxide::types::{ChatId, UserId};

use crate::support::discord::{self as dc, CHANNEL};
use crate::support::{bot_config, eventually, fast_tuning};

const WAIT: Duration = Duration::from_secs(10);

/// Four people and a group on the fake Bot API, and the bot.
pub(crate) struct Telegram {
    pub(crate) fake: FakeBot,
    dir: tempfile::TempDir,
    pub(crate) users: [UserId; 4],
    pub(crate) group: ChatId,
    bot: Option<RunningBot>,
}

impl Telegram {
    pub(crate) async fn new(tuning: Tuning) -> Telegram {
        let fake = FakeBot::start_with(FakeBotConfig {
            token: "123456:TEST-fake-token-kozyr-delivery-0123456789".into(),
            ..FakeBotConfig::default()
        })
        .await
        .unwrap();
        let names = ["Ann", "Boris", "Chloe", "Dmitri"];
        let users = names.map(|n| fake.add_user(UserSpec::new(n).language("en")));
        let group = fake.add_group("Friday cards", &users);
        let dir = tempfile::tempdir().unwrap();
        let mut w = Telegram {
            fake,
            dir,
            users,
            group,
            bot: None,
        };
        let config: Config = bot_config(&w.fake, &w.dir);
        w.bot = Some(start(&config, tuning).await.unwrap());
        w
    }

    pub(crate) async fn stop(&mut self) {
        if let Some(b) = self.bot.take() {
            b.stop().await;
        }
    }

    pub(crate) async fn table(&self, id: TableId) -> Table {
        let s = self.bot.as_ref().unwrap().service();
        s.table(id).await.unwrap().unwrap()
    }

    pub(crate) fn dm(&self, seat: usize) -> ChatId {
        FakeBot::private_chat(self.users[seat])
    }

    /// Presses the button with `data` on the newest message of `chat` that has it.
    pub(crate) async fn press(&self, user: UserId, chat: ChatId, data: &str) -> String {
        let msg = self
            .fake
            .wait_for(WAIT, |f| {
                f.messages(chat)
                    .into_iter()
                    .rev()
                    .find(|m| {
                        m.keyboard
                            .as_ref()
                            .is_some_and(|k| k.with_data(data).is_some())
                    })
                    .map(|m| m.id)
            })
            .await
            .unwrap_or_else(|_| panic!("no button {data} in {chat}"));
        self.fake.press(user, chat, msg, data).unwrap()
    }

    async fn answer(&self, query: &str) -> Option<String> {
        self.fake
            .wait_for(WAIT, |f| f.callback_answer(query))
            .await
            .unwrap()
            .text
    }

    /// Presses the group's newest button whose text has `label`.
    async fn press_in_group(&self, seat: usize, label: &str) {
        let (msg, data) = self
            .fake
            .wait_for(WAIT, |f| {
                let (msg, kb) = f.latest_keyboard(self.group)?;
                Some((msg, kb.find(label)?.callback_data()?.to_owned()))
            })
            .await
            .unwrap_or_else(|_| panic!("no group button {label}"));
        let q = self
            .fake
            .press(self.users[seat], self.group, msg, &data)
            .unwrap();
        assert_eq!(self.answer(&q).await, None, "{label}");
    }

    /// Everyone starts the bot; Ann opens a table with `command`, the
    /// others join, Ann starts it.
    pub(crate) async fn open_and_start(&self, command: &str) -> TableId {
        for u in self.users {
            self.fake.start_bot(u, None).unwrap();
        }
        self.fake
            .user_says(self.group, self.users[0], command)
            .unwrap();
        for i in 1..4 {
            self.press_in_group(i, &format!("{}", i + 1)).await;
        }
        self.press_in_group(0, "Start").await;
        let chat =
            kozyr::table::ChatKey::new(kozyr::table::Platform::Telegram, self.group.0.to_string())
                .unwrap();
        let s = self.bot.as_ref().unwrap().service();
        let t = s.open_table(&chat).await.unwrap().unwrap();
        assert_eq!(t.phase(), Phase::Playing);
        t.id()
    }

    /// Plays the seat's safe action by toggling its cards in the hand
    /// message and pressing the action button the bot then drew.
    pub(crate) async fn play_safe(&self, t: &Table) {
        let seat = t.awaiting()[0];
        let action = t.game().unwrap().safe_action(seat).unwrap();
        let (cards, make): (CardSet, fn(CardSet) -> TableAction) = match action {
            GameAction::Kozel(kozel::Action::Lead(s)) => (s, TableAction::Lead),
            GameAction::Kozel(kozel::Action::Pass(s)) => (s, TableAction::Pass),
            GameAction::Kozel(kozel::Action::Beat(s)) => (s, TableAction::Beat),
            GameAction::Hearts(hearts::Action::PassCards(s)) => (s, TableAction::HeartsPass),
            GameAction::Hearts(hearts::Action::Play(c)) => (CardSet::single(c), |s| {
                TableAction::HeartsPlay(s.first().unwrap())
            }),
            other => panic!("unexpected safe action {other:?}"),
        };
        let i = seat.index();
        let (user, dm) = (self.users[i], self.dm(i));
        let cb = |action| {
            Press::Table {
                table: t.id(),
                version: t.version(),
                action,
            }
            .encode()
        };
        let one_press = matches!(action, GameAction::Hearts(hearts::Action::Play(_)));
        for c in cards.iter().filter(|_| !one_press) {
            let q = self.press(user, dm, &cb(TableAction::Toggle(c))).await;
            assert_eq!(self.answer(&q).await, None, "toggle {c}");
        }
        let q = self.press(user, dm, &cb(make(cards))).await;
        assert_eq!(self.answer(&q).await, None, "{action:?}");
    }

    pub(crate) async fn wait_version_after(&self, id: TableId, v: u64) -> Table {
        eventually(
            WAIT,
            Duration::from_millis(5),
            "the table moves",
            || async {
                let t = self.table(id).await;
                (t.version() > v).then_some(t)
            },
        )
        .await
    }
}

pub(crate) fn deal_no(t: &Table) -> u32 {
    match t.game().unwrap().public_view() {
        GameView::Kozel(v) => v.deal_no,
        GameView::Hearts(v) => v.results.len() as u32 + 1,
    }
}

const STARTED: &str = "The game has started: the table is below.";

/// The old lobby is edited once, to say the game started below it (text
/// without buttons) rather than keep "All seats are taken: … can start";
/// at the next deal the old table message, which has no buttons, gets no
/// edit at all (today an `editMessageReplyMarkup` that Telegram answers
/// 400 "message is not modified", spending one of the group's 20 writes a
/// minute).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_the_old_lobby_says_the_game_started_and_a_new_deal_spends_no_edit_on_it() {
    let mut w = Telegram::new(fast_tuning()).await;
    let id = w.open_and_start("/kozel").await;
    let lobby = w
        .fake
        .wait_for(WAIT, |f| {
            f.messages(w.group).into_iter().find(|m| m.text == STARTED)
        })
        .await
        .expect("the old lobby says the game started");
    assert_eq!(lobby.keyboard, None, "and has no buttons left");
    assert!(
        !w.fake
            .messages(w.group)
            .iter()
            .any(|m| m.text.contains("can start")),
        "no message says the game can start"
    );
    // A whole deal, to the next one's table posted anew.
    let first = deal_no(&w.table(id).await);
    let mut moves = 0;
    loop {
        let t = w.table(id).await;
        if deal_no(&t) != first || t.phase() != Phase::Playing {
            break;
        }
        w.play_safe(&t).await;
        w.wait_version_after(id, t.version()).await;
        moves += 1;
        assert!(moves < 200, "the deal does not end");
    }
    let t = w.table(id).await;
    if t.phase() == Phase::Playing {
        w.play_safe(&t).await;
        w.wait_version_after(id, t.version()).await;
    }
    w.stop().await;
    let failed = w.fake.failures();
    let strips = w.fake.calls_of("editMessageReplyMarkup");
    println!(
        "telegram kozel deal: {moves} moves, calls {:?}, failures {failed:?}",
        w.fake.calls()
    );
    assert_eq!(
        failed.get("editMessageReplyMarkup").copied().unwrap_or(0),
        0,
        "an edit that changed nothing"
    );
    assert_eq!(
        failed.get("editMessageText").copied().unwrap_or(0),
        0,
        "an edit that changed nothing"
    );
    assert_eq!(strips, 0, "no old table message had buttons to lose");
}

/// A whole Kozel deal on Discord: no edit (of a table, a hand, or an
/// answer updating a hand) leaves the message as it was — today an edit
/// in flight leaves what a hand shows unknown and the same content goes
/// out again. The first player of the series is notified exactly once
/// (the new table message mentions them; today a ping message too), and
/// the old lobby says the game started. Prints the REST calls per move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_a_deal_has_no_edit_that_changes_nothing_and_one_notification_to_start() {
    let mut w = dc::World::new().await;
    let id = dc::open_and_start(&w, "kozel").await;
    let t = w.table(id).await;
    let first = t.awaiting()[0].index();
    // The table posted anew below the lobby, with its "My hand" button.
    let lobby = w
        .sees(first, "the old lobby says the game started", |seen| {
            seen.iter()
                // Markdown escapes the colon.
                .find(|m| !m.ephemeral && m.content.replace('\\', "") == STARTED)
                .map(|m| m.id)
        })
        .await;
    let (table_msg, _) = w.my_hand_button(first).await;
    assert!(table_msg > lobby);
    assert_eq!(
        w.fake.notifications_of(&w.users[first]),
        1,
        "the first player is told once"
    );
    let calls_before = w.fake.calls().len();
    let unchanged_before = w.fake.unchanged_edits();
    let n = dc::deal_no(&t);
    let mut moves = 0;
    loop {
        let t = w.table(id).await;
        if dc::deal_no(&t) != n || t.phase() != Phase::Playing {
            break;
        }
        w.play_safe(&t).await;
        w.wait_version_after(id, t.version()).await;
        moves += 1;
        assert!(moves < 200, "the deal does not end");
    }
    w.stop().await;
    let calls = w.fake.calls();
    let deal_calls = &calls[calls_before..];
    let mut routes: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for c in deal_calls {
        *routes.entry(c.route.as_str()).or_default() += 1;
    }
    let unchanged = w.fake.unchanged_edits();
    println!(
        "discord kozel deal: {moves} moves, {} REST calls ({:.1} per move), \
         {} edits that changed nothing ({} before the deal) {routes:?}",
        deal_calls.len(),
        deal_calls.len() as f64 / f64::from(moves),
        unchanged - unchanged_before,
        unchanged_before,
    );
    w.assert_clean();
    assert_eq!(unchanged, 0, "edits that changed nothing");
}

/// What the table message shows is kept over a graceful restart on
/// Discord too: the restart's render of an unchanged table sends nothing,
/// and the next change is one edit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_a_restart_re_sends_nothing_already_shown() {
    let mut w = dc::World::new().await;
    let q = w.fake.slash(&w.users[0], CHANNEL, "kozel");
    w.answered(q).await;
    let q = w.click_table(1, TableAction::Join).await;
    w.answered(q).await;
    seated(&w, 2).await;
    // The join's edit landed.
    w.sees(0, "Boris seated", |seen| {
        seen.iter()
            .rev()
            .find(|m| !m.ephemeral && m.content.contains("Boris"))
            .map(|_| ())
    })
    .await;
    w.stop().await;
    let before = w.fake.calls().len();
    w.bot = Some(
        kozyr::discord::bot::start(&dc::discord_config(&w.fake, &w.dir), dc::tuning())
            .await
            .unwrap(),
    );
    w.connected().await;
    let q = w.click_table(2, TableAction::Join).await;
    w.answered(q).await;
    seated(&w, 3).await;
    w.sees(0, "Chloe seated", |seen| {
        seen.iter()
            .rev()
            .find(|m| !m.ephemeral && m.content.contains("Chloe"))
            .map(|_| ())
    })
    .await;
    w.stop().await;
    let calls = w.fake.calls();
    let edits = calls[before..]
        .iter()
        .filter(|c| c.route.starts_with("PATCH /channels") || c.route.starts_with("POST /channels"))
        .count();
    assert_eq!(w.fake.unchanged_edits(), 0, "the restart re-sent the table");
    assert_eq!(edits, 1, "one edit: Chloe's join");
}

async fn seated(w: &dc::World, n: usize) {
    eventually(WAIT, Duration::from_millis(5), "seated", || async {
        let t = w.open_table().await;
        (t.seats()
            .iter()
            .filter(|(_, s)| s.person().is_some())
            .count()
            == n)
            .then_some(())
    })
    .await
}

/// The `/stop` prompt goes before a table edit waiting in the group's
/// queue: the person who just asked waits for it, and the edit is one a
/// later one replaces anyway. (Today the edit, queued earlier, goes first:
/// 8.9–11.8 s after `/stop` in a busy group.) A slow group pacing (one
/// output per 8 s) holds the edit back long enough to see the order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_a_stop_prompt_goes_before_a_waiting_table_edit() {
    use kozyr::delivery::pacing::PacerConfig;
    let spacing = Duration::from_secs(8);
    let tuning = Tuning {
        group_pacing: PacerConfig {
            min_interval: spacing,
            urgent_interval: Duration::from_millis(50),
            window: Duration::from_secs(60),
            max_per_window: 0,
        },
        ..fast_tuning()
    };
    let mut w = Telegram::new(tuning).await;
    let id = w.open_and_start("/kozel").await;
    let table_msg = w
        .fake
        .wait_for(WAIT, |f| {
            let m = f.last_bot_message(w.group)?;
            m.text.contains("deal 1").then_some(m.id)
        })
        .await
        .expect("the live table");
    let edits = || w.fake.message(w.group, table_msg).map_or(0, |m| m.edits);
    // The first move's edit goes once the spacing since the table's post
    // has passed; the second move's waits for the spacing after that.
    let t = w.table(id).await;
    w.play_safe(&t).await;
    let t = w.wait_version_after(id, t.version()).await;
    w.fake
        .wait_for(spacing + WAIT, |_| (edits() == 1).then_some(()))
        .await
        .expect("the first move shown");
    w.play_safe(&t).await;
    let t = w.wait_version_after(id, t.version()).await;
    // Asked well after the edit was queued (it is due first by its age),
    // while the next player picks their cards (the bot is busy).
    let seat = t.awaiting()[0];
    let card = match t.game().unwrap().safe_action(seat).unwrap() {
        GameAction::Kozel(kozel::Action::Beat(s) | kozel::Action::Pass(s)) => s.first().unwrap(),
        other => panic!("{other:?}"),
    };
    let toggle = Press::Table {
        table: id,
        version: t.version(),
        action: TableAction::Toggle(card),
    }
    .encode();
    let i = seat.index();
    for _ in 0..8 {
        let q = w.press(w.users[i], w.dm(i), &toggle).await;
        assert_eq!(w.answer(&q).await, None);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    w.fake.user_says(w.group, w.users[0], "/stop").unwrap();
    let prompt = w
        .fake
        .wait_for(spacing + WAIT, |f| {
            f.messages(w.group)
                .into_iter()
                .find(|m| m.text.starts_with("Stop this table?"))
        })
        .await
        .expect("the stop prompt");
    assert!(prompt.keyboard.is_some());
    assert_eq!(edits(), 1, "the waiting table edit went before the prompt");
    w.stop().await;
}
