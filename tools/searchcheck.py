"""大师's decisions judged on the true hands: ``python -m tools.searchcheck --shuffles 200 --seed 6``.

An arena run needs 1,000 duplicate deals (an hour and more) to tell 2% apart; this check
looks at 大师's decisions one by one. It plays arena-style deals (:mod:`tools.arena`'s
shuffles, rotations and tributes) with 标准 in all four seats and picks about a quarter
(``--rate``) of the decisions made with at most ``--window`` cards in play. At each it asks
大师 for its action, from that seat's observation as in play; where it differs from 标准's,
both are played out on the TRUE hands with 标准 in every seat. 标准 is deterministic, so the
two play-outs are what would follow against 标准 players (with 标准 as partner afterwards):
their difference is what deviating gained, in deals won and in levels. Summed over the
positions and split by cards in play (0–19, 20–39, 40–60).

``--oracle`` hands 大师 the true hands instead of its samples: the most that better
inference of the hidden hands could gain. Also printed: the share of the hidden cards that
大师's sampler (:func:`players.master.draw_hands`: one clustered
:func:`~players.master.sample_hands` deal a sample) and a plain draw (the same dealing
the unseen cards uniformly) place in the right hand, the four-of-a-kinds (a rank's natural
cards, four or more in one hidden hand) in each and in the true hands, and 大师's decision
time. The last line is one JSON object with the same figures.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.actions import Action, DealEnded, Phase
from engine.cards import Card, full_deck
from engine.match import CARDS_PER_SEAT, Match, observe
from engine.observation import Observation
from engine.rules import PRESETS, Rules
from players import master, planner
from tools.arena import _percentile

BUCKETS = ((0, 19), (20, 39), (40, 60))
"""Cards in play of the positions reported apart (the search starts at 60)."""


@dataclass
class Position:
    """One decision: the seat's observation and the four hands as they really are."""

    obs: Observation
    hands: list[list[Card]]


@dataclass
class Bucket:
    """Positions checked, where 大师 deviated, and what deviating gained on the true hands."""

    positions: int = 0
    deviations: int = 0
    wins: int = 0
    levels: float = 0.0


@dataclass
class Placement:
    """Hidden cards placed in their true hand, of all hidden cards."""

    right: int = 0
    hidden: int = 0
    fours: int = 0

    def add(self, obs: Observation, drawn: list[list[Card]] | None, truth: list[list[Card]]) -> None:
        if drawn is None:
            return
        for seat in range(4):
            if seat != obs.seat:
                self.right += sum((Counter(drawn[seat]) & Counter(truth[seat])).values())
                self.hidden += len(truth[seat])
        self.fours += fours(obs, drawn)

    @property
    def share(self) -> float:
        return round(self.right / self.hidden, 4) if self.hidden else 0.0


def fours(obs: Observation, hands: list[list[Card]]) -> int:
    """Four-of-a-kinds in the hidden hands: ranks with four or more natural cards in one hand."""
    return sum(
        1
        for seat in range(4)
        if seat != obs.seat
        for n in Counter(card.rank for card in hands[seat] if not card.is_wildcard(obs.level)).values()
        if n >= 4
    )


@dataclass
class Check:
    buckets: list[Bucket] = field(default_factory=lambda: [Bucket() for _ in BUCKETS])
    sampled: Placement = field(default_factory=Placement)
    plain: Placement = field(default_factory=Placement)
    true_fours: int = 0
    times_ms: list[float] = field(default_factory=list)


def positions(shuffles: int, seed: int, rules: Rules, window: int, rate: float) -> list[Position]:
    """Decisions of 标准 self-play with at most ``window`` cards in play, about ``rate`` of them."""
    rng = random.Random(seed)
    found: list[Position] = []
    for n in range(shuffles):
        deck = full_deck()
        rng.shuffle(deck)
        hands = [deck[i * CARDS_PER_SEAT : (i + 1) * CARDS_PER_SEAT] for i in range(4)]
        shuffled = rng.sample(range(4), 4)
        order = (shuffled[0], shuffled[1], shuffled[2], shuffled[3]) if n % 2 else None
        leader = rng.randrange(4)
        match = Match.from_position(rules, hands, previous_order=order, leader=leader, seed=seed * 1000 + n)
        while True:
            seat = match.to_act[0]
            obs = observe(match, seat)
            in_window = obs.phase is Phase.PLAY and obs.choice is None and sum(master._counts(obs)) <= window
            if in_window and rng.random() < rate:
                found.append(Position(obs, [list(match.hand(s)) for s in range(4)]))
            events = match.apply(seat, planner.choose_action(obs, rules))
            if any(isinstance(event, DealEnded) for event in events):
                break
    return found


