//! The table service as a running thing: the sans-IO core behind a Tokio
//! handle, with persistence through [`TableStore`] (the table service's
//! own trait, in `table::storage`; the SQLite store implements it), turn
//! timers and AI players.
//!
//! - Commands for one chat are serialized by that chat's lock (a chat has at
//!   most one open table, so this serializes each table); different chats
//!   run in parallel and their commits share the store's group commits.
//! - A command is acknowledged only after its transaction committed; the
//!   in-memory table is replaced only then, so a failed commit changes nothing.
//! - What front-ends show ([`Output`]: renders, announcements, reminders)
//!   goes, in order, to the channel returned by [`Builder::start`]; timers
//!   and AI moves are carried out here and never leave the service.
//! - Front-ends read only views ([`TableService::table_view`],
//!   [`TableService::hand_of`]), never a [`Table`] with every hand nor the
//!   store: the calls that hand those out exist only for tests and tools
//!   (`cfg(any(test, feature = "dev-tools"))`).
//! - Chats idle for [`ServiceOptions::idle_after`] are dropped from memory and
//!   reloaded from the store on their next command.
//!
//! A whole service over the SQLite store, from a command to its render,
//! is the example in `kozyr::store`'s docs (the store implements this
//! crate's trait, so this crate cannot name it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::storage::{PlayerStats, RecordedCommand, StorageError, StoreHealth, TableStore};
use super::{
    Actor, ChatKey, Command, Context, Effect, HandView, Output, Platform, Table, TableError,
    TableEvent, TableId, TableView, TimerSpec, Timestamp, UserId, decide,
};
use kozyr_ai::{AgentConfig, AgentKind, Observation, TableAgent};
use kozyr_game::GameAction;
use kozyr_game::GameKind;
use kozyr_i18n::Lang;

/// Chooses moves for AI seats. Runs on Tokio's blocking pool, so it may
/// think for a while; it sees only the seat's view.
pub trait SeatAgent: Send + Sync + 'static {
    /// One of `legal` (never empty).
    fn choose(&self, seen: &Observation, legal: &[GameAction]) -> GameAction;

    /// Whether to play `action` now, out of turn (a Kozel molodka while
    /// another seat is to move). Asked after every move of the others while
    /// it stays possible, so it must be cheap. By default: never.
    fn wants_out_of_turn(&self, _seen: &Observation, _action: GameAction) -> bool {
        false
    }
}

/// Picks uniformly among the legal moves: the `random` player of `src/ai`
/// ([`kozyr_ai::RandomAgent`]), seeded at random for each move.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomSeat;

impl SeatAgent for RandomSeat {
    fn choose(&self, seen: &Observation, legal: &[GameAction]) -> GameAction {
        let random = TableAgent::of(AgentKind::Random, AgentConfig::default());
        SeatAgent::choose(&random, seen, legal)
    }

    fn wants_out_of_turn(&self, seen: &Observation, action: GameAction) -> bool {
        TableAgent::of(AgentKind::Random, AgentConfig::default()).wants_out_of_turn(seen, action)
    }
}

/// The players of `src/ai` (`random`, `heuristic`, `search`) at chat tables.
impl SeatAgent for TableAgent {
    fn choose(&self, seen: &Observation, legal: &[GameAction]) -> GameAction {
        // `legal` is never empty here; the caller falls back on a refusal.
        TableAgent::choose(self, seen, legal).unwrap_or_else(|| legal[0])
    }

    fn wants_out_of_turn(&self, seen: &Observation, action: GameAction) -> bool {
        TableAgent::wants_out_of_turn(self, seen, action)
    }
}

/// Where `now` comes from.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// The system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        Timestamp::from_millis(ms)
    }
}

