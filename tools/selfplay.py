"""Self-play with seeded random agents: a smoke test of the whole engine and its speed.

``python -m tools selfplay --deals N --seed S --preset NAME`` plays N complete deals
(starting new matches as matches end) and prints one JSON line of figures.

Timed presets only end by their clock (002-A's levels cycle past A forever), so self-play
drives a simulated one: each deal lasts ``--minutes-per-deal`` minutes, and when a game's
time is up the referee's :class:`~engine.actions.TimeExpired` is applied at a random
moment of the deal then being played — before anyone is out, after some are, during the
tribute — so every time-out path (finish the deal, stop at once, sudden death, no winner)
runs. ``--time-limit`` gives untimed presets a clock too.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import (
    Action,
    ChooseSeat,
    DealEnded,
    DealStarted,
    GiveTribute,
    MatchEnded,
    Pass,
    Phase,
    PlayCards,
    ReturnTribute,
    TimeExpired,
)
from engine.match import Match
from engine.rules import PRESETS, Rules

DEFAULT_MINUTES_PER_DEAL = 4.0
"""A deal at a real table takes three to five minutes, so a 60-minute game is about 15 deals."""

ACTIONS_BEFORE_EXPIRY = 80
"""The time-out falls on one of the first this-many actions of a deal (a random deal has ~130)."""


def random_action(match: Match, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action for ``seat`` (passing counts as one option)."""
    if match.phase is Phase.TRIBUTE:
        return GiveTribute(rng.choice(match.must_tribute_from(seat)))
    if match.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(rng.choice(match.may_return(seat)))
    question = match.pending_choice
    if question is not None:
        return ChooseSeat(rng.choice(question[1]))
    plays = match.legal_plays(seat)
    choice = rng.randrange(len(plays) + (match.table_play is not None))
    return PlayCards(plays[choice]) if choice < len(plays) else Pass()


class SimulatedClock:
    """The referee's clock for one match, counted in deals: a game's time runs out during the
    first deal that starts more than ``time_limit / minutes_per_deal`` deals into the game,
    after a random number of that deal's actions."""

    def __init__(self, time_limit: int | None, minutes_per_deal: float | None, rng: random.Random) -> None:
        self._deals_allowed: float | None = None  # untimed, or no clock asked for
        if time_limit is not None and minutes_per_deal:
            self._deals_allowed = time_limit / minutes_per_deal
        self._rng = rng
        self._games = 0  # games finished when the current game started (best-of restarts the clock)
        self._deals_in_game = 0
        self._countdown: int | None = None  # actions left before TimeExpired in this deal

    def observe(self, events: Sequence[object], match: Match) -> None:
        """Follow the match's events: a new game restarts the clock; a late deal arms it."""
        for event in events:
            if isinstance(event, DealStarted):
                games = sum(match.games_won)
                self._deals_in_game = 1 if games != self._games else self._deals_in_game + 1
                self._games = games
                allowed = self._deals_allowed
                if allowed is not None and self._deals_in_game > allowed and not match.time_expired:
                    self._countdown = self._rng.randrange(ACTIONS_BEFORE_EXPIRY)

    def expires_now(self, match: Match) -> bool:
        """Whether the referee's TimeExpired comes before the next seat's action."""
        if self._countdown is None or match.time_expired:
            return False
        if self._countdown > 0:
            self._countdown -= 1
            return False
        self._countdown = None
        return True


@dataclass(frozen=True, slots=True)
class SelfPlayReport:
    deals: int
    plays: int  # PlayCards actions
    actions: int  # every accepted action (plays, passes, tributes, time-outs)
    matches: int  # matches started
    seconds: float
    matches_ended: int = 0
    time_outs: int = 0  # TimeExpired actions applied
    no_winner: int = 0  # matches that ended without a winner (001-B, A17)

    def to_json(self, **extra: object) -> str:
        rate = self.deals / self.seconds if self.seconds else 0.0
        figures = {
            "deals": self.deals,
            "plays": self.plays,
            "actions": self.actions,
            "matches": self.matches,
            "matches_ended": self.matches_ended,
            "time_outs": self.time_outs,
            "no_winner": self.no_winner,
            "seconds": round(self.seconds, 3),
            "deals_per_second": round(rate, 1),
        }
        return json.dumps({**figures, **extra}, sort_keys=True)


def self_play(rules: Rules, deals: int, seed: int, minutes_per_deal: float | None = None) -> SelfPlayReport:
    """Play ``deals`` complete deals with random agents seeded from ``seed``, on a simulated
    clock of ``minutes_per_deal`` when the rules are timed."""
    rng = random.Random(seed)
    started = time.perf_counter()
    done = plays = actions = time_outs = ended = no_winner = 0
    match, clock = _new_match(rules, seed, minutes_per_deal, rng)
    matches = 1
    while done < deals:
        if match.is_over:
            match, clock = _new_match(rules, seed + matches, minutes_per_deal, rng)
            matches += 1
        seat: int | None
        action: Action
        if clock.expires_now(match):
            seat, action = None, TimeExpired()
            time_outs += 1
        else:
            seat = match.to_act[0]
            action = random_action(match, seat, rng)
        events = match.apply(seat, action)
        clock.observe(events, match)
        actions += 1
        plays += isinstance(action, PlayCards)
        done += sum(isinstance(event, DealEnded) for event in events)
        for event in events:
            if isinstance(event, MatchEnded):
                ended += 1
                no_winner += event.winner_team is None
    return SelfPlayReport(
        done, plays, actions, matches, time.perf_counter() - started, ended, time_outs, no_winner
    )


def _new_match(
    rules: Rules, seed: int, minutes_per_deal: float | None, rng: random.Random
) -> tuple[Match, SimulatedClock]:
    match = Match.new(rules, seed)
    clock = SimulatedClock(rules.time_limit_minutes, minutes_per_deal, rng)
    clock.observe(match.events, match)
    return match, clock


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools selfplay", description=__doc__)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    parser.add_argument(
        "--minutes-per-deal",
        type=float,
        default=DEFAULT_MINUTES_PER_DEAL,
        help="simulated minutes each deal takes (0: no clock; timed presets then never time out)",
    )
    parser.add_argument(
        "--time-limit", type=int, default=None, help="minutes per game, also for presets without a clock"
    )
    args = parser.parse_args(argv)
    rules = Rules.preset(args.preset)
    if args.time_limit is not None:
        rules = rules.replace(time_limit_minutes=args.time_limit)
    report = self_play(rules, args.deals, args.seed, args.minutes_per_deal)
    print(report.to_json(preset=args.preset, seed=args.seed, minutes_per_deal=args.minutes_per_deal))
    return 0
