-- When the bot last wrote to each group (Telegram allows 20 writes a
-- minute in a group, counted by Telegram across our restarts). Without
-- them a restarted or promoted process could only guess that the last
-- minute's writes were evenly spread, while urgent writes go 0.5 s apart:
-- real windows are front-loaded, and the guess let a group get its 21st
-- write inside a minute after a takeover. The process that serves a chat
-- writes the row before each write it sends to the group (a call that
-- fails after counts once too many: the safe side), and reads every row at
-- its start. `times`: unix milliseconds, oldest first, comma separated, at
-- most the window's count; `last_ms`: the newest, so rows past the window
-- are deleted in one statement.
CREATE TABLE chat_writes (
    platform TEXT NOT NULL,
    chat TEXT NOT NULL,
    last_ms INTEGER NOT NULL,
    times TEXT NOT NULL,
    PRIMARY KEY (platform, chat)
) WITHOUT ROWID;
