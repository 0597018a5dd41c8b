"""Contests on a real SQLite file: round trips, code lookup, append-only facts, atomic draws."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from emulator.postgresql import Cluster
from engine.contest import (
    Contest,
    Deadline,
    DrawSeed,
    MatchResult,
    PlayMethod,
    close_contest,
    close_round,
    confirm_partner,
    decide,
    decline_partner,
    dispute,
    draw,
    draw_next_round,
    move_deadline,
    report_text,
    sign_up,
    withdraw,
)
from storage import Database, NotFound, StorageConflict
from storage.backend import Dialect
from tests.engine.contest.support import DEADLINE, ON_TIME, new_contest, player, signed_up

CHAT = -1001


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


async def step(db: Database, contest_id: int, result) -> Contest:
    """Record a command's events and return the contest as storage now has it."""
    contest, events = result
    await db.contests.record(contest_id=contest_id, events=events)
    stored = await db.contests.get(contest_id=contest_id)
    assert stored.contest == contest  # what storage gives back is exactly the value
    return stored.contest


async def test_sign_ups_round_trip(db: Database) -> None:
    stored = await db.contests.create(chat_id=CHAT, contest=new_contest())
    cid = stored.id
    assert stored.contest == new_contest() and stored.chat_id == CHAT
    contest = await step(db, cid, sign_up(stored.contest, player(1), player(2)))
    contest = await step(db, cid, confirm_partner(contest, 2))
    contest = await step(db, cid, sign_up(contest, player(3), player(4)))
    contest = await step(db, cid, decline_partner(contest, 4))
    contest = await step(db, cid, sign_up(contest, player(5)))
    contest = await step(db, cid, withdraw(contest, 1, now=ON_TIME))  # 2 stays, alone
    assert [(e.player.user_id, e.partner) for e in contest.entries] == [(2, None), (3, None), (5, None)]
    contest = await step(db, cid, move_deadline(contest, Deadline.parse("2026-12-24")))
    assert contest.settings.deadline == Deadline.parse("2026-12-24")


async def test_a_whole_contest_round_trips_with_its_history(db: Database) -> None:
    stored = await db.contests.create(chat_id=CHAT, contest=signed_up(pairs=6, singles=4))
    cid = stored.id
    contest = await step(db, cid, draw(stored.contest, now=ON_TIME))
    first, second, third, _fourth = contest.rounds[0].matches
    contest = await step(db, cid, _report(contest, first.pairs[0]))
    contest = await step(
        db, cid, dispute(contest, code=first.code, by=contest.pair(first.pairs[1]).user_ids[0], now=ON_TIME)
    )
    for match in (second, third):
        contest = await step(db, cid, _report(contest, match.pairs[1]))
    contest = await step(db, cid, move_deadline(contest, Deadline.parse("2026-12-18")))
    contest = await step(db, cid, close_round(contest, now=DEADLINE.closes_at))  # fourth: both out
    contest = await step(db, cid, _decide(contest, first.code, first.pairs[0]))
    while contest.current_round is not None and contest.phase.value == "round_complete":
        contest = await step(db, cid, draw_next_round(contest, now=ON_TIME))
        for match in contest.current_round.matches:
            contest = await step(db, cid, _decide(contest, match.code, max(match.pairs)))
    contest = await step(db, cid, close_contest(contest, now=ON_TIME))
    assert contest.phase.value == "closed"
    history = contest.rounds[0].matches[0].facts
    assert [f.kind.value for f in history] == ["report", "dispute", "decision"]
    with pytest.raises(NotFound):
        await db.contests.open_in_chat(chat_id=CHAT)


def _report(contest: Contest, winner: int):
    return report_text(
        contest, reporter=contest.pair(winner).user_ids[0], text=f"掼蛋{winner}组", now=ON_TIME
    )


def _decide(contest: Contest, code: str, winner: int):
    result = MatchResult(winner, PlayMethod.ORGANISER, (9, 5))
    return decide(contest, code=code, result=result, by=1, reason="score sheet", now=ON_TIME)


async def test_match_codes_find_their_contest(db: Database) -> None:
    stored = await db.contests.create(chat_id=CHAT, contest=signed_up(pairs=4))
    contest = await step(db, stored.id, draw(stored.contest, now=ON_TIME))
    match = contest.rounds[0].matches[1]
    found, found_match = await db.contests.by_code(code=match.code.lower())
    assert found.id == stored.id and found_match == match
    with pytest.raises(NotFound):
        await db.contests.by_code(code="ZZZZZZZZ")
    assert [c.id for c in await db.contests.unfinished()] == [stored.id]
    assert (await db.contests.open_in_chat(chat_id=CHAT)).id == stored.id


async def test_one_open_contest_per_group_and_missing_ones(db: Database) -> None:
    await db.contests.create(chat_id=CHAT, contest=new_contest())
    with pytest.raises(StorageConflict):
        await db.contests.create(chat_id=CHAT, contest=new_contest())
    with pytest.raises(NotFound):
        await db.contests.get(contest_id=999)
    with pytest.raises(NotFound):
        await db.contests.record(contest_id=999, events=())


