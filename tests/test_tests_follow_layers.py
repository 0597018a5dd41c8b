"""The tests and benchmarks keep to their rooms (issue 41): ``tests/app`` tests the app services
without Telegram, so nothing there imports ``handlers`` or ``telegram``; and nothing under
``bench/`` imports ``tests``, so the benchmarks' support lives where both can use it
(``emulator/``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file, by its top-level package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def offenders(folder: str, banned: set[str]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {sorted(imports(path) & banned)}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        if imports(path) & banned
    ]


def test_the_app_tests_use_no_telegram() -> None:
    assert len(list((ROOT / "tests" / "app").glob("test_*.py"))) >= 19
    assert offenders("tests/app", {"handlers", "telegram"}) == []


def test_no_benchmark_imports_the_tests() -> None:
    assert offenders("bench", {"tests"}) == []


def test_an_import_of_a_banned_package_is_found(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text("def f():\n    from telegram import Bot\n    import tests.postgresql\n")
    assert imports(module) >= {"telegram", "tests"}
