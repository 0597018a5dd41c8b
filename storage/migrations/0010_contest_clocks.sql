-- 0010_contest_clocks: the clocks of a timed round's physical tables (issue 11, /round start).
-- One row per table whose clock the organiser started: when, and the rules' minutes then
-- (001-B 60, 004-A 40…), so the end is known after a restart and its announcement re-armed.
-- Started once: a second start of the same table is refused by engine.contest.

CREATE TABLE contest_clocks (
    contest_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    minutes INTEGER NOT NULL CHECK (minutes >= 1),
    PRIMARY KEY (contest_id, round, table_no),
    FOREIGN KEY (contest_id, round) REFERENCES contest_rounds (contest_id, number) ON DELETE CASCADE
);
