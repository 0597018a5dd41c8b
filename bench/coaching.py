"""How good 复盘点评's estimate is: does the suggested play really do better?

    python bench/coaching.py [--deals 200] [--seed 1] [--player easy [normal]] [--jobs 2]
        [--samples 12] [--recheck 12] [--more 12] [--ahead 0.65] [--progress]

Plays ``--deals`` first deals of the casual rules (one match seed each) with ``--player`` in
the coached seat (north) and 标准 in the others, then takes the decisions
:func:`players.coach.coach_deal` shows north (its three costliest) and checks each
against the truth: from the position of that decision, with the same hidden hands, the deal
is finished twice by 标准 in every seat — once after north's own action, once after the
suggestion — and the two results are compared in levels for north's team. It prints how
often the suggestion ended better, the same and worse, the rate of "better" among the
decisions whose two endings differed (a Wilson 95% interval), the mean shown and the mean
true gain and their ratio (a bootstrap 95% interval over the deals), the same for the
decisions the 点评 is sure of (it gives their price), how many decisions a deal shows, and
the time a deal's 点评 took (what a player waits for). ``--player normal`` is 标准, the
player who follows 提示; ``--player easy normal`` reports on both, one after the other, and
``--jobs 2`` judges the deals in two processes (the same figures, in half the wall time on two
free cores).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import Action, DealEnded, Pass, PlayCards
from engine.match import Match, observe
from engine.observation import Observation
from engine.rules import Rules
from players import master, planner, policies
from players.coach import Budget, Decision, coach_deal, positions

Policy = Callable[[Observation, Rules, random.Random], Action]
PLAYERS: dict[str, Policy] = {
    "random": policies.random_policy,
    "easy": policies.easy_policy,
    "normal": policies.normal_policy,
}
COACHED = 0


@dataclass
class Tally:
    better: int = 0
    same: int = 0
    worse: int = 0
    estimated: list[float] = field(default_factory=list)  # the fresh mean
    priced: list[float] = field(default_factory=list)  # the price the 点评 shows (shrunk)
    true: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)  # decisions shown a deal
    deal: list[int] = field(default_factory=list)  # the deal (index in ``shown``) of each decision
    sure: list[bool] = field(default_factory=list)

    def deal_judged(self, seconds: float, judged: list[tuple[Decision, int]]) -> None:
        """A deal's 点评: its time and each shown decision with its true gain."""
        self.seconds.append(seconds)
        self.shown.append(len(judged))
        for decision, gain in judged:
            self.add(decision, gain)

    def add(self, decision: Decision, gain: int) -> None:
        self.estimated.append(decision.cost)
        self.priced.append(decision.price)
        self.true.append(gain)
        self.deal.append(len(self.shown) - 1)
        self.sure.append(decision.sure)
        if gain > 0:
            self.better += 1
        elif gain < 0:
            self.worse += 1
        else:
            self.same += 1


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate (95% by default)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return centre - half, centre + half


def ratio_interval(
    estimated: list[float], true: list[int], deal: list[int], rounds: int = 2000
) -> tuple[float, float]:
    """A bootstrap 95% interval of sum(estimated) / sum(true), resampling whole deals (a deal's
    decisions share its hands)."""
    by_deal: dict[int, tuple[float, int]] = {}
    for e, t, d in zip(estimated, true, deal, strict=True):
        se, st = by_deal.get(d, (0.0, 0))
        by_deal[d] = (se + e, st + t)
    sums = list(by_deal.values())
    rng, ratios = random.Random(0), []
    for _ in range(rounds):
        picked = [rng.choice(sums) for _ in sums]
        total = sum(t for _, t in picked)
        ratios.append(sum(e for e, _ in picked) / total if total > 0 else math.inf)
    ratios.sort()
    return ratios[int(0.025 * rounds)], ratios[int(0.975 * rounds) - 1]


def play_first_deal(rules: Rules, seed: int, player: Policy) -> Match:
    """Deal 1 of match ``seed``: ``player`` in the coached seat, 标准 elsewhere."""
    match, rng = Match.new(rules, seed), random.Random(seed)
    while not match.deal_results and not match.is_over:
        seat = match.to_act[0]
        obs = observe(match, seat)
        action = player(obs, rules, rng) if seat == COACHED else planner.choose_action(obs, rules)
        match.apply(seat, action)
    return match


