-- 0008_contest_formats (PostgreSQL): stages, figures, tags, withdrawal reasons
-- (../0008_contest_formats.sql).

ALTER TABLE contest_rounds ADD COLUMN stage TEXT NOT NULL DEFAULT '';
ALTER TABLE contest_facts ADD COLUMN figures_json TEXT;
ALTER TABLE contest_entries ADD COLUMN tag TEXT NOT NULL DEFAULT '';
ALTER TABLE contest_pairs ADD COLUMN tag TEXT NOT NULL DEFAULT '';
ALTER TABLE contest_withdrawals ADD COLUMN reason TEXT NOT NULL DEFAULT 'withdrew';
