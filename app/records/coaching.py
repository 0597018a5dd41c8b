"""复盘点评 for the bot: a player's three costliest decisions of a deal, computed once, kept.

Judging a deal plays hundreds of rollouts (:mod:`players.coach`, 2–20 s of pure
Python on this machine's cores, ``bench/coaching.py``), so it is never done on the event
loop, nor in a thread: a thread holding the GIL that long would stall every table (see
:mod:`app.table.thinking`). It runs in a process of its own (one worker, started on the
first request, so a bot whose players never ask pays nothing), which also gives it the
second core. It is computed only when a player asks, once: the result is stored
(``coaching`` table) and kept in memory, so opening it again is instant; two presses for
the same deal while it is computed share one computation.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections import OrderedDict
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, Final

from app.records.replays import StoredMatch
from engine.serialize import play_from_json, play_to_json
from players.coach import Coaching, Decision, coach_deal
from storage import Database, NotFound

JUDGE: Final = "master-12+12-fresh-12+12-ahead65"
"""The judge a stored 点评 was made by (:mod:`players.coach` with its default budget):
changing the judge changes this, and older stored ones are computed anew when asked."""
KEPT: Final = 256  # 点评 kept in memory (a few hundred bytes each)

Key = tuple[int, int, int]  # (table id, deal, seat)


def coaching_to_json(coaching: Coaching) -> str:
    decisions = [
        {
            "trick": d.trick,
            "turn": d.turn,
            "played": play_to_json(d.played) if d.played else None,
            "suggested": play_to_json(d.suggested) if d.suggested else None,
            "cost": d.cost,
            "spread": d.spread,
            "ahead": d.ahead,
        }
        for d in coaching.decisions
    ]
    data = {"deal": coaching.deal, "seat": coaching.seat, "weighed": coaching.weighed, "decisions": decisions}
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def coaching_from_json(text: str) -> Coaching:
    data = json.loads(text)
    return Coaching(
        int(data["deal"]),
        int(data["seat"]),
        tuple(_decision(item) for item in data["decisions"]),
        int(data["weighed"]),
    )


def _decision(item: dict[str, Any]) -> Decision:
    played, suggested = item["played"], item["suggested"]
    return Decision(
        int(item["trick"]),
        int(item["turn"]),
        play_from_json(played) if played else None,
        play_from_json(suggested) if suggested else None,
        float(item["cost"]),
        float(item["spread"]),
        float(item.get("ahead", 1.0)),
    )


def judging_pool() -> ProcessPoolExecutor:
    """One worker process, spawned clean (forking a process with the bot's threads and event
    loop would copy their locks mid-use)."""
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


class Coach:
    """The 点评 of finished deals, by (table, deal, seat): from memory, storage or the judge."""

    def __init__(self, db: Database, pool: Executor | None = None) -> None:
        self.db = db
        self._pool = pool
        self._kept: OrderedDict[Key, Coaching] = OrderedDict()
        self._running: dict[Key, asyncio.Future[Coaching]] = {}

    async def stored(self, table_id: int, deal: int, seat: int) -> Coaching | None:
        """The 点评 if it was computed already (no judging here)."""
        key = (table_id, deal, seat)
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept
        try:
            text = await self.db.records.coaching(table_id=table_id, deal=deal, seat=seat, judge=JUDGE)
        except NotFound:
            return None
        return self._keep(key, coaching_from_json(text))

    def kept(self, table_id: int, deal: int, seat: int) -> Coaching | None:
        """The 点评 if this run has it in memory (no await: a press is answered after this)."""
        return self._kept.get((table_id, deal, seat))

    def running(self, table_id: int, deal: int, seat: int) -> bool:
        return (table_id, deal, seat) in self._running

    async def of(self, match: StoredMatch, deal: int, seat: int) -> Coaching:
        """The 点评 of ``seat`` for deal ``deal`` of ``match``: stored, or judged now (seconds)."""
        key = (match.table_id, deal, seat)
        found = await self.stored(*key)
        if found is not None:
            return found
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[Coaching] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            coaching = await self._judge(match, deal, seat)
            text = coaching_to_json(coaching)
            await self.db.records.put_coaching(
                table_id=match.table_id, deal=deal, seat=seat, judge=JUDGE, text=text
            )
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as error:
            future.set_exception(error)
            future.exception()  # retrieved: a second asker sees it, nobody else must
            raise
        finally:
            del self._running[key]
        future.set_result(self._keep(key, coaching))
        return coaching

    async def _judge(self, match: StoredMatch, deal: int, seat: int) -> Coaching:
        if self._pool is None:
            self._pool = judging_pool()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool, coach_deal, match.rules, match.seed, match.history, deal, seat
        )

    def _keep(self, key: Key, coaching: Coaching) -> Coaching:
        self._kept[key] = coaching
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return coaching

    def close(self) -> None:
        """The bot is stopping: the worker stops now, its judging (cancelled already) with it."""
        if self._pool is not None:
            stop_now(self._pool)
            self._pool = None


def stop_now(pool: Executor) -> None:
    """Shut ``pool`` down without waiting for the work under way: a process pool's workers are
    ended. ``shutdown(wait=False)`` alone returns at once, but the interpreter waits at exit for
    the judging under way, which the stopping bot no longer wants: a stop during a 点评 took as
    long as the judging (up to 40 s; ``docker stop`` kills after 10)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # Python 3.14: terminate_workers()
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
