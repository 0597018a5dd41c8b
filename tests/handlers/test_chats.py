"""Per-chat isolation: replies coalesced or dropped with one notice, within the chat's budget;
a flooded chat holds at most ``per_chat`` update slots; look-ups skip the group quota."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from telegram import Chat, Message, Update, User
from telegram.ext import AIORateLimiter

from handlers.platform.chats import ChatBudget, ChatFairProcessor, ChatReplies, MessagesOnlyLimiter


@dataclass
class Posted:
    """What the fake bot and messages sent, in order: (chat_id, text)."""

    texts: list[tuple[int, str]] = field(default_factory=list)
    gate: asyncio.Event | None = None  # sends wait for it when set

    async def post(self, chat_id: int, text: str) -> None:
        if self.gate is not None:
            await self.gate.wait()
        self.texts.append((chat_id, text))


class FakeMessage:
    """The command being answered: ``reply_text`` and ``get_bot().send_message`` record."""

    def __init__(self, posted: Posted, chat_id: int) -> None:
        self.posted, self.chat_id = posted, chat_id
        self.chat = SimpleNamespace(id=chat_id)

    async def reply_text(self, text: str, **_: Any) -> None:
        await self.posted.post(self.chat_id, text)

    def get_bot(self) -> FakeMessage:
        return self

    async def send_message(self, chat_id: int, text: str) -> None:
        await self.posted.post(chat_id, text)


def notice(locale: str) -> str:
    return f"too many ({locale})"


async def settle() -> None:
    for _ in range(50):
        await asyncio.sleep(0)


async def test_equal_replies_are_coalesced_and_a_flood_gets_one_notice() -> None:
    posted = Posted(gate=asyncio.Event())
    replies = ChatReplies(ChatBudget(), notice, backlog=3)
    group = FakeMessage(posted, -1)
    texts = ["help", "help", "rules", "help", "a", "b", "c", "d"]
    accepted = [replies.reply(group, text, "zh") for text in texts]  # type: ignore[arg-type]
    assert accepted == [True, False, True, False, True, False, False, False]
    posted.gate.set()  # type: ignore[union-attr]
    await settle()
    assert posted.texts == [(-1, "too many (zh)"), (-1, "help"), (-1, "rules"), (-1, "a")]
    posted.gate = asyncio.Event()
    again = [replies.reply(group, f"x{index}", "zh") for index in range(6)]  # type: ignore[arg-type]
    assert again == [True, True, True, False, False, False]
    posted.gate.set()
    await settle()
    assert [text for _, text in posted.texts].count("too many (zh)") == 1  # one per minute
    await replies.close()


async def test_a_repeated_answer_is_sent_again_yet_stays_within_the_backlog() -> None:
    """``repeat`` (an organiser's /result, refused twice in the same words): each is answered,
    where an ordinary equal reply is coalesced; a flood of them still meets the backlog."""
    posted = Posted(gate=asyncio.Event())
    replies = ChatReplies(ChatBudget(), notice, backlog=3)
    group = FakeMessage(posted, -1)

    def answer(text: str) -> bool:
        async def send() -> None:
            await group.reply_text(text)

        return replies.send(group, text, send, "zh", repeat=True)  # type: ignore[arg-type]

    assert [answer("不是组号") for _ in range(4)] == [True, True, True, False]
    posted.gate.set()  # type: ignore[union-attr]
    await settle()
    assert posted.texts == [(-1, "too many (zh)"), *[(-1, "不是组号")] * 3]
    assert answer("不是组号") and not replies.reply(group, "不是组号", "zh")  # type: ignore[arg-type]
    await replies.close()


async def test_invitations_are_never_dropped_and_acknowledgements_give_way_in_a_rush() -> None:
    """Six /signup @partner at once: every invitation is sent (``keep``: the partner's only
    button), none counted in the backlog; a /signup alone typed meanwhile (``spare``: the card
    lists it too) is not queued while they wait, and is when the queue is empty (issue 40: the
    backlog of three dropped an invitation, and acknowledgements spent the group's minute)."""
    posted = Posted(gate=asyncio.Event())
    replies = ChatReplies(ChatBudget(), notice, backlog=3)
    group = FakeMessage(posted, -3)

    def send(text: str, **kind: bool) -> bool:
        async def post() -> None:
            await group.reply_text(text)

        return replies.send(group, text, post, "zh", **kind)  # type: ignore[arg-type]

    assert all(send(f"invite {n}", keep=True) for n in range(6))
    assert not send("S0 alone", spare=True)
    assert send("/contest")  # an ordinary reply still has the backlog to itself
    posted.gate.set()  # type: ignore[union-attr]
    await settle()
    assert [text for _, text in posted.texts] == [*(f"invite {n}" for n in range(6)), "/contest"]
    assert send("S1 alone", spare=True)
    await settle()
    assert posted.texts[-1] == (-3, "S1 alone")
    await replies.close()


async def test_replies_keep_the_reserve_free_and_owed_ones_may_use_it() -> None:
    posted = Posted()
    budget = ChatBudget(limit=5, window=60.0)
    replies = ChatReplies(budget, notice, backlog=10)
    group = FakeMessage(posted, -2)

    async def lobby() -> None:
        await posted.post(-2, "lobby")

    for index in range(4):
        replies.reply(group, f"r{index}", "zh")  # type: ignore[arg-type]
    await settle()
    assert [text for _, text in posted.texts] == ["r0", "r1"]  # 5 - reserve 3
    assert replies.pending(-2) == 2
    replies.send(group, "lobby", lobby, "zh", owed=True)  # type: ignore[arg-type]
    await settle()
    assert [text for _, text in posted.texts] == ["r0", "r1", "lobby"]  # owed: overtakes them
    assert replies.pending(-2) == 2
    await replies.close()
    assert replies.pending(-2) == 0


async def test_a_reply_still_waiting_for_the_budget_coalesces_its_equal_past_the_window() -> None:
    """Thirty taps of 赛况 over a minute while the group's budget is spent post the standings
    once: an equal reply still queued is one, however long it waited."""
    posted = Posted()
    budget = ChatBudget(limit=4, window=60.0)
    replies = ChatReplies(budget, notice, backlog=10, coalesce=0.0)
    group = FakeMessage(posted, -3)
    assert replies.reply(group, "standings", "zh")  # type: ignore[arg-type]
    await settle()
    assert replies.reply(group, "standings", "zh")  # type: ignore[arg-type]  # sent: asked anew
    await settle()
    assert [text for _, text in posted.texts] == ["standings"]  # the budget keeps the reserve
    assert not replies.reply(group, "standings", "zh")  # type: ignore[arg-type]
    assert replies.reply(group, "bracket", "zh")  # type: ignore[arg-type]
    assert replies.pending(-3) == 2
    await asyncio.wait_for(replies.close(), 10)  # "bracket" woke the worker: close stops it anyway


async def test_a_reply_does_not_wait_for_a_minute_spent_on_announcements() -> None:
    """Announcements that spent the group's budget do not hold a person's reply back (the
    scheduler sends it ahead of them); replies count against their own share only. A reply
    waited until the minute held fewer than 15 announcements: after 32 matches were settled,
    /bracket came a minute later (issue 32)."""
    posted = Posted()
    budget = ChatBudget(limit=5, window=60.0)
    replies = ChatReplies(budget, notice, backlog=10)
    group = FakeMessage(posted, -4)
    for _ in range(5):
        await budget.acquire(-4)  # the outbox's announcements: the budget is spent
    assert replies.reply(group, "bracket", "zh")  # type: ignore[arg-type]
    await settle()
    assert [text for _, text in posted.texts] == ["bracket"]
    assert budget.used(-4) == 6  # counted there too: the next announcement waits for it
    await replies.close()


async def test_private_chats_do_not_use_the_group_budget() -> None:
    posted = Posted()
    replies = ChatReplies(ChatBudget(limit=1), notice, backlog=50)
    private = FakeMessage(posted, 42)
    for index in range(20):
        replies.reply(private, f"r{index}", "en")  # type: ignore[arg-type]
    await settle()
    assert len(posted.texts) == 20
    await replies.close()


def test_budget_delay_counts_the_reserve() -> None:
    budget = ChatBudget(limit=3, window=60.0)
    assert budget.delay(-1) == 0.0
    for _ in range(2):
        budget.note(-1)
    assert budget.delay(-1) == 0.0
    assert 59.0 < budget.delay(-1, reserve=1) <= 60.0
    assert budget.has_room(-1) and not budget.has_room(-1, reserve=1)


def update_in(chat_id: int, update_id: int) -> Update:
    chat = Chat(chat_id, Chat.SUPERGROUP if chat_id < 0 else Chat.PRIVATE)
    user = User(1, "u", False)
    message = Message(update_id, date=datetime.now(UTC), chat=chat, from_user=user, text="/help")
    return Update(update_id, message=message)


async def test_a_flooded_chat_holds_at_most_per_chat_slots() -> None:
    """Chat A's handlers never return (waiting for A's quota); chat B's still run at once."""
    processor = ChatFairProcessor(total=8, per_chat=2, backlog=5)
    blocked, ran = asyncio.Event(), []

    async def stuck(update_id: int) -> None:
        ran.append(update_id)
        await blocked.wait()

    async def quick(update_id: int) -> None:
        ran.append(update_id)

    flood = [asyncio.create_task(processor.process_update(update_in(-1, n), stuck(n))) for n in range(20)]
    await settle()
    assert sorted(ran) == [0, 1]  # two of A's run, five wait, the rest were dropped
    assert processor.dropped == 13
    await processor.process_update(update_in(-2, 100), quick(100))
    await processor.process_update(update_in(7, 101), quick(101))
    assert ran[-2:] == [100, 101]
    blocked.set()
    await asyncio.gather(*flood)
    assert sorted(ran[:2] + ran[4:]) == list(range(7))


async def test_look_ups_in_a_group_skip_its_message_quota() -> None:
    """getChatMember is not a message: with the group's quota spent it still goes at once."""
    limiter = MessagesOnlyLimiter(AIORateLimiter(group_max_rate=1, group_time_period=60))
    calls: list[str] = []

    async def call(endpoint: str) -> dict[str, Any]:
        calls.append(endpoint)
        return {}

    data = {"chat_id": -5}
    await limiter.process_request(call, ("sendMessage",), {}, "sendMessage", data, None)
    await asyncio.wait_for(
        limiter.process_request(call, ("getChatMember",), {}, "getChatMember", data, None), 1.0
    )
    second = asyncio.create_task(
        limiter.process_request(call, ("sendMessage",), {}, "sendMessage", data, None)
    )
    await asyncio.sleep(0.2)
    assert calls == ["sendMessage", "getChatMember"]  # the second message waits for the quota
    second.cancel()
