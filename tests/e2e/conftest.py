"""Fixtures for the end-to-end tests: one emulator per session, one bot token per test."""

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
