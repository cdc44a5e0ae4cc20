//! `outlet::interaction`: however an interaction ends — refused, slow,
//! too fast, a command that opens a table, a request for a hand that is
//! not there —
//! it gets exactly one first answer, a deferred one is completed by an
//! edit, and what concerns the sender alone is said to them alone. Driven
//! through a recording `Interaction`, with no platform and no sleeps but
//! the front's own work.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use kozyr::delivery::interaction::Seen;
use kozyr::front::core::{Admins, BotCommand, Defaults, Origin};
use kozyr::front::press_limits::{PressLimits, PressRates};
use kozyr::front::{Front, Screen};
use kozyr::i18n::{Args, Lang, key, tr};
use kozyr::outlet::engine::Local;
use kozyr::outlet::hand_tokens::HandTokens;
use kozyr::outlet::interaction::{self, Ask, Interaction, Respond};
use kozyr::table::runtime::{DedupKey, TableService};
use kozyr::table::{ChatKey, HandView, Output, Platform, Player, TableId, UserId};

use crate::support::db_url;
use crate::support::store::TestStore;

/// Nobody administers anything here.
struct NoAdmins;

impl Admins for NoAdmins {
    async fn is_admin(&self, _: &ChatKey, _: &UserId) -> bool {
        false
    }
}

/// One interaction whose calls are written down, each as a line.
struct Recorded {
    front: Front,
    tokens: HandTokens,
    presses: Mutex<PressLimits>,
    pressed: Option<u64>,
    privately: bool,
    calls: Mutex<Vec<String>>,
    outbox: Mutex<Vec<String>>,
}

impl Recorded {
    /// A press on `pressed` (a public message), at people's press rates.
    fn new(service: &TableService, defaults: Defaults, pressed: Option<u64>) -> Recorded {
        let rates = PressRates::PEOPLE;
        Recorded {
            front: Front::new(service.clone(), defaults),
            tokens: HandTokens::new(service.clone(), Duration::from_secs(600)),
            presses: Mutex::new(PressLimits::new(rates.person, rates.chat)),
            pressed,
            privately: false,
            calls: Mutex::new(Vec::new()),
            outbox: Mutex::new(Vec::new()),
        }
    }

    fn log(&self, line: String) {
        self.calls.lock().unwrap().push(line);
    }

    fn calls(&self) -> Vec<String> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }

    fn outbox(&self) -> Vec<String> {
        std::mem::take(&mut *self.outbox.lock().unwrap())
    }
}

fn seen(s: Seen) -> &'static str {
    match s {
        Seen::Chat => "chat",
        Seen::Sender => "sender",
    }
}

impl Interaction for Recorded {
    type Message = String;
    type Admins = NoAdmins;

    fn front(&self) -> &Front {
        &self.front
    }
    fn admins(&self) -> &NoAdmins {
        &NoAdmins
    }
    fn tokens(&self) -> &HandTokens {
        &self.tokens
    }
    fn presses(&self) -> &Mutex<PressLimits> {
        &self.presses
    }
    fn notify(&self, local: Local) {
        let what = match local {
            Local::Output(Output::RenderTable(v)) => format!("render table {}", v.id.0),
            Local::Output(o) => format!("output {o:?}").chars().take(30).collect(),
            Local::Acted(_) => "acted".into(),
            Local::BringTable(v) => format!("bring table {}", v.id.0),
        };
        self.outbox.lock().unwrap().push(what);
    }
    fn arrived(&self) -> Instant {
        Instant::now()
    }
    fn token(&self) -> &str {
        "tok"
    }
    fn pressed(&self) -> Option<u64> {
        self.pressed
    }
    fn pressed_privately(&self) -> bool {
        self.privately
    }
    fn text(&self, text: &str) -> String {
        text.to_owned()
    }
    fn screen(&self, screen: &Screen, buttons: bool) -> String {
        let text = screen.rich().plain();
        if buttons {
            format!("{text} [buttons]")
        } else {
            text
        }
    }
    fn closed_menu(&self, closing: Option<&Screen>) -> String {
        closing.map_or("(closed)".into(), |s| s.rich().plain())
    }
    fn hash(&self, m: &String) -> i64 {
        m.len() as i64
    }
    async fn hand(&self, hand: &HandView) -> Option<String> {
        Some(format!("hand of {}", hand.player.name))
    }
    async fn respond(&self, first: Respond<String>) -> bool {
        self.log(match first {
            Respond::Say(m, s) => format!("answer to {}: {m}", seen(s)),
            Respond::Update(m) => format!("update: {m}"),
            Respond::DeferUpdate => "defer update".into(),
            Respond::DeferSay(s) => format!("defer to {}", seen(s)),
        });
        true
    }
    async fn edit_original(&self, m: &String) -> bool {
        self.log(format!("edit answer: {m}"));
        true
    }
    async fn delete_original(&self) {
        self.log("delete answer".into());
    }
    async fn follow_up(&self, m: &String, s: Seen) {
        self.log(format!("follow-up to {}: {m}", seen(s)));
    }
}

