//! The Discord world every Discord test plays in: the strict fake Discord
//! (`kozyr_test_kit::fakediscord`), four people in one channel, and the bot — in
//! this process or as `kozyr run` in a child process — with what people do
//! there: click what they see on the table message and in their own
//! ephemeral hand, pick cards from its menu, and wait for the table to move.

use kozyr::store::Queries;
use std::sync::Arc;
use std::time::Duration;

use kozyr::cards::Card;
use kozyr::config::Config;
use kozyr::discord::bot::{RunningDiscord, Tuning, start};
use kozyr::front::action::{Press, TableAction};
use kozyr::front::press_limits::PressRates;
use kozyr::game::GameAction;
use kozyr::hearts;
use kozyr::table::runtime::ServiceOptions;
use kozyr::table::{ChatKey, Phase, Table, TableId};
use kozyr_test_kit::fakediscord::{FakeDiscord, Seen, TOKEN, User};

pub use kozyr_loadtest::deal_no;

use super::store::TestStore;
use super::{db_url, eventually, move_buttons, moved_past};

pub const WAIT: Duration = Duration::from_secs(10);
pub const CHANNEL: u64 = 700000000000000007;

pub struct World {
    pub fake: FakeDiscord,
    pub dir: tempfile::TempDir,
    pub users: [User; 4],
    /// The bot in this process, or
    pub bot: Option<RunningDiscord>,
    /// `kozyr run` as a child process (the SIGKILL test).
    pub child: Option<std::process::Child>,
    /// The test's own view of the database (on the tests' backend: the
    /// world's folder names it, `support::db_url`).
    pub reader: Option<TestStore>,
    /// Or of a PostgreSQL database (replicas), read instead when set.
    pub pg_reader: Option<kozyr::store::PgStore>,
    /// How the bot answers: (a reply, an update) — 4 and 7 at once, 5 and
    /// 6 when it defers.
    pub answers: (u8, u8),
    pub defer_after: Duration,
    /// How long a person is quiet before their turn pings them.
    pub turn_alerts: Option<Duration>,
    /// The channel people play in ([`CHANNEL`] at first).
    pub channel: u64,
    /// `DISCORD_SHARDS` of the bot [`World::start`] starts.
    pub discord_shards: Option<String>,
    /// The presses a person and a channel may have accepted (no limit a
    /// test driver reaches, unless a test says).
    pub press_rates: PressRates,
}

pub fn tuning() -> Tuning {
    Tuning {
        service: ServiceOptions::default(),
        agent: Arc::new(kozyr::table::runtime::RandomSeat),
        drain_for: Duration::from_secs(2),
        ..Tuning::default()
    }
}

pub fn discord_config(fake: &FakeDiscord, dir: &tempfile::TempDir) -> Config {
    discord_config_with(fake, dir, None)
}

/// With `DISCORD_SHARDS` set to `shards`, when given.
pub fn discord_config_with(
    fake: &FakeDiscord,
    dir: &tempfile::TempDir,
    shards: Option<&str>,
) -> Config {
    let db = db_url(dir);
    let api = fake.api_url();
    Config::from_lookup(|k| match k {
        "DISCORD_TOKEN" => Some(TOKEN.into()),
        "DISCORD_API_URL" => Some(api.clone()),
        "DATABASE_URL" => Some(db.clone()),
        "KOZYR_TURN_SECONDS" => Some("0".into()),
        "DISCORD_SHARDS" => shards.map(str::to_owned),
        _ => None,
    })
    .unwrap()
}

impl Drop for World {
    /// A failed test must not leave `kozyr run` behind.
    fn drop(&mut self) {
        self.kill();
    }
}

/// The press behind a custom id or select value, if kozyr drew it.
pub fn press(data: &str) -> Option<(u64, TableAction)> {
    match Press::parse(data).ok()? {
        Press::Table {
            version, action, ..
        } => Some((version, action)),
        Press::Chat { .. } => None,
    }
}

impl World {
    pub async fn new() -> World {
        let mut w = World::without_bot().await;
        w.start().await;
        w
    }