/// A clock that moves only when told to; for tests.
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    pub fn new(start: Timestamp) -> ManualClock {
        ManualClock(Arc::new(AtomicI64::new(start.millis())))
    }

    pub fn set(&self, t: Timestamp) {
        self.0.store(t.millis(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(self.0.load(Ordering::SeqCst))
    }
}

/// Tuning of the running service.
#[derive(Clone, Debug)]
pub struct ServiceOptions {
    /// A chat with no command for this long is dropped from memory.
    pub idle_after: Duration,
    /// How often idle chats are looked for.
    pub sweep_every: Duration,
    /// A pause before each AI move, so people can follow the game.
    pub ai_delay: Duration,
    /// After a restart or takeover, deadlines that passed while nothing was
    /// serving run out this long after the start instead of at once, so
    /// people see the table again before a timeout moves for them. A
    /// deadline still ahead keeps its time.
    pub overdue_grace: Duration,
    /// How long de-duplication keys are kept.
    pub dedup_ttl: Duration,
    /// The seed of every series (tests: a known deal); `None`: random.
    pub seed: Option<u64>,
}

impl Default for ServiceOptions {
    fn default() -> ServiceOptions {
        ServiceOptions {
            idle_after: Duration::from_secs(15 * 60),
            sweep_every: Duration::from_secs(60),
            ai_delay: Duration::ZERO,
            overdue_grace: Duration::from_secs(10),
            dedup_ttl: Duration::from_secs(2 * 24 * 3600),
            seed: None,
        }
    }
}

/// Which table a command is for: a chat's open table (group commands), or
/// a table by id (buttons, which carry it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Chat(ChatKey),
    Table(TableId),
}

/// A command as a front-end submits it.
#[derive(Clone, Debug)]
pub struct Request {
    pub target: Target,
    pub actor: Actor,
    pub command: Command,
    /// The platform's id of the update (or callback) the command came
    /// from: a second delivery is answered from the record, not applied.
    pub dedup: Option<DedupKey>,
}

/// A de-duplication key: which platform delivery a command came from.
/// Built from typed parts, so two platforms (or two kinds of delivery)
/// can never share a key. The text form is what the store keeps; the
/// Telegram forms are the ones earlier versions wrote (`tg:update:1`), so
/// a delivery repeated across an upgrade is still recognised.
///
/// ```
/// use kozyr_table::Platform;
/// use kozyr_table::runtime::DedupKey;
/// assert_eq!(DedupKey::update(Platform::Telegram, 7).as_str(), "tg:update:7");
/// assert_eq!(DedupKey::callback(Platform::Discord, "99").as_str(), "dc:callback:99");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DedupKey(String);

impl DedupKey {
    fn prefix(platform: Platform) -> &'static str {
        match platform {
            Platform::Telegram => "tg",
            Platform::Discord => "dc",
        }
    }

    /// A platform update (a message, a slash command) by its id.
    pub fn update(platform: Platform, update_id: impl std::fmt::Display) -> DedupKey {
        DedupKey(format!("{}:update:{update_id}", Self::prefix(platform)))
    }

    /// A button press (callback query, component interaction) by its id.
    pub fn callback(platform: Platform, id: &str) -> DedupKey {
        DedupKey(format!("{}:callback:{id}", Self::prefix(platform)))
    }

    /// A chat's move to a new id (a Telegram group upgraded to a supergroup).
    pub fn migration(from: &ChatKey) -> DedupKey {
        DedupKey(format!(
            "{}:migrate:{}",
            Self::prefix(from.platform()),
            from.id()
        ))
    }

    /// A key made by a tool or a test, taken as it is.
    pub fn opaque(key: impl Into<String>) -> DedupKey {
        DedupKey(key.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A command's acknowledgement, sent once it is durable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ack {
    /// The table the command was about (`None`: a chat move without a table).
    pub table: Option<TableId>,
    /// Its version after the command.
    pub version: u64,
    pub events: Vec<TableEvent>,
    /// The command had been applied before; this is the recorded result.
    pub duplicate: bool,
}

/// Why a submitted command failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Refused by the rules of the table; nothing changed. Tell the user.
    #[error(transparent)]
    Rejected(#[from] TableError),
    /// The store failed; nothing changed. Log it; the user may retry.
    #[error(transparent)]
    Store(#[from] StorageError),
}

impl ServiceError {
    /// The table error, if the command was refused by the rules.
    pub fn rejection(&self) -> Option<&TableError> {
        match self {
            ServiceError::Rejected(e) => Some(e),
            ServiceError::Store(_) => None,
        }
    }

    /// Whether the store was closed under it: the process is stopping.
    pub fn is_closed(&self) -> bool {
        matches!(self, ServiceError::Store(StorageError::Closed))
    }
}

/// Sets up a [`TableService`].
pub struct Builder {
    store: Arc<dyn TableStore>,
    options: ServiceOptions,
    agent: Arc<dyn SeatAgent>,
    clock: Arc<dyn Clock>,
}

impl Builder {
    pub fn options(mut self, options: ServiceOptions) -> Builder {
        self.options = options;
        self
    }

    pub fn agent(mut self, agent: Arc<dyn SeatAgent>) -> Builder {
        self.agent = agent;
        self
    }

    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Builder {
        self.clock = clock;
        self
    }

    /// Starts the service. The open tables found in the store are rendered
    /// again (their effects are the first on the returned channel), their
    /// timers re-armed from the stored deadlines and owed AI moves made.
    pub async fn start(
        self,
    ) -> Result<(TableService, mpsc::UnboundedReceiver<Output>), ServiceError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            store: self.store,
            options: self.options,
            agent: self.agent,
            clock: self.clock,
            effects: tx,
            chats: Mutex::new(HashMap::new()),
            table_chats: Mutex::new(HashMap::new()),
            timers: Mutex::new(HashMap::new()),
            sweeper: Mutex::new(None),
            stopping: AtomicBool::new(false),
        });
        let service = TableService { inner };
        service.recover().await?;
        let weak = Arc::downgrade(&service.inner);
        let sweeper = tokio::spawn(sweep(weak, service.inner.options.sweep_every));
        *lock(&service.inner.sweeper) = Some(sweeper);
        Ok((service, rx))
    }
}

