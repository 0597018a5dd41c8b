"""What an operator watches: the bot's Prometheus metrics and what its health check reads.

The code calls the small functions here at the few places where something worth counting
happens: the update processor (a press received, and how it ended), the Bot API transport
(every request's outcome, a press's answer), the scheduler (429s), the hand-message sender
(edits), the table service (tables admitted and refused), the thinking lanes and the store
(every statement's time). The metrics are prometheus_client's, in its default registry, whose
process collector adds ``process_start_time_seconds`` and the process's CPU and memory;
``handlers/platform/monitor.py`` serves them at ``/metrics`` and ``/healthz`` when
``GUANDAN_METRICS_PORT`` is set, and only then are they counted (:func:`switch_on`): unserved,
every hook returns at once. docs/operations.md lists them with their meaning.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from importlib import metadata

from prometheus_client import Counter, Gauge, Histogram, Info

_on = False


def switch_on() -> None:
    """Count from now on (the monitor serves what is counted); process-wide."""
    global _on
    _on = True


def switch_off() -> None:
    """Stop counting (tests and benches that started and stopped a monitor)."""
    global _on
    _on = False


def counting() -> bool:
    return _on


# ---------------------------------------------------------------- presses

PRESS_KINDS = {"h": "hand", "l": "lobby", "s": "stop", "k": "contest", "r": "records"}
"""A button's kind by the first field of its callback data (``app.table.callback_data`` and the
features' own prefixes); any other data is ``other``."""

PRESSES = Counter(
    "guandan_presses",
    "Button presses (callback queries) by kind, counted once when their handling ends: answered,"
    " refused (answered with an alert), unanswered, or dropped (the chat flooded)",
    ["kind", "outcome"],
)
PRESS_SECONDS = Histogram(
    "guandan_press_answer_seconds",
    "From a press's arrival to Telegram's acceptance of its answer, by kind",
    ["kind"],
    buckets=(0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 1.5, 2.5, 5.0, 10.0),
)


@dataclass(slots=True)
class Press:
    """One press being handled: when it arrived and how its answer went."""

    kind: str
    received: float
    answered: float | None = None
    alert: bool = False
    dropped: bool = False  # never handled: its chat had too many updates waiting


_PRESS: ContextVar[Press | None] = ContextVar("metrics_press", default=None)


def press_received(data: str | None) -> Press | None:
    """A callback query arrived (``data``: its callback data); call in the update's own task."""
    if not _on:
        return None
    press = Press(PRESS_KINDS.get((data or "").partition(":")[0], "other"), time.monotonic())
    _PRESS.set(press)
    return press


def press_answered(alert: bool) -> None:
    """Telegram accepted an ``answerCallbackQuery`` of the current task's press."""
    press = _PRESS.get()
    if press is not None and press.answered is None:
        press.answered = time.monotonic()
        press.alert = alert
        PRESS_SECONDS.labels(press.kind).observe(press.answered - press.received)


def press_ended(press: Press | None) -> None:
    """The press's handling is over, however it went: count it once."""
    if press is None:
        return
    if press.dropped:
        outcome = "dropped"
    elif press.answered is None:
        outcome = "unanswered"
    else:
        outcome = "refused" if press.alert else "answered"
    PRESSES.labels(press.kind, outcome).inc()


# ---------------------------------------------------------------- Telegram

TELEGRAM_REQUESTS = Counter(
    "guandan_telegram_requests",
    "Bot API requests by outcome: answered (a 400, 403 or 429 included) or failed (no answer, a"
    " timeout, a 5xx, or 401, 404, 409: a refused token or another process polling it)",
    ["outcome"],
)
RATE_LIMITED = Counter(
    "guandan_telegram_429",
    "429 Too Many Requests answers, by the kind of chat the request was for (group, private, or bot:"
    " not tied to a chat)",
    ["chat"],
)
RETRY_AFTER = Counter(
    "guandan_telegram_retry_after_seconds",
    "Seconds Telegram's 429s asked the bot to hold, by chat kind",
    ["chat"],
)
REQUESTS_WAITING = Gauge(
    "guandan_scheduler_waiting", "Bot API requests waiting in the scheduler for Telegram's limits"
)


@dataclass(slots=True)
class Reach:
    """How the latest request to a service went (``time.monotonic()`` moments): what the
    health check reads. Recorded even while metrics are not counted."""

    answered_at: float = float("-inf")
    failed_at: float = float("-inf")
    reason: str = ""

    def answered(self) -> None:
        self.answered_at = time.monotonic()

    def failed(self, reason: str) -> None:
        self.failed_at = time.monotonic()
        self.reason = reason

    def fine(self, within: float) -> bool:
        """The latest request was answered, at most ``within`` seconds ago."""
        return self.answered_at >= self.failed_at and time.monotonic() - self.answered_at <= within


