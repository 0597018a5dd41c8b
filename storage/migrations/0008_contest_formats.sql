-- 0008_contest_formats: what issue 11's contest formats add to the facts of 0005.
-- A round's stage (精方 "qualifying", "repechage", "semi"…: it decides how the next round is
-- drawn and whether its matches are best of three); a result's engine figures (级差, round
-- score, 3-point deals, as engine.figures.MatchFigures JSON indexed like the match's pairs),
-- which Swiss, movement and 积分淘汰 standings add up; a sign-up's and pair's tag (the unit
-- of 000-S, the time slot of 002-E); and why a pair withdrew (leave, partner change,
-- disqualified for lateness). Old rows read as before: '' / NULL / 'withdrew'.

ALTER TABLE contest_rounds ADD COLUMN stage TEXT NOT NULL DEFAULT '';
ALTER TABLE contest_facts ADD COLUMN figures_json TEXT;
ALTER TABLE contest_entries ADD COLUMN tag TEXT NOT NULL DEFAULT '';
ALTER TABLE contest_pairs ADD COLUMN tag TEXT NOT NULL DEFAULT '';
ALTER TABLE contest_withdrawals ADD COLUMN reason TEXT NOT NULL DEFAULT 'withdrew';
