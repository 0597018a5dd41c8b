"""Self-play and the command line."""

from __future__ import annotations

import json

import pytest

from engine.__main__ import main
from engine.actions import Phase
from engine.ai import choose_action
from engine.errors import NotYourTurn
from engine.match import Match, observe
from engine.rules import Rules
from engine.selfplay import self_play


def test_selfplay_prints_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--deals", "3", "--seed", "4", "--preset", "wechat-6-deals"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["deals"] == 3 and report["preset"] == "wechat-6-deals"
    assert report["plays"] > 0 and report["deals_per_second"] > 0


def test_selfplay_is_deterministic() -> None:
    first, second = self_play(Rules.default(), 2, 8), self_play(Rules.default(), 2, 8)
    assert (first.plays, first.actions) == (second.plays, second.actions)


def test_unknown_subcommand_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nonsense"]) == 2
    assert "usage" in capsys.readouterr().err


def test_ai_plays_a_whole_match_legally() -> None:
    rules = Rules.preset("jingfang")
    match = Match.new(rules, 31)
    while not match.is_over and match.deal_number < 40:
        seat = match.to_act[0]
        match.apply(seat, choose_action(observe(match, seat), rules))
    assert match.is_over


def test_ai_refuses_to_act_out_of_turn_and_pays_the_allowed_tribute() -> None:
    rules = Rules.default()
    match = Match.new(rules, 2)
    other = (match.to_act[0] + 1) % 4
    with pytest.raises(NotYourTurn):
        choose_action(observe(match, other), rules)
    while match.phase is not Phase.TRIBUTE and not match.is_over:
        seat = match.to_act[0]
        match.apply(seat, choose_action(observe(match, seat), rules))
    if match.phase is Phase.TRIBUTE:
        seat = match.to_act[0]
        action = choose_action(observe(match, seat), rules)
        assert action.card in match.must_tribute_from(seat)  # type: ignore[union-attr]


def test_timeout_plays_the_lowest_single_or_passes() -> None:
    from engine.actions import Pass, PlayCards
    from engine.ai import timeout_action
    from engine.cards import card_order, parse_cards

    hands = [parse_cards(h) for h in ("H2 S7 D3", "S9 C4", "C5", "D6")]
    match = Match.from_position(Rules.default(), hands)
    action = timeout_action(observe(match, 0))
    assert isinstance(action, PlayCards) and [str(c) for c in action.play.cards] == ["D3"]
    match.apply(0, action)
    assert timeout_action(observe(match, 1)) == Pass()
    assert min(card_order(c, match.level) for c in match.hand(0)) == 7


def test_ai_team_beats_random_players() -> None:
    import random

    from engine.actions import DealEnded
    from engine.selfplay import random_action

    rules = Rules.preset("wechat-6-deals")
    wins = [0, 0]
    match = Match.new(rules, 0)
    rng = random.Random(0)
    while not match.is_over:
        seat = match.to_act[0]
        ai_seat = seat % 2 == 0
        action = choose_action(observe(match, seat), rules) if ai_seat else random_action(match, seat, rng)
        for event in match.apply(seat, action):
            if isinstance(event, DealEnded):
                wins[event.winner_team] += 1
    assert wins[0] >= 5 and wins[0] > 3 * wins[1]
