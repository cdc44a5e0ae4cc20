//! Crash safety: the table service runs in a child process (this test
//! binary, started again to run this test in child mode) that reads
//! commands on stdin and prints an acknowledgement once each is durable.
//! The parent streams the moves of three tables, kills the child with
//! SIGKILL at random moments — with commands in flight — restarts it and
//! redelivers every command not acknowledged, as a chat platform redelivers
//! updates. At the end every acknowledged command must be in the database,
//! none applied twice, and every series played to its end.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::Duration;

use kozyr::cards::Seat;
use kozyr::game::GameKind;
use kozyr::table::runtime::{DedupKey, Request, TableService, Target};
use kozyr::table::{Actor, ChatKey, Command, Phase, SeatState, Table, TableEvent, TableId};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::support::store::{Log, TestStore};
use crate::support::{db_url, no_timer, person, respawn, skip_to_ready};

const CHILD_ENV: &str = "KOZYR_CRASH_TEST_CHILD_DB";
/// This test's full name, for the child.
const TEST: &str = "crash::sigkill_at_random_moments_loses_and_repeats_no_command";
const TABLES: u32 = 3;

/// One line of the child's input.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Line {
    Submit {
        key: String,
        chat: Option<ChatKey>,
        table: Option<TableId>,
        actor: Actor,
        command: Command,
    },
    View {
        table: TableId,
    },
}

#[test]
fn sigkill_at_random_moments_loses_and_repeats_no_command() {
    match std::env::var(CHILD_ENV) {
        Ok(url) => child(&url),
        Err(_) => parent(),
    }
}

// ---------------------------------------------------------------- child --

fn child(url: &str) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let store = TestStore::open(url).await;
        let (service, mut effects) = TableService::builder(store.shared())
            .start()
            .await
            .expect("start");
        tokio::spawn(async move { while effects.recv().await.is_some() {} });
        say("ready".into());
        let mut lines =
            tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(tokio::io::stdin()));
        while let Ok(Some(line)) = lines.next_line().await {
            let line: Line = serde_json::from_str(&line).expect("a command line");
            let service = service.clone();
            // Commands run concurrently, as updates of different chats do.
            tokio::spawn(async move { answer(&service, line).await });
        }
    });
}

async fn answer(service: &TableService, line: Line) {
    match line {
        Line::View { table } => {
            let t = service.table(table).await.expect("view");
            say(format!(
                "view {table} {}",
                serde_json::to_string(&t).expect("json")
            ));
        }
        Line::Submit {
            key,
            chat,
            table,
            actor,
            command,
        } => {
            let target = match (chat, table) {
                (Some(c), _) => Target::Chat(c),
                (None, Some(t)) => Target::Table(t),
                (None, None) => panic!("no target"),
            };
            let request = Request {
                target,
                actor,
                command,
                dedup: Some(DedupKey::opaque(key.clone())),
            };
            match service.submit(request).await {
                Ok(ack) => say(format!(
                    "ack {key} {} {} {}",
                    ack.table.map_or(0, |t| t.0),
                    ack.version,
                    ack.duplicate
                )),
                Err(e) => say(format!("err {key} {e}")),
            }
        }
    }
}

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(format!("{line}\n").as_bytes());
    let _ = out.flush();
}

// --------------------------------------------------------------- parent --

