"""Nothing a person chose reaches an HTML message as markup: hostile player names and a
hostile stored preset name go through every text builder that shows them, and each
message still parses as Telegram's HTML (strictly, as the emulator does) with the name
shown exactly as typed and no tag the message would not have had anyway."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest

from app.table.results import public_tributes
from app.table.settings import SettingProblem, rules_from_args
from app.table.texts import (
    board_text,
    closing_board_text,
    deal_result_text,
    escape,
    finished_board_text,
    hand_caption,
    lobby_text,
    match_result_text,
    move_line,
    place_line,
)
from engine.actions import DealEnded, Event, MatchEnded
from engine.match import Match, observe
from engine.names import clean_name
from engine.rules import Rules
from players.easy import choose_action

HOSTILE = (
    "<b>x",
    "</i>",
    'A & B &amp; <a href="http://e.vil/">link</a>',
    "\u202eevil\u200f<u>x</u>🀄👨‍👩‍👧" + "长" * 40,
)
SHOWN = tuple(clean_name(name) for name in HOSTILE)  # as typed, less bidi and zero-width characters
BENIGN = ("Ann", "Bob", "Cat", "Dan")
HEADING = "🃏 <b>Deal 1</b>"
TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "a", "tg-spoiler", "span"}
TAG = re.compile(r"<(/?)([a-z-]+)((?:\s+[a-z-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]*))?)*)\s*>", re.IGNORECASE)
ENTITY = re.compile(r"&(#x[0-9a-f]+|#[0-9]+|lt|gt|amp|quot);", re.IGNORECASE)


def telegram_html(text: str) -> tuple[str, list[str]]:
    """The plain text and the tags of ``text`` as Telegram's HTML parse mode reads it;
    AssertionError where Telegram answers "can't parse entities"."""
    plain, tags, open_tags, i = [], [], [], 0
    while i < len(text):
        if text[i] == "<":
            match = TAG.match(text, i)
            assert match and match.group(2).lower() in TAGS, f"unsupported tag at {i}: {text[i : i + 20]!r}"
            closing, name = match.group(1), match.group(2).lower()
            if closing:
                assert open_tags and open_tags.pop() == name, f"unmatched </{name}> in {text!r}"
            else:
                open_tags.append(name)
            tags.append(match.group(0))
            i = match.end()
        elif text[i] == "&" and (entity := ENTITY.match(text, i)):
            plain.append(html.unescape(entity.group(0)))
            i = entity.end()
        else:
            plain.append(text[i])
            i += 1
    assert not open_tags, f"unclosed <{open_tags[-1]}> in {text!r}"
    return "".join(plain), tags


def test_the_checker_refuses_what_telegram_refuses() -> None:
    for bad in ("<b>x", "</i>", "a < b", "<script>", "<b><i>x</b></i>"):
        with pytest.raises(AssertionError):
            telegram_html(bad)
    assert telegram_html("<b>a &amp; b</b> &lt;") == ("a & b <", ["<b>", "</b>"])
    assert telegram_html(escape(HOSTILE[2])) == (HOSTILE[2], [])


def a_whole_match() -> tuple[Match, list[tuple[Match, list[Event]]]]:
    """A seeded two-deal match (with a tribute) played by the AI, and snapshots along the way."""
    match = Match.new(Rules.preset("wechat-6-deals").replace(points_deals=2), seed=9)
    snapshots: list[tuple[Match, list[Event]]] = []
    for step in range(4000):
        if match.is_over:
            break
        seat = match.to_act[0]
        match.apply(seat, choose_action(observe(match, seat), match.rules))
        if step % 40 == 0:
            snapshots.append((Match.replay(match.rules, 9, list(match.history)), list(match.events)))
    assert match.is_over
    return match, snapshots


MATCH, SNAPSHOTS = a_whole_match()


def builders() -> list[tuple[str, Callable[[dict[int, str]], str]]]:
    """Every text builder of an HTML message that shows a player's (or preset's) name."""
    rules = MATCH.rules
    events = list(MATCH.events)
    found: list[tuple[str, Callable[[dict[int, str]], str]]] = []
    for number, (match, shown) in enumerate(SNAPSHOTS):
        found.append(
            (
                f"board {number}",
                lambda names, m=match, e=shown: board_text(
                    obs=observe(m, None), events=e, names=names, rules=rules, locale="zh", autoplay=(1,)
                ),
            )
        )
        for seat in range(4):
            found.append(
                (
                    f"hand {number}/{seat}",
                    lambda names, m=match, s=seat: hand_caption(
                        obs=observe(m, s), names=names, rules=rules, locale="en", note=None
                    ),
                )
            )
    for result in (e for e in events if isinstance(e, DealEnded)):
        start = max(
            i for i, e in enumerate(events[: events.index(result)]) if type(e).__name__ == "DealStarted"
        )
        deal = events[start : events.index(result) + 1]
        tributes = public_tributes(deal)
        found += [
            (f"result {result.deal_number}", lambda names, r=result: deal_result_text(r, names, rules, "zh")),
            (
                f"closing {result.deal_number}",
                lambda names, d=deal, r=result, t=tributes: closing_board_text(
                    events=d, result=r, first=0, tributes=t, names=names, locale="zh", heading=HEADING
                ),
            ),
            (
                f"finished {result.deal_number}",
                lambda names, d=deal, t=tributes: finished_board_text(
                    events=d, first=0, last=1, tributes=t, names=names, locale="en", heading=HEADING
                ),
            ),
        ]
    final = next(e for e in events if isinstance(e, MatchEnded))
    found += [
        ("match result", lambda names: match_result_text(final, "zh")),
        ("move", lambda names: move_line(2, names[2], "pass", "zh")),
        ("place", lambda names: place_line(1, 3, names[3], "en")),
        ("lobby", lambda names: lobby_text(names=names, preset="default", rules=rules, locale="zh")),
        (
            "lobby, three seated",
            lambda names: lobby_text(
                names={0: names[0], 1: names[1], 3: names[3]},
                preset="wechat-6-deals",
                rules=rules,
                locale="en",
            ),
        ),
        (
            "lobby, stored preset",
            lambda names: lobby_text(names=names, preset=names[1], rules=rules, locale="zh"),
        ),
    ]
    return found


@pytest.mark.parametrize(("what", "build"), builders(), ids=lambda v: v if isinstance(v, str) else "")
def test_hostile_names_are_shown_as_typed(what: str, build: Callable[[dict[int, str]], str]) -> None:
    benign_text, benign_tags = telegram_html(build(dict(enumerate(BENIGN))))
    hostile_text, hostile_tags = telegram_html(build(dict(enumerate(HOSTILE))))
    assert hostile_tags == benign_tags, what  # the names added no markup
    for benign, hostile in zip(BENIGN, SHOWN, strict=True):
        assert benign_text.count(benign) == hostile_text.count(hostile), (what, hostile)
    assert hostile_text == _substitute(benign_text)


def _substitute(text: str) -> str:
    for benign, hostile in zip(BENIGN, SHOWN, strict=True):
        text = text.replace(benign, hostile)
    return text


@pytest.mark.parametrize("value", [*HOSTILE, "<u>x</u>", "<b>x</b>", "'\"><i>"])
@pytest.mark.parametrize("name", ["turn_seconds", "match_format", "tribute", "level_ups", "points_target"])
def test_hostile_setting_values_never_reach_the_lobby(name: str, value: str) -> None:
    """Finding 2: ``turn_seconds=<u>x</u>`` was echoed into the lobby, ``<b>x`` broke it."""
    try:
        preset, rules = rules_from_args(["wechat-6-deals", f"{name}={value}"])
    except SettingProblem as problem:
        assert problem.code in ("bad_setting", "setting_too_long") and problem.name == name
        return
    text, tags = telegram_html(lobby_text(names={}, preset=preset, rules=rules, locale="zh"))
    assert tags == ["<b>", "</b>"] and value not in text
