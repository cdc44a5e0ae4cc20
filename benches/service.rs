//! The table service under load, with real commits (SQLite: WAL,
//! `synchronous = FULL`; PostgreSQL: `fsync = on`). Run with
//! `cargo bench --bench service`.
//!
//! 1. Throughput: 100 tables on a fresh database, each driven by its own
//!    task submitting moves as fast as the service accepts them (each with
//!    a de-duplication key, as button presses have); accepted actions per
//!    second and the latency of a submit. Once on SQLite and once on
//!    PostgreSQL, side by side: a throwaway server the tests' own support
//!    code starts (`tests/it/support/postgres.rs`, on a unix socket, fsync
//!    on), or the one `KOZYR_TEST_POSTGRES_URL` names.
//! 2. Memory: a database holding 10,000 tables in play, of which 100 are
//!    played; resident memory (VmRSS, and the peak VmHWM) after the start
//!    (which re-renders every open table) and after the run.
//!
//! Each measurement runs in a fresh child process (this binary again), so
//! building the 10,000 tables does not count towards the memory figures.
//! `KOZYR_BENCH_SECS` sets the length of each run (default 10).

use std::process::Command as Process;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use kozyr::config::Synchronous;
use kozyr::game::GameKind;
use kozyr::store::StoreOptions;
use kozyr::table::runtime::{DedupKey, Request, TableService, Target};
use kozyr::table::storage::TableStore;
use kozyr::table::{
    Actor, ChatKey, Command, Lang, Phase, Platform, Player, SeatState, Settings, TableId, UserId,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// The tests' throwaway PostgreSQL, shared so the bench measures the server
/// the tests run on.
// Only its throwaway server is used here; the test-only helpers are not.
#[allow(dead_code)]
#[path = "../tests/it/support/postgres.rs"]
mod postgres;

const CHILD: &str = "KOZYR_BENCH_CHILD";
const ACTIVE: usize = 100;
const STORED: usize = 10_000;

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        rt.block_on(child(&spec));
        return;
    }
    // `cargo bench` passes filters and `--bench`; `cargo test --benches`
    // runs benches as tests: then do a token run so the code stays working.
    let quick = std::env::args().any(|a| a == "--test" || a == "--list");
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let secs: u64 = std::env::var("KOZYR_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if quick { 1 } else { 10 });
    let dir = tempfile::tempdir().expect("temp dir");

    let fresh = sqlite_url(&dir.path().join("fresh.db"));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(build(&fresh, ACTIVE, 0));
    println!(
        "service/throughput on SQLite (synchronous = FULL): {ACTIVE} tables on a fresh \
         database, {secs} s"
    );
    run_child(&format!("{fresh}|{secs}"));

    let fresh = postgres::fresh_url_with(true);
    rt.block_on(build(&fresh, ACTIVE, 0));
    println!(
        "service/throughput on PostgreSQL (fsync = on, a unix socket): {ACTIVE} tables on a \
         fresh database, {secs} s"
    );
    run_child(&format!("{fresh}|{secs}"));

    let stored = if quick { 1_000 } else { STORED };
    let big = dir.path().join("big.db");
    let t = Instant::now();
    rt.block_on(build(&sqlite_url(&big), ACTIVE, stored - ACTIVE));
    println!(
        "service/memory: {stored} stored tables in play, {ACTIVE} of them played, {secs} s \
         (built in {:.1} s, database {:.1} MB)",
        t.elapsed().as_secs_f64(),
        file_mb(&big)
    );
    run_child(&format!("{}|{secs}", sqlite_url(&big)));
}

fn sqlite_url(path: &std::path::Path) -> String {
    format!("sqlite://{}", path.display())
}

fn file_mb(path: &std::path::Path) -> f64 {
    let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let wal = path.with_extension("db-wal");
    (size(path) + size(&wal)) as f64 / 1e6
}

fn run_child(spec: &str) {
    let status = Process::new(std::env::current_exe().expect("own path"))
        .env(CHILD, spec)
        .status()
        .expect("run the measurement");
    assert!(status.success(), "measurement failed");
}

fn player(i: usize) -> Player {
    Player::new(
        UserId::new(i.to_string()).expect("id"),
        &format!("P{i}"),
        Lang::En,
    )
}

/// Group chat ids are negative: table `i` plays in chat `-(i + 1)` ("-0"
/// is no canonical id, and the first table would not open).
fn chat(i: usize) -> ChatKey {
    ChatKey::new(Platform::Telegram, format!("-{}", i + 1)).expect("chat")
}

