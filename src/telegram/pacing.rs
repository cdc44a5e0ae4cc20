//! Pacing of group output, sans-IO.
//!
//! Telegram lets a bot send or edit about 20 messages a minute in one
//! group, edits included, and answers 429 with `retry_after` beyond that.
//! teloxide's `Throttle` adaptor paces only sends and freezes every chat on
//! a 429, so kozyr paces group output itself, per chat:
//!
//! - a *slot* (the table message, a lobby) shows the latest content only:
//!   newer content replaces content not yet transmitted (latest wins);
//! - content identical to what Telegram already shows is not transmitted;
//! - a chat gets at most one output per `min_interval` (3 s) and at most
//!   `max_per_window` per `window` (20 a minute);
//! - one-off messages (announcements) are queued in order and never dropped;
//! - a 429 delays only its chat, by its `retry_after`;
//! - one output per chat is in flight at a time, so order is kept.
//!
//! The pacer does no IO and reads no clock: time comes in as `now`, work
//! goes out of [`Pacer::poll_transmit`], results come back through
//! [`Pacer::on_result`], and [`Pacer::poll_timeout`] says when to poll next.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use kozyr::telegram::pacing::{Outcome, Output, Pacer, PacerConfig};
//!
//! let mut pacer = Pacer::new(PacerConfig::default());
//! let t0 = Instant::now();
//! pacer.set("group", "table", "deal 1");
//! pacer.set("group", "table", "deal 1, trick 1"); // replaces the first
//! let tx = pacer.poll_transmit(t0).unwrap();
//! assert_eq!(tx.output, Output::Set { slot: "table", content: "deal 1, trick 1" });
//! pacer.on_result(tx.ticket, Outcome::Done, t0);
//!
//! pacer.set("group", "table", "trick 2");
//! assert!(pacer.poll_transmit(t0 + Duration::from_secs(1)).is_none()); // too soon
//! assert_eq!(pacer.poll_timeout(), Some(Some(t0 + Duration::from_secs(3))));
//! ```

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

/// The limits the pacer keeps, per chat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacerConfig {
    /// Least time between two outputs in a chat.
    pub min_interval: Duration,
    pub window: Duration,
    /// Most outputs in a chat within any `window`.
    pub max_per_window: usize,
}

impl Default for PacerConfig {
    /// Telegram's group limits: 20 a minute, one every 3 seconds.
    fn default() -> Self {
        PacerConfig {
            min_interval: Duration::from_secs(3),
            window: Duration::from_secs(60),
            max_per_window: 20,
        }
    }
}

/// What to do in the chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output<S, C> {
    /// Make the slot show `content`: edit its message, or send one if it
    /// has none (yet, or any more).
    Set { slot: S, content: C },
    /// Send a new message with `content`.
    Send { content: C },
}

/// Names a transmission when reporting its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ticket<K> {
    pub chat: K,
    id: u64,
}

/// An output to perform now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit<K, S, C> {
    pub ticket: Ticket<K>,
    pub output: Output<S, C>,
}

/// How a transmission went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Telegram took it.
    Done,
    /// "message is not modified": Telegram already shows it, a success.
    NotModified,
    /// 429: the chat waits this long; the output is retried after.
    RetryAfter(Duration),
    /// The slot's message is gone (deleted, chat history reset): the next
    /// output for the slot must be a new message. The content is retried.
    Gone,
    /// Failed for good (the bot was removed, a bad request): dropped.
    Failed,
}

#[derive(Clone, Debug)]
struct Pending<C> {
    seq: u64,
    content: C,
}

#[derive(Clone, Debug)]
struct Slot<C> {
    /// Content waiting to go out, with its place in the chat's queue.
    wanted: Option<Pending<C>>,
    /// What Telegram shows, as far as the pacer knows.
    shown: Option<C>,
}

#[derive(Clone, Debug)]
struct InFlight<S, C> {
    id: u64,
    seq: u64,
    output: Output<S, C>,
}

#[derive(Clone, Debug)]
struct Chat<S, C> {
    slots: BTreeMap<S, Slot<C>>,
    sends: VecDeque<Pending<C>>,
    in_flight: Option<InFlight<S, C>>,
    blocked_until: Option<Instant>,
    /// Times of the latest outputs, at most `max_per_window` of them.
    recent: VecDeque<Instant>,
    /// This chat's key in the wake index, if it is there.
    indexed: Option<(Wake, u64)>,
}

impl<S, C> Default for Chat<S, C> {
    fn default() -> Self {
        Chat {
            slots: BTreeMap::new(),
            sends: VecDeque::new(),
            in_flight: None,
            blocked_until: None,
            recent: VecDeque::new(),
            indexed: None,
        }
    }
}

impl<S: Ord + Clone, C: Clone + PartialEq> Chat<S, C> {
    /// The earliest queued output: (its sequence number, its slot or None for a send).
    fn next_item(&self) -> Option<(u64, Option<&S>)> {
        let edit = self
            .slots
            .iter()
            .filter_map(|(s, slot)| slot.wanted.as_ref().map(|p| (p.seq, Some(s))))
            .min_by_key(|(seq, _)| *seq);
        let send = self.sends.front().map(|p| (p.seq, None));
        match (edit, send) {
            (Some(e), Some(s)) => Some(if e.0 < s.0 { e } else { s }),
            (e, s) => e.or(s),
        }
    }

