-- 0013_master_difficulty: AI seats may play 大师 ('master', the searching player of issue 22)
-- besides 'easy' and 'normal'. SQLite cannot change a column's CHECK, so the seats table is
-- rebuilt with the same columns and rows and its one index.

CREATE TABLE seats_new (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id INTEGER,                               -- NULL for an AI seat
    name TEXT NOT NULL,
    is_ai INTEGER NOT NULL DEFAULT 0,
    locale TEXT,
    dm_message_id INTEGER,                         -- the private hand message, edited in place
    autoplay INTEGER NOT NULL DEFAULT 0,           -- 托管
    timeouts INTEGER NOT NULL DEFAULT 0,           -- consecutive turn timeouts
    difficulty TEXT NOT NULL DEFAULT 'normal' CHECK (difficulty IN ('easy', 'normal', 'master')),
    PRIMARY KEY (table_id, seat)
);

INSERT INTO seats_new (table_id, seat, user_id, name, is_ai, locale, dm_message_id, autoplay, timeouts, difficulty)
    SELECT table_id, seat, user_id, name, is_ai, locale, dm_message_id, autoplay, timeouts, difficulty FROM seats;

DROP TABLE seats;

ALTER TABLE seats_new RENAME TO seats;

CREATE UNIQUE INDEX seats_one_per_user ON seats (table_id, user_id) WHERE user_id IS NOT NULL;
