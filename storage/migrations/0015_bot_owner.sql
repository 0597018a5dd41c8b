-- 0015_bot_owner: several bot tokens (several @BotFather bots) may share one store (issue 34,
-- docs/postgresql.md). Users, chats' settings, match records and ratings are keyed by
-- Telegram's user and chat ids, which are the same for every bot, so they are shared as they
-- are. What one bot sent and must edit or resume itself belongs to that bot: a table (its
-- lobby, board and hand messages), a contest (its messages, deadlines and reminders) and an
-- outbox row. bot_id is the id Telegram gives the bot (the digits before the token's colon);
-- 0 marks rows written before this migration: the first bot to open the store adopts them.

ALTER TABLE game_tables ADD COLUMN bot_id INTEGER NOT NULL DEFAULT 0;
DROP INDEX game_tables_one_active_per_chat;
CREATE UNIQUE INDEX game_tables_one_active_per_chat
    ON game_tables (bot_id, chat_id) WHERE status IN ('lobby', 'playing');

ALTER TABLE contests ADD COLUMN bot_id INTEGER NOT NULL DEFAULT 0;
DROP INDEX contests_one_open_per_chat;
CREATE UNIQUE INDEX contests_one_open_per_chat ON contests (bot_id, chat_id) WHERE closed_at IS NULL;

ALTER TABLE outbox ADD COLUMN bot_id INTEGER NOT NULL DEFAULT 0;
DROP INDEX outbox_by_chat;
CREATE INDEX outbox_by_chat ON outbox (bot_id, chat_id, id);
