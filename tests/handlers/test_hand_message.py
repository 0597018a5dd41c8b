"""The private hand message: sent and edited after the table lock is released."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.table.settings import rules_from_args
from app.table.tables import LiveTable, TableService
from app.table.texts import restored_text, too_many_text
from handlers.platform.chats import ChatBudget, ChatReplies
from handlers.platform.context import Services
from handlers.platform.scheduler import PRIORITY, Priority
from handlers.table.hand_message import post_hand
from storage import Database
from tests.raw_edits import RawEdits


def _replies() -> ChatReplies:
    return ChatReplies(ChatBudget(), notice=too_many_text)


@dataclass
class SentMessage:
    message_id: int


@dataclass
class SlowBot(RawEdits):
    """Records the Bot API calls; a new photo waits until ``gate`` opens (a busy rate limiter)."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    calls: list[tuple[str, int]] = field(default_factory=list)
    captions: list[str] = field(default_factory=list)
    rate_limiter: None = None  # as an ExtBot built without one
    priorities: list[Priority | None] = field(default_factory=list)  # of the caption edits

    async def send_photo(self, chat_id: int, photo: bytes, *, caption: str, **_: Any) -> SentMessage:
        await self.gate.wait()
        self.calls.append(("sendPhoto", chat_id))
        self.captions.append(caption)
        return SentMessage(500 + len(self.calls))

    async def edit_message_reply_markup(self, *, chat_id: int, message_id: int, **_: Any) -> bool:
        self.calls.append(("editMessageReplyMarkup", message_id))
        return True

    async def edit_message_caption(self, *, chat_id: int, message_id: int, **_: Any) -> bool:
        self.calls.append(("editMessageCaption", message_id))
        self.priorities.append(PRIORITY.get())
        return True

    async def edit_message_media(self, media: Any, *, chat_id: int, message_id: int, **_: Any) -> bool:
        self.calls.append(("editMessageMedia", message_id))
        return True


@pytest.fixture
async def started(tmp_path: Path) -> AsyncIterator[tuple[LiveTable, Services]]:
    db = await Database.open(tmp_path / "h.db")
    tables = TableService(db, new_seed=lambda: 4)
    preset, rules = rules_from_args(["wechat-6-deals"])
    table = await tables.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    await tables.take_seat(table, seat=0, user_id=100, name="甲", locale=None)
    for seat in (1, 2, 3):
        await tables.add_ai(table, seat=seat, name=f"AI{seat}")
    await tables.start(table)
    renderer = ThreadPoolExecutor(max_workers=1)
    services = Services(
        db=db,
        tables=tables,
        board=None,  # type: ignore[arg-type]
        bot_username="bot",
        renderer=renderer,
        replies=_replies(),
    )
    yield table, services
    renderer.shutdown()
    await db.close()


async def test_a_new_hand_message_is_sent_after_the_table_lock_is_released(
    started: tuple[LiveTable, Services],
) -> None:
    table, services = started
    bot = SlowBot()
    async with table.lock:
        delivery = await post_hand(bot, services, table, 0)  # type: ignore[arg-type]
    assert not delivery.done() and bot.calls == []  # the photo waits, the lock does not
    async with table.lock:  # a press meanwhile composes a newer look of the same message
        table.seats[0].message.note = "again"
        newer = await post_hand(bot, services, table, 0)  # type: ignore[arg-type]
    bot.gate.set()
    await asyncio.gather(delivery, newer)
    assert bot.calls == [("sendPhoto", 100)]  # one message, with the newest look
    assert "again" in bot.captions[0]
    message_id = table.seats[0].record.dm_message_id
    stored = await services.tables.db.seats.get(table_id=table.id, seat=0)
    assert message_id is not None and stored.dm_message_id == message_id
    async with table.lock:  # once it is there, later looks edit it
        table.seats[0].message.note = "later"
        await (await post_hand(bot, services, table, 0))  # type: ignore[arg-type]
    assert bot.calls[1:] == [("editMessageCaption", message_id)]