    pub async fn without_bot() -> World {
        let fake = FakeDiscord::start().await;
        let users = [
            User {
                admin: true,
                ..User::new(501, "Ann")
            },
            User::new(502, "Boris"),
            User {
                locale: "pt-BR".into(),
                ..User::new(503, "Chloe")
            },
            User::new(504, "Dmitri"),
        ];
        World {
            fake,
            dir: tempfile::tempdir().unwrap(),
            users,
            bot: None,
            child: None,
            reader: None,
            pg_reader: None,
            answers: (4, 7),
            defer_after: Tuning::default().defer_after,
            turn_alerts: Tuning::default().turn_alerts,
            channel: CHANNEL,
            discord_shards: None,
            press_rates: PressRates::UNLIMITED,
        }
    }

    pub async fn connected(&self) {
        let fake = &self.fake;
        eventually(
            WAIT,
            Duration::from_millis(10),
            "the bot connects",
            || async { fake.connected().then_some(()) },
        )
        .await;
    }

    pub async fn open_reader(&mut self) {
        if self.reader.is_none() {
            self.reader = Some(TestStore::open(&db_url(&self.dir)).await);
        }
    }

    /// `kozyr run` with only `DISCORD_*` set, as a child process.
    pub async fn spawn(&mut self) {
        let child = self
            .run_command()
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        self.connected().await;
        self.open_reader().await;
    }

