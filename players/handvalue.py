"""How good a hand is: its best split into plays (拆牌), as a cost in "weak plays".

A hand goes out one play at a time, and each play either wins its trick (a control:
jokers, high singles and pairs, top straights) or needs someone else to lose control
first. :func:`evaluate` splits the hand into plays minimising the sum of the plays'
weakness — ``1`` for a play that almost never wins its trick, near ``0`` for one that
nearly always does, below ``0`` for bombs, which take control back when needed:

- bombs (4+ of a rank, 同花顺, 四王) are kept whole and never split into other plays;
- straights, pair runs and triple runs are tried from the lowest rank up (a search with
  a memo, every card of the lowest rank left being either in a group or starting a run);
- a triple carries the weakest pair as a full house (三带二), so that pair costs nothing;
- wildcards (逢人配) go where they save the most: filling a run's gap, lifting a single
  to a pair or a triple to a bomb, lengthening a bomb, or kept as level cards.

The weights are tuned by the arena (:mod:`tools.arena`): against ``greedy`` and
``easy`` over duplicate deals. They are constants of this module, not settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from engine.cards import Card, Rank, Suit

Combo = tuple[str, tuple[int, ...], int, int]
"""An abstract play of a split: (kind code, natural positions, cards per position, wildcards).

Positions are 0..12 for 2..A; kind codes: ``S`` single, ``P`` pair, ``T`` triple, ``B`` bomb,
``ST`` straight, ``PR`` pair run, ``TR`` triple run, ``SF`` straight flush, ``J`` jokers
(positions hold 13 for 小王 and 14 for 大王), ``W`` wildcards kept as level cards, ``BW``
wildcards lengthening a bomb.
"""

ACE: Final = 12
"""Position of A (positions are natural rank − 2)."""

BOMB_BONUS: Final = {4: 1.0, 5: 1.2, 6: 1.5, 7: 1.6, 8: 1.7, 9: 1.8, 10: 1.9}
"""What a bomb of n cards is worth (negative cost): a 4-bomb regains control once."""

STRAIGHT_FLUSH_BONUS: Final = 1.4
JOKER_BOMB_BONUS: Final = 2.2
WILD_ON_BOMB: Final = 0.15
"""A wildcard lengthening a bomb moves it up the ladder, worth less than a saved play."""

MAX_FLUSH_OPTIONS: Final = 4
"""Straight flushes tried per hand (each, and each disjoint two, reruns the search): a hand
rarely holds more than two, and more options cost milliseconds on wildcard hands."""

_SEQUENCES: Final = (("ST", 5, 1), ("PR", 3, 2), ("TR", 2, 3))
"""(kind code, ranks spanned, cards per rank) of the runs."""


def clamp(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x


def single_cost(order: int) -> float:
    """A single of this level order (2..17): 3..10 rarely hold a trick, 大王 always does."""
    return 1.0 - clamp((order - 10) / 7)


def pair_cost(order: int) -> float:
    return 1.0 - clamp((order - 9) / 6)


def triple_cost(order: int) -> float:
    return 1.0 - clamp((order - 7) / 8)


def run_cost(code: str, top: int) -> float:
    """Straights are followed often, triple runs seldom: the top rank decides."""
    if code == "ST":
        return 1.0 - clamp((top - 9) / 6)
    if code == "PR":
        return 1.0 - clamp((top - 6) / 9)
    return 0.8 - 0.6 * clamp((top - 4) / 10)


@dataclass(frozen=True, slots=True)
class Split:
    """The best split found: total cost, the plays, and how many of them are not bombs."""

    cost: float
    combos: tuple[Combo, ...]

    @property
    def plays(self) -> int:
        """Plays still to make, bombs included."""
        return len(self.combos)

    @property
    def weak(self) -> int:
        return sum(1 for combo in self.combos if combo[0] not in ("B", "SF") and not _joker_bomb(combo))


def _joker_bomb(combo: Combo) -> bool:
    return combo[0] == "J" and combo[2] == 4


SPLIT_CAP = 20_000
"""Best splits kept per level (hand → split, about 350 bytes each), cleared when full. The
bot's tables share one evaluator per level; a decision's own hands are what it reuses."""

RUN_MEMO_CAP = 100_000
"""Entries of the run search's memo kept per level (about 180 bytes each), cleared when full:
a decision's candidate remainders share most of their sub-searches, which this still holds at
150 busy tables, while the bot's resident memory per table stays about 1 MB."""


