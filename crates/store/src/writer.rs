//! The writer task: the only connection that writes, committing in groups.
//!
//! With `synchronous = FULL` every COMMIT waits for the disk (milliseconds
//! here), so one transaction per command would cap the service at a few
//! hundred commands a second. Instead the writer takes every commit that
//! queued up while the previous transaction was syncing and writes them in
//! one transaction, each inside its own savepoint. A commit that fails its
//! checks (a version conflict, a known de-duplication key) is rolled back
//! to its savepoint alone; an unexpected error rolls the whole transaction
//! back and the commits are retried one transaction each, so one bad commit
//! never takes others down with it. Callers hear back only after COMMIT.
//!
//! A transaction that failed as a whole also costs the writer its
//! connection: the next transaction opens a fresh one, so a full disk
//! refuses commits only while it is full. Before each transaction the
//! writer checks that the database file and its `-wal` are still the files
//! it opened; once they are not, it refuses every commit until a restart.
//! Both states are published as [`StoreHealth`] for the health check.

use std::path::{Path, PathBuf};

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection};
use tokio::sync::{mpsc, oneshot, watch};

use super::commit::{Commit, write_one};
use super::{StoreError, StoreHealth};

/// Commits written in one transaction at most. Bounds the transaction's
/// size and the wait of the first commit in a long queue.
const MAX_GROUP: usize = 256;

pub(super) enum Job {
    Commit {
        commit: Box<Commit>,
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
    Close(oneshot::Sender<()>),
}

impl Job {
    pub(super) fn commit(commit: Commit, reply: oneshot::Sender<Result<(), StoreError>>) -> Job {
        Job::Commit {
            commit: Box::new(commit),
            reply,
        }
    }

    pub(super) fn close(reply: oneshot::Sender<()>) -> Job {
        Job::Close(reply)
    }
}

type Pending = (Box<Commit>, oneshot::Sender<Result<(), StoreError>>);

/// The writer's connection and what it needs to replace it. A transaction
/// that failed as a whole (a full disk, an I/O error, a COMMIT that did not
/// go through) may leave the connection inside a transaction SQLite rolled
/// back by itself, or one sqlx still counts as open; rather than guess, the
/// writer closes that connection and opens a fresh one for the next
/// transaction, so one failure never outlives itself.
pub(super) struct Writer {
    conn: Option<SqliteConnection>,
    connect: SqliteConnectOptions,
    files: FileWatch,
    health: watch::Sender<StoreHealth>,
    /// A store opened read-only (the admin tools, the metrics' counter)
    /// cannot checkpoint.
    writable: bool,
}

impl Writer {
    pub(super) fn new(
        conn: SqliteConnection,
        connect: SqliteConnectOptions,
        database: Option<PathBuf>,
        health: watch::Sender<StoreHealth>,
        writable: bool,
    ) -> Writer {
        Writer {
            writable,
            conn: Some(conn),
            // A reconnect must never make a new, empty database in place
            // of one that went away.
            connect: connect.create_if_missing(false),
            files: FileWatch::new(database),
            health,
        }
    }

    pub(super) async fn run(mut self, mut jobs: mpsc::UnboundedReceiver<Job>) {
        let mut group: Vec<Pending> = Vec::with_capacity(MAX_GROUP);
        let mut closing = None;
        // The files are watched between commits too: a `-wal` removed
        // while the tables are quiet is said at once (the heartbeat and
        // the log), not at the next move, and nothing is written after.
        let mut watch = tokio::time::interval(FILES_EVERY);
        watch.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let watching = self.writable && self.files.database.is_some();
        loop {
            let job = tokio::select! {
                job = jobs.recv() => match job {
                    Some(job) => job,
                    None => break,
                },
                _ = watch.tick(), if watching => {
                    let _ = self.check_files().await;
                    continue;
                }
            };
            match job {
                Job::Commit { commit, reply } => group.push((commit, reply)),
                Job::Close(reply) => closing = Some(reply),
            }
            while closing.is_none() && group.len() < MAX_GROUP {
                match jobs.try_recv() {
                    Ok(Job::Commit { commit, reply }) => group.push((commit, reply)),
                    Ok(Job::Close(reply)) => closing = Some(reply),
                    Err(_) => break,
                }
            }
            if !group.is_empty() {
                self.write_group(&mut group).await;
            }
            if let Some(reply) = closing.take() {
                self.checkpoint_at_close().await;
                self.discard_connection().await;
                let _ = reply.send(());
                return;
            }
        }
    }

