//! What operators run against the database: opening an existing one
//! without ever creating it (`kozyr export`, `kozyr backup`, the health
//! check), online backups, and errors that say why a database cannot be
//! opened instead of SQLite's bare "unable to open database file".

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{CopyError, OpenError, Store, StoreError, StoreOptions};
use kozyr_table::{Phase, Platform};

/// The file behind a `sqlite://PATH` URL, made absolute so messages name
/// it whatever folder the command ran in. `None` for in-memory databases.
pub fn database_path(url: &str) -> Option<PathBuf> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let rest = rest.split('?').next().unwrap_or(rest);
    if rest.is_empty() || rest == ":memory:" {
        return None;
    }
    let path = PathBuf::from(rest);
    Some(std::path::absolute(&path).unwrap_or(path))
}

/// `sqlite://` or `sqlite:` with nothing after it would open a private
/// temporary database: every table missing, nothing kept.
pub(super) fn check_names_a_file(url: &str) -> Result<(), OpenError> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    if rest.split('?').next().unwrap_or(rest).trim().is_empty() {
        return Err(OpenError::NoFile(url.to_owned()));
    }
    Ok(())
}

/// Checks that the database file exists and is not empty, without opening
/// (and so without creating) it.
pub fn check_exists(url: &str) -> Result<PathBuf, OpenError> {
    check_names_a_file(url)?;
    let path = database_path(url).ok_or_else(|| OpenError::Missing(PathBuf::from(url)))?;
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() && m.len() > 0 => Ok(path),
        Ok(m) if m.is_file() => Err(OpenError::Empty(path)),
        Ok(_) => Err(OpenError::Open {
            path,
            cause: "it is not a file".into(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(OpenError::Missing(path)),
        Err(e) => Err(OpenError::Open {
            path,
            cause: e.to_string(),
        }),
    }
}

/// One serving process per SQLite file: `kozyr run` holds an exclusive
/// lock on `PATH.lock` beside the database for as long as it runs. SQLite
/// itself would let a second process open the file and both would then
/// cache tables, mint the same table ids and fire the same timers; several
/// processes need PostgreSQL, whose serving lease does this across hosts.
/// A separate file, not the database itself: `flock` on the database would
/// collide with SQLite's own locks where the file system emulates `flock`
/// with byte-range locks (NFS). The kernel frees the lock with the
/// process, however it ends (a kill -9 included).
#[derive(Debug)]
pub struct SqliteClaim {
    _file: std::fs::File,
}

/// Takes the SQLite database's serving claim; `Ok(None)` for an in-memory
/// database or a PostgreSQL URL (nothing to claim).
pub fn claim_sqlite(url: &str) -> Result<Option<SqliteClaim>, OpenError> {
    let Some(path) = database_path(url) else {
        return Ok(None);
    };
    let mut lock = path.as_os_str().to_owned();
    lock.push(".lock");
    let lock = PathBuf::from(lock);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .map_err(|e| OpenError::Open {
            path: lock.clone(),
            cause: e.to_string(),
        })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(SqliteClaim { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Err(OpenError::Claimed(path)),
        Err(std::fs::TryLockError::Error(e)) => Err(OpenError::Open {
            path: lock,
            cause: e.to_string(),
        }),
    }
}

/// The user a process runs as, for messages about file permissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Who {
    pub uid: u32,
    pub gid: u32,
}

impl Who {
    /// This process's user: the owner of `/proc/self` (Linux). Without
    /// procfs the messages still name the path, just not the uid.
    pub fn current() -> Option<Who> {
        std::fs::metadata("/proc/self").ok().map(|m| Who {
            uid: m.uid(),
            gid: m.gid(),
        })
    }
}

/// Whether `who` may write to a file or folder with these owner and mode
/// bits. An approximation (no supplementary groups, no ACLs): it only
/// chooses the words of an error that already happened.
fn writable(meta: &std::fs::Metadata, who: Who) -> bool {
    let mode = meta.mode();
    if who.uid == 0 {
        true
    } else if meta.uid() == who.uid {
        mode & 0o200 != 0
    } else if meta.gid() == who.gid {
        mode & 0o020 != 0
    } else {
        mode & 0o002 != 0
    }
}

/// Why `path` probably cannot be opened, as `who`: the folder is missing,
/// or the folder or file is not writable (SQLite in WAL mode writes
/// `-wal` and `-shm` files beside the database, so the folder must be
/// writable even when the file exists). `None` when nothing looks wrong.
pub fn diagnose(path: &Path, who: Option<Who>) -> Option<String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir_meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(format!(
                "directory {} does not exist (create it, or mount a volume there)",
                dir.display()
            ));
        }
        Err(e) => return Some(format!("cannot look at directory {}: {e}", dir.display())),
    };
    if !dir_meta.is_dir() {
        return Some(format!("{} is not a directory", dir.display()));
    }
    let who = who?;
    let fix = format!(
        "give it to this user (`chown -R {uid}:{gid}` on the host folder of a bind mount) \
         or use a named volume",
        uid = who.uid,
        gid = who.gid
    );
    if !writable(&dir_meta, who) {
        return Some(format!(
            "directory {} is not writable by uid {} (it belongs to uid {}, gid {}, mode {:o}); {fix}",
            dir.display(),
            who.uid,
            dir_meta.uid(),
            dir_meta.gid(),
            dir_meta.mode() & 0o7777,
        ));
    }
    // SQLite needs all three: a `-wal` or `-shm` left behind by another
    // user (or a restore as root) refuses writes as surely as the file.
    let wrong: Vec<String> = ["", "-wal", "-shm"]
        .into_iter()
        .filter_map(|suffix| {
            let file = companion(path, suffix);
            let m = std::fs::metadata(&file).ok()?;
            (!writable(&m, who)).then(|| {
                format!(
                    "{} (uid {}, gid {}, mode {:o})",
                    file.display(),
                    m.uid(),
                    m.gid(),
                    m.mode() & 0o7777
                )
            })
        })
        .collect();
    let (files, verb, fix) = match wrong.as_slice() {
        [] => return None,
        [one] => (one.clone(), "is", fix),
        [first @ .., last] => (
            format!("{} and {last}", first.join(", ")),
            "are",
            fix.replacen("give it", "give them", 1),
        ),
    };
    Some(format!(
        "{files} {verb} not writable by uid {}; {fix}",
        who.uid
    ))
}

