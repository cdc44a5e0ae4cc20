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

use kozyr::table::Phase;
use kozyr_test_kit::fakebot::FakeMessage;
use kozyr_test_kit::fakediscord::Seen;
use teloxide::types::ChatId;

use crate::support::discord::{self as dc, CHANNEL, open_and_start};
use crate::support::eventually;
use crate::support::telegram::{NAMES, Setup, WAIT, World};

const OTHER_CHAT: &str = "This button belongs to a table in another chat: use it there.";
const ADMIN_ONLY: &str = "Only the table's creator or an admin can do that.";
const NOT_YOURS: &str = "This is not your question: only the person who asked can answer it.";

// ------------------------------------------------------------ Telegram --

/// Ann, Boris, Chloe and Dmitri play in "Friday cards", where Olga only
/// watches; Boris is also in another group. Everyone opened the bot.
struct Tg {
    w: World,
    olga: usize,
    other: ChatId,
}

impl Tg {
    async fn new() -> Tg {
        let mut people = NAMES.map(str::to_owned).to_vec();
        people.push("Olga".into());
        let w = World::with(Setup {
            people,
            ..Setup::default()
        })
        .await;
        let other = w.fake.add_group("Other cards", &[w.users[1]]);
        Tg { w, olga: 4, other }
    }

    /// Waits for a message in `chat` whose text contains `needle`.
    async fn message_with(&self, chat: ChatId, needle: &str) -> FakeMessage {
        self.w
            .fake
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
        self.w
            .fake
            .messages(chat)
            .iter()
            .filter(|m| m.text.contains(needle))
            .count()
    }

    async fn seated(&self) -> usize {
        self.w.open_table_in(self.w.group).await.map_or(0, |t| {
            t.seats()
                .iter()
                .filter(|(_, s)| s.person().is_some())
                .count()
        })
    }

    async fn stop(mut self) {
        assert!(self.w.fake.unanswered_callbacks().is_empty());
        self.w.stop().await;
    }
}

/// Telegram, point 4: the lobby's Join, sent by Boris's client from
/// another group, changes nothing and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_a_lobby_button_from_another_group_changes_nothing_and_says_why() {
    let t = Tg::new().await;
    let w = &t.w;
    let boris = w.users[1];
    w.fake.user_says(w.group, w.users[0], "/kozel").unwrap();
    let (lobby, join) = w.group_button("Join").await;
    w.fake.user_says(t.other, boris, "/help").unwrap();
    let there = w
        .fake
        .wait_for(WAIT, |f| f.last_bot_message(t.other))
        .await
        .unwrap();
    let q = w.fake.press_raw(boris, t.other, there.id, &join).unwrap();
    assert_eq!(w.answer(&q).await.as_deref(), Some(OTHER_CHAT));
    assert_eq!(t.seated().await, 1, "only the creator sits");
    // The same button in its own group seats him.
    assert_eq!(w.press_on(boris, w.group, lobby, &join).await, None);
    assert_eq!(t.seated().await, 2);
    t.stop().await;
}

/// Telegram, points 1 and 2: the words name the private chat and never
/// "My hand"; an outsider's `/settings` and `/stop` are refused in their
/// private chat (saying which group they are about), and the creator's
/// stop prompt goes to theirs; the group sees none of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_refusals_and_the_stop_prompt_go_to_the_askers_private_chat() {
    let t = Tg::new().await;
    let w = &t.w;
    let (ann, boris, olga) = (w.users[0], w.users[1], w.users[t.olga]);
    w.open("/kozel", false).await;
    t.message_with(
        w.group,
        "Kozel begins! Your cards are in your private chat with me.",
    )
    .await;
    w.fake.user_says(w.group, boris, "/help").unwrap();
    t.message_with(w.group, "Your cards come in a private message from me")
        .await;

    // Olga neither created the table nor administers the group.
    w.fake.user_says(w.group, olga, "/settings").unwrap();
    w.fake.user_says(w.group, olga, "/stop").unwrap();
    w.fake
        .wait_for(WAIT, |f| {
            let n = f
                .messages(w.dm(t.olga))
                .iter()
                .filter(|m| m.text.starts_with("In ") && m.text.ends_with(ADMIN_ONLY))
                .count();
            (n == 2).then_some(())
        })
        .await
        .expect("both refusals in Olga's private chat");
    // Ann's own /stop: her prompt comes to her private chat.
    w.fake.user_says(w.group, ann, "/stop").unwrap();
    let prompt = t.message_with(w.dm(0), "Stop this table?").await;
    assert!(prompt.keyboard.is_some());
    assert_eq!(t.count_with(w.group, ADMIN_ONLY), 0);
    assert_eq!(t.count_with(w.group, "Stop this table?"), 0);
    for chat in [w.group, w.dm(0), w.dm(1)] {
        assert_eq!(
            t.count_with(chat, "My hand"),
            0,
            "Discord's words in {chat}"
        );
    }
    // Her "Yes" there stops the table.
    let yes = prompt
        .keyboard
        .as_ref()
        .and_then(|k| k.find("Yes, stop it")?.callback_data().map(str::to_owned))
        .unwrap();
    assert_eq!(w.press_on(ann, w.dm(0), prompt.id, &yes).await, None);
    eventually(
        WAIT,
        Duration::from_millis(10),
        "the table stops",
        || async { w.open_table_in(w.group).await.is_none().then_some(()) },
    )
    .await;
    t.stop().await;
}

