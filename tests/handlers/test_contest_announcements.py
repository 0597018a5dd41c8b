"""Announcements are typed values, stored as the JSON the outbox has always held (issue 19): rows
written by the code before the types still load and compose, and every kind round-trips."""

from __future__ import annotations

from typing import Any

import pytest

from app.contest.announcements import UnknownAnnouncement, What, from_payload, to_payload
from engine.contest import draw
from handlers.contest.compose import compose
from storage import StoredContest
from tests.engine.contest.support import ON_TIME, signed_up

STORED_BEFORE: list[
    dict[str, Any]
] = [  # payloads as desk.announce wrote them before the types (less "contest_id")
    {"what": "draw", "round": 1},
    {"what": "round", "round": 2},
    {"what": "card"},
    {"what": "official", "line": "掼蛋3组"},
    {"what": "details", "code": "K7QX", "fact": 0},
    {"what": "dispute", "code": "K7QX", "fact": 1},
    {"what": "decision", "code": "K7QX", "fact": 2},
    {"what": "both_out", "codes": ["K7QX", "M2PA"]},
    {"what": "clock", "round": 1, "tables": [1, 2]},
    {"what": "clock_warning", "round": 1, "tables": [2]},
    {"what": "time_up", "round": 1, "tables": [2]},
    {"what": "reminder", "codes": ["K7QX"], "left": 172800},
    {"what": "round_complete", "round": 1},
    {"what": "decided"},
    {"what": "final"},
    {"what": "deadline"},
    {"what": "withdrew", "pair": 3},
    {"what": "refused", "text_zh": "不行", "text_en": "No"},
    {"what": "edit_card", "round": None},
    {"what": "edit_round", "round": 2},
]


@pytest.mark.parametrize("payload", STORED_BEFORE, ids=lambda p: str(p["what"]))
def test_a_stored_payload_loads_and_is_written_back_the_same(payload: dict[str, Any]) -> None:
    assert to_payload(from_payload({"contest_id": 7, **payload})) == payload


def test_every_kind_has_a_stored_form() -> None:
    assert {What(p["what"]) for p in STORED_BEFORE} == set(What)


@pytest.mark.parametrize("payload", [{"what": "fanfare"}, {"what": "details"}, {}])
def test_an_unknown_row_is_refused_by_name(payload: dict[str, Any]) -> None:
    with pytest.raises(UnknownAnnouncement):
        from_payload(payload)


def test_an_old_row_still_composes() -> None:
    contest, _events = draw(signed_up(4), now=ON_TIME)
    stored = StoredContest(5, -9, contest)
    code = contest.rounds[0].matches[0].code
    for payload in (
        {"contest_id": 5, "what": "draw", "round": 1},
        {"contest_id": 5, "what": "card"},
        {"contest_id": 5, "what": "reminder", "codes": [code], "left": 3600},
        {"contest_id": 5, "what": "both_out", "codes": [code]},
    ):
        text, _markup = compose(stored, from_payload(payload), "zh")
        assert text, payload
