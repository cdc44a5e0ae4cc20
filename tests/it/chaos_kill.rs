//! Kill -9 of the whole bot in the middle of a Kozel deal. The fake Bot API
//! server and the four simulated people live in this (parent) process; the
//! bot runs in a child process (this test binary, started again to run this
//! test in child mode) pointed at the fake through `TELOXIDE_API_URL`, with
//! one database both halves use (on the tests' backend). The parent kills
//! the child with SIGKILL at random moments while a move is being pressed,
//! starts it again, and plays on with the buttons already on the screen. At the end: every
//! acknowledged move is in the log exactly once, nothing was applied twice,
//! every callback was answered, the hand messages were edited in place, and
//! a turn timer armed before a kill ran out after the restart.

use std::time::{Duration, Instant};

use kozyr::cards::Seat;
use kozyr::table::{Mover, Phase, Table, TableEvent, TableId};
use kozyr::telegram::bot::Tuning;
use kozyr_loadtest::{Driver, deal_no};
use kozyr_test_kit::fakebot::{FakeBot, FakeBotConfig};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use teloxide::types::MessageId;

use crate::support::store::{Log, TestStore};
use crate::support::telegram::{KillWorld, is_child, parent_runtime, run_child_bot, table_of};
use crate::support::{eventually, fast_tuning};

/// This test's full name, for the child.
const TEST: &str = "chaos_kill::sigkill_of_the_bot_mid_deal_loses_and_repeats_no_move";
/// The shortest turn timer the configuration allows.
const TURN_SECONDS: u64 = 10;
const KILLS: u32 = 5;

#[test]
fn sigkill_of_the_bot_mid_deal_loses_and_repeats_no_move() {
    if is_child() {
        // The service as the bot runs it (AI players with their delay).
        run_child_bot(Tuning {
            service: Tuning::default().service,
            ..fast_tuning()
        });
    } else {
        parent();
    }
}

fn hand_ids(fake: &FakeBot, d: &Driver) -> Vec<Option<MessageId>> {
    (0..4)
        .map(|s| {
            fake.messages(d.dm(s))
                .into_iter()
                .rev()
                .find(|m| m.keyboard.is_some())
                .map(|m| m.id)
        })
        .collect()
}

