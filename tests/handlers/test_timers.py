"""Turn clocks: which seats get one, for how long, and the match clock of timed formats."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.table.settings import rules_from_args
from app.table.tables import TableService
from engine.match import observe
from handlers.table import flow, timers
from players.easy import timeout_action
from storage import Database


@dataclass
class FakeJob:
    name: str
    when: float
    data: Any
    removed: bool = False

    def schedule_removal(self) -> None:
        self.removed = True


@dataclass
class FakeScheduled:
    """The scheduler's side of a job: PTB keeps its Job as the second argument."""

    args: tuple[Any, FakeJob]


@dataclass
class FakeJobQueue:
    """Records clocks like JobQueue over APScheduler: one job per id, a new one replaces it."""

    jobs: list[FakeJob] = field(default_factory=list)

    @property
    def scheduler(self) -> FakeJobQueue:
        return self

    def get_job(self, job_id: str) -> FakeScheduled | None:
        live = [job for job in self.jobs if job.name == job_id and not job.removed]
        return FakeScheduled((self, live[-1])) if live else None

    def run_once(
        self, callback: Any, when: float, data: Any = None, name: str = "", job_kwargs: Any = None
    ) -> FakeJob:
        assert job_kwargs == {"id": name, "replace_existing": True}
        for old in self.jobs:
            old.removed = old.removed or old.name == name
        job = FakeJob(name, when, data)
        self.jobs.append(job)
        return job

    def live(self) -> dict[str, float]:
        return {job.name: job.when for job in self.jobs if not job.removed}


@pytest.fixture
async def service(tmp_path: Path):
    db = await Database.open(tmp_path / "t.db")
    yield TableService(db, new_seed=lambda: 9)
    await db.close()


async def _started(service: TableService, *args: str, humans: int = 2):
    _, rules = rules_from_args(["wechat-6-deals", "points_deals=2", *args])
    table = await service.create(chat_id=-1, creator_id=1, preset="x", rules=rules)
    for seat in range(4):
        if seat < humans:
            await service.take_seat(table, seat=seat, user_id=10 + seat, name=f"H{seat}", locale=None)
        else:
            await service.add_ai(table, seat=seat, name=f"AI{seat}")
    await service.start(table)
    return table


async def test_the_human_to_act_gets_the_turn_limit(service: TableService) -> None:
    table = await _started(service, "turn_seconds=20", "first_turn_seconds=45")
    queue = FakeJobQueue()
    timers.rearm(queue, table, flow.CLOCKS)  # type: ignore[arg-type]
    seat = table.match.to_act[0]
    assert queue.live() == {timers.job_name(table.id, seat): 45, timers.warn_name(table.id, seat): 35}
    await service.act(table, seat=seat, action=timeout_action(observe(table.match, seat)))
    timers.rearm(queue, table, flow.CLOCKS)  # type: ignore[arg-type]
    seat = table.match.to_act[0]
    assert queue.live() == {timers.job_name(table.id, seat): 20, timers.warn_name(table.id, seat): 14}


def test_one_warning_before_the_clock_and_none_on_a_short_clock() -> None:
    """One edit of the hand message 10 s before the clock (a third of a short one), not a
    countdown: the private chat takes about one message a second."""
    assert [timers.warning_lead(s) for s in (2, 3, 6, 20, 30, 600)] == [0, 1, 2, 6, 10, 10]


async def test_no_clock_for_bots_or_when_the_referee_keeps_time(service: TableService) -> None:
    table = await _started(service, "timeout_action=none")
    queue = FakeJobQueue()
    timers.rearm(queue, table, flow.CLOCKS)  # type: ignore[arg-type]
    assert queue.live() == {}
    await service.set_autoplay(table, seat=0, on=True)
    await service.set_autoplay(table, seat=1, on=True)
    assert table.match.is_over
    timers.rearm(queue, table, flow.CLOCKS)  # type: ignore[arg-type]
    assert queue.live() == {}


async def test_timed_match_arms_its_clock_once(service: TableService) -> None:
    table = await _started(service, "time_limit_minutes=30")
    queue = FakeJobQueue()
    timers.rearm(queue, table, flow.CLOCKS)  # type: ignore[arg-type]
    timers.rearm(queue, table, flow.CLOCKS)  # type: ignore[arg-type]
    clocks = [job for job in queue.jobs if job.name == timers.clock_name(table.id) and not job.removed]
    assert len(clocks) == 1 and 29 * 60 < clocks[0].when <= 30 * 60
