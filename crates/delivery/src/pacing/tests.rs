use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

type P = Pacer<&'static str, &'static str, String>;

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// A test clock: `at(1.5)` is 1.5 s after the start.
struct Clock(Instant);

impl Clock {
    fn new() -> Clock {
        Clock(Instant::now())
    }
    fn at(&self, s: f64) -> Instant {
        self.0 + secs(s)
    }
}

fn pacer() -> P {
    Pacer::new(PacerConfig::default())
}

/// Takes everything ready at `now`, answering each with `outcome`;
/// returns what went out as `chat:slot=content` or `chat!content`.
fn drain(p: &mut P, now: Instant, outcome: Outcome) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(tx) = p.poll_transmit(now) {
        out.push(match &tx.output {
            Output::Set { slot, content } => format!("{}:{slot}={content}", tx.ticket.chat),
            Output::Send { content } => format!("{}!{content}", tx.ticket.chat),
        });
        p.on_result(tx.ticket, outcome, now);
    }
    out
}

#[test]
fn latest_content_wins() {
    let c = Clock::new();
    let mut p = pacer();
    for n in 1..=5 {
        p.set("g", "table", format!("v{n}"));
    }
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done), ["g:table=v5"]);
    assert!(p.is_idle(&"g"));
    assert_eq!(p.shown(&"g", &"table").map(String::as_str), Some("v5"));
}

#[test]
fn one_output_per_three_seconds_per_chat() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done), ["g:table=a"]);
    p.set("g", "table", "b".into());
    p.set("h", "table", "x".into());
    // Another chat is not held back by this one.
    assert_eq!(drain(&mut p, c.at(1.0), Outcome::Done), ["h:table=x"]);
    assert_eq!(p.poll_timeout(), Some(Some(c.at(3.0))));
    assert!(drain(&mut p, c.at(2.9), Outcome::Done).is_empty());
    p.set("g", "table", "c".into());
    assert_eq!(drain(&mut p, c.at(3.0), Outcome::Done), ["g:table=c"]);
    assert_eq!(p.poll_timeout(), None);
}

#[test]
fn identical_content_is_not_sent_again() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    let tx = p.poll_transmit(c.at(0.0)).unwrap();
    // While "a" is in flight, asking for "a" again adds nothing.
    p.set("g", "table", "a".into());
    p.on_result(tx.ticket, Outcome::Done, c.at(0.5));
    assert!(p.is_idle(&"g"));
    // Back and forth before anything went out: nothing to do either.
    p.set("g", "table", "b".into());
    p.set("g", "table", "a".into());
    assert!(p.is_idle(&"g"));
    assert!(drain(&mut p, c.at(10.0), Outcome::Done).is_empty());
}

#[test]
fn not_modified_counts_as_shown() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    assert_eq!(
        drain(&mut p, c.at(0.0), Outcome::NotModified),
        ["g:table=a"]
    );
    assert_eq!(p.shown(&"g", &"table").map(String::as_str), Some("a"));
    p.set("g", "table", "a".into());
    assert!(p.is_idle(&"g"));
}

#[test]
fn retry_after_delays_only_its_chat_and_keeps_the_latest() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    p.set("h", "table", "x".into());
    let g = p.poll_transmit(c.at(0.0)).unwrap();
    assert_eq!(g.ticket.chat, "g");
    p.on_result(g.ticket, Outcome::RetryAfter(secs(10.0)), c.at(0.0));
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done), ["h:table=x"]);
    p.set("g", "table", "b".into());
    p.set("h", "table", "y".into());
    assert_eq!(drain(&mut p, c.at(4.0), Outcome::Done), ["h:table=y"]);
    assert!(drain(&mut p, c.at(9.9), Outcome::Done).is_empty());
    assert_eq!(p.poll_timeout(), Some(Some(c.at(10.0))));
    assert_eq!(drain(&mut p, c.at(10.0), Outcome::Done), ["g:table=b"]);
}

