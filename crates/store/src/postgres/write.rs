//! One [`Commit`] as one PostgreSQL transaction of its own, retried when
//! the server aborts it; its rows are `super::super::commit`'s, as on SQLite.

use sqlx::postgres::PgPool;

use super::super::StoreError;
use super::super::commit::Commit;

/// How often a transaction the server aborted to break a deadlock or a
/// serialization failure is tried again before the commit fails.
const ATTEMPTS: usize = 3;

/// Writes `commit`. The outer error is the database's (nothing written);
/// the inner one a refusal (a version conflict, a known key), also with
/// nothing written.
pub(super) async fn commit(
    pool: &PgPool,
    commit: &Commit,
) -> Result<Result<(), StoreError>, sqlx::Error> {
    let mut attempt = 1;
    loop {
        match commit_once(pool, commit).await {
            Err(e) if attempt < ATTEMPTS && is_retryable(&e) => {
                tracing::warn!(error = %e, attempt, "commit aborted by the server; trying again");
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// `40001` serialization failure, `40P01` deadlock detected: the server
/// rolled the transaction back and asks for it again.
fn is_retryable(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if matches!(d.code().as_deref(), Some("40001" | "40P01")))
}

async fn commit_once(
    pool: &PgPool,
    commit: &Commit,
) -> Result<Result<(), StoreError>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    match super::super::commit::write_one(&mut tx, commit).await? {
        Ok(()) => {
            tx.commit().await?;
            Ok(Ok(()))
        }
        Err(refused) => {
            tx.rollback().await?;
            Ok(Err(refused))
        }
    }
}
