"""复盘点评 in the app: judged once in the judge's process, stored on a real SQLite file and read
back by the next run, two askers share one judging, and the replay picture marks the decisions."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing.process import BaseProcess
from typing import Any

import pytest

from app.records import texts, views
from app.records.coaching import Coach, coaching_from_json, coaching_to_json, judging_pool, stop_now
from app.records.replays import Replays
from emulator.client import wait_for
from engine.review import frames, review
from players.coach import Coaching, Decision
from render.records import render_review
from storage import Database
from tests.records.support import SHORT, played, store_match
from tests.render.helpers import assert_matches_golden

PEOPLE: list[tuple[int | None, str]] = [(11, "Alice"), (None, "AI"), (13, "Carol"), (None, "AI")]


@pytest.fixture
async def db(store: str):
    """The store on both backends (the 点评's two statements: an upsert and a read)."""
    database = await Database.open(store)
    yield database
    await database.close()


class CountingPool(ThreadPoolExecutor):
    """A thread pool that counts the judgings handed to it."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.submitted = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


def marked() -> Coaching:
    """A 点评 of Alice's (north's) first deal of seed 3, worked by hand: her first two plays
    that followed, each where the master would have passed."""
    deal = review(SHORT, 3, played(SHORT, 3).history)[0]
    follows = [
        (trick, turn, play)
        for trick, record in enumerate(deal.tricks)
        for turn, (seat, play) in enumerate(record.turns)
        if seat == 0 and turn > 0 and play is not None
    ]
    (t1, n1, p1), (t2, n2, p2) = follows[:2]
    return Coaching(0, 0, (Decision(t1, n1, p1, None, 1.25, 0.0), Decision(t2, n2, p2, None, 0.5, 0.2)), 17)


def test_a_coaching_survives_its_json() -> None:
    coaching = marked()
    assert coaching_from_json(coaching_to_json(coaching)) == coaching


async def test_judged_once_stored_and_read_back_by_the_next_run(db: Database) -> None:
    match = played(SHORT, 5)
    table_id = await store_match(db, match, chat_id=-7101, people=PEOPLE)
    stored = await Replays(db).load(table_id)
    coach = Coach(db)  # its own process, as in the bot
    try:
        assert await coach.stored(table_id, 0, 2) is None
        coaching = await coach.of(stored, 0, 2)
    finally:
        coach.close()
    assert coaching.seat == 2 and coaching.deal == 0 and coaching.weighed > 5
    assert all(d.cost > 0 for d in coaching.decisions)
    next_run = Coach(db, CountingPool())
    assert await next_run.stored(table_id, 0, 2) == coaching
    assert await next_run.of(stored, 0, 2) == coaching
    assert await next_run.stored(table_id, 1, 2) is None  # another deal: not judged yet


async def test_two_askers_share_one_judging(db: Database) -> None:
    table_id = await store_match(db, played(SHORT, 6), chat_id=-7102, people=PEOPLE)
    stored = await Replays(db).load(table_id)
    pool = CountingPool()
    coach = Coach(db, pool)
    try:
        first, second = await asyncio.gather(coach.of(stored, 0, 0), coach.of(stored, 0, 0))
    finally:
        coach.close()
    assert first == second and pool.submitted == 1
    assert coach.kept(table_id, 0, 0) == first and not coach.running(table_id, 0, 0)


async def test_a_stop_ends_the_judging_under_way_instead_of_waiting_for_it() -> None:
    """The interpreter waits at exit for a process pool's work under way: a bot stopped during
    a 点评 lingered for the whole judging. A minute's work is ended at once."""
    pool = judging_pool()
    judging = asyncio.get_running_loop().run_in_executor(pool, time.sleep, 60)
    workers = await wait_for(lambda: _started(pool), what="the worker")
    judging.cancel()
    stop_now(pool)
    await wait_for(lambda: _ended(workers), timeout=20, what="the worker to end")
    assert [worker.exitcode for worker in workers] == [-signal.SIGTERM]


async def _started(pool: ProcessPoolExecutor) -> list[BaseProcess] | None:
    workers = list((getattr(pool, "_processes", None) or {}).values())
    return workers if workers and all(worker.is_alive() for worker in workers) else None


async def _ended(workers: list[BaseProcess]) -> bool:
    return not any(worker.is_alive() for worker in workers)


def test_the_replay_marks_the_decisions_and_shows_the_masters_play() -> None:
    """Seed 3's second trick with a 点评 of two of Alice's follows in it (viewed at 360 px on a
    phone): ① and ② outlined, the master's 不出 on gold under each; the caption names both."""
    match = played(SHORT, 3)
    deals = review(SHORT, 3, match.history)
    steps = frames(deals)
    names = ["Alice", "Bob", "Carol", "电脑"]
    coaching = marked()
    marks = views.marked_steps(steps, coaching)
    assert [(steps[i].deal, steps[i].trick) for i in marks] == [(0, 1)]  # both in one trick: one step
    view = views.review_view(7, deals, steps, marks[0], names, "zh", coaching)
    mark_rows = [row for row in view.rows if row.mark]
    assert [row.mark for row in mark_rows] == ["①", "②"]
    after = view.rows[view.rows.index(mark_rows[0]) + 1]
    assert (
        after.suggested
        and after.label == "大师会出"
        and after.note.startswith("不出")
        and "1.3" in after.note  # 1.25, rounded half up
    )
    plain = views.review_view(7, deals, steps, marks[0], names, "zh")
    assert len(view.rows) == len(plain.rows) + 2 and not any(row.mark or row.suggested for row in plain.rows)
    caption = views.coaching_caption(deals[0], coaching, names, "zh")
    assert "① 第 2 墩 · 你：对子" in caption and "② 第 2 墩" in caption and "约差 1.3 级/副" in caption
    assert "大师：不出" in caption and "只有两个决定有明显差别（推演了你的 17 个决定）" in caption
    english = views.coaching_caption(deals[0], coaching, names, "en")
    assert "① Trick 2" in english and "the master: Pass" in english
    assert "Only two of your decisions made a clear difference" in english
    assert_matches_golden("replay_coached_trick", render_review(view))


def test_prices_are_printed_rounded_half_up() -> None:
    """A price is shown to one decimal, a half rounded up: 0.25 is "0.3", never "0.2"."""
    costs = (0.25, 0.35, 0.75, 1.25, 2.0, 0.2499, 11 / 12)
    assert [texts.levels_text(cost) for cost in costs] == ["0.3", "0.4", "0.8", "1.3", "2.0", "0.2", "0.9"]


def test_an_unsure_judgement_gives_no_price_and_says_so() -> None:
    """Three marks, one priced within its noise: that one is “probably better”, with no figure;
    the sure ones keep theirs, and three marks need no “only”."""
    deal = review(SHORT, 3, played(SHORT, 3).history)[0]
    sure = marked().decisions
    unsure = Decision(sure[1].trick + 1, 0, None, sure[1].played, 0.4, 0.5)
    assert sure[0].sure and sure[1].sure and not unsure.sure
    coaching = Coaching(0, 0, (*sure, unsure), 17)
    names = ["Alice", "Bob", "Carol", "电脑"]
    caption = views.coaching_caption(deal, coaching, names, "zh")
    assert caption.count("约差") == 2 and "约差 0.5 级/副" in caption
    assert f"③ 第 {unsure.trick + 1} 墩 · 你：不出 · 大师：" in caption
    assert "（可能更好，把握不大）" in caption
    assert "“可能更好”" in caption and "只有" not in caption
    english = views.coaching_caption(deal, coaching, names, "en")
    assert "probably better (not sure)" in english and english.count("levels a deal better") == 2
