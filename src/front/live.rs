//! Live views: which people watch a table through a live connection (the
//! Telegram Mini App, `crate::webapp`), and the news that a table changed.
//!
//! Neutral ground between a live front-end and the chat shells, which must
//! not name each other: the live front-end registers open connections and
//! presses here ([`LiveViews::open`], [`LiveViews::pressed`]) and learns of
//! changes from [`LiveViews::subscribe`]; the chat shell's output stream
//! passes through [`LiveViews::tap`], which announces every change and
//! holds back the private hand renders of a person whose live view is open
//! (their hand is not edited in the chat meanwhile: the Bot API's budget
//! goes to everyone else). A held hand goes out once, its latest state,
//! when the person closes the live view — a new deal's too: the live view
//! shows the deal's result and the new cards, and the chat hand catches
//! up when it is closed. Only a person's first chat hand at a table is
//! never held (the chat must have one, with the button to the live view).
//!
//! The decisions are sans-IO in [`HandHold`]; [`LiveViews`] adds the
//! locks and channels around it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{mpsc, watch};

use crate::table::{HandView, Output, Phase, TableId, UserId};

/// Where the Mini App is, once it is served (`KOZYR_WEBAPP_URL`,
/// `KOZYR_WEBAPP_SHORT_NAME`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveApp {
    /// The page's public `https://` address.
    pub url: String,
    /// The app's short name registered with BotFather, for direct links
    /// from groups (`web_app` buttons work in private chats only).
    pub short_name: Option<String>,
}

impl LiveApp {
    /// The page at `table`, as a private hand's button opens it.
    pub fn table_url(&self, table: TableId) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}table={}", self.url, table.0)
    }
}

/// Who watches what live, and the stream of table changes.
pub struct LiveViews {
    /// Set once the Mini App is served; hands then carry its button.
    app: std::sync::OnceLock<LiveApp>,
    /// A change counter per watched table: a live view wakes for its own
    /// table only, and changes it has not read yet fold into one.
    watched: Mutex<HashMap<TableId, watch::Sender<u64>>>,
    inner: Mutex<Inner>,
    /// Closed views reach the tap through this (the sender side is kept
    /// here; the tap takes the receiver once).
    closed_tx: mpsc::UnboundedSender<(UserId, TableId)>,
    closed_rx: Mutex<Option<mpsc::UnboundedReceiver<(UserId, TableId)>>>,
}

#[derive(Default)]
struct Inner {
    /// Open connections per (person, table).
    open: HashMap<(UserId, TableId), usize>,
    /// When each person last pressed in a live view.
    pressed: HashMap<UserId, Instant>,
}

/// An open live connection; dropping it closes it.
pub struct OpenView {
    live: Arc<LiveViews>,
    key: (UserId, TableId),
}

