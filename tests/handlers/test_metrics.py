"""The metrics hooks (common/metrics.py) where they are called: the hand-message sender, the
scheduler's 429s, the store and the update processor; and nothing is counted while the
metrics are off (no monitor serves them)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from prometheus_client import REGISTRY
from telegram import CallbackQuery, Update, User
from telegram.error import RetryAfter

import bot
from common import metrics
from handlers.platform.chats import ChatFairProcessor
from handlers.platform.monitor import MonitorConfig
from handlers.platform.scheduler import PriorityLimiter
from handlers.platform.sender import LatestWins
from storage import Database, StorageUnavailable
from tests.faults import StorageFault
from tests.handlers.test_scheduler import Clock, advance, settle


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def counting() -> Iterator[None]:
    metrics.switch_on()
    try:
        yield
    finally:
        metrics.switch_off()


def edit_counts() -> tuple[float, ...]:
    return tuple(value(f"guandan_edits_{what}_total") for what in ("queued", "sent", "superseded", "failed"))


def since(before: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(now - then for now, then in zip(edit_counts(), before, strict=True))


async def test_edits_queued_sent_and_superseded(counting: None) -> None:
    sender, gate = LatestWins(), asyncio.Event()

    async def held() -> None:
        await gate.wait()

    async def quick() -> None:
        return None

    async def broken() -> None:
        raise RuntimeError("refused")

    before = edit_counts()
    first = sender.submit("m", held)
    await asyncio.sleep(0)  # under way
    sender.submit("m", quick)  # replaced before it starts
    last = sender.submit("m", quick)
    gate.set()
    await asyncio.gather(first, last)
    await sender.submit("other", broken)
    await sender.join()
    assert since(before) == (4, 2, 1, 1)  # queued, sent, superseded, failed


async def test_a_429_is_counted_by_chat_kind_with_its_seconds(counting: None) -> None:
    clock = Clock()
    limiter = PriorityLimiter(clock=clock)
    refusals = [7, 3]

    async def refused_then_sent() -> str:
        if refusals:
            raise RetryAfter(timedelta(seconds=refusals.pop(0)))
        return "sent"

    group, seconds = (
        value("guandan_telegram_429_total", chat="group"),
        value("guandan_telegram_retry_after_seconds_total", chat="group"),
    )
    task = asyncio.create_task(
        limiter.process_request(refused_then_sent, (), {}, "sendMessage", {"chat_id": -100}, None)
    )
    await settle()
    for _ in range(3):
        await advance(limiter, clock, 8.0)
    assert await task == "sent"
    assert value("guandan_telegram_429_total", chat="group") - group == 2
    assert value("guandan_telegram_retry_after_seconds_total", chat="group") - seconds == 10
    await limiter.shutdown()


async def test_store_statements_are_timed_and_unavailable_ones_counted(
    counting: None, tmp_path: Path
) -> None:
    db = await Database.open(tmp_path / "g.db")
    try:
        timed, failed = value("guandan_store_seconds_count"), value("guandan_store_unavailable_total")
        await db.ping()
        fault = StorageFault("read_only", db, tmp_path / "g.db")
        await fault.on()
        with pytest.raises(StorageUnavailable):
            await db.ping()
        await fault.off()
        assert value("guandan_store_seconds_count") - timed == 2
        assert value("guandan_store_unavailable_total") - failed == 1
    finally:
        await db.close()


def press(data: str, chat_id: int = -100) -> Update:
    query = CallbackQuery("q", User(1, "A", False), chat_instance=str(chat_id), data=data)
    return Update(1, callback_query=query)


async def test_a_press_counts_once_however_it_ends(counting: None) -> None:
    processor = ChatFairProcessor(per_chat=1, backlog=0)
    kinds = ("hand", "unanswered"), ("hand", "answered"), ("hand", "dropped")
    before = {kind: value("guandan_presses_total", kind=kind[0], outcome=kind[1]) for kind in kinds}
    await processor.do_process_update(press("h:1"), asyncio.sleep(0))  # never answered
    held = asyncio.Event()

    async def answered_then_held() -> None:
        metrics.press_answered(alert=False)
        await held.wait()

    running = asyncio.create_task(processor.do_process_update(press("h:2"), answered_then_held()))
    await asyncio.sleep(0)
    await processor.do_process_update(press("h:3"), asyncio.sleep(0))  # its chat is full: dropped
    held.set()
    await running
    assert {
        kind: value("guandan_presses_total", kind=kind[0], outcome=kind[1]) - before[kind] for kind in kinds
    } == {kind: 1 for kind in kinds}


async def test_nothing_is_counted_while_the_metrics_are_off(tmp_path: Path) -> None:
    assert not metrics.counting()
    before, pressed = edit_counts(), value("guandan_presses_total", kind="hand", outcome="unanswered")
    sender = LatestWins()

    async def quick() -> None:
        return None

    await sender.submit("m", quick)
    await ChatFairProcessor().do_process_update(press("h:1"), asyncio.sleep(0))
    assert since(before) == (0, 0, 0, 0)
    assert value("guandan_presses_total", kind="hand", outcome="unanswered") == pressed


@pytest.mark.parametrize("setting", ["abc", "0", "70000", "-1"])
def test_a_metrics_port_that_is_no_port_stops_the_start_with_a_plain_message(
    setting: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "1:TEST")
    monkeypatch.delenv("TELEGRAM_WEBHOOK_URL", raising=False)
    monkeypatch.setenv("GUANDAN_METRICS_PORT", setting)
    assert bot.main([]) == 2
    assert f"GUANDAN_METRICS_PORT={setting!r} is not a port number" in capsys.readouterr().err


def test_the_monitor_listens_where_the_environment_says() -> None:
    assert MonitorConfig.from_env({}) is None
    assert MonitorConfig.from_env({"GUANDAN_METRICS_PORT": " "}) is None
    assert MonitorConfig.from_env({"GUANDAN_METRICS_PORT": "9108"}) == MonitorConfig(9108, "127.0.0.1")
    docker = {"GUANDAN_METRICS_PORT": "9108", "GUANDAN_METRICS_LISTEN": "0.0.0.0"}
    assert MonitorConfig.from_env(docker) == MonitorConfig(9108, "0.0.0.0")


ANSWERS = [(200, True), (400, True), (403, True), (429, True), (401, False), (404, False), (409, False)]


@pytest.mark.parametrize(("status", "fine"), [*ANSWERS, (502, False)])
def test_the_health_check_takes_a_refused_token_or_a_5xx_for_telegram_down(status: int, fine: bool) -> None:
    metrics.telegram_answered(200)
    metrics.telegram_answered(status)
    assert metrics.TELEGRAM.fine(within=60) is fine
    metrics.telegram_answered(200)
