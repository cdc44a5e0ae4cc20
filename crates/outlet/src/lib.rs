//! The one async loop under every platform's output: it feeds a shell's
//! outbox the service's outputs, the handlers' work and its own finished
//! calls, wakes it when its scheduler says, and at a stop lets it drain
//! for a while and record what its messages show. With [`service`], the
//! reads a start makes. Everything here awaits, so that nothing in
//! `kozyr_delivery` does: the decisions are there, the time and the
//! tasks here and in the shells.

pub mod answer;
pub mod dispatch;
pub mod engine;
pub mod hand_tokens;
pub mod in_flight;
pub mod inbox;
pub mod interaction;
pub mod jobs;
pub mod paced;
pub mod service;
pub mod trusted;

use std::future::Future;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};

use kozyr_delivery::content::{RECORD_WAIT, Write};
use kozyr_table::Output;
use kozyr_table::runtime::TableService;

/// A platform's outbox as the driver sees it: inputs in, calls started by
/// `transmit`, each call's end reported back through `finished`.
pub trait Outbox: Send {
    /// Work from the shell's handlers.
    type Local: Send;
    /// A finished platform call.
    type Done: Send;

    // Each input comes with the loop's `now`: the outboxes read no clock.
    fn on_output(&mut self, output: Output, now: Instant) -> impl Future<Output = ()> + Send;
    fn on_local(&mut self, local: Self::Local, now: Instant) -> impl Future<Output = ()> + Send;
    fn on_done(&mut self, done: Self::Done, now: Instant) -> impl Future<Output = ()> + Send;
    /// Starts every call that may go out at `now`.
    fn transmit(&mut self, _now: Instant) {}
    /// When `transmit` has something to start next, as of the loop's
    /// `now` (`None`: nothing waits for a time).
    fn next_wake(&self, _now: Instant) -> Option<Instant> {
        None
    }
    /// Whether nothing waits to go out and no call is in flight.
    fn idle(&self) -> bool;
    /// Where finished calls report.
    fn finished(&mut self) -> &mut mpsc::UnboundedReceiver<Self::Done>;
    /// Records what each message shows, for the next start.
    fn save_shown(&self) -> impl Future<Output = ()> + Send;
}

/// A std mutex whose holder panicked is still usable: every section
/// under this module's locks leaves its map consistent.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts an outbox: made by `make` with the loop's first `now` (its
/// start — everyone counts as seen, every window starts), then run on a
/// task of its own ([`run`]). Returns once it is made, so whatever the
/// start restored is in place before the caller goes on.
pub async fn start<O, F>(
    make: impl FnOnce(Instant) -> F,
    effects: mpsc::UnboundedReceiver<Output>,
    local: mpsc::UnboundedReceiver<O::Local>,
    drain_for: Duration,
) -> Running
where
    O: Outbox + 'static,
    F: Future<Output = O>,
{
    let outbox = make(Instant::now()).await;
    let (stop, stopped) = watch::channel(false);
    let task = tokio::spawn(run(outbox, effects, local, stopped, drain_for));
    Running { task, stop }
}

/// A started outbox's loop.
#[derive(Debug)]
pub struct Running {
    task: tokio::task::JoinHandle<()>,
    stop: watch::Sender<bool>,
}

impl Running {
    /// Stops the loop once what is queued went out (or its drain time
    /// passed) and what the messages show is recorded.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }

    /// [`Running::stop`] for a shell that may own its table service (one
    /// started on its own: tests and tools): the service stops first, so
    /// no timer or AI move queues more while the loop drains, and its
    /// database closes once the loop has recorded what it showed.
    pub async fn stop_with(self, own_service: Option<&TableService>) {
        if let Some(service) = own_service {
            service.shutdown().await;
        }
        self.stop().await;
        if let Some(service) = own_service {
            service.close().await;
        }
    }
}

/// Runs `outbox` until `stop` turns true and it is idle (or `drain_for`
/// passed), then records what its messages show.
pub async fn run<O: Outbox>(
    mut outbox: O,
    mut effects: mpsc::UnboundedReceiver<Output>,
    mut local: mpsc::UnboundedReceiver<O::Local>,
    mut stop: watch::Receiver<bool>,
    drain_for: Duration,
) {
    let mut stopping_since: Option<Instant> = None;
    loop {
        let now = Instant::now();
        outbox.transmit(now);
        if let Some(since) = stopping_since
            && (outbox.idle() || now.duration_since(since) >= drain_for)
        {
            break;
        }
        let wake = outbox.next_wake(now);
        let sleep = async {
            match (wake, stopping_since) {
                (Some(t), _) => tokio::time::sleep_until(t.into()).await,
                (None, Some(_)) => tokio::time::sleep(Duration::from_millis(20)).await,
                (None, None) => std::future::pending().await,
            }
        };
        tokio::select! {
            Some(e) = effects.recv() => outbox.on_output(e, Instant::now()).await,
            Some(l) = local.recv() => outbox.on_local(l, Instant::now()).await,
            Some(d) = outbox.finished().recv() => outbox.on_done(d, Instant::now()).await,
            _ = sleep => {}
            r = stop.changed(), if stopping_since.is_none() => {
                if r.is_err() || *stop.borrow() {
                    stopping_since = Some(Instant::now());
                }
            }
        }
    }
    outbox.save_shown().await;
}

/// Runs `write` (`true`: it landed) on a task of its own and waits for it
/// at most [`RECORD_WAIT`]; past that it goes on without being waited for
/// ([`kozyr_delivery::content`]: the record stays on the safe side).
pub async fn waited(write: impl Future<Output = bool> + Send + 'static) -> Write {
    match tokio::time::timeout(RECORD_WAIT, tokio::spawn(write)).await {
        Ok(Ok(true)) => Write::Landed,
        Ok(_) => Write::Failed,
        Err(_) => Write::Pending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slow_write_is_not_waited_for() {
        assert_eq!(waited(async { true }).await, Write::Landed);
        assert_eq!(waited(async { false }).await, Write::Failed);
        assert_eq!(waited(std::future::pending::<bool>()).await, Write::Pending);
    }
}
