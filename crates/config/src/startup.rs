//! Start-up against a chat platform that may not be reachable yet. A bot
//! started with the machine (or a container restarted by Docker) often
//! comes up before the network or DNS does; exiting at once would leave it
//! to a restart policy, or stopped. So the first call is retried with
//! back-off, each attempt logged, and only what waiting cannot fix — a
//! token the platform refuses — ends the start with a message saying what
//! to do. Names no platform: each shell says which of its errors are
//! final (Telegram's `getMe` in `telegram::bot`).

use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// Pauses between attempts: `first`, doubling, at most `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    pub first: Duration,
    pub max: Duration,
}

impl Default for Backoff {
    /// 1 s, 2 s, 4 s … then every 60 s: quick while the network comes up,
    /// quiet during a long outage.
    fn default() -> Backoff {
        Backoff {
            first: Duration::from_secs(1),
            max: Duration::from_secs(60),
        }
    }
}

impl Backoff {
    /// The pause after failed attempt `attempt` (1-based).
    pub fn pause(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(20);
        self.first
            .saturating_mul(1u32 << doublings)
            .min(self.max.max(self.first))
    }
}

/// What to do about a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Try again, after at least this long if the platform said so.
    Retry { at_least: Option<Duration> },
    /// Retrying cannot help.
    Fatal,
}

/// Runs `op` until it succeeds or fails with an error `verdict` calls
/// fatal, pausing per `backoff` and logging each failed attempt.
pub async fn retry<T, E, F, Fut>(
    what: &str,
    backoff: Backoff,
    mut op: F,
    verdict: impl Fn(&E) -> Verdict,
) -> Result<T, E>
where
    E: Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut attempt = 0u32;
    loop {
        attempt = attempt.saturating_add(1);
        let error = match op().await {
            Ok(v) => {
                if attempt > 1 {
                    tracing::info!(attempt, "{what}: succeeded");
                }
                return Ok(v);
            }
            Err(e) => e,
        };
        let pause = match verdict(&error) {
            Verdict::Fatal => return Err(error),
            Verdict::Retry { at_least } => backoff.pause(attempt).max(at_least.unwrap_or_default()),
        };
        tracing::warn!(
            attempt,
            retry_in_s = pause.as_secs_f64(),
            error = %error,
            "{what} failed; retrying"
        );
        tokio::time::sleep(pause).await;
    }
}

/// Why a running shell cannot go on, once a part of it learns it (a
/// platform closed its connection for good): the first reason is kept,
/// and the process stops and says why rather than run on deaf.
#[derive(Clone, Default)]
pub struct Fatal(Arc<watch::Sender<Option<String>>>);

impl Fatal {
    /// Records the first reason; later ones add nothing.
    pub fn raise(&self, why: String) {
        self.0.send_if_modified(|w| {
            let first = w.is_none();
            if first {
                *w = Some(why);
            }
            first
        });
    }

    /// Waits for a reason.
    pub async fn wait(&self) -> String {
        let mut rx = self.0.subscribe();
        let why = rx.wait_for(Option::is_some).await.map(|w| w.clone());
        match why {
            Ok(why) => why.unwrap_or_default(),
            // Never: `self` keeps the sender.
            Err(_) => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn the_first_fatal_reason_is_the_one_told() {
        let fatal = Fatal::default();
        let waiting = tokio::spawn({
            let fatal = fatal.clone();
            async move { fatal.wait().await }
        });
        fatal.raise("the token was refused".into());
        fatal.raise("a shard closed too".into());
        assert_eq!(waiting.await.unwrap(), "the token was refused");
        assert_eq!(fatal.wait().await, "the token was refused");
    }

    #[test]
    fn pauses_double_up_to_the_cap() {
        let b = Backoff::default();
        let secs: Vec<u64> = (1..=9).map(|a| b.pause(a).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(b.pause(u32::MAX), Duration::from_secs(60));
    }

    #[tokio::test]
    async fn retries_until_success_and_stops_on_a_fatal_error() {
        let calls = AtomicU32::new(0);
        let backoff = Backoff {
            first: Duration::from_millis(5),
            max: Duration::from_millis(20),
        };
        let started = std::time::Instant::now();
        let r: Result<u32, String> = retry(
            "test",
            backoff,
            || async {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                if n < 4 {
                    Err(format!("down {n}"))
                } else {
                    Ok(n)
                }
            },
            |_| Verdict::Retry { at_least: None },
        )
        .await;
        assert_eq!(r, Ok(4));
        // Paused 5 + 10 + 20 ms.
        assert!(started.elapsed() >= Duration::from_millis(35));

        let calls = AtomicU32::new(0);
        let r: Result<(), String> = retry(
            "test",
            backoff,
            || async {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                Err(if n == 2 {
                    "fatal".into()
                } else {
                    "again".into()
                })
            },
            |e: &String| {
                if e == "fatal" {
                    Verdict::Fatal
                } else {
                    Verdict::Retry {
                        at_least: Some(Duration::from_millis(30)),
                    }
                }
            },
        )
        .await;
        assert_eq!(r, Err("fatal".into()));
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }
}
