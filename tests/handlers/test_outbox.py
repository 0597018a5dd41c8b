"""The outbox service on a real SQLite file: retried on timeouts, network errors and 429,
dropped only when Telegram refuses for good, in order per chat, resent by the next run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut

from handlers.platform.outbox import Outbox, Undeliverable
from storage import Database


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


class Sender:
    """Fails with the listed errors first, then records what it was asked to send."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.sent: list[tuple[int, Any]] = []
        self.attempts = 0

    async def __call__(self, chat_id: int, payload: dict[str, Any]) -> None:
        self.attempts += 1
        if self.errors:
            raise self.errors.pop(0)
        self.sent.append((chat_id, payload["n"]))


def outbox_on(db: Database, sender: Sender) -> Outbox:
    outbox = Outbox(db.outbox, first_delay=0.01, max_delay=0.05)
    outbox.register("note", sender)
    return outbox


async def test_transient_failures_are_retried_until_accepted(db: Database) -> None:
    sender = Sender(TimedOut(), NetworkError("reset"), RetryAfter(0), TimedOut())
    outbox = outbox_on(db, sender)
    await asyncio.wait_for(outbox.post(-1, "note", {"n": 1}, key="one"), 5)
    assert sender.sent == [(-1, 1)] and sender.attempts == 5
    assert await db.outbox.pending() == []


async def test_messages_of_a_chat_go_in_order_and_a_key_goes_once(db: Database) -> None:
    sender = Sender(NetworkError("down"))
    outbox = outbox_on(db, sender)
    for n in range(4):
        outbox.post(-1, "note", {"n": n}, key=f"k{n % 3}")
    outbox.post(-2, "note", {"n": 9})
    await outbox.join()
    assert [n for chat, n in sender.sent if chat == -1] == [0, 1, 2]
    assert (-2, 9) in sender.sent
    outbox.post(-1, "note", {"n": 0}, key="k0")  # delivered before: never again
    await outbox.join()
    assert len(sender.sent) == 4


async def test_first_messages_overtake_the_chats_queue_in_their_own_order(db: Database) -> None:
    """Eight reports at once: the eight result lines go before the eight detail messages."""
    sender = Sender(NetworkError("down"))  # the first send fails: everything queues behind it
    outbox = outbox_on(db, sender)
    for n in range(8):
        outbox.post(-1, "note", {"n": f"details{n}"})
        outbox.post(-1, "note", {"n": f"line{n}"}, first=True)
    await outbox.join()
    assert [n for _chat, n in sender.sent] == [f"line{n}" for n in range(8)] + [
        f"details{n}" for n in range(8)
    ]


async def test_refused_for_good_is_dropped_not_retried(db: Database) -> None:
    sender = Sender(BadRequest("chat not found"))
    outbox = outbox_on(db, sender)
    await outbox.post(-1, "note", {"n": 1})
    outbox.register("gone", Sender(Undeliverable("table deleted")))
    await outbox.post(-1, "gone", {"n": 2})
    assert sender.attempts == 1 and sender.sent == []
    assert await db.outbox.pending() == []


async def test_what_one_run_could_not_send_the_next_run_sends(db: Database) -> None:
    down = Sender(*(NetworkError("down") for _ in range(1000)))
    first = outbox_on(db, down)
    await first.enqueue(-1, "note", {"n": 1}, key="k1")
    await first.enqueue(-1, "note", {"n": 2})
    await asyncio.sleep(0.05)
    await first.close()
    assert [row.attempts > 0 for row in await db.outbox.pending()] == [True, False]
    up = Sender()
    second = outbox_on(db, up)
    await second.start()
    await second.join()
    assert up.sent == [(-1, 1), (-1, 2)]
    assert await db.outbox.pending() == []
