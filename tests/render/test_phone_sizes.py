"""Issue 20.8: nothing a player needs is under ~12 px on a 360-px-wide phone, and a points
match's summary shows the points it was decided by."""

from __future__ import annotations

from app.table.results import match_summary_view
from engine.match import Match, observe
from engine.rules import Rules
from players.policies import seeded
from render import hand, results
from render.board import WIDTH as BOARD_WIDTH
from render.text import font

PHONE = 360
NEEDED = 12.0


def shown_height(size: int, picture_width: int, text: str = "张老师") -> float:
    """How tall ``text`` at ``size`` px is on the phone (the picture scaled to its width)."""
    _left, top, _right, bottom = font(size).getbbox(text)
    return (bottom - top) * PHONE / picture_width


def test_the_hand_header_and_the_match_summary_are_readable_at_360_px() -> None:
    assert shown_height(30, hand.WIDTH) < 9  # the header before: about 8 px
    assert shown_height(hand.HEADER_FONT, hand.WIDTH) >= NEEDED
    assert shown_height(results.SUMMARY_TEXT, BOARD_WIDTH) >= NEEDED


def test_a_points_match_summary_shows_the_points_it_was_decided_by() -> None:
    rules = Rules.preset("wechat-6-deals").replace(points_deals=2)
    match, policy = Match.new(rules, seed=114), seeded("normal")
    while not match.is_over:
        seat = match.to_act[0]
        match.apply(seat, policy(observe(match, seat), rules))
    view = match_summary_view(match.events, ["张老师", "Bob", "AI 丙", "AI 丁"], rules)
    assert view.points is not None and view.deals[-1].points_after == view.points
    assert view.deals[0].points_after is not None and sum(view.deals[0].points_after) > 0
    levels = match_summary_view(match.events, ["", "", "", ""], Rules.default())
    assert levels.deals[-1].points_after is None
    assert results.match_summary_image(view).width == BOARD_WIDTH