    async fn write_group(&mut self, group: &mut Vec<Pending>) {
        if let Err(changed) = self.check_files().await {
            for (_, reply) in group.drain(..) {
                let _ = reply.send(Err(StoreError::FilesChanged(changed.clone())));
            }
            return;
        }
        let commits: Vec<&Commit> = group.iter().map(|(c, _)| &**c).collect();
        let started = std::time::Instant::now();
        let written = self.attempt(&commits).await;
        kozyr_metrics::db_commit(started.elapsed(), commits.len());
        match written {
            Ok(outcomes) => {
                for ((_, reply), outcome) in group.drain(..).zip(outcomes) {
                    let _ = reply.send(outcome);
                }
            }
            Err(e) if group.len() == 1 => {
                tracing::error!(error = %e, "commit failed");
                if let Some((_, reply)) = group.pop() {
                    let _ = reply.send(Err(e));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, size = group.len(), "group commit failed; retrying one by one");
                for (commit, reply) in group.drain(..) {
                    let outcome = match self.attempt(&[&*commit]).await {
                        Ok(mut o) => o.pop().unwrap_or(Err(StoreError::Closed)),
                        Err(e) => Err(e),
                    };
                    let _ = reply.send(outcome);
                }
            }
        }
    }

    /// One transaction on a sound connection: a failed one takes its
    /// connection with it and marks the store unhealthy until the next
    /// transaction commits.
    async fn attempt(
        &mut self,
        commits: &[&Commit],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => match self.connect.connect().await {
                Ok(conn) => {
                    tracing::info!("the writer reconnected to the database");
                    self.files.forget_wal();
                    self.conn.insert(conn)
                }
                Err(e) => {
                    self.failing(&e);
                    return Err(StoreError::Db(e));
                }
            },
        };
        match write(conn, commits).await {
            Ok(outcomes) => {
                self.health.send_if_modified(|h| {
                    let was_failing = matches!(h, StoreHealth::CommitsFailing(_));
                    if was_failing {
                        tracing::info!("commits succeed again");
                        *h = StoreHealth::Healthy;
                    }
                    was_failing
                });
                Ok(outcomes)
            }
            Err(e) => {
                self.failing(&e);
                self.discard_connection().await;
                Err(StoreError::Db(e))
            }
        }
    }

    fn failing(&self, e: &sqlx::Error) {
        let error = e.to_string();
        self.health.send_if_modified(|h| match h {
            StoreHealth::FilesChanged(_) => false,
            StoreHealth::CommitsFailing(old) if *old == error => false,
            _ => {
                *h = StoreHealth::CommitsFailing(error);
                true
            }
        });
    }

    /// Moves the whole log into the database file before the connection
    /// closes. SQLite does so by itself only when the last connection to
    /// the file closes, and not when that one is read-only (a reader of
    /// this process or of an admin's tool): without this a graceful stop
    /// could leave the latest games in `-wal` alone, and a copy of the
    /// database file would miss them. Not once the files changed under
    /// the process: they are no longer the ones it opened.
    async fn checkpoint_at_close(&mut self) {
        if !self.writable || matches!(&*self.health.borrow(), StoreHealth::FilesChanged(_)) {
            return;
        }
        let Some(conn) = &mut self.conn else {
            return;
        };
        match sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(&mut *conn)
            .await
        {
            Ok((0, _, _)) => {}
            Ok((busy, frames, copied)) => {
                tracing::warn!(
                    busy,
                    frames,
                    copied,
                    "the log was busy at the stop: it is checkpointed at the next start"
                );
            }
            Err(e) => tracing::warn!(error = %e, "cannot checkpoint the log at the stop"),
        }
    }

    async fn discard_connection(&mut self) {
        if let Some(conn) = self.conn.take()
            && let Err(e) = conn.close().await
        {
            tracing::warn!(error = %e, "closing the writer connection");
        }
    }

