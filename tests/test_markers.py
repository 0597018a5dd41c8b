"""The path lists that mark tests (tests/conftest.py) name files that exist: a test file moved or
renamed would otherwise silently lose its ``calendar`` run 400 days ahead, or run beside others
when its bounds need the machine to itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CALENDAR_TESTS, SERIAL_TESTS

ROOT = Path(__file__).resolve().parent.parent


def existing_test_files() -> list[str]:
    return [path.relative_to(ROOT).as_posix() for path in sorted((ROOT / "tests").rglob("test_*.py"))]


@pytest.mark.parametrize("prefix", CALENDAR_TESTS + SERIAL_TESTS)
def test_every_marked_path_names_test_files(prefix: str) -> None:
    assert any(path.startswith(prefix) for path in existing_test_files()), f"{prefix} names no test file"