/// How many of `calls` are a first answer (an answer, an update or a
/// deferral).
fn first_answers(calls: &[String]) -> usize {
    let first = ["answer to", "update:", "defer"];
    (calls.iter())
        .filter(|c| first.iter().any(|f| c.starts_with(f)))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interaction_gets_one_first_answer_however_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let store = TestStore::open(&db_url(&dir)).await;
    let (service, mut outputs) = TableService::builder(store.shared()).start().await.unwrap();
    let defaults = Defaults {
        lang: Lang::En,
        turn_timer: None,
    };
    let i = Recorded::new(&service, defaults, Some(500));
    let ann = Player::new(UserId::new("discord:1").unwrap(), "Ann", Lang::En);
    let channel = Origin {
        chat: ChatKey::Discord(40),
        private: false,
        title: Some("#cards".into()),
    };
    let from = (&ann, &channel);
    let dedup = |n: u64| DedupKey::update(Platform::Discord, n);
    let t = |k| tr(Lang::En, k, &Args::new());
    let patient = Duration::from_secs(10);

    // A button kozyr never drew: a note for the presser alone, nothing else.
    interaction::component(&i, from, Ask::Press("t1.x"), dedup(1), patient).await;
    let calls = i.calls();
    assert_eq!(
        calls,
        [format!("answer to sender: {}", t(key::ERR_BAD_BUTTON))]
    );
    // A card menu on a message that is nobody's hand: the same.
    let picked = ["t1.1.cTS".to_owned()];
    interaction::component(&i, from, Ask::Cards(&picked), dedup(2), patient).await;
    assert_eq!(
        i.calls(),
        [format!("answer to sender: {}", t(key::ERR_BAD_BUTTON))]
    );
    // Each press counts as the presser's activity, and nothing more.
    assert_eq!(i.outbox(), ["acted", "acted"]);

    // "My hand" with no table: said to the presser alone.
    interaction::component(&i, from, Ask::MyHand(TableId(9)), dedup(3), patient).await;
    assert_eq!(
        i.calls(),
        [format!("answer to sender: {}", t(key::DISCORD_NO_HAND))]
    );

    // A command that opens a table: one answer for the sender alone (the
    // table itself is the service's to render, posted by the outbox).
    let new = BotCommand::New(Some(kozyr::game::GameKind::Kozel));
    interaction::command(&i, from, new, dedup(4), patient).await;
    let calls = i.calls();
    assert_eq!(first_answers(&calls), 1, "{calls:?}");
    assert!(calls[0].starts_with("answer to sender: "), "{calls:?}");
    let opened = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match outputs.recv().await {
                Some(Output::RenderTable(v)) if v.chat == channel.chat => return v.id,
                Some(_) => continue,
                None => panic!("the service stopped"),
            }
        }
    });
    let table = opened.await.expect("the new table is rendered");

    // "My hand" there before taking a seat: no hand, said to the presser.
    interaction::component(&i, from, Ask::MyHand(table), dedup(7), patient).await;
    assert_eq!(
        i.calls(),
        [format!("answer to sender: {}", t(key::DISCORD_NO_HAND))]
    );
    // In another channel: refused as another chat's.
    let elsewhere = Origin {
        chat: ChatKey::Discord(41),
        ..channel.clone()
    };
    interaction::component(
        &i,
        (&ann, &elsewhere),
        Ask::MyHand(table),
        dedup(8),
        patient,
    )
    .await;
    assert_eq!(
        i.calls(),
        [format!("answer to sender: {}", t(key::ERR_OTHER_CHAT))]
    );

    // The same, slow (deferred at once): the deferral is the one first
    // answer, seen by whom the answer is for, and an edit completes it.
    interaction::command(&i, from, BotCommand::Help, dedup(5), Duration::ZERO).await;
    let calls = i.calls();
    assert_eq!(first_answers(&calls), 1, "{calls:?}");
    assert_eq!(calls[0], "defer to chat", "{calls:?}");
    assert!(calls[1].starts_with("edit answer: "), "{calls:?}");

    // "My hand" pressed on a table message posted anew since: out of
    // date, and nothing looked up.
    let stale = Recorded::new(&service, defaults, Some(400));
    stale.tokens.table_shown(TableId(1), 401);
    interaction::component(&stale, from, Ask::MyHand(TableId(1)), dedup(6), patient).await;
    assert_eq!(
        stale.calls(),
        [format!("answer to sender: {}", t(key::ERR_STALE))]
    );

    // A flood of presses by one person: past their burst, each is
    // answered "too fast" to them alone, counts as nothing, and the
    // front never sees it (a bad button would be said otherwise).
    let rates = PressRates::PEOPLE;
    let (mut refused, mut let_through) = (0, 0);
    for n in 0..(rates.person.burst as u64 + 5) {
        interaction::component(&stale, from, Ask::Press("t1.x"), dedup(100 + n), patient).await;
        let calls = stale.calls();
        assert_eq!(first_answers(&calls), 1, "{calls:?}");
        if calls[0] == format!("answer to sender: {}", t(key::ERR_TOO_FAST)) {
            refused += 1;
        } else {
            let_through += 1;
        }
    }
    assert!(refused >= 4, "refused {refused}, let through {let_through}");
    assert!(
        let_through <= rates.person.burst as usize + 1,
        "let through {let_through}"
    );
    let acted = stale.outbox().iter().filter(|o| *o == "acted").count();
    assert_eq!(
        acted,
        let_through + 1,
        "only presses let through count as activity"
    );
    service.close().await;
}
