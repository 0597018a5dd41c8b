-- 0014_board_range: which deal the live board message shows, and from which of its tricks
-- (board_first), beside its id. A restart goes on editing that message from there, or closes
-- its deal in it, instead of leaving it in the group with a turn that never comes (issue 32.6).
-- NULL board_deal: stored before this migration; its range is unknown.

ALTER TABLE game_tables ADD COLUMN board_deal INTEGER;
ALTER TABLE game_tables ADD COLUMN board_first INTEGER NOT NULL DEFAULT 0;