/// The error for a database that would not open: the path, and the likely
/// cause if one can be seen, else SQLite's own words.
pub(super) fn open_error(url: &str, error: sqlx::Error) -> OpenError {
    let error = match read_error(url, error.into()) {
        OpenError::Store(StoreError::Db(e)) => e,
        damaged => return damaged,
    };
    let Some(path) = database_path(url) else {
        return error.into();
    };
    let cause = diagnose(&path, Who::current()).unwrap_or_else(|| error.to_string());
    OpenError::Open { path, cause }
}

/// A database the bot opened but cannot write (a file, `-wal` or `-shm`
/// of another user, a read-only mount, `?mode=ro`): the same one line as
/// for one that would not open, instead of a bot that polls and answers
/// every move "try again".
pub(super) fn write_error(url: &str, error: OpenError) -> OpenError {
    let Some(path) = database_path(url) else {
        return error;
    };
    let cause = match (diagnose(&path, Who::current()), error) {
        (Some(why), _) => why,
        (None, e @ OpenError::Migrate(_)) => return e,
        (None, e) => format!("it cannot be written ({e})"),
    };
    OpenError::Open { path, cause }
}

fn companion(path: &Path, suffix: &str) -> PathBuf {
    let mut file = path.as_os_str().to_owned();
    file.push(suffix);
    PathBuf::from(file)
}

/// `SQLITE_READONLY` and its extended codes (a folder it may not write, say).
fn is_read_only(error: &OpenError) -> bool {
    match error {
        OpenError::Store(StoreError::Db(sqlx::Error::Database(e))) => e
            .code()
            .and_then(|c| c.parse::<i32>().ok())
            .is_some_and(|c| c & 0xff == 8),
        _ => false,
    }
}

/// SQLite's words for a file that is not a database or whose pages do not
/// add up (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) become an error naming the
/// file and what to do; others are kept.
pub(super) fn read_error(url: &str, error: OpenError) -> OpenError {
    let damaged = match &error {
        OpenError::Store(StoreError::Db(sqlx::Error::Database(e))) => e
            .code()
            .and_then(|c| c.parse::<i32>().ok())
            .is_some_and(|c| matches!(c & 0xff, 11 | 26)),
        _ => false,
    };
    match database_path(url) {
        Some(path) if damaged => OpenError::Damaged {
            path,
            cause: match error {
                OpenError::Store(StoreError::Db(sqlx::Error::Database(e))) => {
                    e.message().to_owned()
                }
                e => e.to_string(),
            },
        },
        _ => error,
    }
}

/// A database that has migrations this build does not know was written by
/// a newer kozyr: refused before anything reads or migrates it, with the
/// versions, rather than sqlx's "previously applied but is missing".
pub(super) async fn check_not_newer(
    conn: &mut sqlx::SqliteConnection,
    url: &str,
) -> Result<(), OpenError> {
    let tracked: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_one(&mut *conn)
    .await
    .map_err(|e| read_error(url, e.into()))?;
    if tracked == 0 {
        return Ok(());
    }
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
        .fetch_all(&mut *conn)
        .await
        .map_err(|e| read_error(url, e.into()))?;
    let known = super::MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
    let unknown = applied
        .into_iter()
        .filter(|v| !super::MIGRATOR.iter().any(|m| m.version == *v))
        .max();
    match unknown {
        Some(found) => Err(OpenError::Newer {
            path: database_path(url).unwrap_or_else(|| PathBuf::from(url)),
            found,
            known,
        }),
        None => Ok(()),
    }
}

