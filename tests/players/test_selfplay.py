"""Self-play, its simulated clock and the command line; every preset's matches end (issue 10)."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import MatchEnded, Phase, TimeExpired
from engine.cards import Rank, full_deck
from engine.errors import NotYourTurn
from engine.figures import match_figures
from engine.match import Match, observe
from engine.rules import PRESETS, EqualTribute, MatchFormat, ReturnPick, Rules, SuddenDeath, TimeWinner
from engine.scoring import round_score
from players.easy import choose_action
from tools.__main__ import main
from tools.selfplay import SimulatedClock, random_action, self_play


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
    from engine.cards import card_order, parse_cards
    from players.easy import timeout_action

    hands = [parse_cards(h) for h in ("H2 S7 D3", "S9 C4", "C5", "D6")]
    match = Match.from_position(Rules.default(), hands)
    action = timeout_action(observe(match, 0))
    assert isinstance(action, PlayCards) and [str(c) for c in action.play.cards] == ["D3"]
    match.apply(0, action)
    assert timeout_action(observe(match, 1)) == Pass()
    assert min(card_order(c, match.level) for c in match.hand(0)) == 7


def test_ai_team_beats_random_players() -> None:
    from engine.actions import DealEnded

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


def test_timed_presets_end_in_self_play(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 10: 002-A's levels cycle past A, so only the simulated clock ends its matches."""
    assert main(["selfplay", "--deals", "40", "--preset", "xiexiebang", "--minutes-per-deal", "10"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matches_ended"] >= 2 and report["time_outs"] >= report["matches_ended"]
    assert self_play(Rules.preset("xiexiebang"), 40, 1, minutes_per_deal=0).matches_ended == 0


UNTIMED_LIMIT = 30
"""Minutes given to presets without a clock, so that their time-outs run too."""


def play_with_clock(rules: Rules, seed: int, minutes_per_deal: float) -> Match:
    """One random match on the simulated clock, checking card conservation after every action."""
    rng = random.Random(seed)
    match = Match.new(rules, seed)
    clock = SimulatedClock(rules.time_limit_minutes, minutes_per_deal, rng)
    clock.observe(match.events, match)
    deck = Counter(full_deck())
    while not match.is_over and match.deal_number <= 200:
        if clock.expires_now(match):
            events = match.apply(None, TimeExpired())
        else:
            seat = match.to_act[0]
            events = match.apply(seat, random_action(match, seat, rng))
        clock.observe(events, match)
        assert Counter(match.all_cards()) == deck
    return match


def check_scores_add_up(match: Match) -> None:
    """Deal by deal, levels chain and points sum to the standing; the figures agree."""
    results = match.deal_results
    points = [0, 0]
    for earlier, later in pairwise(results):
        if later.levels_before != (Rank.TWO, Rank.TWO) or match.rules.match_format is not MatchFormat.BEST_OF:
            assert later.levels_before == earlier.levels_after
    for result in results:
        points[0] += result.points[0]
        points[1] += result.points[1]
    figures = match_figures(match)
    assert figures.points == match.standing.points and list(figures.points) == points
    threes = tuple(sum(r.points[team] == 3 for r in results) for team in (0, 1))
    assert figures.three_point_deals == threes
    assert figures.deals == len(results) and figures.round_score == round_score(
        match.standing, match.winner_team, match.rules
    )
    if results and match.rules.match_format is not MatchFormat.BEST_OF:
        assert results[-1].levels_after == match.standing.levels


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), minutes_per_deal=st.sampled_from([5.0, 10.0, 20.0]))
def test_every_preset_ends_on_the_clock_with_cards_conserved_and_scores_adding_up(
    preset: str, seed: int, minutes_per_deal: float
) -> None:
    rules = Rules.preset(preset)
    if rules.time_limit_minutes is None:
        rules = rules.replace(time_limit_minutes=UNTIMED_LIMIT)
    match = play_with_clock(rules, seed, minutes_per_deal)
    assert match.is_over
    end = match.events[-1]
    assert isinstance(end, MatchEnded) and end.winner_team == match.winner_team
    if end.winner_team is None:
        assert rules.time_winner is TimeWinner.NONE and end.reason == "time"
    if end.reason == "time":
        assert match.time_expired
        last = match.deal_results[-1] if match.deal_results else None
        deciding = last is not None and match.extra_deals and last.winner_team == end.winner_team
        if (
            deciding
            and rules.sudden_death is SuddenDeath.GO_UP
            and rules.match_format is MatchFormat.LEVEL_RACE
        ):
            assert last is not None and last.levels_after != last.levels_before  # went up (A26)
    check_scores_add_up(match)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_matches_with_every_free_tribute_choice_end_and_conserve_cards(seed: int) -> None:
    """V12, V14 (g): 上游 picks a card, the payers pick returns and the leader, at random."""
    rules = Rules.default().replace(
        first_picks_tribute=True,
        payers_pick_returns=ReturnPick.ALWAYS,
        equal_tribute=EqualTribute.PAYERS_CHOOSE,
        time_limit_minutes=60,
    )
    match = play_with_clock(rules, seed, 4.0)
    assert match.is_over and match.winner_team is not None
    check_scores_add_up(match)
