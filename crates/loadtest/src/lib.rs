//! `kozyr-loadtest`: the whole bot against the fake Bot API on loopback.
//!
//! T groups of four simulated people open a Kozel table, sit down and play
//! whole deals by pressing the buttons the bot sent them (a one-card
//! answer's own button; else toggle the cards, then the action button),
//! thinking for a while before each press. The
//! people choose the built-in safe move of their seat, read from the table
//! service; everything they do goes through the real teloxide client, the
//! handler tree, the store and the paced outbox.
//!
//! With `--webapp-share`, that share of the people play through the
//! Mini App's HTTP API instead (`kozyr::webapp`: signed init data, the
//! event stream open all along, each press a POST): their chat hands are
//! then held by the Telegram shell, and the report adds how soon their
//! screens show a move ([`WebPerson`]).
//!
//! With `--postgres URL --replicas N` the bot runs on PostgreSQL as N
//! replicas in webhook mode, the fake delivering each update to a random
//! one ([`replicas`]).
//!
//! [`Driver`] is the simulated people; the chaos tests use it too.

mod replicas;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use teloxide::types::{ChatId, MessageId, UserId};

use kozyr::cards::CardSet;
use kozyr::config::Config;
use kozyr::front::action::{Press, TableAction};
use kozyr::game::{GameAction, GameView};
use kozyr::hearts;
use kozyr::kozel;
use kozyr::table::{ChatKey, Phase, Platform, Table, TableId};
use kozyr::telegram::bot::{self, Tuning};
use kozyr_test_kit::fakebot::{
    CallbackAnswer, FakeBot, FakeBotConfig, LimitHits, SimError, UserSpec,
};

/// What can go wrong while the simulated people play.
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    #[error("fake Bot API: {0}")]
    Sim(#[from] SimError),
    #[error("waited {0:?} for {1}")]
    Timeout(Duration, String),
    #[error("the bot refused {data}: {popup}")]
    Refused { data: String, popup: String },
    #[error("the table service: {0}")]
    Service(String),
    #[error("no safe move for the awaited seat")]
    NoMove,
}

/// Polls `f` with a growing pause (1 ms up to 16 ms) until it gives `Some`.
/// Cheaper than [`FakeBot::wait_for`] with thousands of waiters, which
/// wakes every waiter on every change.
pub async fn poll<T>(
    timeout: Duration,
    what: impl Fn() -> String,
    mut f: impl FnMut() -> Option<T>,
) -> Result<T, DriveError> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(v) = f() {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            return Err(DriveError::Timeout(timeout, what()));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(16));
    }
}

/// Four simulated people in one group.
#[derive(Clone)]
pub struct Driver {
    pub fake: Arc<FakeBot>,
    pub users: [UserId; 4],
    pub group: ChatId,
    /// How long to wait for the bot (buttons, answers).
    pub patience: Duration,
}

impl Driver {
    /// Four new people ("<prefix> 1".."<prefix> 4") in a new group.
    pub fn new(fake: Arc<FakeBot>, prefix: &str) -> Driver {
        let users = [1, 2, 3, 4]
            .map(|i| fake.add_user(UserSpec::new(&format!("{prefix} {i}")).language("en")));
        let group = fake.add_group(&format!("{prefix} table"), &users);
        Driver {
            fake,
            users,
            group,
            patience: Duration::from_secs(30),
        }
    }

    pub fn dm(&self, seat: usize) -> ChatId {
        FakeBot::private_chat(self.users[seat])
    }

    pub fn chat_key(&self) -> ChatKey {
        ChatKey::new(Platform::Telegram, self.group.0.to_string())
            .unwrap_or_else(|_| unreachable!("a chat id is a chat key"))
    }

    /// The newest message in `chat` with a button carrying `data`.
    pub fn message_with(&self, chat: ChatId, data: &str) -> Option<MessageId> {
        self.fake
            .messages(chat)
            .into_iter()
            .rev()
            .find(|m| {
                m.keyboard
                    .as_ref()
                    .is_some_and(|k| k.with_data(data).is_some())
            })
            .map(|m| m.id)
    }

    /// Waits for the button with `data` in `chat` and presses it.
    pub async fn press(
        &self,
        user: UserId,
        chat: ChatId,
        data: &str,
    ) -> Result<String, DriveError> {
        let msg = poll(
            self.patience,
            || format!("button {data} in {chat}"),
            || self.message_with(chat, data),
        )
        .await?;
        Ok(self.fake.press(user, chat, msg, data)?)
    }

    /// Waits for the bot's answer to a callback query.
    pub async fn answer(&self, query: &str) -> Result<CallbackAnswer, DriveError> {
        poll(
            self.patience,
            || format!("an answer to callback {query}"),
            || self.fake.callback_answer(query),
        )
        .await
    }

    /// Presses and insists the press was accepted (answered without a popup).
    pub async fn press_ok(&self, user: UserId, chat: ChatId, data: &str) -> Result<(), DriveError> {
        let q = self.press(user, chat, data).await?;
        match self.answer(&q).await?.text {
            None => Ok(()),
            Some(popup) => Err(DriveError::Refused {
                data: data.to_owned(),
                popup,
            }),
        }
    }

