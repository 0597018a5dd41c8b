"""Self-play with seeded random agents: a smoke test of the whole engine and its speed.

``python -m engine selfplay --deals N --seed S --preset NAME`` plays N complete deals
(starting new matches as matches end) and prints one JSON line of figures.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Action, DealEnded, GiveTribute, Pass, Phase, PlayCards, ReturnTribute
from engine.match import Match
from engine.rules import PRESETS, Rules


def random_action(match: Match, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action for ``seat`` (passing counts as one option)."""
    if match.phase is Phase.TRIBUTE:
        return GiveTribute(rng.choice(match.must_tribute_from(seat)))
    if match.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(rng.choice(match.may_return(seat)))
    plays = match.legal_plays(seat)
    choice = rng.randrange(len(plays) + (match.table_play is not None))
    return PlayCards(plays[choice]) if choice < len(plays) else Pass()


@dataclass(frozen=True, slots=True)
class SelfPlayReport:
    deals: int
    plays: int  # PlayCards actions
    actions: int  # every accepted action (plays, passes, tributes)
    matches: int  # matches started
    seconds: float

    def to_json(self, **extra: object) -> str:
        rate = self.deals / self.seconds if self.seconds else 0.0
        figures = {
            "deals": self.deals,
            "plays": self.plays,
            "actions": self.actions,
            "matches": self.matches,
            "seconds": round(self.seconds, 3),
            "deals_per_second": round(rate, 1),
        }
        return json.dumps({**figures, **extra}, sort_keys=True)


def self_play(rules: Rules, deals: int, seed: int) -> SelfPlayReport:
    """Play ``deals`` complete deals with random agents seeded from ``seed``."""
    rng = random.Random(seed)
    started = time.perf_counter()
    done = plays = actions = matches = 0
    match = Match.new(rules, seed)
    matches = 1
    while done < deals:
        if match.is_over:
            match = Match.new(rules, seed + matches)
            matches += 1
        seat = match.to_act[0]
        action = random_action(match, seat, rng)
        events = match.apply(seat, action)
        actions += 1
        plays += isinstance(action, PlayCards)
        done += sum(isinstance(event, DealEnded) for event in events)
    return SelfPlayReport(done, plays, actions, matches, time.perf_counter() - started)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine selfplay", description=__doc__)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    args = parser.parse_args(argv)
    report = self_play(Rules.preset(args.preset), args.deals, args.seed)
    print(report.to_json(preset=args.preset, seed=args.seed))
    return 0
