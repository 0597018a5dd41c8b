"""The outbox table on a real SQLite file: order, dedupe keys kept after delivery, failures."""

from __future__ import annotations

import pytest

from storage import Database


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


async def test_rows_come_back_in_order_until_done(db: Database) -> None:
    first = await db.outbox.add(chat_id=-1, kind="a", payload_json='{"n": 1}')
    second = await db.outbox.add(chat_id=-2, kind="b", payload_json='{"n": 2}', dedupe_key="k2")
    assert first is not None and second is not None
    assert [r.id for r in await db.outbox.pending()] == [first.id, second.id]
    await db.outbox.failed(id=second.id, error="TimedOut()")
    assert (await db.outbox.pending())[1].attempts == 1
    await db.outbox.done(id=first.id)
    assert [r.dedupe_key for r in await db.outbox.pending()] == ["k2"]


async def test_a_key_is_enqueued_once_even_after_delivery(db: Database) -> None:
    row = await db.outbox.add(chat_id=-1, kind="a", payload_json="{}", dedupe_key="table:1:deal:1")
    assert row is not None
    assert await db.outbox.add(chat_id=-1, kind="a", payload_json="{}", dedupe_key="table:1:deal:1") is None
    await db.outbox.done(id=row.id)
    assert await db.outbox.pending() == []
    assert await db.outbox.add(chat_id=-1, kind="a", payload_json="{}", dedupe_key="table:1:deal:1") is None


async def test_a_row_whose_key_was_delivered_is_not_pending(db: Database) -> None:
    """A crash between remembering the key and deleting the row leaves a row that is not resent."""
    row = await db.outbox.add(chat_id=-1, kind="a", payload_json="{}", dedupe_key="k")
    assert row is not None
    await db.conn.execute("INSERT INTO outbox_done (dedupe_key, done_at) VALUES ('k', 'now')")
    assert await db.outbox.pending() == []
