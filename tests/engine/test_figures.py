"""engine.figures: what a contest reads from a finished match (issue 10)."""

from __future__ import annotations

import doctest
import random
from fractions import Fraction

import pytest

import engine.figures
from engine.actions import EndReason, GiveTribute, Pass, PlayCards, ReturnTribute
from engine.cards import Rank, parse_cards
from engine.classify import classify
from engine.figures import PAST_A, ContestEnd, MatchFigures, forfeit_figures, match_figures
from engine.match import Match
from engine.rules import ForfeitDifference, Rules
from engine.scoring import Standing
from tools.selfplay import random_action


def play(text: str, level: Rank) -> PlayCards:
    return PlayCards(classify(parse_cards(text), level)[0])


def test_module_examples() -> None:
    assert doctest.testmod(engine.figures).failed == 0


def test_a_match_in_progress_has_no_figures() -> None:
    with pytest.raises(ValueError, match="not over"):
        match_figures(Match.new(Rules.default(), 1))


def passed_a(rules: Rules) -> Match:
    """Team 0 at A passes A 1st+2nd against team 1 at 9."""
    hands = [parse_cards(h) for h in ("SK", "S3 S4", "SQ", "D3 D4")]
    standing = Standing(levels=(Rank.ACE, Rank.NINE))
    match = Match.from_position(rules, hands, previous_order=(2, 1, 0, 3), standing=standing)
    match.apply(3, GiveTribute(match.must_tribute_from(3)[0]))
    match.apply(2, ReturnTribute(match.may_return(2)[0]))
    match.apply(3, play("D3", Rank.ACE))
    match.apply(0, play("SK", Rank.ACE))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    match.apply(2, play("SQ", Rank.ACE))
    assert match.is_over
    return match


def test_passing_a_counts_as_past_a_in_the_level_difference_and_the_round_score() -> None:
    figures = match_figures(passed_a(Rules.preset("three-round-movement")))
    assert (figures.winner, figures.reason, figures.deals, figures.forfeit) == (0, "passed_a", 1, False)
    assert figures.steps == (PAST_A, 7) and figures.level_difference == 6
    assert figures.round_score == (106, 7)  # 001-B: 100 + level difference; the loser its levels
    assert MatchFigures.from_json(figures.to_json()) == figures


def test_match_points_two_for_the_winner() -> None:
    figures = match_figures(passed_a(Rules.preset("knockout-135")))
    assert figures.round_score == (2, 0) and figures.loser == 1


def test_points_formats_count_points_three_point_deals_and_extra_deals() -> None:
    rules = Rules.preset("wechat-6-deals")
    hands = [parse_cards(h) for h in ("SA", "S4", "SK", "D5")]
    match = Match.from_position(rules, hands, standing=Standing(points=(6, 9), threes=(1, 2)), deal_number=6)
    match.apply(0, play("SA", Rank.TWO))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    match.apply(2, play("SK", Rank.TWO))  # 双下: 3 points, 9:9 after six deals, an extra deal follows
    assert not match.is_over and match.standing.points == (9, 9)
    rng = random.Random(0)
    while not match.is_over:
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
    figures = match_figures(match)
    extra = match.deal_results[1]
    assert figures.deals == 2 and figures.extra_deals == 1 and figures.winner == extra.winner_team
    assert figures.points == (9 + extra.points[0], 9 + extra.points[1])
    assert figures.three_point_deals == (2 + (extra.points[0] == 3), 2 + (extra.points[1] == 3))


@pytest.mark.parametrize(
    ("difference", "expected"),
    [(ForfeitDifference.TWELVE, Fraction(12)), (ForfeitDifference.HALF, Fraction(1, 2))],
)
def test_forfeits_per_a18(difference: ForfeitDifference, expected: Fraction) -> None:
    rules = Rules.preset("knockout-135").replace(forfeit_difference=difference)
    figures = forfeit_figures(rules, 0)
    assert figures.forfeit and figures.reason == "forfeit" and figures.deals == 0
    assert figures.level_difference == expected and figures.round_score == (2, 0)
    assert MatchFigures.from_json(figures.to_json()) == figures
    assert forfeit_figures(Rules.preset("three-round-movement"), 1).round_score == (0, 113)
    with pytest.raises(ValueError):
        forfeit_figures(rules, 2)


def _stored_with_reason(word: str) -> str:
    stored = forfeit_figures(Rules.default(), winner=0).to_json()
    return stored.replace('"reason": "forfeit"', f'"reason": "{word}"')


STORED_REASONS = ["passed_a", "reached_a", "points", "time", "best_of", "forfeit", "reported"]


@pytest.mark.parametrize("word", STORED_REASONS)
def test_every_stored_reason_loads_typed_and_writes_back_the_same(word: str) -> None:
    """Figures stored before the reason was typed (a plain string) load as an enum member and
    are written back byte for byte: old contest databases keep working."""
    stored = _stored_with_reason(word)
    figures = MatchFigures.from_json(stored)
    assert isinstance(figures.reason, EndReason | ContestEnd) and figures.reason == word
    assert figures.to_json() == stored


def test_a_reason_no_version_wrote_is_refused() -> None:
    with pytest.raises(ValueError):
        MatchFigures.from_json(_stored_with_reason("shrug"))
