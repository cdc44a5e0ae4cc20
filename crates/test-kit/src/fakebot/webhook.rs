//! Webhook delivery, as Telegram does it once the bot called `setWebhook`:
//! each queued update is POSTed (JSON, with the secret in
//! `X-Telegram-Bot-Api-Secret-Token`) and counts as delivered only when
//! answered 200; anything else (a refused connection, a time-out, a 403,
//! a 503) is retried, never dropped.
//!
//! Where to: the URLs a test gave ([`super::FakeBot::deliver_to`]: the
//! replicas behind a load balancer), one picked at random per attempt
//! among those that did not fail in the last [`DOWN_FOR`]; without that
//! list, the URL `setWebhook` set, but only when it names this machine
//! (a test's `https://bot.example.org/…` is never dialled: tests do not
//! touch the internet, and such updates stay queued as before).
//!
//! One update at a time, in order: so the updates of one chat arrive in
//! order, as Telegram delivers them. (Telegram keeps up to
//! `max_connections` requests open across chats; one is enough for the
//! tests' pace and keeps the order simple to reason about.) A failed
//! attempt is followed by a pause that doubles from [`RETRY_FIRST`] to
//! [`RETRY_MAX`] while attempts keep failing: Telegram backs off too,
//! though over minutes, not a second.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use rand::RngExt;
use tokio::time::Instant;

use super::http::Shared;
#[cfg(test)]
use super::world::is_local;

/// A URL that failed is passed over this long while another is up.
pub const DOWN_FOR: Duration = Duration::from_secs(1);
/// The pause after the first failed attempt in a row.
pub const RETRY_FIRST: Duration = Duration::from_millis(10);
/// The longest pause between attempts.
pub const RETRY_MAX: Duration = Duration::from_secs(1);
/// How long one POST may take before it counts as failed.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// The pause after `failures` failed attempts in a row.
fn pause_after(failures: u32) -> Duration {
    RETRY_FIRST
        .saturating_mul(1 << failures.saturating_sub(1).min(10))
        .min(RETRY_MAX)
}

/// Delivers the queue by webhook for as long as the fake runs.
pub(crate) async fn deliver(shared: Arc<Shared>) {
    let client = match reqwest::Client::builder().timeout(ANSWER_WITHIN).build() {
        Ok(c) => c,
        Err(e) => {
            tracing::error!("fake Bot API: no HTTP client for webhook delivery: {e}");
            return;
        }
    };
    let mut changes = shared.subscribe();
    let mut down: HashMap<String, Instant> = HashMap::new();
    let mut failures: u32 = 0;
    loop {
        changes.borrow_and_update();
        let due = shared.lock().next_delivery();
        let Some(due) = due else {
            if changes.changed().await.is_err() {
                return;
            }
            continue;
        };
        let now = Instant::now();
        let up: Vec<&String> = due
            .urls
            .iter()
            .filter(|u| {
                down.get(*u)
                    .is_none_or(|at| now.duration_since(*at) >= DOWN_FOR)
            })
            .collect();
        let pool: Vec<&String> = if up.is_empty() {
            due.urls.iter().collect()
        } else {
            up
        };
        let url = pool[rand::rng().random_range(0..pool.len())].clone();
        let mut request = client.post(&url).json(&due.body);
        if let Some(secret) = &due.secret {
            request = request.header("X-Telegram-Bot-Api-Secret-Token", secret);
        }
        let answered = request.send().await.map(|r| r.status().as_u16());
        let delivered = matches!(answered, Ok(200));
        shared.lock().record_delivery(due.id, &url, delivered);
        shared.changed();
        if delivered {
            down.remove(&url);
            failures = 0;
        } else {
            down.insert(url, Instant::now());
            failures += 1;
            tokio::time::sleep(pause_after(failures)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_machine_is_dialled() {
        assert!(is_local("http://127.0.0.1:8443/telegram/hook"));
        assert!(is_local("http://localhost:1/x"));
        assert!(!is_local("https://bot.example.org/telegram/hook"));
        assert!(!is_local("not a url"));
    }

    #[test]
    fn the_pause_doubles_up_to_a_second() {
        assert_eq!(pause_after(1), RETRY_FIRST);
        assert_eq!(pause_after(2), RETRY_FIRST * 2);
        assert_eq!(pause_after(30), RETRY_MAX);
    }
}
