-- 0013_master_difficulty (PostgreSQL): AI seats may play 大师 'master'
-- (../0013_master_difficulty.sql). PostgreSQL changes the CHECK in place.

ALTER TABLE seats DROP CONSTRAINT seats_difficulty_check;
ALTER TABLE seats ADD CONSTRAINT seats_difficulty_check CHECK (difficulty IN ('easy', 'normal', 'master'));
