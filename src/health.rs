//! A shell-free container health check. The running bot touches a heartbeat
//! file while its update loop is alive; `kozyr healthcheck` (the Docker
//! `HEALTHCHECK`) succeeds only while that file is fresh and says `alive`.
//! The file also carries what the bot knows is wrong (commits failing, its
//! database files changed under it: "unhealthy: …", written as soon as the
//! store's health changes) and that it stopped ("stopped", written at a
//! graceful stop), so neither waits for the heartbeat to go stale.
//!
//! A replica standing by (several `kozyr run` on one PostgreSQL database,
//! one serving: [`crate::replica`]) beats `standby`: it is healthy, so a
//! supervisor leaves it running, and the check tells it from the serving
//! one ([`Role`]).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How often the bot touches the heartbeat file.
pub const BEAT_EVERY: Duration = Duration::from_secs(10);
/// A heartbeat older than this means the bot is stuck or gone.
pub const STALE_AFTER: Duration = Duration::from_secs(60);

/// The heartbeat file: `KOZYR_HEALTH_FILE`, or `kozyr.alive` beside the database.
pub fn heartbeat_path(health_file: Option<&str>, database_url: &str) -> PathBuf {
    if let Some(p) = health_file.filter(|p| !p.trim().is_empty()) {
        return PathBuf::from(p);
    }
    // A PostgreSQL database has no folder of ours: the bot's own.
    if database_url.starts_with("postgres") {
        return PathBuf::from("kozyr.alive");
    }
    let db = database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"))
        .unwrap_or(database_url);
    let db = db.split('?').next().unwrap_or(db);
    Path::new(db)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(
            || PathBuf::from("kozyr.alive"),
            |dir| dir.join("kozyr.alive"),
        )
}

const ALIVE: &str = "alive";
const STANDBY: &str = "standby";
const STOPPED: &str = "stopped";
const UNHEALTHY: &str = "unhealthy: ";

/// Records that the bot is alive now, and `problem` if something is wrong.
pub fn beat(path: &Path, problem: Option<&str>) -> std::io::Result<()> {
    let line = match problem {
        None => ALIVE.to_owned(),
        // One line: the check prints it as its reason.
        Some(p) => format!("{UNHEALTHY}{}", p.replace('\n', " ")),
    };
    std::fs::write(path, format!("{line}\n"))
}

/// Records that this replica is alive and standing by: it serves nothing
/// until the serving replica goes.
pub fn beat_standby(path: &Path) -> std::io::Result<()> {
    std::fs::write(path, format!("{STANDBY}\n"))
}

/// Records that the bot stopped: the check fails at once, not only once
/// the heartbeat has gone stale.
pub fn mark_stopped(path: &Path) -> std::io::Result<()> {
    std::fs::write(path, format!("{STOPPED}\n"))
}

/// Why the health check failed.
#[derive(Debug, thiserror::Error)]
pub enum Unhealthy {
    #[error("no heartbeat at {0}: is the bot running?")]
    Missing(PathBuf),
    #[error("the last heartbeat is {0:?} old")]
    Stale(Duration),
    #[error("the bot stopped (heartbeat {0})")]
    Stopped(PathBuf),
    #[error("the bot reports: {0}")]
    Reported(String),
}

/// What a healthy bot is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Serving,
    StandingBy,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Serving => "up and serving",
            Role::StandingBy => "up, standing by",
        })
    }
}

/// Checks the heartbeat against `now`: healthy, and in which role.
pub fn check(path: &Path, now: SystemTime) -> Result<Role, Unhealthy> {
    let missing = || Unhealthy::Missing(path.to_path_buf());
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|_| missing())?;
    let said = std::fs::read_to_string(path).map_err(|_| missing())?;
    let said = said.trim();
    if said == STOPPED {
        return Err(Unhealthy::Stopped(path.to_path_buf()));
    }
    if let Some(problem) = said.strip_prefix(UNHEALTHY) {
        return Err(Unhealthy::Reported(problem.to_owned()));
    }
    let age = now.duration_since(modified).unwrap_or_default();
    if age > STALE_AFTER {
        Err(Unhealthy::Stale(age))
    } else if said == STANDBY {
        Ok(Role::StandingBy)
    } else {
        Ok(Role::Serving)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeat_lives_beside_the_database() {
        let p = |h, d| heartbeat_path(h, d).display().to_string();
        assert_eq!(p(None, "sqlite:///data/kozyr.db"), "/data/kozyr.alive");
        assert_eq!(p(None, "sqlite://kozyr.db"), "kozyr.alive");
        assert_eq!(p(None, "sqlite://dir/k.db?mode=rwc"), "dir/kozyr.alive");
        assert_eq!(p(Some("/tmp/x"), "sqlite://kozyr.db"), "/tmp/x");
        assert_eq!(p(None, "postgres://k@db/kozyr"), "kozyr.alive");
    }

    #[test]
    fn fresh_stale_and_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kozyr.alive");
        assert!(matches!(
            check(&path, SystemTime::now()),
            Err(Unhealthy::Missing(_))
        ));
        beat(&path, None).unwrap();
        assert!(check(&path, SystemTime::now()).is_ok());
        let later = SystemTime::now() + STALE_AFTER + Duration::from_secs(5);
        assert!(matches!(check(&path, later), Err(Unhealthy::Stale(_))));
    }

    #[test]
    fn a_fresh_heartbeat_with_a_problem_or_of_a_stopped_bot_is_unhealthy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kozyr.alive");
        beat(&path, Some("commits fail: database or disk is full\nmore")).unwrap();
        let e = check(&path, SystemTime::now()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the bot reports: commits fail: database or disk is full more"
        );
        beat(&path, None).unwrap();
        assert!(check(&path, SystemTime::now()).is_ok());
        mark_stopped(&path).unwrap();
        let e = check(&path, SystemTime::now()).unwrap_err();
        assert!(matches!(e, Unhealthy::Stopped(_)), "{e}");
        // The next start beats over it.
        beat(&path, None).unwrap();
        assert!(check(&path, SystemTime::now()).is_ok());
    }

    #[test]
    fn a_standby_is_healthy_and_told_from_the_serving_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kozyr.alive");
        beat_standby(&path).unwrap();
        let role = check(&path, SystemTime::now()).unwrap();
        assert_eq!(role, Role::StandingBy);
        assert_eq!(role.to_string(), "up, standing by");
        let later = SystemTime::now() + STALE_AFTER + Duration::from_secs(5);
        assert!(matches!(check(&path, later), Err(Unhealthy::Stale(_))));
        beat(&path, None).unwrap();
        let role = check(&path, SystemTime::now()).unwrap();
        assert_eq!(role, Role::Serving);
        assert_eq!(role.to_string(), "up and serving");
    }
}
