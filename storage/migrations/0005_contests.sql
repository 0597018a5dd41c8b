-- 0005_contests: contests (issue 9), stored as facts like a match's action log.
-- Kept: the settings and secret seed, sign-ups, the drawn pairs, each round's pairings
-- and byes, withdrawals, and every report, confirmation, dispute and decision in order
-- (contest_facts is append-only: nothing updates or deletes it). Phase, results,
-- standings and places are derived by engine.contest on load, never stored.

CREATE TABLE contests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,                      -- the centre group
    name TEXT NOT NULL,
    organiser_id INTEGER NOT NULL,
    settings_json TEXT NOT NULL,
    seed_hex TEXT NOT NULL,                        -- secret until the draw, published after it
    commitment TEXT NOT NULL,                      -- SHA-256 of the seed, published at sign-up
    opened_at TEXT NOT NULL,
    closed_at TEXT
);

-- One contest in progress per group.
CREATE UNIQUE INDEX contests_one_open_per_chat ON contests (chat_id) WHERE closed_at IS NULL;

CREATE TABLE contest_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,          -- sign-up order (display only)
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    partner_id INTEGER,                            -- NULL: a single, paired by lot at the draw
    partner_name TEXT,
    confirmed INTEGER NOT NULL DEFAULT 0
);

CREATE UNIQUE INDEX contest_entries_one_per_user ON contest_entries (contest_id, user_id);

CREATE TABLE contest_pairs (
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    number INTEGER NOT NULL CHECK (number >= 1),   -- the group number in reports
    user_a INTEGER NOT NULL,
    name_a TEXT NOT NULL,
    user_b INTEGER NOT NULL,
    name_b TEXT NOT NULL,
    by_lot INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (contest_id, number)
);

CREATE TABLE contest_rounds (
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    number INTEGER NOT NULL CHECK (number >= 1),
    schedule TEXT NOT NULL CHECK (schedule IN ('self_scheduled', 'fixed', 'bot')),
    closes_at TEXT,                                -- the deadline, UTC, exclusive
    zone TEXT,
    starts_at TEXT,
    venue TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (contest_id, number)
);

CREATE TABLE contest_matches (
    contest_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    code TEXT NOT NULL UNIQUE,                     -- /newgame match=CODE
    pair_a INTEGER NOT NULL,
    pair_b INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('main', 'third_place')),
    PRIMARY KEY (contest_id, round, table_no),
    FOREIGN KEY (contest_id, round) REFERENCES contest_rounds (contest_id, number) ON DELETE CASCADE,
    FOREIGN KEY (contest_id, pair_a) REFERENCES contest_pairs (contest_id, number),
    FOREIGN KEY (contest_id, pair_b) REFERENCES contest_pairs (contest_id, number)
);

CREATE TABLE contest_byes (
    contest_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    pair INTEGER NOT NULL,
    PRIMARY KEY (contest_id, round, pair),
    FOREIGN KEY (contest_id, round) REFERENCES contest_rounds (contest_id, number) ON DELETE CASCADE
);

CREATE TABLE contest_facts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,          -- the order of each match's history
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    code TEXT NOT NULL REFERENCES contest_matches (code),
    kind TEXT NOT NULL CHECK (kind IN ('report', 'confirm', 'dispute', 'decision')),
    at TEXT NOT NULL,
    by_user INTEGER,                               -- NULL: the bot (a bot table, the deadline)
    winner INTEGER,                                -- NULL with method both_out
    method TEXT,                                   -- NULL for confirmations and disputes
    points_a INTEGER,
    points_b INTEGER,
    extra_deal INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL DEFAULT ''                  -- the report line as typed
);

CREATE INDEX contest_facts_by_contest ON contest_facts (contest_id, id);

CREATE TABLE contest_withdrawals (
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    pair INTEGER NOT NULL,
    by_user INTEGER NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (contest_id, pair)
);
