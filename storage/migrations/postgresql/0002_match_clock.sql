-- 0002_match_clock (PostgreSQL): when each match started (../0002_match_clock.sql).

ALTER TABLE game_tables ADD COLUMN started_at TEXT;