/// The running table service; cheap to clone.
#[derive(Clone)]
pub struct TableService {
    inner: Arc<Inner>,
}

type Slot = Arc<tokio::sync::Mutex<ChatState>>;

struct Inner {
    store: Arc<dyn TableStore>,
    options: ServiceOptions,
    agent: Arc<dyn SeatAgent>,
    clock: Arc<dyn Clock>,
    effects: mpsc::UnboundedSender<Output>,
    chats: Mutex<HashMap<ChatKey, Slot>>,
    /// Where tables live, for commands that name a table.
    table_chats: Mutex<HashMap<TableId, ChatKey>>,
    timers: Mutex<HashMap<TableId, ArmedTimer>>,
    sweeper: Mutex<Option<JoinHandle<()>>>,
    /// Set by [`TableService::shutdown`]: no new timers or AI moves.
    stopping: AtomicBool,
}

struct ChatState {
    /// Whether `table` was read from the store since the chat was last dropped.
    loaded: bool,
    table: Option<Table>,
    last_used: Instant,
}

struct ArmedTimer {
    spec: TimerSpec,
    /// When it runs out: the deadline, or later for one that passed while
    /// nothing was serving (see [`ServiceOptions::overdue_grace`]).
    fire_at: Timestamp,
    task: JoinHandle<()>,
}

/// A std mutex whose holder panicked is still usable: every critical
/// section here leaves its map consistent at each step.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn until(clock: &dyn Clock, t: Timestamp) -> Duration {
    Duration::from_millis(u64::try_from(t.millis() - clock.now().millis()).unwrap_or(0))
}

impl TableService {
    /// A service over `store` with a random AI player, the system clock and
    /// default options.
    pub fn builder(store: impl super::storage::IntoStorage) -> Builder {
        Builder {
            store: store.into_storage(),
            options: ServiceOptions::default(),
            agent: Arc::new(RandomSeat),
            clock: Arc::new(SystemClock),
        }
    }

    /// The store behind the service, for tests and tools (see
    /// `kozyr::store::ServiceStore`); front-ends read views through the
    /// service instead.
    #[cfg(any(test, feature = "dev-tools"))]
    pub fn storage(&self) -> &dyn TableStore {
        &*self.inner.store
    }

    /// Whether the store can write; changes as commits fail and recover
    /// (the heartbeat says so at once).
    pub fn health(&self) -> tokio::sync::watch::Receiver<StoreHealth> {
        self.inner.store.health()
    }

    /// [`TableService::shutdown`], then closes the store: every commit
    /// already acknowledged is on disk, and the database file is released.
    pub async fn close(&self) {
        self.shutdown().await;
        self.inner.store.close().await;
    }

