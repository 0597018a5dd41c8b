-- 0007_ai_difficulty: each AI seat plays at a difficulty chosen in the lobby (issue 12):
-- 'easy' (简单, the casual rule player) or 'normal' (标准, the planning player). Seats
-- taken before this migration, AI or human, get 'normal', which 托管 uses too.

ALTER TABLE seats ADD COLUMN difficulty TEXT NOT NULL DEFAULT 'normal'
    CHECK (difficulty IN ('easy', 'normal'));