async def test_a_look_waits_at_hand_priority_only_when_the_player_waits_for_it(tmp_path: Path) -> None:
    """Issue 23: the seat to act (or whose hand changed) at HAND; a waiting seat's caption, and
    a selection 提示's toast already named, at GLANCE (last, and replaced unsent under load)."""
    db = await Database.open(tmp_path / "p.db")
    tables = TableService(db, new_seed=lambda: 4)
    preset, rules = rules_from_args(["wechat-6-deals"])
    table = await tables.create(chat_id=-1, creator_id=1, preset=preset, rules=rules)
    for seat in (0, 1):
        await tables.take_seat(table, seat=seat, user_id=100 + seat, name=f"H{seat}", locale=None)
    for seat in (2, 3):
        await tables.add_ai(table, seat=seat, name=f"AI{seat}")
    await tables.start(table)
    renderer = ThreadPoolExecutor(max_workers=1)
    services = Services(
        db=db,
        tables=tables,
        board=None,  # type: ignore[arg-type]
        bot_username="bot",
        renderer=renderer,
        replies=_replies(),
    )
    bot = SlowBot()
    bot.gate.set()
    try:
        assert table.match is not None
        [to_act] = table.match.to_act
        assert to_act in (0, 1)  # seed 4: a human leads, the other human waits
        waiting = 1 - to_act
        for seat in (0, 1):
            async with table.lock:
                await (await post_hand(bot, services, table, seat))  # type: ignore[arg-type]
        for seat, glance in ((waiting, None), (to_act, None), (to_act, True), (waiting, False)):
            async with table.lock:
                table.seats[seat].message.note = f"{seat} {glance}"
                delivery = await post_hand(bot, services, table, seat, glance=glance)  # type: ignore[arg-type]
            # nobody waits for a glance: its poster (a press's handler) must not hold its slot for it
            assert delivery.done() == (glance is True or (seat == waiting and glance is None))
            await delivery
            await services.sender.join()  # a glance's delivery is not awaited by its poster
        # the waiting seat's own selection press (glance=False) is awaited: only its keyboard answers
        assert bot.priorities == [Priority.GLANCE, Priority.HAND, Priority.GLANCE, Priority.HAND]
    finally:
        renderer.shutdown()
        await db.close()


@dataclass
class RestartBot(SlowBot):
    """A :class:`SlowBot` that also keeps each caption edit's text and keyboard."""

    edited: list[tuple[int, str, object]] = field(default_factory=list)

    async def edit_message_caption(self, *, chat_id: int, message_id: int, **data: Any) -> bool:
        self.edited.append((message_id, data["caption"], data.get("reply_markup")))
        return await super().edit_message_caption(chat_id=chat_id, message_id=message_id)


async def test_after_a_restart_the_hand_comes_in_a_new_message_and_the_stored_one_says_so(
    started: tuple[LiveTable, Services],
) -> None:
    """Issue 40.3: the store's message may not be the chat's newest (a restore), so a resumed
    seat's first look is a new message; the stored one loses its buttons and says it was
    replaced. Presses on anything older than the new message are refused (``from_before``)."""
    table, services = started
    bot = RestartBot()
    bot.gate.set()
    async with table.lock:
        await (await post_hand(bot, services, table, 0))  # type: ignore[arg-type]
    before = table.seats[0].record.dm_message_id
    assert before is not None and not table.seats[0].message.from_before(before)

    restarted = TableService(services.tables.db)
    [resumed] = (await restarted.restore_all()).tables
    assert resumed.seats[0].record.dm_message_id == before and resumed.seats[0].message.from_before(before)
    services.tables = restarted
    async with resumed.lock:
        await (await post_hand(bot, services, resumed, 0))  # type: ignore[arg-type]
    now = resumed.seats[0].record.dm_message_id
    assert bot.calls[1:] == [("editMessageCaption", before), ("sendPhoto", 100)]
    assert bot.edited == [(before, restored_text("zh"), None)]
    assert (
        now is not None
        and now > before
        and (await services.tables.db.seats.get(table_id=table.id, seat=0)).dm_message_id == now
    )
    assert resumed.seats[0].message.from_before(before) and not resumed.seats[0].message.from_before(now)
    async with resumed.lock:  # from then on, edits as before
        resumed.seats[0].message.note = "later"
        await (await post_hand(bot, services, resumed, 0))  # type: ignore[arg-type]
    assert bot.calls[3:] == [("editMessageCaption", now)]


@dataclass
class OpenPages:
    """The Mini App as the hand message sees it: is the seat's page open?"""

    open: bool = True

    def playing(self, table_id: int, seat: int) -> bool:
        return self.open

    def table_url(self, table_id: int) -> str:
        return f"https://guandan.example/?t={table_id}"


async def test_a_new_deal_waits_while_the_page_is_open_and_comes_when_it_closes(
    started: tuple[LiveTable, Services],
) -> None:
    """Issue 42: a Mini App player's chat costs nothing while they play in the page, a new
    deal's message included; closing the page brings the new deal's message."""
    table, services = started
    pages = OpenPages()
    services.miniapp = pages  # type: ignore[assignment]
    bot = SlowBot()
    bot.gate.set()
    async with table.lock:
        await (await post_hand(bot, services, table, 0))  # type: ignore[arg-type]
    first = table.seats[0].record.dm_message_id
    assert bot.calls == [("sendPhoto", 100)] and "小程序" in bot.captions[0]
    table.seats[0].message.shown_deal = 0  # the message shows an older deal than the table plays
    async with table.lock:
        await (await post_hand(bot, services, table, 0))  # type: ignore[arg-type]
    assert bot.calls == [("sendPhoto", 100)] and table.seats[0].record.dm_message_id == first
    pages.open = False
    async with table.lock:
        await (await post_hand(bot, services, table, 0))  # type: ignore[arg-type]
    assert bot.calls[-1] == ("sendPhoto", 100) and len(bot.calls) >= 2
    assert table.seats[0].record.dm_message_id != first and "小程序" not in bot.captions[-1]
