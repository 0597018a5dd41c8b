"""The table service on a real store (an SQLite file, a PostgreSQL database): lobby rules,
persistence before display, replay on restart, timeouts into 托管, and whole matches."""

from __future__ import annotations

from typing import Any

import pytest

from app.table.settings import SettingProblem, rules_from_args
from app.table.tables import DEFAULT_CAPACITY, LiveTable, TableError, TableService, TablesFull
from engine.actions import ChooseSeat, Pass, Phase, PlayCards
from engine.errors import EngineError
from engine.match import observe
from engine.rules import Rules
from players.easy import timeout_action
from storage import Database, StorageUnavailable, TableStatus

SHORT = ["wechat-6-deals", "points_deals=2"]


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


async def _table(service: TableService, humans: int, chat_id: int = -1) -> LiveTable:
    preset, rules = rules_from_args(SHORT)
    table = await service.create(chat_id=chat_id, creator_id=1, preset=preset, rules=rules)
    for seat in range(humans):
        await service.take_seat(table, seat=seat, user_id=100 + seat, name=f"H{seat}", locale=None)
    for seat in range(humans, 4):
        await service.add_ai(table, seat=seat, name=f"AI{seat}")
    return table


async def _logged(db: Database, table: LiveTable) -> int:
    return len(await db.actions.of_table(table_id=table.id))


def test_rules_arguments() -> None:
    name, rules = rules_from_args(["wechat-6-deals", "points_deals=2", "turn_seconds=null"])
    assert (name, rules.points_deals, rules.turn_seconds) == ("wechat-6-deals", 2, None)
    assert rules_from_args([])[0] == "default"
    for bad, code in (
        (["nope"], "unknown_preset"),
        (["colour=red"], "unknown_setting"),
        (["points_deals=0"], "bad_setting"),
    ):
        with pytest.raises(SettingProblem) as error:
            rules_from_args(bad)
        assert error.value.code == code


async def test_lobby_rules(db: Database) -> None:
    service = TableService(db)
    table = await _table(service, humans=1)
    assert table.free_seats() == []
    with pytest.raises(TableError, match="table_exists"):
        await service.create(chat_id=-1, creator_id=2, preset="default", rules=table.rules)
    await service.leave(table, seat=3)
    with pytest.raises(TableError, match="seats_missing"):
        await service.start(table)
    with pytest.raises(TableError, match="seat_taken"):
        await service.take_seat(table, seat=0, user_id=555, name="X", locale=None)
    assert await service.take_seat(table, seat=None, user_id=555, name="X", locale=None) == 3
    assert await service.take_seat(table, seat=None, user_id=100, name="H0", locale=None) == 0


async def test_actions_are_committed_before_the_call_returns(db: Database) -> None:
    service = TableService(db)
    table = await _table(service, humans=2)
    outcome = await service.start(table)
    assert table.record.status is TableStatus.PLAYING
    assert await _logged(db, table) == table.version == outcome.version
    seat = table.match.to_act[0]
    assert seat in (0, 1)
    outcome = await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
    assert await _logged(db, table) == table.version
    assert outcome.actions[0][0] == seat


async def test_refused_action_changes_nothing(db: Database) -> None:
    service = TableService(db)
    table = await _table(service, humans=2)
    await service.start(table)
    before = (table.version, await _logged(db, table))
    waiting = next(seat for seat in (0, 1) if seat not in table.match.to_act)
    with pytest.raises(EngineError):
        await service.act(table, seat=waiting, action=Pass())
    assert (table.version, await _logged(db, table)) == before


async def test_restart_replays_to_the_same_state(db: Database) -> None:
    service = TableService(db)
    table = await _table(service, humans=2)
    await service.start(table)
    for _ in range(5):
        seat = table.match.to_act[0]
        await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
    restarted = TableService(db)
    [again] = (await restarted.restore_all()).tables
    assert again.version == table.version
    assert again.match.to_act == table.match.to_act
    assert [again.match.hand(s) for s in range(4)] == [table.match.hand(s) for s in range(4)]
    assert again.deal_events == table.deal_events
    assert {s: st.record.name for s, st in again.seats.items()} == {
        s: st.record.name for s, st in table.seats.items()
    }


async def test_two_timeouts_in_a_row_mean_autoplay(db: Database) -> None:
    service = TableService(db)
    table = await _table(service, humans=1)
    await service.start(table)
    for expected in (1, 2):
        assert table.match.to_act == (0,)
        await service.act(table, seat=0, action=timeout_action(observe(table.match, 0)), timed_out=True)
        assert table.seats[0].record.timeouts == expected
        if table.match.is_over:
            break
    assert table.seats[0].record.autoplay
    assert table.match.is_over
    assert table.record.status is TableStatus.FINISHED
    assert (await db.seats.get(table_id=table.id, seat=0)).autoplay


