-- 0018_fencing: the lease with a time to live and the store's fence (issue 40,
-- docs/postgresql.md, storage/lease.py).
--
-- bot_lease: one row per bot token, which process leads it (holder, and its lease session's
-- backend pid), under which epoch, until when by the server's clock. storage/lease.py creates
-- the same table before it asks for the lease (a standby does so before it opens the store).
--
-- The fence: every write of a data session that carries a lease epoch (its guandan.lease
-- setting, "<bot id>:<epoch>", set when it connects) is refused with SQLSTATE GF001 unless that
-- epoch is the bot's current one and the lease has not expired. A process that lost its lease,
-- or woke from a pause after it expired, cannot write, however late its statement arrives.
-- Sessions without an epoch (tools, tests, python -m storage copy) are not fenced. A statement
-- trigger, so a write costs one index lookup more, on the server.

CREATE TABLE IF NOT EXISTS bot_lease (
    bot_id BIGINT PRIMARY KEY,
    holder TEXT NOT NULL,
    holder_pid INTEGER NOT NULL,
    epoch BIGINT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);

CREATE FUNCTION guandan_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    claim TEXT := current_setting('guandan.lease', true);
BEGIN
    IF coalesce(claim, '') = '' THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM bot_lease
     WHERE bot_id = split_part(claim, ':', 1)::BIGINT
       AND epoch = split_part(claim, ':', 2)::BIGINT
       AND expires_at > clock_timestamp();
    IF NOT FOUND THEN
        RAISE EXCEPTION 'lease % is not current: another process leads, or it expired', claim
            USING ERRCODE = 'GF001';
    END IF;
    RETURN NULL;
END
$$;

DO $$
DECLARE
    name TEXT;
BEGIN
    FOR name IN
        SELECT tablename FROM pg_tables
         WHERE schemaname = current_schema() AND tablename NOT IN ('schema_migrations', 'bot_lease')
    LOOP
        EXECUTE format(
            'CREATE TRIGGER fence BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I'
            ' FOR EACH STATEMENT EXECUTE PROCEDURE guandan_fence()', name);
    END LOOP;
END
$$;
