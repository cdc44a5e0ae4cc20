-- What a group must still be told (a deal's result, the live table posted
-- anew at a new deal) existed only in the front-end's queue, so a kill of
-- the bot while it waited for the group's rate limit lost it for good.
-- Such announcements are written here in the same transaction as the
-- command that produced them; the front-end deletes each row once the chat
-- got it, and at a start sends what is still owed. `announcement` is the
-- JSON of `table::Announcement`; `id` keeps their order.
CREATE TABLE owed_outputs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    platform TEXT NOT NULL,
    table_id INTEGER NOT NULL REFERENCES tables (id),
    chat_id TEXT NOT NULL,
    announcement TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX owed_outputs_by_table ON owed_outputs (platform, table_id);