    /// The data of the newest group keyboard's button whose label has `label`.
    pub async fn lobby_button(&self, label: &str) -> Result<String, DriveError> {
        poll(
            self.patience,
            || format!("lobby button {label}"),
            || {
                let (_, kb) = self.fake.latest_keyboard(self.group)?;
                kb.find(label)?.callback_data().map(str::to_owned)
            },
        )
        .await
    }

    /// Everyone starts the bot, the first person opens a Kozel table with
    /// `/kozel`, the others take seats 2–4, and the first presses Start.
    pub async fn open_kozel_table(&self) -> Result<(), DriveError> {
        for u in self.users {
            self.fake.start_bot(u, None)?;
        }
        self.fake.user_says(self.group, self.users[0], "/kozel")?;
        for i in 1..4 {
            let data = self.lobby_button(&format!("{}", i + 1)).await?;
            self.press_ok(self.users[i], self.group, &data).await?;
        }
        let start = self.lobby_button("Start").await?;
        self.press_ok(self.users[0], self.group, &start).await
    }

    /// The awaited seat's safe move, by its buttons: the move's own button
    /// when the hand draws one (a one-card answer), else toggle each card
    /// in the hand message, then press the action button drawn for that
    /// selection. `think` is waited before the first press, a sixth of it
    /// before each of the others. Returns the
    /// version the move was made at.
    pub async fn play_safe(&self, t: &Table, think: Duration) -> Result<u64, DriveError> {
        let seat = *t.awaiting().first().ok_or(DriveError::NoMove)?;
        let action = t
            .game()
            .and_then(|g| g.safe_action(seat))
            .ok_or(DriveError::NoMove)?;
        let (cards, make): (CardSet, fn(CardSet) -> Option<TableAction>) = match action {
            GameAction::Kozel(kozel::Action::Lead(s)) => (s, |s| Some(TableAction::Lead(s))),
            GameAction::Kozel(kozel::Action::Pass(s)) => (s, |s| Some(TableAction::Pass(s))),
            GameAction::Kozel(kozel::Action::Beat(s)) => (s, |s| Some(TableAction::Beat(s))),
            GameAction::Hearts(hearts::Action::PassCards(s)) => {
                (s, |s| Some(TableAction::HeartsPass(s)))
            }
            GameAction::Hearts(hearts::Action::Play(c)) => (CardSet::single(c), |s| {
                s.first().map(TableAction::HeartsPlay)
            }),
            _ => return Err(DriveError::NoMove),
        };
        let i = seat.index();
        let (user, dm) = (self.users[i], self.dm(i));
        let data = |action| {
            Press::Table {
                table: t.id(),
                version: t.version(),
                action,
            }
            .encode()
        };
        // What the hand message shows as selected (✓): after a restart of
        // the bot the selection may differ from what this person pressed.
        // A hand that draws the move as a button of its own (a one-card
        // answer) is played with that one tap.
        let first = cards.first().ok_or(DriveError::NoMove)?;
        let probe = data(TableAction::Toggle(first));
        let whole = make(cards).map(data);
        let shown = poll(
            self.patience,
            || format!("hand button {probe} in {dm}"),
            || {
                let m = self.fake.messages(dm).into_iter().rev().find(|m| {
                    m.keyboard.as_ref().is_some_and(|k| {
                        k.with_data(&probe).is_some()
                            || whole.as_ref().is_some_and(|w| k.with_data(w).is_some())
                    })
                })?;
                let kb = m.keyboard?;
                if whole.as_ref().is_some_and(|w| kb.with_data(w).is_some()) {
                    return Some(None);
                }
                let mut shown = CardSet::default();
                for b in kb.buttons() {
                    if let Some(Ok(Press::Table {
                        action: TableAction::Toggle(c),
                        ..
                    })) = b.callback_data().map(Press::parse)
                        && b.text.contains('✓')
                    {
                        shown.insert(c);
                    }
                }
                Some(Some(shown))
            },
        )
        .await?;
        let Some(shown) = shown else {
            sleep(think).await;
            let action = make(cards).ok_or(DriveError::NoMove)?;
            self.press_ok(user, dm, &data(action)).await?;
            return Ok(t.version());
        };
        // A person thinks once per move, then taps the cards and the
        // action button at a finger's pace.
        let mut pause = think;
        for c in CardSet::from_bits_truncate(cards.bits() ^ shown.bits()).iter() {
            sleep(pause).await;
            pause = think / 6;
            self.press_ok(user, dm, &data(TableAction::Toggle(c)))
                .await?;
        }
        sleep(pause).await;
        let action = make(cards).ok_or(DriveError::NoMove)?;
        self.press_ok(user, dm, &data(action)).await?;
        Ok(t.version())
    }
}

async fn sleep(d: Duration) {
    if !d.is_zero() {
        tokio::time::sleep(d).await;
    }
}

/// The Kozel deal number, or the Hearts deal number.
pub fn deal_no(t: &Table) -> u32 {
    match t.game().map(|g| g.public_view()) {
        Some(GameView::Kozel(v)) => v.deal_no,
        Some(GameView::Hearts(v)) => v.results.len() as u32 + 1,
        None => 0,
    }
}