    pub fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    /// Applies a command; returns once it is durable. See [`Request`].
    pub async fn submit(&self, request: Request) -> Result<Ack, ServiceError> {
        let chat = match &request.target {
            Target::Chat(c) => c.clone(),
            Target::Table(id) => self.chat_of(*id).await?,
        };
        if let Command::MigrateChat { to } = &request.command {
            return self.migrate(&chat, to, &request).await;
        }
        let slot = self.slot(&chat);
        let mut state = slot.lock().await;
        self.load(&chat, &mut state).await?;
        let mut retried = false;
        loop {
            // A request applied before gets its recorded result even when
            // the table has closed since (its own Stop, a later one).
            if let Some(key) = &request.dedup
                && let Some(recorded) = self.inner.store.recorded(key.as_str()).await?
            {
                return self.recorded_ack(recorded, &state).await;
            }
            if let Target::Table(id) = request.target
                && state.table.as_ref().map(Table::id) != Some(id)
            {
                return Err(TableError::TableClosed.into());
            }
            match self.apply(&chat, &mut state, &request).await {
                // The stored table moved on without this process (a command
                // whose caller gave up after the commit was sent, or another
                // process): read it again and decide once more.
                Err(ServiceError::Store(
                    StorageError::Conflict(_) | StorageError::Duplicate(_),
                )) if !retried => {
                    retried = true;
                    self.load(&chat, &mut state).await?;
                }
                result => return result,
            }
        }
    }

    /// The recorded result of the request applied under `dedup`, if one
    /// was (its table's screens are sent again, as for any duplicate). A
    /// platform delivering a press again asks this before it checks the
    /// press against the table as it is now: the first delivery moved the
    /// table on, so those checks would refuse a move that counted.
    pub async fn replay(&self, dedup: &DedupKey) -> Result<Option<Ack>, ServiceError> {
        let Some(recorded) = self.inner.store.recorded(dedup.as_str()).await? else {
            return Ok(None);
        };
        let chat = match recorded.table {
            Some(t) => self.chat_of(t).await.ok(),
            None => None,
        };
        let Some(chat) = chat else {
            let closed = ChatState {
                loaded: true,
                table: None,
                last_used: Instant::now(),
            };
            return self.recorded_ack(recorded, &closed).await.map(Some);
        };
        let slot = self.slot(&chat);
        let mut state = slot.lock().await;
        self.load(&chat, &mut state).await?;
        self.recorded_ack(recorded, &state).await.map(Some)
    }

    /// Decides and commits one command against the chat's loaded state.
    async fn apply(
        &self,
        chat: &ChatKey,
        state: &mut ChatState,
        request: &Request,
    ) -> Result<Ack, ServiceError> {
        let started = std::time::Instant::now();
        let now = self.inner.clock.now();
        let new_table_id = match request.command {
            Command::Create { .. } => self.inner.store.next_table_id().await?,
            _ => TableId(0),
        };
        let ctx = Context {
            now,
            seed: self.inner.options.seed.unwrap_or_else(rand::random),
            new_table_id,
        };
        let transition = decide(
            state.table.as_ref(),
            chat,
            &request.actor,
            &request.command,
            &ctx,
        )
        .inspect_err(|e| {
            kozyr_metrics::command_refused(request.command.name(), e.reason());
            super::journal::refused(chat, &request.actor, &request.command, e);
        })?;
        if let Err(e) = self
            .inner
            .store
            .commit(
                &transition,
                request.dedup.as_ref().map(DedupKey::as_str),
                now,
            )
            .await
        {
            // What is in memory may no longer be what is stored: read it again.
            state.loaded = false;
            state.table = None;
            return Err(e.into());
        }
        // A command that changed no table (a chat's language) leaves it be.
        if !transition.changes.is_empty() {
            state.table = transition.open_table().cloned();
        }
        if let Some(t) = &state.table {
            lock(&self.inner.table_chats).insert(t.id(), chat.clone());
        }
        let ack = ack_of(&transition);
        self.dispatch(transition.effects, None);
        let took = started.elapsed();
        kozyr_metrics::command_done(&moves_by(&transition.changes), took);
        super::journal::committed(
            chat,
            &request.actor,
            &request.command,
            &transition.changes,
            took,
        );
        Ok(ack)
    }

