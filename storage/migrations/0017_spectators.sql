-- 0017_spectators: 观战 (issue 35). A group member who is not seated follows a running table
-- in the private chat: one message per spectator and deal, edited as the deal is played. The rows say who
-- watches which table and which message to edit, so a restart resumes those messages; they
-- go with their table (a finished or stopped table's rows are deleted when watching ends).

CREATE TABLE spectators (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    message_id INTEGER,                            -- the spectator's private message of the deal, edited
    deal INTEGER,                                  -- the deal that message shows
    seat INTEGER CHECK (seat BETWEEN 0 AND 3),     -- whose hand they follow a trick behind (watch_hand=on)
    PRIMARY KEY (table_id, user_id)
);
