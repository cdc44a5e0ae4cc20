//! Live views: which people watch a table through a live connection (the
//! Telegram Mini App, `crate::webapp`), and the news that a table changed.
//!
//! Neutral ground between a live front-end and the chat shells, which must
//! not name each other: the live front-end registers open connections and
//! presses here ([`LiveViews::open`], [`LiveViews::pressed`]) and learns of
//! changes from [`LiveViews::subscribe`]; the chat shell says what changed
//! ([`LiveViews::changed`]) and hears who opened, closed or pressed in a
//! view ([`LiveViews::on_event`]). What follows from that is delivery's:
//! the lane holds a watched person's chat hand and brings it up to date
//! once when the view closes (`crate::delivery::lane`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::watch;

use kozyr_table::{TableId, UserId};

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

/// What happened in a live view, as the chat shell hears it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveEvent {
    /// `user`'s first live view of `table` opened.
    Opened(UserId, TableId),
    /// `user`'s last live view of `table` closed.
    Closed(UserId, TableId),
    /// `user` pressed something in a live view.
    Pressed(UserId),
}

type Listener = Box<dyn Fn(LiveEvent) + Send + Sync>;

/// Who watches what live, and the stream of table changes.
pub struct LiveViews {
    /// Set once the Mini App is served; hands then carry its button.
    app: OnceLock<LiveApp>,
    /// A change counter per watched table: a live view wakes for its own
    /// table only, and changes it has not read yet fold into one.
    watched: Mutex<HashMap<TableId, watch::Sender<u64>>>,
    /// Open connections per (person, table).
    open: Mutex<HashMap<(UserId, TableId), usize>>,
    /// Where the events go (the chat shell, set once at its start; before
    /// that there is no chat hand to hold).
    listener: OnceLock<Listener>,
}

/// An open live connection; dropping it closes it.
pub struct OpenView {
    live: Arc<LiveViews>,
    key: (UserId, TableId),
}

impl Drop for OpenView {
    fn drop(&mut self) {
        let last = {
            let mut open = lock(&self.live.open);
            match open.get_mut(&self.key) {
                Some(n) if *n > 1 => {
                    *n -= 1;
                    false
                }
                Some(_) => {
                    open.remove(&self.key);
                    true
                }
                None => false,
            }
        };
        if last {
            let (user, table) = self.key.clone();
            self.live.tell(LiveEvent::Closed(user, table));
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl LiveViews {
    pub fn new() -> Arc<LiveViews> {
        Arc::new(LiveViews {
            app: OnceLock::new(),
            watched: Mutex::new(HashMap::new()),
            open: Mutex::new(HashMap::new()),
            listener: OnceLock::new(),
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

    /// Sends every later [`LiveEvent`] to `listener` (once; later calls
    /// are ignored). It must not block: it is called where the event
    /// happens.
    pub fn on_event(&self, listener: impl Fn(LiveEvent) + Send + Sync + 'static) {
        let _ = self.listener.set(Box::new(listener));
    }

    fn tell(&self, event: LiveEvent) {
        if let Some(listener) = self.listener.get() {
            listener(event);
        }
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

    /// Says that `table` changed (the chat shell, for every output; also
    /// a live front-end's own renders, such as a card selected, which
    /// never pass through the service's outputs).
    pub fn changed(&self, table: TableId) {
        if let Some(tx) = lock(&self.watched).get(&table) {
            tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// `user` opened a live view of `table`; it stays open while the
    /// returned guard lives.
    pub fn open(self: &Arc<Self>, user: &UserId, table: TableId) -> OpenView {
        let key = (user.clone(), table);
        let first = {
            let mut open = lock(&self.open);
            let n = open.entry(key.clone()).or_insert(0);
            *n += 1;
            *n == 1
        };
        if first {
            self.tell(LiveEvent::Opened(user.clone(), table));
        }
        OpenView {
            live: self.clone(),
            key,
        }
    }

    /// `user` pressed something in a live view.
    pub fn pressed(&self, user: &UserId) {
        self.tell(LiveEvent::Pressed(user.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A person's first view of a table opens it and their last closes
    /// it; presses are told as they come.
    #[test]
    fn the_first_view_opens_and_the_last_closes() {
        let live = LiveViews::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        live.on_event(move |e| lock(&log).push(e));
        let ann = UserId::Telegram(7);
        let one = live.open(&ann, TableId(1));
        let two = live.open(&ann, TableId(1));
        live.pressed(&ann);
        drop(one);
        assert_eq!(
            *lock(&seen),
            vec![
                LiveEvent::Opened(ann.clone(), TableId(1)),
                LiveEvent::Pressed(ann.clone())
            ]
        );
        drop(two);
        assert_eq!(
            lock(&seen).last(),
            Some(&LiveEvent::Closed(ann, TableId(1)))
        );
    }
}