    /// The table as it is now, open or closed, every hand included: for
    /// tests and tools. Front-ends read [`TableService::table_view`] and
    /// [`TableService::hand_of`].
    #[cfg(any(test, feature = "dev-tools"))]
    pub async fn table(&self, id: TableId) -> Result<Option<Table>, ServiceError> {
        self.whole_table(id).await
    }

    async fn whole_table(&self, id: TableId) -> Result<Option<Table>, ServiceError> {
        let chat = lock(&self.inner.table_chats).get(&id).cloned();
        if let Some(chat) = chat {
            let slot = self.slot(&chat);
            let state = slot.lock().await;
            if let Some(t) = state.table.as_ref().filter(|t| t.id() == id) {
                return Ok(Some(t.clone()));
            }
        }
        Ok(self.inner.store.table(id).await?)
    }

    /// The table as everyone may see it (no hands), open or closed.
    pub async fn table_view(&self, id: TableId) -> Result<Option<TableView>, ServiceError> {
        Ok(self.whole_table(id).await?.map(|t| t.view()))
    }

    /// The open tables' ids: a platform's start looks for the messages a
    /// kill may have kept from the store.
    pub async fn open_table_ids(&self) -> Result<Vec<TableId>, ServiceError> {
        Ok(self.inner.store.open_table_ids().await?)
    }

    /// The chat's open table as everyone may see it.
    pub async fn open_table_view(&self, chat: &ChatKey) -> Result<Option<TableView>, ServiceError> {
        Ok(self.whole_open_table(chat).await?.map(|t| t.view()))
    }

    /// What `user` sees of their own seat at table `id`: `None` when they
    /// have no seat there (or the table is gone).
    pub async fn hand_of(
        &self,
        id: TableId,
        user: &UserId,
    ) -> Result<Option<HandView>, ServiceError> {
        Ok(self
            .whole_table(id)
            .await?
            .and_then(|t| t.seat_of(user).and_then(|s| t.hand_view(s))))
    }

    /// The language the chat chose, if it chose one.
    pub async fn chat_language(&self, chat: &ChatKey) -> Result<Option<Lang>, ServiceError> {
        Ok(self.inner.store.chat_language(chat).await?)
    }

    /// The chat's best players at `game`.
    pub async fn leaderboard(
        &self,
        chat: &ChatKey,
        game: GameKind,
        limit: u32,
    ) -> Result<Vec<PlayerStats>, ServiceError> {
        Ok(self.inner.store.leaderboard(chat, game, limit).await?)
    }

    /// What front-ends record about their messages, in this service's
    /// store (see [`super::storage::DeliveryRecords`]): the one part of the
    /// store a front-end reaches, which holds no table and no hand.
    pub fn records(&self) -> &dyn super::storage::DeliveryRecords {
        &*self.inner.store
    }

    /// The inbox of `platform`'s pushed updates, in this service's store
    /// (see [`super::storage::Inbox`]).
    pub fn inbox(&self, platform: Platform) -> super::storage::Inbox {
        super::storage::Inbox::new(self.inner.store.clone(), platform)
    }

    /// The chat's open table, every hand included: for tests and tools.
    #[cfg(any(test, feature = "dev-tools"))]
    pub async fn open_table(&self, chat: &ChatKey) -> Result<Option<Table>, ServiceError> {
        self.whole_open_table(chat).await
    }

    async fn whole_open_table(&self, chat: &ChatKey) -> Result<Option<Table>, ServiceError> {
        let slot = self.slot(chat);
        let mut state = slot.lock().await;
        self.load(chat, &mut state).await?;
        Ok(state.table.clone())
    }

