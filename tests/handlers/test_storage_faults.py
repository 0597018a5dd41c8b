"""Storage faults (issue 8, finding 9) on a real SQLite file: read-only, locked, disk full.

Every write a press or a clock can reach either changes nothing and says so
(:class:`StorageUnavailable`: the press is answered "not saved", the selection kept), or, for
bookkeeping and bots' moves, is kept in memory and stored once storage is back. After the
fault the same request succeeds. The faults themselves are in :mod:`tests.faults`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.preferences import Languages
from app.table.callback_data import Area, Op, Press
from app.table.selection import digest, select_play
from app.table.settings import rules_from_args
from app.table.tables import LiveTable, TableService
from app.table.texts import error_text
from engine.actions import PlayCards
from engine.match import observe
from handlers.table.play import on_hand_press
from players.easy import timeout_action
from storage import Database, StorageUnavailable, TableStatus
from tests.faults import FAULTS, StorageFault

WHOLE_FILE = ("read_only", "locked")
"""Faults that refuse every write; ``full`` (a capped file) refuses only writes that need a new
page, such as logging actions, while an update in place still fits."""


@pytest.fixture
async def opened(tmp_path: Path):
    path = tmp_path / "faults.db"
    db = await Database.open(path, busy_timeout=0.2)
    yield db, path
    await db.close()


async def _lobby(service: TableService, humans: int) -> LiveTable:
    preset, rules = rules_from_args(["wechat-6-deals", "points_deals=2"])
    table = await service.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    for seat in range(humans):
        await service.take_seat(table, seat=seat, user_id=100 + seat, name=f"H{seat}", locale=None)
    for seat in range(humans, 4):
        await service.add_ai(table, seat=seat, name=f"AI{seat}")
    return table


async def _logged(db: Database, table: LiveTable) -> int:
    return len(await db.actions.of_table(table_id=table.id))


def _select_a_play(table: LiveTable, seat: int) -> PlayCards:
    """Tick the cards of the seat's default play (its lowest single when leading)."""
    action = timeout_action(observe(table.match, seat))
    assert isinstance(action, PlayCards)
    table.seats[seat].selection.cards = select_play(action.play)
    return action


@pytest.mark.parametrize("kind", FAULTS)
async def test_a_failed_play_changes_nothing_and_the_same_play_succeeds_after(opened, kind: str) -> None:
    db, path = opened
    service = TableService(db, new_seed=lambda: 9)
    table = await _lobby(service, humans=4)
    await service.start(table)
    seat = table.match.to_act[0]
    action = _select_a_play(table, seat)
    selection, version, history = (
        Counter(table.seats[seat].selection.cards),
        table.version,
        table.match.history,
    )
    logged = await _logged(db, table)
    fault = StorageFault(kind, db, path)
    await fault.on()
    with pytest.raises(StorageUnavailable):
        await service.act(table, seat=seat, action=action)
    assert (table.version, table.match.history, table.unsaved) == (version, history, [])
    assert table.seats[seat].selection.cards == selection  # the keyboard still shows what is selected
    assert table.match.to_act == (seat,)
    await fault.off()
    assert await _logged(db, table) == logged
    await service.act(table, seat=seat, action=action)
    assert table.version > version
    assert await _logged(db, table) == table.version
    assert not table.seats[seat].selection.cards


@pytest.mark.parametrize("kind", FAULTS)
async def test_a_timeout_under_a_fault_leaves_the_match_and_the_seat_as_stored(opened, kind: str) -> None:
    """The 1-in-4 table that never recovered: a turn clock rang during the fault. Its 托管
    count was written between applying the action and logging it; the write failed, the
    in-memory match stayed one action ahead of the log, no clock was armed and nobody was
    shown the change. Now the count goes with the action, and nothing moves until both can
    be stored."""
    db, path = opened
    service = TableService(db, new_seed=lambda: 9)
    table = await _lobby(service, humans=1)
    await service.start(table)
    assert table.match.to_act == (0,)
    await service.act(table, seat=0, action=timeout_action(observe(table.match, 0)), timed_out=True)
    assert table.seats[0].record.timeouts == 1
    version = table.version
    fault = StorageFault(kind, db, path)
    await fault.on()
    with pytest.raises(StorageUnavailable):
        await service.act(table, seat=0, action=timeout_action(observe(table.match, 0)), timed_out=True)
    assert (table.version, table.unsaved, table.match.to_act) == (version, [], (0,))
    assert (table.seats[0].record.timeouts, table.seats[0].record.autoplay) == (1, False)
    await fault.off()
    await service.act(table, seat=0, action=timeout_action(observe(table.match, 0)), timed_out=True)
    stored = await db.seats.get(table_id=table.id, seat=0)
    assert (stored.timeouts, stored.autoplay) == (2, True)
    assert await _logged(db, table) == table.version


