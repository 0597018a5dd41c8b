-- 0016_coaching (PostgreSQL): 复盘点评, a seat's three costliest decisions of one deal
-- (../0016_coaching.sql). table_id is BIGINT as game_tables.id is here; the rest is the same.

CREATE TABLE coaching (
    table_id BIGINT NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    deal INTEGER NOT NULL CHECK (deal >= 0),
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    judge TEXT NOT NULL,
    coaching_json TEXT NOT NULL,
    PRIMARY KEY (table_id, deal, seat)
);
