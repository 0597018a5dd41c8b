-- 0002_match_clock: when each match started, so a timed match's clock (time_limit_minutes)
-- can be re-armed with the time actually left after a restart.

ALTER TABLE game_tables ADD COLUMN started_at TEXT;