#[test]
fn sends_keep_order_and_are_never_dropped() {
    let c = Clock::new();
    let cfg = PacerConfig {
        min_interval: Duration::ZERO,
        ..PacerConfig::default()
    };
    let mut p: P = Pacer::new(cfg);
    p.set("g", "table", "t1".into());
    p.send("g", "deal over".into());
    p.set("g", "table", "t2".into());
    p.send("g", "series over".into());
    let first = p.poll_transmit(c.at(0.0)).unwrap();
    assert_eq!(
        first.output,
        Output::Set {
            slot: "table",
            content: "t2".into()
        }
    );
    // A 429 on the send puts it back at the head of the queue.
    p.on_result(first.ticket, Outcome::Done, c.at(0.0));
    let send = p.poll_transmit(c.at(0.0)).unwrap();
    p.on_result(send.ticket, Outcome::RetryAfter(secs(2.0)), c.at(0.0));
    assert_eq!(
        drain(&mut p, c.at(2.0), Outcome::Done),
        ["g!deal over", "g!series over"]
    );
}

#[test]
fn at_most_twenty_a_minute() {
    let c = Clock::new();
    let mut p = pacer();
    let mut times = Vec::new();
    for i in 0..200 {
        let now = c.at(f64::from(i) * 0.5);
        p.set("g", "table", format!("v{i}"));
        if !drain(&mut p, now, Outcome::Done).is_empty() {
            times.push(i);
        }
    }
    // One output every 3 s (every 6th half-second) exactly fits 20 a minute.
    assert_eq!(times.len(), 34);
    assert!(times.windows(2).all(|w| w[1] - w[0] >= 6));

    let tight = PacerConfig {
        min_interval: Duration::ZERO,
        urgent_interval: Duration::ZERO,
        window: secs(60.0),
        max_per_window: 20,
    };
    let mut p: P = Pacer::new(tight);
    for i in 0..25 {
        p.send("g", format!("m{i}"));
    }
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done).len(), 20);
    // The window, and its margin for the calls' differing latencies.
    assert_eq!(p.poll_timeout(), Some(Some(c.at(60.25))));
    assert!(drain(&mut p, c.at(60.0), Outcome::Done).is_empty());
    assert_eq!(drain(&mut p, c.at(60.25), Outcome::Done).len(), 5);
}

#[test]
fn a_gone_message_is_sent_again_and_failures_are_dropped() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done), ["g:table=a"]);
    p.set("g", "table", "b".into());
    let tx = p.poll_transmit(c.at(3.0)).unwrap();
    p.on_result(tx.ticket, Outcome::Gone, c.at(3.0));
    assert_eq!(p.shown(&"g", &"table"), None);
    // A failed attempt did not use the budget.
    assert_eq!(drain(&mut p, c.at(3.0), Outcome::Failed), ["g:table=b"]);
    assert_eq!(p.shown(&"g", &"table"), None);
    assert!(p.is_idle(&"g"));
}

#[test]
fn stale_tickets_and_forgotten_chats_are_ignored() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    let tx = p.poll_transmit(c.at(0.0)).unwrap();
    let stale = tx.ticket.clone();
    p.on_result(tx.ticket, Outcome::Done, c.at(0.0));
    p.on_result(stale, Outcome::RetryAfter(secs(100.0)), c.at(0.0));
    p.set("g", "table", "b".into());
    assert_eq!(drain(&mut p, c.at(3.0), Outcome::Done), ["g:table=b"]);
    p.set("g", "table", "c".into());
    p.forget(&"g");
    assert_eq!(p.poll_timeout(), None);
    assert!(p.is_idle(&"g"));
}

#[test]
fn migration_moves_the_queue_and_resends_the_table() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("old", "table", "a".into());
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done), ["old:table=a"]);
    p.send("old", "news".into());
    p.migrate(&"old", "new");
    assert!(p.is_idle(&"old"));
    let out = drain(&mut p, c.at(3.0), Outcome::Done);
    assert_eq!(out, ["new:table=a"]);
    assert_eq!(drain(&mut p, c.at(6.0), Outcome::Done), ["new!news"]);
}

/// The most of `times` within any `window`.
fn peak_in(times: &[Instant], window: Duration) -> usize {
    let mut best = 0;
    let mut start = 0;
    for end in 0..times.len() {
        while times[end].duration_since(times[start]) >= window {
            start += 1;
        }
        best = best.max(end + 1 - start);
    }
    best
}

/// A group's table changes every half second; returns when outputs went
/// out between `from` and `to` seconds.
fn busy_group(p: &mut P, c: &Clock, from: u32, to: u32) -> Vec<Instant> {
    let mut times = Vec::new();
    for i in from * 2..to * 2 {
        let now = c.at(f64::from(i) * 0.5);
        p.set("g", "table", format!("v{i}"));
        if !drain(p, now, Outcome::Done).is_empty() {
            times.push(now);
        }
    }
    times
}