@pytest.mark.parametrize("kind", FAULTS)
async def test_a_player_handed_to_the_bot_during_a_fault_plays_once_storage_is_back(
    opened, kind: str
) -> None:
    db, path = opened
    service = TableService(db, new_seed=lambda: 9)
    table = await _lobby(service, humans=2)
    await service.start(table)
    seat = table.match.to_act[0]
    version = table.version
    fault = StorageFault(kind, db, path)
    await fault.on()
    outcome = await service.hand_to_bot(table, seat=seat)  # 托管 at once, whatever storage does
    assert outcome.actions == () and table.version == version
    assert table.seats[seat].record.autoplay and table.id in service.stalled and service.needs_recovery
    await fault.off()
    assert not (await db.seats.get(table_id=table.id, seat=seat)).autoplay
    outcome = await service.resume(table)  # what the recovery job does
    assert outcome.actions and outcome.actions[0][0] == seat
    assert table.id not in service.stalled and not service.needs_recovery
    assert (await db.seats.get(table_id=table.id, seat=seat)).autoplay
    assert await _logged(db, table) == table.version


@pytest.mark.parametrize("kind", WHOLE_FILE)
async def test_bookkeeping_writes_wait_in_memory_and_are_stored_later(opened, kind: str) -> None:
    db, path = opened
    service = TableService(db, new_seed=lambda: 9)
    table = await _lobby(service, humans=2)
    await service.start(table)
    fault = StorageFault(kind, db, path)
    await fault.on()
    await service.set_board_message(table, 777)
    await service.set_dm_message(table, 0, 888)
    assert (table.record.board_message_id, table.seats[0].record.dm_message_id) == (777, 888)
    assert service.needs_recovery
    assert not await service.catch_up()
    await fault.off()
    assert await service.catch_up()
    assert (await db.tables.get(table_id=table.id)).board_message_id == 777
    assert (await db.seats.get(table_id=table.id, seat=0)).dm_message_id == 888
    assert not service.needs_recovery


@pytest.mark.parametrize("kind", WHOLE_FILE)
async def test_starting_and_lobby_writes_under_a_fault_change_nothing(opened, kind: str) -> None:
    db, path = opened
    service = TableService(db, new_seed=lambda: 9)
    table = await _lobby(service, humans=3)
    await service.leave(table, seat=2)
    fault = StorageFault(kind, db, path)
    await fault.on()
    with pytest.raises(StorageUnavailable):
        await service.take_seat(table, seat=2, user_id=102, name="H2", locale=None)
    assert 2 not in table.seats
    await fault.off()
    await service.take_seat(table, seat=2, user_id=102, name="H2", locale=None)
    await fault.on()
    with pytest.raises(StorageUnavailable):
        await service.start(table)
    assert table.match is None and table.record.status is TableStatus.LOBBY
    await fault.off()
    await service.start(table)
    assert table.match is not None and table.record.status is TableStatus.PLAYING


# ---------------------------------------------------------------- the press, at the handler


HAND_MESSAGE = 888
"""The id of the hand message the fake presses are made on, as if this process had sent it."""


@dataclass
class FakeQuery:
    data: str
    from_user: SimpleNamespace
    answers: list[tuple[str | None, bool]] = field(default_factory=list)

    @property
    def message(self) -> SimpleNamespace:
        """The presser's own hand message, in their private chat (the one this process sent)."""
        return SimpleNamespace(message_id=HAND_MESSAGE, chat=SimpleNamespace(id=self.from_user.id))

    async def answer(self, text: str | None = None, show_alert: bool = False, **_: object) -> bool:
        self.answers.append((text, show_alert))
        return True


@pytest.mark.parametrize("kind", FAULTS)
async def test_the_press_is_answered_not_saved_and_keeps_the_selection(opened, kind: str) -> None:
    """The press that used to get no answer at all (an uncaught OperationalError)."""
    db, path = opened
    service = TableService(db, new_seed=lambda: 9)
    table = await _lobby(service, humans=4)
    await service.start(table)
    seat = table.match.to_act[0]
    _select_a_play(table, seat)
    selection = Counter(table.seats[seat].selection.cards)
    table.seats[seat].message.first_sent = HAND_MESSAGE
    press = Press(Area.HAND, table.id, table.version, digest(selection), Op.PLAY, None)
    services = SimpleNamespace(tables=service, db=db, languages=Languages(db))
    fault = StorageFault(kind, db, path)
    await fault.on()
    for _ in range(2):  # pressing again says the same: the selection is still there
        query = FakeQuery(press.encode(), SimpleNamespace(id=100 + seat))
        await on_hand_press(SimpleNamespace(callback_query=query), SimpleNamespace(services=services))  # type: ignore[arg-type]
        assert query.answers == [(error_text("not_saved", "zh"), True)]
        assert table.seats[seat].selection.cards == selection
    await fault.off()
