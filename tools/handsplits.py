"""How the hidden hands split each rank, true against sampled: ``python -m tools.handsplits --seed 5``.

标准 keeps pairs, triples and bombs whole, so the cards a seat cannot see lie together far more
often than a uniform deal of them would put them. For each rank with k unseen natural cards
(wildcards apart, jokers by colour) this prints how often the three hidden hands split them
each way (``310``: three in one hand, one in another), in the true hands, in a uniform deal and
in :func:`players.master.sample_hands` with its :data:`~players.master.AFFINITY`,
on :mod:`tools.searchcheck`'s positions. ``--fit`` searches the affinities (coordinate steps)
that bring the sampled splits nearest the true ones. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter, defaultdict
from collections.abc import Sequence

from engine.cards import Card, Rank
from engine.rules import Rules
from players import master
from tools.searchcheck import Position, positions

Splits = dict[int, Counter[str]]
"""For each count of unseen natural copies of a rank: how often each split occurred."""


def splits(found: Sequence[tuple[int, int, list[list[Card]]]]) -> Splits:
    """(seat, level, hands) → the splits of every rank with two or more unseen natural copies."""
    out: Splits = defaultdict(Counter)
    for seat, level, hands in found:
        per: dict[Rank, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for other in range(4):
            if other != seat:
                for card in hands[other]:
                    if not card.is_wildcard(Rank(level)):
                        per[card.rank][other] += 1
        for counts in per.values():
            split = sorted((n for s, n in enumerate(counts) if s != seat), reverse=True)
            if sum(split) >= 2:
                out[sum(split)]["".join(map(str, split))] += 1
    return out


def distance(true: Splits, drawn: Splits) -> float:
    """Rank splits that would have to change for the drawn splits to match the true ones."""
    total = 0.0
    for k, counts in true.items():
        n, m = sum(counts.values()), sum(drawn[k].values()) or 1
        total += n * 0.5 * sum(abs(counts[s] / n - drawn[k][s] / m) for s in set(counts) | set(drawn[k]))
    return total


def drawn(found: Sequence[Position], affinity: Sequence[float], reps: int = 1) -> Splits:
    out = []
    for r in range(reps):
        for i, p in enumerate(found):
            assert p.obs.seat is not None
            hands = master.sample_hands(p.obs, random.Random(f"{r}-{i}"), affinity)
            if hands is not None:
                out.append((p.obs.seat, int(p.obs.level), hands))
    return splits(out)


def fit(found: Sequence[Position], true: Splits, start: Sequence[float], rounds: int = 3) -> list[float]:
    """Coordinate steps on the affinities (the first stays 1) towards the smallest distance."""
    best = list(start)
    score = distance(true, drawn(found, best, 2))
    for _ in range(rounds):
        for i in range(1, len(best)):
            for step in (0.5, 0.7, 1.4, 2.0):
                trial = list(best)
                trial[i] = round(trial[i] * step, 3)
                trial_score = distance(true, drawn(found, trial, 2))
                if trial_score < score:
                    best, score = trial, trial_score
    return best


def show(name: str, result: Splits, true: Splits) -> str:
    lines = [f"{name}: distance {distance(true, result):.0f}"]
    for k in sorted(result):
        n = sum(result[k].values()) or 1
        lines.append(
            f"  k={k}: " + ", ".join(f"{s} {v / n:.2f}" for s, v in sorted(result[k].items(), reverse=True))
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.handsplits", description=__doc__)
    parser.add_argument("--shuffles", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--fit", action="store_true", help="search the affinities nearest the true splits")
    args = parser.parse_args(argv)
    rules = Rules.preset("default")
    found = positions(args.shuffles, args.seed, rules, master.DEFAULT_BUDGET.search_from, 0.25)
    true = splits([(p.obs.seat, int(p.obs.level), p.hands) for p in found if p.obs.seat is not None])
    uniform, sampled = drawn(found, (1.0,)), drawn(found, master.AFFINITY)
    print(f"{len(found)} positions from {args.shuffles} shuffles (seed {args.seed})")
    for name, result in (
        ("true hands", true),
        ("uniform deal", uniform),
        (f"sampler {master.AFFINITY}", sampled),
    ):
        print(show(name, result, true))
    figures: dict[str, object] = {
        "positions": len(found),
        "distance_uniform": round(distance(true, uniform)),
        "distance_sampler": round(distance(true, sampled)),
    }
    if args.fit:
        fitted = fit(found, true, master.AFFINITY)
        print(show(f"fitted {tuple(fitted)}", drawn(found, fitted), true))
        figures["fitted"] = fitted
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
