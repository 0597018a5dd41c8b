"""Fixtures for the end-to-end tests: one emulator per session, one bot token per test."""

import gc
import logging
from collections.abc import AsyncIterator, Iterator
from uuid import uuid4

import pytest

from emulator.client import Emulator, Telegram


@pytest.fixture(scope="session")
def emulator() -> Iterator[Emulator]:
    """The Bot API emulator on a free loopback port, for the whole test session."""
    running = Emulator.start()
    yield running
    running.stop()


@pytest.fixture
def token() -> str:
    """A fresh bot token: the emulator keeps updates and messages apart per token."""
    return f"{uuid4().int % 10**9}:TEST{uuid4().hex}"


@pytest.fixture
async def telegram(emulator: Emulator, token: str) -> AsyncIterator[Telegram]:
    """The users' side of the emulator for this test's bot token."""
    async with Telegram(emulator, token) as users:
        yield users


class _Unclosed(logging.Handler):
    """asyncio's "Unclosed client session" and the like, logged when garbage is collected."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Unclosed"):
            self.found.append(record.getMessage().splitlines()[0])


@pytest.fixture(autouse=True)
def closes_its_sessions() -> Iterator[None]:
    """A test that leaves an HTTP session open fails itself, not the test that runs when the
    garbage collector finds the session (CI once failed an innocent test that asserts on its
    error log)."""
    gc.collect()
    unclosed = _Unclosed()
    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addHandler(unclosed)
    try:
        yield
        gc.collect()
    finally:
        asyncio_log.removeHandler(unclosed)
    assert not unclosed.found, f"left open: {unclosed.found}"
