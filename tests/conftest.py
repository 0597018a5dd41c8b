"""The suite's markers.

``calendar``: tests that read dates, deadlines or clocks. CI runs them a second time under
libfaketime 400 days ahead (``scripts/calendar-check.sh``), so a test that holds a calendar
date the real calendar will overtake fails the day it is written, not months later.
"""

from __future__ import annotations

import pytest

CALENDAR_TESTS = (
    "tests/engine/contest/",
    "tests/storage/test_contest",
    "tests/storage/test_table_health_migration.py",
    "tests/handlers/test_contest_",
    "tests/handlers/test_timers.py",
    "tests/handlers/test_chats.py",
    "tests/handlers/test_storage_faults.py",
    "tests/handlers/test_table_service.py",
    "tests/e2e/test_contest_",
    "tests/e2e/test_departures_e2e.py",
    "tests/e2e/test_storage_faults_e2e.py",
)
"""Where the tests that depend on dates and clocks live (by path prefix, from the repository)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "calendar: reads dates or clocks; run again 400 days ahead in CI")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        where = item.path.relative_to(root).as_posix()
        if where.startswith(CALENDAR_TESTS):
            item.add_marker(pytest.mark.calendar)