    /// Submits a timeout for every armed timer whose deadline has passed by
    /// the service's clock. The timers do this by themselves; this is for
    /// tests with a [`ManualClock`].
    pub async fn fire_due_timers(&self) -> Vec<Result<Ack, ServiceError>> {
        let now = self.inner.clock.now();
        let due: Vec<TableId> = lock(&self.inner.timers)
            .iter()
            .filter(|(_, t)| t.spec.deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        let mut acks = Vec::new();
        for id in due {
            acks.push(self.submit(timeout_request(id)).await);
        }
        acks
    }

    /// The tables whose turn timer is armed, and when each runs out.
    pub fn armed_timers(&self) -> Vec<(TableId, Timestamp)> {
        let mut v: Vec<_> = lock(&self.inner.timers)
            .iter()
            .map(|(id, t)| (*id, t.spec.deadline))
            .collect();
        v.sort();
        v
    }

    /// The tables whose turn timer is armed, and when each will fire: its
    /// deadline, unless that had passed when it was armed.
    pub fn timer_fire_times(&self) -> Vec<(TableId, Timestamp)> {
        let mut v: Vec<_> = lock(&self.inner.timers)
            .iter()
            .map(|(id, t)| (*id, t.fire_at))
            .collect();
        v.sort();
        v
    }

    /// Drops chats idle for longer than `idle_after` from memory; returns
    /// how many chats stay loaded.
    pub fn evict_idle(&self, idle_after: Duration) -> usize {
        let mut chats = lock(&self.inner.chats);
        chats.retain(|_, slot| {
            // In use (a command holds or awaits it), or recently used: keep.
            Arc::strong_count(slot) > 1
                || slot
                    .try_lock()
                    .map_or(true, |s| s.last_used.elapsed() < idle_after)
        });
        let kept = chats.len();
        lock(&self.inner.table_chats).retain(|_, chat| chats.contains_key(chat));
        kept
    }

    /// Stops the timers, AI players and background tasks; commands already
    /// submitted finish. The store stays open (close it with
    /// [`TableService::close`]).
    pub async fn shutdown(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        if let Some(sweeper) = lock(&self.inner.sweeper).take() {
            sweeper.abort();
        }
        for (_, t) in lock(&self.inner.timers).drain() {
            t.task.abort();
        }
    }

    fn slot(&self, chat: &ChatKey) -> Slot {
        lock(&self.inner.chats)
            .entry(chat.clone())
            .or_insert_with(|| {
                Arc::new(tokio::sync::Mutex::new(ChatState {
                    loaded: false,
                    table: None,
                    last_used: Instant::now(),
                }))
            })
            .clone()
    }

    async fn load(&self, chat: &ChatKey, state: &mut ChatState) -> Result<(), ServiceError> {
        state.last_used = Instant::now();
        if !state.loaded {
            state.table = self.inner.store.open_table(chat).await?;
            state.loaded = true;
            if let Some(t) = &state.table {
                lock(&self.inner.table_chats).insert(t.id(), chat.clone());
            }
        }
        Ok(())
    }

    async fn chat_of(&self, id: TableId) -> Result<ChatKey, ServiceError> {
        if let Some(chat) = lock(&self.inner.table_chats).get(&id) {
            return Ok(chat.clone());
        }
        match self.inner.store.chat_of(id).await? {
            Some((chat, phase)) if phase != super::Phase::Closed => Ok(chat),
            _ => Err(TableError::TableClosed.into()),
        }
    }

    async fn recorded_ack(
        &self,
        recorded: RecordedCommand,
        state: &ChatState,
    ) -> Result<Ack, ServiceError> {
        let events = match recorded.table {
            Some(t) => self
                .inner
                .store
                .events_between(t, recorded.first_version, recorded.last_version)
                .await?
                .into_iter()
                .map(|(_, e)| e)
                .collect(),
            None => Vec::new(),
        };
        // The first delivery may have died before its effects went out.
        if let Some(t) = &state.table {
            let render = t
                .current_effects()
                .into_iter()
                .filter(|e| matches!(e, Effect::RenderTable(_) | Effect::RenderHand(_)));
            self.dispatch(render.collect(), None);
        }
        Ok(Ack {
            table: recorded.table,
            version: recorded.last_version,
            events,
            duplicate: true,
        })
    }

    async fn migrate(
        &self,
        from: &ChatKey,
        to: &ChatKey,
        request: &Request,
    ) -> Result<Ack, ServiceError> {
        if from == to {
            return Err(TableError::SameChat.into());
        }
        // Two chat locks, always taken in the same order.
        let (first, second) = if from < to { (from, to) } else { (to, from) };
        let (a, b) = (self.slot(first), self.slot(second));
        let mut ga = a.lock().await;
        let mut gb = b.lock().await;
        let (src, dst) = if from < to {
            (&mut *ga, &mut *gb)
        } else {
            (&mut *gb, &mut *ga)
        };
        self.load(from, src).await?;
        self.load(to, dst).await?;
        if let Some(key) = &request.dedup
            && let Some(recorded) = self.inner.store.recorded(key.as_str()).await?
        {
            return self.recorded_ack(recorded, dst).await;
        }
        if dst.table.is_some() {
            return Err(TableError::TableAlreadyOpen.into());
        }
        let now = self.inner.clock.now();
        let ctx = Context {
            now,
            seed: 0,
            new_table_id: TableId(0),
        };
        let transition = decide(
            src.table.as_ref(),
            from,
            &request.actor,
            &request.command,
            &ctx,
        )
        .inspect_err(|e| kozyr_metrics::command_refused(request.command.name(), e.reason()))?;
        if let Err(e) = self
            .inner
            .store
            .commit(
                &transition,
                request.dedup.as_ref().map(DedupKey::as_str),
                now,
            )
            .await
        {
            src.loaded = false;
            dst.loaded = false;
            return Err(e.into());
        }
        dst.table = transition.open_table().cloned();
        src.table = None;
        if let Some(t) = &dst.table {
            lock(&self.inner.table_chats).insert(t.id(), to.clone());
        }
        let ack = ack_of(&transition);
        self.dispatch(transition.effects, None);
        super::journal::committed(
            from,
            &request.actor,
            &request.command,
            &transition.changes,
            Duration::ZERO,
        );
        Ok(ack)
    }

    /// Re-renders the open tables after a start and keeps them going.
    async fn recover(&self) -> Result<(), ServiceError> {
        let grace = self.inner.options.overdue_grace;
        let overdue_until = self
            .inner
            .clock
            .now()
            .plus_millis(i64::try_from(grace.as_millis()).unwrap_or(i64::MAX));
        for id in self.inner.store.open_table_ids().await? {
            match self.inner.store.table(id).await {
                Ok(Some(t)) => self.dispatch(t.current_effects(), Some(overdue_until)),
                Ok(None) => {}
                // One damaged table must not keep the others down.
                Err(e) => tracing::error!(table = %id, error = %e, "cannot load table"),
            }
        }
        Ok(())
    }

    /// Carries out effects: timers and AI moves here, the rest to the
    /// front-end, in order.
    fn dispatch(&self, effects: Vec<Effect>, overdue_until: Option<Timestamp>) {
        let stopping = self.inner.stopping.load(Ordering::SeqCst);
        for effect in effects {
            match effect {
                Effect::ArmTimer(_) | Effect::AiMove(_) if stopping => {}
                Effect::ArmTimer(spec) => self.arm(*spec, overdue_until),
                Effect::DisarmTimer { table } => {
                    if let Some(t) = lock(&self.inner.timers).remove(&table) {
                        t.task.abort();
                    }
                }
                Effect::AiMove(m) => {
                    let service = self.clone();
                    tokio::spawn(async move { service.ai_move(*m).await });
                }
                other => {
                    // A front-end that went away is not the service's failure.
                    if let Some(output) = other.into_output() {
                        let _ = self.inner.effects.send(output);
                    }
                }
            }
        }
    }

    fn arm(&self, spec: TimerSpec, overdue_until: Option<Timestamp>) {
        let weak = Arc::downgrade(&self.inner);
        let now = self.inner.clock.now();
        // Only a deadline that passed while nothing was serving waits for
        // the grace; one still ahead keeps its time (a grace for every
        // timer made each takeover delay them all).
        let fire_at = match overdue_until {
            Some(until) if spec.deadline <= now => until,
            _ => spec.deadline,
        };
        let task = tokio::spawn(run_timer(weak, spec.clone(), fire_at));
        let old = lock(&self.inner.timers).insert(
            spec.table,
            ArmedTimer {
                spec,
                fire_at,
                task,
            },
        );
        if let Some(old) = old {
            old.task.abort();
        }
    }

    async fn ai_move(&self, m: super::AiMove) {
        if !self.inner.options.ai_delay.is_zero() {
            tokio::time::sleep(self.inner.options.ai_delay).await;
        }
        let Some(&fallback) = m.legal.first() else {
            return;
        };
        let agent = self.inner.agent.clone();
        let (seen, legal) = (m.observation, m.legal);
        let action = if m.out_of_turn {
            // A cheap yes or no, asked after every move of the others while
            // the seat could: no search, so no blocking pool.
            let agent = agent.clone();
            let Some(a) = legal.into_iter().find(|&a| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    agent.wants_out_of_turn(&seen, a)
                }))
                .unwrap_or(false)
            }) else {
                return;
            };
            a
        } else {
            tokio::task::spawn_blocking(move || {
                let a = agent.choose(&seen, &legal);
                if legal.contains(&a) { a } else { fallback }
            })
            .await
            // An agent that panicked still owes a move.
            .unwrap_or(fallback)
        };
        if self.inner.stopping.load(Ordering::SeqCst) {
            return;
        }
        let request = Request {
            target: Target::Table(m.table),
            actor: Actor::Ai,
            command: Command::Act {
                seat: m.seat,
                action,
                version: m.version,
            },
            dedup: None,
        };
        match self.submit(request).await {
            Ok(_) => {}
            // Someone moved first (a molodka, a person taking the seat back).
            Err(ServiceError::Rejected(e)) => {
                tracing::debug!(table = %m.table, error = %e, "AI move not applied");
            }
            Err(e) => tracing::warn!(table = %m.table, error = %e, "AI move failed"),
        }
    }
}