impl Drop for OpenView {
    fn drop(&mut self) {
        let last = {
            let mut inner = lock(&self.live.inner);
            match inner.open.get_mut(&self.key) {
                Some(n) if *n > 1 => {
                    *n -= 1;
                    false
                }
                Some(_) => {
                    inner.open.remove(&self.key);
                    true
                }
                None => false,
            }
        };
        if last {
            let _ = self.live.closed_tx.send(self.key.clone());
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Past this many people remembered as having pressed, the oldest are forgotten.
const PRESSED_LIMIT: usize = 4096;

impl LiveViews {
    pub fn new() -> Arc<LiveViews> {
        let (closed_tx, closed_rx) = mpsc::unbounded_channel();
        Arc::new(LiveViews {
            app: std::sync::OnceLock::new(),
            watched: Mutex::new(HashMap::new()),
            inner: Mutex::new(Inner::default()),
            closed_tx,
            closed_rx: Mutex::new(Some(closed_rx)),
        })
    }

    /// Says the Mini App is served at `app` (once; later calls are ignored).
    pub fn set_app(&self, app: LiveApp) {
        let _ = self.app.set(app);
    }

    /// The Mini App, when it is served.
    pub fn app(&self) -> Option<&LiveApp> {
        self.app.get()
    }

    /// The changes of `table`, as they are routed to the chat shell: the
    /// receiver's `changed()` wakes after each (several unread ones count
    /// as one; whoever wakes reads the whole state anyway).
    pub fn subscribe(&self, table: TableId) -> watch::Receiver<u64> {
        let mut watched = lock(&self.watched);
        // Tables nobody watches any more are forgotten here.
        watched.retain(|_, tx| tx.receiver_count() > 0);
        watched
            .entry(table)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Says that `table` changed (also a live front-end's own renders, such
    /// as a card selected, which never pass through the service's outputs).
    pub fn changed(&self, table: TableId) {
        if let Some(tx) = lock(&self.watched).get(&table) {
            tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// `user` opened a live view of `table`; it stays open while the
    /// returned guard lives.
    pub fn open(self: &Arc<Self>, user: &UserId, table: TableId) -> OpenView {
        let key = (user.clone(), table);
        *lock(&self.inner).open.entry(key.clone()).or_insert(0) += 1;
        OpenView {
            live: self.clone(),
            key,
        }
    }

    /// Whether `user` has a live view of `table` open now.
    pub fn is_open(&self, user: &UserId, table: TableId) -> bool {
        lock(&self.inner).open.contains_key(&(user.clone(), table))
    }

    /// `user` pressed something in a live view.
    pub fn pressed(&self, user: &UserId, now: Instant) {
        let mut inner = lock(&self.inner);
        if inner.pressed.len() >= PRESSED_LIMIT
            && let Some(oldest) = inner
                .pressed
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(u, _)| u.clone())
        {
            inner.pressed.remove(&oldest);
        }
        inner.pressed.insert(user.clone(), now);
    }

    /// When `user` was last seen looking at a live view: now while one is
    /// open, else their last press there. For turn alerts: a person
    /// looking at the Mini App is looking.
    pub fn looked_at(&self, user: &UserId, now: Instant) -> Option<Instant> {
        let inner = lock(&self.inner);
        if inner.open.keys().any(|(u, _)| u == user) {
            return Some(now);
        }
        inner.pressed.get(user).copied()
    }

    /// Puts the hold in front of a chat shell's outputs: every output
    /// announces its table's change, and the hands of people with an open
    /// live view are held as [`HandHold`] says. Spawns the forwarding
    /// task; the returned receiver is what the shell reads instead.
    pub fn tap(
        self: &Arc<Self>,
        mut outputs: mpsc::UnboundedReceiver<Output>,
    ) -> mpsc::UnboundedReceiver<Output> {
        let (tx, rx) = mpsc::unbounded_channel();
        let live = self.clone();
        let mut closed = lock(&self.closed_rx).take();
        tokio::spawn(async move {
            let mut hold = HandHold::default();
            loop {
                let released = tokio::select! {
                    o = outputs.recv() => {
                        let Some(o) = o else { break };
                        live.changed(table_of(&o));
                        hold.on_output(o, |u, t| live.is_open(u, t))
                    }
                    Some((user, table)) = async {
                        match closed.as_mut() {
                            Some(c) => c.recv().await,
                            None => std::future::pending().await,
                        }
                    } => hold.on_closed(&user, table),
                };
                if let Some(o) = released
                    && tx.send(o).is_err()
                {
                    break;
                }
            }
        });
        rx
    }
}

fn table_of(o: &Output) -> TableId {
    match o {
        Output::RenderTable(v) => v.id,
        Output::RenderHand(h) => h.table,
        Output::DropHand { table, .. } | Output::Announce { table, .. } => *table,
        Output::Remind(spec) => spec.table,
    }
}

/// Which private hand renders a chat shell gets while their person
/// watches live. Sans-IO.
#[derive(Debug, Default)]
pub struct HandHold {
    /// The latest hand held back per (person, table).
    held: HashMap<(UserId, TableId), Box<HandView>>,
    /// The (person, table)s whose chat hand went out at least once.
    sent: HashSet<(UserId, TableId)>,
}

impl HandHold {
    /// The output to pass on, if any: a hand render of a person whose
    /// live view is open (`is_open`) is held, unless their chat hand at
    /// that table has not gone out yet.
    pub fn on_output(
        &mut self,
        o: Output,
        is_open: impl Fn(&UserId, TableId) -> bool,
    ) -> Option<Output> {
        match o {
            Output::RenderHand(hand) => {
                let key = (hand.player.id.clone(), hand.table);
                if is_open(&key.0, key.1) && self.sent.contains(&key) {
                    self.held.insert(key, hand);
                    return None;
                }
                self.held.remove(&key);
                self.sent.insert(key);
                Some(Output::RenderHand(hand))
            }
            Output::DropHand { chat, table, user } => {
                let key = (user.clone(), table);
                self.held.remove(&key);
                self.sent.remove(&key);
                Some(Output::DropHand { chat, table, user })
            }
            Output::RenderTable(view) => {
                if view.phase == Phase::Closed {
                    self.held.retain(|(_, t), _| *t != view.id);
                    self.sent.retain(|(_, t)| *t != view.id);
                }
                Some(Output::RenderTable(view))
            }
            other => Some(other),
        }
    }

    /// The person closed their live view of `table`: their chat hand is
    /// brought up to date, once.
    pub fn on_closed(&mut self, user: &UserId, table: TableId) -> Option<Output> {
        let hand = self.held.remove(&(user.clone(), table))?;
        Some(Output::RenderHand(hand))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::Seat;
    use crate::front::games::front_for;
    use crate::game::{Game, GameKind, GameOptions};
    use crate::i18n::Lang;
    use crate::table::{ChatKey, Player};

    fn hand(game: &Game, version: u64) -> Box<HandView> {
        let seat = Seat::ALL[0];
        Box::new(HandView {
            table: TableId(1),
            chat: ChatKey::Telegram(-5),
            title: "Friday".into(),
            kind: GameKind::Kozel,
            phase: Phase::Playing,
            version,
            seat,
            player: Player::new(UserId::Telegram(7), "Ann", Lang::En),
            away: false,
            game: game.view(seat),
            legal: game.legal_actions(seat),
            your_turn: false,
            deadline: None,
            last_trick: None,
            last_deal: None,
        })
    }

    fn version(o: Option<Output>) -> Option<u64> {
        match o {
            Some(Output::RenderHand(h)) => Some(h.version),
            _ => None,
        }
    }

    /// A hand is held while its person watches live and goes out once (its
    /// latest state) when they close it; a new deal's too: its hand used to
    /// be edited in the chat at every deal's end while the page was open.
    #[test]
    fn hands_are_held_while_watched_and_released_once() {
        let mut game = Game::new(GameKind::Kozel, GameOptions::default(), 3);
        let ann = UserId::Telegram(7);
        let mut hold = HandHold::default();
        let open = |_: &UserId, _: TableId| true;
        // The first hand always goes: the chat must have one.
        assert_eq!(
            version(hold.on_output(Output::RenderHand(hand(&game, 1)), open)),
            Some(1)
        );
        assert_eq!(
            version(hold.on_output(Output::RenderHand(hand(&game, 2)), open)),
            None
        );
        assert_eq!(
            version(hold.on_output(Output::RenderHand(hand(&game, 3)), open)),
            None
        );
        assert_eq!(version(hold.on_closed(&ann, TableId(1))), Some(3));
        assert_eq!(
            version(hold.on_closed(&ann, TableId(1))),
            None,
            "released twice"
        );
        // Not watching: every hand goes.
        let closed = |_: &UserId, _: TableId| false;
        assert_eq!(
            version(hold.on_output(Output::RenderHand(hand(&game, 4)), closed)),
            Some(4)
        );
        // Watching again, then a new deal: held as well.
        assert_eq!(
            version(hold.on_output(Output::RenderHand(hand(&game, 5)), open)),
            None
        );
        let deal = |g: &Game| front_for(&g.view(Seat::ALL[0])).deal_no(&g.view(Seat::ALL[0]));
        let first = deal(&game);
        while deal(&game) == first {
            let s = game.awaiting()[0];
            let a = game.safe_action(s).unwrap();
            game.apply(s, a).unwrap();
        }
        assert_eq!(
            version(hold.on_output(Output::RenderHand(hand(&game, 6)), open)),
            None,
            "a new deal's hand edited in the chat while the page is open"
        );
        assert_eq!(version(hold.on_closed(&ann, TableId(1))), Some(6));
    }
}