#[test]
fn a_restarted_pacer_starts_with_its_windows_spent() {
    let c = Clock::new();
    // A busy group for 88 s (its last output at 87.5 s: 3 s apart, the
    // 21st after the minute and its margin), a kill, and a restart that
    // takes no time: the new pacer knows nothing of the old one's writes,
    // Telegram does.
    let mut before = pacer();
    let mut times = busy_group(&mut before, &c, 0, 88);
    assert_eq!(times.last().copied(), Some(c.at(87.5)));
    let mut after = pacer();
    after.start_spent(c.at(88.0));
    times.extend(busy_group(&mut after, &c, 88, 180));
    assert!(times.len() >= 55, "{} outputs", times.len());
    assert_eq!(peak_in(&times, secs(60.0)), 20);
    // The first output after the restart waits one spacing (and the
    // window's margin: the next half-second step), not a minute.
    assert_eq!(
        times.iter().find(|t| **t >= c.at(88.0)).copied(),
        Some(c.at(91.5))
    );
    // A chat first written long after the start is not held back.
    let mut p = pacer();
    p.start_spent(c.at(0.0));
    p.set("h", "table", "a".into());
    assert_eq!(drain(&mut p, c.at(60.0), Outcome::Done), ["h:table=a"]);
    // A private chat (no window) waits its interval once.
    let mut q: Q = scheduler();
    q.start_spent(c.at(0.0));
    q.set(7, "hand", "a".into());
    assert!(take(&mut q, c.at(0.5)).is_empty());
    assert!(take(&mut q, c.at(1.0)).is_empty(), "with margin");
    assert_eq!(take(&mut q, c.at(1.05)), ["7:a"]);
}

#[test]
fn a_start_with_nothing_recorded_holds_a_private_chat_for_its_interval_only() {
    let c = Clock::new();
    // A process killed just after a private write, before it recorded any
    // message: the next one's first write there still waits the interval.
    let mut q: Q = scheduler();
    q.start_written(c.at(0.0));
    q.set(7, "hand", "a".into());
    assert!(take(&mut q, c.at(1.0)).is_empty(), "with margin");
    assert_eq!(take(&mut q, c.at(1.05)), ["7:a"]);
    // A group's window is not given a phantom write: all 20 places are free.
    let mut p = pacer();
    p.start_written(c.at(0.0));
    p.set("g", "table", "a".into());
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done), ["g:table=a"]);
}

/// A group whose minute was front-loaded: 20 urgent writes 0.5 s apart
/// in its first 10 s, then a restart at 12 s, then a busy table. Returns
/// every write, before and after.
fn front_loaded_then_restarted(restore: impl FnOnce(&P, &mut P, Instant)) -> Vec<Instant> {
    let c = Clock::new();
    let mut before = pacer();
    let mut times = Vec::new();
    for i in 0..20 {
        let now = c.at(f64::from(i) * 0.5);
        before.set_with("g", "table", format!("u{i}"), Priority::Acted);
        assert_eq!(drain(&mut before, now, Outcome::Done).len(), 1);
        times.push(now);
    }
    let mut after = pacer();
    restore(&before, &mut after, c.at(12.0));
    times.extend(busy_group(&mut after, &c, 12, 130));
    times
}

#[test]
fn a_restarted_pacer_knows_the_window_from_the_writes_recorded() {
    // The writes recorded before the kill, restored: the window holds.
    let times = front_loaded_then_restarted(|before, after, _| {
        after.restore_writes("g", before.window_writes(&"g"));
    });
    assert_eq!(peak_in(&times, secs(60.0)), 20);
    // The first write after the restart waits for the minute of the first
    // recorded one to pass (and the margin: the next half-second step),
    // not one spacing.
    let c0 = times[0];
    assert_eq!(times[20].duration_since(c0), secs(60.5));
    // The even guess alone lets the 21st in within the minute: the reason
    // the writes are recorded.
    let guessed = front_loaded_then_restarted(|_, after, now| after.start_spent(now));
    assert!(peak_in(&guessed, secs(60.0)) > 20);
    // A chat without a window records nothing; extra times are cut to the
    // window's count.
    let c = Clock::new();
    let mut q: Q = scheduler();
    q.set(7, "hand", "a".into());
    assert_eq!(take(&mut q, c.at(0.0)).len(), 1);
    assert!(q.window_writes(&7).is_empty());
    let mut p = pacer();
    p.restore_writes("g", (0..30).map(|i| c.at(f64::from(i))));
    assert_eq!(p.window_writes(&"g").len(), 20);
    assert_eq!(p.window_writes(&"g")[0], c.at(10.0));
}

