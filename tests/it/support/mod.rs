//! Helpers the integration tests share: child processes, temporary
//! databases, players and chats, the bot's configuration against the fake,
//! the buttons of a move, waiting, the real binary. Each platform's tests
//! play in that platform's one `World`: [`telegram::World`] and
//! [`discord::World`].

/// The Discord world: the strict fake Discord, four people in a channel.
pub mod discord;
/// Playing a deal, over what every platform's `World` does.
pub mod play;
/// A throwaway PostgreSQL server: CI's, or one this process starts.
pub mod postgres;
/// `kozyr run` replicas on one PostgreSQL, and the checks of their games.
pub mod replicas;
/// The database of the backend `KOZYR_TEST_BACKEND` chooses, and the
/// tests' view of it.
pub mod store;
/// The Telegram world: the fake Bot API, people in a group; and the set-up
/// of the tests that SIGKILL the bot.
pub mod telegram;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use kozyr::cards::CardSet;
use kozyr::config::Config;
use kozyr::delivery::pacing::{BotBudget, PacerConfig};
use kozyr::front::action::{Press, TableAction};
use kozyr::front::press_limits::PressRates;
use kozyr::game::GameAction;
use kozyr::table::runtime::ServiceOptions;
use kozyr::table::{Actor, ChatKey, Lang, Platform, Player, Settings, Table, UserId};
use kozyr::telegram::bot::Tuning;
use kozyr::{hearts, kozel};
use kozyr_test_kit::fakebot::FakeBot;

/// The source files of module `dir` of the product: `src/<dir>.rs` if
/// there is one, and every `.rs` file below `src/<dir>/`, tests too;
/// sorted. A `dir` under `crates/` is a path in the workspace instead
/// (`crates/front/src/select`). Panics when there are none (a module
/// renamed away would leave a check over its files with nothing to check).
pub fn source_files(dir: &str) -> Vec<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = if dir.starts_with("crates/") {
        workspace.to_path_buf()
    } else {
        workspace.join("src")
    };
    let file = root.join(format!("{dir}.rs"));
    let mut out = Vec::new();
    if file.is_file() {
        out.push(file);
    }
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    assert!(
        !out.is_empty(),
        "no source under {}",
        root.join(dir).display()
    );
    out.sort();
    out
}

/// This test binary, started again to run only the test named `test` (its
/// full path, e.g. `crash::name`): the child half of a test that needs a
/// process to SIGKILL. The caller sets the environment variable that turns
/// the test into the child. Read the child's stdout with [`skip_to_ready`]:
/// the test harness prints its own lines first.
pub fn respawn(test: &str) -> Command {
    let exe = std::env::current_exe().expect("own path");
    let mut cmd = Command::new(exe);
    // Terse output on one thread prints nothing while the test runs, and
    // `--nocapture` lets the child's `println!` through to the parent.
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1", "-q"]);
    cmd
}

/// Reads the child's stdout up to and including its `ready` line,
/// skipping what the test harness printed before it.
pub fn skip_to_ready<R: Read>(out: &mut BufReader<R>) {
    let mut seen = Vec::new();
    loop {
        let mut line = String::new();
        let n = out.read_line(&mut line).expect("read");
        assert!(n > 0, "the child exited before it was ready: {seen:?}");
        if line.trim() == "ready" {
            return;
        }
        seen.push(line);
    }
}

// ------------------------------------------------------------ databases --

/// The database of the test whose folder is `dir`, on the backend
/// `KOZYR_TEST_BACKEND` chooses: a SQLite file `kozyr.db` in it, or one
/// PostgreSQL database kept for that folder ([`store::url_for`]).
pub fn db_url(dir: &tempfile::TempDir) -> String {
    store::url_for(dir.path())
}

/// A new database of `backend`, whatever the switch says: a SQLite file
/// in `dir`, or a fresh database on the test PostgreSQL.
pub fn db_url_on(backend: kozyr::store::Backend, dir: &tempfile::TempDir) -> String {
    match backend {
        kozyr::store::Backend::Sqlite => store::sqlite_url(dir.path()),
        kozyr::store::Backend::Postgres => postgres::fresh_url(),
    }
}

// --------------------------------------------------- players and chats --

pub fn chat(id: &str) -> ChatKey {
    ChatKey::new(Platform::Telegram, id).unwrap()
}

pub fn player(i: u32) -> Player {
    Player::new(
        UserId::new(i.to_string()).unwrap(),
        &format!("Player {i}"),
        Lang::En,
    )
}

pub fn person(i: u32) -> Actor {
    Actor::person(player(i))
}

/// The data of a button doing `action` on table `t` as it is now (the
/// version it carries is `t`'s).
pub fn press_data(t: &Table, action: TableAction) -> String {
    Press::Table {
        table: t.id(),
        version: t.version(),
        action,
    }
    .encode()
}

