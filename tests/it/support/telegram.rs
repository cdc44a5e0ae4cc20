//! The Telegram world every Telegram test plays in: the fake Bot API, people
//! in one group, the bot in this process (started with a [`Tuning`], and
//! stopped and started again at will), and what people do there: press
//! only buttons the bot drew, read their private chats and the group, and
//! wait for the table to move.

use std::sync::Arc;
use std::time::Duration;

use kozyr::cards::Card;
use kozyr::config::Config;
use kozyr::delivery::pacing::{BotBudget, PacerConfig};
use kozyr::front::action::{Press, TableAction};
use kozyr::game::GameAction;
use kozyr::table::runtime::{ServiceOptions, TableService};
use kozyr::table::{ChatKey, Phase, Platform, Table, TableId, TurnTimer};
use kozyr::telegram::bot::{RunningBot, Tuning, start};
use kozyr::{hearts, kozel};
use kozyr_loadtest::Driver;
use kozyr_test_kit::fakebot::{Author, Button, FakeBot, FakeBotConfig, FakeMessage, UserSpec};
use teloxide::types::{ChatId, MessageId, UserId};

use super::store::TestStore;
use super::{bot_config, fast_tuning, move_buttons, moved_past, press_data};

pub use kozyr_loadtest::deal_no;

/// How long people wait for the bot unless the [`Setup`] says otherwise.
pub const WAIT: Duration = Duration::from_secs(10);
/// The people of a world, in seat order (the first one opens tables).
pub const NAMES: [&str; 4] = ["Ann", "Boris", "Chloe", "Dmitri"];
pub const TOKEN: &str = "123456:TEST-fake-token-kozyr-world-0123456789";

/// How a [`World`] is made; [`Setup::default`] is the usual one.
pub struct Setup {
    /// The fake's limits (its token is the world's unless set here).
    pub fake: FakeBotConfig,
    pub tuning: Tuning,
    /// The people in the group, by name.
    pub people: Vec<String>,
    /// Whether everyone has started the bot in their private chat (so the
    /// bot may write to them) before the test begins.
    pub started: bool,
    /// The turn timer of new tables (`None`: no timer).
    pub turn_secs: Option<u32>,
    /// How long people wait for the bot.
    pub wait: Duration,
    /// The bot's `DATABASE_URL` (`None`: the world folder's database on
    /// the tests' backend, `support::db_url`).
    pub database: Option<String>,
}

impl Default for Setup {
    /// Four people who all started the bot, the fast test tuning, a fake
    /// without limits, no turn timer.
    fn default() -> Setup {
        Setup {
            fake: FakeBotConfig {
                token: TOKEN.into(),
                ..FakeBotConfig::default()
            },
            tuning: fast_tuning(),
            people: NAMES.map(str::to_owned).to_vec(),
            started: true,
            turn_secs: None,
            wait: WAIT,
            database: None,
        }
    }
}

impl Setup {
    /// No people of the world's own: each test brings its own with
    /// [`World::driver`], as patient as the load driver.
    pub fn drivers_only() -> Setup {
        Setup {
            people: Vec::new(),
            started: false,
            wait: Duration::from_secs(30),
            ..Setup::default()
        }
    }

    /// The usual set-up with the bot started with `tuning`.
    pub fn tuned(tuning: Tuning) -> Setup {
        Setup {
            tuning,
            ..Setup::default()
        }
    }
}

/// A fake Bot API without limits that knows the bot by `token`, for
/// tests that run `kozyr` with a token of their own.
pub async fn fake_with_token(token: &str) -> Arc<FakeBot> {
    Arc::new(
        FakeBot::start_with(FakeBotConfig {
            token: token.into(),
            ..FakeBotConfig::default()
        })
        .await
        .unwrap(),
    )
}

/// Telegram's minute, shortened for the tests: the fake and the bot both
/// count 20 outputs a group in this window.
pub const MINUTE: Duration = Duration::from_secs(6);

