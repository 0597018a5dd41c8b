"""The records' figures of players, without Telegram (issue 41): what is not stored is None,
never a storage exception."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.records.keeper import RecordKeeper
from app.records.players import PlayerRecords
from storage import Database
from tests.records.support import SHORT, played, store_match

CHAT = -7001
PEOPLE: list[tuple[int | None, str]] = [(11, "Alice"), (12, "Bob"), (13, "Carol"), (None, "AI")]


@pytest.fixture
async def players(store: str) -> AsyncIterator[PlayerRecords]:
    db = await Database.open(store)
    yield PlayerRecords(db)
    await db.close()


async def test_nobody_known_is_none(players: PlayerRecords) -> None:
    assert await players.stats(11, CHAT) is None
    assert await players.by_username("alice") is None
    assert await players.ranking(CHAT, 20) is None
    assert await players.history(chat_id=CHAT, user_id=11, size=5, before=None) == []


async def test_a_played_match_gives_stats_a_ranking_and_a_history(players: PlayerRecords) -> None:
    table_id = await store_match(players.db, played(SHORT, 1), chat_id=CHAT, people=PEOPLE)
    await RecordKeeper(players.db).backfill()
    stats = await players.stats(11, CHAT)
    assert stats is not None and stats.name == "Alice"
    assert stats.everywhere.matches == 1 and stats.here is not None and stats.here.matches == 1
    assert stats.contests == ()
    private = await players.stats(11, None)
    assert private is not None and private.here is None and private.place is None
    ranking = await players.ranking(CHAT, 20)
    assert ranking is not None and [r.player for r in ranking.computers] != []
    assert [m.table_id for m in await players.history(chat_id=CHAT, user_id=11, size=5, before=None)] == [
        table_id
    ]
    assert [m.table_id for m in await players.history(chat_id=None, user_id=11, size=5, before=None)] == [
        table_id
    ]
    assert await players.stored_about(11) == (1, 1)


async def test_a_sender_is_written_once_until_they_change_and_forgotten(
    players: PlayerRecords, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[tuple[int, str | None, str]] = []
    note_user = players.db.records.note_user

    async def counted(**kwargs: Any) -> None:
        written.append((kwargs["user_id"], kwargs["username"], kwargs["name"]))
        await note_user(**kwargs)

    monkeypatch.setattr(players.db.records, "note_user", counted)
    for _ in range(2):
        await players.note(11, "alice", "Alice")
    assert written == [(11, "alice", "Alice")]
    assert await players.by_username("alice") == (11, "Alice")
    await players.note(11, "alice", "Alice L.")
    assert len(written) == 2
    await players.forget(11)
    assert await players.by_username("alice") is None
    await players.note(11, "alice", "Alice L.")  # known no more: written again
    assert len(written) == 3