/// What a person selects for `action` and what they press then: the cards
/// of the move, and the button that makes it of them. A Hearts card is
/// played with its own button, selecting nothing first.
pub fn move_buttons(action: GameAction) -> (CardSet, fn(CardSet) -> TableAction) {
    match action {
        GameAction::Kozel(kozel::Action::Lead(s)) => (s, TableAction::Lead),
        GameAction::Kozel(kozel::Action::Pass(s)) => (s, TableAction::Pass),
        GameAction::Kozel(kozel::Action::Beat(s)) => (s, TableAction::Beat),
        GameAction::Hearts(hearts::Action::PassCards(s)) => (s, TableAction::HeartsPass),
        GameAction::Hearts(hearts::Action::Play(c)) => (CardSet::single(c), |s| {
            TableAction::HeartsPlay(s.first().unwrap())
        }),
        other => panic!("unexpected action {other:?}"),
    }
}

/// Table settings without a turn timer.
pub fn no_timer() -> Settings {
    Settings {
        turn_timer: None,
        ..Settings::default()
    }
}

// ------------------------------------------- the whole bot and the fake --

/// The bot's configuration against `fake` (its token and API URL), with
/// the database of `dir` ([`db_url`]) and no turn timer.
pub fn bot_config(fake: &FakeBot, dir: &tempfile::TempDir) -> Config {
    let db = db_url(dir);
    let api = fake.api_url().to_string();
    let token = fake.token();
    Config::from_lookup(|k| match k {
        "TELOXIDE_TOKEN" => Some(token.clone()),
        "DATABASE_URL" => Some(db.clone()),
        "TELOXIDE_API_URL" => Some(api.clone()),
        "KOZYR_TURN_SECONDS" => Some("0".into()),
        _ => None,
    })
    .unwrap()
}

/// Short group pacing, no private or bot-wide pacing (the default fake
/// enforces no limits), no limit on presses, short polls and drain, and AI players without a delay,
/// so that the whole bot runs fast against the fake.
pub fn fast_tuning() -> Tuning {
    Tuning {
        group_pacing: PacerConfig {
            min_interval: Duration::from_millis(30),
            urgent_interval: Duration::from_millis(30),
            window: Duration::from_secs(60),
            max_per_window: 0,
        },
        private_pacing: PacerConfig::unpaced(),
        budget: BotBudget::UNLIMITED,
        service: ServiceOptions::default(),
        poll_timeout: Duration::from_secs(1),
        drain_for: Duration::from_secs(2),
        // Test drivers press at machine speed.
        press_rates: PressRates::UNLIMITED,
        ..Tuning::default()
    }
}

// -------------------------------------------------------------- waiting --

/// Calls `f` every `every` until it gives `Some`; fails with `what` once
/// `timeout` has passed.
pub async fn eventually<T, F: Future<Output = Option<T>>>(
    timeout: Duration,
    every: Duration,
    what: &str,
    mut f: impl FnMut() -> F,
) -> T {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(every).await;
    }
}

/// The table `read` gives, once its version is past `v`; fails after
/// `within`.
pub async fn moved_past<F: Future<Output = Table>>(
    within: Duration,
    v: u64,
    read: impl Fn() -> F,
) -> Table {
    eventually(
        within,
        Duration::from_millis(5),
        "the table did not move",
        || async {
            let t = read().await;
            (t.version() > v).then_some(t)
        },
    )
    .await
}

// ------------------------------------------------- the real binary --

/// `kozyr` with only the variables given (no `.env`: it runs in `dir`).
pub fn kozyr(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    kozyr_at(env!("CARGO_BIN_EXE_kozyr").as_ref(), dir, args, env)
}

/// [`kozyr`] from the binary at `program` (a copy another user may run).
pub fn kozyr_at(
    program: &std::path::Path,
    dir: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Runs `cmd` to its end (killed after 30 s), its output captured.
pub fn run_to_end(mut cmd: Command) -> std::process::Output {
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn kozyr");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("kozyr did not exit within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A running `kozyr`, whose stdout lines arrive on a channel. Killed on drop.
pub struct Running {
    pub child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

impl Running {
    pub fn spawn(mut cmd: Command) -> Running {
        let mut child = cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("spawn kozyr");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a new line containing `needle`; every line read is kept
    /// in `seen`.
    pub fn wait_for(&mut self, needle: &str, within: Duration) -> String {
        self.wait_for_line(within, needle, |line| line.contains(needle))
    }

    /// Waits for a new line that `wanted` accepts (`what` names it in the
    /// panic); every line read is kept in `seen`.
    pub fn wait_for_line(
        &mut self,
        within: Duration,
        what: &str,
        wanted: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = std::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if wanted(&line) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no line {what:?} within {within:?}; got:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
