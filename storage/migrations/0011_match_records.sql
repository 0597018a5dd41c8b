-- 0011_match_records: what a group remembers of its finished matches (issue 21: /stats, /top,
-- /history). A summary is written when a match ends, and the bot back-fills one for every
-- finished table that lacks it by replaying its action log once (handlers/records), so no
-- command ever reads an action log. The log stays the source of truth: these rows can be
-- deleted and rebuilt from it.

CREATE TABLE match_records (
    table_id INTEGER PRIMARY KEY REFERENCES game_tables (id) ON DELETE CASCADE,
    chat_id INTEGER NOT NULL,
    preset TEXT NOT NULL,
    ended_at TEXT NOT NULL,                        -- the last action's time, UTC ISO 8601
    winner_team INTEGER CHECK (winner_team IN (0, 1)),  -- NULL: no winner
    reason TEXT NOT NULL,
    deals INTEGER NOT NULL,
    summary_json TEXT NOT NULL                     -- engine.records.MatchSummary
);

CREATE INDEX match_records_by_chat ON match_records (chat_id, table_id);

-- One row per seat: the figures /stats sums. user_id is NULL for a computer player and for
-- a person who used /forgetme (their name is then blanked too).
CREATE TABLE match_players (
    table_id INTEGER NOT NULL REFERENCES match_records (table_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    chat_id INTEGER NOT NULL,
    user_id INTEGER,
    name TEXT NOT NULL,
    is_ai INTEGER NOT NULL,
    player TEXT NOT NULL,                          -- rating key: 'u:<id>', 'ai:<difficulty>', 'anon'
    partner TEXT NOT NULL,                         -- the partner's rating key
    partner_name TEXT NOT NULL,
    result INTEGER,                                -- 1 won, 0 lost, NULL no winner
    deals INTEGER NOT NULL,
    firsts INTEGER NOT NULL,                       -- 上游
    seconds INTEGER NOT NULL,                      -- 二游
    thirds INTEGER NOT NULL,                       -- 三游
    lasts INTEGER NOT NULL,                        -- 下游
    double_down_won INTEGER NOT NULL,              -- 双下 won by the seat's team
    double_down_suffered INTEGER NOT NULL,
    levels_gained INTEGER NOT NULL,
    tributes_paid INTEGER NOT NULL,
    tributes_received INTEGER NOT NULL,
    anti_tributes INTEGER NOT NULL,                -- 抗贡
    PRIMARY KEY (table_id, seat)
);

CREATE INDEX match_players_by_user ON match_players (user_id, chat_id) WHERE user_id IS NOT NULL;

-- The group's skill ratings (openskill, Plackett-Luce), updated per match in table order.
CREATE TABLE ratings (
    chat_id INTEGER NOT NULL,
    player TEXT NOT NULL,                          -- as match_players.player
    name TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    matches INTEGER NOT NULL,
    PRIMARY KEY (chat_id, player)
);

-- Who an @username is: kept from the commands people send, so /stats @name finds them.
CREATE TABLE known_users (
    user_id INTEGER PRIMARY KEY,
    username TEXT COLLATE NOCASE,
    name TEXT NOT NULL
);

CREATE INDEX known_users_by_username ON known_users (username);