    /// When this chat may transmit next, if it has work and nothing in flight.
    fn ready_at(&self, config: &PacerConfig) -> Option<(Wake, u64)> {
        if self.in_flight.is_some() {
            return None;
        }
        let (seq, _) = self.next_item()?;
        let mut at: Option<Instant> = self.blocked_until;
        let mut later = |t: Instant| at = Some(at.map_or(t, |a| a.max(t)));
        if let Some(&last) = self.recent.back() {
            later(last + config.min_interval);
        }
        if config.max_per_window > 0 && self.recent.len() >= config.max_per_window {
            later(self.recent[self.recent.len() - config.max_per_window] + config.window);
        }
        Some((at, seq))
    }

    /// What Telegram will show in `slot` once the output in flight lands.
    fn expected(&self, slot: &S) -> Option<&C> {
        match &self.in_flight {
            Some(InFlight {
                output: Output::Set { slot: s, content },
                ..
            }) if s == slot => Some(content),
            _ => self.slots.get(slot).and_then(|s| s.shown.as_ref()),
        }
    }
}

/// When a chat may transmit: `None` (sorting first) for at once.
type Wake = Option<Instant>;

/// Paces output per chat. `K` names chats, `S` slots within a chat, `C` is
/// the content (compared to skip identical outputs).
#[derive(Clone, Debug)]
pub struct Pacer<K, S, C> {
    config: PacerConfig,
    chats: BTreeMap<K, Chat<S, C>>,
    /// Chats with work they may do, by when: (time, sequence, chat).
    wake: BTreeSet<(Wake, u64, K)>,
    next_seq: u64,
    next_id: u64,
}

impl<K: Ord + Clone, S: Ord + Clone, C: Clone + PartialEq> Pacer<K, S, C> {
    pub fn new(config: PacerConfig) -> Self {
        Pacer {
            config,
            chats: BTreeMap::new(),
            wake: BTreeSet::new(),
            next_seq: 0,
            next_id: 0,
        }
    }

    pub fn config(&self) -> PacerConfig {
        self.config
    }

    /// Chats with output waiting to go out (now or when paced), for metrics.
    pub fn chats_waiting(&self) -> usize {
        self.wake.len()
    }

    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    fn reindex(&mut self, chat: &K) {
        let Some(c) = self.chats.get_mut(chat) else {
            return;
        };
        if let Some((t, seq)) = c.indexed.take() {
            self.wake.remove(&(t, seq, chat.clone()));
        }
        c.indexed = c.ready_at(&self.config);
        if let Some((t, seq)) = c.indexed {
            self.wake.insert((t, seq, chat.clone()));
        }
    }

    /// Makes `slot` in `chat` show `content`, replacing content that has
    /// not gone out yet; nothing happens if Telegram will show it anyway.
    pub fn set(&mut self, chat: K, slot: S, content: C) {
        let seq = self.seq();
        let c = self.chats.entry(chat.clone()).or_default();
        if c.expected(&slot) == Some(&content) {
            if let Some(s) = c.slots.get_mut(&slot) {
                s.wanted = None;
            }
        } else {
            let s = c.slots.entry(slot).or_insert(Slot {
                wanted: None,
                shown: None,
            });
            // Keep the place in the queue; only the content is newer.
            let seq = s.wanted.as_ref().map_or(seq, |p| p.seq);
            s.wanted = Some(Pending { seq, content });
        }
        self.reindex(&chat);
    }

    /// Queues a new message in `chat`; sends are never merged or dropped.
    pub fn send(&mut self, chat: K, content: C) {
        let seq = self.seq();
        self.chats
            .entry(chat.clone())
            .or_default()
            .sends
            .push_back(Pending { seq, content });
        self.reindex(&chat);
    }

    /// The next output to perform at `now`, if any chat may have one.
    /// Call until `None`, then again at [`Pacer::poll_timeout`].
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit<K, S, C>> {
        let (at, seq, chat) = self.wake.first()?.clone();
        if at.is_some_and(|t| t > now) {
            return None;
        }
        self.wake.remove(&(at, seq, chat.clone()));
        let id = self.next_id;
        self.next_id += 1;
        let max = self.config.max_per_window.max(1);
        let c = self.chats.get_mut(&chat)?;
        c.indexed = None;
        let (seq, slot) = c.next_item().map(|(q, s)| (q, s.cloned()))?;
        let output = match slot {
            Some(slot) => {
                let s = c.slots.get_mut(&slot)?;
                let p = s.wanted.take()?;
                Output::Set {
                    slot,
                    content: p.content,
                }
            }
            None => Output::Send {
                content: c.sends.pop_front()?.content,
            },
        };
        c.recent.push_back(now);
        while c.recent.len() > max {
            c.recent.pop_front();
        }
        c.in_flight = Some(InFlight {
            id,
            seq,
            output: output.clone(),
        });
        Some(Transmit {
            ticket: Ticket { chat, id },
            output,
        })
    }

