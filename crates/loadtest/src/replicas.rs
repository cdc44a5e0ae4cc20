//! `kozyr-loadtest --postgres URL --replicas N`: the bot as an admin runs
//! it past one machine. This process holds the serving lease and serves
//! (so the report's freshness and the people's view of the tables come
//! from the serving replica); N − 1 standbys are `kozyr run` child
//! processes on the same PostgreSQL database. Every replica listens for
//! Telegram's webhook and the fake Bot API delivers each update to a
//! random one of them: a standby takes it into the inbox, the serving
//! replica handles it. With one replica the same webhook-and-inbox path is
//! measured without standbys, so 1 and 3 compare like with like.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sqlx::Connection;

use super::LoadError;

/// The webhook's path on every replica, and its secret.
const HOOK_PATH: &str = "/telegram/hook";
const SECRET: &str = "loadtest-webhook-secret";

/// Where the replicas of one run listen, and their settings.
pub struct Plan {
    pub database_url: String,
    /// One listen address per replica; the first is this process's.
    pub listens: Vec<SocketAddr>,
}

impl Plan {
    /// Picks free loopback ports for `replicas` webhook servers.
    pub fn new(database_url: &str, replicas: u32) -> Result<Plan, LoadError> {
        let mut listens = Vec::new();
        for _ in 0..replicas.max(1) {
            let probe = TcpListener::bind(("127.0.0.1", 0))?;
            listens.push(probe.local_addr()?);
        }
        Ok(Plan {
            database_url: database_url.to_owned(),
            listens,
        })
    }

    /// The URLs the fake delivers to: one per replica.
    pub fn hooks(&self) -> Vec<url::Url> {
        self.listens
            .iter()
            .filter_map(|a| url::Url::parse(&format!("http://{a}{HOOK_PATH}")).ok())
            .collect()
    }

    /// The settings every replica shares, plus its own webhook address.
    pub fn settings(
        &self,
        replica: usize,
        api: &str,
        token: &str,
        rate: u32,
    ) -> Vec<(String, String)> {
        vec![
            ("TELOXIDE_TOKEN".into(), token.to_owned()),
            ("TELOXIDE_API_URL".into(), api.to_owned()),
            ("DATABASE_URL".into(), self.database_url.clone()),
            ("KOZYR_TURN_SECONDS".into(), "0".into()),
            ("KOZYR_TELEGRAM_RATE".into(), rate.to_string()),
            // The URL Telegram is given stands for the load balancer (its
            // path is where every replica listens); the fake is told to
            // spread the updates over the replicas themselves.
            (
                "WEBHOOK_URL".into(),
                format!("https://loadtest.invalid{HOOK_PATH}"),
            ),
            ("WEBHOOK_LISTEN".into(), self.listens[replica].to_string()),
            ("WEBHOOK_SECRET".into(), SECRET.into()),
        ]
    }
}

/// Empties the scratch database the load test was given: every run starts
/// from no tables, as the SQLite run starts from no file.
pub async fn empty_database(url: &str) -> Result<(), LoadError> {
    let mut c = sqlx::PgConnection::connect(url)
        .await
        .map_err(|e| LoadError::Replicas(format!("cannot reach {url}: {e}")))?;
    sqlx::raw_sql("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;")
        .execute(&mut c)
        .await
        .map_err(|e| LoadError::Replicas(format!("cannot empty the scratch database: {e}")))?;
    let _ = c.close().await;
    Ok(())
}

/// The standbys: `kozyr run` children, killed when dropped.
pub struct Standbys {
    children: Vec<Child>,
    _dir: ScratchDir,
}

impl Standbys {
    /// Starts replicas 1.. of `plan` from the `kozyr` binary (the one
    /// built beside this tool, or `KOZYR_BIN`), once this process holds
    /// the lease, and waits
    /// until each one's webhook server takes connections.
    pub async fn start(
        plan: &Plan,
        api: &str,
        token: &str,
        rate: u32,
    ) -> Result<Standbys, LoadError> {
        let program = match std::env::var_os("KOZYR_BIN") {
            Some(p) => PathBuf::from(p),
            None => std::env::current_exe()?
                .with_file_name(format!("kozyr{}", std::env::consts::EXE_SUFFIX)),
        };
        if !program.is_file() {
            return Err(LoadError::Replicas(format!(
                "no kozyr binary at {} to start them from: \
                 `cargo build --release --bin kozyr` first, or set KOZYR_BIN",
                program.display()
            )));
        }
        let dir = ScratchDir::new("standbys")?;
        let mut children = Vec::new();
        for replica in 1..plan.listens.len() {
            let log = std::fs::File::create(dir.path().join(format!("replica-{replica}.log")))?;
            let mut cmd = Command::new(&program);
            cmd.arg("run")
                .current_dir(dir.path())
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("RUST_LOG", "warn")
                .env(
                    "KOZYR_HEALTH_FILE",
                    dir.path().join(format!("health-{replica}")),
                )
                .envs(plan.settings(replica, api, token, rate))
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log);
            children.push(cmd.spawn()?);
        }
        let standbys = Standbys {
            children,
            _dir: dir,
        };
        for addr in &plan.listens[1..] {
            wait_listening(*addr, Duration::from_secs(60)).await?;
        }
        Ok(standbys)
    }
}

impl Drop for Standbys {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

async fn wait_listening(addr: SocketAddr, within: Duration) -> Result<(), LoadError> {
    let deadline = Instant::now() + within;
    loop {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(LoadError::Replicas(format!(
                "a standby replica did not listen on {addr} within {within:?}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// This process's heartbeat file while it holds the lease.
pub fn heartbeat(dir: &Path) -> PathBuf {
    dir.join("health-0")
}

/// A folder of this run's own under the system's temporary folder (the
/// standbys' logs and heartbeats), removed when dropped.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    pub fn new(what: &str) -> std::io::Result<ScratchDir> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "kozyr-loadtest-{what}-{}-{stamp}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(ScratchDir(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
