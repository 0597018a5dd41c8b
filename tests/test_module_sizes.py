"""No production module grows past 800 lines (issue 41): a file that big does several jobs, and
the next change to it is a merge conflict waiting. Split it by role (docs/layers.md shows how
``engine/match.py``, ``engine/contest/contest.py``, ``app/table/tables.py`` and
``app/table/texts.py`` were split), never by cutting it in half."""

from __future__ import annotations

import ast

from tests.test_layers import modules, under

MAX_LINES = 800
MAX_HANDLER_LINES = 40
"""A handler parses, calls one app service, renders and answers (issue 41): four steps fit in
40 lines, counted from ``def`` to the function's last line, docstring included. Longer, it
holds a decision that belongs in ``app/`` or several steps that want names of their own."""


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


def long_functions(source: str, limit: int = MAX_HANDLER_LINES) -> list[str]:
    """Every function (methods and nested ones included) of ``source`` longer than ``limit`` lines."""
    return [
        f"{node.name} (line {node.lineno}): {length} lines"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := (node.end_lineno or node.lineno) - node.lineno + 1) > limit
    ]


def test_no_handler_function_over_40_lines() -> None:
    found = {
        name: lines
        for name, path in modules().items()
        if under(name, "handlers") and (lines := long_functions(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_function_walk_counts_from_def_to_the_last_line() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(39))
    fits = f"async def fits() -> None:\n{body}"  # 40 lines
    inner = "".join(f"        y{i} = {i}\n" for i in range(40))
    nested = f"def outer() -> None:\n    def inner() -> None:\n{inner}"  # 42 lines, 41 of them inner's
    assert long_functions(fits) == []
    assert long_functions(fits + "    x = 1\n") == ["fits (line 1): 41 lines"]
    assert [found.split(" ")[0] for found in long_functions(nested)] == ["outer", "inner"]
