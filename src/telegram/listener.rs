//! Long polling that confirms an update to Telegram only once kozyr has
//! handled it.
//!
//! Telegram forgets the updates below the `offset` of a `getUpdates` call.
//! teloxide's own polling asks for the next batch (and so confirms the last
//! one) while the handlers of the last batch still run: a bot killed then
//! loses the presses it had received but not yet committed. Here the offset
//! never passes an update whose handling has not finished: each update gets
//! an [`UpdateGuard`] when the dispatcher runs its handler tree, and the
//! update counts as handled when the last clone of the guard is dropped
//! (the handler returned, its command committed or refused). A kill in
//! between makes Telegram deliver the update again after the restart, and
//! the table service's de-duplication (by update and callback query id)
//! applies it once.
//!
//! While updates are in flight, `getUpdates` would hand them out again at
//! once; they are skipped here, and the next poll waits until a handler
//! finishes (or 50 ms), so the loop does not spin.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use teloxide::payloads::GetUpdatesSetters;
use teloxide::prelude::*;
use teloxide::stop::{StopFlag, StopToken, mk_stop_token};
use teloxide::types::{AllowedUpdate, Update};
use teloxide::update_listeners::{StatefulListener, UpdateListener};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// An update still in flight this long is taken as handled (a handler that
/// never ends must not hold every later update unconfirmed).
const GIVE_UP_AFTER: Duration = Duration::from_secs(60);

/// How long a poll waits for a handler to finish before asking again.
const RECHECK: Duration = Duration::from_millis(50);