fn timeout_request(table: TableId) -> Request {
    Request {
        target: Target::Table(table),
        actor: Actor::System,
        command: Command::Timeout,
        dedup: None,
    }
}

/// Who played each move among `changes` (the metrics' labels).
fn moves_by(changes: &[super::Change]) -> Vec<&'static str> {
    changes
        .iter()
        .flat_map(|c| &c.events)
        .filter_map(|event| match event {
            TableEvent::Acted { by, .. } => Some(match by {
                super::Mover::Person => "person",
                super::Mover::Ai => "ai",
                super::Mover::Timeout => "timer",
            }),
            _ => None,
        })
        .collect()
}

fn ack_of(t: &super::Transition) -> Ack {
    let main = t.changes.last();
    Ack {
        table: main.map(|c| c.table.id()),
        version: main.map_or(0, |c| c.table.version()),
        events: main.map(|c| c.events.clone()).unwrap_or_default(),
        duplicate: false,
    }
}

/// Sleeps to the reminder, then to the deadline, then submits the timeout.
async fn run_timer(service: Weak<Inner>, spec: TimerSpec, fire_at: Timestamp) {
    let clock = match service.upgrade() {
        Some(inner) => inner.clock.clone(),
        None => return,
    };
    if let Some(remind_at) = spec.remind_at.filter(|r| *r < fire_at) {
        tokio::time::sleep(until(&*clock, remind_at)).await;
        let Some(inner) = service.upgrade() else {
            return;
        };
        if !spec.awaiting.is_empty() {
            let _ = inner.effects.send(Output::Remind(Box::new(spec.clone())));
        }
    }
    let mut fire_at = fire_at;
    loop {
        tokio::time::sleep(until(&*clock, fire_at)).await;
        let Some(inner) = service.upgrade() else {
            return;
        };
        let service = TableService { inner };
        match service.submit(timeout_request(spec.table)).await {
            // The clock the deadline came from runs ahead of the timer's.
            Err(ServiceError::Rejected(TableError::TimerNotDue)) => {
                fire_at = spec.deadline.max(clock.now().plus_millis(50));
            }
            Err(ServiceError::Store(e)) => {
                tracing::warn!(table = %spec.table, error = %e, "timeout not stored; retrying");
                fire_at = clock.now().plus_secs(5);
            }
            _ => return,
        }
    }
}

/// Drops idle chats and old de-duplication keys, while the service lives.
async fn sweep(service: Weak<Inner>, every: Duration) {
    let mut tick = tokio::time::interval(every.max(Duration::from_millis(10)));
    loop {
        tick.tick().await;
        let Some(inner) = service.upgrade() else {
            return;
        };
        let service = TableService { inner };
        service.evict_idle(service.inner.options.idle_after);
        let ttl = i64::try_from(service.inner.options.dedup_ttl.as_millis()).unwrap_or(i64::MAX);
        let before = service.now().plus_millis(-ttl);
        if let Err(e) = service.inner.store.prune_commands(before).await {
            tracing::warn!(error = %e, "pruning de-duplication keys");
        }
    }
}
