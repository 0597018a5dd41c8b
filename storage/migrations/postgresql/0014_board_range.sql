-- 0014_board_range (PostgreSQL): which deal the live board message shows, and from which of
-- its tricks (../0014_board_range.sql). A deal number fits INTEGER.

ALTER TABLE game_tables ADD COLUMN board_deal INTEGER;
ALTER TABLE game_tables ADD COLUMN board_first INTEGER NOT NULL DEFAULT 0;
