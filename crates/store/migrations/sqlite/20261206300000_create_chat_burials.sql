-- How many of other people's messages came below a chat's live table
-- message (Discord: counted from the gateway's MESSAGE_CREATE; past a few
-- the table is posted anew at the bottom). With replicas a takeover must
-- not forget them, or a table buried just before would stay buried: the
-- serving replica writes each count as it changes (at most once a second)
-- and reads them all when it starts. A chat without a live table message
-- has no row. `messages` is the count.
CREATE TABLE chat_burials (
    platform TEXT NOT NULL,
    chat TEXT NOT NULL,
    messages INTEGER NOT NULL,
    PRIMARY KEY (platform, chat)
) WITHOUT ROWID;