    /// Reports how a transmission went.
    pub fn on_result(&mut self, ticket: Ticket<K>, outcome: Outcome, now: Instant) {
        let Some(c) = self.chats.get_mut(&ticket.chat) else {
            return;
        };
        let Some(flight) = c.in_flight.take_if(|f| f.id == ticket.id) else {
            return;
        };
        let unrecord = |c: &mut Chat<S, C>| {
            c.recent.pop_back();
        };
        match (outcome, flight.output) {
            (Outcome::Done | Outcome::NotModified, Output::Set { slot, content }) => {
                if let Some(s) = c.slots.get_mut(&slot) {
                    if s.wanted.as_ref().is_some_and(|p| p.content == content) {
                        s.wanted = None;
                    }
                    s.shown = Some(content);
                }
            }
            (Outcome::Done | Outcome::NotModified, Output::Send { .. }) => {}
            (Outcome::RetryAfter(d), output) => {
                unrecord(c);
                c.blocked_until = Some(c.blocked_until.map_or(now + d, |b| b.max(now + d)));
                match output {
                    Output::Set { slot, content } => {
                        if let Some(s) = c.slots.get_mut(&slot) {
                            // Newer content keeps waiting, at the old place.
                            match &mut s.wanted {
                                Some(p) => p.seq = p.seq.min(flight.seq),
                                None => {
                                    s.wanted = Some(Pending {
                                        seq: flight.seq,
                                        content,
                                    })
                                }
                            }
                        }
                    }
                    Output::Send { content } => c.sends.push_front(Pending {
                        seq: flight.seq,
                        content,
                    }),
                }
            }
            (Outcome::Gone, Output::Set { slot, content }) => {
                unrecord(c);
                if let Some(s) = c.slots.get_mut(&slot) {
                    s.shown = None;
                    if s.wanted.is_none() {
                        s.wanted = Some(Pending {
                            seq: flight.seq,
                            content,
                        });
                    }
                }
            }
            (Outcome::Gone | Outcome::Failed, _) => unrecord(c),
        }
        self.reindex(&ticket.chat);
    }

    /// When a chat may next transmit: `Some(None)` at once, `Some(Some(t))`
    /// at `t`, `None` when nothing waits (or only behind outputs in flight).
    pub fn poll_timeout(&self) -> Option<Option<Instant>> {
        self.wake.first().map(|(t, _, _)| *t)
    }

    /// What the pacer believes `slot` shows in `chat`.
    pub fn shown(&self, chat: &K, slot: &S) -> Option<&C> {
        self.chats.get(chat)?.slots.get(slot)?.shown.as_ref()
    }

    /// Whether anything waits or is in flight for `chat`.
    pub fn is_idle(&self, chat: &K) -> bool {
        self.chats
            .get(chat)
            .is_none_or(|c| c.in_flight.is_none() && c.next_item().is_none())
    }

    /// Drops everything about `chat` (the bot left it, the table closed).
    pub fn forget(&mut self, chat: &K) {
        if let Some(c) = self.chats.remove(chat)
            && let Some((t, seq)) = c.indexed
        {
            self.wake.remove(&(t, seq, chat.clone()));
        }
    }

    /// A group became a supergroup: its queue moves to the new id. The new
    /// chat shows nothing yet, so every slot is sent anew.
    pub fn migrate(&mut self, from: &K, to: K) {
        let Some(mut c) = self.chats.remove(from) else {
            return;
        };
        if let Some((t, seq)) = c.indexed.take() {
            self.wake.remove(&(t, seq, from.clone()));
        }
        if let Some(f) = c.in_flight.take() {
            match f.output {
                Output::Set { slot, content } => {
                    if let Some(s) = c.slots.get_mut(&slot)
                        && s.wanted.is_none()
                    {
                        s.wanted = Some(Pending {
                            seq: f.seq,
                            content,
                        });
                    }
                }
                Output::Send { content } => c.sends.push_front(Pending {
                    seq: f.seq,
                    content,
                }),
            }
            c.recent.pop_back();
        }
        for s in c.slots.values_mut() {
            if s.wanted.is_none() {
                s.wanted = s.shown.take().map(|content| Pending { seq: 0, content });
            }
            s.shown = None;
        }
        match self.chats.get_mut(&to) {
            // The bot already wrote to the new chat: what it queued there
            // stays, the old chat's work joins it.
            Some(existing) => {
                for (slot, s) in c.slots {
                    let e = existing.slots.entry(slot).or_insert(Slot {
                        wanted: None,
                        shown: None,
                    });
                    if e.wanted.is_none() && e.shown.is_none() {
                        e.wanted = s.wanted;
                    }
                }
                let mut sends: Vec<_> = existing.sends.drain(..).chain(c.sends).collect();
                sends.sort_by_key(|p| p.seq);
                existing.sends = sends.into();
            }
            None => {
                self.chats.insert(to.clone(), c);
            }
        }
        self.reindex(&to);
    }
}

#[cfg(test)]
mod tests;
