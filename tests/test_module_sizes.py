"""No production module grows past 800 lines (issue 41): a file that big does several jobs, and
the next change to it is a merge conflict waiting. Split it by role (docs/layers.md shows how
``engine/match.py``, ``engine/contest/contest.py``, ``app/table/tables.py`` and
``app/table/texts.py`` were split), never by cutting it in half."""

from __future__ import annotations

from tests.test_layers import modules

MAX_LINES = 800


def oversized() -> list[str]:
    """Every module of engine, app, handlers, storage, render and tools over :data:`MAX_LINES`."""
    found = []
    for name, path in modules().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{name}: {lines} lines")
    return found


def test_the_walk_sees_the_production_packages() -> None:
    names = modules()
    assert {
        "engine.match",
        "app.table.tables",
        "handlers.platform.replies",
        "storage",
        "render.words",
    } <= set(names)
    assert any(name.startswith("tools.") for name in names)


def test_no_module_over_800_lines() -> None:
    assert oversized() == []
