//! One [`Commit`]'s rows, written the same way on both backends: the
//! SQLite writer runs it in a savepoint of its group transaction, the
//! PostgreSQL store in a transaction of its own. What differs between the
//! two is around this body (how transactions are grouped and retried),
//! never in it.

use super::StoreError;
use super::sql::{Sql, args};
use super::writer::{Commit, ShownWrite, StatsWrite};
use crate::table::storage::HandTokenChange;
use crate::table::{ChatKey, TableId};

const INSERT_COMMAND: &str =
    "INSERT INTO commands (dedup_key, table_id, first_version, last_version, at)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (dedup_key) DO NOTHING";

// ON CONFLICT without a target also covers the one-open-table-per-chat
// index: a table another writer opened in the chat is a conflict too.
const INSERT_TABLE: &str =
    "INSERT INTO tables (id, platform, chat_id, game, phase, version, deadline,
                         snapshot, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING";

// The compare-and-swap on the version. On PostgreSQL the UPDATE locks the
// row to the end of the transaction, and one that waited for another
// process's commit to the same row checks the version again on the row
// that commit left: it matches nothing, a conflict, never both.
const UPDATE_TABLE: &str =
    "UPDATE tables SET platform = $1, chat_id = $2, phase = $3, version = $4,
                       deadline = $5, snapshot = $6, updated_at = $7
     WHERE id = $8 AND version = $9";

const INSERT_EVENT: &str = "INSERT INTO table_events (table_id, version, at, kind, event)
     VALUES ($1, $2, $3, $4, $5)";

// The open table moved with its own change; its history follows.
const MOVE_CLOSED_TABLES: &str = "UPDATE tables SET platform = $1, chat_id = $2
     WHERE platform = $3 AND chat_id = $4 AND phase = 'closed'";

const UPSERT_PLAYER: &str = "INSERT INTO players (platform, user_id, name, lang, updated_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (platform, user_id) DO UPDATE SET
         name = excluded.name, lang = excluded.lang, updated_at = excluded.updated_at";

const UPSERT_CHAT_LANG: &str =
    "INSERT INTO chats (platform, chat_id, lang, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (platform, chat_id) DO UPDATE SET
         lang = excluded.lang, updated_at = excluded.updated_at";

const UPSERT_MESSAGE_REF: &str =
    "INSERT INTO message_refs (platform, table_id, chat_id, message_id, updated_at, shown_hash)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (platform, table_id, chat_id) DO UPDATE SET
         message_id = excluded.message_id, updated_at = excluded.updated_at,
         shown_hash = excluded.shown_hash";

const DELETE_MESSAGE_REF: &str =
    "DELETE FROM message_refs WHERE platform = $1 AND table_id = $2 AND chat_id = $3";

const CLEAR_SHOWN: &str = "UPDATE message_refs SET shown_hash = NULL WHERE platform = $1";

const SET_SHOWN: &str = "UPDATE message_refs SET shown_hash = $1
     WHERE platform = $2 AND table_id = $3 AND chat_id = $4";

const INSERT_OWED: &str =
    "INSERT INTO owed_outputs (platform, table_id, chat_id, announcement, created_at)
     VALUES ($1, $2, $3, $4, $5)";

const DELETE_OWED: &str = "DELETE FROM owed_outputs WHERE id = (
     SELECT min(id) FROM owed_outputs
     WHERE platform = $1 AND table_id = $2 AND announcement = $3)";

/// How a row of counters is added into the row already there (`c`: the
/// chat's, `p`: a player's), for a deal's counters and for a chat's moved
/// ones alike.
macro_rules! add_chat_counters {
    () => {
        "ON CONFLICT (platform, chat_id, game) DO UPDATE SET
         series_played = c.series_played + excluded.series_played,
         deals_played = c.deals_played + excluded.deals_played,
         eggs_deals = c.eggs_deals + excluded.eggs_deals"
    };
}

macro_rules! add_player_counters {
    () => {
        "ON CONFLICT (platform, chat_id, game, user_id) DO UPDATE SET
         series_played = p.series_played + excluded.series_played,
         series_won = p.series_won + excluded.series_won,
         series_lost = p.series_lost + excluded.series_lost,
         goat = p.goat + excluded.goat,
         deals_played = p.deals_played + excluded.deals_played,
         deals_won = p.deals_won + excluded.deals_won,
         eggs_deals = p.eggs_deals + excluded.eggs_deals,
         points = p.points + excluded.points"
    };
}

const ADD_CHAT_STATS: &str = concat!(
    "INSERT INTO chat_stats AS c
         (platform, chat_id, game, series_played, deals_played, eggs_deals)
     VALUES ($1, $2, $3, $4, $5, $6) ",
    add_chat_counters!()
);

