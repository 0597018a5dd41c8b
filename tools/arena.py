"""Duplicate-deal arena: ``python -m tools.arena --a normal --b greedy --deals 400 --seed 1``.

Card luck is cancelled as in duplicate bridge: every shuffle is played twice, the
second time with the two policies' seats swapped, so each policy holds both sides'
cards. Successive shuffles rotate the hands one seat on, and half of them start as a
later deal (a random previous finishing order), so tribute, return and 抗贡 are played
too. ``--deals`` counts shuffles; twice as many deals are played.

Printed: the deal win rate of ``--a``, the mean level gain per deal of each side, 95%
confidence intervals over the duplicate pairs (a pair's score is A's share of its two
deals, so the interval is that of the per-pair means), and each policy's decision time
median and p99. The last line is one JSON object with the same figures.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import DealEnded
from engine.cards import Card, full_deck
from engine.match import CARDS_PER_SEAT, Match, observe
from engine.rules import PRESETS, Rules
from players.policies import POLICIES


@dataclass
class Tally:
    """What one side scored and how long its decisions took."""

    wins: int = 0
    levels: int = 0
    times_ms: list[float] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PairResult:
    """A's deal wins (0..2) and level balance (A's gain minus B's) over one duplicate pair."""

    wins: int
    level_balance: int


def play_deal(
    rules: Rules,
    hands: list[list[Card]],
    seats: Sequence[str],
    previous_order: tuple[int, int, int, int] | None,
    leader: int,
    seed: int,
    tallies: dict[int, Tally],
) -> DealEnded:
    """Play one deal to its end; ``seats`` names each seat's policy; side ``s`` is team ``s``."""
    match = Match.from_position(rules, hands, previous_order=previous_order, leader=leader, seed=seed)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(4)]
    while True:
        seat = match.to_act[0]
        obs = observe(match, seat)
        started = time.perf_counter()
        action = POLICIES[seats[seat]](obs, rules, rngs[seat])
        tallies[seat % 2].times_ms.append((time.perf_counter() - started) * 1000)
        for event in match.apply(seat, action):
            if isinstance(event, DealEnded):
                return event


def run(a: str, b: str, deals: int, seed: int, rules: Rules, preset: str = "default") -> dict[str, object]:
    """Play ``deals`` duplicate pairs of ``a`` against ``b``; the figures as a dict."""
    rng = random.Random(seed)
    tally_a, tally_b = Tally(), Tally()
    pairs: list[PairResult] = []
    for n in range(deals):
        deck = full_deck()
        rng.shuffle(deck)
        dealt = [deck[i * CARDS_PER_SEAT : (i + 1) * CARDS_PER_SEAT] for i in range(4)]
        hands = [list(dealt[(seat + n) % 4]) for seat in range(4)]
        shuffled = rng.sample(range(4), 4)
        order = (shuffled[0], shuffled[1], shuffled[2], shuffled[3]) if n % 2 else None
        leader = rng.randrange(4)
        wins = balance = 0
        for game, a_team in enumerate((0, 1)):
            names = [a if seat % 2 == a_team else b for seat in range(4)]
            by_team = {a_team: tally_a, 1 - a_team: tally_b}
            ended = play_deal(rules, hands, names, order, leader, seed * 100_003 + n * 2 + game, by_team)
            a_won = ended.winner_team == a_team
            winner = tally_a if a_won else tally_b
            winner.wins += 1
            winner.levels += ended.levels_gained
            wins += a_won
            balance += ended.levels_gained if a_won else -ended.levels_gained
        pairs.append(PairResult(wins, balance))
    return _figures(a, b, pairs, tally_a, tally_b, seed, preset)


def _mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its normal 95% interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _figures(
    a: str, b: str, pairs: list[PairResult], tally_a: Tally, tally_b: Tally, seed: int, preset: str
) -> dict[str, object]:
    played = 2 * len(pairs)
    rate, low, high = _mean_ci([pair.wins / 2 for pair in pairs])
    balance, b_low, b_high = _mean_ci([pair.level_balance / 2 for pair in pairs])
    return {
        "a": a,
        "b": b,
        "seed": seed,
        "preset": preset,
        "shuffles": len(pairs),
        "deals": played,
        "a_deal_win_rate": round(rate, 4),
        "a_deal_win_rate_ci95": [round(max(low, 0.0), 4), round(min(high, 1.0), 4)],
        "a_level_gain_per_deal": round(tally_a.levels / played, 4),
        "b_level_gain_per_deal": round(tally_b.levels / played, 4),
        "level_balance_per_deal": round(balance, 4),
        "level_balance_ci95": [round(b_low, 4), round(b_high, 4)],
        "a_ms_median": round(_percentile(tally_a.times_ms, 0.5), 3),
        "a_ms_p99": round(_percentile(tally_a.times_ms, 0.99), 3),
        "b_ms_median": round(_percentile(tally_b.times_ms, 0.5), 3),
        "b_ms_p99": round(_percentile(tally_b.times_ms, 0.99), 3),
    }


def report(figures: Mapping[str, Any]) -> str:
    """The human lines, then the JSON line."""
    f = figures
    low, high = f["a_deal_win_rate_ci95"]
    b_low, b_high = f["level_balance_ci95"]
    rate = 100 * f["a_deal_win_rate"]
    lines = [
        f"{f['a']} vs {f['b']}: {f['shuffles']} shuffles, {f['deals']} duplicate deals (seed {f['seed']})",
        f"deal win rate of {f['a']}: {rate:.1f}% (95% CI {100 * low:.1f}–{100 * high:.1f}%)",
        f"level gain per deal: {f['a']} {f['a_level_gain_per_deal']}, {f['b']} {f['b_level_gain_per_deal']}",
        f"level balance per deal for {f['a']}: {f['level_balance_per_deal']} (95% CI {b_low}–{b_high})",
        f"decision ms median/p99: {f['a']} {f['a_ms_median']}/{f['a_ms_p99']}, "
        f"{f['b']} {f['b_ms_median']}/{f['b_ms_p99']}",
        json.dumps(figures, sort_keys=True, ensure_ascii=False),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.arena", description=__doc__)
    parser.add_argument("--a", required=True, choices=sorted(POLICIES))
    parser.add_argument("--b", required=True, choices=sorted(POLICIES))
    parser.add_argument("--deals", type=int, default=200, help="shuffles; each is played twice")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    args = parser.parse_args(argv)
    print(report(run(args.a, args.b, args.deals, args.seed, Rules.preset(args.preset), args.preset)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