def _result(position: Position, rules: Rules, action: Action) -> tuple[int, float]:
    """(won, levels) for the position's team after ``action`` on the true hands."""
    value = master.play_out(position.obs, rules, [list(hand) for hand in position.hands], action)
    won = value > 0
    return int(won), value - master.WIN_WORTH if won else value + master.WIN_WORTH


def check(found: Sequence[Position], rules: Rules, oracle: bool) -> Check:
    out = Check()
    for i, position in enumerate(found):
        obs = position.obs
        truth = position.hands
        out.true_fours += fours(obs, truth)
        out.sampled.add(obs, master.draw_hands(obs, rules, random.Random(f"s{i}")), truth)
        out.plain.add(obs, master.sample_hands(obs, random.Random(f"p{i}"), affinity=(1.0,)), truth)

        def true_hands(
            _obs: Observation, _rules: Rules, _rng: random.Random, truth: list[list[Card]] = truth
        ) -> list[list[Card]]:
            return [list(hand) for hand in truth]

        started = time.perf_counter()
        action = master.choose_action(obs, rules, random.Random(i), draw=true_hands if oracle else None)
        out.times_ms.append((time.perf_counter() - started) * 1000)
        in_play = sum(master._counts(obs))
        bucket = next(b for b, (low, high) in zip(out.buckets, BUCKETS, strict=True) if in_play <= high)
        bucket.positions += 1
        base = planner.choose_action(obs, rules)
        if action != base:
            won, levels = _result(position, rules, action)
            base_won, base_levels = _result(position, rules, base)
            bucket.deviations += 1
            bucket.wins += won - base_won
            bucket.levels += levels - base_levels
    return out


def figures(result: Check, seed: int, shuffles: int, oracle: bool) -> dict[str, object]:
    buckets = result.buckets
    return {
        "seed": seed,
        "shuffles": shuffles,
        "oracle": oracle,
        "positions": sum(b.positions for b in buckets),
        "deviations": sum(b.deviations for b in buckets),
        "deals_won_by_deviating": sum(b.wins for b in buckets),
        "levels_gained_by_deviating": round(sum(b.levels for b in buckets), 2),
        "by_cards_in_play": {
            f"{low}-{high}": [b.positions, b.deviations, b.wins, round(b.levels, 2)]
            for b, (low, high) in zip(buckets, BUCKETS, strict=True)
        },
        "placement_sampled": result.sampled.share,
        "placement_plain": result.plain.share,
        "fours_true_sampled_plain": [result.true_fours, result.sampled.fours, result.plain.fours],
        "master_ms_median": round(_percentile(result.times_ms, 0.5), 1),
        "master_ms_p99": round(_percentile(result.times_ms, 0.99), 1),
    }


def report(f: dict[str, object]) -> str:
    lines = [
        f"{f['positions']} positions from {f['shuffles']} shuffles (seed {f['seed']})"
        + (", 大师 given the true hands" if f["oracle"] else ""),
        f"大师 deviated from 标准 at {f['deviations']}: deals won {f['deals_won_by_deviating']:+}, "
        f"levels {f['levels_gained_by_deviating']:+} (on the true hands)",
        f"by cards in play [positions, deviations, deals won, levels]: {f['by_cards_in_play']}",
        f"hidden cards placed right: sampler {f['placement_sampled']}, plain draw {f['placement_plain']}",
        f"four-of-a-kinds in the hidden hands [true, sampler, plain draw]: {f['fours_true_sampled_plain']}",
        f"大师 decision ms median/p99: {f['master_ms_median']}/{f['master_ms_p99']}",
        json.dumps(f, sort_keys=True, ensure_ascii=False),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.searchcheck", description=__doc__)
    parser.add_argument("--shuffles", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window", type=int, default=master.DEFAULT_BUDGET.search_from)
    parser.add_argument("--rate", type=float, default=0.25, help="share of the window's decisions checked")
    parser.add_argument("--positions", type=int, default=None, help="check only the first so many")
    parser.add_argument("--oracle", action="store_true", help="give 大师 the true hands")
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    args = parser.parse_args(argv)
    rules = Rules.preset(args.preset)
    found = positions(args.shuffles, args.seed, rules, args.window, args.rate)[: args.positions]
    print(report(figures(check(found, rules, args.oracle), args.seed, args.shuffles, args.oracle)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
