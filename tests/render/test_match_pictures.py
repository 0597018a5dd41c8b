"""Pictures of a real match: every seat's hand image shows that seat's cards only."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.actions import PlayCards
from engine.match import Match, observe
from engine.rules import Rules
from players.easy import choose_action
from render.hand import render_hand
from render.play import render_play
from tests.render.helpers import record_drawn_cards


def test_hand_images_along_a_match_show_only_the_seat_own_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = record_drawn_cards(monkeypatch)
    match = Match.new(Rules.default(), 20261130)
    for _ in range(40):
        seat = match.to_act[0]
        for viewer in range(4):
            drawn.clear()
            render_hand(observe(match, viewer))
            assert Counter(drawn) == Counter(match.hands[viewer])
        action = choose_action(observe(match, seat), match.rules)
        if isinstance(action, PlayCards):
            assert render_play(action.play, match.level)
        match.apply(seat, action)