fn parent() {
    let started = Instant::now();
    parent_runtime().block_on(async {
        let world = KillWorld::new(FakeBotConfig::default(), TURN_SECONDS).await;
        let fake = world.fake.clone();
        let mut bot = Some(world.spawn(TEST));
        let mut driver = Driver::new(fake.clone(), "Kill");
        driver.patience = Duration::from_secs(5);
        driver.open_kozel_table().await.expect("the table starts");
        let store = world.store().await;
        let id: TableId = table_of(&store, &driver).await.id();
        let table = |store: TestStore| async move {
            store.table(id).await.expect("read").expect("the table")
        };
        let first = deal_no(&table(store.clone()).await);
        // The hand messages are out (and their ids stored) before the first
        // kill: a kill between a sendMessage and the storing of its id makes
        // the restarted bot post the hand again (see docs/PERFORMANCE.md).
        fake.wait_for(Duration::from_secs(10), |f| {
            hand_ids(f, &driver)
                .iter()
                .all(Option::is_some)
                .then_some(())
        })
        .await
        .expect("four hands");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let hands = hand_ids(&fake, &driver);

        // A timer armed before a kill runs out after the restart.
        let t = table(store.clone()).await;
        bot.take().expect("running").kill();
        bot = Some(world.spawn(TEST));
        let timed_out = wait_for_version(&store, id, t.version(), TURN_SECONDS + 8).await;
        let by_timer = acted_after(&store, id, t.version()).await;
        assert_eq!(
            by_timer.first().map(|a| (a.1, a.2)),
            Some((t.awaiting()[0], Mover::Timeout)),
            "the timer ran out after the restart"
        );
        let _ = timed_out;

        // Play the deal; kill the bot while some of the moves are pressed.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x6b69_6c6c);
        let mut acked: Vec<(u64, Seat)> = Vec::new();
        let mut kills = 1;
        let mut moves = 0u32;
        loop {
            let t = table(store.clone()).await;
            if t.phase() != Phase::Playing || deal_no(&t) != first {
                break;
            }
            moves += 1;
            let seat = t.awaiting()[0];
            let kill_now = kills < KILLS && moves % 4 == 2;
            let d = driver.clone();
            let tt = t.clone();
            let play = tokio::spawn(async move { d.play_safe(&tt, Duration::ZERO).await });
            if kill_now {
                tokio::time::sleep(Duration::from_millis(rng.random_range(0..60))).await;
                bot.take().expect("running").kill();
                kills += 1;
                // An update is confirmed to Telegram only once handled
                // (`telegram::listener`), so a press being handled at the
                // moment of the kill is delivered again after the restart.
                bot = Some(world.spawn(TEST));
            }
            match play.await.expect("join") {
                Ok(v) => acked.push((v, seat)),
                // Killed between two presses: the person looks again and
                // presses what is on the screen now.
                Err(e) => eprintln!("move at v{} interrupted: {e}", t.version()),
            }
        }
        assert_eq!(kills, KILLS, "the bot was killed {KILLS} times");

        // Nothing lost, nothing twice.
        let acts = acted_after(&store, id, 0).await;
        let mut versions: Vec<u64> = acts.iter().map(|a| a.0).collect();
        versions.dedup();
        assert_eq!(versions.len(), acts.len(), "one move per version");
        for (v, seat) in &acked {
            let next = acts.iter().find(|a| a.0 > *v).expect("an acted event");
            assert_eq!(
                (next.1, next.2),
                (*seat, Mover::Person),
                "the move acknowledged at v{v} is the next in the log"
            );
        }
        let people = acts.iter().filter(|a| a.2 == Mover::Person).count();
        assert!(
            people >= acked.len(),
            "{people} moves by people, {} acknowledged",
            acked.len()
        );
        // The deal ended; its result was announced; every press answered;
        // the hand messages from before the kills were edited in place.
        let end = table(store.clone()).await;
        assert!(end.phase() != Phase::Playing || deal_no(&end) > first);
        fake.wait_for(Duration::from_secs(10), |f| {
            (f.unanswered_callbacks().is_empty()
                && f.messages(driver.group)
                    .iter()
                    .any(|m| m.text.contains("Deal") && m.text.contains("over")))
            .then_some(())
        })
        .await
        .expect("every press answered, the result announced");
        // A hand may be between two edits as the next deal begins (for a
        // moment without buttons): wait for it to settle, then compare.
        let _ = fake
            .wait_for(Duration::from_secs(10), |f| {
                (hand_ids(f, &driver) == hands).then_some(())
            })
            .await;
        assert_eq!(hand_ids(&fake, &driver), hands, "hands edited in place");
        bot.take().expect("running").kill();
        store.close().await;
        drop(driver);
    });
    println!(
        "chaos_kill: {KILLS} kills, ok in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Acted events after `after`: (version, seat, by).
async fn acted_after(store: &TestStore, id: TableId, after: u64) -> Vec<(u64, Seat, Mover)> {
    store
        .events(id)
        .await
        .expect("events")
        .into_iter()
        .filter(|(v, _)| *v > after)
        .filter_map(|(v, e)| match e {
            TableEvent::Acted { seat, by, .. } => Some((v, seat, by)),
            _ => None,
        })
        .collect()
}

async fn wait_for_version(store: &TestStore, id: TableId, after: u64, secs: u64) -> Table {
    let every = Duration::from_millis(50);
    eventually(
        Duration::from_secs(secs),
        every,
        "the table did not move",
        || async {
            let t = store.table(id).await.expect("read").expect("table");
            (t.version() > after).then_some(t)
        },
    )
    .await
}
