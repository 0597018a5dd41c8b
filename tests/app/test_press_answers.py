"""Every answer to a press goes through :func:`handlers.platform.replies.answer`, which takes
Telegram's "query is too old" as the routine event it is (issue 32.5; the e2e test
``tests/e2e/test_late_answers_e2e.py`` shows what it changes). A handler calling
``query.answer`` itself would again stop at a late answer with a traceback."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELPER = ROOT / "handlers" / "platform" / "replies.py"
ANSWERS = ("answer", "answer_callback_query")


def own_answers(path: Path) -> list[int]:
    """The lines of ``path`` that answer a press without the helper (``x.answer(…)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ANSWERS
    ]


def test_only_the_helper_answers_presses() -> None:
    sources = [ROOT / "bot.py", *sorted((ROOT / "handlers").rglob("*.py"))]
    found = {str(p.relative_to(ROOT)): own_answers(p) for p in sources if p != HELPER}
    assert {path: lines for path, lines in found.items() if lines} == {}
    assert own_answers(HELPER)  # the check sees a call where there is one
