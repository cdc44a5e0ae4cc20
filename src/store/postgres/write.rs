//! One [`Commit`] as one PostgreSQL transaction: the same rows the SQLite
//! writer writes (`super::super::writer`), in PostgreSQL's dialect.

use sqlx::postgres::PgPool;
use sqlx::{Postgres, Transaction};

use super::super::StoreError;
use super::super::writer::{Commit, ShownWrite, StatsWrite};
use crate::table::storage::HandTokenChange;
use crate::table::{ChatKey, TableId};

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
    match write_one(&mut tx, commit).await? {
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

async fn write_one(
    tx: &mut Transaction<'_, Postgres>,
    c: &Commit,
) -> Result<Result<(), StoreError>, sqlx::Error> {
    if let Some(d) = &c.dedup {
        // A second process inserting the same key waits for the first
        // transaction and then inserts nothing: a duplicate, never both.
        let r = sqlx::query(
            "INSERT INTO commands (dedup_key, table_id, first_version, last_version, at)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (dedup_key) DO NOTHING",
        )
        .bind(&d.key)
        .bind(d.table_id)
        .bind(d.first_version)
        .bind(d.last_version)
        .bind(c.at)
        .execute(&mut **tx)
        .await?;
        if r.rows_affected() == 0 {
            return Ok(Err(StoreError::Duplicate(d.key.clone())));
        }
    }
    for t in &c.tables {
        match t.before {
            // ON CONFLICT without a target also covers the
            // one-open-table-per-chat index: a table another process opened
            // in the chat is a conflict too.
            None => {
                let r = sqlx::query(
                    "INSERT INTO tables (id, platform, chat_id, game, phase, version, deadline,
                                         snapshot, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
                )
                .bind(t.id)
                .bind(t.platform)
                .bind(&t.chat_id)
                .bind(t.game)
                .bind(t.phase)
                .bind(t.version)
                .bind(t.deadline)
                .bind(&t.snapshot)
                .bind(t.created_at)
                .bind(c.at)
                .execute(&mut **tx)
                .await?;
                if r.rows_affected() != 1 {
                    return Ok(Err(StoreError::Conflict(TableId(t.id))));
                }
            }
            Some(before) => {
                // The row stays locked to the end of the transaction: no
                // other commit to this table, in any process, can slip in
                // between the check and the append.
                let stored: Option<i64> =
                    sqlx::query_scalar("SELECT version FROM tables WHERE id = $1 FOR UPDATE")
                        .bind(t.id)
                        .fetch_optional(&mut **tx)
                        .await?;
                if stored != Some(before) {
                    return Ok(Err(StoreError::Conflict(TableId(t.id))));
                }
                sqlx::query(
                    "UPDATE tables SET platform = $1, chat_id = $2, phase = $3, version = $4,
                                       deadline = $5, snapshot = $6, updated_at = $7
                     WHERE id = $8",
                )
                .bind(t.platform)
                .bind(&t.chat_id)
                .bind(t.phase)
                .bind(t.version)
                .bind(t.deadline)
                .bind(&t.snapshot)
                .bind(c.at)
                .bind(t.id)
                .execute(&mut **tx)
                .await?;
            }
        }
        for e in &t.events {
            sqlx::query(
                "INSERT INTO table_events (table_id, version, at, kind, event)
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(t.id)
            .bind(e.version)
            .bind(c.at)
            .bind(e.kind)
            .bind(&e.json)
            .execute(&mut **tx)
            .await?;
        }
    }
    if let Some((from, to)) = &c.moved_chat {
        sqlx::query(
            "UPDATE tables SET platform = $1, chat_id = $2
             WHERE platform = $3 AND chat_id = $4 AND phase = 'closed'",
        )
        .bind(to.platform().as_str())
        .bind(to.id())
        .bind(from.platform().as_str())
        .bind(from.id())
        .execute(&mut **tx)
        .await?;
        move_stats(tx, from, to).await?;
    }
    for p in &c.players {
        sqlx::query(
            "INSERT INTO players (platform, user_id, name, lang, updated_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (platform, user_id) DO UPDATE SET
                 name = excluded.name, lang = excluded.lang, updated_at = excluded.updated_at",
        )
        .bind(p.platform)
        .bind(p.player.id.to_string())
        .bind(&p.player.name)
        .bind(p.player.lang.code())
        .bind(c.at)
        .execute(&mut **tx)
        .await?;
    }
    for s in &c.stats {
        add_stats(tx, s).await?;
    }
    if let Some((chat, lang)) = &c.chat_lang {
        sqlx::query(
            "INSERT INTO chats (platform, chat_id, lang, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (platform, chat_id) DO UPDATE SET
                 lang = excluded.lang, updated_at = excluded.updated_at",
        )
        .bind(chat.platform().as_str())
        .bind(chat.id())
        .bind(lang.code())
        .bind(c.at)
        .execute(&mut **tx)
        .await?;
    }
    // The message first: a new one's row is written with what it shows.
    if let Some(m) = &c.message_ref {
        match m.message_id {
            Some(id) => sqlx::query(
                "INSERT INTO message_refs (platform, table_id, chat_id, message_id, updated_at, shown_hash)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (platform, table_id, chat_id) DO UPDATE SET
                     message_id = excluded.message_id, updated_at = excluded.updated_at,
                     shown_hash = excluded.shown_hash",
            )
            .bind(m.platform)
            .bind(m.table_id)
            .bind(&m.chat_id)
            .bind(id)
            .bind(c.at)
            .bind(m.shown),
            None => sqlx::query(
                "DELETE FROM message_refs WHERE platform = $1 AND table_id = $2 AND chat_id = $3",
            )
            .bind(m.platform)
            .bind(m.table_id)
            .bind(&m.chat_id),
        }
        .execute(&mut **tx)
        .await?;
    }
    match &c.shown {
        None => {}
        Some(ShownWrite::Clear { platform }) => {
            sqlx::query("UPDATE message_refs SET shown_hash = NULL WHERE platform = $1")
                .bind(*platform)
                .execute(&mut **tx)
                .await?;
        }
        Some(ShownWrite::Set { platform, rows }) => {
            for (table, chat, hash) in rows {
                sqlx::query(
                    "UPDATE message_refs SET shown_hash = $1
                     WHERE platform = $2 AND table_id = $3 AND chat_id = $4",
                )
                .bind(*hash)
                .bind(*platform)
                .bind(*table)
                .bind(chat)
                .execute(&mut **tx)
                .await?;
            }
        }
    }
    if let Some(change) = &c.hand_token {
        write_hand_token(tx, change).await?;
    }
    for o in &c.owed {
        sqlx::query(
            "INSERT INTO owed_outputs (platform, table_id, chat_id, announcement, created_at)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(o.platform)
        .bind(o.table_id)
        .bind(&o.chat_id)
        .bind(&o.json)
        .bind(c.at)
        .execute(&mut **tx)
        .await?;
    }
    if let Some(o) = &c.owed_sent {
        sqlx::query(
            "DELETE FROM owed_outputs WHERE id = (
                 SELECT min(id) FROM owed_outputs
                 WHERE platform = $1 AND table_id = $2 AND announcement = $3)",
        )
        .bind(o.platform)
        .bind(o.table_id)
        .bind(&o.json)
        .execute(&mut **tx)
        .await?;
    }
    Ok(Ok(()))
}

async fn add_stats(tx: &mut Transaction<'_, Postgres>, s: &StatsWrite) -> Result<(), sqlx::Error> {
    let a = &s.add;
    match &s.user {
        None => sqlx::query(
            "INSERT INTO chat_stats AS c
                 (platform, chat_id, game, series_played, deals_played, eggs_deals)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (platform, chat_id, game) DO UPDATE SET
                 series_played = c.series_played + excluded.series_played,
                 deals_played = c.deals_played + excluded.deals_played,
                 eggs_deals = c.eggs_deals + excluded.eggs_deals",
        )
        .bind(s.platform)
        .bind(&s.chat_id)
        .bind(s.game)
        .bind(a.series_played)
        .bind(a.deals_played)
        .bind(a.eggs_deals)
        .execute(&mut **tx)
        .await
        .map(drop),
        Some(user) => sqlx::query(
            "INSERT INTO player_stats AS p (platform, chat_id, game, user_id, series_played,
                 series_won, series_lost, goat, deals_played, deals_won, eggs_deals, points)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
             ON CONFLICT (platform, chat_id, game, user_id) DO UPDATE SET
                 series_played = p.series_played + excluded.series_played,
                 series_won = p.series_won + excluded.series_won,
                 series_lost = p.series_lost + excluded.series_lost,
                 goat = p.goat + excluded.goat,
                 deals_played = p.deals_played + excluded.deals_played,
                 deals_won = p.deals_won + excluded.deals_won,
                 eggs_deals = p.eggs_deals + excluded.eggs_deals,
                 points = p.points + excluded.points",
        )
        .bind(s.platform)
        .bind(&s.chat_id)
        .bind(s.game)
        .bind(user)
        .bind(a.series_played)
        .bind(a.series_won)
        .bind(a.series_lost)
        .bind(a.goat)
        .bind(a.deals_played)
        .bind(a.deals_won)
        .bind(a.eggs_deals)
        .bind(a.points)
        .execute(&mut **tx)
        .await
        .map(drop),
    }
}

/// A chat's statistics follow it to its new id, merged into any it has there.
async fn move_stats(
    tx: &mut Transaction<'_, Postgres>,
    from: &ChatKey,
    to: &ChatKey,
) -> Result<(), sqlx::Error> {
    let (to_platform, to_id) = (to.platform().as_str(), to.id());
    let (from_platform, from_id) = (from.platform().as_str(), from.id());
    sqlx::query(
        "INSERT INTO player_stats AS p (platform, chat_id, game, user_id, series_played,
             series_won, series_lost, goat, deals_played, deals_won, eggs_deals, points)
         SELECT $1, $2, game, user_id, series_played, series_won, series_lost, goat,
                deals_played, deals_won, eggs_deals, points
         FROM player_stats WHERE platform = $3 AND chat_id = $4
         ON CONFLICT (platform, chat_id, game, user_id) DO UPDATE SET
             series_played = p.series_played + excluded.series_played,
             series_won = p.series_won + excluded.series_won,
             series_lost = p.series_lost + excluded.series_lost,
             goat = p.goat + excluded.goat,
             deals_played = p.deals_played + excluded.deals_played,
             deals_won = p.deals_won + excluded.deals_won,
             eggs_deals = p.eggs_deals + excluded.eggs_deals,
             points = p.points + excluded.points",
    )
    .bind(to_platform)
    .bind(&to_id)
    .bind(from_platform)
    .bind(&from_id)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO chat_stats AS c
             (platform, chat_id, game, series_played, deals_played, eggs_deals)
         SELECT $1, $2, game, series_played, deals_played, eggs_deals
         FROM chat_stats WHERE platform = $3 AND chat_id = $4
         ON CONFLICT (platform, chat_id, game) DO UPDATE SET
             series_played = c.series_played + excluded.series_played,
             deals_played = c.deals_played + excluded.deals_played,
             eggs_deals = c.eggs_deals + excluded.eggs_deals",
    )
    .bind(to_platform)
    .bind(&to_id)
    .bind(from_platform)
    .bind(&from_id)
    .execute(&mut **tx)
    .await?;
    for table in ["player_stats", "chat_stats"] {
        // The table names are this function's own constants.
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE platform = $1 AND chat_id = $2"
        )))
        .bind(from_platform)
        .bind(&from_id)
        .execute(&mut **tx)
        .await?;
    }
    // The chat's own choices follow it, unless the new id already has some
    // (SQLite's `UPDATE OR IGNORE`).
    sqlx::query(
        "UPDATE chats SET platform = $1, chat_id = $2 WHERE platform = $3 AND chat_id = $4
         AND NOT EXISTS (SELECT 1 FROM chats WHERE platform = $1 AND chat_id = $2)",
    )
    .bind(to_platform)
    .bind(&to_id)
    .bind(from_platform)
    .bind(&from_id)
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM chats WHERE platform = $1 AND chat_id = $2")
        .bind(from_platform)
        .bind(&from_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// A change to the kept hand tokens (the `hand_tokens` migration).
async fn write_hand_token(
    tx: &mut Transaction<'_, Postgres>,
    change: &HandTokenChange,
) -> Result<(), sqlx::Error> {
    let query = match change {
        HandTokenChange::Given(row) => sqlx::query(
            "INSERT INTO hand_tokens (platform, table_id, user_id, token, given_at, shown_hash)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (platform, table_id, user_id) DO UPDATE SET
                 token = excluded.token, given_at = excluded.given_at,
                 shown_hash = excluded.shown_hash",
        )
        .bind(row.user.platform().as_str())
        .bind(row.table.0)
        .bind(row.user.to_string())
        .bind(&row.token.0)
        .bind(row.given_at.millis())
        .bind(row.shown),
        HandTokenChange::Shown {
            table,
            user,
            token,
            shown,
        } => sqlx::query(
            "UPDATE hand_tokens SET shown_hash = $1
             WHERE platform = $2 AND table_id = $3 AND user_id = $4 AND token = $5",
        )
        .bind(*shown)
        .bind(user.platform().as_str())
        .bind(table.0)
        .bind(user.to_string())
        .bind(&token.0),
        HandTokenChange::Forget { table, user, token } => sqlx::query(
            "DELETE FROM hand_tokens WHERE table_id = $1
             AND ($2::TEXT IS NULL OR user_id = $2) AND ($3::TEXT IS NULL OR token = $3)",
        )
        .bind(table.0)
        .bind(user.as_ref().map(|u| u.to_string()))
        .bind(token.as_ref().map(|t| t.0.clone())),
        HandTokenChange::Expired { platform, before } => {
            sqlx::query("DELETE FROM hand_tokens WHERE platform = $1 AND given_at < $2")
                .bind(platform.as_str())
                .bind(before.millis())
        }
    };
    query.execute(&mut **tx).await?;
    Ok(())
}