/// Telegram, point 3: once the bot cannot write to Ann, her stop prompt is
/// shown in the group, saying why; Boris's "No" on it is refused as not
/// his question and changes nothing; her own "Yes" stops the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_only_the_asker_answers_their_stop_prompt() {
    let t = Tg::new().await;
    let w = &t.w;
    let (ann, boris) = (w.users[0], w.users[1]);
    w.open("/kozel", false).await;
    w.fake.block_bot(ann).unwrap();
    // (Names are set in bidi isolates: the needles stop short of them.)
    t.message_with(w.group, "I cannot write to").await;
    w.fake.user_says(w.group, ann, "/stop").unwrap();
    let (msg, no) = w.group_button("No, keep playing").await;
    assert_eq!(
        w.press_on(boris, w.group, msg, &no).await.as_deref(),
        Some(NOT_YOURS)
    );
    let shown = w.fake.message(w.group, msg).unwrap();
    assert!(
        shown.text.contains("I can't write to you in private")
            && shown.text.contains("Stop this table?"),
        "{}",
        shown.text
    );
    assert!(
        shown.keyboard.is_some_and(|k| k.buttons().count() == 2),
        "Boris's press left Ann's prompt as it was"
    );
    assert!(w.open_table_in(w.group).await.is_some());
    let (_, yes) = w.group_button("Yes, stop it").await;
    assert_eq!(w.press_on(ann, w.group, msg, &yes).await, None);
    eventually(
        WAIT,
        Duration::from_millis(10),
        "the table stops",
        || async { w.open_table_in(w.group).await.is_none().then_some(()) },
    )
    .await;
    t.stop().await;
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
    // The game's table message is posted anew, below the game's first
    // announcement, before the message pressed elsewhere is: a message
    // older than the live table message is an out-of-date one, and its
    // button is refused as such.
    w.sees(
        BORIS,
        "the table posted anew below the game's start",
        |seen| {
            let public: Vec<_> = seen.iter().filter(|m| !m.ephemeral).collect();
            let begins = public.iter().position(|m| m.content.contains("begins"))?;
            public[begins..]
                .iter()
                .any(|m| m.buttons.iter().any(|(_, c)| c.starts_with("hand:")))
                .then_some(())
        },
    )
    .await;
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

/// Telegram: a refusal told to someone the bot has never been able to
/// write to (Olga never opened its private chat, so Telegram refuses the
/// message with a 403) is said in the group instead, saying why — not
/// lost. The bot learns it only from that refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_a_refusal_the_bot_cannot_send_privately_comes_in_the_group() {
    let mut people = NAMES.map(str::to_owned).to_vec();
    people.push("Olga".into());
    let w = World::with(Setup {
        people,
        started: false,
        ..Setup::default()
    })
    .await;
    let olga = w.users[4];
    w.open("/kozel", false).await;
    w.fake.user_says(w.group, olga, "/settings").unwrap();
    let told = w
        .fake
        .wait_for(WAIT, |f| {
            f.messages(w.group)
                .into_iter()
                .find(|m| m.text.ends_with(ADMIN_ONLY))
        })
        .await
        .expect("Olga's refusal in the group");
    assert!(
        told.text.contains("I can't write to you in private"),
        "{}",
        told.text
    );
    assert!(w.fake.messages(w.dm(4)).is_empty());
}