/// A fake with all of Telegram's limits (the group minute shortened).
pub fn strict_fake() -> FakeBotConfig {
    FakeBotConfig {
        token: TOKEN.into(),
        group_window: MINUTE,
        ..FakeBotConfig::default().telegram_limits()
    }
}

/// The bot's real limits, the group minute shortened like the fake's.
pub fn real_limits() -> Tuning {
    Tuning {
        group_pacing: PacerConfig {
            window: MINUTE,
            ..PacerConfig::group()
        },
        private_pacing: PacerConfig::private(),
        budget: BotBudget::TELEGRAM,
        poll_timeout: Duration::from_secs(1),
        drain_for: Duration::from_secs(2),
        service: ServiceOptions::default(),
        ..Tuning::default()
    }
}

pub struct World {
    pub fake: Arc<FakeBot>,
    pub dir: tempfile::TempDir,
    pub users: Vec<UserId>,
    pub group: ChatId,
    pub bot: Option<RunningBot>,
    tuning: Tuning,
    turn_secs: Option<u32>,
    /// How long people wait for the bot.
    pub wait: Duration,
    /// The bot's `DATABASE_URL` (`None`: `dir`'s on the tests' backend);
    /// read at each start.
    pub database: Option<String>,
}

impl World {
    /// [`Setup::default`], the bot running.
    pub async fn new() -> World {
        World::with(Setup::default()).await
    }

    /// The world `setup` describes, the bot running.
    pub async fn with(setup: Setup) -> World {
        let fake = Arc::new(FakeBot::start_with(setup.fake).await.unwrap());
        let users: Vec<UserId> = setup
            .people
            .iter()
            .map(|n| fake.add_user(UserSpec::new(n).language("en")))
            .collect();
        let group = fake.add_group("Friday cards", &users);
        let mut w = World {
            fake,
            dir: tempfile::tempdir().unwrap(),
            users,
            group,
            bot: None,
            tuning: setup.tuning,
            turn_secs: setup.turn_secs,
            wait: setup.wait,
            database: setup.database,
        };
        w.start().await;
        if setup.started {
            for &u in &w.users {
                w.fake.start_bot(u, None).unwrap();
            }
        }
        w
    }

    /// The bot's configuration: the fake, the world's database, its turn
    /// timer.
    pub fn config(&self) -> Config {
        let mut config = bot_config(&self.fake, &self.dir);
        if let Some(url) = &self.database {
            config.database_url = url.clone();
        }
        config.default_turn_timer = self.turn_secs.and_then(TurnTimer::from_secs);
        config
    }

    pub async fn start(&mut self) {
        let bot = start(&self.config(), self.tuning.clone()).await.unwrap();
        self.bot = Some(bot);
    }

    pub async fn stop(&mut self) {
        if let Some(b) = self.bot.take() {
            b.stop().await;
        }
    }

    pub fn running(&self) -> &RunningBot {
        self.bot.as_ref().unwrap()
    }

    pub fn service(&self) -> &TableService {
        self.running().service()
    }

    /// Four more people in a group of their own ("<prefix> 1".."<prefix>
    /// 4"), driven by the load test's driver.
    pub fn driver(&self, prefix: &str) -> Driver {
        let mut d = Driver::new(self.fake.clone(), prefix);
        d.patience = self.wait;
        d
    }

    /// [`World::driver`]'s people open a Kozel table and start it; the
    /// table, playing.
    pub async fn driven_table(&self, prefix: &str) -> (Driver, Table) {
        let d = self.driver(prefix);
        d.open_kozel_table().await.unwrap();
        let t = self.open_table_in(d.group).await.expect("an open table");
        assert_eq!(t.phase(), Phase::Playing);
        (d, t)
    }

    pub fn dm(&self, i: usize) -> ChatId {
        FakeBot::private_chat(self.users[i])
    }

    pub async fn table(&self, id: TableId) -> Table {
        self.service().table(id).await.unwrap().unwrap()
    }

