//! Answering a person in time: a platform that wants its first answer
//! within a deadline (Discord's 3 s for an interaction) gets a deferral
//! when the work runs long, and a failed answer is tried again while
//! there is time for it.

use std::future::Future;
use std::time::{Duration, Instant};

use kozyr_delivery::transport::Failure;

/// Runs `work`; if it has not finished after `defer_after` (zero: at
/// once), `defer` goes first, so the platform's deadline is kept. The
/// result, and whether it was deferred.
pub async fn in_time<T, D: Future<Output = ()>>(
    defer_after: Duration,
    work: impl Future<Output = T>,
    defer: impl FnOnce() -> D,
) -> (T, bool) {
    if defer_after.is_zero() {
        defer().await;
        return (work.await, true);
    }
    tokio::pin!(work);
    tokio::select! {
        r = &mut work => (r, false),
        _ = tokio::time::sleep(defer_after) => {
            defer().await;
            (work.await, true)
        }
    }
}

/// Tokio's clock (the same as the system's, but paused in tests).
fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

/// The first pause before a failed answer is tried again; it doubles.
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// Calls `call` until it succeeds, or fails otherwise than
/// [`Failure::Unavailable`] (a 5xx, a connection reset), or the next try
/// would start past `due` (`None`: no time to try again). The last
/// result.
pub async fn retried<T, E, F: Future<Output = Result<T, (Failure, E)>>>(
    due: Option<Instant>,
    mut call: impl FnMut() -> F,
) -> Result<T, (Failure, E)> {
    let mut pause = RETRY_PAUSE;
    loop {
        match call().await {
            Err((Failure::Unavailable, _)) if due.is_some_and(|due| now() + pause < due) => {
                tracing::debug!(retry_in = ?pause, "a call that answers a person failed; trying again");
                tokio::time::sleep(pause).await;
                pause *= 2;
            }
            r => return r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn an_answer_is_tried_again_only_while_there_is_time() {
        let tries = std::cell::Cell::new(0);
        let call = || {
            tries.set(tries.get() + 1);
            async { Err::<(), _>((Failure::Unavailable, ())) }
        };
        // 100 + 200 + 400 ms of pauses fit in a second; the next 800 does not.
        let due = now() + Duration::from_secs(1);
        assert!(retried(Some(due), call).await.is_err());
        assert_eq!(tries.get(), 4);
        // Nothing known of the deadline: one try.
        tries.set(0);
        assert!(retried(None, call).await.is_err());
        assert_eq!(tries.get(), 1);
        // A refusal is final at once.
        let refused = retried(Some(due), || async { Err::<(), _>((Failure::Invalid, ())) });
        assert_eq!(refused.await, Err((Failure::Invalid, ())));
    }

    #[tokio::test(start_paused = true)]
    async fn slow_work_is_deferred_first() {
        let deferred = std::cell::Cell::new(false);
        let defer = || async { deferred.set(true) };
        let (r, late) = in_time(Duration::from_secs(2), async { 7 }, defer).await;
        assert_eq!((r, late, deferred.get()), (7, false, false));
        let slow = async {
            tokio::time::sleep(Duration::from_secs(3)).await;
            8
        };
        let defer = || async { deferred.set(true) };
        let (r, late) = in_time(Duration::from_secs(2), slow, defer).await;
        assert_eq!((r, late, deferred.get()), (8, true, true));
    }
}