const ADD_PLAYER_STATS: &str = concat!(
    "INSERT INTO player_stats AS p (platform, chat_id, game, user_id, series_played,
         series_won, series_lost, goat, deals_played, deals_won, eggs_deals, points)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ",
    add_player_counters!()
);

const MOVE_PLAYER_STATS: &str = concat!(
    "INSERT INTO player_stats AS p (platform, chat_id, game, user_id, series_played,
         series_won, series_lost, goat, deals_played, deals_won, eggs_deals, points)
     SELECT $1, $2, game, user_id, series_played, series_won, series_lost, goat,
            deals_played, deals_won, eggs_deals, points
     FROM player_stats WHERE platform = $3 AND chat_id = $4 ",
    add_player_counters!()
);

const MOVE_CHAT_STATS: &str = concat!(
    "INSERT INTO chat_stats AS c
         (platform, chat_id, game, series_played, deals_played, eggs_deals)
     SELECT $1, $2, game, series_played, deals_played, eggs_deals
     FROM chat_stats WHERE platform = $3 AND chat_id = $4 ",
    add_chat_counters!()
);

const DELETE_PLAYER_STATS: &str = "DELETE FROM player_stats WHERE platform = $1 AND chat_id = $2";
const DELETE_CHAT_STATS: &str = "DELETE FROM chat_stats WHERE platform = $1 AND chat_id = $2";

// The chat's own choices follow it, unless the new id already has some.
const MOVE_CHAT: &str =
    "UPDATE chats SET platform = $1, chat_id = $2 WHERE platform = $3 AND chat_id = $4
     AND NOT EXISTS (SELECT 1 FROM chats WHERE platform = $1 AND chat_id = $2)";

const DELETE_CHAT: &str = "DELETE FROM chats WHERE platform = $1 AND chat_id = $2";

const UPSERT_HAND_TOKEN: &str =
    "INSERT INTO hand_tokens (platform, table_id, user_id, token, given_at, shown_hash)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (platform, table_id, user_id) DO UPDATE SET
         token = excluded.token, given_at = excluded.given_at,
         shown_hash = excluded.shown_hash";

const SET_HAND_TOKEN_SHOWN: &str = "UPDATE hand_tokens SET shown_hash = $1
     WHERE platform = $2 AND table_id = $3 AND user_id = $4 AND token = $5";

const FORGET_HAND_TOKENS: &str = "DELETE FROM hand_tokens WHERE table_id = $1
     AND (CAST($2 AS TEXT) IS NULL OR user_id = $2) AND (CAST($3 AS TEXT) IS NULL OR token = $3)";

const EXPIRE_HAND_TOKENS: &str = "DELETE FROM hand_tokens WHERE platform = $1 AND given_at < $2";

/// Writes `c` on `tx`. The outer error is the database's (the caller rolls
/// back); the inner one a refusal — a known de-duplication key, a version
/// conflict — after which the caller rolls back too.
pub(super) async fn write_one<T: Sql>(
    tx: &mut T,
    c: &Commit,
) -> Result<Result<(), StoreError>, sqlx::Error> {
    if let Some(d) = &c.dedup {
        // A second writer inserting the same key waits for the first
        // transaction and then inserts nothing: a duplicate, never both.
        let args = args![&d.key, d.table_id, d.first_version, d.last_version, c.at];
        if tx.execute(INSERT_COMMAND, args).await? == 0 {
            return Ok(Err(StoreError::Duplicate(d.key.clone())));
        }
    }
    for t in &c.tables {
        let written = match t.before {
            None => {
                let args = args![
                    t.id,
                    t.platform,
                    &t.chat_id,
                    t.game,
                    t.phase,
                    t.version,
                    t.deadline,
                    &t.snapshot,
                    t.created_at,
                    c.at
                ];
                tx.execute(INSERT_TABLE, args).await?
            }
            Some(before) => {
                let args = args![
                    t.platform,
                    &t.chat_id,
                    t.phase,
                    t.version,
                    t.deadline,
                    &t.snapshot,
                    c.at,
                    t.id,
                    before
                ];
                tx.execute(UPDATE_TABLE, args).await?
            }
        };
        if written != 1 {
            return Ok(Err(StoreError::Conflict(TableId(t.id))));
        }
        for e in &t.events {
            let args = args![t.id, e.version, c.at, e.kind, &e.json];
            tx.execute(INSERT_EVENT, args).await?;
        }
    }
    if let Some((from, to)) = &c.moved_chat {
        let (to_id, from_id) = (to.id(), from.id());
        let moved = args![
            to.platform().as_str(),
            &to_id,
            from.platform().as_str(),
            &from_id
        ];
        tx.execute(MOVE_CLOSED_TABLES, moved).await?;
        move_stats(tx, from, to).await?;
    }
    for p in &c.players {
        let user = p.player.id.to_string();
        let args = args![
            p.platform,
            &user,
            &p.player.name,
            p.player.lang.code(),
            c.at
        ];
        tx.execute(UPSERT_PLAYER, args).await?;
    }
    for s in &c.stats {
        add_stats(tx, s).await?;
    }
    if let Some((chat, lang)) = &c.chat_lang {
        let id = chat.id();
        let args = args![chat.platform().as_str(), &id, lang.code(), c.at];
        tx.execute(UPSERT_CHAT_LANG, args).await?;
    }
    // The message first: a new one's row is written with what it shows.
    if let Some(m) = &c.message_ref {
        match m.message_id {
            Some(id) => {
                let args = args![m.platform, m.table_id, &m.chat_id, id, c.at, m.shown];
                tx.execute(UPSERT_MESSAGE_REF, args).await?
            }
            None => {
                let args = args![m.platform, m.table_id, &m.chat_id];
                tx.execute(DELETE_MESSAGE_REF, args).await?
            }
        };
    }
    match &c.shown {
        None => {}
        Some(ShownWrite::Clear { platform }) => {
            tx.execute(CLEAR_SHOWN, args![*platform]).await?;
        }
        Some(ShownWrite::Set { platform, rows }) => {
            for (table, chat, hash) in rows {
                let args = args![*hash, *platform, *table, chat];
                tx.execute(SET_SHOWN, args).await?;
            }
        }
    }
    if let Some(change) = &c.hand_token {
        write_hand_token(tx, change).await?;
    }
    for o in &c.owed {
        let args = args![o.platform, o.table_id, &o.chat_id, &o.json, c.at];
        tx.execute(INSERT_OWED, args).await?;
    }
    if let Some(o) = &c.owed_sent {
        let args = args![o.platform, o.table_id, &o.json];
        tx.execute(DELETE_OWED, args).await?;
    }
    Ok(Ok(()))
}

