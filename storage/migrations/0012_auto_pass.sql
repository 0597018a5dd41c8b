-- 0012_auto_pass: a player may ask the bot to pass for them whenever nothing in their hand
-- beats the table (要不起, as the phone apps do; issue 20.2), chosen with /autopass and kept
-- across matches like /fourcolor. Off for everyone until they choose it.

ALTER TABLE users ADD COLUMN auto_pass INTEGER NOT NULL DEFAULT 0;