class Evaluator:
    """:func:`evaluate` for one level, with the memo of the run search shared between calls."""

    def __init__(self, level: Rank) -> None:
        self.level = level
        self.level_pos = int(level) - 2
        self.wild_index = Card(level, Suit.HEARTS).index
        self._orders = tuple(15 if pos == self.level_pos else pos + 2 for pos in range(13))
        self._memo: dict[int, _Chain] = {}
        self._cache: dict[bytes, Split] = {}
        self._group_costs = tuple(
            (
                0.0,
                single_cost(order),
                pair_cost(order),
                triple_cost(order),
                *(-(BOMB_BONUS[min(size, 10)] + 0.01 * order) for size in range(4, 11)),
            )
            for order in self._orders
        )
        """Per position, the cost of a group of 0..10 cards (single, pair, triple, bombs)."""
        self._pair_codes = {
            cost: code for code, cost in enumerate(sorted({c[2] for c in self._group_costs}), 1)
        }
        """The run search's memo key names a waiting pair by the rank of its cost (4 bits)."""

    def order(self, pos: int) -> int:
        return self._orders[pos]

    def evaluate(self, cards: Iterable[Card]) -> Split:
        """The best split of ``cards`` (a multiset)."""
        faces = [0] * 54
        for card in cards:
            faces[card.index] += 1
        key = bytes(faces)  # a fifth of a tuple's size
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > SPLIT_CAP:
                self._cache.clear()
            found = self._cache[key] = self._evaluate(faces)
        return found

    def _evaluate(self, faces: list[int]) -> Split:
        wild = faces[self.wild_index]
        naturals = list(faces)
        naturals[self.wild_index] = 0
        best: tuple[float, tuple[Combo, ...]] | None = None
        for flushes, used in self._flush_options(naturals, wild):
            rest = list(naturals)
            for _, positions, suit, _ in flushes:
                for pos in positions:
                    rest[pos * 4 + suit] -= 1
            cost, combos = self._after_flushes(rest, wild - used)
            cost -= STRAIGHT_FLUSH_BONUS * len(flushes)
            combos = tuple(("SF", positions, suit, w) for _, positions, suit, w in flushes) + combos
            if best is None or cost < best[0] - 1e-9:
                best = (cost, combos)
        assert best is not None
        return Split(round(best[0], 6), best[1])

    def _flush_options(
        self, naturals: Sequence[int], wild: int
    ) -> list[tuple[tuple[tuple[int, tuple[int, ...], int, int], ...], int]]:
        """Straight-flush sets to take out first: none, each one, each disjoint two (wildcards fill gaps)."""
        found: list[tuple[int, tuple[int, ...], int, int]] = []  # (low, positions, suit, wildcards)
        gaps = min(wild, 1)
        for suit in range(4):
            held = 0
            for pos in range(13):
                if naturals[pos * 4 + suit]:
                    held |= 1 << pos
            if held.bit_count() < 5 - gaps:
                continue
            for low, mask, positions in _FLUSH_WINDOWS:
                missing = 5 - (held & mask).bit_count()
                if missing <= gaps:
                    present = positions if not missing else tuple(p for p in positions if held >> p & 1)
                    found.append((low, present, suit, missing))
        options: list[tuple[tuple[tuple[int, tuple[int, ...], int, int], ...], int]] = [((), 0)]
        found = sorted(found, key=lambda option: option[3])[:MAX_FLUSH_OPTIONS]  # natural ones first
        for i, one in enumerate(found):
            options.append(((one,), one[3]))
            for two in found[i + 1 :]:
                if one[3] + two[3] <= wild and _fits(naturals, (one, two)):
                    options.append(((one, two), one[3] + two[3]))
        return options

    def _after_flushes(self, naturals: list[int], wild: int) -> tuple[float, tuple[Combo, ...]]:
        """Bombs and jokers set apart, then the run search; spare wildcards may lengthen a bomb."""
        counts = [sum(naturals[pos * 4 : pos * 4 + 4]) for pos in range(13)]
        cost = 0.0
        combos: list[Combo] = []
        bombs = [pos for pos in range(13) if counts[pos] >= 4]
        for pos in bombs:
            cost -= BOMB_BONUS[min(counts[pos], 10)] + 0.01 * self.order(pos)
            combos.append(("B", (pos,), counts[pos], 0))
            counts[pos] = 0
        small, big = naturals[52], naturals[53]
        if small == 2 and big == 2:
            cost -= JOKER_BOMB_BONUS
            combos.append(("J", (13, 14), 4, 0))
        else:
            for pos, n, order in ((13, small, 16), (14, big, 17)):
                if n:
                    cost += pair_cost(order) if n == 2 else single_cost(order)
                    combos.append(("J", (pos,), n, 0))
        packed = sum(n << 2 * pos for pos, n in enumerate(counts))
        chain: _Chain | None = self._search(packed, wild, 0, (), 1 if bombs else 0)
        assert chain is not None
        cost += chain[0]
        while chain is not None and chain[1] is not None:
            combos.append(chain[1])
            chain = chain[2]
        return cost, tuple(combos)

    def _search(self, counts: int, wild: int, triples: int, pairs: tuple[float, ...], bombs: int) -> _Chain:
        """Cheapest split of ``counts`` (2 bits a position): runs from the lowest rank, else its group.

        ``triples`` counts triples still without a pair; ``pairs`` the costs of pairs still
        without a triple (weakest first), so a later triple takes the weakest along; ``bombs``
        is 1 when the hand holds a bomb, which spare wildcards lengthen. It is an argument, not
        the evaluator's state, because worker threads share one evaluator per level.
        The group and run costs come from tables built per level (:meth:`__init__`).
        A result is a chain ``(cost, combo, rest)`` sharing its rest with the memo's other
        entries: an entry is three small objects, so the memo is small and quick to drop.
        """
        if not counts:
            return self._spare_wildcards(wild, triples, bombs)
        codes = self._pair_codes
        key = counts | wild << 26 | triples << 28 | bombs << 30
        for shift, cost in zip((31, 35, 39), pairs, strict=False):
            key |= codes[cost] << shift
        memo = self._memo
        found = memo.get(key)
        if found is not None:
            return found
        if len(memo) > RUN_MEMO_CAP:
            memo.clear()
        search = self._search
        pos = ((counts & -counts).bit_length() - 1) >> 1  # the lowest rank left
        shift = 2 * pos
        n = counts >> shift & 3
        rest = counts & ~(3 << shift)
        # The lowest rank's cards as one group, lifted by 0..2 wildcards.
        group_costs = self._group_costs[pos]
        group_combos = _GROUP_COMBOS[pos][n]
        best: _Chain | None = None
        for used in range(min(wild, 2) + 1):
            size = n + used
            if used == 2 and size < 4:  # both wildcards only to make a bomb
                break
            t, p = triples, pairs
            cost = group_costs[size]
            if size == 2:
                if t:
                    cost, t = 0.0, t - 1
                else:
                    p = tuple(sorted((*p, cost), reverse=True))[:3]
            elif size == 3:
                if p:
                    cost, p = cost - p[0], p[1:]
                else:
                    t += 1
            sub = search(rest, wild - used, min(t, 3), p, bombs)
            total = cost + sub[0]
            if best is None or total < best[0] - 1e-9:
                best = (total, group_combos[used], sub)
        assert best is not None
        for positions, per, run, combos in _RUNS[pos]:
            need = 0
            taken = counts
            for q in positions:
                held = counts >> 2 * q & 3
                if held < per:
                    need += per - held
                    if need > 1:  # a run needing both wildcards is never worth them
                        break
                taken -= min(per, held) << 2 * q
            if need > wild or need > 1:
                continue
            sub = search(taken, wild - need, triples, pairs, bombs)
            cost = sub[0] + run
            if cost < best[0] - 1e-9:
                best = (cost, combos[need], sub)
        memo[key] = best
        return best

    def _spare_wildcards(self, wild: int, triples: int, bombs: int) -> _Chain:
        """Wildcards left over lengthen a bomb, else are level cards: one single, or a pair
        (carried by a triple)."""
        if not wild:
            return _END
        if bombs:
            return -WILD_ON_BOMB * wild, ("BW", (), 0, wild), _END
        if wild == 1:
            return single_cost(15), ("W", (), 0, 1), _END
        return (0.0 if triples else pair_cost(15)), ("W", (), 0, 2), _END