#[test]
fn what_is_shown_is_not_sent_again_and_a_gone_message_is_posted_anew() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    assert_eq!(drain(&mut p, c.at(0.0), Outcome::Done), ["g:table=a"]);
    // Nothing is sent to find out whether a message is still there.
    p.set("g", "table", "a".into());
    assert_eq!(p.poll_timeout(), None, "the same content is not sent again");
    // A change finds the message gone: it goes out again (as a new message).
    p.set("g", "table", "b".into());
    let tx = p.poll_transmit(c.at(3.0)).unwrap();
    assert_eq!(
        tx.output,
        Output::Set {
            slot: "table",
            content: "b".into()
        }
    );
    p.on_result(tx.ticket, Outcome::Gone, c.at(3.0));
    assert_eq!(p.shown(&"g", &"table"), None);
    assert_eq!(drain(&mut p, c.at(6.0), Outcome::Done), ["g:table=b"]);
    assert!(p.is_idle(&"g"));
}

/// A scripted step for the property test.
#[derive(Clone, Debug)]
enum Step {
    Set { chat: usize, slot: usize, value: u8 },
    Send { chat: usize },
    Advance { ms: u64 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..3usize, 0..2usize, 0..4u8).prop_map(|(chat, slot, value)| Step::Set { chat, slot, value }),
        1 => (0..3usize).prop_map(|chat| Step::Send { chat }),
        3 => (0..5000u64).prop_map(|ms| Step::Advance { ms }),
    ]
}

const CHATS: [&str; 3] = ["a", "b", "c"];
const SLOTS: [&str; 2] = ["table", "lobby"];

proptest! {
    /// Against a simulated Telegram that sometimes answers 429: limits hold in every chat, every send arrives once and in
    /// order, identical content is never re-sent, and in the end every slot
    /// shows its latest content.
    #[test]
    fn limits_hold_and_everything_arrives(steps in proptest::collection::vec(step(), 1..120), faults in proptest::collection::vec(0u8..10, 200)) {
        let c = Clock::new();
        let cfg = PacerConfig::default();
        let mut p: P = Pacer::new(cfg);
        let mut now = c.at(0.0);
        let mut latest: BTreeMap<(&str, &str), String> = BTreeMap::new();
        let mut telegram: BTreeMap<(&str, &str), String> = BTreeMap::new();
        let mut sent: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        let mut delivered: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        let mut outputs: BTreeMap<&str, Vec<Instant>> = BTreeMap::new();
        let mut fault = faults.into_iter().cycle();
        let mut n = 0;
        let mut run = |p: &mut P, now: Instant, telegram: &mut BTreeMap<(&'static str, &'static str), String>,
                       delivered: &mut BTreeMap<&'static str, Vec<String>>, outputs: &mut BTreeMap<&'static str, Vec<Instant>>| {
            while let Some(tx) = p.poll_transmit(now) {
                let chat = tx.ticket.chat;
                let outcome = if fault.next() == Some(0) {
                    Outcome::RetryAfter(Duration::from_secs(7))
                } else {
                    outputs.entry(chat).or_default().push(now);
                    match tx.output {
                        Output::Set { slot, content } => {
                            let old = telegram.insert((chat, slot), content.clone());
                            // The pacer never re-sends what Telegram shows.
                            assert_ne!(old.as_ref(), Some(&content), "identical content re-sent");
                            Outcome::Done
                        }
                        Output::Send { content } => {
                            delivered.entry(chat).or_default().push(content);
                            Outcome::Done
                        }
                    }
                };
                p.on_result(tx.ticket, outcome, now);
            }
        };
        for s in steps {
            match s {
                Step::Set { chat, slot, value } => {
                    let v = format!("v{value}");
                    latest.insert((CHATS[chat], SLOTS[slot]), v.clone());
                    p.set(CHATS[chat], SLOTS[slot], v);
                }
                Step::Send { chat } => {
                    n += 1;
                    sent.entry(CHATS[chat]).or_default().push(format!("m{n}"));
                    p.send(CHATS[chat], format!("m{n}"));
                }
                Step::Advance { ms } => now += Duration::from_millis(ms),
            }
            run(&mut p, now, &mut telegram, &mut delivered, &mut outputs);
        }
        // Let everything drain.
        while let Some(t) = p.poll_timeout() {
            now = now.max(t.unwrap_or(now));
            run(&mut p, now, &mut telegram, &mut delivered, &mut outputs);
        }
        prop_assert_eq!(&telegram, &latest);
        prop_assert_eq!(&delivered, &sent);
        for times in outputs.values() {
            for w in times.windows(2) {
                prop_assert!(w[1].duration_since(w[0]) >= cfg.min_interval);
            }
            for w in times.windows(cfg.max_per_window + 1) {
                prop_assert!(w[cfg.max_per_window].duration_since(w[0]) >= cfg.window);
            }
        }
    }
}

