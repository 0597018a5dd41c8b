"""A bot table's finished engine Match becomes a contest result without re-scoring it."""

from __future__ import annotations

import random

import pytest

from engine.contest import MatchResult, PlayMethod, Refusal, ResultRefused, result_from_match
from engine.match import Match
from engine.rules import Rules
from tools.selfplay import random_action

RULES = Rules.preset("wechat-6-deals")


def played(seed: int) -> Match:
    match = Match.new(RULES, seed)
    rng = random.Random(seed)
    while not match.is_over:
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
    return match


def test_points_and_winner_follow_the_seating() -> None:
    match = played(0)
    team0, team1 = match.standing.points
    winner_team = match.winner_team
    result = result_from_match(match, pairs=(7, 3), team0_pair=3)
    assert result.points == (team1, team0)  # pairs order (7, 3); pair 3 sat as team 0
    assert result.winner == (3 if winner_team == 0 else 7)
    assert result.method is PlayMethod.BOT_TABLE
    assert sum(d.points[0] + d.points[1] for d in match.deal_results) == team0 + team1


def test_an_extra_deal_after_a_tie_is_flagged() -> None:
    tied = next(m for m in map(played, range(200)) if len(m.deal_results) > RULES.points_deals)
    result = result_from_match(tied, pairs=(1, 2), team0_pair=1)
    assert result.extra_deal
    assert not result_from_match(played(0), pairs=(1, 2), team0_pair=1).extra_deal


def test_an_unfinished_match_is_refused() -> None:
    with pytest.raises(ResultRefused) as refused:
        result_from_match(Match.new(RULES, 1), pairs=(1, 2), team0_pair=1)
    assert refused.value.code is Refusal.MATCH_NOT_OVER


def test_a_result_without_a_winner_must_be_both_out() -> None:
    with pytest.raises(ResultRefused):
        MatchResult(None, PlayMethod.PHYSICAL)
    with pytest.raises(ResultRefused):
        MatchResult(3, PlayMethod.BOTH_OUT)