def _fits(naturals: Sequence[int], flushes: Iterable[tuple[int, tuple[int, ...], int, int]]) -> bool:
    need = [0] * 54
    for _, positions, suit, _ in flushes:
        for pos in positions:
            need[pos * 4 + suit] += 1
    return all(naturals[i] >= n for i, n in enumerate(need))


_FLUSH_WINDOWS: Final = tuple(
    (low, sum(1 << p for p in positions), positions)
    for low in range(-1, 9)
    for positions in [tuple(ACE if p < 0 else p for p in range(low, low + 5))]
)
"""Straight-flush windows: (low position, -1 for A2345; mask of positions; positions)."""

_GROUP_CODES: Final = ("", "S", "P", "T", "B")


def _windows(pos: int, length: int) -> tuple[tuple[int, ...], ...]:
    """Runs of ``length`` ranks starting at ``pos`` (and, at 2, the one with a low A)."""
    windows = []
    if pos + length <= 13:
        windows.append(tuple(range(pos, pos + length)))
    if pos == 0:
        windows.append((*range(0, length - 1), ACE))
    return tuple(windows)


def _run_top(positions: tuple[int, ...]) -> int:
    return len(positions) if positions[-1] == ACE and positions[0] == 0 else positions[-1] + 2


_RUNS: Final = tuple(
    tuple(
        (
            positions,
            per,
            run_cost(code, _run_top(positions)),
            ((code, positions, per, 0), (code, positions, per, 1)),
        )
        for code, length, per in _SEQUENCES
        for positions in _windows(pos, length)
    )
    for pos in range(13)
)
"""Per lowest position, the runs starting there: (positions, cards per rank, cost, its combo
with no wildcard and with one)."""

_GROUP_COMBOS: Final = tuple(
    tuple(tuple((_GROUP_CODES[min(n + used, 4)], (pos,), n, used) for used in range(3)) for n in range(4))
    for pos in range(13)
)
"""The group combo of ``n`` natural cards at a position lifted by ``used`` wildcards, made once."""

_Chain = tuple[float, "Combo | None", "_Chain | None"]
"""A split found by the run search: its cost, its first combo and the rest (``None`` at the end)."""

_END: Final[_Chain] = (0.0, None, None)
