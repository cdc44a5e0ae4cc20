//! Running one SQL text on either backend. kozyr's statements are written
//! once, with `$N` placeholders (which SQLite reads as PostgreSQL does:
//! sqlx binds `$N` to the N-th argument on both), and run through [`Sql`],
//! which each backend implements for its pools and transactions. A
//! statement only one backend has (advisory locks, `pg_notify`, `VACUUM
//! INTO`) stays in that backend's own file.

use std::future::Future;

/// A value bound to a statement.
#[derive(Clone, Copy, Debug)]
pub(super) enum Arg<'a> {
    Int(i64),
    MaybeInt(Option<i64>),
    Text(&'a str),
    MaybeText(Option<&'a str>),
}

impl From<i64> for Arg<'_> {
    fn from(v: i64) -> Self {
        Arg::Int(v)
    }
}

impl From<Option<i64>> for Arg<'_> {
    fn from(v: Option<i64>) -> Self {
        Arg::MaybeInt(v)
    }
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Text(v)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Text(v)
    }
}

impl<'a> From<Option<&'a str>> for Arg<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Arg::MaybeText(v)
    }
}

/// The arguments of a statement, in placeholder order.
macro_rules! args {
    ($($v:expr),* $(,)?) => {
        &[$($crate::sql::Arg::from($v)),*]
    };
}
pub(super) use args;

/// Where a statement runs: a backend's pool or open transaction.
pub(super) trait Sql: Send {
    /// Runs `sql` with `args`; the number of rows it changed.
    fn execute(
        &mut self,
        sql: &'static str,
        args: &[Arg<'_>],
    ) -> impl Future<Output = Result<u64, sqlx::Error>> + Send;
}

/// `sqlx::query(sql)` with `args` bound, for any backend (each has its own
/// query type, so this is a macro rather than a generic function).
macro_rules! bound {
    ($sql:expr, $args:expr) => {{
        let mut q = sqlx::query($sql);
        for a in $args {
            q = match *a {
                $crate::sql::Arg::Int(v) => q.bind(v),
                $crate::sql::Arg::MaybeInt(v) => q.bind(v),
                $crate::sql::Arg::Text(v) => q.bind(v),
                $crate::sql::Arg::MaybeText(v) => q.bind(v),
            };
        }
        q
    }};
}

impl Sql for sqlx::Transaction<'_, sqlx::Sqlite> {
    async fn execute(&mut self, sql: &'static str, args: &[Arg<'_>]) -> Result<u64, sqlx::Error> {
        let done = bound!(sql, args).execute(&mut **self).await?;
        Ok(done.rows_affected())
    }
}

impl Sql for sqlx::Transaction<'_, sqlx::Postgres> {
    async fn execute(&mut self, sql: &'static str, args: &[Arg<'_>]) -> Result<u64, sqlx::Error> {
        let done = bound!(sql, args).execute(&mut **self).await?;
        Ok(done.rows_affected())
    }
}
