"""The token's one priority queue (handlers/platform/scheduler.py), on a clock the test moves:
the most valuable request goes first, a refresh leaves room for an announcement, chats stay
apart, and a 429 holds its chat and is retried, never dropped."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

import pytest
from telegram.error import RetryAfter

from handlers.platform.scheduler import (
    AGED_SHARE,
    GROUP_LIMIT,
    GROUP_SHARE,
    MARGIN,
    PACED_AFTER_429,
    Priority,
    PriorityLimiter,
    at_priority,
    default_priority,
)

GROUP = -100
OTHER_GROUP = -200


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def recorder(sent: list[str], name: str) -> Callable[..., Coroutine[Any, Any, str]]:
    async def call() -> str:
        sent.append(name)
        return name

    return call


async def request(
    limiter: PriorityLimiter, sent: list[str], name: str, chat_id: int | None, endpoint: str = "sendMessage"
) -> Any:
    data = {} if chat_id is None else {"chat_id": chat_id}
    return await limiter.process_request(recorder(sent, name), (), {}, endpoint, data, None)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def advance(limiter: PriorityLimiter, clock: Clock, seconds: float) -> None:
    clock.now += seconds
    limiter.wake()
    await settle()


async def test_when_the_token_is_full_the_answer_goes_at_once_then_the_hand_then_the_rest() -> None:
    clock = Clock()
    limiter = PriorityLimiter(token_limit=1, clock=clock)
    sent: list[str] = []
    await request(limiter, sent, "first", 1)  # the token's second is used
    tasks = []
    for name, priority in (("board", Priority.REFRESH), ("result", Priority.OWED), ("hand", Priority.HAND)):
        with at_priority(priority):
            tasks.append(asyncio.create_task(request(limiter, sent, name, GROUP)))
    tasks.append(asyncio.create_task(request(limiter, sent, "answer", None, "answerCallbackQuery")))
    await settle()
    assert sent == ["first", "answer"]  # an answer is not a message: the token's second is not its
    for _ in range(3):
        await advance(limiter, clock, 1.0)
    await asyncio.gather(*tasks)
    assert sent == ["first", "answer", "hand", "result", "board"]


async def test_a_flood_of_answers_never_holds_back_a_hand() -> None:
    """Taps on stale keyboards are answered without spending the token's messages, so the edit
    that refreshes the keyboard still goes (it starved behind the answers)."""
    clock = Clock()
    limiter = PriorityLimiter(token_limit=2, clock=clock)
    sent: list[str] = []
    await request(limiter, sent, "first", 1)
    await request(limiter, sent, "second", 2)  # the token's second is used
    hand = asyncio.create_task(request(limiter, sent, "hand", 3))
    answers = [request(limiter, sent, f"answer {n}", None, "answerCallbackQuery") for n in range(50)]
    await asyncio.wait_for(asyncio.gather(*answers), timeout=10)  # none waits for the token
    assert "hand" not in sent
    await advance(limiter, clock, 1.0)
    assert sent[-1] == "hand"
    await hand


async def test_refreshes_leave_part_of_the_groups_minute_to_announcements() -> None:
    clock = Clock()
    limiter = PriorityLimiter(chat_burst=100, clock=clock)
    sent: list[str] = []
    refreshes = []
    with at_priority(Priority.REFRESH):
        for n in range(40):
            refreshes.append(
                asyncio.create_task(request(limiter, sent, f"edit{n}", GROUP, "editMessageText"))
            )
    await settle()
    assert len(sent) == GROUP_SHARE[Priority.REFRESH]
    with at_priority(Priority.OWED):
        announced = await asyncio.wait_for(request(limiter, sent, "draw", GROUP), 5)
    assert announced == "draw"  # at once, though forty refreshes wait
    await request(limiter, sent, "elsewhere", OTHER_GROUP)  # another group is not held up either
    assert len(sent) == GROUP_SHARE[Priority.REFRESH] + 2
    await advance(limiter, clock, 61.0)  # a minute on: refreshes that waited that long take more
    assert len(sent) == GROUP_SHARE[Priority.REFRESH] + 2 + AGED_SHARE
    with at_priority(Priority.OWED):  # and still leave an announcement room
        assert await asyncio.wait_for(request(limiter, sent, "result", GROUP), 5) == "result"
    for task in refreshes:
        task.cancel()
    await limiter.shutdown()


async def test_a_reply_goes_ahead_of_queued_announcements_which_leave_it_room() -> None:
    """A person who asks while announcements fill the group's minute is answered at once, and
    the next one before the announcements still waiting; the announcements then all go, in
    order. Announcements went first and used the whole minute: after 32 matches were settled,
    /bracket came a minute later (issue 32). The minute's last slot is a decision's: the draw
    typed after that reply goes at once too, while a second reply waits (issue 40)."""
    clock = Clock()
    limiter = PriorityLimiter(chat_burst=100, clock=clock)
    sent: list[str] = []
    with at_priority(Priority.OWED):
        lines = [asyncio.create_task(request(limiter, sent, f"line {n}", GROUP)) for n in range(30)]
    await settle()
    owed = GROUP_SHARE[Priority.OWED]
    assert sent == [f"line {n}" for n in range(owed)]
    with at_priority(Priority.REPLY):
        assert await asyncio.wait_for(request(limiter, sent, "bracket", GROUP), 5) == "bracket"
        help_reply = asyncio.create_task(request(limiter, sent, "help", GROUP))
    await settle()
    assert "help" not in sent  # the replies' part of the minute is full
    with at_priority(Priority.DECISION):
        assert await asyncio.wait_for(request(limiter, sent, "draw", GROUP), 5) == "draw"
    await advance(limiter, clock, 60.0 + MARGIN)
    assert sent[owed + 2] == "help"  # the first slot to free is the reply's
    for _ in range(3):
        await advance(limiter, clock, 60.0 + MARGIN)
    await asyncio.gather(*lines, help_reply)
    assert [name for name in sent if name.startswith("line")] == [f"line {n}" for n in range(30)]


async def test_a_decision_goes_first_and_finds_room_after_a_rush_of_replies_and_refreshes() -> None:
    """A sign-up rush fills the group's minute with replies (invitations, acknowledgements) and
    refreshes (the card, the invitations' edits); the draw typed then goes before every one of
    them still queued, at once. It used to wait behind them at an announcement's share, which
    replies had filled: 45 s after /draw in the 000-E flow (issue 40)."""
    clock = Clock()
    limiter = PriorityLimiter(chat_burst=100, clock=clock)
    sent: list[str] = []
    with at_priority(Priority.REFRESH):
        edits = [asyncio.create_task(request(limiter, sent, f"edit {n}", GROUP)) for n in range(20)]
    await settle()
    with at_priority(Priority.REPLY):
        replies = [asyncio.create_task(request(limiter, sent, f"reply {n}", GROUP)) for n in range(10)]
    await settle()
    assert len(sent) == GROUP_SHARE[Priority.REPLY]
    with at_priority(Priority.DECISION):
        assert await asyncio.wait_for(request(limiter, sent, "draw", GROUP), 5) == "draw"
    for _ in range(4):
        await advance(limiter, clock, 60.0 + MARGIN)
    await asyncio.gather(*edits, *replies)
    assert sent.index("reply 9") < sent.index("edit 19")


async def test_a_429_holds_the_chat_and_the_request_is_sent_again() -> None:
    clock = Clock()
    limiter = PriorityLimiter(clock=clock)
    calls: list[str] = []

    async def refused_once() -> str:
        calls.append("try")
        if len(calls) == 1:
            raise RetryAfter(timedelta(seconds=7))
        return "sent"

    task = asyncio.create_task(
        limiter.process_request(refused_once, (), {}, "sendMessage", {"chat_id": GROUP}, None)
    )
    await settle()
    assert calls == ["try"] and not task.done()
    sent: list[str] = []
    await request(limiter, sent, "private", 5)  # another chat goes meanwhile
    assert sent == ["private"]
    await advance(limiter, clock, 3.0)
    assert not task.done()
    await advance(limiter, clock, 5.0)
    assert await task == "sent" and calls == ["try", "try"]
    assert limiter.retried == 1


async def test_a_group_takes_a_short_burst_then_about_one_a_second() -> None:
    clock = Clock()
    limiter = PriorityLimiter(chat_burst=3, clock=clock)
    sent: list[str] = []
    tasks = [asyncio.create_task(request(limiter, sent, f"m{n}", GROUP)) for n in range(5)]
    await settle()
    assert sent == ["m0", "m1", "m2"]
    await advance(limiter, clock, 1.0)
    assert sent == ["m0", "m1", "m2"]  # a whole message's refill, and the margin for arrival jitter
    await advance(limiter, clock, MARGIN)
    assert sent == ["m0", "m1", "m2", "m3"]
    await advance(limiter, clock, 1.0)  # then one a second: the margin is kept, not paid again
    assert sent == ["m0", "m1", "m2", "m3", "m4"]
    await asyncio.gather(*tasks)


async def test_a_groups_minute_keeps_a_margin_for_arrival_jitter() -> None:
    """A message counted when it left is counted by Telegram when it arrived: the 21st
    waits the minute plus the margin, so an early arrival of it is not a 429."""
    clock = Clock()
    limiter = PriorityLimiter(chat_burst=GROUP_LIMIT, clock=clock)
    sent: list[str] = []
    with at_priority(Priority.DECISION):  # the whole minute is a decision's
        first = [asyncio.create_task(request(limiter, sent, f"m{n}", GROUP)) for n in range(GROUP_LIMIT)]
        await settle()
        assert len(sent) == GROUP_LIMIT
        late = asyncio.create_task(request(limiter, sent, "late", GROUP))
        await advance(limiter, clock, 60.0)
        assert "late" not in sent
        await advance(limiter, clock, MARGIN)
        assert sent[-1] == "late"
    await asyncio.gather(*first, late)


@pytest.mark.parametrize(
    ("endpoint", "chat_id", "priority"),
    [
        ("answerCallbackQuery", None, Priority.ANSWER),
        ("getChatMember", None, Priority.ANSWER),
        ("editMessageMedia", 42, Priority.HAND),
        ("sendMessage", -1, Priority.REPLY),
        ("editMessageText", -1, Priority.REFRESH),
    ],
)
def test_a_request_without_a_priority_takes_its_kinds(
    endpoint: str, chat_id: int | None, priority: Priority
) -> None:
    assert default_priority(endpoint, chat_id) is priority


async def test_a_refresh_goes_when_it_comes_of_age_without_another_request_to_wake_the_queue() -> None:
    """The dispatcher looks again when a waiting refresh may take a reply's share; it slept
    until the group's whole minute had passed (a board edit waited 29 s instead of 15)."""
    limiter = PriorityLimiter(group_limit=5, aging=0.2)  # the real clock: a refresh's share is 1
    sent: list[str] = []
    with at_priority(Priority.REFRESH):
        await request(limiter, sent, "board", GROUP)
        await asyncio.wait_for(request(limiter, sent, "board again", GROUP), timeout=20)
    assert sent == ["board", "board again"]
    await limiter.shutdown()


async def test_promoted_refreshes_take_an_announcements_share() -> None:
    """A deal's result waits for its board's last edit: the board's waiting edit is promoted."""
    clock = Clock()
    limiter = PriorityLimiter(clock=clock)
    sent: list[str] = []
    with at_priority(Priority.REFRESH):
        for n in range(GROUP_SHARE[Priority.REFRESH]):
            await request(limiter, sent, f"edit {n}", GROUP)
            await advance(limiter, clock, 1.0)
        board = asyncio.create_task(request(limiter, sent, "board", GROUP))
        other = asyncio.create_task(request(limiter, sent, "other group", OTHER_GROUP))
    await settle()
    assert sent[-1] == "other group"
    limiter.promote(OTHER_GROUP, Priority.OWED)  # another chat's promotion changes nothing here
    await settle()
    assert "board" not in sent
    limiter.promote(GROUP, Priority.OWED)
    await settle()
    assert sent[-1] == "board"
    await asyncio.gather(board, other)


def count_looks(limiter: PriorityLimiter) -> list[int]:
    """From now on, the number of times the limiter checks a request against its limits."""
    looked = [0]
    wait = limiter._wait

    def counting(*args: Any, **kwargs: Any) -> float:
        looked[0] += 1
        return wait(*args, **kwargs)

    limiter._wait = counting  # type: ignore[method-assign]
    return looked


async def test_requests_held_by_their_groups_minute_are_not_looked_at_again_until_it_frees() -> None:
    """At 150 tables hundreds of board edits wait for their groups' minutes; looking at every one
    of them for each request that came in was a tenth of the event loop's time. A held request
    is parked until its limits could let it go, and still goes then."""
    clock = Clock()
    limiter = PriorityLimiter(token_limit=10_000, chat_burst=100, clock=clock)  # the minutes hold
    sent: list[str] = []
    groups = [-1000 - n for n in range(100)]
    boards = []
    with at_priority(Priority.REFRESH):
        for group in groups:  # each group's share of refreshes used up, one more waiting
            for n in range(GROUP_SHARE[Priority.REFRESH] + 1):
                boards.append(asyncio.create_task(request(limiter, sent, f"board {group} {n}", group)))
                await settle()
    looked = count_looks(limiter)
    clock.now += 1.0
    presses = [asyncio.create_task(request(limiter, sent, f"hand {n}", 5000 + n)) for n in range(20)]
    await settle()
    assert all(press.done() for press in presses)
    assert looked[0] < 3 * len(presses)  # not 20 × 100 parked boards
    await advance(limiter, clock, 60.0 + MARGIN)
    await settle()
    assert all(board.done() for board in boards)  # every held board went when its minute freed


async def test_while_the_tokens_second_is_full_waiting_messages_are_not_looked_at() -> None:
    """At the token's 30 a second every waiting message is held by it: each time its second
    freed, every one of them was looked at again (and held again) for the few that went; now
    they stay in line, and a release looks at those that go."""
    clock = Clock()
    limiter = PriorityLimiter(token_limit=2, clock=clock)
    sent: list[str] = []
    waiting = [asyncio.create_task(request(limiter, sent, f"hand {n}", 7000 + n)) for n in range(200)]
    await settle()
    assert len(sent) == 2
    looked = count_looks(limiter)
    await advance(limiter, clock, 1.0)
    assert len(sent) == 4
    assert looked[0] <= 3  # the two that went, not the 198 in line
    answer = asyncio.create_task(request(limiter, sent, "answer", None, "answerCallbackQuery"))
    await settle()
    assert answer.done()  # not a message: the full second does not hold it
    for _ in range(100):
        await advance(limiter, clock, 1.0)
    assert all(task.done() for task in waiting) and len(sent) == 201


async def test_after_a_429_a_private_chat_is_paced_so_what_waited_is_not_refused_again() -> None:
    """Requests kept back by a private chat's 429 leave one a second after the hold, not all at
    once: together they met the next 429 and, three refusals on, one was dropped."""
    clock = Clock()
    limiter = PriorityLimiter(clock=clock)
    private = 42
    sent: list[str] = []
    burst = [asyncio.create_task(request(limiter, sent, f"b{n}", private)) for n in range(3)]
    await settle()
    assert sent == ["b0", "b1", "b2"]  # a private chat is not paced before Telegram says so
    refused = [True]

    async def refused_once() -> str:
        if refused and refused.pop():
            raise RetryAfter(timedelta(seconds=1))
        sent.append("retried")
        return "retried"

    first = asyncio.create_task(
        limiter.process_request(refused_once, (), {}, "editMessageText", {"chat_id": private}, None)
    )
    await settle()
    kept = [asyncio.create_task(request(limiter, sent, f"k{n}", private)) for n in range(4)]
    await advance(limiter, clock, 1.1)
    assert len(sent) == 3  # the hold, then an empty bucket
    for n in range(5):
        await advance(limiter, clock, 1.0 + (MARGIN if n == 0 else 0.0))
        assert len(sent) == 4 + n, sent  # one a second (the margin kept, not paid again)
    assert sorted(sent[3:]) == ["k0", "k1", "k2", "k3", "retried"]
    await asyncio.gather(*burst, first, *kept)
    await advance(limiter, clock, PACED_AFTER_429 + 5)
    again = [asyncio.create_task(request(limiter, sent, f"a{n}", private)) for n in range(3)]
    await settle()
    assert sent[-3:] == ["a0", "a1", "a2"]  # a minute on, unpaced again
    await asyncio.gather(*again)


async def test_shutdown_stops_a_dispatcher_woken_in_the_same_turn() -> None:
    """A wake-up and the shutdown's cancel in one turn: Python 3.11's ``wait_for`` returned the
    wake-up and dropped the cancel, and shutdown waited for the held message to go (a group's
    minute) instead of dropping it."""
    limiter = PriorityLimiter(group_limit=1)  # the real clock: the second message waits a minute
    sent: list[str] = []
    await request(limiter, sent, "first", GROUP)
    held = asyncio.create_task(request(limiter, sent, "held", GROUP))
    await settle()
    limiter.wake()  # the dispatcher's wake-up is due, and in this same turn:
    shutdown = asyncio.create_task(limiter.shutdown())
    done, _ = await asyncio.wait({shutdown}, timeout=10)  # a minute without the fix
    assert shutdown in done
    await asyncio.gather(held, shutdown, return_exceptions=True)
    assert sent == ["first"]


async def test_a_message_holds_the_tokens_second_until_a_second_after_its_answer() -> None:
    """Telegram counts a message when it arrives, somewhere between its going and its answer:
    counted from its going, the next one went a second later and could arrive less than a
    second after it (a connection's wait, a slow network): 429 for the token's 30 a second."""
    clock = Clock()
    limiter = PriorityLimiter(token_limit=1, clock=clock)
    answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def slow() -> str:
        return await answered

    first = asyncio.create_task(
        limiter.process_request(slow, (), {}, "editMessageText", {"chat_id": 1}, None)
    )
    await settle()
    sent: list[str] = []
    second = asyncio.create_task(request(limiter, sent, "second", 2, "editMessageText"))
    await advance(limiter, clock, 1.5)
    assert sent == []  # the first has not arrived for sure: its answer is still on the way
    answered.set_result("first")
    assert await first == "first"
    await advance(limiter, clock, 0.9)
    assert sent == []  # its answer came back 0.9 s ago: it may have arrived just now
    await advance(limiter, clock, 0.1)
    assert sent == ["second"]
    await second


async def test_a_message_cancelled_after_its_turn_gives_the_tokens_second_back_a_second_on() -> None:
    """Let go, then cancelled before it left (a sender closing): it holds its place a second,
    not for ever, or the token's second would shrink by one message each time."""
    clock = Clock()
    limiter = PriorityLimiter(token_limit=1, clock=clock)
    sent: list[str] = []
    await request(limiter, sent, "first", 1)
    cancelled = asyncio.create_task(request(limiter, sent, "cancelled", 2))
    await settle()
    clock.now += 1.0
    limiter.wake()
    for _ in range(50):  # until the dispatcher lets it go; it has not run on yet
        await asyncio.sleep(0)
        if limiter.queued() == 0:
            break
    assert limiter.queued() == 0 and not cancelled.done()
    cancelled.cancel()
    await asyncio.gather(cancelled, return_exceptions=True)
    later = asyncio.create_task(request(limiter, sent, "later", 3))
    await settle()
    assert sent == ["first"]
    await advance(limiter, clock, 1.0)
    assert sent == ["first", "later"]
    await later
