-- 0001_init: everything needed to resume a match after a restart.
-- A table's match is its rules + seed + the ordered action log (replayed on start),
-- so no hand or trick state is stored: the log is the single source of truth.

CREATE TABLE users (
    user_id INTEGER PRIMARY KEY,
    locale TEXT,                                   -- NULL: the default (zh)
    four_color INTEGER NOT NULL DEFAULT 0,         -- four-colour suits in hand images
    reachable INTEGER NOT NULL DEFAULT 0           -- has opened the private chat (/start)
);

CREATE TABLE chats (
    chat_id INTEGER PRIMARY KEY,
    locale TEXT
);

CREATE TABLE game_tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    token TEXT NOT NULL UNIQUE,                    -- deep-link payload t.me/<bot>?start=<token>
    creator_id INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'stopped')),
    preset TEXT NOT NULL,
    rules_json TEXT NOT NULL,
    seed INTEGER NOT NULL,
    lobby_message_id INTEGER,
    board_message_id INTEGER,
    created_at TEXT NOT NULL
);

-- One active (lobby or playing) table per group.
CREATE UNIQUE INDEX game_tables_one_active_per_chat
    ON game_tables (chat_id) WHERE status IN ('lobby', 'playing');

CREATE TABLE seats (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id INTEGER,                               -- NULL for an AI seat
    name TEXT NOT NULL,
    is_ai INTEGER NOT NULL DEFAULT 0,
    locale TEXT,
    dm_message_id INTEGER,                         -- the private hand message, edited in place
    autoplay INTEGER NOT NULL DEFAULT 0,           -- 托管
    timeouts INTEGER NOT NULL DEFAULT 0,           -- consecutive turn timeouts
    PRIMARY KEY (table_id, seat)
);

CREATE UNIQUE INDEX seats_one_per_user ON seats (table_id, user_id) WHERE user_id IS NOT NULL;

CREATE TABLE actions (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,                      -- the match version this action produced
    seat INTEGER,
    action_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (table_id, version)
);
