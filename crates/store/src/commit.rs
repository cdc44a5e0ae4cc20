//! A [`Commit`]: a transition serialized into the rows it writes, and
//! those rows written the same way on both backends ([`write_one`]): the
//! SQLite writer runs it in a savepoint of its group transaction, the
//! PostgreSQL store in a transaction of its own. What differs between the
//! two is around this body (how transactions are grouped and retried),
//! never in it.

use super::StoreError;
use super::sql::{Sql, args};
use kozyr_table::storage::HandTokenChange;
use kozyr_table::{
    Announcement, ChatKey, Counters, Effect, Lang, Platform, Player, TableEvent, TableId,
    Timestamp, Transition, stats_delta,
};

/// A transition serialized for the writer. Building it (JSON encoding)
/// happens on the caller's task, not the writer's.
#[derive(Debug)]
pub struct Commit {
    pub(super) at: i64,
    pub(super) dedup: Option<DedupRow>,
    pub(super) tables: Vec<TableWrite>,
    pub(super) moved_chat: Option<(ChatKey, ChatKey)>,
    pub(super) players: Vec<PlayerWrite>,
    pub(super) stats: Vec<StatsWrite>,
    pub(super) chat_lang: Option<(ChatKey, Lang)>,
    pub(super) message_ref: Option<MessageRefWrite>,
    pub(super) shown: Option<ShownWrite>,
    /// A change to the kept hand tokens (the `hand_tokens` migration).
    pub(super) hand_token: Option<HandTokenChange>,
    /// Announcements a chat is owed (the `owed_outputs` migration).
    pub(super) owed: Vec<OwedWrite>,
    /// An owed announcement the chat got.
    pub(super) owed_sent: Option<OwedWrite>,
}

/// One row of `owed_outputs`.
#[derive(Debug)]
pub(super) struct OwedWrite {
    pub(super) platform: &'static str,
    pub(super) table_id: i64,
    pub(super) chat_id: String,
    /// The JSON of the announcement.
    pub(super) json: String,
}

/// What a front-end's messages show, as hashes (the `shown_hash` migration).
#[derive(Debug)]
pub(super) enum ShownWrite {
    /// Forget every hash of the platform.
    Clear { platform: &'static str },
    /// (table, chat id, hash) of messages recorded in `message_refs`; a
    /// `None` hash: not known.
    Set {
        platform: &'static str,
        rows: Vec<(i64, String, Option<i64>)>,
    },
}

#[derive(Debug)]
pub(super) struct MessageRefWrite {
    pub(super) platform: &'static str,
    pub(super) table_id: i64,
    pub(super) chat_id: String,
    /// `None` forgets the message.
    pub(super) message_id: Option<i64>,
    /// What the message shows (`None`: not known).
    pub(super) shown: Option<i64>,
}

#[derive(Debug)]
pub(super) struct PlayerWrite {
    pub(super) platform: &'static str,
    pub(super) player: Player,
}

/// Counters to add; `user: None` is the chat's row.
#[derive(Debug)]
pub(super) struct StatsWrite {
    pub(super) platform: &'static str,
    pub(super) chat_id: String,
    pub(super) game: &'static str,
    pub(super) user: Option<String>,
    pub(super) add: Counters,
}

#[derive(Debug)]
pub(super) struct DedupRow {
    pub(super) key: String,
    pub(super) table_id: Option<i64>,
    pub(super) first_version: i64,
    pub(super) last_version: i64,
}

#[derive(Debug)]
pub(super) struct TableWrite {
    pub(super) id: i64,
    pub(super) before: Option<i64>,
    pub(super) version: i64,
    pub(super) platform: &'static str,
    pub(super) chat_id: String,
    pub(super) game: &'static str,
    pub(super) phase: &'static str,
    pub(super) deadline: Option<i64>,
    pub(super) snapshot: String,
    pub(super) created_at: i64,
    pub(super) events: Vec<EventWrite>,
}

#[derive(Debug)]
pub(super) struct EventWrite {
    pub(super) version: i64,
    pub(super) kind: &'static str,
    pub(super) json: String,
}

fn to_i64(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Corrupt(format!("version {v} out of range")))
}