/// `kozyr-loadtest` options.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub tables: u32,
    /// Whole deals each table plays.
    pub deals: u32,
    /// Each move waits a random time in [think/2, think·3/2] before its
    /// first press, and a sixth of that between its presses.
    pub think: Duration,
    pub seed: u64,
    /// Where the SQLite file goes (removed afterwards unless `keep_db`).
    pub db: PathBuf,
    pub keep_db: bool,
    /// Stop making moves after this long (the deals need not be over).
    pub duration: Option<Duration>,
    /// The bot-wide output budget, per second (Telegram: about 30).
    pub rate: u32,
    /// A table opens this long after the previous one.
    pub open_every: Duration,
    /// Play this long after the last table opened before measuring: what
    /// opening queued (lobbies, seat notes, first hands) goes out first,
    /// so the window measures play.
    pub warmup: Duration,
    /// Without Telegram's limits: the fake enforces none, the bot paces
    /// only groups (the set-up before issue 11, for throughput figures).
    pub unlimited: bool,
    /// The share of people (0-1) who play in the Mini App.
    pub webapp_share: f64,
    /// A scratch PostgreSQL database (emptied before each run) to run on
    /// instead of the SQLite file; the bot then takes Telegram's updates
    /// by webhook.
    pub postgres: Option<String>,
    /// How many replicas serve the bot (PostgreSQL only): this process
    /// serves, the others stand by as `kozyr run` children.
    pub replicas: u32,
}

/// Quantiles of a list of durations.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quantiles {
    pub count: usize,
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl Quantiles {
    pub fn of(mut v: Vec<Duration>) -> Quantiles {
        v.sort();
        let q = |q: f64| {
            if v.is_empty() {
                Duration::ZERO
            } else {
                let i = ((v.len() as f64 - 1.0) * q).round() as usize;
                v[i.min(v.len() - 1)]
            }
        };
        Quantiles {
            count: v.len(),
            p50: q(0.5),
            p99: q(0.99),
            max: v.last().copied().unwrap_or_default(),
        }
    }
}

impl fmt::Display for Quantiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "p50 {:.2} s  p99 {:.2} s  max {:.2} s  ({} deliveries)",
            self.p50.as_secs_f64(),
            self.p99.as_secs_f64(),
            self.max.as_secs_f64(),
            self.count
        )
    }
}

/// What `kozyr-loadtest` measured.
#[derive(Clone, Debug)]
pub struct LoadReport {
    pub options: LoadOptions,
    /// How long it took to open every table (before the measured window).
    pub opening: Duration,
    /// The measured window: from every table open to the last move.
    pub elapsed: Duration,
    /// Accepted game moves (lead, beat, pass) in the window.
    pub moves: u64,
    /// Every accepted press: seats, start, card toggles, moves.
    pub presses: u64,
    pub errors: Vec<String>,
    pub latency_p50: Duration,
    pub latency_p99: Duration,
    pub latency_max: Duration,
    pub unanswered: usize,
    pub group_outputs: u64,
    pub dm_outputs: u64,
    pub answer_calls: u64,
    pub other_calls: u64,
    pub max_group_outputs_per_minute: usize,
    /// The most sends and edits of the whole bot within any second.
    pub max_outputs_per_second: usize,
    /// 429s the fake answered, by limit.
    pub limit_hits: LimitHits,
    /// Freshness of the acting person's hand, of group tables, of the
    /// other hands.
    pub fresh_actor: Quantiles,
    pub fresh_group: Quantiles,
    pub fresh_others: Quantiles,
    /// Hands that did not show their table's latest version once the bot
    /// had sent everything it queued.
    pub stale_hands_at_end: usize,
    /// How long the bot took to send what was queued when the people stopped.
    pub drain: Duration,
    pub peak_rss_kib: Option<u64>,
    pub db_bytes: u64,
    /// On PostgreSQL: how the fake's webhook deliveries went, by replica.
    pub webhook: Option<kozyr_test_kit::fakebot::WebhookDeliveries>,
    /// Mini App people: press of a move → its answer, which the page shows
    /// (their own screen current).
    pub webapp_actor: Quantiles,
    /// Mini App people: a move pressed by anyone at the table → the event
    /// that brings it to their open page.
    pub webapp_others: Quantiles,
}

