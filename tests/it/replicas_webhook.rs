//! Issue 19, part 2: three `kozyr run` replicas on one throwaway
//! PostgreSQL in webhook mode, each with its own webhook address, and the
//! fake Bot API delivering every update to a random live one (a load
//! balancer in front of them). Standbys take updates too: their intake
//! writes each to the inbox in the database and answers 200 once it
//! committed; the serving replica handles the inbox. A random replica,
//! serving or standing by, is killed with SIGKILL 30 times (and started
//! again) while two groups play at a fast pace and a third lets its turn
//! timers run out. At the end: every acknowledged move is in the log
//! exactly once, no timer fired twice, the fake saw no 429, every hand
//! shows the table as it is now, and the deals obey the rules. The figures
//! (kills, moves, lost, doubled, updates a standby took, time to take
//! over) go to stdout.

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
    Checked, Replica, check_groups, free_port, hand_versions, open_groups, serving_after,
    start_players,
};

const TOKEN: &str = "123456:WEBHOOK-fake-token-kozyr-replica-tests-0123";
const SECRET: &str = "the-webhook-secret";
const KILLS: u32 = 30;
const REPLICAS: usize = 3;
/// The shortest turn timer the configuration allows.
const TURN_SECONDS: &str = "10";
const WINDOW: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_any_replica_in_webhook_mode_loses_doubles_and_bursts_nothing() {
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
    let ports: Vec<u16> = (0..REPLICAS).map(|_| free_port()).collect();
    let hooks: Vec<url::Url> = ports
        .iter()
        .map(|p| url::Url::parse(&format!("http://127.0.0.1:{p}/telegram/hook")).expect("url"))
        .collect();
    // The URL the bot sets stands for the load balancer; the fake delivers
    // to the replicas behind it.
    fake.deliver_to(hooks.clone());
    let envs: Vec<Vec<(&str, String)>> = ports
        .iter()
        .map(|port| {
            vec![
                ("TELOXIDE_TOKEN", TOKEN.into()),
                ("TELOXIDE_API_URL", api.clone()),
                ("DATABASE_URL", url.clone()),
                ("KOZYR_TURN_SECONDS", TURN_SECONDS.into()),
                (
                    "WEBHOOK_URL",
                    "https://bot.example.org/telegram/hook".into(),
                ),
                ("WEBHOOK_LISTEN", format!("127.0.0.1:{port}")),
                ("WEBHOOK_SECRET", SECRET.into()),
                (
                    "RUST_LOG",
                    "warn,kozyr::replica=info,kozyr_telegram::webhook=debug".into(),
                ),
            ]
        })
        .collect();
    let start = |n: usize| {
        let env: Vec<(&str, &str)> = envs[n].iter().map(|(k, v)| (*k, v.as_str())).collect();
        Replica::start(&dir, n, &env)
    };
    let mut replicas: Vec<Replica> = (0..REPLICAS).map(start).collect();
    let (mut serving, _) = serving_after(&mut replicas, started).await;
    fake.wait_for(Duration::from_secs(20), |f| f.webhook().map(|_| ()))
        .await
        .expect("the serving replica set the webhook");

    let store = PgStore::open_existing(&StoreOptions::new(&url))
        .await
        .expect("the test's own connection");
    let groups = open_groups(&fake, &store, &["Webhook A", "Webhook B", "Webhook C"]).await;

    // Two groups play; the third waits for its turn timers.
    let stop = Arc::new(AtomicBool::new(false));
    let (players, seen) = start_players(&store, &groups[..2], &stop);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x7765_6268_6f6f_6b73);
    let mut takeovers = Vec::new();
    // When nobody served (wall clock, ms): from a kill of the serving
    // replica until another took over.
    let mut nobody_serving: Vec<(i64, i64)> = Vec::new();
    let mut standbys_killed = 0;
    let mut taken_standing_by = 0;
    let storm = Instant::now();
    for _ in 0..KILLS {
        tokio::time::sleep(Duration::from_millis(rng.random_range(300..1_200))).await;
        for (i, r) in replicas.iter_mut().enumerate() {
            assert!(!r.exited(), "replica {i} stopped on its own");
        }
        let victim = rng.random_range(0..REPLICAS);
        let killed_at = Instant::now();
        let killed_wall = wall_ms();
        replicas[victim].kill();
        replicas[victim].read();
        taken_standing_by += replicas[victim].taken_standing_by;
        replicas[victim] = start(victim);
        if victim == serving {
            let (next, at) = serving_after(&mut replicas, killed_at).await;
            takeovers.push(at.duration_since(killed_at));
            let gap = at.duration_since(killed_at).as_millis() as i64;
            nobody_serving.push((killed_wall, killed_wall + gap));
            serving = next;
        } else {
            standbys_killed += 1;
        }
    }
    let storm = storm.elapsed();

    // Play on until each playing group finished a deal.
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

    // Every hand shows the table as it is now.
    for (d, id, _) in &groups {
        let t = store.table(*id).await.expect("read").expect("table");
        if t.phase() != Phase::Playing {
            continue;
        }
        fake.wait_for(Duration::from_secs(30), |f| {
            hand_versions(f, d)
                .iter()
                .all(|v| *v == Some(t.version()))
                .then_some(())
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{}: hands {:?}, table at {}",
                d.group,
                hand_versions(&fake, d),
                t.version()
            )
        });
    }
    for r in &mut replicas {
        r.read();
        taken_standing_by += r.taken_standing_by;
    }

    let Checked {
        moves,
        lost,
        doubled,
        timer_moves,
        timers_twice,
        checked_records,
    } = check_groups(&store, &groups, &seen).await;
    // How late each turn timer fired against its deadline. One whose
    // deadline passed while nobody served gets the grace (a person had no
    // bot to play with); every other one keeps its time.
    let db = sqlx::PgPool::connect(&url)
        .await
        .expect("the test's own connection");
    let mut on_time = Vec::new();
    let mut graced = 0;
    for (_, id, _) in &groups {
        for (deadline, late) in timer_lateness(&db, *id).await {
            if nobody_serving
                .iter()
                .any(|(from, to)| (*from..=*to).contains(&deadline))
            {
                graced += 1;
            } else {
                on_time.push(late);
            }
        }
    }
    db.close().await;
    on_time.sort();
    let late = |q: f64| {
        if on_time.is_empty() {
            return 0;
        }
        let i = ((on_time.len() as f64 * q).ceil() as usize).clamp(1, on_time.len()) - 1;
        on_time[i]
    };
    println!(
        "replicas_webhook: {} turn timers due while a replica served fired late by p50 {} ms, \
         p99 {} ms, max {} ms; {graced} came due while nobody served (given the grace)",
        on_time.len(),
        late(0.5),
        late(0.99),
        late(1.0),
    );
    let peaks: Vec<usize> = groups
        .iter()
        .map(|(d, _, _)| fake.max_outputs_in_window(d.group, WINDOW))
        .collect();
    let hits = fake.limit_hits();
    let deliveries = fake.webhook_deliveries();
    takeovers.sort();
    let pick = |q: f64| {
        if takeovers.is_empty() {
            return 0;
        }
        let i = ((takeovers.len() as f64 * q).ceil() as usize).clamp(1, takeovers.len()) - 1;
        takeovers[i].as_millis()
    };
    println!(
        "replicas_webhook: {KILLS} kills of a random replica (of {REPLICAS}; {} serving, \
         {standbys_killed} standing by) in {:.0} s; {moves} moves, lost {lost}, doubled \
         {doubled}; {timer_moves} timer moves, fired twice {timers_twice}; {checked_records} \
         deal records obey the rules; updates delivered {} (retried {}), taken by a standby \
         {taken_standing_by}; take-over p50 {} ms p99 {} ms max {} ms; group peak per 60 s \
         {peaks:?}; 429s group {} private {} bot {}",
        takeovers.len(),
        storm.as_secs_f64(),
        deliveries.delivered,
        deliveries.failed,
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
    // A takeover used to push every armed deadline to its start + 10 s.
    assert!(
        late(1.0) < 5_000,
        "a timer due while a replica served fired {} ms late",
        late(1.0)
    );
    assert!(
        checked_records >= 2,
        "the finished deals' records were checked"
    );
    assert!(
        taken_standing_by >= 1,
        "standbys took updates (the fake picks any replica)"
    );
    assert!(peaks.iter().all(|p| *p <= 20), "group peaks {peaks:?}");
    assert_eq!(hits.total(), 0, "no 429: no limit exceeded");
    drop(replicas);
    store.close().await;
    println!(
        "replicas_webhook: ok in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// A receiver of webhook POSTs: answers 503 to the first `refuse` of
/// them, then 200; keeps the update ids it answered 200 to, and the
/// secret each came with.
async fn receiver(refuse: usize) -> (url::Url, Arc<std::sync::Mutex<(usize, Vec<(i64, String)>)>>) {
    use axum::http::{HeaderMap, StatusCode};
    let seen = Arc::new(std::sync::Mutex::new((0usize, Vec::new())));
    let state = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: axum::body::Bytes| {
            let state = state.clone();
            async move {
                let mut s = state.lock().unwrap();
                s.0 += 1;
                if s.0 <= refuse {
                    return StatusCode::SERVICE_UNAVAILABLE;
                }
                let update: serde_json::Value = serde_json::from_slice(&body).unwrap();
                let secret = headers
                    .get("x-telegram-bot-api-secret-token")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                s.1.push((update["update_id"].as_i64().unwrap(), secret));
                StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (
        url::Url::parse(&format!("http://{addr}/hook")).unwrap(),
        seen,
    )
}

/// The fake Bot API in webhook mode: nothing is delivered before
/// `setWebhook`; then each update is POSTed with the secret, in order, to
/// one of the URLs the test gave, and one that is refused is tried again
/// (here on another replica, or the same later) until answered 200, never
/// dropped and never counted twice; `getUpdates` is refused meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fake_delivers_each_update_by_webhook_until_one_answers_200() {
    use kozyr_test_kit::fakebot::UserSpec;
    use teloxide::payloads::SetWebhookSetters;
    use teloxide::requests::Requester;

    let fake = FakeBot::start().await.expect("fake");
    let (down, down_seen) = receiver(usize::MAX).await;
    let (flaky, flaky_seen) = receiver(2).await;
    fake.deliver_to(vec![down, flaky]);
    let ann = fake.add_user(UserSpec::new("Ann"));
    fake.start_bot(ann, None).unwrap();
    fake.user_says(FakeBot::private_chat(ann), ann, "/help")
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(fake.webhook_deliveries().delivered, 0, "no webhook yet");
    assert_eq!(down_seen.lock().unwrap().0, 0);

    let bot = fake.bot();
    bot.set_webhook(url::Url::parse("https://bot.example.org/hook").unwrap())
        .secret_token("s3cret".to_owned())
        .await
        .expect("setWebhook");
    let delivered = fake
        .wait_for(Duration::from_secs(20), |f| {
            let d = f.webhook_deliveries();
            (d.delivered == 2).then_some(d)
        })
        .await
        .expect("both updates delivered");
    let got = flaky_seen.lock().unwrap().1.clone();
    assert_eq!(
        got,
        [(1, "s3cret".to_owned()), (2, "s3cret".to_owned())],
        "in order, with the secret"
    );
    let refused = down_seen.lock().unwrap().0 + 2;
    assert_eq!(delivered.failed as usize, refused, "every refusal retried");
    assert_eq!(fake.pending_updates(), 0);
    assert!(
        bot.get_updates().await.is_err(),
        "no getUpdates with a webhook"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(fake.webhook_deliveries().delivered, 2, "none twice");
}

/// Now on the wall clock, as the service stamps its events (ms).
fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Each turn timer's move at `table`: its deadline, and how long after it
/// the move was committed (ms).
async fn timer_lateness(db: &sqlx::PgPool, table: kozyr::table::TableId) -> Vec<(i64, i64)> {
    use kozyr::table::{Mover, TableEvent};
    let rows: Vec<(i64, String)> =
        sqlx::query_as("SELECT at, event FROM table_events WHERE table_id = $1 ORDER BY version")
            .bind(table.0)
            .fetch_all(db)
            .await
            .expect("the log");
    let mut deadline = None;
    let mut out = Vec::new();
    for (at, event) in rows {
        match serde_json::from_str::<TableEvent>(&event).expect("an event") {
            TableEvent::ClockSet { deadline: d } => deadline = d,
            TableEvent::Acted {
                by: Mover::Timeout, ..
            } => {
                let d = deadline.expect("a timer ran").millis();
                out.push((d, at - d));
            }
            _ => {}
        }
    }
    out
}
