-- 0012_player_choices (PostgreSQL): /autopass and /arrange (../0012_player_choices.sql).

ALTER TABLE users ADD COLUMN auto_pass INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN group_hand INTEGER NOT NULL DEFAULT 0;
