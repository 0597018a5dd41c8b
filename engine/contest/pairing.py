"""What a contest format is made of: the values its four functions take and return.

A format (:class:`ContestFormat`) is data plus four functions — ``pair_round``,
``advance``, ``is_decided``, ``rank`` — kept apart from the format modules
(:mod:`engine.contest.knockouts`, :mod:`engine.contest.swiss`,
:mod:`engine.contest.movement`) so each of those imports only these values, and the
registry (:mod:`engine.contest.formats`) imports them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from engine.contest.errors import DrawRefused, Refusal
from engine.contest.families import Family
from engine.contest.lots import DrawSeed, Lots
from engine.contest.results import MatchKind
from engine.contest.rounds import Round, Stage


class ThirdPlace(Enum):
    PLAYOFF = "playoff"  # the semi-final losers play for 3rd (default)
    SHARED = "shared"  # the semi-final losers share 3rd (并列第三)


@dataclass(frozen=True, slots=True)
class MatchPoints:
    """积分 of one round in a points-paired contest (Swiss, docs/rules.md §4.6): configurable, 2/0 by default.

    Why a contest setting and not the engine's ``round_score``: the seeds leave 003-A's
    scale open ("计分表" is missing) and 002-D gives 2/0; the engine scores a match's
    deals, the contest only counts wins, losses, byes and the rare match nobody won. A bye
    (轮空) scores a win.
    """

    win: int = 2
    loss: int = 0
    bye: int = 2
    draw: int = 1  # a match nobody won (001-B's time-out with nobody past A, A17)


DEFAULT_POINTS = MatchPoints()


@dataclass(frozen=True, slots=True)
class Pairing:
    pairs: tuple[int, int]
    kind: MatchKind = MatchKind.MAIN


@dataclass(frozen=True, slots=True)
class RoundDraw:
    """A format's pairing of one round, before the contest gives it codes and tables.

    Table numbers follow the order of ``pairings`` (the first is table 1); ``stage``
    names the round's part of a multi-stage system (精方: ``qualifying``, ``repechage``,
    ``semi``…), which may change how its matches are played (``stage_rules``).
    """

    pairings: tuple[Pairing, ...]
    byes: tuple[int, ...] = ()
    stage: Stage = Stage.NONE


@dataclass(frozen=True, slots=True)
class RoundInput:
    """What a pairing function may look at."""

    number: int
    contenders: tuple[int, ...]  # sorted group numbers
    previous: tuple[Round, ...]
    lots: Lots  # this round's stream, label f"round:{number}"
    third_place: ThirdPlace = ThirdPlace.PLAYOFF
    seed: DrawSeed | None = None  # for draws made once for the whole contest (brackets, groups)
    pairs: tuple[int, ...] = ()  # every drawn pair, withdrawn or not
    tags: Mapping[int, str] = field(default_factory=dict)  # pair → unit (000-S) or time slot (002-E)
    points: MatchPoints = DEFAULT_POINTS

    def contest_lots(self, label: str) -> Lots:
        """A stream drawn once per contest (the same in every round), e.g. ``"bracket"``."""
        if self.seed is None:
            raise ValueError(f"the {label!r} draw needs the contest's seed")
        return self.seed.lots(label)


@dataclass(frozen=True, slots=True)
class RankInput:
    """What a ranking function may look at."""

    numbers: Sequence[int]  # every pair
    rounds: tuple[Round, ...]
    alive: tuple[int, ...]
    points: MatchPoints = DEFAULT_POINTS


PairRound = Callable[[RoundInput], RoundDraw]
Advance = Callable[[tuple[int, ...], Round], tuple[int, ...]]
IsDecided = Callable[[tuple[int, ...], tuple[Round, ...]], bool]
Rank = Callable[[RankInput], Mapping[int, int]]


@dataclass(frozen=True, slots=True)
class ContestFormat:
    """One organising document's contest system: data and its four rules."""

    name: str
    title_zh: str
    title_en: str
    description: str
    sources: tuple[str, ...]  # docs/rules.md §2.9 keys
    match_preset: str  # an engine.rules preset name: how each match is played
    pair_round: PairRound
    advance: Advance  # (contenders, complete round) → who goes on
    is_decided: IsDecided  # (who goes on, rounds so far) → no more rounds
    rank: Rank  # → pair → place (1 = best; ties share)
    self_scheduled_rounds: frozenset[int] = frozenset()  # rounds played before a deadline
    fixed_rounds: int | None = None  # Swiss, movement: decided after this many rounds
    min_pairs: int = 2
    max_pairs: int | None = None  # 004-A "共五轮": 32 pairs
    # stage → Rules settings changed for that stage's matches (精方: best of three from the semi-final).
    stage_rules: Mapping[Stage, Mapping[str, Any]] = field(default_factory=dict)
    prizes: tuple[tuple[str, int], ...] = ()  # the seed's prize tiers (docs/rules.md §4.1); () → 1st–3rd
    family: Family = Family.KNOCKOUT  # which standings columns (engine.contest.standings)
    named_rounds: bool = True  # knockout rounds named by the field left (决赛, 半决赛…); 002-C: not
    uses_tags: str = ""  # what a sign-up's tag means here: "unit" (000-S), "slot" (002-E)
    description_zh: str = ""  # ``description`` in Chinese, what /contest help shows by default

    @property
    def eliminates(self) -> bool:
        """Whether a match's loser is out (every knockout): such a match needs a winner, so a
        no-winner result (001-B's time-out) is accepted only in Swiss and movement formats."""
        return self.family.is_knockout

    @property
    def needs_winner(self) -> bool:
        """A knockout match needs a winner: a result naming nobody (001-B's time-out, A17) cannot
        stand where the loser is out. The one place this is decided; handlers ask."""
        return self.eliminates

    def check_field(self, count: int) -> None:
        """Refuse a draw this format cannot run (too few or too many pairs)."""
        if count < self.min_pairs:
            raise DrawRefused(Refusal.TOO_FEW_PAIRS, f"{count} pairs; {self.name} needs {self.min_pairs}")
        if self.max_pairs is not None and count > self.max_pairs:
            raise DrawRefused(Refusal.TOO_MANY_PAIRS, f"{count} pairs; {self.name} takes {self.max_pairs}")


def competition_ranking(keys: Mapping[int, tuple[Any, ...]]) -> dict[int, int]:
    """Standard competition ranking ("1224"): a higher key is a better place."""
    ordered = sorted(keys, key=lambda n: keys[n], reverse=True)
    places: dict[int, int] = {}
    for index, number in enumerate(ordered):
        same = index > 0 and keys[ordered[index - 1]] == keys[number]
        places[number] = places[ordered[index - 1]] if same else index + 1
    return places


def pair_off(order: Sequence[int], kind: MatchKind = MatchKind.MAIN) -> tuple[Pairing, ...]:
    """1st v 2nd, 3rd v 4th, … of an even-length order."""
    return tuple(Pairing((order[i], order[i + 1]), kind) for i in range(0, len(order) - 1, 2))
