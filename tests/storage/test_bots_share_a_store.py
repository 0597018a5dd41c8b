"""Several bot tokens on one store (migration 0015): what is keyed by Telegram's user and chat
ids is shared; a table, a contest and an outbox row are one bot's, resumed and delivered by it
alone; rows from before the migration are adopted by the first bot that opens the store."""

from __future__ import annotations

import pytest

from storage import Database, StorageConflict


async def _table(db: Database, chat_id: int, token: str):
    return await db.tables.create(
        chat_id=chat_id, token=token, creator_id=7, preset="default", rules_json="{}", seed=42
    )


async def test_two_bots_share_settings_and_keep_their_own_tables_and_outbox(store: str) -> None:
    north, south = await Database.open(store, bot_id=111), await Database.open(store, bot_id=222)
    try:
        await north.users.set_locale(user_id=5, locale="en")
        assert (await south.users.get(user_id=5)).locale == "en"  # a user's settings are shared

        ours = await _table(north, -100, "n1")
        theirs = await _table(south, -100, "s1")  # the same group may have a table of each bot
        assert (await north.tables.active_in_chat(chat_id=-100)).id == ours.id
        assert (await south.tables.active_in_chat(chat_id=-100)).id == theirs.id
        assert await north.tables.unfinished() == [(ours.id, -100)]  # each resumes its own
        assert await south.tables.unfinished() == [(theirs.id, -100)]
        with pytest.raises(StorageConflict):  # but one bot, one open table a group
            await _table(north, -100, "n2")

        await north.outbox.add(chat_id=-100, kind="notice", payload_json="{}", dedupe_key="n:1")
        assert [row.dedupe_key for row in await north.outbox.pending()] == ["n:1"]
        assert await south.outbox.pending() == []  # delivered by the bot that owes it
    finally:
        await north.close()
        await south.close()


async def test_rows_from_before_bots_are_adopted_by_the_first_bot_to_open_the_store(store: str) -> None:
    before = await Database.open(store)  # bot_id 0: as the store was before migration 0015
    try:
        old = await _table(before, -300, "old")
        await before.outbox.add(chat_id=-300, kind="notice", payload_json="{}", dedupe_key="o:1")
    finally:
        await before.close()
    first, second = await Database.open(store, bot_id=111), await Database.open(store, bot_id=222)
    try:
        assert await first.tables.unfinished() == [(old.id, -300)]
        assert len(await first.outbox.pending()) == 1
        assert await second.tables.unfinished() == [] and await second.outbox.pending() == []
    finally:
        await first.close()
        await second.close()