def finish(match: Match, first: Action) -> int:
    """Levels for the coached team once 标准 has finished the deal after ``first``."""
    match = match.copy()
    events = match.apply(COACHED, first)
    while not any(isinstance(e, DealEnded) for e in events):
        seat = match.to_act[0]
        events = match.apply(seat, planner.choose_action(observe(match, seat), match.rules))
    ended = next(e for e in events if isinstance(e, DealEnded))
    return master.deal_levels(match.rules, ended.finish_order, COACHED)


def truth(rules: Rules, seed: int, history: tuple[tuple[int | None, Action], ...], decision: Decision) -> int:
    """The suggestion's true gain over the action taken, in levels, from that very position."""
    position = next(
        p
        for p in positions(rules, seed, history, 0, COACHED)
        if (p.trick, p.turn) == (decision.trick, decision.turn)
    )
    match = Match.new(rules, seed)
    for seat, action in history:
        if match.version == position.observation.version:
            suggested: Action = Pass() if decision.suggested is None else PlayCards(decision.suggested)
            return finish(match, suggested) - finish(match, position.action)
        match.apply(seat, action)
    raise LookupError(f"decision {decision} not in the deal")


Judged = tuple[float, list[tuple[Decision, int]]]
"""A deal's 点评 time and each shown decision with its true gain."""


def judge_first_deal(rules: Rules, match_seed: int, player: str, budget: Budget) -> Judged:
    """Deal 1 of match ``match_seed`` played with ``player`` north, coached, and checked."""
    history = play_first_deal(rules, match_seed, PLAYERS[player]).history
    started = time.perf_counter()
    coaching = coach_deal(rules, match_seed, history, 0, COACHED, budget)
    seconds = time.perf_counter() - started
    return seconds, [(d, truth(rules, match_seed, history, d)) for d in coaching.decisions]


def _judge_seed(task: tuple[int, str, Budget]) -> Judged:
    match_seed, player, budget = task
    return judge_first_deal(Rules.default(), match_seed, player, budget)


def run(
    deals: int,
    seed: int,
    player: str,
    budget: Budget,
    progress: bool = False,
    record: TextIO | None = None,
    jobs: int = 1,
) -> Tally:
    """``deals`` first deals from match ``seed`` on, in ``jobs`` processes (the deals are
    independent and the judge deterministic, so the figures do not depend on ``jobs``; each
    deal's time is its own process's)."""
    tally = Tally()
    tasks = [(match_seed, player, budget) for match_seed in range(seed, seed + deals)]
    with ProcessPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool:
        results = pool.map(_judge_seed, tasks) if pool is not None else map(_judge_seed, tasks)
        for (match_seed, _, _), (seconds, judged) in zip(tasks, results, strict=True):
            tally.deal_judged(seconds, judged)
            if record is not None:  # a deal a line, so runs over other seeds can be pooled (--pool)
                shown = [
                    {"cost": d.cost, "spread": d.spread, "ahead": d.ahead, "truth": gain}
                    for d, gain in judged
                ]
                line = {"player": player, "seed": match_seed, "seconds": seconds, "shown": shown}
                print(json.dumps(line), file=record, flush=True)
            if progress:  # the running counts, so a long run on a busy machine can be read early
                print(
                    f"{player} seed {match_seed}: better {tally.better} same {tally.same} "
                    f"worse {tally.worse} estimated {sum(tally.estimated):.2f} true {sum(tally.true)} "
                    f"seconds {sum(tally.seconds):.0f}",
                    file=sys.stderr,
                    flush=True,
                )
    return tally


def pooled(records: list[str]) -> Tally:
    """The tally of the deals ``--record`` wrote, in the files' order."""
    tally = Tally()
    for name in records:
        for line in Path(name).read_text(encoding="utf-8").splitlines():
            deal = json.loads(line)
            judged = [
                (Decision(0, 0, None, None, d["cost"], d["spread"], d.get("ahead", 1.0)), d["truth"])
                for d in deal["shown"]
            ]
            tally.deal_judged(deal["seconds"], judged)
    return tally


