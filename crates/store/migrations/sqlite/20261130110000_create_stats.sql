-- Statistics and the people behind them, for leaderboards. The counters
-- are updated in the transaction of the command that finished the deal or
-- the series, so they never disagree with the event log. They count from
-- this migration on; series finished before it are not counted.

-- People seen at a table: the name and language to show them by.
CREATE TABLE players (
    platform TEXT NOT NULL,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    lang TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (platform, user_id)
) WITHOUT ROWID;

-- Everyone seated at a table before this migration, as the table last saw them.
INSERT INTO players (platform, user_id, name, lang, updated_at)
SELECT t.platform,
       json_extract(s.value, '$.player.id'),
       json_extract(s.value, '$.player.name'),
       json_extract(s.value, '$.player.lang'),
       t.updated_at
FROM tables AS t, json_each(t.snapshot, '$.seats') AS s
WHERE json_extract(s.value, '$.kind') = 'person'
ORDER BY t.updated_at
ON CONFLICT (platform, user_id) DO UPDATE SET
    name = excluded.name,
    lang = excluded.lang,
    updated_at = excluded.updated_at;

-- Per chat, game and person. A person's totals are sums over chats.
CREATE TABLE player_stats (
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    game TEXT NOT NULL,
    user_id TEXT NOT NULL,
    series_played INTEGER NOT NULL DEFAULT 0,
    series_won INTEGER NOT NULL DEFAULT 0,
    series_lost INTEGER NOT NULL DEFAULT 0,
    goat INTEGER NOT NULL DEFAULT 0,
    deals_played INTEGER NOT NULL DEFAULT 0,
    deals_won INTEGER NOT NULL DEFAULT 0,
    eggs_deals INTEGER NOT NULL DEFAULT 0,
    points INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, chat_id, game, user_id)
) WITHOUT ROWID;

CREATE INDEX player_stats_by_user ON player_stats (platform, user_id);

-- Per chat and game: everything played there, AI seats included.
CREATE TABLE chat_stats (
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    game TEXT NOT NULL,
    series_played INTEGER NOT NULL DEFAULT 0,
    deals_played INTEGER NOT NULL DEFAULT 0,
    eggs_deals INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, chat_id, game)
) WITHOUT ROWID;