    /// Refuses to write once the database's files were removed or replaced
    /// under the process: SQLite would go on writing to the unlinked files
    /// and every move acknowledged from then on would be lost at the next
    /// restart. Once, at the moment it is seen, the log still held by the
    /// open connection is checkpointed into the database file, so what was
    /// acknowledged before survives.
    async fn check_files(&mut self) -> Result<(), String> {
        if let StoreHealth::FilesChanged(why) = &*self.health.borrow() {
            return Err(why.clone());
        }
        let Err(why) = self.files.check() else {
            return Ok(());
        };
        tracing::error!(
            problem = %why,
            "the database files changed under kozyr: it writes nothing more until it is restarted; \
             restart it (the moves it acknowledged are checkpointed into the database file now)"
        );
        if let Some(conn) = &mut self.conn {
            match sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(FULL)")
                .fetch_one(&mut *conn)
                .await
            {
                Ok((busy, frames, copied)) => {
                    tracing::warn!(
                        busy,
                        frames,
                        copied,
                        "checkpointed the open log into the database file"
                    );
                }
                Err(e) => tracing::error!(error = %e, "cannot checkpoint the open log"),
            }
        }
        self.health
            .send_replace(StoreHealth::FilesChanged(why.clone()));
        Err(why)
    }
}

/// How often the writer looks at its files while no commit comes: two
/// `stat` calls.
const FILES_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// The identity (device, inode) of the database file and of its `-wal`,
/// as this process opened them.
struct FileWatch {
    database: Option<PathBuf>,
    db_id: Option<(u64, u64)>,
    wal_id: Option<(u64, u64)>,
}

fn identity(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).map(|m| (m.dev(), m.ino()))
}

fn wal_of(database: &Path) -> PathBuf {
    let mut wal = database.as_os_str().to_owned();
    wal.push("-wal");
    PathBuf::from(wal)
}

impl FileWatch {
    fn new(database: Option<PathBuf>) -> FileWatch {
        let db_id = database.as_deref().and_then(|p| identity(p).ok());
        let wal_id = database.as_deref().and_then(|p| identity(&wal_of(p)).ok());
        FileWatch {
            database,
            db_id,
            wal_id,
        }
    }

    /// After a reconnect the `-wal` may rightly be a new file (SQLite
    /// removes it when the last connection closes).
    fn forget_wal(&mut self) {
        self.wal_id = None;
    }

    /// Two `stat` calls: checked before every transaction.
    fn check(&mut self) -> Result<(), String> {
        let Some(db) = &self.database else {
            return Ok(());
        };
        match (identity(db), self.db_id) {
            (Err(_), _) => return Err(format!("the database file {} was removed", db.display())),
            (Ok(now), Some(then)) if now != then => {
                return Err(format!("the database file {} was replaced", db.display()));
            }
            (Ok(now), _) => self.db_id = Some(now),
        }
        let wal = wal_of(db);
        match (identity(&wal), self.wal_id) {
            (Err(_), Some(_)) => Err(format!(
                "the write-ahead log {} was removed while kozyr had it open",
                wal.display()
            )),
            (Ok(now), Some(then)) if now != then => Err(format!(
                "the write-ahead log {} was replaced while kozyr had it open",
                wal.display()
            )),
            (Ok(now), _) => {
                self.wal_id = Some(now);
                Ok(())
            }
            (Err(_), None) => Ok(()),
        }
    }
}

/// Writes `commits` in one transaction. The outer error is for the whole
/// transaction (nothing written); the inner ones are per commit.
async fn write(
    conn: &mut SqliteConnection,
    commits: &[&Commit],
) -> Result<Vec<Result<(), StoreError>>, sqlx::Error> {
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    let mut outcomes = Vec::with_capacity(commits.len());
    for commit in commits {
        let mut savepoint = tx.begin().await?;
        match write_one(&mut savepoint, commit).await? {
            Ok(()) => {
                savepoint.commit().await?;
                outcomes.push(Ok(()));
            }
            Err(refused) => {
                savepoint.rollback().await?;
                outcomes.push(Err(refused));
            }
        }
    }
    tx.commit().await?;
    Ok(outcomes)
}
