//! Issue 18, point 3, end to end through both strict fakes: every message
//! speaks its platform's language, and what concerns one person is said to
//! that person only.
//!
//! - Telegram says where the cards are — a private chat — and never "My
//!   hand"; Discord says "My hand" and never "private chat".
//! - An outsider's `/settings` and `/stop` are refused privately (Telegram:
//!   a private message; Discord: ephemeral), and nobody else sees a stop
//!   prompt; the prompt goes to who asked only.
//! - Only the asker answers their `/stop` prompt: on Telegram, where the
//!   bot cannot write to the asker and the prompt is shown in the group,
//!   another person's "No" is refused as not their question.
//! - A table's button works only in the chat its table lives in: a lobby
//!   button pressed in another group, and Discord's "My hand" pressed in
//!   another channel, change nothing and say why.
//!
//! People press only what they see, except where a test says a client
//! sends a button from elsewhere (a forwarded message, a modified client).

use std::time::Duration;

use kozyr::fakebot::{FakeBot, FakeBotConfig, FakeMessage, UserSpec};
use kozyr::fakediscord::Seen;
use kozyr::table::{ChatKey, Phase, Platform, Table};
use kozyr::telegram::bot::{RunningBot, start};
use teloxide::types::{ChatId, MessageId, UserId};

use crate::discord::{self as dc, CHANNEL, open_and_start};
use crate::support::{bot_config, eventually, fast_tuning};

const WAIT: Duration = Duration::from_secs(10);

const OTHER_CHAT: &str = "This button belongs to a table in another chat: use it there.";
const ADMIN_ONLY: &str = "Only the table's creator or an admin can do that.";
const NOT_YOURS: &str = "This is not your question: only the person who asked can answer it.";

// ------------------------------------------------------------ Telegram --

/// Ann, Boris, Chloe and Dmitri play in "Friday cards", where Olga only
/// watches; Boris is also in another group. Everyone opened the bot.
struct Tg {
    fake: FakeBot,
    _dir: tempfile::TempDir,
    users: [UserId; 4],
    olga: UserId,
    group: ChatId,
    other: ChatId,
    bot: Option<RunningBot>,
}

impl Tg {
    async fn new() -> Tg {
        let fake = FakeBot::start_with(FakeBotConfig {
            token: "123456:TEST-fake-token-kozyr-words-0123456789".into(),
            ..FakeBotConfig::default()
        })
        .await
        .unwrap();
        let users = ["Ann", "Boris", "Chloe", "Dmitri"]
            .map(|n| fake.add_user(UserSpec::new(n).language("en")));
        let olga = fake.add_user(UserSpec::new("Olga").language("en"));
        let mut members = users.to_vec();
        members.push(olga);
        let group = fake.add_group("Friday cards", &members);
        let other = fake.add_group("Other cards", &[users[1]]);
        let dir = tempfile::tempdir().unwrap();
        let bot = start(&bot_config(&fake, &dir), fast_tuning())
            .await
            .unwrap();
        for &u in members.iter() {
            fake.start_bot(u, None).unwrap();
        }
        Tg {
            fake,
            _dir: dir,
            users,
            olga,
            group,
            other,
            bot: Some(bot),
        }
    }

    async fn open_table(&self) -> Option<Table> {
        let chat = ChatKey::new(Platform::Telegram, self.group.0.to_string()).unwrap();
        let s = self.bot.as_ref().unwrap().service();
        s.open_table(&chat).await.unwrap()
    }

    /// Waits for a message in `chat` whose text contains `needle`.
    async fn message_with(&self, chat: ChatId, needle: &str) -> FakeMessage {
        self.fake
            .wait_for(WAIT, |f| {
                f.messages(chat)
                    .into_iter()
                    .rev()
                    .find(|m| m.text.contains(needle))
            })
            .await
            .unwrap_or_else(|_| panic!("no message with {needle:?} in {chat}"))
    }

    fn count_with(&self, chat: ChatId, needle: &str) -> usize {
        self.fake
            .messages(chat)
            .iter()
            .filter(|m| m.text.contains(needle))
            .count()
    }

    /// The newest button labelled `label` in `chat`: (message, data).
    async fn button(&self, chat: ChatId, label: &str) -> (MessageId, String) {
        self.fake
            .wait_for(WAIT, |f| {
                f.messages(chat).into_iter().rev().find_map(|m| {
                    let data = m.keyboard?.find(label)?.callback_data()?.to_owned();
                    Some((m.id, data))
                })
            })
            .await
            .unwrap_or_else(|_| panic!("no button {label} in {chat}"))
    }

