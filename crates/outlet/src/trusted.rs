//! Answers to a platform's questions (is this person an admin here?)
//! trusted for a while, so a burst of commands asks once. Each answer is
//! trusted from when it was asked, not when it came.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Answers by question, each trusted for `trust` since it was asked.
#[derive(Debug)]
pub struct Trusted<K, V> {
    answers: Mutex<HashMap<K, (V, Instant)>>,
    trust: Duration,
    /// Past this many answers, the stale ones are dropped at the next.
    soft_limit: usize,
}

impl<K: Eq + Hash, V: Copy> Trusted<K, V> {
    pub fn new(trust: Duration, soft_limit: usize) -> Self {
        Trusted {
            answers: Mutex::new(HashMap::new()),
            trust,
            soft_limit,
        }
    }

    /// The trusted answer to `question`, else what `ask` answers (kept).
    pub async fn answer(&self, question: K, ask: impl Future<Output = V>) -> V {
        let asked = Instant::now();
        let fresh = |at: &Instant| asked.saturating_duration_since(*at) < self.trust;
        if let Some((answer, at)) = self.lock().get(&question)
            && fresh(at)
        {
            return *answer;
        }
        let answer = ask.await;
        let mut answers = self.lock();
        if answers.len() >= self.soft_limit {
            answers.retain(|_, (_, at)| fresh(at));
        }
        answers.insert(question, (answer, asked));
        answer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, (V, Instant)>> {
        self.answers.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_is_asked_once_while_trusted() {
        let trusted = Trusted::new(Duration::from_secs(60), 8);
        assert!(trusted.answer(1, async { true }).await);
        assert!(
            trusted.answer(1, async { false }).await,
            "trusted: not asked"
        );
        assert!(!trusted.answer(2, async { false }).await);
        let brief = Trusted::new(Duration::ZERO, 8);
        assert!(brief.answer(1, async { true }).await);
        assert!(
            !brief.answer(1, async { false }).await,
            "stale: asked again"
        );
    }
}
