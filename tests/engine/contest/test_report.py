"""The 掼蛋{N}组 report line: a table of accepted and refused inputs."""

from __future__ import annotations

import pytest

from engine.contest import Refusal, ReportRefused, official_line, parse_report

ACCEPTED = [
    ("掼蛋3组", 3),
    ("掼蛋３组", 3),  # full-width digit
    ("掼蛋１２组", 12),
    ("掼蛋 3 组", 3),
    ("  掼蛋　3　组 ", 3),  # ideographic spaces
    ("掼蛋三组", 3),
    ("掼蛋两组", 2),
    ("掼蛋十组", 10),
    ("掼蛋十二组", 12),
    ("掼蛋二十组", 20),
    ("掼蛋二十三组", 23),
    ("掼蛋九十九组", 99),
    ("掼蛋一百零五组", 105),
    ("掼蛋叁组", 3),
    ("掼蛋第3组", 3),
    ("掼蛋3组。", 3),
    ("/report 掼蛋3组", 3),
    ("/report@GuandanBot 掼蛋三组", 3),
    ("/REPORT 掼蛋 4 组", 4),
]

REFUSED = [
    ("", Refusal.NOT_A_REPORT),
    ("hello", Refusal.NOT_A_REPORT),
    ("掼蛋3", Refusal.NOT_A_REPORT),
    ("3组", Refusal.WRONG_EVENT),
    ("惯蛋3组", Refusal.WRONG_EVENT),  # a typo of the event word
    ("桥牌3组", Refusal.WRONG_EVENT),
    ("掼蛋组", Refusal.NO_NUMBER),
    ("掼蛋0组", Refusal.ZERO),
    ("掼蛋零组", Refusal.ZERO),
    ("掼蛋3组5组", Refusal.SEVERAL_NUMBERS),
    ("掼蛋3、5组", Refusal.SEVERAL_NUMBERS),
    ("掼蛋3 vs 5组", Refusal.SEVERAL_NUMBERS),
    ("掼蛋3组赢了", Refusal.TRAILING_TEXT),
    ("掼蛋二三组", Refusal.BAD_NUMERAL),
    ("掼蛋十十组", Refusal.BAD_NUMERAL),
    ("掼蛋一百二组", Refusal.BAD_NUMERAL),  # 百二 shorthand: 120 or 102?
    ("掼蛋三5组", Refusal.BAD_NUMERAL),
    ("掼蛋abc组", Refusal.BAD_NUMERAL),
    ("掼蛋10000组", Refusal.BAD_NUMERAL),
]


@pytest.mark.parametrize(("text", "number"), ACCEPTED)
def test_accepted(text: str, number: int) -> None:
    assert parse_report(text) == number


@pytest.mark.parametrize(("text", "code"), REFUSED)
def test_refused(text: str, code: Refusal) -> None:
    with pytest.raises(ReportRefused) as refused:
        parse_report(text)
    assert refused.value.code is code


def test_configured_event_word() -> None:
    assert parse_report("比赛7组", event="比赛") == 7
    with pytest.raises(ReportRefused) as refused:
        parse_report("掼蛋7组", event="比赛")
    assert refused.value.code is Refusal.WRONG_EVENT


@pytest.mark.parametrize("number", [1, 3, 12, 20, 64])
def test_official_line_is_exact_and_round_trips(number: int) -> None:
    line = official_line(number)
    assert line == f"掼蛋{number}组"
    assert " " not in line
    assert parse_report(line) == number