impl Commit {
    /// Serializes what `transition` changed, under de-duplication key `dedup`.
    pub fn new(
        transition: &Transition,
        dedup: Option<&str>,
        now: Timestamp,
    ) -> Result<Commit, StoreError> {
        let mut tables = Vec::with_capacity(transition.changes.len());
        let mut players = Vec::new();
        let mut stats = Vec::new();
        for change in &transition.changes {
            let t = &change.table;
            let platform = t.chat().platform().as_str();
            for e in &change.events {
                if let TableEvent::Seated { player, .. } = e {
                    players.push(PlayerWrite {
                        platform,
                        player: player.clone(),
                    });
                }
            }
            let delta = stats_delta(t, &change.events);
            if !delta.is_empty() {
                let row = |user: Option<String>, add: Counters| StatsWrite {
                    platform,
                    chat_id: t.chat().id(),
                    game: t.kind().as_str(),
                    user,
                    add,
                };
                stats.push(row(None, delta.chat));
                for (user, add) in delta.players {
                    stats.push(row(Some(user.to_string()), add));
                }
            }
            let mut events = Vec::with_capacity(change.events.len());
            for (i, e) in change.events.iter().enumerate() {
                events.push(EventWrite {
                    version: to_i64(change.first_version() + i as u64)?,
                    kind: e.name(),
                    json: serde_json::to_string(e)?,
                });
            }
            tables.push(TableWrite {
                id: t.id().0,
                before: change.before.map(to_i64).transpose()?,
                version: to_i64(t.version())?,
                platform: t.chat().platform().as_str(),
                chat_id: t.chat().id(),
                game: t.kind().as_str(),
                phase: t.phase().as_str(),
                deadline: t.deadline().map(Timestamp::millis),
                snapshot: serde_json::to_string(t)?,
                created_at: t.created_at().millis(),
                events,
            });
        }
        let dedup = match dedup {
            None => None,
            Some(key) => {
                let main = transition.changes.last();
                Some(DedupRow {
                    key: key.to_owned(),
                    table_id: main.map(|c| c.table.id().0),
                    first_version: main.map_or(Ok(1), |c| to_i64(c.first_version()))?,
                    last_version: main.map_or(Ok(0), |c| to_i64(c.table.version()))?,
                })
            }
        };
        let mut owed = Vec::new();
        for e in &transition.effects {
            if let Effect::Announce {
                chat,
                table,
                announcement,
            } = e
                && announcement.is_owed()
            {
                owed.push(OwedWrite {
                    platform: chat.platform().as_str(),
                    table_id: table.0,
                    chat_id: chat.id(),
                    json: serde_json::to_string(announcement)?,
                });
            }
        }
        Ok(Commit {
            at: now.millis(),
            dedup,
            tables,
            moved_chat: transition.moved_chat.clone(),
            players,
            stats,
            chat_lang: transition.chat_language.clone(),
            message_ref: None,
            shown: None,
            hand_token: None,
            owed,
            owed_sent: None,
        })
    }

    /// The chat got an owed announcement of `table` (its oldest row with
    /// that content is deleted).
    pub fn owed_sent(
        platform: Platform,
        table: kozyr_table::TableId,
        announcement: &Announcement,
        now: Timestamp,
    ) -> Result<Commit, StoreError> {
        Ok(Commit {
            owed_sent: Some(OwedWrite {
                platform: platform.as_str(),
                table_id: table.0,
                chat_id: String::new(),
                json: serde_json::to_string(announcement)?,
            }),
            ..Commit::nothing(now)
        })
    }

    /// Records a person's name and language outside any table command
    /// (a front-end learning the language they chose, say).
    pub fn player(platform: kozyr_table::Platform, player: &Player, now: Timestamp) -> Commit {
        Commit {
            players: vec![PlayerWrite {
                platform: platform.as_str(),
                player: player.clone(),
            }],
            ..Commit::nothing(now)
        }
    }

    /// Records the language a chat chose.
    pub fn chat_language(chat: &ChatKey, lang: Lang, now: Timestamp) -> Commit {
        Commit {
            chat_lang: Some((chat.clone(), lang)),
            ..Commit::nothing(now)
        }
    }

    /// Records (or with `None` forgets) the message a front-end shows a
    /// table with in `chat_id` (the chat itself, or a person's private chat).
    pub fn message_ref(
        platform: kozyr_table::Platform,
        table: kozyr_table::TableId,
        chat_id: &str,
        message_id: Option<i64>,
        shown: Option<i64>,
        now: Timestamp,
    ) -> Commit {
        Commit {
            message_ref: Some(MessageRefWrite {
                platform: platform.as_str(),
                table_id: table.0,
                chat_id: chat_id.to_owned(),
                message_id,
                shown,
            }),
            ..Commit::nothing(now)
        }
    }

    /// Records what messages show (`Some`), or forgets it all (`None`).
    pub fn shown_hashes(
        platform: kozyr_table::Platform,
        rows: Option<Vec<(kozyr_table::TableId, String, i64)>>,
        now: Timestamp,
    ) -> Commit {
        let platform = platform.as_str();
        Commit {
            shown: Some(match rows {
                None => ShownWrite::Clear { platform },
                Some(rows) => ShownWrite::Set {
                    platform,
                    rows: rows
                        .into_iter()
                        .map(|(t, c, h)| (t.0, c, Some(h)))
                        .collect(),
                },
            }),
            ..Commit::nothing(now)
        }
    }

    /// Records what messages show, a `None` hash as not known.
    pub fn mark_shown(
        platform: kozyr_table::Platform,
        rows: Vec<kozyr_table::storage::ShownRow>,
        now: Timestamp,
    ) -> Commit {
        Commit {
            shown: Some(ShownWrite::Set {
                platform: platform.as_str(),
                rows: rows.into_iter().map(|(t, c, h)| (t.0, c, h)).collect(),
            }),
            ..Commit::nothing(now)
        }
    }

    /// A change to the kept hand tokens.
    pub fn hand_token(change: HandTokenChange, now: Timestamp) -> Commit {
        Commit {
            hand_token: Some(change),
            ..Commit::nothing(now)
        }
    }

    fn nothing(now: Timestamp) -> Commit {
        Commit {
            at: now.millis(),
            dedup: None,
            tables: Vec::new(),
            moved_chat: None,
            players: Vec::new(),
            stats: Vec::new(),
            chat_lang: None,
            message_ref: None,
            shown: None,
            hand_token: None,
            owed: Vec::new(),
            owed_sent: None,
        }
    }
}

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