async def test_own_action_resets_the_timeout_count_and_cancel_autoplay(db: Database) -> None:
    service = TableService(db)
    table = await _table(service, humans=2)
    await service.start(table)
    seat = table.match.to_act[0]
    await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)), timed_out=True)
    assert table.seats[seat].record.timeouts == 1
    while table.match.to_act[0] != seat:
        other = table.match.to_act[0]
        await service.act(table, seat=other, action=timeout_action(observe(table.match, other)))
    await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
    assert table.seats[seat].record.timeouts == 0
    await service.set_autoplay(table, seat=1 - seat, on=True)
    assert table.seats[1 - seat].record.autoplay
    assert 1 - seat not in table.match.to_act or table.match.is_over


@pytest.mark.parametrize("seed", [3, 4, 5])  # seeds whose second deal has tribute and return
async def test_four_humans_finish_a_match_with_tributes(db: Database, seed: int) -> None:
    service = TableService(db, new_seed=lambda: seed)
    table = await _table(service, humans=4)
    await service.start(table)
    for _ in range(2000):
        if table.match.is_over:
            break
        seat = table.match.to_act[0]
        obs = observe(table.match, seat)
        action = timeout_action(obs)
        if obs.hand and not isinstance(action, Pass) and table.match.legal_plays(seat):
            action = PlayCards(max(table.match.legal_plays(seat), key=lambda p: p.size))
        await service.act(table, seat=seat, action=action)
    assert table.match.is_over and table.record.status is TableStatus.FINISHED
    assert await _logged(db, table) == table.version
    logged = {type(action).__name__ for _, action in table.match.history}
    events = {type(event).__name__ for event in table.match.events}
    assert {"GiveTribute", "ReturnTribute"} <= logged and "AntiTribute" not in events


async def test_timed_match_ends_after_the_clock_and_survives_a_restart(db: Database) -> None:
    service = TableService(db, new_seed=lambda: 5)
    _, rules = rules_from_args(["default", "time_limit_minutes=1"])
    table = await service.create(chat_id=-9, creator_id=1, preset="default", rules=rules)
    await service.take_seat(table, seat=0, user_id=100, name="H0", locale=None)
    for seat in range(1, 4):
        await service.add_ai(table, seat=seat, name=f"AI{seat}")
    await service.start(table)
    assert table.record.started_at is not None
    await service.expire(table)
    [again] = (await TableService(db).restore_all()).tables
    assert again.version == table.version
    while not table.match.is_over:
        await service.act(table, seat=0, action=timeout_action(observe(table.match, 0)))
    ended = [e for e in table.match.events if type(e).__name__ == "MatchEnded"]
    assert ended and ended[0].reason == "time"
    assert table.match.deal_number == 1


