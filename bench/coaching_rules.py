"""Which way of choosing and pricing the 点评's decisions is best, compared offline on one set of draws.

    python bench/coaching_rules.py draw --deals 60 --seed 1001 --draws 36 --out draws.jsonl
    python bench/coaching_rules.py compare draws.jsonl

``draw`` plays ``--deals`` first deals as ``bench/coaching.py`` does (a weak player north, 标准
elsewhere) and, at every decision of north's where 大师 would have played otherwise, weighs the
suggestion on ``--draws`` draws of the hidden hands (each draw's difference in levels, kept) and
finds its truth (the deal finished by 标准 from there with the true hands, both ways). That is
the slow part, done once. ``compare`` then replays the judge's rules on those draws — the first
12 to pick candidates, the next ones as fresh draws — so rules are compared on the same draws
and the same truths: how many decisions a deal each shows, how often the suggestion really did
better where the endings differed, and the mean shown against the mean true gain. The draws of
one decision are independent, so their first 12 are what a 12-draw judge would have seen.
Use other seeds than ``bench/coaching.py``'s reports (1–200), so the rules are not tuned on
the deals they are judged by.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from coaching import COACHED, PLAYERS, finish, play_first_deal, wilson

from engine.match import Match
from engine.rules import Rules
from players import master
from players.coach import _MASTER, AHEAD, MIN_COST, Decision, positions, share_ahead

Row = dict[str, Any]
Shown = list[tuple[Row, Decision]]


def draw(deals: int, seed: int, draws: int, player: str, out: Path) -> None:
    rules = Rules.default()
    with out.open("a", encoding="utf-8") as file:
        for match_seed in range(seed, seed + deals):
            history = play_first_deal(rules, match_seed, PLAYERS[player]).history
            rng = random.Random(f"dump:{match_seed}")
            for position in positions(rules, match_seed, history, 0, COACHED):
                obs, done = position.observation, position.action
                suggestion = _MASTER(obs, rules)
                if suggestion == done:
                    continue
                diffs = []
                for _ in range(draws):
                    hands = master.draw_hands(obs, rules, rng)
                    if hands is None:
                        break
                    ends = [master.finish_order(obs, rules, hands, action) for action in (suggestion, done)]
                    levels = [0 if end is None else master.deal_levels(rules, end, COACHED) for end in ends]
                    diffs.append(levels[0] - levels[1])
                match = Match.new(rules, match_seed)
                for seat, action in history:
                    if match.version == obs.version:
                        break
                    match.apply(seat, action)
                truth = finish(match, suggestion) - finish(match, done)
                row = {"seed": match_seed, "trick": position.trick, "turn": position.turn, "diffs": diffs}
                print(json.dumps({**row, "truth": truth}), file=file, flush=True)
            print(f"seed {match_seed}", file=sys.stderr, flush=True)


def weighed(row: Row, start: int, count: int) -> Decision:
    diffs = row["diffs"][start : start + count]
    mean = statistics.fmean(diffs)
    spread = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return Decision(row["trick"], row["turn"], None, None, mean, spread, share_ahead(diffs))


def candidates(rows: list[Row], first: int, closer: int, confidence: float = 1.0) -> list[tuple[Row, int]]:
    """The costliest five on the first draws (with ``closer`` more near the bar), and how many
    draws each used."""
    found = []
    for row in rows:
        used, d = first, weighed(row, 0, first)
        bar = max(MIN_COST, confidence * d.spread)
        if closer and d.cost > 0 and abs(d.cost - bar) < d.spread:
            used, d = first + closer, weighed(row, 0, first + closer)
        if d.cost >= max(MIN_COST, confidence * d.spread):
            found.append((row, used, d.cost))
    found.sort(key=lambda item: -item[2])
    return [(row, used) for row, used, _ in found[:5]]


def old(rows: list[Row]) -> Shown:
    """Before issue 43: the three costliest on 12 draws, at their own means."""
    return [(row, weighed(row, 0, used)) for row, used in candidates(rows, 12, 0)[:3]]


def fresh(
    closer: int, more: int, confidence: float = 1.0, ahead: float = 0.0
) -> Callable[[list[Row]], Shown]:
    """Candidates priced on 12 fresh draws (+``more`` where unsure or not ``ahead``), shown where
    the fresh mean is above zero and the suggestion won ``ahead`` of the draws that differed."""

    def rule(rows: list[Row]) -> Shown:
        shown: Shown = []
        for row, used in candidates(rows, 12, closer, confidence):
            d = weighed(row, used, 12)
            if d.cost > 0 and (not d.sure or d.ahead < ahead) and more:
                d = weighed(row, used, 12 + more)
            if d.cost > 0 and d.ahead >= ahead:
                shown.append((row, d))
            if len(shown) == 3:
                break
        return shown

    return rule


def many(rows: list[Row]) -> Shown:
    """What more draws alone would give: the three largest means of 36 draws above +0.5."""
    weighed_all = [(row, weighed(row, 0, 36)) for row in rows]
    found = sorted((item for item in weighed_all if item[1].cost >= 0.5), key=lambda item: -item[1].cost)
    return found[:3]


RULES: dict[str, Callable[[list[Row]], Shown]] = {
    "12 draws, own mean (before)": old,
    "+12 fresh": fresh(0, 0),
    "+12 fresh, +12 where unsure": fresh(0, 12),
    "+12 near the bar, +12 fresh, +12 where unsure": fresh(12, 12),
    "+12 near the bar, +12 fresh, +12 where unsure, ahead on 65% (kept)": fresh(12, 12, ahead=AHEAD),
    "+12 fresh, candidates from 1.64 SE": fresh(0, 0, 1.64),
    "36 draws, the three largest means above +0.5": many,
}


def compare(path: Path) -> None:
    deals: dict[int, list[Row]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        deals[json.loads(line)["seed"]].append(json.loads(line))
    fewest = min(len(row["diffs"]) for rows in deals.values() for row in rows)
    print(
        f"{len(deals)} deals, {sum(map(len, deals.values()))} decisions, {fewest}+ draws each "
        "(a rule that would use more draws of a decision uses those there are)"
    )
    for name, rule in RULES.items():
        shown = [item for rows in deals.values() for item in rule(rows)]
        truths = [row["truth"] for row, _ in shown]
        better, differed = sum(t > 0 for t in truths), sum(t != 0 for t in truths)
        low, high = wilson(better, differed)
        sure = [(row, d) for row, d in shown if d.sure]
        print(
            f"{name}: {len(shown) / len(deals):.2f} a deal, better {better}/{differed} "
            f"({better / max(differed, 1):.0%}, 95% CI {low:.0%}–{high:.0%}); "
            f"mean {statistics.fmean(d.cost for _, d in shown):+.2f}, "
            f"price {statistics.fmean(d.price for _, d in shown):+.2f}, "
            f"true {statistics.fmean(truths):+.2f}; sure {len(sure)}: better "
            f"{sum(r['truth'] > 0 for r, _ in sure)}/{sum(r['truth'] != 0 for r, _ in sure)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    drawing = sub.add_parser("draw")
    drawing.add_argument("--deals", type=int, default=60)
    drawing.add_argument("--seed", type=int, default=1001)
    drawing.add_argument("--draws", type=int, default=48)
    drawing.add_argument("--player", choices=sorted(PLAYERS), default="easy")
    drawing.add_argument("--out", type=Path, required=True)
    comparing = sub.add_parser("compare")
    comparing.add_argument("draws", type=Path)
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.deals, args.seed, args.draws, args.player, args.out)
    else:
        compare(args.draws)


if __name__ == "__main__":
    main()
