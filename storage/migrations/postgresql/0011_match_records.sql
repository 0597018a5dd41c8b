-- 0011_match_records (PostgreSQL): finished matches' summaries, seats, ratings and known
-- @usernames (../0011_match_records.sql). REAL is DOUBLE PRECISION here (PostgreSQL's REAL
-- has 4 bytes, SQLite's 8). known_users.username is compared ignoring case: SQLite declares
-- the column NOCASE, PostgreSQL indexes lower(username) (storage/records.py asks that way).

CREATE TABLE match_records (
    table_id BIGINT PRIMARY KEY REFERENCES game_tables (id) ON DELETE CASCADE,
    chat_id BIGINT NOT NULL,
    preset TEXT NOT NULL,
    ended_at TEXT NOT NULL,
    winner_team INTEGER CHECK (winner_team IN (0, 1)),
    reason TEXT NOT NULL,
    deals INTEGER NOT NULL,
    summary_json TEXT NOT NULL
);

CREATE INDEX match_records_by_chat ON match_records (chat_id, table_id);

CREATE TABLE match_players (
    table_id BIGINT NOT NULL REFERENCES match_records (table_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    chat_id BIGINT NOT NULL,
    user_id BIGINT,
    name TEXT NOT NULL,
    is_ai INTEGER NOT NULL,
    player TEXT NOT NULL,
    partner TEXT NOT NULL,
    partner_name TEXT NOT NULL,
    result INTEGER,
    deals INTEGER NOT NULL,
    firsts INTEGER NOT NULL,
    seconds INTEGER NOT NULL,
    thirds INTEGER NOT NULL,
    lasts INTEGER NOT NULL,
    double_down_won INTEGER NOT NULL,
    double_down_suffered INTEGER NOT NULL,
    levels_gained INTEGER NOT NULL,
    tributes_paid INTEGER NOT NULL,
    tributes_received INTEGER NOT NULL,
    anti_tributes INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
);

CREATE INDEX match_players_by_user ON match_players (user_id, chat_id) WHERE user_id IS NOT NULL;

CREATE TABLE ratings (
    chat_id BIGINT NOT NULL,
    player TEXT NOT NULL,
    name TEXT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    matches INTEGER NOT NULL,
    PRIMARY KEY (chat_id, player)
);

CREATE TABLE known_users (
    user_id BIGINT PRIMARY KEY,
    username TEXT,
    name TEXT NOT NULL
);

CREATE INDEX known_users_by_username ON known_users (lower(username));
