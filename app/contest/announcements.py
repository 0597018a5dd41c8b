"""A contest's group announcements as typed values, and their stored JSON form.

The outbox stores an announcement before it is sent and rebuilds its text when it is sent (from
the contest as stored then, in the group's language then), so what is stored is only which
announcement it is: ``{"what": "decision", "code": "K7QX", "fact": 2}``. That JSON form is the
one the outbox has always stored (rows written before these types existed load unchanged):
:func:`to_payload` writes it, :func:`from_payload` reads it back, and nothing else looks at
``"what"``. Each kind is a small frozen value, as ``engine/serialize.py`` does for actions, so
:func:`app.contest.herald.posts` builds them and the desk's composer matches on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, assert_never


class What(StrEnum):
    """An announcement's kind: the ``"what"`` of its stored JSON."""

    DRAW = "draw"  # the draw and round 1, one message
    ROUND = "round"  # a later round's pairings
    CARD = "card"  # the contest's card (sign-up, standings button)
    OFFICIAL = "official"  # exactly the 掼蛋N组 line (docs/rules.md §4.8)
    DETAILS = "details"
    DISPUTE = "dispute"
    DECISION = "decision"
    BOTH_OUT = "both_out"
    CLOCK = "clock"
    CLOCK_WARNING = "clock_warning"
    TIME_UP = "time_up"
    REMINDER = "reminder"
    ROUND_COMPLETE = "round_complete"
    DECIDED = "decided"
    FINAL = "final"
    DEADLINE = "deadline"
    WITHDREW = "withdrew"
    REFUSED = "refused"  # a bot table's result the contest refused, in both languages
    EDIT_CARD = "edit_card"  # rows an earlier version stored: now a refresh
    EDIT_ROUND = "edit_round"


FIRST = frozenset(
    {
        What.OFFICIAL,
        What.BOTH_OUT,
        What.DECISION,
        What.DRAW,
        What.ROUND,
        What.DEADLINE,
        What.CLOCK,
        What.TIME_UP,
    }
)
"""Announcements that go before the group's other queued messages: results and decisions, the
draw and a round's pairings, deadlines and clocks (issue 17's first class). Details, disputes,
reminders and the rest follow in their order."""

AWAITED = frozenset({What.DRAW, What.ROUND, What.DECISION})
"""What an organiser's command posts and the whole group waits for (``/draw``, ``/round next``,
``/result``): sent as a decision, ahead of replies and with the last slot of the group's minute
to itself, so it never waits behind a rush's acknowledgements (issue 40: the draw came 46 s
after ``/draw``). Players' official lines stay announcements: twelve at once would otherwise
take that slot and a person's question with it (issue 32)."""


@dataclass(frozen=True, slots=True)
class Pairings:
    """The draw with round 1 (``DRAW``), or a later round's pairings (``ROUND``)."""

    round: int

    @property
    def what(self) -> What:
        return What.DRAW if self.round == 1 else What.ROUND


@dataclass(frozen=True, slots=True)
class Card:
    what = What.CARD


@dataclass(frozen=True, slots=True)
class Official:
    """The official line, stored as it was written (the event word may change later)."""

    line: str
    what = What.OFFICIAL


@dataclass(frozen=True, slots=True)
class MatchFactNote:
    """A match's fact number ``fact``: its details, a dispute, or the organiser's decision."""

    what: What  # DETAILS, DISPUTE or DECISION
    code: str
    fact: int


@dataclass(frozen=True, slots=True)
class BothOut:
    codes: tuple[str, ...]
    what = What.BOTH_OUT


@dataclass(frozen=True, slots=True)
class ClockNote:
    """Table clocks started, 10 minutes left, or time up, at these tables of round ``round``."""

    what: What  # CLOCK, CLOCK_WARNING or TIME_UP
    round: int
    tables: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Reminder:
    codes: tuple[str, ...]
    left: int  # seconds to the deadline
    what = What.REMINDER


@dataclass(frozen=True, slots=True)
class RoundComplete:
    round: int
    what = What.ROUND_COMPLETE


@dataclass(frozen=True, slots=True)
class Decided:
    what = What.DECIDED