    /// Presses and returns the popup the press was answered with.
    async fn press(
        &self,
        user: UserId,
        chat: ChatId,
        msg: MessageId,
        data: &str,
    ) -> Option<String> {
        let q = self.fake.press(user, chat, msg, data).unwrap();
        self.answer(&q).await
    }

    async fn answer(&self, q: &str) -> Option<String> {
        self.fake
            .wait_for(WAIT, |f| f.callback_answer(q))
            .await
            .unwrap()
            .text
    }

    async fn seated(&self) -> usize {
        self.open_table().await.map_or(0, |t| {
            t.seats()
                .iter()
                .filter(|(_, s)| s.person().is_some())
                .count()
        })
    }
}

impl Tg {
    /// Ann opens a Kozel table; the lobby's message.
    async fn lobby(&self) -> MessageId {
        self.fake
            .user_says(self.group, self.users[0], "/kozel")
            .unwrap();
        self.button(self.group, "Join").await.0
    }

    /// Ann opens a Kozel table, the others sit down, Ann starts it.
    async fn playing(&self) {
        self.lobby().await;
        for i in 1..4 {
            let (msg, seat) = self.button(self.group, &format!("Seat {}", i + 1)).await;
            assert_eq!(
                self.press(self.users[i], self.group, msg, &seat).await,
                None
            );
        }
        let (msg, go) = self.button(self.group, "Start").await;
        assert_eq!(self.press(self.users[0], self.group, msg, &go).await, None);
        self.message_with(self.group, "Kozel begins!").await;
    }

    async fn stop(mut self) {
        assert!(self.fake.unanswered_callbacks().is_empty());
        if let Some(b) = self.bot.take() {
            b.stop().await;
        }
    }
}

fn dm(u: UserId) -> ChatId {
    FakeBot::private_chat(u)
}

/// Telegram, point 4: the lobby's Join, sent by Boris's client from
/// another group, changes nothing and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_a_lobby_button_from_another_group_changes_nothing_and_says_why() {
    let w = Tg::new().await;
    let boris = w.users[1];
    let lobby = w.lobby().await;
    let join = w.button(w.group, "Join").await.1;
    w.fake.user_says(w.other, boris, "/help").unwrap();
    let there = w
        .fake
        .wait_for(WAIT, |f| f.last_bot_message(w.other))
        .await
        .unwrap();
    let q = w.fake.press_raw(boris, w.other, there.id, &join).unwrap();
    assert_eq!(w.answer(&q).await.as_deref(), Some(OTHER_CHAT));
    assert_eq!(w.seated().await, 1, "only the creator sits");
    // The same button in its own group seats him.
    assert_eq!(w.press(boris, w.group, lobby, &join).await, None);
    assert_eq!(w.seated().await, 2);
    w.stop().await;
}

/// Telegram, points 1 and 2: the words name the private chat and never
/// "My hand"; an outsider's `/settings` and `/stop` are refused in their
/// private chat (saying which group they are about), and the creator's
/// stop prompt goes to theirs; the group sees none of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_refusals_and_the_stop_prompt_go_to_the_askers_private_chat() {
    let w = Tg::new().await;
    let [ann, boris, ..] = w.users;
    w.playing().await;
    w.message_with(
        w.group,
        "Kozel begins! Your cards are in your private chat with me.",
    )
    .await;
    w.fake.user_says(w.group, boris, "/help").unwrap();
    w.message_with(w.group, "Your cards come in a private message from me")
        .await;

    // Olga neither created the table nor administers the group.
    w.fake.user_says(w.group, w.olga, "/settings").unwrap();
    w.fake.user_says(w.group, w.olga, "/stop").unwrap();
    w.fake
        .wait_for(WAIT, |f| {
            let n = f
                .messages(dm(w.olga))
                .iter()
                .filter(|m| m.text.starts_with("In ") && m.text.ends_with(ADMIN_ONLY))
                .count();
            (n == 2).then_some(())
        })
        .await
        .expect("both refusals in Olga's private chat");
    // Ann's own /stop: her prompt comes to her private chat.
    w.fake.user_says(w.group, ann, "/stop").unwrap();
    let prompt = w.message_with(dm(ann), "Stop this table?").await;
    assert!(prompt.keyboard.is_some());
    assert_eq!(w.count_with(w.group, ADMIN_ONLY), 0);
    assert_eq!(w.count_with(w.group, "Stop this table?"), 0);
    for chat in [w.group, dm(ann), dm(boris)] {
        assert_eq!(
            w.count_with(chat, "My hand"),
            0,
            "Discord's words in {chat}"
        );
    }
    // Her "Yes" there stops the table.
    let (msg, yes) = w.button(dm(ann), "Yes, stop it").await;
    assert_eq!(w.press(ann, dm(ann), msg, &yes).await, None);
    eventually(
        WAIT,
        Duration::from_millis(10),
        "the table stops",
        || async { w.open_table().await.is_none().then_some(()) },
    )
    .await;
    w.stop().await;
}