impl LoadReport {
    pub fn moves_per_sec(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn presses_per_sec(&self) -> f64 {
        self.presses as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

fn per(n: u64, d: u64) -> f64 {
    n as f64 / (d.max(1)) as f64
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = &self.options;
        writeln!(
            f,
            "tables {}  deals/table {}  think {:?}  seed {}  duration {:?}",
            o.tables, o.deals, o.think, o.seed, o.duration
        )?;
        if o.postgres.is_some() {
            writeln!(
                f,
                "store                        PostgreSQL, {} replica(s), updates by webhook",
                o.replicas.max(1)
            )?;
        }
        if let Some(w) = &self.webhook {
            let counts: Vec<String> = w.by_url.values().map(u64::to_string).collect();
            writeln!(
                f,
                "webhook deliveries           {} ({} by replica; {} attempts retried)",
                w.delivered,
                counts.join(" / "),
                w.failed
            )?;
        }
        writeln!(
            f,
            "opening the tables           {:.1} s (one every {:?}, then {:?} of play; not measured below)",
            self.opening.as_secs_f64(),
            o.open_every,
            o.warmup
        )?;
        writeln!(
            f,
            "measured window              {:.1} s (moves, outputs per move, freshness)",
            self.elapsed.as_secs_f64()
        )?;
        writeln!(
            f,
            "accepted moves               {} ({:.0}/s)",
            self.moves,
            self.moves_per_sec()
        )?;
        writeln!(
            f,
            "accepted presses             {} ({:.0}/s; toggles, seats and start included)",
            self.presses,
            self.presses_per_sec()
        )?;
        writeln!(
            f,
            "press → answer latency       p50 {:.1} ms  p99 {:.1} ms  max {:.1} ms",
            ms(self.latency_p50),
            ms(self.latency_p99),
            ms(self.latency_max)
        )?;
        writeln!(f, "unanswered callbacks         {}", self.unanswered)?;
        writeln!(
            f,
            "group sends+edits            {} ({:.2}/move, {:.2}/press)",
            self.group_outputs,
            per(self.group_outputs, self.moves),
            per(self.group_outputs, self.presses)
        )?;
        writeln!(
            f,
            "DM sends+edits               {} ({:.2}/move, {:.2}/press)",
            self.dm_outputs,
            per(self.dm_outputs, self.moves),
            per(self.dm_outputs, self.presses)
        )?;
        writeln!(
            f,
            "answerCallbackQuery          {} ({:.2}/press)",
            self.answer_calls,
            per(self.answer_calls, self.presses)
        )?;
        writeln!(f, "other Bot API calls          {}", self.other_calls)?;
        writeln!(
            f,
            "max group outputs in 60 s    {} (limit 20)",
            self.max_group_outputs_per_minute
        )?;
        writeln!(
            f,
            "outputs/s, whole bot         {:.1} mean, {} max in any second (budget {})",
            (self.group_outputs + self.dm_outputs) as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.max_outputs_per_second,
            o.rate
        )?;
        writeln!(
            f,
            "429s (bot-wide/private/group) {} / {} / {}",
            self.limit_hits.bot, self.limit_hits.private, self.limit_hits.group
        )?;
        writeln!(f, "freshness, acting person     {}", self.fresh_actor)?;
        if o.webapp_share > 0.0 {
            writeln!(
                f,
                "Mini App, own screen ({:.0}%)  move → answer {}",
                o.webapp_share * 100.0,
                self.webapp_actor
            )?;
            writeln!(
                f,
                "Mini App, others' screens    move → event {}",
                self.webapp_others
            )?;
        }
        writeln!(f, "freshness, group table       {}", self.fresh_group)?;
        writeln!(f, "freshness, other hands       {}", self.fresh_others)?;
        writeln!(
            f,
            "hands stale at the end       {} (after a drain of {:.1} s)",
            self.stale_hands_at_end,
            self.drain.as_secs_f64()
        )?;
        match self.peak_rss_kib {
            Some(k) => writeln!(
                f,
                "peak RSS (VmHWM)             {:.1} MiB (bot and fake server in one process)",
                k as f64 / 1024.0
            )?,
            None => writeln!(f, "peak RSS (VmHWM)             unknown")?,
        }
        if o.postgres.is_none() {
            writeln!(
                f,
                "database size                {:.1} MiB",
                self.db_bytes as f64 / (1024.0 * 1024.0)
            )?;
        }
        if self.errors.is_empty() {
            writeln!(f, "errors                       0")
        } else {
            writeln!(f, "errors                       {}", self.errors.len())?;
            for e in self.errors.iter().take(10) {
                writeln!(f, "  {e}")?;
            }
            Ok(())
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Why the load test could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the fake Bot API server: {0}")]
    Fake(#[from] std::io::Error),
    #[error("configuration: {0}")]
    Config(#[from] kozyr::config::ConfigError),
    #[error("the bot: {0}")]
    Bot(#[from] bot::BotError),
    #[error("the Mini App: {0}")]
    WebApp(#[from] kozyr::webapp::WebAppError),
    #[error("replicas: {0}")]
    Replicas(String),
}

/// Peak resident memory of this process (Linux `VmHWM`), in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn db_bytes(db: &std::path::Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| {
            let mut p = db.as_os_str().to_owned();
            p.push(s);
            std::fs::metadata(PathBuf::from(p)).ok()
        })
        .map(|m| m.len())
        .sum()
}

fn remove_db(db: &std::path::Path) {
    for s in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(s);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// Runs the load test: the fake server and the bot in this process.
pub async fn run(options: LoadOptions) -> Result<LoadReport, LoadError> {
    if options.replicas > 1 && options.postgres.is_none() {
        return Err(LoadError::Replicas(
            "several replicas need PostgreSQL (--postgres URL)".into(),
        ));
    }
    remove_db(&options.db);
    let fake = Arc::new(
        FakeBot::start_with(FakeBotConfig {
            token: "123456:LOAD-fake-token-kozyr-loadtest-0123456789".into(),
            ..if options.unlimited {
                FakeBotConfig::default()
            } else {
                FakeBotConfig::default().telegram_limits()
            }
        })
        .await?,
    );
    let db = format!("sqlite://{}", options.db.display());
    let api = fake.api_url().to_string();
    let token = fake.token();
    let plan = match &options.postgres {
        Some(url) => {
            replicas::empty_database(url).await?;
            Some(replicas::Plan::new(url, options.replicas)?)
        }
        None => None,
    };
    let settings: Vec<(String, String)> = match &plan {
        Some(plan) => plan.settings(0, &api, &token, options.rate),
        None => vec![
            ("TELOXIDE_TOKEN".into(), token.clone()),
            ("DATABASE_URL".into(), db.clone()),
            ("TELOXIDE_API_URL".into(), api.clone()),
            ("KOZYR_TURN_SECONDS".into(), "0".into()),
        ],
    };
    let config = Config::from_lookup(|k| {
        settings
            .iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.clone())
    })?;
    // On PostgreSQL this process takes the serving lease first, so the
    // standbys started after it stand by.
    let heartbeats = replicas::ScratchDir::new("serving")?;
    let lease = match &plan {
        Some(plan) => {
            fake.deliver_to(plan.hooks());
            let serving =
                kozyr::replica::stand_by(&config, &replicas::heartbeat(heartbeats.path()))
                    .await
                    .map_err(|e| LoadError::Replicas(e.to_string()))?
                    .ok_or_else(|| LoadError::Replicas("stopped by a signal".into()))?;
            Some(serving)
        }
        None => None,
    };
    let tuning = if options.unlimited {
        Tuning {
            drain_for: Duration::from_secs(120),
            budget: kozyr::delivery::pacing::BotBudget::UNLIMITED,
            private_pacing: kozyr::delivery::pacing::PacerConfig::unpaced(),
            ..Tuning::default()
        }
    } else {
        Tuning {
            drain_for: Duration::from_secs(120),
            budget: kozyr::delivery::pacing::BotBudget::per_second(options.rate),
            ..Tuning::default()
        }
    };
    let running = bot::start(&config, tuning).await?;
    let standbys = match &plan {
        Some(plan) if plan.listens.len() > 1 => {
            Some(replicas::Standbys::start(plan, &api, &token, options.rate).await?)
        }
        _ => None,
    };
    let service = running.service().clone();
    let shared = running.shared().clone();
    let webapp = if options.webapp_share > 0.0 {
        let app = kozyr::front::live::LiveApp {
            url: "https://loadtest.invalid/".into(),
            short_name: None,
        };
        let listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        Some(kozyr::webapp::serve(listen, shared.front.clone(), &token, app).await?)
    } else {
        None
    };
    let web_base = webapp
        .as_ref()
        .map(|w| format!("http://{}", w.local_addr()))
        .unwrap_or_default();
    let web_client = reqwest::Client::new();
    let pressed: Pressed = Arc::default();
    let webapp_actor = Arc::new(std::sync::Mutex::new(Vec::new()));
    let webapp_others = Arc::new(std::sync::Mutex::new(Vec::new()));
    let auth_date = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());

    let moves = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    // Tables open one after another (`open_every`), as groups come to a
    // bot over time; the measured window starts once all are open (or
    // failed) and lasts `duration`: milliseconds since `started`.
    let opened = Arc::new(AtomicU64::new(0));
    let stop_at = Arc::new(AtomicU64::new(u64::MAX));
    let mut tasks = Vec::new();
    let mut drivers = Vec::new();
    for n in 0..options.tables {
        let driver = Driver::new(fake.clone(), &format!("T{n}"));
        drivers.push(driver.clone());
        let service = service.clone();
        let moves = moves.clone();
        let options = options.clone();
        let (opened, stop_at) = (opened.clone(), stop_at.clone());
        let web = [0, 1, 2, 3].map(|i| in_webapp(n * 4 + i, options.webapp_share));
        let (web_client, web_base, token) = (web_client.clone(), web_base.clone(), token.clone());
        let (pressed, webapp_actor, webapp_others) =
            (pressed.clone(), webapp_actor.clone(), webapp_others.clone());
        tasks.push(tokio::spawn(async move {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(options.seed ^ u64::from(n));
            let mut think = || {
                let t = options.think.as_secs_f64();
                Duration::from_secs_f64(t * rng.random_range(0.5..1.5))
            };
            sleep(options.open_every * n).await;
            let open = driver.open_kozel_table().await;
            opened.fetch_add(1, Ordering::Relaxed);
            open?;
            let id: TableId = service
                .open_table(&driver.chat_key())
                .await
                .map_err(|e| DriveError::Service(e.to_string()))?
                .ok_or_else(|| DriveError::Service("no open table".into()))?
                .id();
            // The Mini App people open their pages once the table is open.
            let mut pages: Vec<Option<WebPerson>> = Vec::new();
            for (i, user) in driver.users.iter().enumerate() {
                pages.push(if web[i] {
                    let init = kozyr::webapp::auth::sign_user(
                        user.0,
                        &format!("T{n} {}", i + 1),
                        "en",
                        auth_date,
                        &token,
                    );
                    Some(
                        WebPerson::open(
                            web_client.clone(),
                            web_base.clone(),
                            init,
                            id,
                            pressed.clone(),
                            webapp_others.clone(),
                        )
                        .await?,
                    )
                } else {
                    None
                });
            }
            let mut first_deal = None;
            loop {
                let t = service
                    .table(id)
                    .await
                    .map_err(|e| DriveError::Service(e.to_string()))?
                    .ok_or_else(|| DriveError::Service("the table vanished".into()))?;
                let first = *first_deal.get_or_insert(deal_no(&t));
                let over = started.elapsed().as_millis() as u64 >= stop_at.load(Ordering::Relaxed);
                if over || t.phase() != Phase::Playing || deal_no(&t) >= first + options.deals {
                    // Closed after the drain: a page's close brings its
                    // chat hand up to date, which is not play.
                    return Ok::<_, DriveError>(pages);
                }
                let seat = t.awaiting().first().map_or(0, |s| s.index());
                match pages.get(seat).and_then(Option::as_ref) {
                    Some(page) => {
                        let took = page.play_safe(&t, think(), &pressed).await?;
                        webapp_actor
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(took);
                    }
                    None => {
                        driver.play_safe(&t, think()).await?;
                    }
                }
                moves.fetch_add(1, Ordering::Relaxed);
                // The answer comes after the commit: the next state is there.
            }
        }));
    }
    // The window: from the moment every table is open.
    while opened.load(Ordering::Relaxed) < u64::from(options.tables) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(options.warmup).await;
    let window_start = Instant::now();
    let moves_before = moves.load(Ordering::Relaxed);
    let _ = shared.take_freshness();
    let window = options.duration.unwrap_or(Duration::from_secs(3600));
    stop_at.store(
        (window_start + window).duration_since(started).as_millis() as u64,
        Ordering::Relaxed,
    );
    let mut errors = Vec::new();
    let mut pages = Vec::new();
    for (n, t) in tasks.into_iter().enumerate() {
        match t.await {
            Ok(Ok(p)) => pages.extend(p.into_iter().flatten()),
            Ok(Err(e)) => errors.push(format!("table {n}: {e}")),
            Err(e) => errors.push(format!("table {n}: {e}")),
        }
    }
    let window_end = Instant::now();
    let elapsed = window_end.duration_since(window_start);
    let window_moves = moves.load(Ordering::Relaxed) - moves_before;
    let opening = window_start.duration_since(started);
    // Let the scheduler send what is queued before counting.
    // Nothing changes the tables once the people stopped (no timers, no AI).
    let mut last = Vec::new();
    for (n, d) in drivers.iter().enumerate() {
        if let Ok(Some(t)) = service.open_table(&d.chat_key()).await
            && t.phase() == Phase::Playing
        {
            last.push((n, d.clone(), t.id(), t.version()));
        }
    }
    let draining = Instant::now();
    running.stop().await;
    if let Some(w) = webapp {
        w.stop().await;
    }
    let drain = draining.elapsed();
    pages.into_iter().for_each(WebPerson::close);
    drop(standbys);
    drop(lease);
    let freshness = shared.freshness();
    let stale_hands_at_end = stale_hands(&last, options.webapp_share);

    let answers = fake.callback_answers();
    let mut latencies: Vec<Duration> = answers
        .iter()
        .filter_map(|(_, a)| a.as_ref().map(CallbackAnswer::latency))
        .collect();
    latencies.sort();
    let quantile = |q: f64| {
        if latencies.is_empty() {
            Duration::ZERO
        } else {
            let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
            latencies[i.min(latencies.len() - 1)]
        }
    };
    let presses = answers
        .iter()
        .filter(|(_, a)| a.as_ref().is_some_and(|a| a.text.is_none()))
        .count() as u64;
    let unanswered = answers.iter().filter(|(_, a)| a.is_none()).count();
    let (mut group_outputs, mut dm_outputs, mut max_window) = (0u64, 0u64, 0usize);
    for chat in fake.chats() {
        // Outputs per move: those of the measured window.
        let n = fake
            .outputs(chat)
            .iter()
            .filter(|o| o.at >= window_start && o.at <= window_end)
            .count() as u64;
        if fake.is_group(chat) {
            group_outputs += n;
            max_window = max_window.max(fake.max_outputs_in_window(chat, Duration::from_secs(60)));
        } else {
            dm_outputs += n;
        }
    }
    let calls = fake.calls();
    let answer_calls = calls.get("answerCallbackQuery").copied().unwrap_or(0);
    let total: u64 = calls.values().sum();
    let sends = [
        "sendMessage",
        "editMessageText",
        "editMessageReplyMarkup",
        "getUpdates",
    ];
    let other_calls = total
        - answer_calls
        - sends
            .iter()
            .map(|m| calls.get(*m).copied().unwrap_or(0))
            .sum::<u64>();
    let mut times: Vec<Instant> = fake
        .chats()
        .into_iter()
        .flat_map(|c| fake.outputs(c).into_iter().map(|o| o.at))
        .collect();
    times.sort();
    let mut max_per_second = 0;
    let mut start = 0;
    for end in 0..times.len() {
        while times[end].duration_since(times[start]) >= Duration::from_secs(1) {
            start += 1;
        }
        max_per_second = max_per_second.max(end + 1 - start);
    }
    let report = LoadReport {
        max_outputs_per_second: max_per_second,
        limit_hits: fake.limit_hits(),
        fresh_actor: Quantiles::of(freshness.actor),
        fresh_group: Quantiles::of(freshness.group),
        fresh_others: Quantiles::of(freshness.others),
        stale_hands_at_end,
        drain,
        elapsed,
        moves: window_moves,
        opening,
        presses,
        errors,
        latency_p50: quantile(0.5),
        latency_p99: quantile(0.99),
        latency_max: latencies.last().copied().unwrap_or_default(),
        unanswered,
        group_outputs,
        dm_outputs,
        answer_calls,
        other_calls,
        max_group_outputs_per_minute: max_window,
        webapp_actor: Quantiles::of(std::mem::take(
            &mut *webapp_actor.lock().unwrap_or_else(|p| p.into_inner()),
        )),
        webapp_others: Quantiles::of(std::mem::take(
            &mut *webapp_others.lock().unwrap_or_else(|p| p.into_inner()),
        )),
        peak_rss_kib: peak_rss_kib(),
        webhook: plan.as_ref().map(|_| fake.webhook_deliveries()),
        db_bytes: db_bytes(&options.db),
        options: options.clone(),
    };
    if !options.keep_db {
        remove_db(&options.db);
    }
    Ok(report)
}

/// Chat hands whose newest message with buttons does not carry its
/// table's latest version (the person would press a stale button); a Mini
/// App person's is held while their page is open.
fn stale_hands(tables: &[(usize, Driver, TableId, u64)], webapp_share: f64) -> usize {
    let mut stale = 0;
    for (n, d, id, version) in tables {
        for seat in 0..4u32 {
            if in_webapp(
                u32::try_from(*n).unwrap_or(u32::MAX).saturating_mul(4) + seat,
                webapp_share,
            ) {
                continue;
            }
            let newest = d
                .fake
                .messages(d.dm(seat as usize))
                .into_iter()
                .rev()
                .find_map(|m| m.keyboard);
            let shows_other = newest
                .iter()
                .flat_map(|k| k.buttons())
                .filter_map(|b| match b.callback_data().map(Press::parse) {
                    Some(Ok(Press::Table { table, version, .. })) if table == *id => Some(version),
                    _ => None,
                })
                .any(|v| v != *version);
            stale += usize::from(shows_other);
        }
    }
    stale
}

/// How soon the group's table must show a move at p99: it serves the
/// four people at once, so it may lag the acting person's hand, but not
/// past this (issue 28's aim).
pub const GROUP_AIM: Duration = Duration::from_secs(5);

/// Whether a run met the aim: no errors, no 429, the acting person's hand
/// fresh within `aim` at p99, and so the Mini App people's screens, and the
/// group's table within [`GROUP_AIM`].
fn meets(r: &LoadReport, aim: Duration) -> bool {
    r.errors.is_empty()
        && r.limit_hits.total() == 0
        && r.fresh_actor.p99 <= aim
        && r.webapp_actor.p99 <= aim
        && r.webapp_others.p99 <= aim
        && r.fresh_group.p99 <= GROUP_AIM
}

/// Whether person `p` (table × 4 + seat) plays in the Mini App: exactly
/// `share` of every run of people, spread evenly.
pub fn in_webapp(p: u32, share: f64) -> bool {
    let share = share.clamp(0.0, 1.0);
    ((f64::from(p) + 1.0) * share).floor() > (f64::from(p) * share).floor()
}

/// When each move of a table was pressed, by the version it was made at:
/// the others' pages measure from it.
type Pressed = Arc<std::sync::Mutex<std::collections::HashMap<(TableId, u64), Instant>>>;

/// A person playing in the Mini App: their signed init data and the event
/// stream their page keeps open.
pub struct WebPerson {
    client: reqwest::Client,
    base: String,
    init: String,
    table: TableId,
    /// The newest version their page shows.
    seen: tokio::sync::watch::Receiver<u64>,
    reader: tokio::task::JoinHandle<()>,
}

/// `"version":N` in an event's JSON: the state's own version (the one
/// field of that name in it).
fn version_in(data: &str) -> Option<u64> {
    let at = data.find("\"version\":")? + "\"version\":".len();
    let digits: String = data[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

impl WebPerson {
    /// Opens the person's page on `table`: the event stream, read in the
    /// background, every new version timed against its move's press.
    pub async fn open(
        client: reqwest::Client,
        base: String,
        init: String,
        table: TableId,
        pressed: Pressed,
        others: Arc<std::sync::Mutex<Vec<Duration>>>,
    ) -> Result<WebPerson, DriveError> {
        let url = format!(
            "{base}/api/events?table={}&auth={}",
            table.0,
            url::form_urlencoded::byte_serialize(init.as_bytes()).collect::<String>()
        );
        let mut events = client
            .get(url)
            .send()
            .await
            .map_err(|e| DriveError::Service(format!("the Mini App's events: {e}")))?;
        let (tx, seen) = tokio::sync::watch::channel(0);
        let reader = tokio::spawn(async move {
            let mut buf = String::new();
            while let Ok(Some(chunk)) = events.chunk().await {
                buf.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buf.find("\n\n") {
                    let event: String = buf.drain(..end + 2).collect();
                    let Some(v) = version_in(&event) else {
                        continue;
                    };
                    let arrived = Instant::now();
                    if v > *tx.borrow() {
                        // The move made at v - 1 brought this version.
                        let at = v.checked_sub(1).and_then(|m| {
                            pressed
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .get(&(table, m))
                                .copied()
                        });
                        if let Some(at) = at {
                            others
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(arrived.duration_since(at));
                        }
                        let _ = tx.send(v);
                    }
                }
            }
        });
        Ok(WebPerson {
            client,
            base,
            init,
            table,
            seen,
            reader,
        })
    }

    async fn post(&self, press: &str, id: &str) -> Result<(), DriveError> {
        let body = serde_json::json!({ "table": self.table.0, "press": press, "id": id });
        let r = self
            .client
            .post(format!("{}/api/press", self.base))
            .header("Authorization", format!("tma {}", self.init))
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| DriveError::Service(format!("the Mini App's press: {e}")))?;
        let status = r.status();
        let answer: serde_json::Value = r
            .json()
            .await
            .map_err(|e| DriveError::Service(format!("the Mini App's answer: {e}")))?;
        match answer.get("message").and_then(|m| m.as_str()) {
            Some(popup) if status.is_success() => Err(DriveError::Refused {
                data: press.to_owned(),
                popup: popup.to_owned(),
            }),
            _ if status.is_success() => Ok(()),
            _ => Err(DriveError::Refused {
                data: press.to_owned(),
                popup: answer.to_string(),
            }),
        }
    }

    /// The seat's safe move as the page makes it: the cards tapped (each a
    /// press), then the move; returns how long the move's press took to
    /// answer with the new state, which the page then shows.
    pub async fn play_safe(
        &self,
        t: &Table,
        think: Duration,
        pressed: &Pressed,
    ) -> Result<Duration, DriveError> {
        let seat = *t.awaiting().first().ok_or(DriveError::NoMove)?;
        let action = t
            .game()
            .and_then(|g| g.safe_action(seat))
            .ok_or(DriveError::NoMove)?;
        let (cards, make) = presses_of(action)?;
        let data = |action| {
            Press::Table {
                table: t.id(),
                version: t.version(),
                action,
            }
            .encode()
        };
        let id = |what: &str| format!("{}-{}-{what}", t.id().0, t.version());
        let mut pause = think;
        if !matches!(action, GameAction::Hearts(hearts::Action::Play(_))) {
            for c in cards.iter() {
                sleep(pause).await;
                pause = think / 6;
                self.post(&data(TableAction::Toggle(c)), &id(&c.to_string()))
                    .await?;
            }
        }
        sleep(pause).await;
        let action = make(cards).ok_or(DriveError::NoMove)?;
        let start = Instant::now();
        pressed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert((t.id(), t.version()), start);
        self.post(&data(action), &id("move")).await?;
        Ok(start.elapsed())
    }

    /// Closes the page: the Telegram shell brings their chat hand up to date.
    pub fn close(self) {
        self.reader.abort();
        drop(self.seen);
    }
}

/// The button that makes a move of the cards selected.
type MoveOf = fn(CardSet) -> Option<TableAction>;

/// The cards a move takes and the button that makes it of them.
fn presses_of(action: GameAction) -> Result<(CardSet, MoveOf), DriveError> {
    Ok(match action {
        GameAction::Kozel(kozel::Action::Lead(s)) => (s, |s| Some(TableAction::Lead(s))),
        GameAction::Kozel(kozel::Action::Pass(s)) => (s, |s| Some(TableAction::Pass(s))),
        GameAction::Kozel(kozel::Action::Beat(s)) => (s, |s| Some(TableAction::Beat(s))),
        GameAction::Hearts(hearts::Action::PassCards(s)) => {
            (s, |s| Some(TableAction::HeartsPass(s)))
        }
        GameAction::Hearts(hearts::Action::Play(c)) => (CardSet::single(c), |s| {
            s.first().map(TableAction::HeartsPlay)
        }),
        _ => return Err(DriveError::NoMove),
    })
}

/// The largest number of tables (from `options.tables`, doubling, then
/// halving the gap down to a tenth) at which [`meets`] holds; prints each
/// run's report. 0 if even the first size misses.
pub async fn search(options: LoadOptions, aim: Duration) -> Result<u32, LoadError> {
    let mut good = 0;
    let mut bad: Option<u32> = None;
    let mut n = options.tables.max(1);
    loop {
        let r = run(LoadOptions {
            tables: n,
            ..options.clone()
        })
        .await?;
        let ok = meets(&r, aim);
        println!(
            "--- {n} tables: {}",
            if ok { "meets the aim" } else { "misses" }
        );
        print!("{r}");
        if ok {
            good = good.max(n);
        } else {
            bad = Some(bad.map_or(n, |b| b.min(n)));
        }
        n = match bad {
            None if n < 1000 => n * 2,
            None => return Ok(good),
            Some(b) => {
                if b <= good + (good / 10).max(1) {
                    return Ok(good);
                }
                if good == 0 {
                    return Ok(0);
                }
                good + (b - good) / 2
            }
        };
    }
}