/// How long a stopping listener waits for the handlers in flight before it
/// confirms what was handled.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The updates handed to the dispatcher and not yet handled.
#[derive(Debug, Default)]
pub struct Handled {
    in_flight: Mutex<BTreeMap<u32, Instant>>,
    finished: Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Handled {
    fn begin(&self, id: u32) {
        lock(&self.in_flight).insert(id, Instant::now());
    }

    fn finish(&self, id: u32) {
        if lock(&self.in_flight).remove(&id).is_some() {
            self.finished.notify_waiters();
        }
    }

    /// The oldest update still in flight.
    fn oldest(&self) -> Option<u32> {
        let mut m = lock(&self.in_flight);
        m.retain(|id, since| {
            let keep = since.elapsed() < GIVE_UP_AFTER;
            if !keep {
                tracing::warn!(
                    update = id,
                    "an update was not handled in time; confirming it anyway"
                );
            }
            keep
        });
        m.keys().next().copied()
    }

    /// The guard of update `id`: the update is handled when its last clone
    /// is dropped.
    pub fn guard(self: &Arc<Self>, id: u32) -> UpdateGuard {
        UpdateGuard {
            _held: Arc::new(GuardInner {
                id,
                handled: self.clone(),
            }),
        }
    }
}

#[derive(Debug)]
struct GuardInner {
    id: u32,
    handled: Arc<Handled>,
}

impl Drop for GuardInner {
    fn drop(&mut self) {
        self.handled.finish(self.id);
    }
}

/// Held by the handler tree while an update is handled (a dptree dependency).
#[derive(Clone, Debug)]
pub struct UpdateGuard {
    _held: Arc<GuardInner>,
}

type Item = Result<Update, teloxide::RequestError>;

/// The listener's state, as teloxide's [`StatefulListener`] holds it.
pub struct PollState {
    updates: UnboundedReceiverStream<Item>,
    stop: StopToken,
    hints: Option<Vec<AllowedUpdate>>,
    start: Option<oneshot::Sender<Option<Vec<AllowedUpdate>>>>,
}

/// The stream of updates; the first call (from the dispatcher, after its
/// hints) starts the polling.
fn stream_of(state: &mut PollState) -> &mut UnboundedReceiverStream<Item> {
    if let Some(start) = state.start.take() {
        let _ = start.send(state.hints.take());
    }
    &mut state.updates
}

fn stop_token_of(state: &mut PollState) -> StopToken {
    state.stop.clone()
}

fn hint(state: &mut PollState, hint: &mut dyn Iterator<Item = AllowedUpdate>) {
    state.hints = Some(hint.collect());
}

/// A long-polling listener over `bot` that confirms only handled updates
/// (`handled` is filled by [`Handled::guard`]), and the polling task, which
/// ends after the listener is stopped and the handled updates confirmed.
pub fn polling(
    bot: Bot,
    timeout: Duration,
    handled: Arc<Handled>,
) -> (
    impl UpdateListener<Err = teloxide::RequestError> + use<>,
    JoinHandle<()>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (stop_token, stopped) = mk_stop_token();
    let (start_tx, start_rx) = oneshot::channel();
    let task = tokio::spawn(poll_loop(bot, timeout, handled, tx, stopped, start_rx));
    let listener = StatefulListener::new_with_hints(
        PollState {
            updates: UnboundedReceiverStream::new(rx),
            stop: stop_token,
            hints: None,
            start: Some(start_tx),
        },
        stream_of,
        stop_token_of,
        Some(hint),
    );
    (listener, task)
}

/// The pause after a failed `getUpdates` (teloxide's own backoff: 1 s
/// doubling to 64 s), or Telegram's `retry_after`.
fn backoff(e: &teloxide::RequestError, errors: u32) -> Duration {
    match e {
        teloxide::RequestError::RetryAfter(s) => s.duration(),
        _ => Duration::from_secs(1 << errors.min(6)),
    }
}

async fn poll_loop(
    bot: Bot,
    timeout: Duration,
    handled: Arc<Handled>,
    tx: mpsc::UnboundedSender<Item>,
    stopped: StopFlag,
    start: oneshot::Receiver<Option<Vec<AllowedUpdate>>>,
) {
    tokio::pin!(stopped);
    let mut allowed = tokio::select! {
        a = start => match a { Ok(a) => a, Err(_) => return },
        () = &mut stopped => return,
    };
    // The id after the newest update handed to the dispatcher.
    let mut next: u32 = 0;
    let mut errors = 0;
    'poll: loop {
        let oldest = handled.oldest();
        let offset = oldest.unwrap_or(next);
        // With updates in flight Telegram answers at once anyway.
        let wait = if oldest.is_some() {
            Duration::ZERO
        } else {
            timeout
        };
        let mut req = bot
            .get_updates()
            .offset(offset as i32)
            .timeout(wait.as_secs() as u32);
        if let Some(a) = allowed.take() {
            req = req.allowed_updates(a);
        }
        let finished = handled.finished.notified();
        let result = tokio::select! {
            r = req.send() => r,
            () = &mut stopped => break 'poll,
        };
        crate::metrics::telegram_call("getUpdates", &result); // admin: API call counts
        match result {
            Ok(updates) => {
                errors = 0;
                let mut fresh = 0;
                for u in updates {
                    if u.id.0 < next {
                        continue;
                    }
                    next = u.id.0 + 1;
                    fresh += 1;
                    handled.begin(u.id.0);
                    if tx.send(Ok(u)).is_err() {
                        break 'poll;
                    }
                }
                if oldest.is_some() && fresh == 0 {
                    tokio::select! {
                        () = finished => {}
                        () = tokio::time::sleep(RECHECK) => {}
                        () = &mut stopped => break 'poll,
                    }
                }
            }
            Err(e) => {
                let pause = backoff(&e, errors);
                errors += 1;
                if tx.send(Err(e)).is_err() {
                    break 'poll;
                }
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = &mut stopped => break 'poll,
                }
            }
        }
    }
    // The stream ends; the dispatcher finishes the updates in hand. Then
    // what was handled is confirmed, so that a restart does not see it again.
    drop(tx);
    let since = Instant::now();
    while handled.oldest().is_some() && since.elapsed() < STOP_GRACE {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if let Some(id) = handled.oldest() {
        tracing::warn!(
            update = id,
            "stopping with updates not handled; Telegram will deliver them again"
        );
    }
    let offset = handled.oldest().unwrap_or(next);
    if next > 0
        && let Err(e) = bot
            .get_updates()
            .offset(offset as i32)
            .limit(1)
            .timeout(0)
            .await
    {
        tracing::warn!(error = %e, "could not confirm the last updates to Telegram");
    }
}