/// Writes (the header's `user_version`, unchanged) and commits, as every
/// move will: SQLite opens a file it may not write read-only without a
/// word, and a database without pending migrations is only read at start.
pub(super) async fn probe_write(conn: &mut sqlx::SqliteConnection) -> Result<(), OpenError> {
    use sqlx::Connection;
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    let version: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&mut *tx)
        .await?;
    // An integer the database itself gave: nothing to inject.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "PRAGMA user_version = {version}"
    )))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

impl Store {
    /// Opens a database that must already exist, read-only: never creates
    /// one, runs no migrations, writes nothing (a backup or an export must
    /// not change anything under a running bot, and works on a file its
    /// user may only read). A missing or empty file, or one
    /// without kozyr's tables, is an error naming the path.
    pub async fn open_existing(options: &StoreOptions) -> Result<Store, OpenError> {
        let path = check_exists(&options.url)?;
        let read_only = options.read_only_options()?;
        match Store::open_existing_with(read_only.clone(), options, &path).await {
            // A read-only connection still needs a `-shm` to share the log's
            // index, and cannot create one in a folder it may not write. No
            // `-shm` means no connection has the database open (a running
            // bot always has one), so nothing can change under an
            // immutable read.
            Err(e) if is_read_only(&e) && !companion(&path, "-shm").exists() => {
                Store::open_existing_with(read_only.immutable(true), options, &path).await
            }
            r => r,
        }
    }

    async fn open_existing_with(
        connect: sqlx::sqlite::SqliteConnectOptions,
        options: &StoreOptions,
        path: &Path,
    ) -> Result<Store, OpenError> {
        let path = path.to_path_buf();
        let store = Store::connect(connect, options, false).await?;
        let ours = sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tables'",
        )
        .fetch_one(&store.reader)
        .await;
        let ours = match ours {
            Ok(n) => n,
            Err(e) => {
                store.close().await;
                return Err(read_error(&options.url, e.into()));
            }
        };
        if ours == 0 {
            store.close().await;
            return Err(OpenError::Empty(path));
        }
        Ok(store)
    }

    /// Writes a consistent copy of the database to `out` with
    /// `VACUUM INTO`: it reads one snapshot (WAL lets the bot go on
    /// committing meanwhile) and writes a compact, self-contained file. The
    /// copy goes to `out.partial` first and is renamed when complete, so
    /// `out` is never a half-written backup; an existing `out` is refused
    /// rather than overwritten. Returns the copy's size in bytes.
    pub async fn backup_to(&self, out: &Path) -> Result<u64, CopyError> {
        let out = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
        let refuse = |why: String| CopyError::Backup {
            path: out.clone(),
            why,
        };
        if out.exists() {
            return Err(refuse(
                "it already exists (a backup never overwrites a file)".into(),
            ));
        }
        let mut partial = out.clone().into_os_string();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let target = partial
            .to_str()
            .ok_or_else(|| refuse("the path is not UTF-8".into()))?
            .to_owned();
        match std::fs::remove_file(&partial) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(refuse(format!("cannot remove {}: {e}", partial.display()))),
        }
        if let Err(e) = sqlx::query("VACUUM INTO ?")
            .bind(&target)
            .execute(&self.reader)
            .await
        {
            let _ = std::fs::remove_file(&partial);
            let why = diagnose(&partial, Who::current()).unwrap_or_else(|| e.to_string());
            return Err(refuse(why));
        }
        std::fs::rename(&partial, &out).map_err(|e| refuse(e.to_string()))?;
        let size = std::fs::metadata(&out).map_err(|e| refuse(e.to_string()))?;
        Ok(size.len())
    }
}

impl Store {
    /// [`Store::open_tables_by_phase`] as the metrics endpoint counts tables.
    pub fn table_counter(self) -> kozyr_metrics::CountTables {
        super::Opened::Sqlite(self).table_counter()
    }
}