/// Builds a database: `idle` tables a few moves into a series, then
/// `active` freshly started ones (the highest ids). Setup, not measured:
/// on SQLite `synchronous = NORMAL` to build it quickly.
async fn build(url: &str, active: usize, idle: usize) {
    let mut options = StoreOptions::new(url);
    options.synchronous = Synchronous::Normal;
    let store = kozyr::store::open(&options).await.expect("store");
    let (s, mut fx) = TableService::builder(store.clone())
        .start()
        .await
        .expect("service");
    tokio::spawn(async move { while fx.recv().await.is_some() {} });
    let total = idle + active;
    let mut next = 0;
    while next < total {
        let batch: Vec<usize> = (next..(next + 200).min(total)).collect();
        next += batch.len();
        let tasks: Vec<_> = batch
            .into_iter()
            .map(|i| {
                let s = s.clone();
                let moves = if i < idle { 12 } else { 0 };
                tokio::spawn(async move { open_table(&s, i, moves).await })
            })
            .collect();
        for t in tasks {
            t.await.expect("task");
        }
        s.evict_idle(Duration::ZERO);
    }
    s.shutdown().await;
    store.close().await;
}

async fn open_table(s: &TableService, i: usize, moves: usize) {
    let c = chat(i);
    let go = |actor: Actor, command: Command| Request {
        target: Target::Chat(c.clone()),
        actor,
        command,
        dedup: None,
    };
    let settings = Settings {
        turn_timer: None,
        ..Settings::default()
    };
    let create = Command::Create {
        kind: GameKind::Kozel,
        settings,
        title: format!("Group {i}"),
        sit: true,
    };
    let id = s
        .submit(go(Actor::person(player(i * 4)), create))
        .await
        .expect("create")
        .table
        .expect("id");
    for k in 1..4 {
        let join = Command::Join { seat: None };
        s.submit(go(Actor::person(player(i * 4 + k)), join))
            .await
            .expect("join");
    }
    s.submit(go(Actor::person(player(i * 4)), Command::Start))
        .await
        .expect("start");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(i as u64);
    for _ in 0..moves {
        if !play_one(s, id, &mut rng, None).await {
            break;
        }
    }
}

/// Submits one move (or a rematch) for the table; false if it is not in play.
async fn play_one(
    s: &TableService,
    id: TableId,
    rng: &mut Xoshiro256PlusPlus,
    key: Option<String>,
) -> bool {
    let Ok(Some(t)) = s.table(id).await else {
        return false;
    };
    let (actor, command) = match t.phase() {
        Phase::Playing => {
            let seat = t.awaiting()[0];
            let legal = t.game().expect("game").legal_actions(seat);
            let action = legal[rng.random_range(0..legal.len())];
            let SeatState::Person { player, .. } = &t.seats()[seat] else {
                return false;
            };
            let cmd = Command::Act {
                seat,
                action,
                version: t.version(),
            };
            (Actor::person(player.clone()), cmd)
        }
        Phase::Finished => {
            let creator = t.seats()[kozyr::cards::Seat::ALL[0]]
                .person()
                .expect("creator")
                .clone();
            (Actor::person(creator), Command::Rematch)
        }
        _ => return false,
    };
    let request = Request {
        target: Target::Table(id),
        actor,
        command,
        dedup: key.map(DedupKey::opaque),
    };
    s.submit(request).await.is_ok()
}

fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn memory() -> String {
    format!(
        "VmRSS {:.1} MB, VmHWM {:.1} MB",
        status_kb("VmRSS:") as f64 / 1024.0,
        status_kb("VmHWM:") as f64 / 1024.0
    )
}

async fn child(spec: &str) {
    let (url, secs) = spec.split_once('|').expect("spec");
    let secs: u64 = secs.parse().expect("secs");
    let options = StoreOptions::new(url);
    assert_eq!(options.synchronous, Synchronous::Full);
    let store: Arc<dyn TableStore> = kozyr::store::open(&options).await.expect("store");
    let started = Instant::now();
    let (s, mut fx) = TableService::builder(store.clone())
        .start()
        .await
        .expect("service");
    let rendered = Arc::new(AtomicU64::new(0));
    let counter = rendered.clone();
    // A front-end that takes every effect and drops it.
    tokio::spawn(async move {
        while fx.recv().await.is_some() {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    });
    let open = store.open_table_ids().await.expect("ids");
    println!(
        "  start: {} open tables re-rendered in {:.2} s; {}",
        open.len(),
        started.elapsed().as_secs_f64(),
        memory()
    );
    let active: Vec<TableId> = open[open.len().saturating_sub(ACTIVE)..].to_vec();
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let tasks: Vec<_> = active
        .iter()
        .map(|&id| {
            let (s, stop) = (s.clone(), stop.clone());
            tokio::spawn(async move {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(id.0 as u64);
                let mut latencies = Vec::new();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let key = format!("cb:{}:{n}", id.0);
                    let t = Instant::now();
                    if play_one(&s, id, &mut rng, Some(key)).await {
                        latencies.push(t.elapsed());
                    }
                    n += 1;
                }
                latencies
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.expect("driver"));
    }
    let elapsed = t0.elapsed().as_secs_f64();
    latencies.sort();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "  {:.0} accepted actions/s ({} in {:.1} s); submit latency p50 {:.1} ms, p99 {:.1} ms",
        latencies.len() as f64 / elapsed,
        latencies.len(),
        elapsed,
        pct(0.5),
        pct(0.99)
    );
    println!("  after the run: {}", memory());
}
