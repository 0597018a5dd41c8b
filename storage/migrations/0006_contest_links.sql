-- 0006_contest_links: what ties a contest to Telegram (issue 9), apart from the pure contest
-- facts of 0005. A bot table reserved for a contest match (only its four players may sit,
-- each pair on its own side), the group messages a reply may answer (the pairings), the
-- organiser's Enterprise WeChat webhook (a secret: never shown, never in the outbox), and
-- the @usernames the bot has seen, so that `/signup @partner` can name a partner.

CREATE TABLE table_reservations (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    side INTEGER NOT NULL CHECK (side IN (0, 1)),  -- 0: seats 0 and 2, 1: seats 1 and 3
    PRIMARY KEY (table_id, user_id)
);

CREATE TABLE contest_tables (
    table_id INTEGER PRIMARY KEY REFERENCES game_tables (id) ON DELETE CASCADE,
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    code TEXT NOT NULL,                            -- the contest match this table plays
    team0_pair INTEGER NOT NULL                    -- the group number seated at 0 and 2
);

CREATE INDEX contest_tables_by_code ON contest_tables (code);

CREATE TABLE contest_messages (
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    round INTEGER,                                 -- the round whose pairings it shows
    PRIMARY KEY (chat_id, message_id)
);

CREATE TABLE contest_mirrors (
    contest_id INTEGER PRIMARY KEY REFERENCES contests (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    set_by INTEGER NOT NULL,
    set_at TEXT NOT NULL
);

CREATE TABLE known_usernames (
    username TEXT PRIMARY KEY,                     -- lower case, without @
    user_id INTEGER NOT NULL,
    name TEXT NOT NULL
);