@dataclass(frozen=True, slots=True)
class Final:
    what = What.FINAL


@dataclass(frozen=True, slots=True)
class DeadlineNote:
    what = What.DEADLINE


@dataclass(frozen=True, slots=True)
class PairWithdrawn:
    pair: int
    what = What.WITHDREW


@dataclass(frozen=True, slots=True)
class Refused:
    """A bot table's result refused: the text in both languages, written when it happened."""

    text_zh: str
    text_en: str
    what = What.REFUSED

    def text(self, locale: str) -> str:
        return self.text_en if locale == "en" else self.text_zh


@dataclass(frozen=True, slots=True)
class Refresh:
    """An edit an earlier version stored as a message (the card: ``round`` None)."""

    round: int | None

    @property
    def what(self) -> What:
        return What.EDIT_CARD if self.round is None else What.EDIT_ROUND


Announcement = (
    Pairings
    | Card
    | Official
    | MatchFactNote
    | BothOut
    | ClockNote
    | Reminder
    | RoundComplete
    | Decided
    | Final
    | DeadlineNote
    | PairWithdrawn
    | Refused
    | Refresh
)


class UnknownAnnouncement(ValueError):
    """A stored payload names no announcement (or lacks a field its kind needs)."""


def to_payload(announcement: Announcement) -> dict[str, Any]:
    """The stored JSON form (without the outbox's ``contest_id``): ``{"what": …, fields…}``."""
    what = {"what": announcement.what.value}
    match announcement:
        case Pairings(number) | RoundComplete(number):
            return what | {"round": number}
        case Official(line):
            return what | {"line": line}
        case MatchFactNote(_, code, fact):
            return what | {"code": code, "fact": fact}
        case BothOut(codes):
            return what | {"codes": list(codes)}
        case ClockNote(_, number, tables):
            return what | {"round": number, "tables": list(tables)}
        case Reminder(codes, left):
            return what | {"codes": list(codes), "left": left}
        case PairWithdrawn(pair):
            return what | {"pair": pair}
        case Refused(zh, en):
            return what | {"text_zh": zh, "text_en": en}
        case Refresh(number):
            return what | {"round": number}
        case Card() | Decided() | Final() | DeadlineNote():
            return what
        case _:
            assert_never(announcement)


def from_payload(payload: dict[str, Any]) -> Announcement:
    """The inverse of :func:`to_payload`, for rows written by any version."""
    try:
        what = What(str(payload["what"]))
        return _decoded(what, payload)
    except (KeyError, TypeError, ValueError) as error:
        raise UnknownAnnouncement(f"unknown contest announcement {payload.get('what')!r}") from error


def _decoded(what: What, payload: dict[str, Any]) -> Announcement:
    match what:
        case What.DRAW | What.ROUND:
            return Pairings(int(payload["round"]))
        case What.CARD:
            return Card()
        case What.OFFICIAL:
            return Official(str(payload["line"]))
        case What.DETAILS | What.DISPUTE | What.DECISION:
            return MatchFactNote(what, str(payload["code"]), int(payload["fact"]))
        case What.BOTH_OUT:
            return BothOut(tuple(str(code) for code in payload["codes"]))
        case What.CLOCK | What.CLOCK_WARNING | What.TIME_UP:
            return ClockNote(what, int(payload["round"]), tuple(int(t) for t in payload["tables"]))
        case What.REMINDER:
            return Reminder(tuple(str(code) for code in payload["codes"]), int(payload["left"]))
        case What.ROUND_COMPLETE:
            return RoundComplete(int(payload["round"]))
        case What.DECIDED:
            return Decided()
        case What.FINAL:
            return Final()
        case What.DEADLINE:
            return DeadlineNote()
        case What.WITHDREW:
            return PairWithdrawn(int(payload["pair"]))
        case What.REFUSED:
            return Refused(str(payload["text_zh"]), str(payload["text_en"]))
        case What.EDIT_CARD:
            return Refresh(None)
        case What.EDIT_ROUND:
            return Refresh(int(payload["round"]))
        case _:
            assert_never(what)
