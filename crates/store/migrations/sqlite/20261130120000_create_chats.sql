-- What a chat chose for itself, apart from any table: its language (`/lang`)
-- outlives the table it was set at and applies to tables opened later and
-- to messages outside a table.
CREATE TABLE chats (
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    lang TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (platform, chat_id)
) WITHOUT ROWID;

-- Until now a chat's language was its latest table's.
INSERT INTO chats (platform, chat_id, lang, updated_at)
SELECT t.platform, t.chat_id, json_extract(t.snapshot, '$.settings.lang'), t.updated_at
FROM tables AS t
WHERE t.id = (SELECT max(u.id) FROM tables AS u
              WHERE u.platform = t.platform AND u.chat_id = t.chat_id);
