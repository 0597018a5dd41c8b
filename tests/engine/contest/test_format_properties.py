"""Random whole contests of every format: valid pairings, totals that add up, reproducible draws."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Rank
from engine.contest import (
    FORMATS,
    Contest,
    ContestError,
    ContestPhase,
    DrawSeed,
    MatchResult,
    PlayMethod,
    Refusal,
    close_round,
    decide,
    draw,
    draw_next_round,
    final_places,
    pair_scores,
    standings,
)
from engine.figures import reported_figures

from .support import DEADLINE, ON_TIME, signed_up

LEVELS = st.sampled_from([Rank.TWO, Rank.FIVE, Rank.NINE, Rank.KING, Rank.ACE])


def run(contest: Contest, data: st.DataObject) -> Contest:
    """Decide every match at random (winner and levels; sometimes nobody reports round 1)."""
    while contest.phase in (ContestPhase.ROUND_IN_PLAY, ContestPhase.ROUND_COMPLETE):
        if contest.phase is ContestPhase.ROUND_COMPLETE:
            contest = draw_next_round(contest, now=ON_TIME).contest
        current = contest.current_round
        assert current is not None
        check_round(contest)
        for match in current.matches:
            if current.schedule.deadline is not None and data.draw(st.booleans()):
                continue  # left for the deadline: both out
            index = data.draw(st.integers(0, 1))
            loser = data.draw(LEVELS)
            levels = (Rank.ACE, loser) if index == 0 else (loser, Rank.ACE)
            figures = reported_figures(contest.round_rules(match.round), winner=index, levels=levels)
            result = MatchResult(match.pairs[index], PlayMethod.ORGANISER, figures=figures)
            contest = decide(contest, code=match.code, result=result, by=1, reason="r", now=ON_TIME).contest
        if current.schedule.deadline is not None:
            contest = close_round(contest, now=DEADLINE.closes_at).contest
    return contest


def check_round(contest: Contest) -> None:
    current = contest.current_round
    assert current is not None
    drawn = [n for m in current.main_matches for n in m.pairs] + list(current.byes)
    assert len(drawn) == len(set(drawn))  # nobody twice in a round
    assert set(drawn) <= set(contest.alive)  # only pairs still in
    if contest.settings.format_name == "swiss":
        earlier = {frozenset(m.pairs) for r in contest.rounds[:-1] for m in r.matches}
        if len(contest.pairs) >= 8:
            assert not earlier & {frozenset(m.pairs) for m in current.matches}  # no rematch
        had = [n for r in contest.rounds[:-1] for n in r.byes]
        if current.byes and len(set(had)) < len(contest.alive):
            assert current.byes[0] not in had  # a second bye only once everyone had one
    if contest.settings.format_name in ("redraw-knockout", "wechat-knockout"):
        assert len(current.byes) == len(current.contenders) % 2


@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(sorted(FORMATS)),
    pairs=st.integers(min_value=2, max_value=24),
    secret=st.binary(min_size=16, max_size=16),
    data=st.data(),
)
def test_every_format_runs_to_the_end_with_consistent_totals(
    name: str, pairs: int, secret: bytes, data: st.DataObject
) -> None:
    seed = DrawSeed(secret)
    try:
        contest = draw(signed_up(pairs, seed=seed, format_name=name), now=ON_TIME).contest
    except ContestError as refused:
        assert refused.code in (Refusal.FIELD_SIZE, Refusal.TOO_MANY_PAIRS, Refusal.TOO_FEW_PAIRS)
        return
    again = draw(signed_up(pairs, seed=seed, format_name=name), now=ON_TIME).contest
    assert again.rounds == contest.rounds  # the draw is a function of the published seed
    contest = run(contest, data)
    assert contest.phase is ContestPhase.DECIDED
    numbers = [p.number for p in contest.pairs]
    scores = pair_scores(numbers, contest.rounds)
    assert sum(s.won for s in scores.values()) == sum(s.lost for s in scores.values())
    assert sum((s.level_difference for s in scores.values()), Fraction(0)) == 0
    rows = standings(contest)
    assert sum(r.won for r in rows) == sum(r.lost for r in rows)
    places = final_places(contest)
    assert sorted(p.number for p in places) == sorted(numbers)
    assert min(p.place for p in places) == 1
