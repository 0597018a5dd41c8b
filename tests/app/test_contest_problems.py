"""Every contest problem and refusal has its own text in both languages (issue 19): the texts are
chosen by an exhaustive ``match``, so mypy finds a member without one; this finds a text shared
by mistake, or one that is the generic answer."""

from __future__ import annotations

import pytest

from app.contest.problems import Problem
from app.contest.texts import problem_text, refusal_text
from app.table.texts import _
from engine.contest.errors import Refusal


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_every_problem_has_its_own_text(locale: str) -> None:
    texts = {code: problem_text(code, "x", locale) for code in Problem}
    assert _("That is not possible right now.", locale) not in texts.values()
    assert len(set(texts.values())) == len(Problem)


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_every_refusal_has_a_text(locale: str) -> None:
    texts = {code: refusal_text(code, locale) for code in Refusal}
    assert _("That is not possible right now.", locale) not in texts.values()
    assert all(texts.values())


def test_the_old_string_codes_still_name_their_problem() -> None:
    assert Problem("usage_round") is Problem.USAGE_ROUND
    assert problem_text(Problem.BAD_LATE_OUT, "x", "en") == problem_text(Problem("bad_late_out"), "x", "en")
