-- 0004_outbox: what a group is owed (deal results, level changes, the match's end, later the
-- contest announcements) is stored before it is sent and deleted only once Telegram accepted
-- it, so a failed send or a restart never loses it. A row holds what is needed to rebuild the
-- message (e.g. the table and the deal number), not the rendered message.

CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,          -- delivery order within a chat
    chat_id INTEGER NOT NULL,
    kind TEXT NOT NULL,                            -- which sender rebuilds and sends it
    payload_json TEXT NOT NULL,
    dedupe_key TEXT UNIQUE,                        -- the same announcement is enqueued once
    attempts INTEGER NOT NULL DEFAULT 0,           -- failed sends so far
    last_error TEXT,
    created_at TEXT NOT NULL
);

CREATE INDEX outbox_by_chat ON outbox (chat_id, id);

-- Keys of rows already delivered (or given up): enqueueing one of them again does nothing.
CREATE TABLE outbox_done (
    dedupe_key TEXT PRIMARY KEY,
    done_at TEXT NOT NULL
);