/// Counted (platform, phase, tables) rows as every pair of a platform and a
/// phase other than closed, zeros included (so a gauge set from them drops
/// to 0).
pub(super) fn every_platform_and_phase(
    rows: &[(String, String, i64)],
) -> Vec<(&'static str, &'static str, i64)> {
    let mut out = Vec::new();
    for platform in Platform::ALL {
        for phase in Phase::ALL.into_iter().filter(|p| *p != Phase::Closed) {
            let n = rows
                .iter()
                .find(|(pl, ph, _)| pl == platform.as_str() && ph == phase.as_str())
                .map_or(0, |r| r.2);
            out.push((platform.as_str(), phase.as_str(), n));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Queries;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_second_claim_on_one_sqlite_file_is_refused_until_the_first_ends() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}/kozyr.db", dir.path().display());
        let first = claim_sqlite(&url).expect("first claim").expect("a file");
        let second = claim_sqlite(&url).expect_err("second claim");
        assert!(
            second.to_string().contains("another kozyr process"),
            "{second}"
        );
        drop(first);
        assert!(claim_sqlite(&url).expect("claim after").is_some());
        assert!(claim_sqlite("sqlite::memory:").expect("memory").is_none());
        assert!(
            claim_sqlite("postgres://u@h/db")
                .expect("postgres")
                .is_none()
        );
    }

    #[test]
    fn paths_of_urls() {
        assert_eq!(
            database_path("sqlite:///data/kozyr.db?mode=rwc"),
            Some(PathBuf::from("/data/kozyr.db"))
        );
        let rel = database_path("sqlite://kozyr.db").unwrap();
        assert!(rel.is_absolute() && rel.ends_with("kozyr.db"), "{rel:?}");
        assert_eq!(database_path("sqlite::memory:"), None);
    }

    #[test]
    fn a_folder_of_another_user_is_named_with_the_uid_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let owner = std::fs::metadata(dir.path()).unwrap().uid();
        let db = dir.path().join("kozyr.db");
        // As some other user (the image's nonroot), the folder is read-only.
        let other = Who {
            uid: owner.wrapping_add(65532),
            gid: owner.wrapping_add(65532),
        };
        let why = diagnose(&db, Some(other)).unwrap();
        assert!(
            why.starts_with(&format!(
                "directory {} is not writable by uid {}",
                dir.path().display(),
                other.uid
            )),
            "{why}"
        );
        assert!(
            why.contains(&format!("chown -R {0}:{0}", other.uid)),
            "{why}"
        );
        assert!(why.contains("named volume"), "{why}");
        // Its owner may write; so may anyone once the folder is 0777.
        let me = Who {
            uid: owner,
            gid: owner,
        };
        assert_eq!(diagnose(&db, Some(me)), None);
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(diagnose(&db, Some(other)), None);
        // A read-only file in a writable folder.
        std::fs::write(&db, b"x").unwrap();
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
        let why = diagnose(&db, Some(other)).unwrap();
        assert!(
            why.starts_with(&format!("{} (uid {owner}, ", db.display()))
                && why.contains(") is not writable by uid"),
            "{why}"
        );
    }

    #[tokio::test]
    async fn a_missing_folder_is_named_when_opening_fails() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("no-such-folder").join("kozyr.db");
        let url = format!("sqlite://{}", db.display());
        let err = Store::open(&StoreOptions::new(url)).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot open the database {}: directory {} does not exist \
                 (create it, or mount a volume there)",
                db.display(),
                db.parent().unwrap().display()
            )
        );
    }

    #[tokio::test]
    async fn opening_an_existing_database_never_creates_one() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("kozyr.db");
        let url = format!("sqlite://{}", db.display());
        let err = Store::open_existing(&StoreOptions::new(url.clone()))
            .await
            .unwrap_err();
        assert!(
            matches!(err, OpenError::Missing(ref p) if *p == db),
            "{err}"
        );
        assert!(err.to_string().contains(&db.display().to_string()));
        assert!(!db.exists(), "nothing was created");
        std::fs::write(&db, b"").unwrap();
        let err = Store::open_existing(&StoreOptions::new(url.clone()))
            .await
            .unwrap_err();
        assert!(matches!(err, OpenError::Empty(_)), "{err}");
        std::fs::remove_file(&db).unwrap();
        // A SQLite file that is not kozyr's counts as empty too.
        {
            let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(&db)
                .create_if_missing(true)
                .connect()
                .await
                .unwrap();
            sqlx::query("CREATE TABLE other (x)")
                .execute(&mut conn)
                .await
                .unwrap();
            sqlx::Connection::close(conn).await.unwrap();
        }
        let err = Store::open_existing(&StoreOptions::new(url.clone()))
            .await
            .unwrap_err();
        assert!(matches!(err, OpenError::Empty(_)), "{err}");
        std::fs::remove_file(&db).unwrap();
        Store::open(&StoreOptions::new(url.clone()))
            .await
            .unwrap()
            .close()
            .await;
        let store = Store::open_existing(&StoreOptions::new(url)).await.unwrap();
        assert_eq!(store.open_table_ids().await.unwrap(), vec![]);
        store.close().await;
    }

    use sqlx::ConnectOptions;
}
