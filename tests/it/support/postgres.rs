//! A throwaway PostgreSQL for the tests and the service bench, never
//! assumed to be running: `KOZYR_TEST_POSTGRES_URL` when CI started one
//! (`.ci/run`), else a cluster of this process's own, started on first
//! use from Debian's `postgresql` package (`/usr/lib/postgresql/*/bin`):
//! `initdb` on a temporary folder, the server on a unix socket in it
//! (no TCP port), `fsync=off` unless durability is measured. Tests run as
//! root and `initdb` refuses root, so the cluster runs as the `postgres`
//! user (or `nobody`). A watchdog stops the server and removes the folder
//! once this process is gone, however it ends: no server outlives the run.
//! Each test gets a fresh database of its own ([`fresh_url`]).

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The variable naming a server CI started (its `postgres` database).
pub const URL_VAR: &str = "KOZYR_TEST_POSTGRES_URL";
/// The variable that runs the whole suite's bots and their databases on
/// PostgreSQL (`KOZYR_TEST_BACKEND=postgres`; unset or `sqlite`: SQLite;
/// read by `support::store`).
pub const BACKEND_VAR: &str = "KOZYR_TEST_BACKEND";

/// The server the tests use: its admin URL (the `postgres` database).
struct Server {
    admin_url: String,
}

static SERVER: OnceLock<Server> = OnceLock::new();
static NEXT: AtomicU32 = AtomicU32::new(1);

/// A new, empty database on the test server (started if needed): its URL.
/// Blocks (a thread of its own does the async part), so any test may call
/// it, async or not.
pub fn fresh_url() -> String {
    fresh_url_with(false)
}

/// [`fresh_url`] on a server that syncs its commits to disk (`fsync=on`),
/// for figures of durable commits. Only the first caller in a process
/// chooses; CI's server is taken as it is.
pub fn fresh_url_with(durable: bool) -> String {
    let server = SERVER.get_or_init(|| match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() => Server { admin_url: url },
        _ => Server {
            admin_url: start_cluster(durable),
        },
    });
    let name = format!(
        "kozyr_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let admin = server.admin_url.clone();
    let create = name.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            use sqlx::Connection;
            let mut conn = sqlx::PgConnection::connect(&admin)
                .await
                .unwrap_or_else(|e| panic!("cannot reach the test PostgreSQL at {admin}: {e}"));
            // The name is this function's own.
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {create}")))
                .execute(&mut conn)
                .await
                .expect("create the test database");
            conn.close().await.expect("close");
        });
    })
    .join()
    .expect("the database was created");
    with_database(&server.admin_url, &name)
}

/// `url` naming database `name` instead.
fn with_database(url: &str, name: &str) -> String {
    let mut u = url::Url::parse(url).expect("the test PostgreSQL URL");
    u.set_path(&format!("/{name}"));
    u.to_string()
}

/// The newest PostgreSQL server installed (Debian's layout).
fn server_bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|bin| bin.join("initdb").is_file() && bin.join("postgres").is_file())
        .collect();
    found.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    found.pop().unwrap_or_else(|| {
        panic!(
            "the PostgreSQL tests need a PostgreSQL server: none in /usr/lib/postgresql/*/bin \
             (apt-get install postgresql), or set {URL_VAR} to a server's URL"
        )
    })
}

/// The user and group the cluster runs as: this process's own, unless it
/// is root (which `initdb` and `postgres` refuse).
fn cluster_user() -> Option<(u32, u32)> {
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok()?;
    if me != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let entry = |name: &str| {
        passwd.lines().find_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            if f.first() != Some(&name) || f.len() < 4 {
                return None;
            }
            Some((f[2].parse().ok()?, f[3].parse().ok()?))
        })
    };
    Some(
        entry("postgres")
            .or_else(|| entry("nobody"))
            .unwrap_or((65534, 65534)),
    )
}

fn as_cluster_user(cmd: &mut Command, user: Option<(u32, u32)>) -> &mut Command {
    if let Some((uid, gid)) = user {
        cmd.gid(gid).uid(uid);
    }
    cmd
}

/// Starts a cluster in a new temporary folder; returns its admin URL.
fn start_cluster(durable: bool) -> String {
    let bin = server_bin();
    let user = cluster_user();
    let dir = tempfile::Builder::new()
        .prefix("kozyr-pg-")
        .tempdir()
        .expect("a temporary folder")
        .keep();
    if let Some((uid, gid)) = user {
        std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).expect("chown the cluster folder");
    }
    let data = dir.join("data");
    let out = as_cluster_user(
        Command::new(bin.join("initdb"))
            .args(["--auth=trust", "--username=postgres", "--encoding=UTF8"])
            .args(["--locale=C", "--no-sync", "-D"])
            .arg(&data),
        user,
    )
    .output()
    .expect("run initdb");
    assert!(
        out.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fsync = if durable { "on" } else { "off" };
    let log = std::fs::File::create(dir.join("server.log")).expect("the server log");
    if let Some((uid, gid)) = user {
        std::os::unix::fs::chown(dir.join("server.log"), Some(uid), Some(gid)).expect("chown");
    }
    let mut server = as_cluster_user(
        Command::new(bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .args(["-c", "listen_addresses=", "-c"])
            .arg(format!("unix_socket_directories={}", dir.display()))
            .args(["-c", &format!("fsync={fsync}"), "-c", "max_connections=300"])
            .args(["-c", "shared_buffers=32MB"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log),
        user,
    )
    .spawn()
    .expect("start postgres");
    watch(server.id(), &dir);
    // Reaped if it ever stops while this process runs.
    std::thread::spawn(move || server.wait());
    let url = format!(
        "postgres://postgres@localhost/postgres?host={}",
        dir.display()
    );
    wait_ready(&bin, &dir);
    url
}

/// A watchdog of its own (it outlives this process): once this process is
/// gone, it stops the server at once (SIGQUIT, nothing to keep) and removes
/// the folder.
fn watch(server: u32, dir: &Path) {
    let script = format!(
        "while kill -0 {me} 2>/dev/null; do sleep 1; done; kill -QUIT {server} 2>/dev/null; \
         while kill -0 {server} 2>/dev/null; do sleep 0.2; done; rm -rf '{dir}'",
        me = std::process::id(),
        dir = dir.display(),
    );
    let mut watchdog = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start the watchdog");
    std::thread::spawn(move || watchdog.wait());
}

fn wait_ready(bin: &Path, dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = Command::new(bin.join("pg_isready"))
            .arg("-h")
            .arg(dir)
            .args(["-U", "postgres", "-q"])
            .status()
            .is_ok_and(|s| s.success());
        if ready {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the test PostgreSQL did not start within 60 s: {}",
            std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
