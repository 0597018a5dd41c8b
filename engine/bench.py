"""Timing of :func:`legal_plays` on full 27-card hands (``python -m engine bench``).

Hands are dealt from a seeded RNG with exactly 0, 1 and 2 wildcards, because
wildcards multiply the number of plays. Each hand is timed leading and following a
realistic table play: a single, pair, triple, full house, straight or run that a
second random hand could make.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.cards import SUITS, Card, Rank, full_deck, parse_rank
from engine.moves import legal_plays
from engine.plays import Play

HAND_SIZE = 27


@dataclass(frozen=True, slots=True)
class Timing:
    """Milliseconds per call and the mean number of plays returned."""

    median_ms: float
    p99_ms: float
    mean_plays: float


def deal_hand(rng: random.Random, level: Rank, wildcards: int) -> list[Card]:
    """27 cards from two packs holding exactly ``wildcards`` of the level's ♥ cards."""
    wildcard = Card(level, SUITS[1])
    others = [card for card in full_deck() if card is not wildcard]
    return rng.sample(others, HAND_SIZE - wildcards) + [wildcard] * wildcards


def table_play(rng: random.Random, level: Rank) -> Play:
    """A non-bomb lead from another random hand, its kind chosen uniformly first."""
    plays = [play for play in legal_plays(deal_hand(rng, level, 0), level) if not play.is_bomb]
    kinds = sorted({play.kind for play in plays}, key=lambda kind: kind.value)
    kind = rng.choice(kinds)
    return rng.choice([play for play in plays if play.kind is kind])


def time_calls(call: Callable[[], list[Play]], repeat: int) -> tuple[float, int]:
    """Best of ``repeat`` wall-clock times in ms (filters scheduler noise), and the result size."""
    best = float("inf")
    size = 0
    for _ in range(repeat):
        start = time.perf_counter()
        size = len(call())
        best = min(best, (time.perf_counter() - start) * 1000)
    return best, size


def summarize(times: list[float], sizes: list[int]) -> Timing:
    times = sorted(times)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return Timing(statistics.median(times), p99, statistics.fmean(sizes))


def measure(hands: int, wildcards: int, level: Rank, seed: int, repeat: int) -> tuple[Timing, Timing]:
    """(lead, follow) timings over ``hands`` seeded deals with ``wildcards`` wildcards."""
    rng = random.Random(f"{seed}/{wildcards}")
    lead_times, lead_sizes, follow_times, follow_sizes = [], [], [], []
    for _ in range(hands):
        hand = deal_hand(rng, level, wildcards)
        previous = table_play(rng, level)
        elapsed, size = time_calls(lambda: legal_plays(hand, level), repeat)  # noqa: B023
        lead_times.append(elapsed)
        lead_sizes.append(size)
        elapsed, size = time_calls(lambda: legal_plays(hand, level, previous), repeat)  # noqa: B023
        follow_times.append(elapsed)
        follow_sizes.append(size)
    return summarize(lead_times, lead_sizes), summarize(follow_times, follow_sizes)


def main(argv: Sequence[str] | None = None) -> int:
    """Print median / p99 ms and mean plays for leading and following, per wildcard count."""
    parser = argparse.ArgumentParser(prog="python -m engine bench", description=__doc__)
    parser.add_argument("--hands", type=int, default=200, help="hands per wildcard count")
    parser.add_argument("--level", default="2", help="level rank (2..A)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per hand (best kept)")
    args = parser.parse_args(argv)
    level = parse_rank(args.level)
    print(f"legal_plays on {args.hands} seeded 27-card hands per row, level {level.char}")
    print(f"{'wild':>4} {'mode':>6} {'median ms':>10} {'p99 ms':>8} {'mean plays':>11}")
    for wildcards in (0, 1, 2):
        lead, follow = measure(args.hands, wildcards, level, args.seed, args.repeat)
        for mode, timing in (("lead", lead), ("follow", follow)):
            print(
                f"{wildcards:>4} {mode:>6} {timing.median_ms:>10.3f} {timing.p99_ms:>8.3f}"
                f" {timing.mean_plays:>11.1f}"
            )
    return 0