    /// The group's open table; there must be one.
    pub async fn open_table(&self) -> Table {
        self.open_table_in(self.group).await.expect("an open table")
    }

    pub async fn open_table_in(&self, group: ChatId) -> Option<Table> {
        let chat = ChatKey::new(Platform::Telegram, group.0.to_string()).unwrap();
        self.service().open_table(&chat).await.unwrap()
    }

    pub async fn wait_version_after(&self, id: TableId, v: u64) -> Table {
        moved_past(self.wait, v, || self.table(id)).await
    }

    // ------------------------------------------------------- pressing --

    /// Presses the button with `data` on the newest message of `chat`
    /// showing it (waiting for the bot to draw it); returns the query id.
    pub async fn press_query(&self, user: UserId, chat: ChatId, data: &str) -> String {
        let msg = self
            .fake
            .wait_for(self.wait, |f| {
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
            .unwrap_or_else(|_| panic!("nobody sees a button {data} in {chat}"));
        self.fake.press(user, chat, msg, data).unwrap()
    }

    /// [`World::press_query`], then the answer's popup.
    pub async fn press(&self, user: UserId, chat: ChatId, data: &str) -> Option<String> {
        let q = self.press_query(user, chat, data).await;
        self.answer(&q).await
    }

    /// Presses `data` on message `msg` (a button it shows) and waits for
    /// the answer; returns the popup.
    pub async fn press_on(
        &self,
        user: UserId,
        chat: ChatId,
        msg: MessageId,
        data: &str,
    ) -> Option<String> {
        let q = self.fake.press(user, chat, msg, data).unwrap();
        self.answer(&q).await
    }

    /// The popup of the answer to the press `query`, once answered.
    pub async fn answer(&self, query: &str) -> Option<String> {
        self.fake
            .wait_for(self.wait, |f| f.callback_answer(query))
            .await
            .unwrap_or_else(|_| panic!("press {query} never answered"))
            .text
    }

    /// The data of the button whose text has `label` on the group's newest
    /// message with buttons (the lobby).
    pub async fn lobby_button(&self, label: &str) -> String {
        self.lobby_button_in(self.group, label).await
    }

    pub async fn lobby_button_in(&self, group: ChatId, label: &str) -> String {
        self.fake
            .wait_for(self.wait, |f| {
                let (_, kb) = f.latest_keyboard(group)?;
                kb.find(label)?.callback_data().map(str::to_owned)
            })
            .await
            .unwrap_or_else(|_| panic!("no lobby button {label}"))
    }

    /// The newest group message with a button labelled with `label`, and
    /// that button's data.
    pub async fn group_button(&self, label: &str) -> (MessageId, String) {
        self.group_button_on(label, |_| true).await
    }

    /// The newest group message that `accept` takes with a button labelled
    /// with `label`, and that button's data.
    pub async fn group_button_on(
        &self,
        label: &str,
        accept: impl Fn(&FakeMessage) -> bool,
    ) -> (MessageId, String) {
        self.fake
            .wait_for(self.wait, |f| {
                f.messages(self.group).into_iter().rev().find_map(|m| {
                    if !accept(&m) {
                        return None;
                    }
                    let b = m.keyboard?.find(label)?.callback_data()?.to_owned();
                    Some((m.id, b))
                })
            })
            .await
            .unwrap_or_else(|_| {
                let seen: Vec<_> = self
                    .fake
                    .messages(self.group)
                    .into_iter()
                    .map(|m| (m.text, m.keyboard))
                    .collect();
                panic!("no group button {label} in {seen:#?}")
            })
    }

    /// Presses the button labelled with `label` on the newest group
    /// message showing one; returns the popup.
    pub async fn press_label(&self, user: UserId, label: &str) -> Option<String> {
        let (msg, data) = self.group_button(label).await;
        self.press_on(user, self.group, msg, &data).await
    }

    // -------------------------------------------------------- reading --

    /// The newest message in `chat` that `pred` accepts, once there is one.
    pub async fn shown(
        &self,
        chat: ChatId,
        what: &str,
        pred: impl Fn(&FakeMessage) -> bool,
    ) -> FakeMessage {
        self.fake
            .wait_for(self.wait, |f| {
                f.messages(chat).into_iter().rev().find(|m| pred(m))
            })
            .await
            .unwrap_or_else(|_| {
                let seen: Vec<String> = self
                    .fake
                    .messages(chat)
                    .into_iter()
                    .map(|m| m.text)
                    .collect();
                panic!("{what} never shown in {chat}; it shows {seen:#?}")
            })
    }

    /// The texts the bot has sent to `chat`, once there are at least `n`.
    pub async fn bot_texts(&self, chat: ChatId, n: usize) -> Vec<String> {
        self.fake
            .wait_for(self.wait, |f| {
                let texts: Vec<String> = f
                    .messages(chat)
                    .into_iter()
                    .filter(|m| m.author == Author::Bot)
                    .map(|m| m.text)
                    .collect();
                (texts.len() >= n).then_some(texts)
            })
            .await
            .unwrap_or_else(|_| panic!("the bot never sent {n} messages to {chat}"))
    }

    /// The seat's hand message, once the bot has sent it (hands go out
    /// asynchronously, as a person would see them appear): the newest
    /// message with buttons in their private chat.
    pub async fn hand_message(&self, seat: usize) -> MessageId {
        self.fake
            .wait_for(self.wait, |f| {
                f.messages(self.dm(seat))
                    .into_iter()
                    .rev()
                    .find(|m| m.keyboard.is_some())
                    .map(|m| m.id)
            })
            .await
            .unwrap()
    }

    /// Waits until the newest message in the seat's private chat is a hand
    /// (a message with buttons).
    pub async fn hand_is_newest(&self, seat: usize) {
        self.fake
            .wait_for(self.wait, |f| {
                f.messages(self.dm(seat))
                    .last()
                    .filter(|m| m.keyboard.is_some())
                    .map(drop)
            })
            .await
            .unwrap();
    }

    /// The seat's hand message as drawn for `version` (its buttons carry it).
    pub async fn hand_at(&self, seat: usize, id: TableId, version: u64) -> FakeMessage {
        self.shown(self.dm(seat), "the hand", |m| {
            m.keyboard.as_ref().is_some_and(|k| {
                k.buttons().any(|b| {
                    matches!(b.callback_data().map(Press::parse),
                        Some(Ok(Press::Table { table, version: v, .. })) if table == id && v == version)
                })
            })
        })
        .await
    }

    /// The seat's newest hand message (the one with card buttons).
    pub fn hand_now(&self, seat: usize) -> Option<FakeMessage> {
        self.fake
            .messages(self.dm(seat))
            .into_iter()
            .rev()
            .find(|m| {
                m.keyboard
                    .as_ref()
                    .is_some_and(|k| k.buttons().any(|b| card_button(b).is_some()))
            })
    }

    // -------------------------------------------------------- playing --

    /// `command` from the first person, then [`World::seat_and_start`].
    pub async fn open(&self, command: &str, ai: bool) -> TableId {
        self.fake
            .user_says(self.group, self.users[0], command)
            .unwrap();
        self.seat_and_start(ai).await
    }

    /// The people in seats 1-3 (the creator has seat 0) take theirs from
    /// the lobby, or with `ai` the creator adds an AI player for the
    /// fourth; Start.
    pub async fn seat_and_start(&self, ai: bool) -> TableId {
        let people = if ai { 1..3 } else { 1..4 };
        for i in people {
            let popup = self
                .press_label(self.users[i], &format!("Seat {}", i + 1))
                .await;
            assert_eq!(popup, None);
        }
        if ai {
            assert_eq!(self.press_label(self.users[0], "Add AI").await, None);
        }
        assert_eq!(self.press_label(self.users[0], "Start").await, None);
        let t = self.open_table().await;
        assert_eq!(t.phase(), Phase::Playing);
        t.id()
    }

    /// A Hearts table of the first person and three AI players, started.
    pub async fn hearts_with_ai(&self) -> Table {
        self.fake
            .user_says(self.group, self.users[0], "/hearts")
            .unwrap();
        for _ in 0..3 {
            assert_eq!(self.press_label(self.users[0], "Add AI").await, None);
        }
        assert_eq!(self.press_label(self.users[0], "Start").await, None);
        self.open_table().await
    }

    /// Plays the seat's safe action by toggling its cards in the hand
    /// message and pressing the action button the bot then drew; a Hearts
    /// card with one press of its own button. Every press is answered
    /// without a popup.
    pub async fn play_safe(&self, t: &Table) {
        let seat = t.awaiting()[0];
        let action = t.game().unwrap().safe_action(seat).unwrap();
        self.press_move(t, action).await;
    }

    /// The awaited seat's move, by pressing what its hand shows (as
    /// [`World::play_safe`]). Kozel answers beat when they can, so tricks
    /// change hands (see [`policy`]). Returns the table once it moved.
    pub async fn play(&self, t: &Table) -> Table {
        let seat = t.awaiting()[0];
        let action = policy(t.game().unwrap(), seat);
        self.press_move(t, action).await;
        self.wait_version_after(t.id(), t.version()).await
    }

    async fn press_move(&self, t: &Table, action: GameAction) {
        let seat = t.awaiting()[0];
        let (cards, make) = move_buttons(action);
        let i = seat.index();
        let (user, dm) = (self.users[i], self.dm(i));
        let data = |action| press_data(t, action);
        // A Hearts card plays with one press of its own button, and so does
        // a Kozel answer of one card (the hand draws the move itself).
        let whole = data(make(cards));
        let first = cards.first().map(|c| data(TableAction::Toggle(c)));
        let drawn = self
            .fake
            .wait_for(self.wait, |f| {
                f.messages(dm).into_iter().rev().find_map(|m| {
                    let k = m.keyboard.as_ref()?;
                    if k.with_data(&whole).is_some() {
                        Some(true)
                    } else if first.as_ref().is_some_and(|d| k.with_data(d).is_some()) {
                        Some(false)
                    } else {
                        None
                    }
                })
            })
            .await
            .unwrap_or_else(|_| panic!("nobody sees a button for {action:?} in {dm}"));
        let one_press = drawn || matches!(action, GameAction::Hearts(hearts::Action::Play(_)));
        for c in cards.iter().filter(|_| !one_press) {
            let popup = self.press(user, dm, &data(TableAction::Toggle(c))).await;
            assert_eq!(popup, None, "toggle {c}");
        }
        let popup = self.press(user, dm, &data(make(cards))).await;
        assert_eq!(popup, None, "{action:?}");
    }
}

/// The move [`World::play`] makes for `seat`: a beat when there is one (so
/// tricks change hands), else the game's safe move.
pub fn policy(game: &kozyr::game::Game, seat: kozyr::cards::Seat) -> GameAction {
    let legal = game.legal_actions(seat);
    legal
        .iter()
        .copied()
        .find(|a| matches!(a, GameAction::Kozel(kozel::Action::Beat(_))))
        .unwrap_or_else(|| game.safe_action(seat).unwrap())
}

/// The card a hand button is about: a toggle that selects it, or a move
/// of that card alone (a one-tap answer, a Hearts play).
pub fn card_button(b: &Button) -> Option<Card> {
    match b.callback_data().map(Press::parse) {
        Some(Ok(Press::Table { action, .. })) => match action {
            TableAction::Toggle(c) | TableAction::HeartsPlay(c) => Some(c),
            TableAction::Beat(s) | TableAction::Pass(s) if s.len() == 1 => s.first(),
            _ => None,
        },
        _ => None,
    }
}

/// The card a hand button selects, if it is a card toggle.
pub fn card_toggle(b: &Button) -> Option<Card> {
    match b.callback_data().map(Press::parse) {
        Some(Ok(Press::Table {
            action: TableAction::Toggle(c),
            ..
        })) => Some(c),
        _ => None,
    }
}

// ------------------------------------------------- a bot to SIGKILL --

/// The environment variable that makes a test its own child half: the bot
/// that [`ChildBot`] starts and kills.
const CHILD_ENV: &str = "KOZYR_TEST_CHILD_BOT";

/// Whether this process is the child half of a test (see [`ChildBot`]).
pub fn is_child() -> bool {
    std::env::var(CHILD_ENV).is_ok()
}

/// The child half of a test: the bot with `tuning`, configured from the
/// environment the parent gave it; prints `ready` and runs until SIGKILL.
pub fn run_child_bot(tuning: Tuning) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let config = Config::from_lookup(|k| std::env::var(k).ok()).expect("config");
        let _bot = start(&config, tuning).await.expect("the bot starts");
        println!("ready");
        // Until SIGKILL.
        std::future::pending::<()>().await;
    });
}

