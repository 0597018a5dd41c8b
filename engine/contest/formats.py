"""Contest formats: data plus four small functions, in a registry like the rule presets.

A format (:class:`ContestFormat`) says how a round is paired (``pair_round``), who
goes on after a complete round (``advance``), when the contest is decided
(``is_decided``) and how the pairs are ranked at the end (``rank``). The contest
state machine (:mod:`engine.contest.contest`) owns everything else — sign-up, the
draw of entrants, reports, deadlines — so a new format (Swiss, a movement, a fixed
bracket, a repechage stage) is one more entry of :data:`FORMATS`, not a new subsystem.

**Knockout redrawn every round** (000-E, 000-D, 000-I, 004-A), round ``r`` exactly:

1. The contenders (survivors of round ``r-1``, and its byes), sorted by group
   number, are shuffled with the label ``f"round:{r}"`` (:mod:`engine.contest.lots`).
2. With an odd count, the **bye** (轮空, §3.13: "差额小组自动轮空进入下轮抽签") goes
   to the *last* pair in that order among those with the fewest byes so far — so
   nobody gets a second bye while another pair has had none.
3. The others play in shuffled order: 1st v 2nd at table 1, 3rd v 4th at table 2, …
4. Winners and byes go on; a both-out match (000-E's deadline) sends neither.
5. **Third place** (configurable, :class:`ThirdPlace`): the pairs that *lost* a
   played match in the round that left two survivors (the semi-final) play for 3rd
   alongside the final (``PLAYOFF``, the default, 000-D "最后角逐一、二、三名"), or
   share 3rd (``SHARED``). A single such loser (3 survivors: a match and a bye) is
   3rd outright.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from engine.contest.errors import Refusal, UnknownFormat
from engine.contest.lots import Lots
from engine.contest.results import MatchKind, PlayMethod
from engine.contest.rounds import Round


class ThirdPlace(Enum):
    PLAYOFF = "playoff"  # the semi-final losers play for 3rd (default)
    SHARED = "shared"  # the semi-final losers share 3rd (并列第三)


@dataclass(frozen=True, slots=True)
class Pairing:
    pairs: tuple[int, int]
    kind: MatchKind = MatchKind.MAIN


@dataclass(frozen=True, slots=True)
class RoundDraw:
    """A format's pairing of one round, before the contest gives it codes and tables."""

    pairings: tuple[Pairing, ...]
    byes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundInput:
    """What a pairing function may look at."""

    number: int
    contenders: tuple[int, ...]  # sorted group numbers
    previous: tuple[Round, ...]
    lots: Lots
    third_place: ThirdPlace = ThirdPlace.PLAYOFF


PairRound = Callable[[RoundInput], RoundDraw]
Advance = Callable[[tuple[int, ...], Round], tuple[int, ...]]
IsDecided = Callable[[tuple[int, ...], tuple[Round, ...]], bool]
Rank = Callable[[Sequence[int], tuple[Round, ...], tuple[int, ...]], Mapping[int, int]]


@dataclass(frozen=True, slots=True)
class ContestFormat:
    """One organising document's contest system: data and its four rules."""

    name: str
    title_zh: str
    title_en: str
    description: str
    sources: tuple[str, ...]  # RULES.md §0.1 keys
    match_preset: str  # an engine.rules preset name: how each match is played
    pair_round: PairRound
    advance: Advance  # (contenders, complete round) → who goes on
    is_decided: IsDecided  # (who goes on, rounds so far) → no more rounds
    rank: Rank  # (all pairs, rounds, final survivors) → pair → place (1 = best; ties share)
    self_scheduled_rounds: frozenset[int] = frozenset()  # rounds played before a deadline


# ---------------------------------------------------------------- knockout redrawn every round


def redraw_knockout_pairing(view: RoundInput) -> RoundDraw:
    """Steps 1–3 and 5 of the module docstring."""
    order = view.lots.shuffle(sorted(view.contenders))
    byes: tuple[int, ...] = ()
    if len(order) % 2:
        bye = _bye_pick(order, view.previous)
        byes, order = (bye,), tuple(n for n in order if n != bye)
    pairings = [Pairing((order[i], order[i + 1])) for i in range(0, len(order), 2)]
    third = _semi_final_losers(view.previous) if len(view.contenders) == 2 else ()
    if view.third_place is ThirdPlace.PLAYOFF and len(third) == 2:
        pairings.append(Pairing((third[0], third[1]), MatchKind.THIRD_PLACE))
    return RoundDraw(tuple(pairings), byes)


