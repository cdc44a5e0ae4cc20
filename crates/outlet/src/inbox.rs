//! The serving process's reader of a platform's inbox
//! ([`kozyr_table::storage::Inbox`]), one for every platform: each
//! waiting row is handed to the shell once, in order, and deleted once the
//! shell says it was handled, so a process killed in between leaves it to
//! the next serving one (whose de-duplication applies it once). The shell
//! only says what a row is ([`Row`]); when to read, what is taken, when a
//! row goes and how a stop ends are decided here.

use std::collections::BTreeSet;
use std::future::Future;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinSet;

use kozyr_table::runtime::{Clock, SystemClock};
use kozyr_table::storage::{Inbox, InboxEntry};

/// How often the inbox is read without a wake-up (a `NOTIFY` lost with its
/// connection, a row left by a process that cannot notify this one).
pub const POLL_EVERY: Duration = Duration::from_millis(500);

/// How many rows one read takes beside those being handled.
const BATCH: u32 = 100;

/// What the shell made of a row.
#[derive(Debug)]
pub enum Row {
    /// Nothing more to do with it (handled at once, unreadable, too old,
    /// refused): deleted now.
    Done,
    /// Being handled: deleted once the sender of this channel is dropped
    /// (or sends).
    Handling(oneshot::Receiver<()>),
    /// Not taken now (the same update is still being handled under
    /// another row): read again at the next look.
    Later,
}

/// The shell's handler is gone: the reader ends.
#[derive(Debug)]
pub struct Gone;

/// Reads `inbox` until `stop` resolves, handing each row not yet taken to
/// `take` with its age (since the receiving process wrote it), oldest
/// first. After `stop`, waits at most `grace` for the rows
/// being handled and deletes those that finished; the rest wait for the
/// next serving process.
pub async fn read(
    inbox: Inbox,
    stop: impl Future<Output = ()>,
    grace: Duration,
    mut take: impl FnMut(InboxEntry, Duration) -> Result<Row, Gone>,
) {
    let mut wakeups = match inbox.wakeups().await {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(platform = inbox.platform().as_str(), error = %e,
                "cannot listen for the inbox; reading it every {POLL_EVERY:?}");
            None
        }
    };
    // Rows taken and not yet deleted. Every read starts at the beginning,
    // since a row committed late may hold a lower `seq` than one read
    // already; handled rows are deleted, so what is read stays short.
    let mut taken = BTreeSet::new();
    let mut handling = JoinSet::new();
    tokio::pin!(stop);
    'reading: loop {
        if let Some(w) = wakeups.as_mut() {
            w.borrow_and_update();
        }
        let limit = BATCH.saturating_add(u32::try_from(taken.len()).unwrap_or(u32::MAX));
        match inbox.after(0, limit).await {
            Ok(rows) => {
                for row in rows {
                    let seq = row.seq;
                    if taken.contains(&seq) {
                        continue;
                    }
                    let age = age_of(&row);
                    match take(row, age) {
                        Ok(Row::Done) => delete(&inbox, seq, &mut taken).await,
                        Ok(Row::Handling(done)) => {
                            taken.insert(seq);
                            handling.spawn(async move {
                                let _ = done.await;
                                seq
                            });
                        }
                        Ok(Row::Later) => {}
                        Err(Gone) => break 'reading,
                    }
                }
            }
            Err(e) => {
                tracing::warn!(platform = inbox.platform().as_str(), error = %e, "cannot read the inbox")
            }
        }
        // Waits for a wake-up, the poll or the stop, deleting rows as they
        // are handled meanwhile. The poll's time is fixed here: rows
        // finishing all the time must not keep putting it off (it is what
        // reads rows whose wake-up was lost).
        let poll_at = tokio::time::Instant::now() + POLL_EVERY;
        loop {
            let woken = async {
                match wakeups.as_mut() {
                    Some(w) => w.changed().await.is_ok(),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                Some(Ok(seq)) = handling.join_next() => {
                    delete(&inbox, seq, &mut taken).await;
                    continue;
                }
                ok = woken => if !ok { wakeups = None },
                () = tokio::time::sleep_until(poll_at) => {}
                () = &mut stop => break 'reading,
            }
            break;
        }
    }
    // The handler goes first: a shell's stream of updates ends with it.
    drop(take);
    let finishing = async {
        while let Some(done) = handling.join_next().await {
            if let Ok(seq) = done {
                delete(&inbox, seq, &mut taken).await;
            }
        }
    };
    let _ = tokio::time::timeout(grace, finishing).await;
    if !taken.is_empty() {
        tracing::warn!(
            platform = inbox.platform().as_str(),
            rows = taken.len(),
            "stopping with inbox rows not handled; the next serving process handles them"
        );
    }
}

/// How long ago the row was written, by the wall clock (the row may come
/// from another process; a clock set back reads as no age).
fn age_of(row: &InboxEntry) -> Duration {
    let now = SystemClock.now().millis();
    Duration::from_millis(u64::try_from(now.saturating_sub(row.received.millis())).unwrap_or(0))
}

/// Deletes a handled row. If that fails it stays taken here (not handled
/// twice by this process) and the next serving process handles it again.
async fn delete(inbox: &Inbox, seq: i64, taken: &mut BTreeSet<i64>) {
    match inbox.done(seq).await {
        Ok(()) => {
            taken.remove(&seq);
        }
        Err(e) => {
            taken.insert(seq);
            tracing::warn!(platform = inbox.platform().as_str(), seq, error = %e,
                "cannot delete a handled inbox row");
        }
    }
}