    /// The command [`World::spawn`] runs, its output not yet directed.
    pub fn run_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kozyr"));
        cmd.arg("run")
            .current_dir(self.dir.path())
            .env_remove("TELOXIDE_TOKEN")
            .env("DISCORD_TOKEN", TOKEN)
            .env("DISCORD_API_URL", self.fake.api_url())
            .env("DATABASE_URL", db_url(&self.dir))
            .env("KOZYR_TURN_SECONDS", "0")
            .env("KOZYR_HEALTH_FILE", self.dir.path().join("health"))
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null());
        cmd
    }

    /// SIGKILL: no shutdown, no drain.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }

    pub async fn start(&mut self) {
        let config = discord_config_with(&self.fake, &self.dir, self.discord_shards.as_deref());
        let tuning = Tuning {
            defer_after: self.defer_after,
            turn_alerts: self.turn_alerts,
            press_rates: self.press_rates,
            ..tuning()
        };
        self.bot = Some(start(&config, tuning).await.unwrap());
        self.connected().await;
        self.open_reader().await;
    }

    pub async fn stop(&mut self) {
        if let Some(b) = self.bot.take() {
            b.stop().await;
        }
        self.kill();
    }

    pub fn reader(&self) -> &TestStore {
        self.reader.as_ref().unwrap()
    }

    pub async fn table(&self, id: TableId) -> Table {
        if let Some(pg) = &self.pg_reader {
            return pg.table(id).await.unwrap().unwrap();
        }
        self.reader().table(id).await.unwrap().unwrap()
    }

    pub async fn open_table(&self) -> Table {
        let chat = ChatKey::Discord(self.channel);
        if let Some(pg) = &self.pg_reader {
            return pg.open_table(&chat).await.unwrap().unwrap();
        }
        self.reader().open_table(&chat).await.unwrap().unwrap()
    }

    /// Waits until `user` sees a message that `pick` accepts.
    pub async fn sees<T>(&self, user: usize, what: &str, pick: impl Fn(&[Seen]) -> Option<T>) -> T {
        let u = &self.users[user];
        eventually(WAIT, Duration::from_millis(5), what, || async {
            pick(&self.fake.seen_by(u, self.channel))
        })
        .await
    }

    /// The public table message with a button doing `action`.
    pub async fn table_button(
        &self,
        user: usize,
        want: impl Fn(TableAction) -> bool,
    ) -> (u64, String) {
        self.sees(user, "a table button", |seen| {
            seen.iter().rev().filter(|m| !m.ephemeral).find_map(|m| {
                m.buttons
                    .iter()
                    .find(|(_, id)| press(id).is_some_and(|(_, a)| want(a)))
                    .map(|(_, id)| (m.id, id.clone()))
            })
        })
        .await
    }

    /// The table message's "My hand" button: (message, custom id).
    pub async fn my_hand_button(&self, user: usize) -> (u64, String) {
        self.sees(user, "the My hand button", |seen| {
            seen.iter().rev().filter(|m| !m.ephemeral).find_map(|m| {
                m.buttons
                    .iter()
                    .find(|(_, c)| c.starts_with("hand:"))
                    .map(|(_, c)| (m.id, c.clone()))
            })
        })
        .await
    }

    /// Clicks the table message's button doing `action`. The button's id
    /// carries the table's version, so an edit can replace it between
    /// reading and clicking: then the person clicks what they see now.
    pub async fn click_table(&self, user: usize, action: TableAction) -> u64 {
        for _ in 0..50 {
            let (msg, id) = self.table_button(user, |a| a == action).await;
            if let Ok(q) = self.fake.click(&self.users[user], msg, &id) {
                return q;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("cannot click {action:?}");
    }

    pub async fn answered(&self, interaction: u64) -> u8 {
        let fake = &self.fake;
        eventually(WAIT, Duration::from_millis(5), "an answer", || async {
            fake.answer_of(interaction)
        })
        .await
    }

    /// The person's hand: their newest ephemeral message with a card menu
    /// or buttons; "My hand" is clicked when they have none yet.
    pub async fn hand(&self, seat: usize, table: TableId) -> u64 {
        let u = &self.users[seat];
        let own = |seen: &[Seen]| {
            seen.iter()
                .rev()
                .find(|m| m.ephemeral && (m.select.is_some() || !m.buttons.is_empty()))
                .map(|m| m.id)
        };
        if let Some(id) = own(&self.fake.seen_by(u, self.channel)) {
            return id;
        }
        let (msg, id) = self
            .sees(seat, "the My hand button", |seen| {
                seen.iter().rev().filter(|m| !m.ephemeral).find_map(|m| {
                    m.buttons
                        .iter()
                        .find(|(_, id)| id == &format!("hand:{}", table.0))
                        .map(|(_, id)| (m.id, id.clone()))
                })
            })
            .await;
        let i = self.fake.click(u, msg, &id).unwrap();
        assert_eq!(self.answered(i).await, self.answers.0, "an ephemeral reply");
        self.sees(seat, "the hand", own).await
    }

    /// Plays the seat's safe move by picking its cards in the hand's menu
    /// and clicking the button the bot then drew — what a person sees.
    pub async fn play_safe(&self, t: &Table) {
        let seat = t.awaiting()[0];
        let action = t.game().unwrap().safe_action(seat).unwrap();
        let (cards, make) = move_buttons(action);
        let i = seat.index();
        let u = &self.users[i];
        let version = t.version();
        // The hand as drawn for this turn: a person acts on the hand that
        // says it is their turn. A hand that was not kept up to date
        // (after a restart, an expired token) is asked for again with
        // "My hand", as a person would.
        let has_cards = |m: &Seen| {
            m.select.as_ref().is_some_and(|s| {
                cards.iter().all(|c| {
                    s.options.iter().any(|(_, v, _)| {
                        press(v).is_some_and(|(drawn, a)| drawn == version && a.card() == Some(c))
                    })
                })
            })
        };
        // A one-card answer is drawn as the move's own button: one click.
        let want = make(cards);
        let whole = |m: &Seen| {
            m.buttons
                .iter()
                .find(|(_, id)| press(id) == Some((version, want)))
                .map(|(_, id)| id.clone())
        };
        let offers = |m: &Seen| has_cards(m) || whole(m).is_some();
        let mut msg = self.hand(i, t.id()).await;
        let mut seen = None;
        for _ in 0..100 {
            seen = self
                .fake
                .seen_by(u, self.channel)
                .into_iter()
                .find(|m| m.id == msg && offers(m));
            if seen.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        if seen.is_none() {
            let (table_msg, my_hand) = self.my_hand_button(i).await;
            let q = self.fake.click(u, table_msg, &my_hand).unwrap();
            assert_eq!(self.answered(q).await, self.answers.0);
            msg = self
                .sees(i, "a fresh hand", |seen| {
                    seen.iter()
                        .rev()
                        .find(|m| m.ephemeral && offers(m))
                        .map(|m| m.id)
                })
                .await;
            seen = self
                .fake
                .seen_by(u, self.channel)
                .into_iter()
                .find(|m| m.id == msg);
        }
        if let Some(id) = seen.as_ref().and_then(whole) {
            let q = self.fake.click(u, msg, &id).unwrap();
            assert_eq!(self.answered(q).await, self.answers.1, "{action:?}");
            return;
        }
        // The menu's values carry the version it was drawn at: when the
        // hand is edited between reading and choosing, choose again from
        // what is shown now.
        let mut chosen = None;
        for _ in 0..300 {
            let Some(m) = self
                .fake
                .seen_by(u, self.channel)
                .into_iter()
                .find(|m| m.id == msg)
            else {
                break;
            };
            // The hand was redrawn as the move's own button meanwhile.
            if let Some(id) = whole(&m) {
                let q = self.fake.click(u, msg, &id).unwrap();
                assert_eq!(self.answered(q).await, self.answers.1, "{action:?}");
                return;
            }
            let Some(select) = m.select else { break };
            // A card that plays at once must be chosen from the hand as it
            // is now: a play drawn at an older version is refused as stale,
            // and a hand still showing the passing menu (its edit on the
            // way) would only select the card.
            let plays = matches!(action, GameAction::Hearts(hearts::Action::Play(_)));
            let value_of = |c: Card| {
                select
                    .options
                    .iter()
                    .find(|(_, v, _)| {
                        press(v).is_some_and(|(drawn, a)| {
                            a.card() == Some(c)
                                && drawn == version
                                && (plays == matches!(a, TableAction::HeartsPlay(_)))
                        })
                    })
                    .map(|(_, v, _)| v.clone())
            };
            let Some(values) = cards.iter().map(value_of).collect::<Option<Vec<String>>>() else {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            if let Ok(q) = self.fake.choose(u, msg, &values) {
                chosen = Some((q, values));
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let (q, values) = chosen.unwrap_or_else(|| panic!("cannot choose {cards} in the menu"));
        let plays_at_once = values
            .iter()
            .all(|v| matches!(press(v), Some((_, TableAction::HeartsPlay(_)))));
        assert_eq!(
            self.answered(q).await,
            self.answers.1,
            "the menu updates the hand"
        );
        if plays_at_once {
            return;
        }
        let id = self
            .sees(i, "the action button", |seen| {
                let m = seen.iter().find(|m| m.id == msg)?;
                m.buttons
                    .iter()
                    .find(|(_, id)| press(id) == Some((version, want)))
                    .map(|(_, id)| id.clone())
            })
            .await;
        let q = self.fake.click(u, msg, &id).unwrap();
        assert_eq!(self.answered(q).await, self.answers.1, "{action:?}");
    }

    pub async fn wait_version_after(&self, id: TableId, v: u64) -> Table {
        moved_past(WAIT, v, || self.table(id)).await
    }

    /// Nothing Discord would refuse, every interaction answered.
    pub fn assert_clean(&self) {
        assert_eq!(self.fake.violations(), Vec::<String>::new());
        assert_eq!(self.fake.unanswered(), Vec::<u64>::new());
    }
}

/// Ann opens a table with `/command`, the others click Join, Ann clicks Start.
pub async fn open_and_start(w: &World, command: &str) -> TableId {
    open_and_seat(w, command).await;
    let q = w.click_table(0, TableAction::Start).await;
    w.answered(q).await;
    let t = eventually(WAIT, Duration::from_millis(5), "started", || async {
        let t = w.open_table().await;
        (t.phase() == Phase::Playing).then_some(t)
    })
    .await;
    t.id()
}

/// Ann opens a table with `/command` and the others click Join, each seen
/// seated before the next.
pub async fn open_and_seat(w: &World, command: &str) {
    let q = w.fake.slash(&w.users[0], w.channel, command);
    assert_eq!(w.answered(q).await, w.answers.0);
    for i in 1..4 {
        let q = w.click_table(i, TableAction::Join).await;
        w.answered(q).await;
        eventually(WAIT, Duration::from_millis(5), "seated", || async {
            let t = w.open_table().await;
            (t.seats()
                .iter()
                .filter(|(_, s)| s.person().is_some())
                .count()
                == i + 1)
                .then_some(())
        })
        .await;
    }
}

super::play::by_inherent_methods!(World);
