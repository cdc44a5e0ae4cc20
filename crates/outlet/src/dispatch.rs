//! Updates handed to their handlers: one chat's in the order they came,
//! each after the one before it finished, and different chats' at once,
//! so a slow chat holds up no other. Each handler runs on a task of its
//! own; nothing is queued beyond what the shell hands over (its intake
//! bounds a chat's backlog, `kozyr_delivery::polling::admit`).

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::lock;

/// The last handler handed over in a chat: the next one waits for it.
struct Tail {
    number: u64,
    finished: oneshot::Receiver<()>,
}

/// A handler ended: the next in its chat goes (the sender's drop tells
/// it), and a chat with none waiting is forgotten.
struct Done<K: Eq + Hash> {
    tails: Arc<Mutex<HashMap<K, Tail>>>,
    chat: K,
    number: u64,
    _finish: oneshot::Sender<()>,
}

impl<K: Eq + Hash> Drop for Done<K> {
    fn drop(&mut self) {
        let mut tails = lock(&self.tails);
        if tails
            .get(&self.chat)
            .is_some_and(|t| t.number == self.number)
        {
            tails.remove(&self.chat);
        }
    }
}

/// Runs handlers in order per chat `K`.
pub struct PerChat<K> {
    tails: Arc<Mutex<HashMap<K, Tail>>>,
    numbers: AtomicU64,
}

impl<K> Default for PerChat<K> {
    fn default() -> Self {
        PerChat {
            tails: Arc::default(),
            numbers: AtomicU64::new(0),
        }
    }
}

impl<K: Eq + Hash + Clone + Send + 'static> PerChat<K> {
    /// Runs `handler` once every handler handed over before it in `chat`
    /// has finished (ended or panicked); with no chat, at once.
    pub fn run(&self, chat: Option<K>, handler: impl Future<Output = ()> + Send + 'static) {
        let Some(chat) = chat else {
            tokio::spawn(handler);
            return;
        };
        let number = self.numbers.fetch_add(1, Ordering::Relaxed);
        let (finish, finished) = oneshot::channel();
        let before = lock(&self.tails)
            .insert(chat.clone(), Tail { number, finished })
            .map(|t| t.finished);
        let done = Done {
            tails: self.tails.clone(),
            chat,
            number,
            _finish: finish,
        };
        tokio::spawn(async move {
            if let Some(before) = before {
                // Its sender is dropped as it ends, or panics: either way
                // this one goes on.
                let _ = before.await;
            }
            // Dropped when the handler ends, or panics.
            let _done = done;
            handler.await;
        });
    }

    /// How many chats have a handler running or waiting.
    pub fn busy_chats(&self) -> usize {
        lock(&self.tails).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::sync::mpsc;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_chats_handlers_run_in_order_and_other_chats_do_not_wait() {
        let chats = PerChat::default();
        let (said, mut heard) = mpsc::unbounded_channel();
        // Chat 1's first handler is slow; its second must still come after
        // it, while chat 2 and a chatless one are not held up.
        for (chat, n, pause) in [
            (Some(1), 1, 300),
            (Some(1), 2, 0),
            (Some(2), 3, 0),
            (None, 4, 0),
        ] {
            let said = said.clone();
            chats.run(chat, async move {
                tokio::time::sleep(Duration::from_millis(pause)).await;
                let _ = said.send(n);
            });
        }
        drop(said);
        let mut order = Vec::new();
        while let Some(n) = heard.recv().await {
            order.push(n);
        }
        let at = |n| order.iter().position(|&m| m == n).unwrap();
        assert!(at(1) < at(2), "chat 1 in order: {order:?}");
        assert!(at(3) < at(1) && at(4) < at(1), "others first: {order:?}");
        // Done: nothing is kept of any chat.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(chats.busy_chats(), 0);
    }

    #[tokio::test]
    async fn a_handler_that_panics_does_not_stop_its_chat() {
        let chats = PerChat::default();
        let (said, heard) = oneshot::channel();
        chats.run(Some(1), async { panic!("a handler failed") });
        chats.run(Some(1), async move {
            let _ = said.send(());
        });
        tokio::time::timeout(Duration::from_secs(5), heard)
            .await
            .expect("the next handler ran")
            .unwrap();
    }
}
