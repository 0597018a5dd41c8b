"""不洗牌 against shuffled deals: bombs and straight flushes a hand, over self-play deals.

    python bench/noshuffle.py [--deals 2000] [--seed 1] [--policy normal]

Plays ``--deals`` deals of the casual rules twice, shuffled and 不洗牌 (``shuffle=none``),
with the same computer player (标准 by default) in every seat, new matches as matches end.
For every hand as dealt (before tribute) it counts what the hand's best split (拆牌, the
computer players' own :mod:`players.handvalue`) keeps as bombs: same-rank bombs of
4+ cards, 同花顺 and 四王. The first deal of each match is shuffled in both runs, so it is
left out of the 不洗牌 figures. The mode exists for that difference: it prints it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import Action, DealStarted
from engine.cards import Card, Rank
from engine.match import Match, observe
from engine.observation import Observation
from engine.rules import Rules
from engine.variants import ShuffleProcedure
from players import policies
from players.planner import evaluator

Policy = Callable[[Observation, Rules, random.Random], Action]
POLICIES: dict[str, Policy] = {
    "random": policies.random_policy,
    "greedy": policies.greedy_policy,
    "easy": policies.easy_policy,
    "normal": policies.normal_policy,
}


@dataclass
class Tally:
    """Bombs a dealt hand holds, hand by hand."""

    bombs: list[int] = field(default_factory=list)  # same-rank bombs, 4+ cards
    flushes: list[int] = field(default_factory=list)  # 同花顺
    jokers: int = 0  # hands with 四王
    big: int = 0  # same-rank bombs of 6+ cards

    def count(self, hand: tuple[Card, ...], level: Rank) -> None:
        combos = evaluator(level).evaluate(hand).combos
        same_rank = [combo for combo in combos if combo[0] == "B"]
        self.bombs.append(len(same_rank))
        self.big += sum(1 for combo in same_rank if combo[2] + combo[3] >= 6)
        self.flushes.append(sum(1 for combo in combos if combo[0] == "SF"))
        self.jokers += any(combo[0] == "J" and combo[2] == 4 for combo in combos)

    def line(self, label: str) -> str:
        hands = len(self.bombs)
        bombs, flushes = statistics.fmean(self.bombs), statistics.fmean(self.flushes)
        no_bomb = sum(1 for b, f in zip(self.bombs, self.flushes, strict=True) if b + f == 0) / hands
        return (
            f"{label:<10} {hands:>6} hands  bombs {bombs:.2f}  同花顺 {flushes:.2f}  "
            f"6+ bombs {self.big / hands:.2f}  四王 {self.jokers / hands:.3f}  no bomb at all {no_bomb:.1%}"
        )


def run(rules: Rules, deals: int, seed: int, policy: Policy) -> Tally:
    tally, rng, match_seed, played = Tally(), random.Random(seed), seed, 0
    while played < deals:
        match = Match.new(rules, match_seed)
        match_seed += 1
        while not match.is_over and played < deals:
            seat = match.to_act[0]
            for event in match.apply(seat, policy(observe(match, seat), rules, rng)):
                if isinstance(event, DealStarted):  # deal 1 is dealt by Match.new, never here
                    played += 1
                    for seat in range(4):
                        tally.count(match.hand(seat), event.level)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policy", choices=sorted(POLICIES), default="normal")
    args = parser.parse_args()
    shuffled = Rules.default()
    print(f"{args.deals} deals after each match's first, {args.policy} in every seat, seed {args.seed}")
    for label, rules in (("shuffled", shuffled), ("不洗牌", shuffled.replace(shuffle=ShuffleProcedure.NONE))):
        started = time.perf_counter()
        tally = run(rules, args.deals, args.seed, POLICIES[args.policy])
        print(f"{tally.line(label)}  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