/// Telegram, point 3: once the bot cannot write to Ann, her stop prompt is
/// shown in the group, saying why; Boris's "No" on it is refused as not
/// his question and changes nothing; her own "Yes" stops the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_only_the_asker_answers_their_stop_prompt() {
    let w = Tg::new().await;
    let [ann, boris, ..] = w.users;
    w.playing().await;
    w.fake.block_bot(ann).unwrap();
    // (Names are set in bidi isolates: the needles stop short of them.)
    w.message_with(w.group, "The bot cannot write to").await;
    w.fake.user_says(w.group, ann, "/stop").unwrap();
    let (msg, no) = w.button(w.group, "No, keep playing").await;
    assert_eq!(
        w.press(boris, w.group, msg, &no).await.as_deref(),
        Some(NOT_YOURS)
    );
    let shown = w.fake.message(w.group, msg).unwrap();
    assert!(
        shown.text.contains("I can't write to you in private")
            && shown.text.contains("Stop this table?"),
        "{}",
        shown.text
    );
    let (_, yes) = w.button(w.group, "Yes, stop it").await;
    let still = w.fake.message(w.group, msg).unwrap();
    assert!(
        still.keyboard.is_some_and(|k| k.buttons().count() == 2),
        "Boris's press left Ann's prompt as it was"
    );
    assert!(w.open_table().await.is_some());
    assert_eq!(w.press(ann, w.group, msg, &yes).await, None);
    eventually(
        WAIT,
        Duration::from_millis(10),
        "the table stops",
        || async { w.open_table().await.is_none().then_some(()) },
    )
    .await;
    w.stop().await;
}

// ------------------------------------------------------------- Discord --

/// Another channel of the same server.
const ELSEWHERE: u64 = 700000000000000099;

/// A message's text as people read it: without markdown's escapes.
fn read(m: &Seen) -> String {
    m.content.replace('\\', "")
}

fn public_with(seen: &[Seen], needle: &str) -> bool {
    seen.iter()
        .any(|m| !m.ephemeral && read(m).contains(needle))
}

fn own_with<'a>(seen: &'a [Seen], needle: &str) -> Option<&'a Seen> {
    seen.iter()
        .rev()
        .find(|m| m.ephemeral && read(m).contains(needle))
}

const ANN: usize = 0;
const BORIS: usize = 1;
const DMITRI: usize = 3;

/// Discord, point 1: the game's start and `/help` say "My hand", and
/// nothing in the channel speaks of a private chat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_words_name_my_hand_and_no_private_chat() {
    let mut w = dc::World::new().await;
    open_and_start(&w, "kozel").await;
    w.sees(DMITRI, "the game begins, with My hand", |seen| {
        public_with(
            seen,
            "Press “My hand” to see your cards: only you see them.",
        )
        .then_some(())
    })
    .await;
    let q = w.fake.slash(&w.users[BORIS], CHANNEL, "help");
    assert_eq!(w.answered(q).await, 4);
    w.sees(DMITRI, "/help, with My hand", |seen| {
        public_with(seen, "Press “My hand” under the table to see your cards").then_some(())
    })
    .await;
    for who in [ANN, BORIS, DMITRI] {
        let seen = w.fake.seen_by(&w.users[who], CHANNEL);
        assert!(
            !seen
                .iter()
                .any(|m| read(m).to_lowercase().contains("private")),
            "Telegram's words on Discord: {seen:#?}"
        );
    }
    w.assert_clean();
    w.stop().await;
}

