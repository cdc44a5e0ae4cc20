-- A front-end edits its messages in place (the table message in the chat,
-- each person's hand message in their private chat). Their ids must
-- outlive a restart, so the same messages are edited afterwards and the
-- buttons already on them keep working. One message per table and chat;
-- `chat_id` is the platform's chat (a group, or a person's private chat).
CREATE TABLE message_refs (
    platform TEXT NOT NULL,
    table_id INTEGER NOT NULL REFERENCES tables (id),
    chat_id TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (platform, table_id, chat_id)
) WITHOUT ROWID;