def _bye_pick(order: Sequence[int], previous: Sequence[Round]) -> int:
    counts = {n: sum(n in r.byes for r in previous) for n in order}
    fewest = min(counts.values())
    return [n for n in order if counts[n] == fewest][-1]


def _semi_final_losers(previous: Sequence[Round]) -> tuple[int, ...]:
    """Pairs that lost a played main match in the last round (the one that left two)."""
    if not previous:
        return ()
    losers = (
        m.opponent(m.winner)
        for m in previous[-1].main_matches
        if m.winner is not None and m.result is not None and m.result.method is not PlayMethod.BOTH_OUT
    )
    return tuple(sorted(losers))


def knockout_advance(contenders: tuple[int, ...], played: Round) -> tuple[int, ...]:
    """Winners of main matches and the bye go on; both-out matches send nobody."""
    winners = {m.winner for m in played.main_matches if m.winner is not None}
    return tuple(sorted(n for n in contenders if n in winners or n in played.byes))


def knockout_decided(alive: tuple[int, ...], rounds: tuple[Round, ...]) -> bool:
    return len(alive) <= 1


def knockout_rank(
    numbers: Sequence[int], rounds: tuple[Round, ...], alive: tuple[int, ...]
) -> dict[int, int]:
    """Places by how far each pair got (see :func:`_knockout_key`); equal keys share a place."""
    keys = {n: _knockout_key(n, rounds, alive) for n in numbers}
    return competition_ranking(keys)


def _knockout_key(number: int, rounds: tuple[Round, ...], alive: tuple[int, ...]) -> tuple[int, ...]:
    """(champion, last round reached, last match was the main one, won it, not both-out)."""
    reached = [r for r in rounds if number in r.byes or r.match_of(number) is not None]
    if not reached:
        return (0, 0, 0, 0, 0)
    last = reached[-1]
    match = last.match_of(number)
    if match is None:  # a bye in the last round reached
        return (int(number in alive), last.number, 1, 1, 1)
    result = match.result
    both_out = result is not None and result.method is PlayMethod.BOTH_OUT
    return (
        int(number in alive),
        last.number,
        int(match.kind is MatchKind.MAIN),
        int(match.winner == number),
        int(not both_out),
    )


def competition_ranking(keys: Mapping[int, tuple[int, ...]]) -> dict[int, int]:
    """Standard competition ranking ("1224"): a higher key is a better place."""
    ordered = sorted(keys, key=lambda n: keys[n], reverse=True)
    places: dict[int, int] = {}
    for index, number in enumerate(ordered):
        same = index > 0 and keys[ordered[index - 1]] == keys[number]
        places[number] = places[ordered[index - 1]] if same else index + 1
    return places


# ---------------------------------------------------------------- the registry

FORMATS: dict[str, ContestFormat] = {
    f.name: f
    for f in (
        ContestFormat(
            name="wechat-knockout",
            title_zh="中心微信群淘汰赛（每轮重新抽签）",
            title_en="Centre WeChat group knockout, redrawn every round",
            description=(
                "Knockout redrawn every round among the survivors; a leftover pair gets a bye into the "
                "next draw; round 1 self-scheduled before a deadline (both pairs out if not played or "
                "not reported); six scored deals per match; places 1-3."
            ),
            sources=("000-E",),
            match_preset="wechat-6-deals",
            pair_round=redraw_knockout_pairing,
            advance=knockout_advance,
            is_decided=knockout_decided,
            rank=knockout_rank,
            self_scheduled_rounds=frozenset({1}),
        ),
    )
}
"""Format name → :class:`ContestFormat`; :func:`find_format` looks one up."""


def find_format(name: str) -> ContestFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormat(
            Refusal.UNKNOWN_FORMAT, f"{name!r}; known: {', '.join(sorted(FORMATS))}"
        ) from None