TELEGRAM = Reach()
"""The Bot API as the transport last found it."""


BROKEN = {
    401: "the bot's token was refused (401 Unauthorized)",
    404: "the bot's token is unknown to Telegram (404 Not Found)",
    409: "another process uses this token (409 Conflict)",
}
"""Answers that mean the bot cannot work at all, unlike a refused edit (400) or a blocked
player (403): its token is wrong or revoked, or another instance polls it."""


def telegram_answered(status: int) -> None:
    """The Bot API answered a request with HTTP ``status``."""
    if status >= 500 or status in BROKEN:
        telegram_failed(BROKEN.get(status, f"HTTP {status}"))
        return
    TELEGRAM.answered()
    if _on:
        TELEGRAM_REQUESTS.labels("answered").inc()


def telegram_failed(reason: str) -> None:
    """A request got no usable answer (refused connection, timeout, 5xx)."""
    TELEGRAM.failed(reason)
    if _on:
        TELEGRAM_REQUESTS.labels("failed").inc()


def chat_kind(chat_id: int | None) -> str:
    if chat_id is None:
        return "bot"
    return "group" if chat_id < 0 else "private"


def rate_limited(chat_id: int | None, seconds: float) -> None:
    """Telegram answered 429: hold ``chat_id`` (None: the whole token) ``seconds``."""
    if _on:
        kind = chat_kind(chat_id)
        RATE_LIMITED.labels(kind).inc()
        RETRY_AFTER.labels(kind).inc(seconds)


# ---------------------------------------------------------------- hand-message edits

EDITS_QUEUED = Counter("guandan_edits_queued", "Hand-message edits queued for sending")
EDITS_SENT = Counter("guandan_edits_sent", "Hand-message edits sent (Telegram answered)")
EDITS_SUPERSEDED = Counter(
    "guandan_edits_superseded", "Hand-message edits dropped unsent: a newer look of the message replaced them"
)
EDITS_FAILED = Counter("guandan_edits_failed", "Hand-message edits Telegram refused or never answered")


def edit_queued() -> None:
    if _on:
        EDITS_QUEUED.inc()


def edit_superseded() -> None:
    if _on:
        EDITS_SUPERSEDED.inc()


def edit_done(failed: bool) -> None:
    if _on:
        (EDITS_FAILED if failed else EDITS_SENT).inc()


# ---------------------------------------------------------------- tables and thinking

TABLES_OPEN = Gauge("guandan_tables_open", "Lobbies and matches open now (what the capacity is spent on)")
TABLES_ADMITTED = Counter("guandan_tables_admitted", "Tables opened (/newgame, contest tables)")
TABLES_REFUSED = Counter(
    "guandan_tables_refused", "/newgame refused because the bot is at its capacity (GUANDAN_MAX_TABLES)"
)
THINKING = Gauge(
    "guandan_thinking_queued",
    "Work waiting for or running in a thinking lane (hints, computer players' moves, searches)",
    ["lane"],
)


def table_opened(admitted: bool) -> None:
    if _on:
        (TABLES_ADMITTED if admitted else TABLES_REFUSED).inc()


@contextmanager
def thinking(lane: str) -> Iterator[None]:
    """Around one piece of work in ``lane``, from its submission to its result."""
    if not _on:
        yield
        return
    gauge = THINKING.labels(lane)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def watch(*, open_tables: Callable[[], int], waiting: Callable[[], int] | None) -> None:
    """Read the gauges of live state from the bot's own counts when scraped."""
    TABLES_OPEN.set_function(open_tables)
    if waiting is not None:
        REQUESTS_WAITING.set_function(waiting)


# ---------------------------------------------------------------- store

STORE_SECONDS = Histogram(
    "guandan_store_seconds",
    "One statement's time, from its call to its result (waiting for the database thread included)",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
STORE_UNAVAILABLE = Counter(
    "guandan_store_unavailable",
    "Statements that failed because the store was unavailable (locked, read-only, full, I/O error)",
)


def store_answered(started: float, unavailable: bool) -> None:
    """A statement that started at ``started`` (``time.perf_counter()``) is over."""
    if _on:
        STORE_SECONDS.observe(time.perf_counter() - started)
        if unavailable:
            STORE_UNAVAILABLE.inc()


# ---------------------------------------------------------------- the build

BUILD = Info("guandan_build", "The running bot's version")


def version() -> str:
    try:
        return metadata.version("guandan-bot")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


BUILD.info({"version": version()})
