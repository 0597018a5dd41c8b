"""The contests' app services on a real database, without Telegram (issue 41): what a handler
gets back is a :class:`HeldContest` or an app refusal, never a storage record or exception."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from app.contest.args import ArgProblem
from app.contest.bot_tables import BotTables
from app.contest.problems import Problem
from app.contest.service import ContestService
from app.contest.store import ContestGone, ContestStore, HeldContest, StoreBusy
from engine.contest import Event, draw, sign_up
from storage import Database, StorageUnavailable
from tests.engine.contest.support import ON_TIME, new_contest, player, signed_up

GROUP = -9


@pytest.fixture
async def contests(store: str) -> AsyncIterator[ContestStore]:
    db = await Database.open(store)
    yield ContestStore(db)
    await db.close()


async def drawn(contests: ContestStore, pairs: int = 2) -> HeldContest:
    """A contest of ``pairs`` pairs, drawn: round 1 is in play."""
    held = await contests.create(GROUP, signed_up(pairs))
    assert held is not None
    _contest, events = draw(held.contest, now=ON_TIME)
    await contests.record(held.id, events)
    return await contests.get(held.id)


async def test_what_is_not_stored_is_gone_or_none(contests: ContestStore) -> None:
    with pytest.raises(ContestGone):
        await contests.get(404)
    assert await contests.open_in_chat(GROUP) is None
    assert await contests.by_code("404") is None
    assert await contests.user_by_username("@nobody") is None
    assert await contests.mirror(404) is None


async def test_a_group_holds_one_open_contest(contests: ContestStore) -> None:
    first = await contests.create(GROUP, new_contest())
    assert isinstance(first, HeldContest) and first.chat_id == GROUP
    assert await contests.create(GROUP, new_contest()) is None  # the group's contest exists
    assert await contests.open_in_chat(GROUP) == first
    assert await contests.get(first.id) == first
    assert await contests.organised_by(first.contest.organiser_id) == [first]
    assert await contests.organised_by(first.contest.organiser_id + 1) == []


async def test_a_round_message_is_a_pairing_message_and_the_card_is_not(contests: ContestStore) -> None:
    held = await drawn(contests)
    await contests.link_message(GROUP, 10, held.id, None)
    await contests.link_message(GROUP, 11, held.id, 1)
    assert not await contests.shows_pairings(GROUP, 10)
    assert await contests.shows_pairings(GROUP, 11)
    assert not await contests.shows_pairings(GROUP, 12)
    assert await contests.messages_of(held.id, 1) == [(GROUP, 11)]


async def test_a_locked_database_is_store_busy(
    contests: ContestStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = await drawn(contests)

    async def locked(**_: Any) -> None:
        raise StorageUnavailable("database is locked")

    monkeypatch.setattr(contests.db.contest_links, "add_message", locked)
    with pytest.raises(StoreBusy):
        await contests.link_message(GROUP, 10, held.id, None)


async def test_a_command_is_recorded_announced_and_rearmed_as_held(contests: ContestStore) -> None:
    held = await contests.create(GROUP, new_contest())
    assert held is not None
    announced: list[tuple[HeldContest, Sequence[Event]]] = []
    rearmed: list[HeldContest] = []

    async def announce(after: HeldContest, events: Sequence[Event]) -> None:
        announced.append((after, events))

    service = ContestService(contests, announce, rearmed.append)
    after, step = await service.run(held.id, lambda c: sign_up(c, player(50)))
    assert isinstance(after, HeldContest) and after.contest == step.contest
    assert announced == [(after, step.events)] and rearmed == [after]
    assert await contests.get(held.id) == after  # recorded
    with pytest.raises(ContestGone):
        await service.run(404, lambda c: sign_up(c, player(50)))


async def test_a_match_table_is_refused_with_a_problem(contests: ContestStore) -> None:
    held = await drawn(contests)
    (match, *_) = held.contest.rounds[0].matches
    player_id = held.contest.pair(match.pairs[0]).user_ids[0]

    async def run(contest_id: int, command: Any) -> tuple[HeldContest, Any]:
        raise AssertionError("no command is run to check a table")

    tables = BotTables(contests, run, lambda: ON_TIME, lambda *_: None)

    async def refused(code: str, user_id: int) -> Problem:
        with pytest.raises(ArgProblem) as caught:
            await tables.match_to_open(code, user_id)
        return caught.value.code

    assert await refused("NOPE", player_id) is Problem.UNKNOWN_MATCH_CODE
    assert await refused(match.code, 999) is Problem.NOT_IN_MATCH
    found, same = await tables.match_to_open(match.code, player_id)
    assert (found, same) == (held, match)
