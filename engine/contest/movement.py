"""分组三轮移位总得分制 (001-B, docs/rules.md §4.5): groups of four pairs, three rounds, total score.

**Groups**, drawn once with the label ``"groups"``: every pair, sorted by group number,
shuffled, then cut into groups of four in that order — or of three where the field is
not a multiple of four (10 pairs: 4 + 3 + 3; 5 pairs cannot be grouped and are refused).
A pair's position in its group (1–4) is its place in the shuffled order.

**Movement table** (移位表): each pair meets the other three of its group once;
"按移位表顺序，排前坐南北，排后坐东西" — the pair listed first sits North–South:

=====  ============  ============
round  table 1       table 2
=====  ============  ============
1      1 – 2         3 – 4
2      4 – 1         2 – 3
3      1 – 3         4 – 2
=====  ============  ============

(every pair sits NS at least once). A group of three plays 1–2, 3–1, 2–3, the third
pair having a bye (轮空, no score) each round. Group ``g``'s tables are numbered after
group ``g-1``'s.

**Score**: the engine's round score (:func:`engine.scoring.round_score`, A17): the
winner 100 + 级差 (≤ 15), otherwise the levels climbed (≤ 12), summed over the three
rounds. Places: total score, then Σ 级差, then wins; equal pairs share a place.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from engine.contest.errors import DrawRefused, Refusal
from engine.contest.lots import DrawSeed
from engine.contest.pairing import Pairing, RankInput, RoundDraw, RoundInput, competition_ranking
from engine.contest.rounds import Round, Stage
from engine.contest.scores import pair_scores

MOVEMENT_ROUNDS = 3
# Positions (1-based) per round: (NS, EW) at each of the group's tables.
MOVEMENT_FOUR = (((1, 2), (3, 4)), ((4, 1), (2, 3)), ((1, 3), (4, 2)))
MOVEMENT_THREE = (((1, 2),), ((3, 1),), ((2, 3),))


def group_sizes(count: int) -> tuple[int, ...]:
    """Fours, then as many threes as the remainder needs (0, 3, 6 or 9 pairs in threes)."""
    threes = (-count) % 4 if count % 4 else 0
    if count < 3 or count - 3 * threes < 0:  # 1, 2 and 5 pairs
        raise DrawRefused(Refusal.FIELD_SIZE, f"{count} pairs cannot form groups of 3 and 4")
    return (4,) * ((count - 3 * threes) // 4) + (3,) * threes


def movement_groups(view: RoundInput) -> tuple[tuple[int, ...], ...]:
    """The drawn groups, each in position order."""
    if view.seed is None:
        raise ValueError("the groups' draw needs the contest's seed")
    return drawn_groups(view.seed, view.pairs)


def drawn_groups(seed: DrawSeed, pairs: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The groups drawn from the contest's seed for these (all drawn) pairs, each in position
    order — what the pairing message shows above each group's tables."""
    order = seed.lots("groups").shuffle(sorted(pairs))
    groups: list[tuple[int, ...]] = []
    start = 0
    for size in group_sizes(len(order)):
        groups.append(tuple(order[start : start + size]))
        start += size
    return tuple(groups)


def movement_pairing(view: RoundInput) -> RoundDraw:
    """Round ``r`` of the movement table in every group; a withdrawn opponent leaves a bye."""
    pairings: list[Pairing] = []
    byes: list[int] = []
    for group in movement_groups(view):
        table = MOVEMENT_FOUR if len(group) == 4 else MOVEMENT_THREE
        seated: set[int] = set()
        for ns, ew in table[(view.number - 1) % MOVEMENT_ROUNDS]:
            a, b = group[ns - 1], group[ew - 1]
            seated |= {a, b}
            if a in view.contenders and b in view.contenders:
                pairings.append(Pairing((a, b)))
            else:
                byes.extend(n for n in (a, b) if n in view.contenders)
        byes.extend(n for n in group if n not in seated and n in view.contenders)
    return RoundDraw(tuple(pairings), tuple(sorted(byes)), stage=Stage.MOVEMENT)


def movement_rank(view: RankInput) -> dict[int, int]:
    scores = pair_scores(view.numbers, view.rounds, view.points)
    keys: dict[int, tuple[int, Fraction, int]] = {
        n: (scores[n].round_score, scores[n].level_difference, scores[n].won) for n in view.numbers
    }
    return competition_ranking(keys)


def movement_advance(contenders: tuple[int, ...], played: Round) -> tuple[int, ...]:
    return contenders
