//! Three `kozyr run` processes (replicas) on one throwaway PostgreSQL serve
//! one bot against the fake Bot API with Telegram's limits: one serves, two
//! stand by (`kozyr healthcheck` tells them apart), and the serving one is
//! killed with SIGKILL again and again while three groups play (two press
//! their moves, the third lets its turn timers run out). Each killed
//! replica is started again at once, as a standby. At the end: every
//! acknowledged move is in the log exactly once, no move is doubled, no
//! timer fired twice, no group or bot-wide limit was exceeded, the logs
//! replay to the tables and the finished deals obey the rules. The figures
//! (kills, moves, lost, doubled, time to take over) go to stdout.

use kozyr::store::Queries;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kozyr::store::{PgStore, StoreOptions};
use kozyr::table::Phase;
use kozyr_loadtest::deal_no;
use kozyr_test_kit::fakebot::{FakeBot, FakeBotConfig};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::support::eventually;
use crate::support::postgres::fresh_url;
use crate::support::replicas::{
    Checked, Replica, check_groups, free_port, healthcheck, open_groups, serving_after,
    serving_after_but, start_players,
};

const TOKEN: &str = "123456:REPLICAS-fake-token-kozyr-replica-tests-0123";
const KILLS: u32 = 30;
const REPLICAS: usize = 3;
/// The shortest turn timer the configuration allows.
const TURN_SECONDS: &str = "10";
const WINDOW: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_serving_replica_again_and_again_loses_doubles_and_bursts_nothing() {
    let started = Instant::now();
    let url = fresh_url();
    let fake = Arc::new(
        FakeBot::start_with(FakeBotConfig {
            token: TOKEN.into(),
            ..FakeBotConfig::default().telegram_limits()
        })
        .await
        .expect("fake"),
    );
    let dir = tempfile::tempdir().unwrap();
    let api = fake.api_url().to_string();
    let env: Vec<(&str, &str)> = vec![
        ("TELOXIDE_TOKEN", TOKEN),
        ("TELOXIDE_API_URL", &api),
        ("DATABASE_URL", &url),
        ("KOZYR_TURN_SECONDS", TURN_SECONDS),
        ("RUST_LOG", "warn,kozyr::replica=info"),
    ];
    let mut replicas: Vec<Replica> = (0..REPLICAS)
        .map(|n| Replica::start(&dir, n, &env))
        .collect();

    // One serves, the others stand by; the health check tells them apart
    // and passes for all three.
    let (mut serving, _) = serving_after(&mut replicas, started).await;
    for (i, r) in replicas.iter().enumerate() {
        let want = if i == serving {
            "up and serving"
        } else {
            "up, standing by"
        };
        let health = r.health.clone();
        let said = eventually(
            Duration::from_secs(20),
            Duration::from_millis(50),
            "each replica's health check says its role",
            || {
                let said = healthcheck(&dir, &url, &health);
                std::future::ready((said == (true, want.to_owned())).then_some(said))
            },
        )
        .await;
        assert_eq!(said, (true, want.to_owned()));
    }
    for r in &mut replicas {
        r.read();
    }
    let standing = replicas.iter().filter(|r| r.standing_by).count();
    assert_eq!(standing, REPLICAS - 1, "the others said they stand by");

    let store = PgStore::open_existing(&StoreOptions::new(&url))
        .await
        .expect("the test's own connection");
    let groups = open_groups(&fake, &store, &["Replica A", "Replica B", "Replica C"]).await;

    // Two groups play; the third waits for its turn timers.
    let stop = Arc::new(AtomicBool::new(false));
    let (players, seen) = start_players(&store, &groups[..2], &stop);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x7265_706c_6963_6173);
    let mut takeovers = Vec::new();
    let storm = Instant::now();
    for _ in 0..KILLS {
        tokio::time::sleep(Duration::from_millis(rng.random_range(300..1_500))).await;
        for (i, r) in replicas.iter_mut().enumerate() {
            assert!(!r.exited(), "replica {i} stopped on its own");
        }
        let killed_at = Instant::now();
        replicas[serving].kill();
        replicas[serving] = Replica::start(&dir, serving, &env);
        let (next, at) = serving_after(&mut replicas, killed_at).await;
        takeovers.push(at.duration_since(killed_at));
        serving = next;
    }
    let storm = storm.elapsed();

    // Play on until each playing group finished a deal, and the idle
    // group's timers moved for it.
    for (_, id, first) in &groups[..2] {
        eventually(
            Duration::from_secs(90),
            Duration::from_millis(100),
            "a deal ends in each playing group",
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

    let Checked {
        moves,
        lost,
        doubled,
        timer_moves,
        timers_twice,
        checked_records,
    } = check_groups(&store, &groups, &seen).await;
    let peaks: Vec<usize> = groups
        .iter()
        .map(|(d, _, _)| fake.max_outputs_in_window(d.group, WINDOW))
        .collect();
    let hits = fake.limit_hits();
    takeovers.sort();
    let pick = |q: f64| {
        let i = ((takeovers.len() as f64 * q).ceil() as usize).clamp(1, takeovers.len()) - 1;
        takeovers[i].as_millis()
    };
    println!(
        "replicas: {KILLS} kills of the serving replica (of {REPLICAS}) in {:.0} s; {moves} moves, \
         lost {lost}, doubled {doubled}; {timer_moves} timer moves, fired twice {timers_twice}; \
         {checked_records} deal records obey the rules; take-over p50 {} ms p99 {} ms max {} ms; \
         group peak per 60 s {peaks:?}; 429s group {} private {} bot {}",
        storm.as_secs_f64(),
        pick(0.5),
        pick(0.99),
        pick(1.0),
        hits.group,
        hits.private,
        hits.bot,
    );
    assert_eq!((lost, doubled), (0, 0), "every acknowledged move once");
    assert_eq!(timers_twice, 0, "no timer fired twice");
    assert!(timer_moves >= 1, "the idle group's timers ran out");
    assert!(
        checked_records >= 2,
        "the finished deals' records were checked"
    );
    assert!(peaks.iter().all(|p| *p <= 20), "group peaks {peaks:?}");
    assert_eq!(
        (hits.group, hits.bot),
        (0, 0),
        "no group or bot-wide limit exceeded"
    );
    drop(replicas);
    store.close().await;
    println!("replicas: ok in {:.1} s", started.elapsed().as_secs_f64());
}

/// The status a webhook address answers a POST of an empty update with.
async fn webhook_status(port: u16) -> u16 {
    let answer = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/telegram/hook"))
        .header("X-Telegram-Bot-Api-Secret-Token", "not-the-secret")
        .json(&serde_json::json!({}))
        .send()
        .await;
    answer.map_or(0, |a| a.status().as_u16())
}

/// Webhook mode behind a proxy: every replica, standing by or not, takes
/// webhook updates itself (a POST with the wrong secret gets 403 from
/// both, where a standby used to say 503); the metrics' gauge says which
/// is which. When the serving replica's lease connection ends under it
/// (here: the server terminates it), it stops at once with an error, and
/// the standby takes over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_takes_webhook_posts_and_a_replica_that_loses_its_lease_stops_serving() {
    let url = fresh_url();
    let fake = FakeBot::start_with(FakeBotConfig {
        token: TOKEN.into(),
        ..FakeBotConfig::default()
    })
    .await
    .expect("fake");
    let dir = tempfile::tempdir().unwrap();
    let api = fake.api_url().to_string();
    let ports = [free_port(), free_port()];
    let metrics = [free_port(), free_port()];
    let env = |port: &str, metrics: u16| -> Vec<(&str, String)> {
        vec![
            ("TELOXIDE_TOKEN", TOKEN.into()),
            ("TELOXIDE_API_URL", api.clone()),
            ("DATABASE_URL", url.clone()),
            (
                "WEBHOOK_URL",
                "https://bot.example.org/telegram/hook".into(),
            ),
            ("WEBHOOK_LISTEN", format!("127.0.0.1:{port}")),
            ("WEBHOOK_SECRET", "the-secret".into()),
            ("KOZYR_METRICS_LISTEN", format!("127.0.0.1:{metrics}")),
            (
                "RUST_LOG",
                "warn,kozyr::replica=info,kozyr::serve=info".into(),
            ),
        ]
    };
    let started = Instant::now();
    let mut replicas: Vec<Replica> = ports
        .iter()
        .enumerate()
        .map(|(n, port)| {
            let env = env(&port.to_string(), metrics[n]);
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
            Replica::start(&dir, n, &env)
        })
        .collect();
    let (serving, _) = serving_after(&mut replicas, started).await;
    let standby = 1 - serving;
    eventually(
        Duration::from_secs(20),
        Duration::from_millis(50),
        "both replicas' webhooks check the secret themselves",
        || async {
            let (s, b) = (
                webhook_status(ports[serving]).await,
                webhook_status(ports[standby]).await,
            );
            (s == 403 && b == 403).then_some(())
        },
    )
    .await;

    // The metrics say which replica holds which role.
    for (n, want) in [(serving, 1), (standby, 0)] {
        let scraped = reqwest::get(format!("http://127.0.0.1:{}/metrics", metrics[n]))
            .await
            .expect("scrape")
            .text()
            .await
            .expect("text");
        assert!(
            scraped.contains(&format!("kozyr_replica_serving {want}")),
            "replica {n}: {scraped}"
        );
    }

    // The server ends the serving replica's lease connection.
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .expect("the test's own connection");
    let cut_at = Instant::now();
    let cut: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_locks \
         WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() \
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_one(&mut admin)
    .await
    .expect("terminate the lease's connection");
    assert_eq!(cut, 1, "one session holds the serving lease");
    let (next, _) = serving_after_but(&mut replicas, cut_at, Some(serving)).await;
    assert_eq!(next, standby, "the standby took over");
    let lost = &mut replicas[serving];
    let status = eventually(
        Duration::from_secs(10),
        Duration::from_millis(20),
        "the replica that lost its lease exits",
        || std::future::ready(lost.child.try_wait().ok().flatten()),
    )
    .await;
    lost.read();
    assert!(!status.success(), "it exits with an error: {status:?}");
    assert!(lost.lost_lease, "it said why it stopped");
    eventually(
        Duration::from_secs(20),
        Duration::from_millis(50),
        "the new serving replica's webhook answers",
        || async {
            let s = webhook_status(ports[standby]).await;
            (s != 0 && s != 503).then_some(())
        },
    )
    .await;
    let _ = sqlx::Connection::close(admin).await;
}
