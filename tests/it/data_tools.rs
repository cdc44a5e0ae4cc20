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

/// A loopback port nothing listens on (connections are refused).
fn refused_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Someone the bot's files do not belong to: as root (CI) the bot runs as
/// `nobody`, since root may write any file whatever its mode.
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Makes `file` read-only for the user `as_bot` runs as: as root, a file
/// of root's; anyone else's loses the write bit.
fn read_only(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if is_root() {
        std::os::unix::fs::chown(file, Some(0), Some(0)).unwrap();
        0o644
    } else {
        0o444
    };
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Gives `file` back to the user `as_bot` runs as, writable.
fn writable_again(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if is_root() {
        std::os::unix::fs::chown(file, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
}

fn as_bot(mut cmd: Process) -> Process {
    if is_root() {
        use std::os::unix::process::CommandExt;
        cmd.uid(NOBODY).gid(NOBODY);
    }
    cmd
}

/// A database the bot cannot write used to start a bot that polled and
/// answered every move "try again", healthy; after the file was made
/// writable, its `-wal` and `-shm` still were not.
#[tokio::test]
async fn the_bot_refuses_to_start_on_a_database_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let url = db_url(dir.path());
    kozyr::store::Store::open(&kozyr::store::StoreOptions::new(&url))
        .await
        .unwrap()
        .close()
        .await;
    if is_root() {
        // The folder is the bot's; the files are another user's.
        std::os::unix::fs::chown(dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let db = dir.path().join("kozyr.db");
    let wal = dir.path().join("kozyr.db-wal");
    let shm = dir.path().join("kozyr.db-shm");
    let named = |line: &str, f: &Path| line.contains(&format!("{} (uid", f.display()));
    read_only(&db);
    let api = format!("http://127.0.0.1:{}/", refused_port());
    let start = || {
        run_to_end(as_bot(kozyr(
            dir.path(),
            &["run"],
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("TELOXIDE_API_URL", &api),
                ("DATABASE_URL", &url),
            ],
        )))
    };
    // SQLite opens the file read-only without a word, and with nothing to
    // migrate it is only read at start: the bot used to start.
    let o = start();
    assert!(!o.status.success(), "the bot started: {}", text(&o.stderr));
    let line = text(&o.stderr);
    assert!(
        line.starts_with(&format!(
            "kozyr: cannot open the database {}: ",
            db.display()
        )),
        "{line}"
    );
    assert!(
        named(&line, &db) && line.contains("is not writable by uid"),
        "{line}"
    );

    // As a bot killed mid-run as another user leaves them.
    for f in [&wal, &shm] {
        if !f.exists() {
            std::fs::write(f, b"").unwrap();
        }
        read_only(f);
    }
    let o = start();
    assert!(!o.status.success(), "the bot started: {}", text(&o.stderr));
    let said = text(&o.stderr);
    assert_eq!(said.lines().count(), 1, "{said}");
    let line = said.trim();
    assert!(
        line.starts_with(&format!(
            "kozyr: cannot open the database {}: ",
            db.display()
        )),
        "{line}"
    );
    for f in [&db, &wal, &shm] {
        assert!(named(line, f), "{line}");
    }
    assert!(line.contains("are not writable by uid"), "{line}");

    // The file is fixed, its companions are not.
    writable_again(&db);
    let o = start();
    assert!(!o.status.success(), "the bot started: {}", text(&o.stderr));
    let line = text(&o.stderr);
    assert!(
        named(&line, &wal) && named(&line, &shm) && !named(&line, &db),
        "{line}"
    );
}