async fn add_stats<T: Sql>(tx: &mut T, s: &StatsWrite) -> Result<(), sqlx::Error> {
    let a = &s.add;
    match &s.user {
        None => {
            let args = args![
                s.platform,
                &s.chat_id,
                s.game,
                a.series_played,
                a.deals_played,
                a.eggs_deals
            ];
            tx.execute(ADD_CHAT_STATS, args).await?
        }
        Some(user) => {
            let args = args![
                s.platform,
                &s.chat_id,
                s.game,
                user,
                a.series_played,
                a.series_won,
                a.series_lost,
                a.goat,
                a.deals_played,
                a.deals_won,
                a.eggs_deals,
                a.points
            ];
            tx.execute(ADD_PLAYER_STATS, args).await?
        }
    };
    Ok(())
}

/// A chat's statistics and choices follow it to its new id, merged into
/// any it has there.
async fn move_stats<T: Sql>(tx: &mut T, from: &ChatKey, to: &ChatKey) -> Result<(), sqlx::Error> {
    let (to_platform, to_id) = (to.platform().as_str(), to.id());
    let (from_platform, from_id) = (from.platform().as_str(), from.id());
    let both = args![to_platform, &to_id, from_platform, &from_id];
    let from = args![from_platform, &from_id];
    tx.execute(MOVE_PLAYER_STATS, both).await?;
    tx.execute(MOVE_CHAT_STATS, both).await?;
    tx.execute(DELETE_PLAYER_STATS, from).await?;
    tx.execute(DELETE_CHAT_STATS, from).await?;
    tx.execute(MOVE_CHAT, both).await?;
    tx.execute(DELETE_CHAT, from).await?;
    Ok(())
}

/// A change to the kept hand tokens (the `hand_tokens` migration).
async fn write_hand_token<T: Sql>(tx: &mut T, change: &HandTokenChange) -> Result<(), sqlx::Error> {
    match change {
        HandTokenChange::Given(row) => {
            let user = row.user.to_string();
            let args = args![
                row.user.platform().as_str(),
                row.table.0,
                &user,
                &row.token.0,
                row.given_at.millis(),
                row.shown
            ];
            tx.execute(UPSERT_HAND_TOKEN, args).await?
        }
        HandTokenChange::Shown {
            table,
            user,
            token,
            shown,
        } => {
            let user_id = user.to_string();
            let args = args![
                *shown,
                user.platform().as_str(),
                table.0,
                &user_id,
                &token.0
            ];
            tx.execute(SET_HAND_TOKEN_SHOWN, args).await?
        }
        HandTokenChange::Forget { table, user, token } => {
            let user = user.as_ref().map(|u| u.to_string());
            let token = token.as_ref().map(|t| t.0.as_str());
            let args = args![table.0, user.as_deref(), token];
            tx.execute(FORGET_HAND_TOKENS, args).await?
        }
        HandTokenChange::Expired { platform, before } => {
            let args = args![platform.as_str(), before.millis()];
            tx.execute(EXPIRE_HAND_TOKENS, args).await?
        }
    };
    Ok(())
}
