-- The table service's durable state. Each accepted command is one
-- transaction over these three tables: its de-duplication key, a
-- compare-and-swap of the table row's version with the new snapshot, and
-- the events appended to the table's log. The log is the truth; the
-- snapshot is the log folded, kept so loading a table is one read.

-- One row per table, open or closed. `snapshot` is the table as JSON at
-- `version`; `phase` and `deadline` repeat it for the queries run at start.
CREATE TABLE tables (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    game TEXT NOT NULL,
    phase TEXT NOT NULL CHECK (phase IN ('lobby', 'playing', 'finished', 'closed')),
    version INTEGER NOT NULL CHECK (version >= 1),
    deadline INTEGER,
    snapshot TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- A chat has at most one open table; the database holds the line too.
CREATE UNIQUE INDEX tables_one_open_per_chat ON tables (platform, chat_id)
    WHERE phase <> 'closed';

-- A chat's history, newest last.
CREATE INDEX tables_by_chat ON tables (platform, chat_id, id);

-- The append-only event log: event `version` of a table made it version
-- `version`. Rows are never updated or deleted.
CREATE TABLE table_events (
    table_id INTEGER NOT NULL REFERENCES tables (id),
    version INTEGER NOT NULL,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (table_id, version)
) WITHOUT ROWID;

-- Commands already applied, by the front-end's de-duplication key (an
-- update or callback id): a repeated delivery is answered from here.
-- `table_id` is NULL for a command that changed no table (a chat move).
CREATE TABLE commands (
    dedup_key TEXT PRIMARY KEY,
    table_id INTEGER,
    first_version INTEGER NOT NULL,
    last_version INTEGER NOT NULL,
    at INTEGER NOT NULL
) WITHOUT ROWID;

-- Old keys are pruned by age.
CREATE INDEX commands_by_age ON commands (at);
