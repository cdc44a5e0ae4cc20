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

use std::path::PathBuf;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use kozyr::cards::Seat;
use kozyr::fakebot::{FakeBot, FakeBotConfig};
use kozyr::loadtest::{DriveError, Driver, deal_no};
use kozyr::store::{PgStore, StoreOptions};
use kozyr::table::records::deal_records;
use kozyr::table::{Mover, Phase, TableEvent, TableId, Timestamp};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use tokio::sync::Mutex;

use crate::support::postgres::fresh_url;
use crate::support::{eventually, kozyr, run_to_end};

const TOKEN: &str = "123456:REPLICAS-fake-token-kozyr-replica-tests-0123";
const KILLS: u32 = 30;
const REPLICAS: usize = 3;
/// The shortest turn timer the configuration allows.
const TURN_SECONDS: &str = "10";
const WINDOW: Duration = Duration::from_secs(60);
const SERVING: &str = "serving: this replica holds the serving lease";
const STANDING_BY: &str = "standing by";

/// One `kozyr run` child, its log lines stamped as they arrive.
struct Replica {
    child: Child,
    lines: Receiver<(Instant, String)>,
    health: PathBuf,
    serving_at: Option<Instant>,
    standing_by: bool,
    /// It said it lost the lease and stops.
    lost_lease: bool,
}

impl Replica {
    fn start(dir: &tempfile::TempDir, n: usize, env: &[(&str, &str)]) -> Replica {
        let health = dir.path().join(format!("replica-{n}.alive"));
        let health_var = health.display().to_string();
        let mut env = env.to_vec();
        env.push(("KOZYR_HEALTH_FILE", &health_var));
        let mut child = kozyr(dir.path(), &["run"], &env)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("spawn kozyr run");
        let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in out.lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Replica {
            child,
            lines,
            health,
            serving_at: None,
            standing_by: false,
            lost_lease: false,
        }
    }

    /// Reads what the replica logged so far.
    fn read(&mut self) {
        while let Ok((at, line)) = self.lines.try_recv() {
            if line.contains(SERVING) {
                self.serving_at = Some(at);
            } else if line.contains(STANDING_BY) {
                self.standing_by = true;
            } else if line.contains("lost the lease: stopping") {
                self.lost_lease = true;
            }
        }
    }

    fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGKILL: no shutdown, its connections simply end.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What `kozyr healthcheck` says of the replica whose heartbeat is `health`.
fn healthcheck(dir: &tempfile::TempDir, url: &str, health: &std::path::Path) -> (bool, String) {
    let health = health.display().to_string();
    let out = run_to_end(kozyr(
        dir.path(),
        &["healthcheck"],
        &[("DATABASE_URL", url), ("KOZYR_HEALTH_FILE", &health)],
    ));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_owned(),
    )
}

/// The one replica serving since `after`, once exactly one does.
async fn serving_after(replicas: &mut [Replica], after: Instant) -> (usize, Instant) {
    serving_after_but(replicas, after, None).await
}

/// [`serving_after`], where replica `gone` may have exited.
async fn serving_after_but(
    replicas: &mut [Replica],
    after: Instant,
    gone: Option<usize>,
) -> (usize, Instant) {
    eventually(
        Duration::from_secs(20),
        Duration::from_millis(5),
        "a standby takes over",
        || {
            let mut serving: Vec<(usize, Instant)> = Vec::new();
            for (i, r) in replicas.iter_mut().enumerate() {
                assert!(
                    gone == Some(i) || !r.exited(),
                    "replica {i} stopped on its own"
                );
                r.read();
                if let Some(at) = r.serving_at.filter(|at| *at >= after) {
                    serving.push((i, at));
                }
            }
            assert!(serving.len() <= 1, "two replicas took over: {serving:?}");
            std::future::ready(serving.first().copied())
        },
    )
    .await
}

/// What one group's people saw: moves acknowledged and refused, by the
/// version they were made at.
#[derive(Default)]
struct Seen {
    acked: Vec<(u64, Seat)>,
    refused: Vec<(u64, Seat)>,
}