/// The parent half's runtime, as `#[tokio::test]` with two workers makes
/// it (the parent is a plain `#[test]`, so that it can be the child too).
pub fn parent_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// What the parent half of a kill test holds: the fake (which outlives
/// every kill, as Telegram does), the database (on the tests' backend),
/// and the environment the bot runs with.
pub struct KillWorld {
    pub fake: Arc<FakeBot>,
    /// Holds the database's folder for the test's life.
    _dir: tempfile::TempDir,
    /// The database's URL, for the test's own reads.
    pub url: String,
    pub env: Vec<(&'static str, String)>,
}

impl KillWorld {
    /// A fake set up by `fake` (its token is the world's), the database of
    /// a new folder, and a turn timer of `turn_seconds` (0: none).
    pub async fn new(fake: FakeBotConfig, turn_seconds: u64) -> KillWorld {
        let fake = Arc::new(
            FakeBot::start_with(FakeBotConfig {
                token: TOKEN.into(),
                ..fake
            })
            .await
            .expect("fake"),
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let url = super::db_url(&dir);
        let env = vec![
            ("TELOXIDE_TOKEN", TOKEN.to_owned()),
            ("DATABASE_URL", url.clone()),
            ("TELOXIDE_API_URL", fake.api_url().to_string()),
            ("KOZYR_TURN_SECONDS", turn_seconds.to_string()),
        ];
        KillWorld {
            fake,
            _dir: dir,
            url,
            env,
        }
    }

    /// The test's own connection to the bot's database.
    pub async fn store(&self) -> TestStore {
        TestStore::open(&self.url).await
    }

    /// The bot, as the test named `test` (its full path) run again as its
    /// own child half; once it printed `ready`.
    pub fn spawn(&self, test: &str) -> ChildBot {
        ChildBot::spawn(test, &self.env)
    }

    /// [`KillWorld::spawn`] from async code (waiting for `ready` blocks).
    pub async fn start(&self, test: &'static str) -> ChildBot {
        let env = self.env.clone();
        tokio::task::spawn_blocking(move || ChildBot::spawn(test, &env))
            .await
            .expect("spawn")
    }
}

/// The open table of `d`'s group, read from `store`.
pub async fn table_of(store: &TestStore, d: &Driver) -> Table {
    store
        .open_table(&d.chat_key())
        .await
        .expect("read")
        .expect("an open table")
}

/// The bot's process; dropping it kills it (SIGKILL), so that a failing
/// parent leaves no bot running either.
pub struct ChildBot(std::process::Child);

impl ChildBot {
    fn spawn(test: &str, env: &[(&'static str, String)]) -> ChildBot {
        let mut cmd = super::respawn(test);
        cmd.env(CHILD_ENV, "1")
            .env("RUST_LOG", "off")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn the bot");
        let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        super::skip_to_ready(&mut out);
        ChildBot(child)
    }

    /// SIGKILL: no shutdown, no drain.
    pub fn kill(self) {
        drop(self);
    }
}

impl Drop for ChildBot {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

super::play::by_inherent_methods!(World);