/// A scripted step of the restart property test: a render, urgent or
/// not, time passing, or a restart.
#[derive(Clone, Debug)]
enum Life {
    Set {
        chat: usize,
        value: u8,
        urgent: bool,
    },
    Advance {
        ms: u64,
    },
    Restart,
}

fn life() -> impl Strategy<Value = Life> {
    prop_oneof![
        // Mostly urgent renders half a second or so apart in two chats: a
        // window filled early, the case an even guess gets wrong.
        8 => (0..2usize, 0..8u8, prop::bool::weighted(0.8))
            .prop_map(|(chat, value, urgent)| Life::Set { chat, value, urgent }),
        6 => (0..1200u64).prop_map(|ms| Life::Advance { ms }),
        1 => Just(Life::Restart),
    ]
}

proptest! {
    /// Restarts at any step, each new pacer given the writes the old one
    /// recorded (through unix milliseconds, as the store keeps them): no
    /// group ever gets more than its window's writes, urgent ones 0.5 s
    /// apart included, and once quiet every table shows its latest
    /// content.
    #[test]
    fn a_groups_window_holds_across_restarts(steps in proptest::collection::vec(life(), 1..400)) {
        let c = Clock::new();
        let cfg = PacerConfig::default();
        let unix0: i64 = 1_800_000_000_000;
        let unix_of = |now: Instant| unix0 + i64::try_from(now.duration_since(c.at(0.0)).as_millis()).unwrap();
        let mut p: P = Pacer::new(cfg);
        let mut now = c.at(0.0);
        let mut latest: BTreeMap<&str, (String, bool)> = BTreeMap::new();
        let mut telegram: BTreeMap<&str, String> = BTreeMap::new();
        let mut outputs: BTreeMap<&str, Vec<Instant>> = BTreeMap::new();
        let run = |p: &mut P, now: Instant, telegram: &mut BTreeMap<&'static str, String>,
                   outputs: &mut BTreeMap<&'static str, Vec<Instant>>| {
            while let Some(tx) = p.poll_transmit(now) {
                outputs.entry(tx.ticket.chat).or_default().push(now);
                if let Output::Set { content, .. } = &tx.output {
                    telegram.insert(tx.ticket.chat, content.clone());
                }
                p.on_result(tx.ticket, Outcome::Done, now);
            }
        };
        for s in steps {
            match s {
                Life::Set { chat, value, urgent } => {
                    let v = format!("v{value}");
                    latest.insert(CHATS[chat], (v.clone(), urgent));
                    let prio = if urgent { Priority::Acted } else { Priority::Table };
                    p.set_with(CHATS[chat], "table", v, prio);
                }
                Life::Advance { ms } => now += Duration::from_millis(ms),
                Life::Restart => {
                    let mut next: P = Pacer::new(cfg);
                    next.start_spent(now);
                    for chat in CHATS {
                        let ms: Vec<i64> = p.window_writes(&chat).into_iter().map(|t| unix_ms(t, now, unix_of(now))).collect();
                        next.restore_writes(chat, ms.into_iter().map(|m| instant_of(m, now, unix_of(now))));
                        // The new process renders every table again.
                        if let Some((v, _)) = latest.get(chat) && telegram.get(chat) != Some(v) {
                            next.set(chat, "table", v.clone());
                        }
                    }
                    p = next;
                }
            }
            run(&mut p, now, &mut telegram, &mut outputs);
        }
        while let Some(t) = p.poll_timeout() {
            now = now.max(t.unwrap_or(now));
            run(&mut p, now, &mut telegram, &mut outputs);
        }
        for (chat, (v, _)) in &latest {
            prop_assert_eq!(telegram.get(chat), Some(v));
        }
        for times in outputs.values() {
            for w in times.windows(cfg.max_per_window + 1) {
                prop_assert!(w[cfg.max_per_window].duration_since(w[0]) >= cfg.window);
            }
        }
    }
}

