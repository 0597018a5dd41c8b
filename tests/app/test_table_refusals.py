"""Every table refusal has its own text in both languages, the old string codes still find it,
and no code falls back to a generic sentence (issue 41)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app.table.refusals import SettingRefusal, TableRefusal
from app.table.settings import SettingProblem
from app.table.texts import _, error_text, refusal_text, setting_problem_text
from engine.rules import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
HAN = re.compile(r"[\u4e00-\u9fff]")
GENERIC = {locale: _("That is not possible right now.", locale) for locale in ("zh", "en")}


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_every_refusal_has_its_own_text(locale: str) -> None:
    texts = {code: refusal_text(code, locale) for code in TableRefusal}
    assert GENERIC[locale] not in texts.values()
    assert len(set(texts.values())) == len(TableRefusal)
    assert all(error_text(code.value, locale) == text for code, text in texts.items())


def test_every_refusal_is_translated_to_chinese() -> None:
    """A member whose msgid has no zh translation would show English to a Chinese player."""
    untranslated = [code for code in TableRefusal if not HAN.search(refusal_text(code, "zh"))]
    assert untranslated == []
    assert all(not HAN.search(refusal_text(code, "en")) for code in TableRefusal)


def _problem(code: SettingRefusal) -> SettingProblem:
    return SettingProblem(code, name="turn_seconds", setting=SETTINGS["turn_seconds"])


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_every_setting_refusal_has_its_own_text(locale: str) -> None:
    texts = {code: setting_problem_text(_problem(code), locale) for code in SettingRefusal}
    assert GENERIC[locale] not in texts.values()
    assert len(set(texts.values())) == len(SettingRefusal)
    assert all(bool(HAN.search(text)) is (locale == "zh") for text in texts.values()), texts


def test_an_unknown_code_is_refused_not_worded() -> None:
    with pytest.raises(ValueError):
        error_text("no_such_code", "zh")


def _literal_codes() -> list[tuple[str, int, str]]:
    """Every string literal given as a refusal code: ``error_text("…", …)`` and
    ``refuse(query, "…", …)`` anywhere in app, handlers and bot.py."""
    found = []
    sources = [
        *sorted((ROOT / "app").rglob("*.py")),
        *sorted((ROOT / "handlers").rglob("*.py")),
        ROOT / "bot.py",
    ]
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            position = {"error_text": 0, "refuse": 1}.get(node.func.id)
            if position is None or len(node.args) <= position:
                continue
            code = node.args[position]
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                found.append((str(path.relative_to(ROOT)), node.lineno, code.value))
    return found


def test_every_literal_code_names_a_refusal() -> None:
    """Callers still passing a string (handlers/contest, handlers/records) pass a member's value."""
    known = {code.value for code in TableRefusal}
    assert [found for found in _literal_codes() if found[2] not in known] == []