async def test_a_table_unreadable_for_storage_is_deferred_not_quarantined(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A storage fault while reading a table on start (the disk, a lock held by another process)
    is no reason to quarantine it: it is not broken. It is deferred and restored once storage
    answers again (bot.resume_tables tries the deferred tables again later)."""
    table = await _table(TableService(db), humans=2)
    await TableService(db).start(table)
    seats_of_table = db.seats.of_table

    async def unavailable(*, table_id: int) -> list[Any]:
        raise StorageUnavailable("disk I/O error")

    monkeypatch.setattr(db.seats, "of_table", unavailable)
    service = TableService(db)
    restored = await service.restore_all()
    assert (restored.tables, restored.quarantined, restored.deferred) == ([], [], [table.id])
    monkeypatch.setattr(db.seats, "of_table", seats_of_table)
    restored = await service.restore_all(only=restored.deferred)
    assert [t.id for t in restored.tables] == [table.id] and restored.quarantined == []
    assert (await db.tables.get(table_id=table.id)).status is TableStatus.PLAYING


async def test_a_free_choice_after_equal_tributes_never_waits_on_a_human(db: Database) -> None:
    """V12/V14 free choices (a CHOICE phase) have no buttons in the bot: the 标准 player makes
    them for a human seat, so a table with those settings cannot stall (seed 0 reaches one in
    deal 6 when every seat plays the timeout default)."""
    preset, rules = rules_from_args(["default", "first_picks_tribute=on", "payers_pick_returns=always"])
    service = TableService(db, new_seed=lambda: 0)
    table = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    for seat in range(4):
        await service.take_seat(table, seat=seat, user_id=100 + seat, name=f"H{seat}", locale=None)
    await service.start(table)
    assert table.match is not None
    choices = 0
    for _ in range(20_000):
        if table.match.is_over or table.match.deal_number > 6:
            break
        assert table.match.phase is not Phase.CHOICE, "the table waits on a human's free choice"
        seat = table.match.to_act[0]
        outcome = await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
        choices += sum(isinstance(action, ChooseSeat) for _, action in outcome.actions)
    assert choices >= 1


async def test_new_tables_wait_while_the_bot_is_at_its_capacity(db: Database) -> None:
    """Beyond its capacity a new table would slow every table in play: /newgame is refused
    with the count until one ends (issue 23)."""
    service = TableService(db, capacity=2)
    rules = Rules.preset("default")
    first = await service.create(chat_id=-11, creator_id=1, preset="default", rules=rules)
    await service.create(chat_id=-12, creator_id=1, preset="default", rules=rules)
    with pytest.raises(TablesFull) as full:
        await service.create(chat_id=-13, creator_id=1, preset="default", rules=rules)
    assert (full.value.code, full.value.open_tables, full.value.capacity) == ("busy", 2, 2)
    await service.stop(first)
    assert service.open_tables() == 1
    await service.create(chat_id=-13, creator_id=1, preset="default", rules=rules)
    unlimited = TableService(db)
    for chat in range(3):
        await unlimited.create(chat_id=-20 - chat, creator_id=1, preset="default", rules=rules)


def test_the_capacity_setting_reads_a_number_or_keeps_the_default() -> None:
    from bot import table_capacity

    assert table_capacity(None) == table_capacity("") == table_capacity("many") == DEFAULT_CAPACITY
    assert table_capacity("40") == 40
    assert table_capacity("0") is None  # no limit


LEADS_AT_SEAT_0 = 2
"""A deal seed (of the SHORT rules) whose first deal seat 0 leads: nobody moves before it."""


def _count_trips(service: TableService) -> list[tuple[str, int]]:
    """Every trip to a thinking lane: (lane, moves the run brought back)."""
    trips: list[tuple[str, int]] = []
    run = service.thinking.run

    async def counted(lane: Any, work: Any, *args: Any) -> Any:
        result = await run(lane, work, *args)
        trips.append((lane.value, len(result) if isinstance(result, list) else 1))
        return result

    service.thinking.run = counted  # type: ignore[method-assign]
    return trips


async def test_computer_players_answer_a_play_in_one_trip_to_their_thread(db: Database) -> None:
    """The three computer players' answers to a person's play are thought out in one run (one
    trip to the worker thread, not one each: between trips the press waited behind everything
    else on the event loop), and they are the moves each would have made one at a time."""
    service = TableService(db, new_seed=lambda: LEADS_AT_SEAT_0)
    table = await _table(service, humans=1)
    await service.start(table)
    assert table.match is not None and table.match.to_act == (0,) and not table.match.history
    expected = table.match.copy()
    lead = timeout_action(observe(expected, 0))
    expected.apply(0, lead)
    while expected.to_act != (0,):
        seat = expected.to_act[0]
        expected.apply(seat, service.policy(observe(expected, seat), table.rules))

    trips = _count_trips(service)
    outcome = await service.act(table, seat=0, action=lead)

    assert trips == [("moves", 3)]
    assert [seat for seat, _ in outcome.actions] == [0, 1, 2, 3]
    assert table.match.history == expected.history
    assert await _logged(db, table) == table.version


async def test_a_run_of_moves_stops_where_another_lane_thinks(db: Database) -> None:
    """A 大师 seat thinks in the searches' lane: a run of quick moves stops before it, so a
    quick move never waits behind another table's search."""
    service = TableService(db, new_seed=lambda: LEADS_AT_SEAT_0)
    table = await _table(service, humans=1)
    await service.set_difficulty(table, seat=2, difficulty="master")
    await service.start(table)
    assert table.match is not None and table.match.to_act == (0,) and not table.match.history
    trips = _count_trips(service)
    await service.act(table, seat=0, action=timeout_action(table.observe(0)))
    assert trips == [("moves", 1), ("searches", 1), ("moves", 1)]


async def test_a_refused_move_in_a_run_is_replaced_and_the_rest_thought_again(db: Database) -> None:
    """A computer player's move that the engine refuses is played as the timeout default, and
    the moves after it are thought again from the table as it then is."""
    refusals = []

    def policy(obs: Any, rules: Rules) -> Any:
        if obs.seat == 2 and not refusals:  # once: the play on the table again, which cannot beat it
            refusals.append(obs.version)
            return PlayCards(obs.table_play)
        return timeout_action(obs)

    service = TableService(db, policy=policy, new_seed=lambda: LEADS_AT_SEAT_0)
    table = await _table(service, humans=1)
    await service.start(table)
    assert table.match is not None and table.match.to_act == (0,) and not table.match.history
    trips = _count_trips(service)
    outcome = await service.act(table, seat=0, action=timeout_action(table.observe(0)))
    assert refusals and [seat for seat, _ in outcome.actions] == [0, 1, 2, 3]
    assert [moves for _, moves in trips] == [2, 1]  # seats 1 and 2 (refused), then seat 3
    assert table.match.to_act == (0,)
