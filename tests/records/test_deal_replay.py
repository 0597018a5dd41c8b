"""A deal's 复盘 while its match goes on (issue 35.3: coached as soon as the deal ends): built
from the stored log up to that deal's end only, for the table's seated players only, on a real
SQLite file; the deal in play is never replayed into it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.records import callback_data
from app.records.callback_data import RecordOp, RecordPress
from app.records.replays import MatchGone, NextDealDealtFromIt, NotEnded, NotSeated, Replays
from engine.match import Match
from engine.review import frames, review, review_through
from engine.rules import ShuffleProcedure
from storage import Database
from tests.records.support import SHORT, played, store_match

PEOPLE: list[tuple[int | None, str]] = [(11, "Alice"), (None, "AI"), (13, "Carol"), (None, "AI")]


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "deals.db")
    yield database
    await database.close()


def deal_one_end(match: Match, deals: int = 1) -> int:
    """How many of the match's actions play deals 1 to ``deals`` to their end (by replaying)."""
    replayed = Match.new(match.rules, match.seed)
    for used, (seat, action) in enumerate(match.history, start=1):
        replayed.apply(seat, action)
        if len(replayed.deal_results) == deals:
            return used
    raise AssertionError(f"deal {deals} never ended")


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_a_deal_replayed_through_its_end_is_the_finished_matchs_deal_and_nothing_after(seed: int) -> None:
    match = played(SHORT, seed)
    whole = review(SHORT, seed, match.history)
    end = deal_one_end(match)
    reviewed = review_through(SHORT, seed, match.history, 1)
    assert reviewed == (whole[:1], end)
    # what comes after the deal's end (the next deal, dealt by the same last action) is not read
    assert review_through(SHORT, seed, match.history[:end], 1) == reviewed
    assert review_through(SHORT, seed, match.history[: end - 1], 1) is None  # one action short
    assert review_through(SHORT, seed, match.history[: end + 5], 2) is None  # deal 2 in play
    last = len(whole)
    assert review_through(SHORT, seed, match.history, last) == (whole, len(match.history))
    assert review_through(SHORT, seed, match.history, 0) is None


async def test_a_playing_tables_ended_deal_loads_for_its_players_and_the_deal_in_play_does_not(
    db: Database,
) -> None:
    match = played(SHORT, 8)
    end = deal_one_end(match)
    so_far = Match.replay(SHORT, 8, match.history[: end + 7])  # deal 2 under way
    table_id = await store_match(db, so_far, chat_id=-7101, people=PEOPLE, playing=True)
    replays = Replays(db)
    deal = await replays.load_through(table_id, 1, 13)
    assert deal.through == 1 and deal.history == match.history[:end]
    assert deal.deals == review(SHORT, 8, match.history)[:1]
    assert deal.steps == frames(deal.deals) and {frame.deal for frame in deal.steps} == {0}
    assert deal.names == ("Alice", "AI", "Carol", "AI") and deal.user_ids == (11, None, 13, None)
    with pytest.raises(NotEnded):
        await replays.load_through(table_id, 2, 11)
    with pytest.raises(NotEnded):
        await replays.load_through(table_id, 0, 11)
    with pytest.raises(NotSeated):
        await replays.load_through(table_id, 1, 99)  # kept in memory: still only for its players
    with pytest.raises(NotSeated):
        await Replays(db).load_through(table_id, 1, 99)  # read from the store: the same
    with pytest.raises(MatchGone):
        await replays.load_through(table_id + 1, 1, 11)
    with pytest.raises(MatchGone):  # the finished-match 复盘 of /history does not open it either
        await replays.load(table_id)


async def test_at_a_no_shuffle_table_the_deal_the_one_in_play_was_dealt_from_waits(db: Database) -> None:
    """不洗牌: deal N+1 is dealt from deal N's cards in the order they were played, so deal N's
    replay would give the deal in play away: it opens once deal N+1 has ended too."""
    rules = SHORT.replace(points_deals=3, shuffle=ShuffleProcedure.NONE)
    match = played(rules, 5)
    third = Match.replay(rules, 5, match.history[: deal_one_end(match, 2) + 3])  # deal 3 under way
    playing = await store_match(db, third, chat_id=-7102, people=PEOPLE, playing=True)
    replays = Replays(db)
    assert (await replays.load_through(playing, 1, 11)).deals == review(rules, 5, match.history)[:1]
    with pytest.raises(NextDealDealtFromIt):
        await replays.load_through(playing, 2, 11)
    stopped = await store_match(db, third, chat_id=-7103, people=PEOPLE, finished=False)
    assert len((await replays.load_through(stopped, 2, 11)).deals) == 2  # nothing is in play any more


def test_a_deal_replays_buttons_name_its_last_deal_and_fit_telegrams_64_bytes() -> None:
    big = 10**12 - 1
    cases = {
        callback_data.deal(big, 99): (RecordOp.DEAL, (big, 99)),
        callback_data.step(big, 9999, 9999, 99): (RecordOp.DEAL_STEP, (big, 99, 9999, 9999)),
        callback_data.coach(big, 9999, 99): (RecordOp.DEAL_COACH, (big, 99, 9999)),
        callback_data.step(big, 1, 2): (RecordOp.STEP, (big, 1, 2)),
    }
    for data, (op, args) in cases.items():
        assert len(data.encode()) <= 64
        press = RecordPress.decode(data)
        assert (press.op, press.args) == (op, args)
