-- 0012_player_choices: two more per-player choices kept across matches like /fourcolor
-- (issue 20). auto_pass (/autopass): the bot passes for the player whenever nothing in the
-- hand beats the table (要不起, as the phone apps do). group_hand (/arrange, 理牌): the hand
-- picture sets bombs and straight flushes apart instead of strongest-first only.
-- Both off for everyone until they choose.

ALTER TABLE users ADD COLUMN auto_pass INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN group_hand INTEGER NOT NULL DEFAULT 0;
