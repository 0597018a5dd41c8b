-- 0003_table_health (PostgreSQL): the 'quarantined' status and why (../0003_table_health.sql).
-- PostgreSQL changes a CHECK in place; SQLite had to rebuild the table.

ALTER TABLE game_tables DROP CONSTRAINT game_tables_status_check;
ALTER TABLE game_tables ADD CONSTRAINT game_tables_status_check
    CHECK (status IN ('lobby', 'playing', 'finished', 'stopped', 'quarantined'));
ALTER TABLE game_tables ADD COLUMN status_reason TEXT;
