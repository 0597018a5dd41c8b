-- 0016_coaching: 复盘点评 (issue 35.3), a seat's three costliest decisions of one deal of a
-- finished match, judged by 大师 (engine/players/coach.py). Computed only when the player asks,
-- then kept here so reopening it is instant; like the records it can be deleted and rebuilt
-- from the action log. ``judge`` names the judge that wrote it: a changed judge writes anew.

CREATE TABLE coaching (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    deal INTEGER NOT NULL CHECK (deal >= 0),       -- 0-based, as engine.review counts deals
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    judge TEXT NOT NULL,
    coaching_json TEXT NOT NULL,                   -- app.records.coaching's JSON of the 点评
    PRIMARY KEY (table_id, deal, seat)
);
