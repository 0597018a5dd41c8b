"""The pure players' lanes (app.table.thinking): none waiting on another, quick moves not on each other."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from app.table.thinking import Lane, Thinking


async def test_a_hint_and_a_quick_move_go_on_while_a_search_holds_its_lane() -> None:
    thinking = Thinking()
    release = threading.Event()
    try:
        search = asyncio.ensure_future(thinking.run(Lane.SEARCHES, release.wait, 30))
        assert await thinking.run(Lane.HINTS, threading.current_thread) is not None
        move_thread = await thinking.run(Lane.MOVES, threading.current_thread)
        hint_thread = await thinking.run(Lane.HINTS, threading.current_thread)
        assert not search.done()
        release.set()
        assert await search is True
    finally:
        release.set()
        await thinking.close()
    assert move_thread.name.startswith("moves") and hint_thread.name.startswith("hints")


async def test_a_one_thread_lane_is_a_queue_in_order() -> None:
    """提示's lane runs its work one at a time, in the order asked."""
    thinking = Thinking()
    order: list[int] = []
    try:
        await asyncio.gather(*(thinking.run(Lane.HINTS, order.append, n) for n in range(20)))
        threads = {await thinking.run(Lane.HINTS, threading.get_ident) for _ in range(5)}
    finally:
        await thinking.close()
    assert order == list(range(20))
    assert len(threads) == 1


async def test_a_quick_move_goes_on_beside_another_tables_slow_one() -> None:
    """Quick moves have two threads: one table's slow 标准 decision does not hold another's."""
    thinking = Thinking()
    release = threading.Event()
    try:
        slow = asyncio.ensure_future(thinking.run(Lane.MOVES, release.wait, 10))
        await asyncio.sleep(0)  # the slow move is handed to its lane first
        quick = await thinking.run(Lane.MOVES, threading.current_thread)
        assert not slow.done() and quick.name.startswith("moves")
        release.set()
        assert await slow is True
    finally:
        release.set()
        await thinking.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux scheduling policies")
async def test_lanes_think_as_batch_threads_and_leave_the_event_loop_alone() -> None:
    """Woken with work, a lane's thread must not preempt the event loop (SCHED_BATCH);
    the loop's own thread keeps the normal policy."""
    thinking = Thinking()
    try:
        policies = {lane: await thinking.run(lane, os.sched_getscheduler, 0) for lane in Lane}
    finally:
        await thinking.close()
    assert set(policies.values()) == {os.SCHED_BATCH}
    assert os.sched_getscheduler(0) == os.SCHED_OTHER