// ------------------------------------------------ the bot-wide scheduler --

type Q = Pacer<i64, &'static str, String>;

/// Telegram's limits; chats above 0 are private, the others groups.
fn scheduler() -> Q {
    Pacer::with_limits(Limits::default(), |c| {
        if *c > 0 { Class::Private } else { Class::Group }
    })
}

/// Outputs that go out at `now` (answered Done) as `chat:content`.
fn take(p: &mut Q, now: Instant) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(tx) = p.poll_transmit(now) {
        out.push(match &tx.output {
            Output::Set { content, .. } | Output::Send { content } => {
                format!("{}:{content}", tx.ticket.chat)
            }
        });
        p.on_result(tx.ticket, Outcome::Done, now);
    }
    out
}

#[test]
fn the_whole_bot_stays_within_its_budget() {
    let c = Clock::new();
    let mut p = scheduler();
    for chat in 1..=100 {
        p.set(chat, "hand", format!("h{chat}"));
    }
    // 30 a second, evenly: never more than 30 in a second.
    let mut times = Vec::new();
    let mut now = c.at(0.0);
    while let Some(t) = p.poll_timeout() {
        now = now.max(t.unwrap_or(now));
        for _ in take(&mut p, now) {
            times.push(now);
        }
    }
    assert_eq!(times.len(), 100);
    for w in times.windows(31) {
        assert!(
            w[30].duration_since(w[0]) >= secs(0.999),
            "31 outputs within a second"
        );
    }
    let last = times[99].duration_since(c.at(0.0));
    assert!(last >= secs(3.2) && last <= secs(3.4), "{last:?}");
}

#[test]
fn a_private_chat_gets_one_output_a_second() {
    let c = Clock::new();
    let mut p = scheduler();
    p.set(7, "hand", "a".into());
    assert_eq!(take(&mut p, c.at(0.0)), ["7:a"]);
    p.set(7, "hand", "b".into());
    p.set_with(7, "other", "x".into(), Priority::Turn);
    // Not at exactly one second: Telegram may see the call a few ms
    // earlier and refuse it.
    assert!(take(&mut p, c.at(1.0)).is_empty());
    // The urgent one first; the hand one interval after.
    assert_eq!(take(&mut p, c.at(1.05)), ["7:x"]);
    assert!(take(&mut p, c.at(2.0)).is_empty());
    assert_eq!(take(&mut p, c.at(2.1)), ["7:b"]);
}

/// A write answered late (held up on its way, or the machine busy) may
/// have arrived late too: the chat's next write waits a whole interval
/// from the answer, so two never arrive closer than the interval.
#[test]
fn a_private_chat_counts_its_interval_from_the_answer() {
    let c = Clock::new();
    let mut p = scheduler();
    p.set(7, "hand", "a".into());
    let tx = p.poll_transmit(c.at(0.0)).expect("the first write");
    p.set(7, "hand", "b".into());
    p.on_result(tx.ticket, Outcome::Done, c.at(0.4));
    assert!(take(&mut p, c.at(1.05)).is_empty());
    assert!(take(&mut p, c.at(1.4)).is_empty());
    assert_eq!(take(&mut p, c.at(1.45)), ["7:b"]);
}

#[test]
fn when_the_budget_is_short_the_person_to_act_goes_first() {
    let c = Clock::new();
    let mut p = scheduler();
    let t0 = c.at(0.0);
    // Spend the budget of the moment.
    p.set(1, "hand", "old".into());
    assert_eq!(take(&mut p, t0).len(), 1);
    p.set_with(21, "hand", "others".into(), Priority::Background);
    p.set_with(-1, "table", "table".into(), Priority::Table);
    p.set_with(22, "hand", "acted".into(), Priority::Acted);
    p.set_with(23, "hand", "turn".into(), Priority::Turn);
    let mut order = Vec::new();
    let mut now = t0;
    while let Some(t) = p.poll_timeout() {
        now = now.max(t.unwrap_or(now));
        order.extend(take(&mut p, now));
    }
    assert_eq!(order, ["23:turn", "22:acted", "-1:table", "21:others"]);
}

