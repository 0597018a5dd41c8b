"""Timing of :func:`legal_plays`, the 简单 AI's and the 标准 planner's ``choose_action``
on full 27-card hands (``python bench/moves.py``).

Hands are dealt from a seeded RNG with exactly 0, 1 and 2 wildcards, because
wildcards multiply the number of plays. Each hand is timed leading and following a
realistic table play: a single, pair, triple, full house, straight or run that a
second random hand could make. The AI runs in the bot's event loop for every AI
seat and every hint, so its time per decision is a latency budget. The planner is
timed with its evaluator's memo emptied before every call (a fresh hand, nothing
cached); its rows end with the median and p99 over all its decisions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from engine.cards import SUITS, Card, Rank, full_deck, parse_rank
from engine.match import Match, observe
from engine.moves import legal_plays
from engine.observation import Observation
from engine.plays import Play
from engine.rules import Rules
from players import planner
from players.easy import choose_action

HAND_SIZE = 27


@dataclass(frozen=True, slots=True)
class Timing:
    """Milliseconds per call and the mean number of plays returned."""

    median_ms: float
    p99_ms: float
    mean_plays: float
    times_ms: list[float]


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
    return best_ms(call, repeat), len(call())


def best_ms(call: Callable[[], object], repeat: int) -> float:
    """Best of ``repeat`` wall-clock times of ``call`` in ms."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def summarize(times: list[float], sizes: list[int]) -> Timing:
    times = sorted(times)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return Timing(statistics.median(times), p99, statistics.fmean(sizes), times)


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


def ai_views(base: Observation, hand: list[Card], level: Rank, previous: Play) -> tuple[Observation, ...]:
    """Seat ``base.seat`` holding ``hand``: leading, then following ``previous`` by an
    opponent while every other seat is about to go out, so bombs are considered too."""
    assert base.seat is not None
    north, west, south, east = (
        replace(view, place=None, cards_left=len(hand) if view.seat == base.seat else 5)
        for view in base.seats
    )
    lead = replace(
        base,
        hand=tuple(hand),
        level=level,
        to_act=(base.seat,),
        seats=(north, west, south, east),
        table_play=None,
    )
    opponent = (base.seat + 1) % 4
    return lead, replace(lead, table_play=previous, table_seat=opponent)


def measure_ai(hands: int, wildcards: int, level: Rank, seed: int, repeat: int) -> tuple[Timing, Timing]:
    """(lead, follow) timings of :func:`choose_action` on the hands :func:`measure` times."""
    rules = Rules.default()
    base = observe(Match.new(rules, seed), 0)
    rng = random.Random(f"{seed}/{wildcards}")
    lead_times, follow_times = [], []
    for _ in range(hands):
        hand = deal_hand(rng, level, wildcards)
        lead, follow = ai_views(base, hand, level, table_play(rng, level))
        lead_times.append(best_ms(lambda: choose_action(lead, rules), repeat))  # noqa: B023
        follow_times.append(best_ms(lambda: choose_action(follow, rules), repeat))  # noqa: B023
    return summarize(lead_times, [1] * hands), summarize(follow_times, [1] * hands)


def measure_planner(hands: int, wildcards: int, level: Rank, seed: int, repeat: int) -> tuple[Timing, Timing]:
    """(lead, follow) timings of :func:`planner.choose_action`, its memo empty at each call."""
    rules = Rules.default()
    base = observe(Match.new(rules, seed), 0)
    rng = random.Random(f"{seed}/{wildcards}")
    lead_times, follow_times = [], []

    def fresh(obs: Observation) -> None:
        planner.evaluator.cache_clear()
        planner.choose_action(obs, rules)

    for _ in range(hands):
        hand = deal_hand(rng, level, wildcards)
        lead, follow = ai_views(base, hand, level, table_play(rng, level))
        lead_times.append(best_ms(lambda: fresh(lead), repeat))  # noqa: B023
        follow_times.append(best_ms(lambda: fresh(follow), repeat))  # noqa: B023
    return summarize(lead_times, [1] * hands), summarize(follow_times, [1] * hands)


def main(argv: Sequence[str] | None = None) -> int:
    """Print median / p99 ms for leading and following, per wildcard count and section."""
    parser = argparse.ArgumentParser(prog="python bench/moves.py", description=__doc__)
    parser.add_argument("--hands", type=int, default=200, help="hands per wildcard count")
    parser.add_argument("--level", default="2", help="level rank (2..A)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per hand (best kept)")
    parser.add_argument("--section", choices=("all", "moves", "ai", "planner"), default="all")
    args = parser.parse_args(argv)
    level = parse_rank(args.level)
    sections = {
        "moves": ("legal_plays", measure, True),
        "ai": ("choose_action", measure_ai, False),
        "planner": ("planner.choose_action (标准, empty memo)", measure_planner, False),
    }
    for name, (timed, timer, show_plays) in sections.items():
        if args.section not in ("all", name):
            continue
        print(f"{timed} on {args.hands} seeded 27-card hands per row, level {level.char}")
        plays = f" {'mean plays':>11}" if show_plays else ""
        print(f"{'wild':>4} {'mode':>6} {'median ms':>10} {'p99 ms':>8}{plays}")
        every: list[float] = []
        for wildcards in (0, 1, 2):
            lead, follow = timer(args.hands, wildcards, level, args.seed, args.repeat)
            print_rows(wildcards, lead, follow, show_plays=show_plays)
            every.extend(lead.times_ms + follow.times_ms)
        if name == "planner":
            overall = summarize(every, [1])
            print(f"{'all':>4} {'both':>6} {overall.median_ms:>10.3f} {overall.p99_ms:>8.3f}")
    return 0


def print_rows(wildcards: int, lead: Timing, follow: Timing, *, show_plays: bool) -> None:
    for mode, timing in (("lead", lead), ("follow", follow)):
        plays = f" {timing.mean_plays:>11.1f}" if show_plays else ""
        print(f"{wildcards:>4} {mode:>6} {timing.median_ms:>10.3f} {timing.p99_ms:>8.3f}{plays}")


if __name__ == "__main__":
    sys.exit(main())