/// The people of one group play their safe moves until `stop`.
async fn play(
    store: PgStore,
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
            // The serving replica was killed between two presses, or a hand
            // is not redrawn yet: look again, press what is shown now.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Acted events: (version, seat, by), and for each turn-timer move the
/// deadline it ran out at.
async fn acts(store: &PgStore, id: TableId) -> (Vec<(u64, Seat, Mover)>, Vec<(Timestamp, Seat)>) {
    let mut acted = Vec::new();
    let mut timed_out = Vec::new();
    let mut deadline = None;
    for (v, e) in store.events(id).await.expect("events") {
        match e {
            TableEvent::ClockSet { deadline: d } => deadline = d,
            TableEvent::Acted { seat, by, .. } => {
                if by == Mover::Timeout {
                    timed_out.push((deadline.expect("a timer ran"), seat));
                }
                acted.push((v, seat, by));
            }
            _ => {}
        }
    }
    (acted, timed_out)
}

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
    let mut groups = Vec::new();
    for name in ["Replica A", "Replica B", "Replica C"] {
        let mut d = Driver::new(fake.clone(), name);
        d.patience = Duration::from_secs(8);
        d.open_kozel_table().await.expect("the table starts");
        let t = store
            .open_table(&d.chat_key())
            .await
            .expect("read")
            .expect("an open table");
        groups.push((d, t.id(), deal_no(&t)));
    }

    // Two groups play; the third waits for its turn timers.
    let stop = Arc::new(AtomicBool::new(false));
    let mut players = Vec::new();
    let mut seen = Vec::new();
    for (d, id, _) in &groups[..2] {
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

    let mut moves = 0;
    let mut lost = 0;
    let mut doubled = 0;
    let mut timer_moves = 0;
    let mut timers_twice = 0;
    let mut checked_records = 0;
    for (n, (d, id, _)) in groups.iter().enumerate() {
        let (acted, timed_out) = acts(&store, *id).await;
        moves += acted.len();
        let mut versions: Vec<u64> = acted.iter().map(|a| a.0).collect();
        versions.dedup();
        doubled += acted.len() - versions.len();
        timer_moves += timed_out.len();
        let mut timers = timed_out.clone();
        timers.sort();
        timers.dedup();
        timers_twice += timed_out.len() - timers.len();
        if let Some(seen) = seen.get(n) {
            let seen = seen.lock().await;
            assert!(!seen.acked.is_empty(), "{}: moves were made", d.group);
            for (v, seat) in &seen.acked {
                let next = acted.iter().find(|a| a.0 > *v).map(|a| (a.1, a.2));
                if next != Some((*seat, Mover::Person)) {
                    lost += 1;
                }
            }
        }
        let snapshot = store.table(*id).await.expect("read").expect("table");
        let replayed = store.replay(*id).await.expect("replay").expect("log");
        assert_eq!(
            replayed, snapshot,
            "{}: the log replays to the table",
            d.group
        );
        let log: Vec<TableEvent> = store
            .events(*id)
            .await
            .expect("events")
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        let records: Vec<serde_json::Value> = deal_records(&log)
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
            let complete = Some(series) < last_series || snapshot.phase() != Phase::Playing;
            crate::kozel_records::check_series(
                &deals,
                complete,
                &mut crate::kozel_records::Coverage::default(),
            );
        }
        checked_records += records.len();
    }
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

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
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

/// Webhook mode behind a proxy: a standby answers 503 on its webhook
/// address (a proxy passes the update on, Telegram retries), the serving
/// replica answers itself; the metrics' gauge says which is which. When the serving replica's lease connection
/// ends under it (here: the server terminates it), it stops at once with
/// an error, and the standby takes over, webhook included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_answers_503_and_a_replica_that_loses_its_lease_stops_serving() {
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
        "the serving replica's webhook answers, the standby's says 503",
        || async {
            let (s, b) = (
                webhook_status(ports[serving]).await,
                webhook_status(ports[standby]).await,
            );
            (s != 0 && s != 503 && b == 503).then_some(())
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