/// Discord, point 2: an outsider's `/settings` and `/stop` are refused
/// ephemerally, and the creator's stop prompt is theirs alone; nobody
/// else sees any of it. Her "Yes" there stops the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_refusals_and_the_stop_prompt_are_ephemeral() {
    let mut w = dc::World::new().await;
    open_and_start(&w, "kozel").await;
    // Boris neither created the table nor manages the server.
    for c in ["settings", "stop"] {
        let q = w.fake.slash(&w.users[BORIS], CHANNEL, c);
        assert_eq!(w.answered(q).await, 4, "/{c}");
    }
    w.sees(BORIS, "both refusals, his alone", |seen| {
        let n = seen
            .iter()
            .filter(|m| m.ephemeral && read(m) == ADMIN_ONLY)
            .count();
        (n == 2).then_some(())
    })
    .await;
    let prompt = stop_prompt(&w).await;
    let everyone = w.fake.seen_by(&w.users[DMITRI], CHANNEL);
    assert!(!public_with(&everyone, ADMIN_ONLY));
    assert!(!public_with(&everyone, "Stop this table?"));
    let yes = button(&prompt, "Yes, stop it");
    let q = w.fake.click(&w.users[ANN], prompt.id, &yes).unwrap();
    assert_eq!(w.answered(q).await, 7);
    eventually(
        WAIT,
        Duration::from_millis(10),
        "the table stops",
        || async {
            let s = w.fake.seen_by(&w.users[DMITRI], CHANNEL);
            public_with(&s, "The table was stopped by").then_some(())
        },
    )
    .await;
    w.assert_clean();
    w.stop().await;
}

/// Ann's `/stop`: her ephemeral prompt.
async fn stop_prompt(w: &dc::World) -> Seen {
    let q = w.fake.slash(&w.users[ANN], CHANNEL, "stop");
    assert_eq!(w.answered(q).await, 4);
    w.sees(ANN, "Ann's stop prompt", |seen| {
        own_with(seen, "Stop this table?").cloned()
    })
    .await
}

fn button(m: &Seen, label: &str) -> String {
    m.buttons
        .iter()
        .find(|(l, _)| l == label)
        .map(|(_, c)| c.clone())
        .unwrap_or_else(|| panic!("no {label} on {m:#?}"))
}

/// Discord, point 3: Boris's client sends Ann's "No" from the table
/// message he sees: not his question, nothing changes; Ann's own "No"
/// closes her prompt, which then says the table goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_only_the_asker_answers_their_stop_prompt() {
    let mut w = dc::World::new().await;
    open_and_start(&w, "kozel").await;
    let prompt = stop_prompt(&w).await;
    let no = button(&prompt, "No, keep playing");
    let table_msg = w.my_hand_button(BORIS).await.0;
    let q = w.fake.click_raw(&w.users[BORIS], table_msg, &no).unwrap();
    assert_eq!(w.answered(q).await, 4);
    w.sees(BORIS, "not his question", |seen| {
        own_with(seen, NOT_YOURS).map(|_| ())
    })
    .await;
    let mine = w.fake.seen_by(&w.users[ANN], CHANNEL);
    let still = mine.iter().find(|m| m.id == prompt.id).unwrap();
    assert_eq!(still.buttons.len(), 2, "Ann's prompt as it was");
    let q = w.fake.click(&w.users[ANN], prompt.id, &no).unwrap();
    assert_eq!(w.answered(q).await, 7);
    w.sees(ANN, "the prompt closed", |seen| {
        seen.iter()
            .find(|m| m.id == prompt.id)
            .filter(|m| m.buttons.is_empty())
            .filter(|m| read(m) == "The table was not stopped: the game goes on.")
            .map(|_| ())
    })
    .await;
    assert_eq!(w.open_table().await.phase(), Phase::Playing);
    w.assert_clean();
    w.stop().await;
}

/// Discord, point 4: "My hand", sent by Boris's client on his `/help`
/// answer in another channel, shows no hand there and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_my_hand_from_another_channel_shows_no_hand_there() {
    let mut w = dc::World::new().await;
    let id = open_and_start(&w, "kozel").await;
    let q = w.fake.slash(&w.users[BORIS], ELSEWHERE, "help");
    assert_eq!(w.answered(q).await, 4);
    let there = eventually(
        WAIT,
        Duration::from_millis(5),
        "/help elsewhere",
        || async {
            w.fake
                .seen_by(&w.users[BORIS], ELSEWHERE)
                .iter()
                .rev()
                .find(|m| !m.ephemeral)
                .map(|m| m.id)
        },
    )
    .await;
    let q = w
        .fake
        .click_raw(&w.users[BORIS], there, &format!("hand:{}", id.0))
        .unwrap();
    assert_eq!(w.answered(q).await, 4);
    let elsewhere = eventually(WAIT, Duration::from_millis(5), "the refusal", || async {
        let seen = w.fake.seen_by(&w.users[BORIS], ELSEWHERE);
        own_with(&seen, OTHER_CHAT).is_some().then_some(seen)
    })
    .await;
    assert!(
        !elsewhere
            .iter()
            .any(|m| m.select.is_some() || m.buttons.iter().any(|(_, c)| c.starts_with('t'))),
        "no hand in another channel: {elsewhere:#?}"
    );
    // In its own channel, the same button shows his hand.
    w.hand(BORIS, id).await;
    w.assert_clean();
    w.stop().await;
}
