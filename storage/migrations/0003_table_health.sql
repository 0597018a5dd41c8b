-- 0003_table_health: a table that cannot be resumed (its rules or action log fail to load,
-- replay or re-arm) is quarantined instead of stopping the bot: status 'quarantined', and
-- why in status_reason; its group is told once and may open a new table.
-- SQLite cannot change a CHECK constraint in place, so game_tables is rebuilt the documented
-- way (create new, copy, drop old, rename). Foreign keys must be off for that: with them on,
-- dropping game_tables would cascade-delete every seat and action row. The runner turns
-- them off for a migration carrying the next line and checks them before committing.
-- foreign_keys: off

CREATE TABLE game_tables_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    token TEXT NOT NULL UNIQUE,                    -- deep-link payload t.me/<bot>?start=<token>
    creator_id INTEGER NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('lobby', 'playing', 'finished', 'stopped', 'quarantined')),
    preset TEXT NOT NULL,
    rules_json TEXT NOT NULL,
    seed INTEGER NOT NULL,
    lobby_message_id INTEGER,
    board_message_id INTEGER,
    created_at TEXT NOT NULL,
    started_at TEXT,
    status_reason TEXT                             -- why the table was quarantined
);

INSERT INTO game_tables_new (id, chat_id, token, creator_id, status, preset, rules_json, seed,
    lobby_message_id, board_message_id, created_at, started_at)
SELECT id, chat_id, token, creator_id, status, preset, rules_json, seed,
    lobby_message_id, board_message_id, created_at, started_at
FROM game_tables;

-- Keep the AUTOINCREMENT high-water mark: ids of tables are never reused.
UPDATE sqlite_sequence
SET seq = (SELECT MAX(seq) FROM sqlite_sequence WHERE name IN ('game_tables', 'game_tables_new'))
WHERE name = 'game_tables_new';

DROP TABLE game_tables;

ALTER TABLE game_tables_new RENAME TO game_tables;

CREATE UNIQUE INDEX game_tables_one_active_per_chat
    ON game_tables (chat_id) WHERE status IN ('lobby', 'playing');
