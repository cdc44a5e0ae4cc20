//! The database as operators meet it (issues 21 and 22), through the
//! `kozyr` binary itself (`CARGO_BIN_EXE_kozyr`) in a temporary folder with
//! a clean environment: the health check of a stopped bot, a database the
//! bot cannot write, data tools that only read, exports that say what they
//! wrote, databases from a newer kozyr or damaged.

use std::path::Path;
use std::process::{Command as Process, Output, Stdio};
use std::time::{Duration, Instant};

use kozyr::fakebot::{FakeBot, FakeBotConfig};

const TOKEN: &str = "123456:DATA-fake-token-kozyr-data-tools-tests-0123456";

/// `kozyr` with only the variables given (no `.env`: it runs in `dir`).
fn kozyr(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Process {
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_kozyr"));
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

fn run_to_end(mut cmd: Process) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kozyr");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kozyr did not exit within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn db_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("kozyr.db").display())
}

/// The health check used to stay green for up to 60 s after the bot had
/// stopped (until its heartbeat went stale).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_fails_as_soon_as_the_bot_stopped() {
    let fake = FakeBot::start_with(FakeBotConfig {
        token: TOKEN.into(),
        ..FakeBotConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let url = db_url(dir.path());
    let api = fake.api_url().to_string();
    let env = [
        ("TELOXIDE_TOKEN", TOKEN),
        ("TELOXIDE_API_URL", api.as_str()),
        ("DATABASE_URL", url.as_str()),
        ("RUST_LOG", "info"),
    ];
    let mut bot = kozyr(dir.path(), &["run"], &env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let root = dir.path().to_path_buf();
    let healthy = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let o = run_to_end(kozyr(
                &root,
                &["healthcheck"],
                &[("DATABASE_URL", &db_url(&root))],
            ));
            if o.status.success() {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    })
    .await
    .unwrap();
    assert!(healthy, "the running bot never became healthy");
    let term = Process::new("kill")
        .args(["-TERM", &bot.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let stopped = tokio::task::spawn_blocking(move || bot.wait().unwrap())
        .await
        .unwrap();
    assert!(stopped.success(), "{stopped:?}");
    let o = run_to_end(kozyr(
        dir.path(),
        &["healthcheck"],
        &[("DATABASE_URL", &url)],
    ));
    assert!(!o.status.success(), "healthy after the bot stopped");
    assert!(
        text(&o.stderr).contains("the bot stopped"),
        "{}",
        text(&o.stderr)
    );
}