#[test]
fn a_lower_priority_is_a_head_start_and_no_tier_is_starved() {
    let c = Clock::new();
    let mut p = scheduler();
    let mut now = c.at(0.0);
    // Replies arrive faster than the budget (40/s against 30/s) for 30 s.
    // A group table queued at the start is in their tier: it waits its 3 s
    // head start and the work queued before that, then goes out while the
    // flood goes on. A hand not on turn is of the last tier: it goes
    // after at most `HANDS_EVERY` of the others, not after the flood.
    assert!(p.poll_transmit(now).is_none());
    let mut n = 0;
    let (mut table, mut hand) = (None, None);
    let mut sent = 0;
    while now < c.at(30.0) {
        for _ in 0..2 {
            n += 1;
            p.send_with(1000 + n, format!("t{n}"), Priority::Acted);
        }
        if n == 2 {
            p.set_with(-99, "table", "table".into(), Priority::Table);
            p.set_with(99, "hand", "background".into(), Priority::Background);
        }
        for out in take(&mut p, now) {
            sent += 1;
            match out.as_str() {
                "-99:table" => table = table.or(Some(now)),
                "99:background" => hand = hand.or(Some((now, sent))),
                _ => {}
            }
        }
        now += secs(0.05);
    }
    let table = table.expect("the table went out").duration_since(c.at(0.0));
    assert!(table >= secs(3.0) && table <= secs(15.0), "{table:?}");
    let (_, after) = hand.expect("the hand went out");
    assert!(after <= HANDS_EVERY as usize + 1, "after {after} outputs");
}

#[test]
fn an_urgent_group_output_need_not_wait_three_seconds() {
    let c = Clock::new();
    let mut p = scheduler();
    p.set(-5, "table", "lobby, seat 4 taken".into());
    assert_eq!(take(&mut p, c.at(0.0)), ["-5:lobby, seat 4 taken"]);
    p.set_with(-5, "table", "the game began".into(), Priority::Acted);
    assert!(take(&mut p, c.at(0.4)).is_empty());
    assert_eq!(take(&mut p, c.at(0.5)), ["-5:the game began"]);
    // The ordinary ones keep their three seconds.
    p.set(-5, "table", "trick 1".into());
    assert!(take(&mut p, c.at(3.4)).is_empty());
    assert_eq!(take(&mut p, c.at(3.5)), ["-5:trick 1"]);
}

#[test]
fn content_is_rendered_when_it_goes_out() {
    let c = Clock::new();
    let mut p = scheduler();
    p.set(-1, "table", "60 s left".into());
    let tx = p
        .poll_transmit_with(c.at(0.0), |_, _, _| "60 s left, rendered".into())
        .unwrap();
    assert_eq!(
        tx.output,
        Output::Set {
            slot: "table",
            content: "60 s left, rendered".to_owned()
        }
    );
    p.on_result(tx.ticket, Outcome::Done, c.at(0.0));
    // Rendered again it shows what Telegram shows: nothing goes out, and
    // the budget is not spent.
    p.set(-1, "table", "queued".into());
    assert!(
        p.poll_transmit_with(c.at(5.0), |_, _, _| "60 s left, rendered".into())
            .is_none()
    );
    assert!(p.is_idle(&-1));
}

#[test]
fn sends_are_retried_after_a_429_and_never_lost() {
    let c = Clock::new();
    let mut p = scheduler();
    p.send_with(-3, "welcome".into(), Priority::Acted);
    p.send_with(-3, "help".into(), Priority::Acted);
    let tx = p.poll_transmit(c.at(0.0)).unwrap();
    p.on_result(tx.ticket, Outcome::RetryAfter(secs(5.0)), c.at(0.1));
    assert!(take(&mut p, c.at(4.0)).is_empty());
    let mut out = take(&mut p, c.at(5.1));
    let mut now = c.at(5.1);
    while let Some(t) = p.poll_timeout() {
        now = now.max(t.unwrap_or(now));
        out.extend(take(&mut p, now));
    }
    assert_eq!(out, ["-3:welcome", "-3:help"]);
}

