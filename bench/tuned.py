"""The bot as ``python bot.py`` runs it, for the benchmarks: :func:`bot.build_application` and
:func:`bot.open_services` with the process-wide settings ``main()`` makes (glibc's malloc arenas
capped before any thread starts, the GIL's switch interval shortened, the heap frozen once the
services are open). The library functions leave the process alone (tests and embeddings get a
plain library); a benchmark that measures the bot as it runs in production imports these two instead.
"""

from __future__ import annotations

from typing import Any

import bot
from bot import App


def build_application(token: str, **options: Any) -> App:
    """:func:`bot.build_application`, malloc arenas capped first (as ``main()`` does)."""
    bot.tune_malloc()
    bot.prefer_the_loop()
    return bot.build_application(token, **options)


async def open_services(app: App, **options: Any) -> None:
    """:func:`bot.open_services`, then the heap settled (as ``main()``'s ``after_open`` does)."""
    await bot.open_services(app, **options)
    bot.settle_heap()
