//! The queries both backends run, written once: [`Queries`] is implemented
//! by SQLite's [`Store`](super::Store), PostgreSQL's
//! [`PgStore`](super::PgStore) and [`Opened`](super::Opened) by saying where
//! reads run ([`Queries::db`]) and how a prepared [`Commit`] is written
//! ([`Queries::write`]); every other method is this file's. Each statement
//! has `$N` placeholders, which sqlx's SQLite binds by number as PostgreSQL
//! does; a query only one backend has stays in that backend's file.

use std::future::Future;

use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;

use super::commit::Commit;
use super::stats::StatsRow;
use super::{
    ChatRow, CommandRow, EventRow, SnapshotRow, StoreError, decode_snapshot, replay_log,
    version_of, writes_decoded, writes_encoded,
};
use kozyr_game::GameKind;
use kozyr_table::storage::{
    HandTokenChange, HandTokenRow, InboxEntry, PlayerStats, RecordedCommand, Secret, ShownRow,
};
use kozyr_table::{
    Announcement, ChatKey, Lang, Phase, Platform, Table, TableEvent, TableId, Timestamp,
    Transition, UserId,
};

/// Where a store's reads run: either backend's pool.
#[derive(Clone, Copy, Debug)]
pub enum Db<'a> {
    Sqlite(&'a SqlitePool),
    Postgres(&'a PgPool),
}

/// `$body` run with `$pool` bound to the pool of `$db`, whichever backend:
/// written once, compiled for each.
macro_rules! on_db {
    ($db:expr, |$pool:ident| $body:expr) => {
        match $db {
            Db::Sqlite($pool) => $body,
            Db::Postgres($pool) => $body,
        }
    };
}

const OPEN_TABLE: &str = "SELECT id, version, snapshot FROM tables
     WHERE platform = $1 AND chat_id = $2 AND phase <> 'closed'";
const TABLE: &str = "SELECT id, version, snapshot FROM tables WHERE id = $1";
const CHAT_OF: &str = "SELECT platform, chat_id, phase FROM tables WHERE id = $1";
const OPEN_TABLE_IDS: &str = "SELECT id FROM tables WHERE phase <> 'closed' ORDER BY id";
const MAX_TABLE_ID: &str = "SELECT max(id) FROM tables";
const CHAT_TABLES: &str = "SELECT id FROM tables WHERE platform = $1 AND chat_id = $2 ORDER BY id";
const RECORDED: &str =
    "SELECT table_id, first_version, last_version FROM commands WHERE dedup_key = $1";
const EVENTS: &str = "SELECT version, event FROM table_events
     WHERE table_id = $1 AND version BETWEEN $2 AND $3 ORDER BY version";
const PRUNE_COMMANDS: &str = "DELETE FROM commands WHERE at < $1";
const CHAT_LANGUAGE: &str = "SELECT lang FROM chats WHERE platform = $1 AND chat_id = $2";

/// The best players first: most series won, then fewest played (a better
/// rate), then most deals won, then by id in byte order — PostgreSQL is
/// told the byte order (`COLLATE "C"`), SQLite's is its default.
macro_rules! leaderboard {
    ($by_id:literal) => {
        concat!(
            "SELECT s.user_id, p.name, s.game, s.series_played, s.series_won, s.series_lost,
                    s.goat, s.deals_played, s.deals_won, s.eggs_deals, s.points
             FROM player_stats AS s
             LEFT JOIN players AS p ON p.platform = s.platform AND p.user_id = s.user_id
             WHERE s.platform = $1 AND s.chat_id = $2 AND s.game = $3
             ORDER BY s.series_won DESC, s.series_played ASC, s.deals_won DESC, ",
            $by_id,
            " LIMIT $4"
        )
    };
}
const LEADERBOARD_SQLITE: &str = leaderboard!("s.user_id");
const LEADERBOARD_POSTGRES: &str = leaderboard!("s.user_id COLLATE \"C\"");

const OPEN_MESSAGE_REFS: &str = "SELECT m.table_id, m.chat_id, m.message_id FROM message_refs AS m
     JOIN tables AS t ON t.id = m.table_id
     WHERE m.platform = $1 AND t.phase <> 'closed'";
const SHOWN_HASHES: &str = "SELECT m.table_id, m.chat_id, m.shown_hash FROM message_refs AS m
     JOIN tables AS t ON t.id = m.table_id
     WHERE m.platform = $1 AND t.phase <> 'closed' AND m.shown_hash IS NOT NULL";
const HAND_TOKENS: &str = "SELECT h.table_id, h.user_id, h.token, h.given_at, h.shown_hash
     FROM hand_tokens AS h JOIN tables AS t ON t.id = h.table_id
     WHERE h.platform = $1 AND t.phase <> 'closed' AND h.given_at >= $2";
const OWED_OUTPUTS: &str = "SELECT id, table_id, chat_id, announcement FROM owed_outputs
     WHERE platform = $1 ORDER BY id";
const OPEN_TABLES_BY_PHASE: &str = "SELECT platform, phase, count(*) FROM tables
     WHERE phase <> 'closed' GROUP BY platform, phase";
const INBOX_AFTER: &str = "SELECT seq, key, body, received_at FROM inbox
     WHERE platform = $1 AND seq > $2 ORDER BY seq LIMIT $3";
const INBOX_DONE: &str = "DELETE FROM inbox WHERE seq = $1";
const BURIALS: &str = "SELECT chat, messages FROM chat_burials WHERE platform = $1";
const SAVE_BURIAL: &str = "INSERT INTO chat_burials (platform, chat, messages) VALUES ($1, $2, $3)
     ON CONFLICT (platform, chat) DO UPDATE SET messages = excluded.messages";
const FORGET_BURIAL: &str = "DELETE FROM chat_burials WHERE platform = $1 AND chat = $2";
const FORGET_OLD_WRITES: &str = "DELETE FROM chat_writes WHERE platform = $1 AND last_ms < $2";
const CHAT_WRITES: &str = "SELECT chat, times FROM chat_writes WHERE platform = $1";
const SAVE_CHAT_WRITES: &str =
    "INSERT INTO chat_writes (platform, chat, last_ms, times) VALUES ($1, $2, $3, $4)
     ON CONFLICT (platform, chat) DO UPDATE
     SET last_ms = excluded.last_ms, times = excluded.times";

/// A `hand_tokens` row as read: (table, user, token, given at, hash).
type TokenRecord = (i64, String, String, i64, Option<i64>);

/// The reads and writes both backends have, written once.
pub trait Queries: Sync {
    /// The pool reads run on.
    fn db(&self) -> Db<'_>;

    /// Writes `commit` durably, as this backend commits (the SQLite
    /// writer's grouped transaction, a PostgreSQL transaction of its own).
    fn write(&self, commit: Commit) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Commits a transition; returns once it is durable. A table whose
    /// stored version is not the one the transition started from fails
    /// the whole commit with [`StoreError::Conflict`], a known `dedup` key
    /// with [`StoreError::Duplicate`]; either way nothing was written.
    fn commit(
        &self,
        transition: &Transition,
        dedup: Option<&str>,
        now: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let commit = Commit::new(transition, dedup, now);
        async move { self.write(commit?).await }
    }

    /// The chat's open table, if it has one.
    fn open_table(
        &self,
        chat: &ChatKey,
    ) -> impl Future<Output = Result<Option<Table>, StoreError>> + Send {
        async move {
            let row: Option<SnapshotRow> = on_db!(self.db(), |pool| {
                sqlx::query_as(OPEN_TABLE)
                    .bind(chat.platform().as_str())
                    .bind(chat.id())
                    .fetch_optional(pool)
                    .await?
            });
            snapshot(self, row).await
        }
    }

    /// Any table, open or closed.
    fn table(&self, id: TableId) -> impl Future<Output = Result<Option<Table>, StoreError>> + Send {
        async move {
            let row: Option<SnapshotRow> = on_db!(self.db(), |pool| {
                sqlx::query_as(TABLE)
                    .bind(id.0)
                    .fetch_optional(pool)
                    .await?
            });
            snapshot(self, row).await
        }
    }

    /// The chat a table belongs to now, and its phase.
    fn chat_of(
        &self,
        id: TableId,
    ) -> impl Future<Output = Result<Option<(ChatKey, Phase)>, StoreError>> + Send {
        async move {
            let row: Option<ChatRow> = on_db!(self.db(), |pool| {
                sqlx::query_as(CHAT_OF)
                    .bind(id.0)
                    .fetch_optional(pool)
                    .await?
            });
            row.map(|r| r.decode(id)).transpose()
        }
    }

    /// Every open table's id, oldest first.
    fn open_table_ids(&self) -> impl Future<Output = Result<Vec<TableId>, StoreError>> + Send {
        async move {
            let ids: Vec<i64> = on_db!(self.db(), |pool| {
                sqlx::query_scalar(OPEN_TABLE_IDS).fetch_all(pool).await?
            });
            Ok(ids.into_iter().map(TableId).collect())
        }
    }

    /// The largest table id ever given, if any.
    fn max_table_id(&self) -> impl Future<Output = Result<Option<TableId>, StoreError>> + Send {
        async move {
            let id: Option<i64> = on_db!(self.db(), |pool| {
                sqlx::query_scalar(MAX_TABLE_ID).fetch_one(pool).await?
            });
            Ok(id.map(TableId))
        }
    }

    /// Every table the chat has had, oldest first.
    fn chat_tables(
        &self,
        chat: &ChatKey,
    ) -> impl Future<Output = Result<Vec<TableId>, StoreError>> + Send {
        async move {
            let ids: Vec<i64> = on_db!(self.db(), |pool| {
                sqlx::query_scalar(CHAT_TABLES)
                    .bind(chat.platform().as_str())
                    .bind(chat.id())
                    .fetch_all(pool)
                    .await?
            });
            Ok(ids.into_iter().map(TableId).collect())
        }
    }

    /// The command recorded under `key`, if one was applied.
    fn recorded(
        &self,
        key: &str,
    ) -> impl Future<Output = Result<Option<RecordedCommand>, StoreError>> + Send {
        async move {
            let row: Option<CommandRow> = on_db!(self.db(), |pool| {
                sqlx::query_as(RECORDED)
                    .bind(key)
                    .fetch_optional(pool)
                    .await?
            });
            row.map(CommandRow::decode).transpose()
        }
    }

    /// A table's logged events with versions in `from..=to`, in order.
    fn events_between(
        &self,
        table: TableId,
        from: u64,
        to: u64,
    ) -> impl Future<Output = Result<Vec<(u64, TableEvent)>, StoreError>> + Send {
        async move {
            let (from, to) = (
                i64::try_from(from).unwrap_or(i64::MAX),
                i64::try_from(to).unwrap_or(i64::MAX),
            );
            let rows: Vec<EventRow> = on_db!(self.db(), |pool| {
                sqlx::query_as(EVENTS)
                    .bind(table.0)
                    .bind(from)
                    .bind(to)
                    .fetch_all(pool)
                    .await?
            });
            rows.into_iter()
                .map(|r| Ok((version_of(r.version)?, serde_json::from_str(&r.event)?)))
                .collect()
        }
    }

    /// A table's whole event log, in order.
    fn events(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Vec<(u64, TableEvent)>, StoreError>> + Send {
        self.events_between(table, 1, u64::MAX)
    }

    /// Rebuilds a table from its event log (see [`Table::replay`]). The log
    /// must be gapless from version 1.
    fn replay(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<Option<Table>, StoreError>> + Send {
        async move { replay_log(table, &self.events(table).await?) }
    }

    /// Forgets de-duplication keys recorded before `before`: platforms
    /// redeliver an update for minutes, not days.
    fn prune_commands(
        &self,
        before: Timestamp,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send {
        async move {
            let done = on_db!(self.db(), |pool| {
                sqlx::query(PRUNE_COMMANDS)
                    .bind(before.millis())
                    .execute(pool)
                    .await?
                    .rows_affected()
            });
            Ok(done)
        }
    }

    /// The language the chat chose, if it chose one.
    fn chat_language(
        &self,
        chat: &ChatKey,
    ) -> impl Future<Output = Result<Option<Lang>, StoreError>> + Send {
        async move {
            let code: Option<String> = on_db!(self.db(), |pool| {
                sqlx::query_scalar(CHAT_LANGUAGE)
                    .bind(chat.platform().as_str())
                    .bind(chat.id())
                    .fetch_optional(pool)
                    .await?
            });
            code.map(|c| {
                Lang::from_code(&c).ok_or_else(|| StoreError::Corrupt(format!("language `{c}`")))
            })
            .transpose()
        }
    }

    /// Records the language a chat chose (it moves with the chat's id).
    fn save_chat_language(
        &self,
        chat: &ChatKey,
        lang: Lang,
        now: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.write(Commit::chat_language(chat, lang, now))
    }

    /// The chat's best players at `game`, at most `limit` of them.
    fn leaderboard(
        &self,
        chat: &ChatKey,
        game: GameKind,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<PlayerStats>, StoreError>> + Send {
        async move {
            let db = self.db();
            let sql = match db {
                Db::Sqlite(_) => LEADERBOARD_SQLITE,
                Db::Postgres(_) => LEADERBOARD_POSTGRES,
            };
            let rows: Vec<StatsRow> = on_db!(db, |pool| {
                sqlx::query_as(sql)
                    .bind(chat.platform().as_str())
                    .bind(chat.id())
                    .bind(game.as_str())
                    .bind(i64::from(limit))
                    .fetch_all(pool)
                    .await?
            });
            rows.into_iter().map(StatsRow::decode).collect()
        }
    }

    /// The messages recorded for the open tables: (table, chat id, message id).
    fn open_message_refs(
        &self,
        platform: Platform,
    ) -> impl Future<Output = Result<Vec<(TableId, String, i64)>, StoreError>> + Send {
        message_rows(self, OPEN_MESSAGE_REFS, platform)
    }

    /// What the messages of open tables show, as last recorded (those not
    /// known left out): (table, chat id, hash).
    fn shown_hashes(
        &self,
        platform: Platform,
    ) -> impl Future<Output = Result<Vec<(TableId, String, i64)>, StoreError>> + Send {
        message_rows(self, SHOWN_HASHES, platform)
    }

    /// Records (`Some`) or forgets (`None`) the message showing `table` in
    /// `chat_id`, with what it shows (`shown`; `None`: not known).
    fn save_message_ref(
        &self,
        platform: Platform,
        table: TableId,
        chat_id: &str,
        message_id: Option<i64>,
        shown: Option<i64>,
        now: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let commit = Commit::message_ref(platform, table, chat_id, message_id, shown, now);
        self.write(commit)
    }

    /// Records what messages show (`Some`), or forgets every hash (`None`).
    fn save_shown_hashes(
        &self,
        platform: Platform,
        rows: Option<Vec<(TableId, String, i64)>>,
        now: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.write(Commit::shown_hashes(platform, rows, now))
    }

    /// Records what recorded messages show (`None`: not known), in one write.
    fn mark_shown(
        &self,
        platform: Platform,
        rows: Vec<ShownRow>,
        now: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        async move {
            if rows.is_empty() {
                return Ok(());
            }
            self.write(Commit::mark_shown(platform, rows, now)).await
        }
    }

    /// The hand tokens of `platform`'s open tables given at or after
    /// `since`; a row whose user no longer reads is left out.
    fn hand_tokens(
        &self,
        platform: Platform,
        since: Timestamp,
    ) -> impl Future<Output = Result<Vec<HandTokenRow>, StoreError>> + Send {
        async move {
            let rows: Vec<TokenRecord> = on_db!(self.db(), |pool| {
                sqlx::query_as(HAND_TOKENS)
                    .bind(platform.as_str())
                    .bind(since.millis())
                    .fetch_all(pool)
                    .await?
            });
            Ok(decode_tokens(rows))
        }
    }

    /// Records a change to the hand tokens.
    fn change_hand_token(
        &self,
        change: HandTokenChange,
        now: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.write(Commit::hand_token(change, now))
    }

    /// What the chats of `platform` are owed, oldest first: (table, chat
    /// id, announcement). A row that no longer reads as an announcement
    /// is left out (and logged).
    fn owed_outputs(
        &self,
        platform: Platform,
    ) -> impl Future<Output = Result<Vec<(TableId, String, Announcement)>, StoreError>> + Send {
        async move {
            let rows: Vec<(i64, i64, String, String)> = on_db!(self.db(), |pool| {
                sqlx::query_as(OWED_OUTPUTS)
                    .bind(platform.as_str())
                    .fetch_all(pool)
                    .await?
            });
            Ok(decode_owed(rows))
        }
    }

    /// The chat of `table` got `announcement`: one row of it is forgotten.
    fn owed_sent(
        &self,
        platform: Platform,
        table: TableId,
        announcement: &Announcement,
        now: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let commit = Commit::owed_sent(platform, table, announcement, now);
        async move { self.write(commit?).await }
    }

    /// How many tables are not closed, per platform and phase, every pair
    /// listed (zeros included, so a gauge set from this drops to 0).
    fn open_tables_by_phase(
        &self,
    ) -> impl Future<Output = Result<Vec<(&'static str, &'static str, i64)>, StoreError>> + Send
    {
        async move {
            let rows: Vec<(String, String, i64)> = on_db!(self.db(), |pool| {
                sqlx::query_as(OPEN_TABLES_BY_PHASE).fetch_all(pool).await?
            });
            Ok(super::admin::every_platform_and_phase(&rows))
        }
    }

    /// Up to `limit` waiting updates of `platform` past `after`, oldest
    /// first (a put is each backend's own: it wakes the reader its way).
    fn inbox_after(
        &self,
        platform: Platform,
        after: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<InboxEntry>, StoreError>> + Send {
        async move {
            let rows: Vec<(i64, String, String, i64)> = on_db!(self.db(), |pool| {
                sqlx::query_as(INBOX_AFTER)
                    .bind(platform.as_str())
                    .bind(after)
                    .bind(i64::from(limit))
                    .fetch_all(pool)
                    .await?
            });
            Ok(rows
                .into_iter()
                .map(|(seq, key, body, received)| InboxEntry {
                    seq,
                    key,
                    body,
                    received: Timestamp::from_millis(received),
                })
                .collect())
        }
    }

    /// Deletes the inbox row at `seq` (its update was handled).
    fn inbox_done(&self, seq: i64) -> impl Future<Output = Result<(), StoreError>> + Send {
        async move {
            on_db!(self.db(), |pool| {
                sqlx::query(INBOX_DONE)
                    .bind(seq)
                    .execute(pool)
                    .await?
                    .rows_affected()
            });
            Ok(())
        }
    }

    /// Every chat's burying count of `platform`.
    fn burials(
        &self,
        platform: Platform,
    ) -> impl Future<Output = Result<Vec<(String, u32)>, StoreError>> + Send {
        async move {
            let rows: Vec<(String, i64)> = on_db!(self.db(), |pool| {
                sqlx::query_as(BURIALS)
                    .bind(platform.as_str())
                    .fetch_all(pool)
                    .await?
            });
            Ok(rows
                .into_iter()
                .map(|(chat, n)| (chat, u32::try_from(n).unwrap_or(u32::MAX)))
                .collect())
        }
    }

    /// Sets each chat's burying count (`None`: forgets the chat), in one
    /// transaction beside the commits: a handful of rows a second at
    /// most, none of them a command.
    fn save_burials(
        &self,
        platform: Platform,
        changes: &[(String, Option<u32>)],
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        async move {
            on_db!(self.db(), |pool| {
                let mut tx = pool.begin().await?;
                for (chat, count) in changes {
                    let q = match count {
                        Some(n) => sqlx::query(SAVE_BURIAL)
                            .bind(platform.as_str())
                            .bind(chat)
                            .bind(i64::from(*n)),
                        None => sqlx::query(FORGET_BURIAL)
                            .bind(platform.as_str())
                            .bind(chat),
                    };
                    q.execute(&mut *tx).await?;
                }
                tx.commit().await?
            });
            Ok(())
        }
    }

    /// Deletes the rows of `platform` whose newest write is before
    /// `since_ms`, then returns every other chat's write times.
    fn chat_writes(
        &self,
        platform: Platform,
        since_ms: i64,
    ) -> impl Future<Output = Result<Vec<(String, Vec<i64>)>, StoreError>> + Send {
        async move {
            let rows: Vec<(String, String)> = on_db!(self.db(), |pool| {
                sqlx::query(FORGET_OLD_WRITES)
                    .bind(platform.as_str())
                    .bind(since_ms)
                    .execute(pool)
                    .await?;
                sqlx::query_as(CHAT_WRITES)
                    .bind(platform.as_str())
                    .fetch_all(pool)
                    .await?
            });
            Ok(writes_decoded(rows))
        }
    }

    /// Sets `chat`'s latest write times (oldest first), beside the commits:
    /// at most a group's 20 writes a minute each.
    fn save_chat_writes(
        &self,
        platform: Platform,
        chat: &str,
        times: &[i64],
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        async move {
            let Some(&last) = times.last() else {
                return Ok(());
            };
            let encoded = writes_encoded(times);
            on_db!(self.db(), |pool| {
                sqlx::query(SAVE_CHAT_WRITES)
                    .bind(platform.as_str())
                    .bind(chat)
                    .bind(last)
                    .bind(&encoded)
                    .execute(pool)
                    .await?
                    .rows_affected()
            });
            Ok(())
        }
    }
}

/// A stored snapshot as a table (rebuilt from its log when it is of an
/// older format).
async fn snapshot<Q: Queries + ?Sized>(
    store: &Q,
    row: Option<SnapshotRow>,
) -> Result<Option<Table>, StoreError> {
    let Some(row) = row else {
        return Ok(None);
    };
    let id = TableId(row.id);
    decode_snapshot(row, async || store.events(id).await)
        .await
        .map(Some)
}

/// (table, chat id, a number) rows of `platform`'s messages.
async fn message_rows<Q: Queries + ?Sized>(
    store: &Q,
    sql: &'static str,
    platform: Platform,
) -> Result<Vec<(TableId, String, i64)>, StoreError> {
    let rows: Vec<(i64, String, i64)> = on_db!(store.db(), |pool| {
        sqlx::query_as(sql)
            .bind(platform.as_str())
            .fetch_all(pool)
            .await?
    });
    Ok(rows
        .into_iter()
        .map(|(t, c, n)| (TableId(t), c, n))
        .collect())
}

/// The rows read, those whose user no longer parses left out.
fn decode_tokens(rows: Vec<TokenRecord>) -> Vec<HandTokenRow> {
    rows.into_iter()
        .filter_map(|(table, user, token, given_at, shown)| {
            Some(HandTokenRow {
                table: TableId(table),
                user: UserId::new(user).ok()?,
                token: Secret(token),
                given_at: Timestamp::from_millis(given_at),
                shown,
            })
        })
        .collect()
}

/// Rows of `owed_outputs` (id, table, chat id, JSON) as announcements; a
/// row that no longer reads as one is left out (and logged).
fn decode_owed(rows: Vec<(i64, i64, String, String)>) -> Vec<(TableId, String, Announcement)> {
    rows.into_iter()
        .filter_map(
            |(id, table, chat, json)| match serde_json::from_str::<Announcement>(&json) {
                Ok(a) => Some((TableId(table), chat, a)),
                Err(e) => {
                    tracing::warn!(id, error = %e, "an owed announcement does not read");
                    None
                }
            },
        )
        .collect()
}
