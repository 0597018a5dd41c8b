"""Random whole contests: every round valid, totals add up, the contest always ends."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.contest import (
    ContestPhase,
    DrawSeed,
    MatchResult,
    PlayMethod,
    close_round,
    decide,
    draw,
    draw_next_round,
    final_places,
    standings,
)

from .support import DEADLINE, ON_TIME, signed_up

OUTCOMES = st.sampled_from(["first", "second", "unreported"])


@settings(max_examples=40, deadline=None)
@given(
    pairs=st.integers(min_value=1, max_value=13),
    singles=st.sampled_from([0, 2, 4]),
    secret=st.binary(min_size=16, max_size=16),
    outcomes=st.lists(OUTCOMES, min_size=64, max_size=64),
    scores=st.lists(st.tuples(st.integers(0, 18), st.integers(0, 18)), min_size=64, max_size=64),
)
def test_random_contests(pairs: int, singles: int, secret: bytes, outcomes: list[str], scores: list) -> None:
    if pairs + singles // 2 < 2:
        return
    contest, _ = draw(signed_up(pairs, singles, seed=DrawSeed(secret)), now=ON_TIME)
    picks = iter(zip(outcomes, scores, strict=True))
    while contest.phase in (ContestPhase.ROUND_IN_PLAY, ContestPhase.ROUND_COMPLETE):
        if contest.phase is ContestPhase.ROUND_COMPLETE:
            contest, _ = draw_next_round(contest, now=ON_TIME)
        current = contest.current_round
        assert current is not None
        drawn = [n for m in current.matches for n in m.pairs] + list(current.byes)
        assert len(drawn) == len(set(drawn))  # nobody twice in a round
        assert len(current.byes) <= 1
        for match in current.matches:
            outcome, points = next(picks)
            if outcome == "unreported" and current.number == 1:
                continue
            winner = match.pairs[0] if outcome == "first" else match.pairs[1]
            result = MatchResult(winner, PlayMethod.ORGANISER, points)
            contest, _ = decide(contest, code=match.code, result=result, by=1, reason="r", now=ON_TIME)
        if current.number == 1:
            contest, _ = close_round(contest, now=DEADLINE.closes_at)
    assert contest.phase is ContestPhase.DECIDED
    assert len(contest.alive) <= 1
    rows = standings(contest)
    assert sum(r.points_for for r in rows) == sum(r.points_against for r in rows)
    assert sum(r.won for r in rows) == sum(r.lost for r in rows)
    places = final_places(contest)
    assert sorted(p.number for p in places) == sorted(p.number for p in contest.pairs)
    if contest.alive:
        assert [p.number for p in places if p.place == 1] == list(contest.alive)
