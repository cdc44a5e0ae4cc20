//! Discord shards split between replicas (issue 19): three `kozyr run`
//! processes on one throwaway PostgreSQL, each running one of three gateway
//! shards (`DISCORD_SHARDS=0/3`, `1/3`, `2/3`) against the strict fake
//! Discord, which sends each server's events only to its shard's session.
//! One replica serves; the standbys' shards write their servers'
//! interactions into the inbox, and the serving replica answers them. Three
//! servers, one on each shard, play Kozel while the serving replica is
//! killed with SIGKILL again and again (each started again at once, as a
//! standby). At the end: every move whose press the fake saw answered is
//! in the log once, nothing went past Discord's global limit, every shard
//! is connected again and every table finished a deal. The figures go to
//! stdout.

use kozyr::store::Queries;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use kozyr::cards::Seat;
use kozyr::front::action::{Press, TableAction};
use kozyr::store::{PgStore, StoreOptions};
use kozyr::table::{Mover, Phase, TableEvent, TableId};
use kozyr_test_kit::fakediscord::{FakeDiscord, GUILD_ID, Seen, TOKEN, User, shard_of};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use tokio::sync::Mutex;

use crate::support::discord::{CHANNEL, World, deal_no, open_and_start, press};
use crate::support::postgres::fresh_url;
use crate::support::{eventually, kozyr, move_buttons};

const SHARDS: usize = 3;
/// How long the serving replica is killed again and again.
const STORM: Duration = Duration::from_secs(50);
const SERVING: &str = "serving: this replica holds the serving lease";
/// Longer than Discord's 3 s: an answer not here by then never comes.
const ANSWER_WAIT: Duration = Duration::from_millis(3_500);
/// A person's pause after their move: a fast table, not a flood.
const PAUSE: Duration = Duration::from_millis(400);

/// One `kozyr run` child running shard `n` of [`SHARDS`], its log lines
/// stamped as they arrive.
struct Replica {
    child: Child,
    lines: Receiver<(Instant, String)>,
    serving_at: Option<Instant>,
}

impl Replica {
    /// Running shard `n` of [`SHARDS`], its metrics on [`metrics_port`].
    fn start(dir: &tempfile::TempDir, n: usize, env: &[(&str, &str)]) -> Replica {
        let metrics = format!("127.0.0.1:{}", metrics_port(n));
        let mut env = env.to_vec();
        env.push(("KOZYR_METRICS_LISTEN", metrics.as_str()));
        Replica::start_of(dir, n, SHARDS, &env)
    }

