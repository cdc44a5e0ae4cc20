//! A kill -9 while a deal's result waits in the group's queue, and a storm
//! of them (issue 22). In the storm, the bot (a child process, this test
//! binary again) is killed at random moments, 50 times, while two groups
//! play Kozel through their buttons, against the fake Bot API with
//! Telegram's limits. The fake and the people live in this (parent)
//! process and survive the kills; the fake records every group write with
//! its time, across restarts. At the end: every acknowledged move is in
//! the log exactly once, every deal that ended was announced in its group
//! with the live table posted anew below it, and no group got more than 20
//! writes in any 60 s (nor a 429). The figures go to stdout (see
//! `docs/PERFORMANCE.md`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kozyr::cards::Seat;
use kozyr::delivery::pacing::{BotBudget, PacerConfig};
use kozyr::table::{Mover, Phase, Platform, TableEvent, TableId};
use kozyr::telegram::bot::Tuning;
use kozyr_loadtest::{DriveError, Driver, deal_no};
use kozyr_test_kit::fakebot::{FakeBot, FakeBotConfig};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use tokio::sync::Mutex;

use crate::support::store::{Log, TestStore};
use crate::support::telegram::{KillWorld, is_child, parent_runtime, run_child_bot, table_of};
use crate::support::{eventually, fast_tuning};

/// The tests' full names, for the child.
const STORM: &str = "chaos_storm::a_storm_of_kills_loses_doubles_and_bursts_nothing";
const QUEUED: &str = "chaos_storm::a_result_waiting_in_the_group_queue_survives_a_kill";
const KILLS: u32 = 50;
const WINDOW: Duration = Duration::from_secs(60);

#[test]
fn a_storm_of_kills_loses_doubles_and_bursts_nothing() {
    if is_child() {
        // Telegram's limits as the bot keeps them in production.
        run_child_bot(Tuning {
            group_pacing: PacerConfig::group(),
            private_pacing: PacerConfig::private(),
            budget: BotBudget::TELEGRAM,
            poll_timeout: Duration::from_secs(1),
            drain_for: Duration::from_secs(2),
            ..Tuning::default()
        });
    } else {
        parent();
    }
}

#[test]
fn a_result_waiting_in_the_group_queue_survives_a_kill() {
    if is_child() {
        run_child_bot(fast_tuning());
    } else {
        queued_result();
    }
}

/// What one group's people saw: moves acknowledged (answered without a
/// popup) and refused, by the version they were made at.
#[derive(Default)]
struct Seen {
    acked: Vec<(u64, Seat)>,
    refused: Vec<(u64, Seat)>,
}

