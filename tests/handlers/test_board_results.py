"""Deal results and the match's end are owed to the group (issue 8, finding 6): a failed send
is retried, not lost, and a restart announces what the last run may have lost, once; on both
stores, since a restart reads the live board's range back from the database (0014_board_range)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from telegram.error import NetworkError

from engine.actions import DealEnded
from engine.match import observe
from handlers.platform.outbox import Outbox
from handlers.table.board import BoardPublisher, ChatBudget
from players.easy import timeout_action
from storage import Database
from tests.handlers.test_board import FakeBot, play_fast, seated_table
from tests.handlers.test_board import publisher as board_publisher


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


class FlakyBot(FakeBot):
    """The first ``failures`` pictures fail with a network error (the send never arrived)."""

    failures = 3

    async def send_photo(self, chat_id: int, photo: bytes, caption: str = "", **kwargs: Any) -> Any:
        if self.failures:
            self.failures -= 1
            raise NetworkError("connection reset")
        return await super().send_photo(chat_id, photo, caption, **kwargs)


def publisher(bot: FakeBot, service: Any, db: Database) -> BoardPublisher:
    outbox = Outbox(db.outbox, first_delay=0.01)
    return board_publisher(bot, service, db, budget=ChatBudget(window=0.5), interval=0.01, outbox=outbox)


async def test_a_failed_result_send_is_retried_not_lost(db: Database) -> None:
    service, table = await seated_table(db, seed=3)
    bot = FlakyBot()
    deals = await play_fast(service, table, publisher(bot, service, db), [], ai=False)
    captions = [bot.texts[s.message_id] for s in bot.sent if s.kind == "photo"]
    assert len(captions) == deals + 1 and len(set(captions)) == len(captions)
    assert "🏆" in captions[-1]
    assert await db.outbox.pending() == []


async def test_a_restart_announces_a_result_the_last_run_never_stored_once(db: Database) -> None:
    """The deal ended and was logged, then the bot stopped before the result was stored."""
    service, table = await seated_table(db, seed=3)
    await service.start(table)
    assert table.match is not None
    while not any(isinstance(e, DealEnded) for e in table.match.events):
        seat = table.match.to_act[0]
        await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
    bot = FakeBot()
    board = publisher(bot, service, db)
    board.publish(table, ())  # the first sight of the table in the new run
    await board.drain(table.id)
    await board.outbox.join()
    again = publisher(bot, service, db)  # and once more: the key was delivered
    again.publish(table, ())
    await again.outbox.join()
    assert [s.kind for s in bot.sent].count("photo") == 1


async def test_result_pictures_are_drawn_in_the_render_pool(db: Database) -> None:
    """Drawing a result picture is 18-25 ms of Pillow work: on the event loop it would hold up
    every press in flight, so the board draws them in the render pool."""
    drawn_in: list[str] = []

    class RecordingPool(ThreadPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            def run() -> Any:
                drawn_in.append(threading.current_thread().name)
                return fn(*args, **kwargs)

            return super().submit(run)

    service, table = await seated_table(db, seed=3)
    bot = FakeBot()
    with RecordingPool(max_workers=1, thread_name_prefix="render") as pool:
        outbox = Outbox(db.outbox, first_delay=0.01)
        board = board_publisher(
            bot, service, db, budget=ChatBudget(window=0.5), interval=0.01, outbox=outbox, renderer=pool
        )  # type: ignore[arg-type]
        deals = await play_fast(service, table, board, [], ai=False)
        await board.outbox.join()
    photos = [s for s in bot.sent if s.kind == "photo"]
    assert len(photos) == deals + 1  # every deal's result and the match summary
    assert len(drawn_in) == len(photos) and all(name.startswith("render") for name in drawn_in)


async def test_a_restart_closes_the_deal_the_last_run_never_closed_in_its_own_message(db: Database) -> None:
    """The deal's last play was logged, then the bot stopped before its board was closed: the
    next run closes it in the message the group already has (issue 32.6), then the result goes."""
    service, table = await seated_table(db, seed=3)
    bot = FakeBot()
    first = publisher(bot, service, db)
    outcome = await service.start(table)
    assert table.match is not None
    while not any(isinstance(e, DealEnded) for e in outcome.events):
        first.publish(table, outcome.events)
        await first.drain(table.id)
        seat = table.match.to_act[0]
        outcome = await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
    await first.close()  # stopped: the deal's end was never published
    left = table.record.board_message_id
    assert left is not None and "⏳" in bot.texts[left]
    table.record = await db.tables.get(table_id=table.id)  # as the next run reads it
    board = publisher(bot, service, db)
    board.publish(table, ())
    await board.drain(table.id)
    await board.outbox.join()
    assert "⏳" not in bot.texts[left] and "🏁" in bot.texts[left]
    texts = [s for s in bot.sent if s.kind == "text"]
    assert texts[-1].message_id != left  # the next deal's board follows in a new message
    assert [s.kind for s in bot.sent if s.message_id > left].count("photo") == 1  # the result, once
    assert not any("⏳" in bot.texts[s.message_id] for s in texts[:-1])