    /// Running shard `n` of `total`.
    fn start_of(dir: &tempfile::TempDir, n: usize, total: usize, env: &[(&str, &str)]) -> Replica {
        let health = dir.path().join(format!("replica-{n}.alive"));
        let health = health.display().to_string();
        let shards = format!("{n}/{total}");
        let mut env = env.to_vec();
        env.extend([
            ("KOZYR_HEALTH_FILE", health.as_str()),
            ("DISCORD_SHARDS", shards.as_str()),
        ]);
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
            serving_at: None,
        }
    }

    fn read(&mut self) {
        while let Ok((at, line)) = self.lines.try_recv() {
            if line.contains(SERVING) {
                self.serving_at = Some(at);
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

/// Each replica's metrics address in the kill test, the same after a
/// restart (the other test's replicas have none: they run at once).
fn metrics_port(n: usize) -> u16 {
    static PORTS: std::sync::OnceLock<Vec<u16>> = std::sync::OnceLock::new();
    PORTS.get_or_init(|| {
        // Held together, so the three differ.
        let held: Vec<std::net::TcpListener> = (0..SHARDS)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
            .collect();
        held.iter()
            .map(|l| l.local_addr().expect("address").port())
            .collect()
    })[n]
}

/// The one replica serving since `after`, once exactly one does.
async fn serving_after(replicas: &mut [Replica], after: Instant) -> (usize, Instant) {
    serving_after_but(replicas, after, None).await
}

/// [`serving_after`], where replica `gone` was killed.
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

async fn every_shard_live(fake: &FakeDiscord) {
    every_shard_live_of(fake, SHARDS).await;
}

async fn every_shard_live_of(fake: &FakeDiscord, total: usize) {
    let all: Vec<(u64, u64)> = (0..total as u64).map(|n| (n, total as u64)).collect();
    eventually(
        Duration::from_secs(20),
        Duration::from_millis(10),
        "every shard connected",
        || std::future::ready((fake.live_shards() == all).then_some(())),
    )
    .await;
}

/// The answer to `interaction`, if one comes within Discord's window.
async fn answer(fake: &FakeDiscord, interaction: u64) -> Option<u8> {
    let until = Instant::now() + ANSWER_WAIT;
    loop {
        if let Some(a) = fake.answer_of(interaction) {
            return Some(a);
        }
        if Instant::now() > until {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits (at most 2 s) for what `user` sees in `channel` to give `pick`.
async fn sees<T>(
    fake: &FakeDiscord,
    user: &User,
    channel: u64,
    pick: impl Fn(&[Seen]) -> Option<T>,
) -> Option<T> {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        if let Some(t) = pick(&fake.seen_by(user, channel)) {
            return Some(t);
        }
        if Instant::now() > until {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A move pressed and answered: the version it was made at, the seat.
struct Acked {
    table: TableId,
    version: u64,
    seat: Seat,
    /// The server's shard was not the serving replica's: the press came
    /// through a standby's shard and the inbox.
    via_standby: bool,
}

/// The seat to move plays its safe move as a person does — picks the
/// cards in their hand's menu (asking for the hand with "My hand" when it
/// does not offer them), then clicks the move's button — without waiting
/// past Discord's window for an answer that is not coming (its replica
/// was killed). `Ok(None)`: the table is not playing.
async fn one_move(
    w: &World,
    store: &PgStore,
    id: TableId,
    shard: usize,
    serving: &AtomicUsize,
    counts: &Counts,
) -> Result<Option<Acked>, String> {
    let t = store
        .table(id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("no table")?;
    if t.phase() != Phase::Playing {
        return Ok(None);
    }
    let seat = t.awaiting()[0];
    let action = t
        .game()
        .and_then(|g| g.safe_action(seat))
        .ok_or("no safe move")?;
    let (cards, make) = move_buttons(action);
    let user = &w.users[seat.index()];
    let version = t.version();
    // A hand of this table (an earlier table's hand in the channel may
    // hold the same cards).
    let of_this_table =
        |v: &str| matches!(Press::parse(v), Ok(Press::Table { table, .. }) if table == id);
    let want = make(cards);
    // A one-card answer is drawn as the move's own button.
    let whole = |m: &Seen| {
        m.buttons
            .iter()
            .find(|(_, b)| of_this_table(b) && press(b) == Some((version, want)))
            .map(|(_, b)| b.clone())
    };
    let has_cards = |m: &Seen| {
        m.ephemeral
            && (whole(m).is_some()
                || m.select.as_ref().is_some_and(|s| {
                    cards.iter().all(|c| {
                        s.options.iter().any(|(_, v, _)| {
                            of_this_table(v) && press(v).is_some_and(|(_, a)| a.card() == Some(c))
                        })
                    })
                }))
    };
    let hand = |seen: &[Seen]| seen.iter().rev().find(|m| has_cards(m)).map(|m| m.id);
    let msg = match hand(&w.fake.seen_by(user, w.channel)) {
        Some(m) => m,
        None => {
            let (table_msg, my_hand) = sees(&w.fake, user, w.channel, |seen| {
                seen.iter().rev().filter(|m| !m.ephemeral).find_map(|m| {
                    m.buttons
                        .iter()
                        .find(|(_, c)| c == &format!("hand:{}", id.0))
                        .map(|(_, c)| (m.id, c.clone()))
                })
            })
            .await
            .ok_or("no My hand button")?;
            let q = w.fake.click(user, table_msg, &my_hand)?;
            counts.presses.fetch_add(1, Ordering::Relaxed);
            answer(&w.fake, q).await.ok_or("My hand unanswered")?;
            sees(&w.fake, user, w.channel, hand)
                .await
                .ok_or("no hand offers the cards")?
        }
    };
    let seen = w
        .fake
        .seen_by(user, w.channel)
        .into_iter()
        .find(|m| m.id == msg)
        .ok_or("the hand is gone")?;
    let button = match whole(&seen) {
        Some(b) => b,
        None => {
            let select = seen.select.ok_or("the hand has no menu")?;
            let values: Vec<String> = cards
                .iter()
                .map(|c| {
                    select
                        .options
                        .iter()
                        .find(|(_, v, _)| {
                            press(v).is_some_and(|(_, a)| {
                                a.card() == Some(c) && !matches!(a, TableAction::HeartsPlay(_))
                            })
                        })
                        .map(|(_, v, _)| v.clone())
                })
                .collect::<Option<_>>()
                .ok_or("the menu lacks a card")?;
            let q = w.fake.choose(user, msg, &values)?;
            counts.presses.fetch_add(1, Ordering::Relaxed);
            match answer(&w.fake, q).await {
                Some(7) => {}
                other => return Err(format!("the menu was answered {other:?}")),
            }
            sees(&w.fake, user, w.channel, |seen| {
                let m = seen.iter().find(|m| m.id == msg)?;
                m.buttons
                    .iter()
                    .find(|(_, b)| press(b) == Some((version, want)))
                    .map(|(_, b)| b.clone())
            })
            .await
            .ok_or("no button for the move")?
        }
    };
    let via_standby = serving.load(Ordering::Relaxed) != shard;
    let q = w.fake.click(user, msg, &button)?;
    counts.presses.fetch_add(1, Ordering::Relaxed);
    counts.move_clicks.fetch_add(1, Ordering::Relaxed);
    match answer(&w.fake, q).await {
        Some(7) => Ok(Some(Acked {
            table: id,
            version,
            seat,
            via_standby,
        })),
        other => Err(format!("the move was answered {other:?}")),
    }
}

/// One group plays until `stop`, a person's pause between moves; when a
/// series ends the group opens the next table (every table it played in
/// `tables`).
#[allow(clippy::too_many_arguments)]
async fn play(
    w: Arc<World>,
    store: PgStore,
    tables: Arc<Mutex<Vec<TableId>>>,
    shard: usize,
    serving: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<Acked>>>,
    counts: Arc<Counts>,
) {
    let Some(mut id) = tables.lock().await.last().copied() else {
        return;
    };
    while !stop.load(Ordering::Relaxed) {
        match one_move(&w, &store, id, shard, &serving, &counts).await {
            Ok(Some(a)) => {
                acked.lock().await.push(a);
                tokio::time::sleep(PAUSE).await;
            }
            Ok(None) => {
                // Opened on a task of its own: a press lost to a kill
                // fails it (after its wait), and it is tried again.
                let opener = w.clone();
                match tokio::spawn(async move { open_and_start(&opener, "kozel").await }).await {
                    Ok(next) => {
                        id = next;
                        tables.lock().await.push(next);
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
            // Its replica was killed, or the hand is not redrawn yet: look
            // again, press what is shown now.
            Err(e) => {
                *counts.last_error.lock().await = format!("table {}: {e}", id.0);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Interactions the people sent: every press, and the move buttons.
#[derive(Default)]
struct Counts {
    presses: AtomicUsize,
    move_clicks: AtomicUsize,
    /// What went wrong last, said if the tables stop.
    last_error: Mutex<String>,
}

/// Four people of group `g`.
fn people(g: u64) -> [User; 4] {
    let base = 1000 + g * 10;
    [
        User {
            admin: true,
            ..User::new(base + 1, "Ann")
        },
        User::new(base + 2, "Boris"),
        User::new(base + 3, "Chloe"),
        User::new(base + 4, "Dmitri"),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_split_between_replicas_are_served_through_kills_of_the_serving_one() {
    let started = Instant::now();
    let url = fresh_url();
    let fake = FakeDiscord::start().await;
    fake.set_shards(SHARDS as u64, None);
    // One server on each shard: GUILD_ID's (where CHANNEL is) and two more.
    let mut servers: Vec<(u64, u64)> = vec![(GUILD_ID, CHANNEL)];
    for k in 1..SHARDS as u64 {
        let guild = GUILD_ID + (k << 22);
        let channel = CHANNEL + 10 + k;
        fake.place_channel(channel, guild);
        servers.push((guild, channel));
    }
    let mut on_shards: Vec<u64> = servers
        .iter()
        .map(|(g, _)| shard_of(*g, SHARDS as u64))
        .collect();
    on_shards.sort_unstable();
    assert_eq!(on_shards, [0, 1, 2], "one server on each shard");

    let dir = tempfile::tempdir().unwrap();
    let api = fake.api_url();
    let env: Vec<(&str, &str)> = vec![
        ("DISCORD_TOKEN", TOKEN),
        ("DISCORD_API_URL", &api),
        ("DATABASE_URL", &url),
        ("KOZYR_TURN_SECONDS", "0"),
        ("RUST_LOG", "warn,kozyr::replica=info"),
    ];
    let mut replicas: Vec<Replica> = (0..SHARDS).map(|n| Replica::start(&dir, n, &env)).collect();
    let (first, _) = serving_after(&mut replicas, started).await;
    // The standbys connect their shards too.
    every_shard_live(&fake).await;
    let serving = Arc::new(AtomicUsize::new(first));

    let store = PgStore::open_existing(&StoreOptions::new(&url))
        .await
        .expect("the test's own connection");
    let mut groups = Vec::new();
    for (g, (guild, channel)) in servers.iter().enumerate() {
        let w = World {
            fake: fake.clone(),
            dir: tempfile::tempdir().unwrap(),
            users: people(g as u64),
            bot: None,
            child: None,
            reader: None,
            pg_reader: Some(store.clone()),
            answers: (4, 7),
            defer_after: Duration::from_secs(2),
            turn_alerts: None,
            channel: *channel,
            discord_shards: None,
            // Unused: the bots are `kozyr run` children, at their own rates.
            press_rates: kozyr::front::press_limits::PressRates::PEOPLE,
        };
        // Opened, joined and started through whichever shard the server
        // is on: two of them a standby's.
        let id = open_and_start(&w, "kozel").await;
        let t = store.table(id).await.expect("read").expect("table");
        let shard = shard_of(*guild, SHARDS as u64) as usize;
        groups.push((Arc::new(w), id, deal_no(&t), shard));
    }

    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let mut players = Vec::new();
    let mut acked = Vec::new();
    let mut played = Vec::new();
    for (w, id, _, shard) in &groups {
        let a = Arc::new(Mutex::new(Vec::new()));
        acked.push(a.clone());
        let tables = Arc::new(Mutex::new(vec![*id]));
        played.push(tables.clone());
        players.push(tokio::spawn(play(
            w.clone(),
            store.clone(),
            tables,
            *shard,
            serving.clone(),
            stop.clone(),
            a,
            counts.clone(),
        )));
    }

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x7370_6c69_7473);
    let mut takeovers = Vec::new();
    let storm_began = Instant::now();
    while storm_began.elapsed() < STORM {
        tokio::time::sleep(Duration::from_millis(rng.random_range(1_500..3_500))).await;
        // Each kill finds every shard connected: the restarted replica's
        // included, so presses go through every shard in between.
        every_shard_live(&fake).await;
        let was = serving.load(Ordering::Relaxed);
        let killed_at = Instant::now();
        replicas[was].kill();
        replicas[was] = Replica::start(&dir, was, &env);
        let (next, at) = serving_after(&mut replicas, killed_at).await;
        takeovers.push(at.duration_since(killed_at));
        serving.store(next, Ordering::Relaxed);
    }
    let storm_ended = Instant::now();
    let storm = storm_ended - storm_began;

    // Play on until every group's table finished the deal it was in.
    for tables in &played {
        let id = *tables.lock().await.last().expect("a table");
        let t = store.table(id).await.expect("read").expect("table");
        println!(
            "discord_split: after the kills table {} is {:?} at version {}, awaiting {:?}; last trouble: {}",
            id.0,
            t.phase(),
            t.version(),
            t.awaiting(),
            counts.last_error.lock().await
        );
    }
    for tables in &played {
        let id = *tables.lock().await.last().expect("a table");
        let t = store.table(id).await.expect("read").expect("table");
        let deal = deal_no(&t);
        eventually(
            Duration::from_secs(90),
            Duration::from_millis(100),
            "a deal ends at each table",
            || async {
                let now = *tables.lock().await.last().expect("a table");
                let t = store.table(id).await.expect("read").expect("table");
                (now != id || t.phase() != Phase::Playing || deal_no(&t) > deal).then_some(())
            },
        )
        .await;
    }
    stop.store(true, Ordering::Relaxed);
    for p in players {
        p.await.expect("a player");
    }
    every_shard_live(&fake).await;
    for n in 0..SHARDS {
        let url = format!("http://127.0.0.1:{}/metrics", metrics_port(n));
        let want = format!("kozyr_gateway_shards_connected{{shard=\"{n}/{SHARDS}\"}} 1\n");
        eventually(
            Duration::from_secs(20),
            Duration::from_millis(50),
            "each replica's metrics say its shard is connected",
            || async {
                let body = reqwest::get(&url).await.ok()?.text().await.ok()?;
                body.contains(&want).then_some(())
            },
        )
        .await;
    }

    let mut moves = 0;
    let mut answered = 0;
    let mut via_standby = 0;
    let mut lost = 0;
    let mut moves_by_people = 0;
    let mut tables_played = 0;
    for (tables, acked) in played.iter().zip(&acked) {
        let acked = acked.lock().await;
        answered += acked.len();
        via_standby += acked.iter().filter(|a| a.via_standby).count();
        for id in tables.lock().await.iter() {
            tables_played += 1;
            let acted: Vec<(u64, Seat, Mover)> = store
                .events(*id)
                .await
                .expect("events")
                .into_iter()
                .filter_map(|(v, e)| match e {
                    TableEvent::Acted { seat, by, .. } => Some((v, seat, by)),
                    _ => None,
                })
                .collect();
            moves += acted.len();
            moves_by_people += acted.iter().filter(|m| m.2 == Mover::Person).count();
            for a in acked.iter().filter(|a| a.table == *id) {
                // The next move after the version it was pressed at is it.
                let next = acted.iter().find(|m| m.0 > a.version).map(|m| (m.1, m.2));
                if next != Some((a.seat, Mover::Person)) {
                    lost += 1;
                }
            }
        }
    }
    // Each move's press counts once: no more of the people's moves in the
    // logs than move buttons were clicked.
    let person_moves = moves_by_people;
    let clicked = counts.move_clicks.load(Ordering::Relaxed);
    let doubled = person_moves.saturating_sub(clicked);
    let calls = fake.calls();
    let limited = calls.iter().filter(|c| c.status == 429).count();
    // Discord's global limit: 50 calls a second with the bot's token
    // (interaction answers and edits through their tokens are not counted).
    let bot_calls: Vec<Instant> = calls
        .iter()
        .filter(|c| !c.route.contains(" /interactions/") && !c.route.contains(" /webhooks/"))
        .map(|c| c.at)
        .collect();
    let peak_in = |from: Instant, to: Instant| {
        bot_calls
            .iter()
            .filter(|at| **at >= from && **at <= to)
            .map(|start| {
                bot_calls
                    .iter()
                    .filter(|at| {
                        **at >= *start && at.duration_since(*start) < Duration::from_secs(1)
                    })
                    .count()
            })
            .max()
            .unwrap_or(0)
    };
    let peak = peak_in(started, Instant::now());
    let storm_peak = peak_in(storm_began, storm_ended);
    let violations: Vec<String> = fake.violations();
    let twice = violations
        .iter()
        .filter(|v| v.ends_with("answered twice"))
        .count();
    takeovers.sort();
    let pick = |q: f64| {
        let i = ((takeovers.len() as f64 * q).ceil() as usize).clamp(1, takeovers.len()) - 1;
        takeovers[i].as_millis()
    };
    println!(
        "discord_split: {} kills of the serving replica (of {SHARDS}, one shard each) in {:.0} s; \
         {} interactions pressed, {tables_played} tables, {answered} moves answered ({via_standby} through a standby's \
         shard), {moves} moves in the logs, lost {lost}, doubled {doubled}; answered twice {twice}; \
         take-over p50 {} ms p99 {} ms max {} ms; {} IDENTIFYs; 429s {limited}; bot-token calls peak {peak}/s, during the kills {storm_peak}/s",
        takeovers.len(),
        storm.as_secs_f64(),
        counts.presses.load(Ordering::Relaxed),
        pick(0.5),
        pick(0.99),
        pick(1.0),
        fake.identified_shards().len(),
    );
    assert!(takeovers.len() >= 5, "the serving replica was killed");
    // The shards a standby ran were handed to it as it took over, not
    // connected anew: one IDENTIFY per replica started, none per takeover.
    assert_eq!(
        fake.identified_shards().len(),
        SHARDS + takeovers.len(),
        "a shard identified again at a takeover"
    );
    assert!(
        answered > 0 && via_standby > 0,
        "moves came through standbys"
    );
    assert_eq!((lost, doubled), (0, 0), "every answered move once");
    assert_eq!(limited, 0, "no 429");
    // Discord's global limit holds in every second, the tables' opening
    // burst included and while the serving replica is killed and replaced
    // (one process sends at a time).
    assert!(
        peak <= 50 && storm_peak <= 50,
        "Discord's global limit: {peak} calls in a second ({storm_peak} during the kills)"
    );
    // A replica killed after answering an interaction from the inbox but
    // before deleting its row leaves it to the next, whose answer Discord
    // refuses (the move itself is applied once): nothing else is wrong.
    assert_eq!(
        violations
            .iter()
            .filter(|v| !v.ends_with("answered twice"))
            .collect::<Vec<_>>(),
        Vec::<&String>::new()
    );
    drop(replicas);
    store.close().await;
    println!(
        "discord_split: ok in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// What the database keeps of the burying count of `channel`.
async fn kept_count(db: &sqlx::PgPool, channel: u64) -> Option<i64> {
    sqlx::query_scalar("SELECT messages FROM chat_burials WHERE platform = 'discord' AND chat = $1")
        .bind(channel.to_string())
        .fetch_optional(db)
        .await
        .expect("read the kept count")
}

/// Chat counted by one serving replica still counts after another took
/// over: 14 lines said below the table (through the standby's shard and
/// the inbox), the serving replica killed, one line more — 15, buried —
/// and the next move posts the table anew below the chat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_counted_before_a_takeover_still_buries_the_table_after_it() {
    let started = Instant::now();
    let url = fresh_url();
    let fake = FakeDiscord::start().await;
    fake.set_shards(2, None);
    // CHANNEL's server is on shard 1 of 2: the standby's.
    assert_eq!(shard_of(GUILD_ID, 2), 1);
    let dir = tempfile::tempdir().unwrap();
    let api = fake.api_url();
    let env: Vec<(&str, &str)> = vec![
        ("DISCORD_TOKEN", TOKEN),
        ("DISCORD_API_URL", &api),
        ("DATABASE_URL", &url),
        ("KOZYR_TURN_SECONDS", "0"),
        ("RUST_LOG", "warn,kozyr::replica=info"),
    ];
    let mut replicas = vec![Replica::start_of(&dir, 0, 2, &env)];
    let (first, _) = serving_after(&mut replicas, started).await;
    assert_eq!(first, 0);
    replicas.push(Replica::start_of(&dir, 1, 2, &env));
    every_shard_live_of(&fake, 2).await;

    let store = PgStore::open_existing(&StoreOptions::new(&url))
        .await
        .expect("the test's own connection");
    let db = sqlx::PgPool::connect(&url)
        .await
        .expect("the test's own connection");
    let w = World {
        fake: fake.clone(),
        dir: tempfile::tempdir().unwrap(),
        users: people(0),
        bot: None,
        child: None,
        reader: None,
        pg_reader: Some(store.clone()),
        answers: (4, 7),
        defer_after: Duration::from_secs(2),
        turn_alerts: None,
        channel: CHANNEL,
        discord_shards: None,
        press_rates: kozyr::front::press_limits::PressRates::PEOPLE,
    };
    let id = open_and_start(&w, "kozel").await;
    let hand = format!("hand:{}", id.0);
    let live_table = || {
        w.fake
            .seen_by(&w.users[0], CHANNEL)
            .into_iter()
            .rev()
            .find(|m| !m.ephemeral && m.buttons.iter().any(|(_, c)| *c == hand))
            .map(|m| m.id)
    };
    let table_message = eventually(
        Duration::from_secs(10),
        Duration::from_millis(10),
        "the table message",
        || std::future::ready(live_table()),
    )
    .await;

    let buried_after = kozyr::delivery::burial::BURIED_AFTER;
    for k in 0..buried_after - 1 {
        w.fake
            .say(&w.users[k as usize % 4], CHANNEL, &format!("nice one {k}"));
    }
    let want = i64::from(buried_after - 1);
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(50),
        "the serving replica keeps the count",
        || async { (kept_count(&db, CHANNEL).await == Some(want)).then_some(()) },
    )
    .await;

    // The serving replica dies; the standby serves on its own shard's
    // connection, the killed one comes back as a standby.
    let killed_at = Instant::now();
    replicas[0].kill();
    let (next, _) = serving_after_but(&mut replicas, killed_at, Some(0)).await;
    assert_eq!(next, 1);
    replicas[0] = Replica::start_of(&dir, 0, 2, &env);
    every_shard_live_of(&fake, 2).await;

    // One line more: the count goes on from 14.
    let last_chat = w.fake.say(&w.users[1], CHANNEL, "and one more");
    let want = i64::from(buried_after);
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(50),
        "the count goes on after the takeover",
        || async { (kept_count(&db, CHANNEL).await == Some(want)).then_some(()) },
    )
    .await;
    let t = w.table(id).await;
    w.play_safe(&t).await;
    w.wait_version_after(id, t.version()).await;
    let fresh = eventually(
        Duration::from_secs(10),
        Duration::from_millis(10),
        "the table posted anew below the chat",
        || std::future::ready(live_table().filter(|m| *m > last_chat)),
    )
    .await;
    assert_ne!(fresh, table_message);
    eventually(
        Duration::from_secs(10),
        Duration::from_millis(50),
        "nothing below the new table message",
        || async { (kept_count(&db, CHANNEL).await == Some(0)).then_some(()) },
    )
    .await;
    drop(replicas);
    db.close().await;
    store.close().await;
}
