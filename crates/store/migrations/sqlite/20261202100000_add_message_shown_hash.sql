-- After a restart the bot renders every open table and hand again. Telegram
-- still shows what was delivered before, and editing a message to the same
-- content is refused ("message is not modified") and spends the bot's
-- output budget. A front-end records here, when it stops, a hash of what
-- each message shows; the next start reads and clears it (so a kill, which
-- writes nothing, never leaves an outdated hash behind) and sends only
-- what differs.
ALTER TABLE message_refs ADD COLUMN shown_hash INTEGER;
