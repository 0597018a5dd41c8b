-- 0007_ai_difficulty (PostgreSQL): each AI seat's difficulty (../0007_ai_difficulty.sql).

ALTER TABLE seats ADD COLUMN difficulty TEXT NOT NULL DEFAULT 'normal'
    CONSTRAINT seats_difficulty_check CHECK (difficulty IN ('easy', 'normal'));
