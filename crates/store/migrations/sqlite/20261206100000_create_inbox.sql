-- Updates a platform pushed to the bot (a Telegram webhook POST) were
-- acknowledged once they sat in the process's memory, so a kill right
-- after lost them, and a replica standing by could not take them at all.
-- Whichever process receives an update writes it here and acknowledges it
-- only once this row committed; the serving process handles the rows in
-- `seq` order and deletes each once its update was handled. `key` is the
-- platform's own id of the update: a redelivery of one still waiting is
-- the same row. `body` is the update as it came; `received_at` is Unix
-- milliseconds.
CREATE TABLE inbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    platform TEXT NOT NULL,
    key TEXT NOT NULL,
    body TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    UNIQUE (platform, key)
);
CREATE INDEX inbox_in_order ON inbox (platform, seq);