#[test]
fn a_forgotten_slot_starts_afresh_even_with_an_edit_in_flight() {
    let c = Clock::new();
    let mut p = pacer();
    p.set("g", "table", "a".into());
    let tx = p.poll_transmit(c.at(0.0)).unwrap();
    // The table moves to a new message while the old one is being edited.
    p.forget_slot(&"g", &"table");
    p.set("g", "table", "b".into());
    p.on_result(tx.ticket, Outcome::Done, c.at(0.1));
    assert_eq!(p.shown(&"g", &"table"), None);
    // The new message gets the content, even the same as the old showed.
    p.set("g", "table", "a".into());
    // The group's 3 s count from the first edit's answer.
    assert_eq!(drain(&mut p, c.at(3.1), Outcome::Done), ["g:table=a"]);
}

#[test]
fn a_repost_while_an_edit_is_in_flight_sends_everything() {
    let c = Clock::new();
    let mut p = scheduler();
    assert!(p.poll_transmit(c.at(0.0)).is_none());
    p.set_with(-1, "table", "lobby".into(), Priority::Acted);
    let tx = p.poll_transmit(c.at(0.0)).unwrap();
    p.forget_slot(&-1, &"table");
    p.set_with(-1, "menu", "no buttons".into(), Priority::Acted);
    p.send_with(-1, "begins".into(), Priority::Acted);
    p.set_with(-1, "table", "game".into(), Priority::Acted);
    p.on_result(tx.ticket, Outcome::Done, c.at(0.05));
    let mut out = Vec::new();
    let mut now = c.at(0.05);
    while let Some(t) = p.poll_timeout() {
        now = now.max(t.unwrap_or(now));
        out.extend(take(&mut p, now));
    }
    assert_eq!(out, ["-1:no buttons", "-1:begins", "-1:game"]);
}

#[test]
fn the_acting_persons_hand_goes_before_any_backlog() {
    let c = Clock::new();
    let mut p = scheduler();
    let t0 = c.at(0.0);
    assert!(p.poll_transmit(t0).is_none());
    // A backlog of overdue work: a table and other hands queued long ago.
    p.set_with(-1, "table", "old table".into(), Priority::Table);
    for chat in 1..=5 {
        p.set_with(chat, "hand", "old hand".into(), Priority::Background);
    }
    let later = c.at(60.0);
    assert!(p.poll_transmit(later).is_some());
    p.set_with(99, "hand", "your turn".into(), Priority::Turn);
    let next = p.poll_transmit(later + secs(0.04)).unwrap();
    assert_eq!(next.ticket.chat, 99);
}

#[test]
fn turns_beyond_the_budget_leave_the_rest_a_quarter() {
    let c = Clock::new();
    let mut p = scheduler();
    let mut now = c.at(0.0);
    // 40 acting persons' hands a second for 20 s, more than the whole
    // budget; a group table and a lobby waiting all along still go, and
    // the rest gets a quarter of what goes out.
    let (mut n, mut turns, mut others) = (0, 0, 0);
    let mut table_went = None;
    while now < c.at(21.0) {
        for _ in 0..2 {
            n += 1;
            p.set_with(1000 + n, "hand", format!("t{n}"), Priority::Turn);
        }
        if n % 40 == 0 && now < c.at(20.0) {
            p.set_with(-(n / 40), "table", format!("g{n}"), Priority::Table);
        }
        // Everything the budget allows until the next step.
        let next = now + secs(0.05);
        let mut at = now;
        while at < next {
            for out in take(&mut p, at) {
                if out.contains(":t") {
                    turns += 1;
                } else {
                    others += 1;
                    table_went.get_or_insert(at);
                }
            }
            match p.poll_timeout() {
                Some(Some(t)) if t > at => at = t,
                _ => break,
            }
        }
        now = next;
    }
    let went = table_went.expect("a group table went out");
    assert!(went <= c.at(1.5), "{:?}", went.duration_since(c.at(0.0)));
    // 20 tables were queued, one a second; each went out.
    assert_eq!(others, 20);
    assert!(turns >= 3 * others, "{turns} turns, {others} others");
    // And with nothing else waiting, turns take the rest of the budget.
    assert!(turns + others >= 30 * 20, "{turns} + {others}");
}
