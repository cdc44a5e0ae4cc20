-- Discord edits a person's hand (an ephemeral message) only through the
-- newest interaction token of it, for 15 minutes. The tokens lived only in
-- the process's memory, so after a kill -9 (and so whenever a replica takes
-- over) every open hand stopped updating until its person pressed "My
-- hand" again. A token is kept here from when it arrives until it is
-- refused, expires or its hand is gone, with a hash of what the hand shows
-- (NULL: not known, so the next render is sent), and read at a start.
-- Tokens are secrets: they are never logged, and an export leaves them out.
CREATE TABLE hand_tokens (
    platform TEXT NOT NULL,
    table_id INTEGER NOT NULL REFERENCES tables (id),
    user_id TEXT NOT NULL,
    token TEXT NOT NULL,
    given_at INTEGER NOT NULL,
    shown_hash INTEGER,
    PRIMARY KEY (platform, table_id, user_id)
) WITHOUT ROWID;
