//! What the replica tests share (`replicas.rs`, long polling;
//! `replicas_webhook.rs`, webhook mode): `kozyr run` children read by
//! their log, who serves, people playing through the fake Bot API, and the
//! checks of the logs against what the people saw.

use kozyr::store::Queries;
use std::path::PathBuf;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use kozyr::cards::Seat;
use kozyr::front::action::Press;
use kozyr::store::PgStore;
use kozyr::table::records::deal_records;
use kozyr::table::{Mover, Phase, TableEvent, TableId, Timestamp};
use kozyr_loadtest::{DriveError, Driver};
use kozyr_test_kit::fakebot::FakeBot;
use tokio::sync::Mutex;

use super::{eventually, kozyr, run_to_end};

pub const SERVING: &str = "serving: this replica holds the serving lease";
pub const STANDING_BY: &str = "standing by";
/// What the webhook intake logs (at debug) for each update it wrote.
pub const TAKEN: &str = "an update from the webhook is in the inbox";

/// One `kozyr run` child, its log lines stamped as they arrive.
pub struct Replica {
    pub child: Child,
    lines: Receiver<(Instant, String)>,
    pub health: PathBuf,
    pub serving_at: Option<Instant>,
    pub standing_by: bool,
    /// It said it lost the lease and stops.
    pub lost_lease: bool,
    /// Webhook updates its intake wrote to the inbox while it stood by
    /// (counted from its debug log, `kozyr::telegram::webhook=debug`).
    pub taken_standing_by: u64,
}

impl Replica {
    pub fn start(dir: &tempfile::TempDir, n: usize, env: &[(&str, &str)]) -> Replica {
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
            taken_standing_by: 0,
        }
    }

    /// Reads what the replica logged so far.
    pub fn read(&mut self) {
        while let Ok((at, line)) = self.lines.try_recv() {
            if line.contains(TAKEN) {
                if self.serving_at.is_none() {
                    self.taken_standing_by += 1;
                }
            } else if line.contains(SERVING) {
                self.serving_at = Some(at);
            } else if line.contains(STANDING_BY) {
                self.standing_by = true;
            } else if line.contains("lost the lease: stopping") {
                self.lost_lease = true;
            }
        }
    }

    pub fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGKILL: no shutdown, its connections simply end.
    pub fn kill(&mut self) {
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
pub fn healthcheck(dir: &tempfile::TempDir, url: &str, health: &std::path::Path) -> (bool, String) {
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
pub async fn serving_after(replicas: &mut [Replica], after: Instant) -> (usize, Instant) {
    serving_after_but(replicas, after, None).await
}

/// [`serving_after`], where replica `gone` may have exited.
pub async fn serving_after_but(
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
pub struct Seen {
    pub acked: Vec<(u64, Seat)>,
    pub refused: Vec<(u64, Seat)>,
}

/// The people of one group play their safe moves until `stop`.
pub async fn play(
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

/// A Kozel table opened in a group of each of `names`, by people patient
/// enough for a takeover: (their driver, the table, its deal number).
pub async fn open_groups(
    fake: &Arc<FakeBot>,
    store: &PgStore,
    names: &[&str],
) -> Vec<(Driver, TableId, u32)> {
    let mut groups = Vec::new();
    for name in names {
        let mut d = Driver::new(fake.clone(), name);
        d.patience = Duration::from_secs(8);
        d.open_kozel_table().await.expect("the table starts");
        let t = store
            .open_table(&d.chat_key())
            .await
            .expect("read")
            .expect("an open table");
        groups.push((d, t.id(), kozyr_loadtest::deal_no(&t)));
    }
    groups
}

/// The people of `groups` playing ([`play`]) until `stop`: their tasks,
/// and what each group saw.
pub fn start_players(
    store: &PgStore,
    groups: &[(Driver, TableId, u32)],
    stop: &Arc<AtomicBool>,
) -> (Vec<tokio::task::JoinHandle<()>>, Vec<Arc<Mutex<Seen>>>) {
    let mut players = Vec::new();
    let mut seen = Vec::new();
    for (d, id, _) in groups {
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
    (players, seen)
}

/// Acted events: (version, seat, by), and for each turn-timer move the
/// deadline it ran out at.
pub async fn acts(
    store: &PgStore,
    id: TableId,
) -> (Vec<(u64, Seat, Mover)>, Vec<(Timestamp, Seat)>) {
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

/// What the logs of the groups say against what their people saw.
#[derive(Debug, Default)]
pub struct Checked {
    pub moves: usize,
    /// Moves acknowledged to a person and not in the log next.
    pub lost: usize,
    /// Moves in the log twice.
    pub doubled: usize,
    pub timer_moves: usize,
    pub timers_twice: usize,
    /// Deal records checked against the rules.
    pub checked_records: usize,
}

/// Checks each group's log: counts its moves, the acknowledged ones
/// (`seen`, for the first groups) missing or doubled, the timer moves and
/// those fired twice; asserts the log replays to the table and the deal
/// records obey the rules.
pub async fn check_groups(
    store: &PgStore,
    groups: &[(Driver, TableId, u32)],
    seen: &[Arc<Mutex<Seen>>],
) -> Checked {
    let mut moves = 0;
    let mut lost = 0;
    let mut doubled = 0;
    let mut timer_moves = 0;
    let mut timers_twice = 0;
    let mut checked_records = 0;
    for (n, (d, id, _)) in groups.iter().enumerate() {
        let (acted, timed_out) = acts(store, *id).await;
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
    Checked {
        moves,
        lost,
        doubled,
        timer_moves,
        timers_twice,
        checked_records,
    }
}

/// The version each hand keyboard of `driver`'s people was drawn for, per seat.
pub fn hand_versions(fake: &FakeBot, driver: &Driver) -> Vec<Option<u64>> {
    (0..4)
        .map(|s| {
            let m = fake
                .messages(driver.dm(s))
                .into_iter()
                .rev()
                .find(|m| m.keyboard.is_some())?;
            m.keyboard?
                .buttons()
                .find_map(|b| match Press::parse(b.callback_data()?).ok()? {
                    Press::Table { version, .. } => Some(version),
                    Press::Chat { .. } => None,
                })
        })
        .collect()
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}