async def test_a_failure_mid_draw_leaves_nothing(db: Database) -> None:
    """Two contests drawn from the same seed produce the same match codes: the second
    draw's matches conflict after its pairs and round were written, and all of it rolls back."""
    seed = DrawSeed(bytes(range(32)))
    one = await db.contests.create(chat_id=CHAT, contest=signed_up(pairs=4, seed=seed))
    two = await db.contests.create(chat_id=CHAT - 1, contest=signed_up(pairs=4, seed=seed))
    await step(db, one.id, draw(one.contest, now=ON_TIME))
    with pytest.raises(StorageConflict):
        await db.contests.record(contest_id=two.id, events=draw(two.contest, now=ON_TIME).events)
    assert (await db.contests.get(contest_id=two.id)).contest == two.contest
    for table in ("contest_pairs", "contest_rounds", "contest_matches"):
        row = await db.conn.fetchone(f"SELECT COUNT(*) FROM {table} WHERE contest_id = ?", (two.id,))
        assert row == (0,), table


async def test_other_handlers_writes_never_join_a_contest_transaction(db: Database) -> None:
    """A write on the shared connection while a contest transaction is open is its own:
    it waits for SQLite's write lock (PostgreSQL locks only the rows written, so there it goes
    through at once), and the contest's rollback does not undo it."""
    stored = await db.contests.create(chat_id=CHAT, contest=signed_up(pairs=4))
    other: asyncio.Task[None] | None = None
    with pytest.raises(RuntimeError, match="boom"):
        async with db.contests.transaction() as conn:
            await conn.execute("UPDATE contests SET name = 'changed' WHERE id = ?", (stored.id,))
            other = asyncio.create_task(db.users.set_locale(user_id=42, locale="en"))
            await asyncio.sleep(0.05)  # the other handler's write is under way
            if db.conn.dialect is Dialect.SQLITE:
                assert not other.done()  # waiting for the database's write lock
            raise RuntimeError("boom")
    assert other is not None
    await asyncio.wait_for(other, timeout=10)
    assert (await db.users.get(user_id=42)).locale == "en"
    assert (await db.contests.get(contest_id=stored.id)).contest.name == stored.contest.name


async def test_facts_are_append_only(db: Database) -> None:
    stored = await db.contests.create(chat_id=CHAT, contest=signed_up(pairs=2))
    contest = await step(db, stored.id, draw(stored.contest, now=ON_TIME))
    code = contest.rounds[0].matches[0].code
    a, b = contest.rounds[0].matches[0].pairs
    contest = await step(db, stored.id, _report(contest, a))
    contest = await step(db, stored.id, _report(contest, b))  # contradiction: both kept
    contest = await step(db, stored.id, _decide(contest, code, b))
    contest = await step(db, stored.id, _decide(contest, code, a))  # the organiser changes their mind
    facts = contest.rounds[0].matches[0].facts
    assert [(f.kind.value, f.result.winner) for f in facts] == [  # type: ignore[union-attr]
        ("report", a),
        ("report", b),
        ("decision", b),
        ("decision", a),
    ]
    assert contest.rounds[0].matches[0].winner == a


async def test_a_locked_database_is_storage_unavailable_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the write lock: a contest write fails as StorageUnavailable (the
    handlers answer "not saved, try again"), not as a raw OperationalError, and nothing changes."""
    import sqlite3

    import storage.backend
    from storage import StorageUnavailable

    monkeypatch.setattr(storage.backend, "WRITER_BUSY_TIMEOUT", 0.2)
    db = await Database.open(tmp_path / "locked.db")
    holder = sqlite3.connect(tmp_path / "locked.db", isolation_level=None)
    try:
        stored = await db.contests.create(chat_id=CHAT, contest=new_contest())
        _contest, events = sign_up(stored.contest, player(7))
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StorageUnavailable):
            await db.contests.record(contest_id=stored.id, events=events)
        holder.execute("ROLLBACK")
        assert (await db.contests.get(contest_id=stored.id)).contest.entries == ()
        await db.contests.record(contest_id=stored.id, events=events)
        assert len((await db.contests.get(contest_id=stored.id)).contest.entries) == 1
    finally:
        holder.close()
        await db.close()


async def test_a_table_locked_on_postgresql_is_storage_unavailable_and_writes_nothing(
    postgresql_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same on PostgreSQL: another connection locks the table written; the contest
    transaction (and a single-statement write) waits ``lock_timeout``, SQLite's busy timeout,
    then fails as StorageUnavailable, and nothing changes."""
    import storage.backend
    from storage import StorageUnavailable

    monkeypatch.setattr(storage.backend, "WRITER_BUSY_TIMEOUT", 0.2)
    url = postgresql_cluster.new_database()
    db = await Database.open(url, busy_timeout=0.2)
    holder = await asyncpg.connect(url)
    try:
        stored = await db.contests.create(chat_id=CHAT, contest=new_contest())
        _contest, events = sign_up(stored.contest, player(7))
        async with holder.transaction():
            await holder.execute("LOCK TABLE contest_entries, users IN EXCLUSIVE MODE")
            with pytest.raises(StorageUnavailable):
                await db.contests.record(contest_id=stored.id, events=events)
            with pytest.raises(StorageUnavailable):
                await db.users.set_locale(user_id=7, locale="en")
        assert (await db.contests.get(contest_id=stored.id)).contest.entries == ()
        await db.contests.record(contest_id=stored.id, events=events)
        assert len((await db.contests.get(contest_id=stored.id)).contest.entries) == 1
    finally:
        await holder.close()
        await db.close()
