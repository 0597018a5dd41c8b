-- 0009_contest_sheets: the recorders' score sheets of matches played at physical tables
-- (issue 11). A sheet is its presses, appended and never changed (an undo is a press too),
-- like a bot table's action log: engine.contest.sheet replays them, so a restarted bot shows
-- the same sheet. seq is the sheet's version after the press: a stale double tap carries the
-- same seq as the press before it and is refused by the primary key, never entered twice.
-- The messages showing a sheet (the recorders' private chats) are kept to edit them in place
-- when the round's clock adds the time-up.

CREATE TABLE contest_sheet_entries (
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    code TEXT NOT NULL,                            -- the contest match
    seq INTEGER NOT NULL CHECK (seq >= 1),         -- 1, 2, 3… per sheet
    entry TEXT NOT NULL,                           -- "NS 1·2", "EW 1·4", "time", "time NS", "undo"
    by INTEGER,                                    -- who pressed; NULL: the round's clock
    at TEXT NOT NULL,
    PRIMARY KEY (contest_id, code, seq)
);

CREATE TABLE contest_sheet_messages (
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    contest_id INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
    code TEXT NOT NULL,
    PRIMARY KEY (chat_id, message_id)
);

CREATE INDEX contest_sheet_messages_by_code ON contest_sheet_messages (contest_id, code);