struct Running {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Running {
    fn start(url: &str) -> Running {
        let mut child = respawn(TEST)
            .env(CHILD_ENV, url)
            .env("RUST_LOG", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the child");
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        skip_to_ready(&mut stdout);
        Running {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &Line) {
        let json = serde_json::to_string(line).expect("json");
        // A child killed a moment ago cannot read; the caller finds out.
        let _ = writeln!(self.stdin, "{json}");
        let _ = self.stdin.flush();
    }

    fn recv(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "the child died unasked");
        line.trim_end().to_owned()
    }

    fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Acked {
    table: i64,
    version: u64,
}

struct Parent {
    url: String,
    run: Option<Running>,
    /// Sent, not yet acknowledged: redelivered after a restart.
    pending: BTreeMap<String, Line>,
    acked: HashMap<String, Acked>,
    /// The act commands issued per table, by key.
    acts: HashMap<i64, Vec<String>>,
    kills: u32,
    duplicates: u32,
}

impl Parent {
    fn running(&mut self) -> &mut Running {
        let url = self.url.clone();
        self.run.get_or_insert_with(|| Running::start(&url))
    }

    /// Sends commands and waits for all their acknowledgements, unless the
    /// child is killed after `kill_after` of them have arrived.
    fn submit_all(&mut self, lines: Vec<(String, Line)>, kill_after: Option<(usize, Duration)>) {
        for (key, line) in &lines {
            self.pending.insert(key.clone(), line.clone());
        }
        let run = self.running();
        for (_, line) in &lines {
            run.send(line);
        }
        let mut answered = 0;
        while answered < lines.len() {
            if let Some((n, delay)) = kill_after
                && n == answered
            {
                // Some of what is in flight commits during the delay, some not.
                std::thread::sleep(delay);
                self.kill();
                return;
            }
            let reply = self.running().recv();
            self.take_reply(&reply);
            answered += 1;
        }
    }

    fn take_reply(&mut self, reply: &str) {
        let parts: Vec<&str> = reply.split(' ').collect();
        match parts.as_slice() {
            ["ack", key, table, version, duplicate] => {
                let acked = Acked {
                    table: table.parse().expect("table"),
                    version: version.parse().expect("version"),
                };
                let line = self
                    .pending
                    .remove(*key)
                    .expect("an ack for a pending command");
                // A duplicate answers a redelivery whose first delivery was
                // applied but never acknowledged.
                if *duplicate == "true" {
                    self.duplicates += 1;
                }
                if let Some(before) = self.acked.insert((*key).to_owned(), acked) {
                    panic!("{key} acknowledged again: {before:?}");
                }
                if let Line::Submit {
                    command: Command::Act { version, .. },
                    ..
                } = line
                {
                    assert_eq!(
                        acked.version,
                        version + 1,
                        "{key} applied on top of its version"
                    );
                }
            }
            _ => panic!("unexpected reply: {reply}"),
        }
    }

    fn kill(&mut self) {
        if let Some(run) = self.run.take() {
            run.kill();
            self.kills += 1;
        }
        // Redeliver what was not acknowledged, in the order it was first sent
        // per table (keys sort by table, then version).
        let redeliver: Vec<(String, Line)> =
            std::mem::take(&mut self.pending).into_iter().collect();
        if !redeliver.is_empty() {
            self.submit_all(redeliver, None);
        }
    }

    fn view(&mut self, table: TableId) -> Table {
        let run = self.running();
        run.send(&Line::View { table });
        let reply = run.recv();
        let json = reply
            .strip_prefix(&format!("view {table} "))
            .unwrap_or_else(|| panic!("unexpected reply: {reply}"));
        let t: Option<Table> = serde_json::from_str(json).expect("a table");
        t.expect("the table exists")
    }
}

fn chat(i: u32) -> ChatKey {
    crate::support::chat(&format!("-9{i}"))
}

fn setup_lines(i: u32) -> Vec<(String, Line)> {
    let submit = |n: usize, actor: Actor, command: Command| {
        let key = format!("setup-{i}-{n}");
        (
            key.clone(),
            Line::Submit {
                key,
                chat: Some(chat(i)),
                table: None,
                actor,
                command,
            },
        )
    };
    let mut v = vec![submit(
        0,
        person(i * 10),
        Command::Create {
            kind: GameKind::Kozel,
            settings: no_timer(),
            title: format!("crash {i}"),
            sit: true,
        },
    )];
    for j in 1..4 {
        v.push(submit(
            j,
            person(i * 10 + j as u32),
            Command::Join { seat: None },
        ));
    }
    v.push(submit(4, person(i * 10), Command::Start));
    v
}

fn parent() {
    // A hung child must fail the test, not hang CI. The watchdog stands
    // down when `_done` drops (the test ended, passed or panicked), so it
    // cannot end the other tests of this binary later.
    let (_done, watchdog) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            watchdog.recv_timeout(Duration::from_secs(120))
        {
            eprintln!("crash test: timed out");
            std::process::exit(2);
        }
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let url = db_url(&dir);
    let mut p = Parent {
        url: url.clone(),
        run: None,
        pending: BTreeMap::new(),
        acked: HashMap::new(),
        acts: HashMap::new(),
        kills: 0,
        duplicates: 0,
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    // Set up the tables one command at a time (joins depend on the creation),
    // killing the child now and then here too.
    let mut tables = Vec::new();
    for i in 0..TABLES {
        for (key, line) in setup_lines(i) {
            let kill = rng
                .random_bool(0.15)
                .then(|| (0, Duration::from_micros(rng.random_range(0..8_000))));
            p.submit_all(vec![(key, line)], kill);
        }
        let table = p.acked[&format!("setup-{i}-0")].table;
        tables.push(TableId(table));
    }
    // Play: one move per unfinished table per round, all in flight at once.
    let mut rounds = 0;
    let mut next_kill = rng.random_range(2..12);
    loop {
        rounds += 1;
        assert!(rounds < 2_000, "the series do not end");
        let mut lines = Vec::new();
        for &id in &tables {
            let t = p.view(id);
            if t.phase() != Phase::Playing {
                continue;
            }
            let seat = t.awaiting()[0];
            let legal = t.game().expect("a game").legal_actions(seat);
            let action = legal[rng.random_range(0..legal.len())];
            let actor = match &t.seats()[seat] {
                SeatState::Person { player, .. } => Actor::person(player.clone()),
                _ => Actor::Ai,
            };
            let key = format!("act-{:04}-{:06}", id.0, t.version());
            p.acts.entry(id.0).or_default().push(key.clone());
            let line = Line::Submit {
                key: key.clone(),
                chat: None,
                table: Some(id),
                actor,
                command: Command::Act {
                    seat,
                    action,
                    version: t.version(),
                },
            };
            lines.push((key, line));
        }
        if lines.is_empty() {
            break;
        }
        let kill = (rounds == next_kill).then(|| {
            next_kill += rng.random_range(2..12);
            let after = rng.random_range(0..=lines.len());
            // Every other kill waits long enough for the commands in flight
            // to commit, so that redeliveries of applied commands happen.
            let delay = if p.kills.is_multiple_of(2) {
                Duration::from_millis(20)
            } else {
                Duration::from_micros(rng.random_range(0..4_000))
            };
            (after, delay)
        });
        p.submit_all(lines, kill);
    }
    if let Some(run) = p.run.take() {
        run.kill();
    }
    assert!(p.kills >= 5, "the child was killed only {} times", p.kills);
    assert!(
        p.duplicates > 0,
        "no kill fell between a commit and its acknowledgement"
    );
    assert!(p.pending.is_empty());

    // Check the database the child left behind.
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let store = TestStore::open(&url).await;
        for (key, acked) in &p.acked {
            let rec = store
                .recorded(key)
                .await
                .expect("read")
                .unwrap_or_else(|| panic!("acknowledged command {key} is not in the database"));
            assert_eq!(rec.last_version, acked.version, "{key}");
        }
        for &id in &tables {
            let snapshot = store.table(id).await.expect("read").expect("table");
            assert_eq!(
                snapshot.phase(),
                Phase::Finished,
                "table {id} played to the end"
            );
            let replayed = store.replay(id).await.expect("replay").expect("log");
            assert_eq!(
                replayed, snapshot,
                "table {id}: the log replays to the snapshot"
            );
            // Exactly the acknowledged moves, each once.
            let acted: Vec<u64> = store
                .events(id)
                .await
                .expect("events")
                .into_iter()
                .filter(|(_, e)| matches!(e, TableEvent::Acted { .. }))
                .map(|(v, _)| v)
                .collect();
            let mut acked: Vec<u64> = p.acts[&id.0].iter().map(|k| p.acked[k].version).collect();
            acked.sort();
            assert_eq!(acted, acked, "table {id}: every acknowledged move, once");
        }
        // The seats are as set up: nobody left, nobody doubled.
        for &id in &tables {
            let t = store.table(id).await.expect("read").expect("table");
            let people = Seat::ALL
                .iter()
                .filter(|&&s| t.seats()[s].person().is_some())
                .count();
            assert_eq!(people, 4);
        }
        store.close().await;
    });
    println!(
        "crash test: {} tables, {} commands acknowledged, {} kills, {} redeliveries answered from the record",
        tables.len(),
        p.acked.len(),
        p.kills,
        p.duplicates
    );
}
