"""``python -m engine.njupt --port 23456 --seats ext,ai,ext,ai --deals N [--preset NAME] [--seed S]``

Serves one run of the competition protocol and prints one JSON result line on stdout;
the log (seats taken, protocol errors) goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
from collections.abc import Sequence

from engine.njupt.referee import PLATFORM_DRAW_AFTER_RESETS, PLATFORM_RULES, SEAT_POLICIES, Referee
from engine.njupt.server import EXT, MAX_INVALID, ProtocolServer
from engine.rules import PRESETS, Rules

PLATFORM = "njupt"
"""The default preset: the offline platform's rules (see ``PLATFORM_RULES``)."""


def _seats(text: str) -> list[str]:
    seats = [seat.strip() for seat in text.split(",")]
    known = (EXT, *SEAT_POLICIES)
    if len(seats) != 4 or any(seat not in known for seat in seats):
        raise argparse.ArgumentTypeError(f"four comma-separated seats, each one of {', '.join(known)}")
    return seats


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m engine.njupt", description=__doc__.split("\n\n")[1])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=23456, help="0 picks a free port (logged)")
    parser.add_argument(
        "--seats", type=_seats, default=_seats("ext,ai,ext,ai"), help="seats 0-3: ext or a policy"
    )
    parser.add_argument("--deals", type=int, default=1, help="deals to play in all")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games too")
    parser.add_argument("--preset", default=PLATFORM, choices=[PLATFORM, *sorted(PRESETS)])
    parser.add_argument("--seed", type=int, default=None, help="shuffles and random seats (default: random)")
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds a client may think (default: no limit)"
    )
    parser.add_argument(
        "--max-invalid", type=int, default=MAX_INVALID, help="invalid answers before the AI answers"
    )
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    return args


def rules_for(preset: str) -> tuple[Rules, int | None]:
    """The rules and the draw-after-resets limit of a preset name."""
    if preset == PLATFORM:
        return PLATFORM_RULES, PLATFORM_DRAW_AFTER_RESETS
    return Rules.preset(preset), None


async def serve(args: argparse.Namespace, seed: int) -> dict[str, object]:
    rules, draw_after = rules_for(args.preset)
    referee = Referee(rules, seed, args.deals, games=args.games, draw_after_resets=draw_after)
    server = ProtocolServer(
        referee,
        args.seats,
        host=args.host,
        port=args.port,
        timeout=args.timeout,
        max_invalid=args.max_invalid,
    )
    result = await server.run()
    return {"preset": args.preset, "seed": seed, **result}


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    result = asyncio.run(serve(args, seed))
    print(json.dumps(result, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
