"""Names that rewrite the screen (issue 18.4): bidi controls and zero-width characters in a
display name or a unit tag are removed from everything the bot stores and shows."""

from __future__ import annotations

import pytest
from telegram import User

from app.contest import texts
from app.contest.args import parse_signup
from app.contest.views import standings_view
from app.table.texts import escape
from engine.contest import Player, draw, sign_up
from engine.names import HIDDEN, clean_name
from handlers.table.lobby import display_name
from render.text import printable
from tests.engine.contest.support import ON_TIME, signed_up

CONTROLS = [
    *(chr(c) for c in range(0x202A, 0x202F)),
    *(chr(c) for c in range(0x2066, 0x206A)),
    "\u200e",
    "\u200f",
    "\u061c",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
]
HOSTILE = "小\u202e明\u200d\u2066组3蛋掼\u2069\ufeff"


@pytest.mark.parametrize("char", CONTROLS)
def test_each_control_is_removed(char: str) -> None:
    assert clean_name(f"A{char}B") == "AB" and not HIDDEN.search(clean_name(char * 3))


def test_display_names_and_escaped_text_lose_them() -> None:
    assert display_name(User(1, HOSTILE, False)) == "小明组3蛋掼"
    assert display_name(User(2, "\u200b\u202e", False, username="zw")) == "zw"  # nothing left: the username
    assert escape("<b>" + HOSTILE) == "&lt;b&gt;小明组3蛋掼"


def test_stored_names_and_tags_are_shown_clean() -> None:
    """A Player read back from storage (made before the fix) is cleaned too."""
    assert Player(5, HOSTILE).name == "小明组3蛋掼"
    assert parse_signup(["tag=南京\u202e一队\u200b"], "unit").tag == "南京一队"


def test_the_card_the_standings_and_the_pictures_show_no_control() -> None:
    contest, _ = sign_up(signed_up(2), Player(900, HOSTILE))
    contest, _ = sign_up(contest, Player(901, "B\u202eob"))
    shown = [texts.card_text(contest, locale) for locale in ("zh", "en")]
    contest = draw(contest, now=ON_TIME).contest
    shown += [texts.standings_text(contest, "zh"), texts.draw_text(contest, "zh")]
    shown += [texts.round_text(contest, 1, "zh")]
    shown += [" ".join(line.cells[1] for line in standings_view(contest, "zh").rows)]
    assert all("小明组3蛋掼" in text or "Bob" in text for text in shown)
    assert not [text for text in shown if HIDDEN.search(text)]
    assert printable(HOSTILE) == "小明组3蛋掼"  # what a picture draws of any text