def report(tally: Tally) -> None:
    decided = tally.better + tally.worse
    shown = len(tally.true)
    low, high = wilson(tally.better, decided)
    spread = ", ".join(f"{n}: {tally.shown.count(n)}" for n in sorted(set(tally.shown)))
    print(f"decisions shown: {shown} ({statistics.fmean(tally.shown):.2f} a deal; deals by marks {spread})")
    print(f"the suggestion ended better {tally.better}, the same {tally.same}, worse {tally.worse}")
    if decided:
        print(
            f"better when the endings differed: {tally.better / decided:.1%} "
            f"(95% CI {low:.1%}–{high:.1%}, n={decided})"
        )
    if shown:
        low_all, high_all = wilson(tally.better, shown)
        print(f"better of all shown: {tally.better / shown:.1%} (95% CI {low_all:.1%}–{high_all:.1%})")
        print(
            f"gain a shown decision, levels a deal: estimated {statistics.fmean(tally.estimated):+.2f}, "
            f"true {statistics.fmean(tally.true):+.2f}"
        )
        print(f"price a shown decision (shrunk): {statistics.fmean(tally.priced):+.2f}")
        calibration("all shown, mean", tally.estimated, tally.true, tally.deal)
        calibration("all shown, price", tally.priced, tally.true, tally.deal)
        picked = [i for i, sure in enumerate(tally.sure) if sure]
        if picked:
            better = sum(1 for i in picked if tally.true[i] > 0)
            differed = sum(1 for i in picked if tally.true[i] != 0)
            low_s, high_s = wilson(better, differed)
            print(
                f"sure (priced) {len(picked)}: better when the endings differed {better}/{differed} "
                f"({better / max(differed, 1):.1%}, 95% CI {low_s:.1%}–{high_s:.1%})"
            )
            calibration(
                "sure, price",
                [tally.priced[i] for i in picked],
                [tally.true[i] for i in picked],
                [tally.deal[i] for i in picked],
            )
    seconds = sorted(tally.seconds)
    print(
        f"点评 of a deal: median {statistics.median(seconds):.1f} s, "
        f"max {seconds[-1]:.1f} s (this process, one core)"
    )


def calibration(name: str, estimated: list[float], true: list[int], deal: list[int]) -> None:
    """Shown cost over true gain, summed over the decisions: 1 is honest, 4 four times too high."""
    total = sum(true)
    ratio = f"{sum(estimated) / total:.2f}" if total > 0 else "∞ (true gain ≤ 0)"
    low, high = ratio_interval(estimated, true, deal)
    print(f"shown / true ({name}): {ratio} (bootstrap 95% CI {low:.2f}–{high:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--player", nargs="+", choices=sorted(PLAYERS), default=["easy"], help="one report each, in turn"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes judging deals side by side")
    parser.add_argument("--samples", type=int, default=Budget().samples)
    parser.add_argument("--confidence", type=float, default=Budget().confidence)
    parser.add_argument(
        "--recheck", type=int, default=Budget().recheck, help="fresh draws a candidate is priced on"
    )
    parser.add_argument("--progress", action="store_true", help="running counts on stderr after each deal")
    parser.add_argument(
        "--more", type=int, default=Budget().more, help="fresh draws more where a price is unsure"
    )
    parser.add_argument(
        "--closer", type=int, default=Budget().closer, help="draws more near the candidates' bar"
    )
    parser.add_argument(
        "--ahead",
        type=float,
        default=Budget().ahead,
        help="share of the differing fresh draws the suggestion must win to be shown (0: any mean above 0)",
    )
    parser.add_argument(
        "--candidates", type=int, default=Budget().candidates, help="decisions priced on fresh draws at most"
    )
    parser.add_argument(
        "--record", help="write each deal's shown decisions and truths to this file (JSON lines)"
    )
    parser.add_argument("--pool", nargs="+", help="report on the deals --record wrote (no judging)")
    args = parser.parse_args()
    if args.pool:
        print(f"pooled from {' '.join(args.pool)}")
        report(pooled(args.pool))
        return
    budget = Budget(
        args.samples, args.confidence, args.closer, args.recheck, args.more, args.ahead, args.candidates
    )
    record = open(args.record, "a", encoding="utf-8") if args.record else None  # noqa: SIM115
    try:
        for player in args.player:
            print(
                f"{args.deals} first deals from seed {args.seed}: {player} coached (north), 标准 elsewhere; "
                f"{budget.samples} draws a decision (+{budget.closer} near the bar), candidates from "
                f"{budget.confidence} standard errors, "
                f"priced on {budget.recheck} fresh draws (+{budget.more} where unsure), shown where ahead "
                f"on {budget.ahead:.0%} of those that differed, {budget.candidates} candidates at most"
                f"{f'; {args.jobs} processes' if args.jobs > 1 else ''}"
            )
            started = time.perf_counter()
            report(run(args.deals, args.seed, player, budget, args.progress, record, args.jobs))
            print(f"wall time {time.perf_counter() - started:.0f} s\n", flush=True)
    finally:
        if record is not None:
            record.close()


if __name__ == "__main__":
    main()
