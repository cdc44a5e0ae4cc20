//! How many presses a person, and a chat, may have accepted: one
//! person's flood is answered "too fast" at once and never reaches the
//! tables, so it cannot hold up another chat. Sans-IO (time is an input);
//! each shell's intake applies it before its handlers see a press
//! (Telegram's listener, Discord's interaction handler, the Mini App's
//! press route).

use std::collections::HashMap;
use std::time::Instant;

/// A steady rate with a burst: a token bucket's refill and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub per_second: f64,
    pub burst: f64,
}

/// A token bucket's state: `tokens` left at `at`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn level(&self, rate: Rate, now: Instant) -> f64 {
        let refill = now.saturating_duration_since(self.at).as_secs_f64() * rate.per_second;
        (self.tokens + refill).min(rate.burst)
    }
}

/// Past this many buckets, the full ones (idle people and chats) are
/// forgotten: a full bucket and a missing one admit the same.
const BUCKETS_SOFT_LIMIT: usize = 4096;

/// The rates of accepted presses, per person and per chat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PressRates {
    pub person: Rate,
    pub chat: Rate,
}

impl PressRates {
    /// Four people play at a table; a person presses a few cards and a
    /// move within a second or two. A person may press 5 times a second
    /// (10 at once), a chat 20 times (40 at once).
    pub const PEOPLE: PressRates = PressRates {
        person: Rate {
            per_second: 5.0,
            burst: 10.0,
        },
        chat: Rate {
            per_second: 20.0,
            burst: 40.0,
        },
    };

    /// No limit a test driver pressing at machine speed would reach.
    pub const UNLIMITED: PressRates = PressRates {
        person: Rate {
            per_second: 1e9,
            burst: 1e9,
        },
        chat: Rate {
            per_second: 1e9,
            burst: 1e9,
        },
    };
}

/// How many presses a person, and a chat, may have accepted: a bucket per
/// person and per chat, with time as an input (sans-IO). A press takes a
/// token from both; one that finds either empty is refused and takes none.
#[derive(Debug)]
pub struct PressLimits {
    person: Rate,
    chat: Rate,
    people: HashMap<u64, Bucket>,
    chats: HashMap<i64, Bucket>,
}

impl PressLimits {
    pub fn new(person: Rate, chat: Rate) -> PressLimits {
        PressLimits {
            person,
            chat,
            people: HashMap::new(),
            chats: HashMap::new(),
        }
    }

    /// Whether a press by `person` in `chat` at `now` is accepted.
    pub fn admit(&mut self, person: u64, chat: i64, now: Instant) -> bool {
        let full = |rate: Rate| Bucket {
            tokens: rate.burst,
            at: now,
        };
        let p = self
            .people
            .get(&person)
            .copied()
            .unwrap_or(full(self.person));
        let c = self.chats.get(&chat).copied().unwrap_or(full(self.chat));
        let (p_level, c_level) = (p.level(self.person, now), c.level(self.chat, now));
        if p_level < 1.0 || c_level < 1.0 {
            return false;
        }
        self.people.insert(
            person,
            Bucket {
                tokens: p_level - 1.0,
                at: now,
            },
        );
        self.chats.insert(
            chat,
            Bucket {
                tokens: c_level - 1.0,
                at: now,
            },
        );
        if self.people.len() + self.chats.len() > BUCKETS_SOFT_LIMIT {
            let (person_rate, chat_rate) = (self.person, self.chat);
            self.people
                .retain(|_, b| b.level(person_rate, now) < person_rate.burst);
            self.chats
                .retain(|_, b| b.level(chat_rate, now) < chat_rate.burst);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_person_and_a_chat_each_have_a_rate() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut limits = PressLimits::new(
            Rate {
                per_second: 2.0,
                burst: 3.0,
            },
            Rate {
                per_second: 1.0,
                burst: 4.0,
            },
        );
        // A person's burst, then nothing until a token comes back.
        assert!((0..3).all(|_| limits.admit(1, 10, at(0))));
        assert!(!limits.admit(1, 10, at(0)));
        assert!(!limits.admit(1, 10, at(400)));
        // Another person in the same chat: the chat has one press left.
        assert!(limits.admit(2, 10, at(400)));
        assert!(!limits.admit(2, 10, at(400)));
        // Elsewhere they are free; a refused press took no token.
        assert!(limits.admit(2, 11, at(400)));
        assert!(limits.admit(1, 10, at(1400)));
    }
}
