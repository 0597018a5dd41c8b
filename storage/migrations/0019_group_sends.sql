-- 0019_group_sends: the messages each bot sent into each group in the last minute (issue 40).
-- Telegram takes about 20 a minute into one group, counted by its clock, not the bot's: a bot
-- restarted (or a standby taking over) that started every group's minute empty sent 24 into one
-- group within 60 s, and the rest came back as 429s while its tables were resuming. Each group
-- message is recorded here before it leaves; a starting bot reads back the last minute's and
-- counts them. Rows older than a few minutes are deleted as new ones come; sent_at is seconds
-- since the epoch (a standby on another machine reads them by the wall clock).

CREATE TABLE group_sends (
    id INTEGER PRIMARY KEY,
    bot_id INTEGER NOT NULL,
    chat_id INTEGER NOT NULL,
    sent_at REAL NOT NULL
);
CREATE INDEX group_sends_by_time ON group_sends (bot_id, sent_at);
