"""000-E pairing: redrawn every round, byes into the next draw, third place."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from engine.contest import (
    ContestMatch,
    DrawSeed,
    MatchFact,
    MatchKind,
    MatchResult,
    PlayMethod,
    Round,
    RoundInput,
    Schedule,
    ScheduleKind,
    ThirdPlace,
)
from engine.contest.formats import knockout_advance, redraw_knockout_pairing
from engine.contest.results import FactKind

from .support import SEED

AT = datetime(2026, 12, 26, tzinfo=UTC)


def view(contenders, previous=(), number=1, seed=SEED, third=ThirdPlace.PLAYOFF) -> RoundInput:
    return RoundInput(number, tuple(sorted(contenders)), tuple(previous), seed.lots(f"round:{number}"), third)


def played_round(number: int, pairs: list[tuple[int, int]], winners: list[int | None], byes=()) -> Round:
    matches = []
    for table, (pair, winner) in enumerate(zip(pairs, winners, strict=True), start=1):
        method = PlayMethod.BOTH_OUT if winner is None else PlayMethod.PHYSICAL
        fact = MatchFact(FactKind.DECISION, AT, None, MatchResult(winner, method))
        matches.append(ContestMatch(number, table, f"C{number}{table}", pair, facts=(fact,)))
    return Round(number, Schedule(ScheduleKind.BOT), tuple(matches), tuple(byes))


@given(
    st.integers(min_value=2, max_value=40),
    st.binary(min_size=16, max_size=16),
    st.integers(min_value=1, max_value=6),
)
def test_every_contender_once_and_a_bye_only_for_an_odd_count(count: int, secret: bytes, number: int) -> None:
    drawn = redraw_knockout_pairing(view(range(1, count + 1), number=number, seed=DrawSeed(secret)))
    seen = [n for p in drawn.pairings for n in p.pairs] + list(drawn.byes)
    assert sorted(seen) == list(range(1, count + 1))  # nobody twice, nobody left out
    assert len(drawn.byes) == count % 2
    assert all(p.kind is MatchKind.MAIN for p in drawn.pairings)


@given(st.binary(min_size=16, max_size=16), st.lists(st.integers(1, 9), min_size=1, max_size=8, unique=True))
def test_the_bye_goes_to_a_pair_that_has_had_fewest(secret: bytes, had_bye: list[int]) -> None:
    """Nine survivors; some already had a bye in earlier rounds: none of them gets another."""
    previous = [Round(k, Schedule(ScheduleKind.BOT), (), (n,)) for k, n in enumerate(had_bye, start=1)]
    drawn = redraw_knockout_pairing(
        view(range(1, 10), previous, number=len(previous) + 1, seed=DrawSeed(secret))
    )
    (bye,) = drawn.byes
    assert bye not in had_bye


def test_each_round_is_a_fresh_draw() -> None:
    contenders = range(1, 17)
    first = redraw_knockout_pairing(view(contenders, number=1))
    second = redraw_knockout_pairing(view(contenders, number=2))
    assert first != second
    assert redraw_knockout_pairing(view(contenders, number=2)) == second  # deterministic


def test_winners_and_byes_advance_both_out_sends_nobody() -> None:
    played = played_round(1, [(1, 2), (3, 4), (5, 6)], [2, None, 5], byes=(7,))
    assert knockout_advance((1, 2, 3, 4, 5, 6, 7), played) == (2, 5, 7)


def test_semi_final_losers_play_for_third_alongside_the_final() -> None:
    semi = played_round(2, [(1, 2), (3, 4)], [1, 4])
    final = redraw_knockout_pairing(view((1, 4), (semi,), number=3))
    kinds = {p.kind: tuple(sorted(p.pairs)) for p in final.pairings}
    assert kinds == {MatchKind.MAIN: (1, 4), MatchKind.THIRD_PLACE: (2, 3)}


def test_shared_third_place_means_no_playoff() -> None:
    semi = played_round(2, [(1, 2), (3, 4)], [1, 4])
    final = redraw_knockout_pairing(view((1, 4), (semi,), number=3, third=ThirdPlace.SHARED))
    assert [p.kind for p in final.pairings] == [MatchKind.MAIN]


def test_no_playoff_with_a_single_semi_final_loser() -> None:
    """1 beat 2, 3 and 4 were both out, 5 had a bye: 2 is the only loser, so 3rd outright."""
    semi = played_round(2, [(1, 2), (3, 4)], [1, None], byes=(5,))
    final = redraw_knockout_pairing(view((1, 5), (semi,), number=3))
    assert [p.kind for p in final.pairings] == [MatchKind.MAIN]


def test_losers_of_played_semi_finals_play_for_third_even_beside_a_both_out() -> None:
    semi = played_round(2, [(1, 2), (3, 4), (5, 6)], [1, None, 6])
    final = redraw_knockout_pairing(view((1, 6), (semi,), number=3))
    third = [p for p in final.pairings if p.kind is MatchKind.THIRD_PLACE]
    assert [tuple(sorted(p.pairs)) for p in third] == [(2, 5)]
