//! The updates a shell handed to its handlers and that are not yet
//! handled: how many wait in a chat (a backlog bound), whether one is
//! still being handled (a redelivery is not handed out twice), the oldest
//! (what may be confirmed to the platform), and a guard whose drop says
//! "handled". An update in flight too long counts as handled, so a handler
//! that never ends cannot hold back every later update.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, oneshot};

use super::lock;

/// An update still in flight this long is taken as handled.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(60);

struct Entry<C> {
    since: Instant,
    /// The chat it came from (the handlers' queue it waits in).
    chat: Option<C>,
    /// Held only to be dropped once it is handled: whoever holds the
    /// receiver is told.
    _done: oneshot::Sender<()>,
}

/// The updates in flight, by the platform's update id `I`, each with its
/// chat `C`.
pub struct InFlight<I, C> {
    updates: Mutex<BTreeMap<I, Entry<C>>>,
    finished: Notify,
}

impl<I, C> Default for InFlight<I, C> {
    fn default() -> Self {
        InFlight {
            updates: Mutex::new(BTreeMap::new()),
            finished: Notify::new(),
        }
    }
}

impl<I, C> fmt::Debug for InFlight<I, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InFlight")
            .field("updates", &lock(&self.updates).len())
            .finish()
    }
}

impl<I: Ord + Copy + fmt::Debug, C: PartialEq> InFlight<I, C> {
    /// Update `id` of `chat` is in flight from now; the receiver resolves
    /// once it is handled (or given up on).
    pub fn begin(&self, id: I, chat: Option<C>) -> oneshot::Receiver<()> {
        let (done, handled) = oneshot::channel();
        let since = Instant::now();
        lock(&self.updates).insert(
            id,
            Entry {
                since,
                chat,
                _done: done,
            },
        );
        handled
    }

    /// Update `id` was handled.
    pub fn finish(&self, id: I) {
        if lock(&self.updates).remove(&id).is_some() {
            self.finished.notify_waiters();
        }
    }

    /// How many updates of `chat` are in flight.
    pub fn in_chat(&self, chat: &C) -> usize {
        lock(&self.updates)
            .values()
            .filter(|e| e.chat.as_ref() == Some(chat))
            .count()
    }

    pub fn contains(&self, id: I) -> bool {
        lock(&self.updates).contains_key(&id)
    }

    /// The oldest update still in flight, after giving up on those in
    /// flight past [`GIVE_UP_AFTER`].
    pub fn oldest(&self) -> Option<I> {
        let mut updates = lock(&self.updates);
        updates.retain(|id, e| {
            let keep = e.since.elapsed() < GIVE_UP_AFTER;
            if !keep {
                tracing::warn!(update = ?id, "an update was not handled in time; taking it as handled");
            }
            keep
        });
        updates.keys().next().copied()
    }

    /// Resolves at the next update handled after the call (create it
    /// before looking at what is in flight, so no finish is missed).
    pub fn finished(&self) -> tokio::sync::futures::Notified<'_> {
        self.finished.notified()
    }

    /// Waits, at most `grace`, until no update is in flight (at a stop:
    /// the handlers finish the updates in hand).
    pub async fn drain(&self, grace: Duration) {
        let drained = async {
            while self.oldest().is_some() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        let _ = tokio::time::timeout(grace, drained).await;
    }
}

impl<I, C> InFlight<I, C>
where
    I: Ord + Copy + fmt::Debug + Send + Sync + 'static,
    C: PartialEq + Send + Sync + 'static,
{
    /// The guard of update `id`: the update is handled when its last clone
    /// is dropped.
    pub fn guard(self: &Arc<Self>, id: I) -> Guard<I, C> {
        Guard {
            _held: Arc::new(GuardInner {
                id,
                in_flight: self.clone(),
            }),
        }
    }
}

struct GuardInner<I: Ord + Copy + fmt::Debug, C: PartialEq> {
    id: I,
    in_flight: Arc<InFlight<I, C>>,
}

impl<I: Ord + Copy + fmt::Debug, C: PartialEq> Drop for GuardInner<I, C> {
    fn drop(&mut self) {
        self.in_flight.finish(self.id);
    }
}

/// Held by the handlers while an update is handled.
pub struct Guard<I: Ord + Copy + fmt::Debug, C: PartialEq> {
    _held: Arc<GuardInner<I, C>>,
}

impl<I: Ord + Copy + fmt::Debug, C: PartialEq> Clone for Guard<I, C> {
    fn clone(&self) -> Self {
        Guard {
            _held: self._held.clone(),
        }
    }
}

impl<I: Ord + Copy + fmt::Debug, C: PartialEq> fmt::Debug for Guard<I, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Guard")
            .field("update", &self._held.id)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_update_is_in_flight_until_its_last_guard_goes() {
        let in_flight: Arc<InFlight<u32, i64>> = Arc::default();
        let mut handled = in_flight.begin(7, Some(-100));
        in_flight.begin(9, None);
        assert_eq!((in_flight.in_chat(&-100), in_flight.oldest()), (1, Some(7)));
        let guard = in_flight.guard(7);
        let second = guard.clone();
        drop(guard);
        assert!(in_flight.contains(7));
        assert_eq!(handled.try_recv(), Err(oneshot::error::TryRecvError::Empty));
        drop(second);
        assert!(!in_flight.contains(7));
        assert!(handled.await.is_err(), "told by the sender's drop");
        assert_eq!((in_flight.in_chat(&-100), in_flight.oldest()), (0, Some(9)));
    }
}