/// The people of one group play their safe moves until `stop`.
async fn play(
    store: TestStore,
    d: Driver,
    id: TableId,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(Some(t)) = store.table(id).await else {
            continue;
        };
        if t.phase() != Phase::Playing {
            return;
        }
        let seat = t.awaiting()[0];
        match d.play_safe(&t, Duration::ZERO).await {
            Ok(v) => seen.lock().await.acked.push((v, seat)),
            Err(DriveError::Refused { .. }) => seen.lock().await.refused.push((t.version(), seat)),
            // Killed between two presses, or a hand not redrawn yet: the
            // person looks again and presses what is on the screen now.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Acted events: (version, seat, by).
async fn acts(store: &TestStore, id: TableId) -> Vec<(u64, Seat, Mover)> {
    store
        .events(id)
        .await
        .expect("events")
        .into_iter()
        .filter_map(|(v, e)| match e {
            TableEvent::Acted { seat, by, .. } => Some((v, seat, by)),
            _ => None,
        })
        .collect()
}

/// How many "Deal N is over" messages the group has for each deal.
fn announced(fake: &FakeBot, d: &Driver, deals: u32) -> Vec<usize> {
    let messages = fake.messages(d.group);
    (1..=deals)
        .map(|n| {
            let text = format!("Deal {n} is over");
            messages.iter().filter(|m| m.text.contains(&text)).count()
        })
        .collect()
}

fn parent() {
    let started = Instant::now();
    parent_runtime().block_on(async {
        let world = KillWorld::new(FakeBotConfig::default().telegram_limits(), 0).await;
        let fake = world.fake.clone();
        let mut bot = Some(world.start(STORM).await);
        let store = world.store().await;
        let mut groups = Vec::new();
        for name in ["Storm A", "Storm B"] {
            let mut d = Driver::new(fake.clone(), name);
            d.patience = Duration::from_secs(8);
            d.open_kozel_table().await.expect("the table starts");
            let t = table_of(&store, &d).await;
            groups.push((d, t.id(), deal_no(&t)));
        }

        // Two groups play; the bot is killed at random moments, mostly
        // within a second of its start, now and then after a few seconds.
        let stop = Arc::new(AtomicBool::new(false));
        let mut players = Vec::new();
        let mut seen = Vec::new();
        for (d, id, _) in &groups {
            let s = Arc::new(Mutex::new(Seen::default()));
            seen.push(s.clone());
            players.push(tokio::spawn(play(
                store.clone(),
                d.clone(),
                *id,
                stop.clone(),
                s,
            )));
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0073_746f_726d);
        let storm = Instant::now();
        for k in 0..KILLS {
            let ms = if k % 5 == 4 {
                rng.random_range(2_500..5_000)
            } else {
                rng.random_range(100..1_000)
            };
            tokio::time::sleep(Duration::from_millis(ms)).await;
            drop(bot.take());
            bot = Some(world.start(STORM).await);
        }
        let storm = storm.elapsed();
        // Play on, unharmed, until each group finished a deal.
        for (_, id, first) in &groups {
            eventually(
                Duration::from_secs(60),
                Duration::from_millis(100),
                "a deal ends in each group",
                || async {
                    let t = store.table(*id).await.expect("read").expect("table");
                    (t.phase() != Phase::Playing || deal_no(&t) > *first).then_some(())
                },
            )
            .await;
        }
        stop.store(true, Ordering::Relaxed);
        for p in players {
            let _ = p.await;
        }

        let mut moves = 0;
        let mut lost = 0;
        let mut doubled = 0;
        let mut committed_refused = 0;
        let mut checked_records = 0;
        for ((d, id, _), seen) in groups.iter().zip(&seen) {
            let seen = seen.lock().await;
            let acts = acts(&store, *id).await;
            moves += acts.len();
            // Nothing twice: one move per version.
            let mut versions: Vec<u64> = acts.iter().map(|a| a.0).collect();
            versions.dedup();
            doubled += acts.len() - versions.len();
            // Nothing lost: every acknowledged move is the next in the log.
            for (v, seat) in &seen.acked {
                let next = acts.iter().find(|a| a.0 > *v).map(|a| (a.1, a.2));
                if next != Some((*seat, Mover::Person)) {
                    lost += 1;
                }
            }
            // Refused to the person, yet made (a press delivered again
            // after a kill finds its move done).
            for (v, seat) in &seen.refused {
                let next = acts.iter().find(|a| a.0 > *v).map(|a| a.1);
                if next == Some(*seat) && !seen.acked.iter().any(|a| a.0 == *v) {
                    committed_refused += 1;
                }
            }
            assert!(!seen.acked.is_empty(), "{}: moves were made", d.group);
            // The log is whole: it replays to the stored table, and the
            // deals it holds obey every rule (the independent checker).
            let snapshot = store.table(*id).await.expect("read").expect("table");
            let replayed = store.replay(*id).await.expect("replay").expect("log");
            assert_eq!(replayed, snapshot, "{}: the log replays to the table", d.group);
            let records: Vec<serde_json::Value> = store
                .deal_records(*id)
                .await
                .expect("records")
                .iter()
                .map(|r| serde_json::to_value(r).expect("json"))
                .collect();
            let last_series = records.iter().filter_map(|r| r["series"].as_u64()).max();
            for series in 1..=last_series.unwrap_or(0) {
                let deals: Vec<serde_json::Value> = records
                    .iter()
                    .filter(|r| r["series"] == series)
                    .cloned()
                    .collect();
                let complete =
                    Some(series) < last_series || snapshot.phase() != Phase::Playing;
                crate::kozel_records::check_series(
                    &deals,
                    complete,
                    &mut crate::kozel_records::Coverage::default(),
                );
            }
            checked_records += records.len();
        }

        // Every deal that ended is announced, once or more, with the live
        // table posted anew below the last announcement.
        let mut deals_over = 0;
        let mut announced_twice = 0;
        for (d, id, _) in &groups {
            let t = store.table(*id).await.expect("read").expect("table");
            let over = deal_no(&t) - 1 + u32::from(t.phase() != Phase::Playing);
            deals_over += over;
            let counts = fake
                .wait_for(Duration::from_secs(60), |f| {
                    let c = announced(f, d, over);
                    c.iter().all(|n| *n >= 1).then_some(c)
                })
                .await
                .expect("every deal's result announced");
            announced_twice += counts.iter().filter(|n| **n > 1).count();
            let last = fake
                .messages(d.group)
                .into_iter()
                .rev()
                .find(|m| m.text.contains(&format!("Deal {over} is over")))
                .expect("announced")
                .id;
            eventually(
                Duration::from_secs(30),
                Duration::from_millis(100),
                "the live table posted anew below the result",
                || async {
                    let refs = store.open_message_refs(Platform::Telegram).await.ok()?;
                    let group = d.group.0.to_string();
                    refs.iter()
                        .any(|(t, c, m)| t == id && *c == group && *m > i64::from(last.0))
                        .then_some(())
                },
            )
            .await;
        }

        // No burst above Telegram's group limit across the restarts.
        let peaks: Vec<usize> = groups
            .iter()
            .map(|(d, _, _)| fake.max_outputs_in_window(d.group, WINDOW))
            .collect();
        let hits = fake.limit_hits();
        println!(
            "chaos_storm: {KILLS} kills in {:.0} s; {moves} moves, lost {lost}, doubled {doubled}, \
             committed but refused {committed_refused}; {deals_over} deals over ({checked_records} \
             records obey the rules), results announced twice {announced_twice}; group peak per 60 s {peaks:?}, 429s group {} private {} bot {}",
            storm.as_secs_f64(),
            hits.group,
            hits.private,
            hits.bot,
        );
        assert_eq!((lost, doubled), (0, 0), "every acknowledged move once");
        assert_eq!(committed_refused, 0, "no move that counted was answered as refused");
        assert!(checked_records >= 2, "the finished deals' records were checked");
        assert!(deals_over >= 2, "a deal ended in each group");
        assert!(peaks.iter().all(|p| *p <= 20), "group peaks {peaks:?}");
        assert_eq!(hits.group, 0, "no group write refused for the limit");
        drop(bot.take());
        store.close().await;
    });
    println!(
        "chaos_storm: ok in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// A deal ends while the group's queue holds its result (a 429 with a long
/// `retry_after` on the announcement); the bot is killed then. After the
/// restart the result is announced, and the live table posted anew below.
fn queued_result() {
    parent_runtime().block_on(async {
        let world = KillWorld::new(FakeBotConfig::default(), 0).await;
        let fake = world.fake.clone();
        let mut bot = Some(world.start(QUEUED).await);
        let store = world.store().await;
        let mut d = Driver::new(fake.clone(), "Queued");
        d.patience = Duration::from_secs(10);
        d.open_kozel_table().await.expect("the table starts");
        let t = table_of(&store, &d).await;
        let (id, first) = (t.id(), deal_no(&t));
        // The live table is posted anew when the game begins; the next new
        // message in the group is the deal's result, held back by a 429.
        eventually(
            Duration::from_secs(10),
            Duration::from_millis(20),
            "the live table posted when the game began",
            || async {
                let newest = fake.last_bot_message(d.group)?.id;
                let refs = store.open_message_refs(Platform::Telegram).await.ok()?;
                let group = d.group.0.to_string();
                refs.iter()
                    .any(|(t, c, m)| *t == id && *c == group && *m == i64::from(newest.0))
                    .then_some(())
            },
        )
        .await;
        fake.inject(
            kozyr_test_kit::fakebot::Fault::too_many_requests(60)
                .method("sendMessage")
                .chat(d.group)
                .times(1),
        );
        loop {
            let t = store.table(id).await.expect("read").expect("table");
            if t.phase() != Phase::Playing || deal_no(&t) != first {
                break;
            }
            if let Err(e) = d.play_safe(&t, Duration::ZERO).await {
                eprintln!("move at v{}: {e}", t.version());
            }
        }
        fake.wait_for(Duration::from_secs(10), |f| {
            (f.failures().get("sendMessage").copied().unwrap_or(0) >= 1).then_some(())
        })
        .await
        .expect("the result held back by a 429");
        let over = format!("Deal {first} is over");
        assert!(
            !fake
                .messages(d.group)
                .iter()
                .any(|m| m.text.contains(&over)),
            "not announced before the kill"
        );
        drop(bot.take());
        bot = Some(world.start(QUEUED).await);
        let announced = fake
            .wait_for(Duration::from_secs(20), |f| {
                f.messages(d.group)
                    .into_iter()
                    .find(|m| m.text.contains(&over))
                    .map(|m| m.id)
            })
            .await
            .expect("the result announced after the restart");
        eventually(
            Duration::from_secs(10),
            Duration::from_millis(50),
            "the live table posted anew below the result",
            || async {
                let refs = store.open_message_refs(Platform::Telegram).await.ok()?;
                let group = d.group.0.to_string();
                refs.iter()
                    .any(|(t, c, m)| *t == id && *c == group && *m > i64::from(announced.0))
                    .then_some(())
            },
        )
        .await;
        // Sent once, and no longer owed.
        eventually(
            Duration::from_secs(10),
            Duration::from_millis(50),
            "nothing owed any more",
            || async {
                let owed = store.owed_outputs(Platform::Telegram).await.ok()?;
                owed.is_empty().then_some(())
            },
        )
        .await;
        let n = fake
            .messages(d.group)
            .iter()
            .filter(|m| m.text.contains(&over))
            .count();
        assert_eq!(n, 1, "announced once");
        drop(bot.take());
        store.close().await;
    });
}
