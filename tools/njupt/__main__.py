"""``python -m tools.njupt --port 23456 --seats ext,ai,ext,ai --deals N [--preset NAME] [--seed S]``

Serves one run of the competition protocol and prints one JSON result line on stdout;
the log (seats taken, protocol errors, drops) goes to stderr. The exit status is 1 when
``--fail-on-drop`` stopped the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
from collections.abc import Sequence

from engine.rules import PRESETS, Rules
from tools.njupt.referee import PLATFORM_DRAW_AFTER_RESETS, PLATFORM_RULES, SEAT_POLICIES, Referee
from tools.njupt.server import EXT, MAX_INVALID, MAX_SIZE, MAX_TIMEOUTS, START_DELAY, TIMEOUT, ProtocolServer

PLATFORM = "njupt"
"""The default preset: the offline platform's rules (see ``PLATFORM_RULES``)."""


def _seats(text: str) -> list[str]:
    seats = [seat.strip() for seat in text.split(",")]
    known = (EXT, *SEAT_POLICIES)
    if len(seats) != 4 or any(seat not in known for seat in seats):
        raise argparse.ArgumentTypeError(f"four comma-separated seats, each one of {', '.join(known)}")
    return seats


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.njupt", description=__doc__.split("\n\n")[1])
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
        "--timeout",
        type=float,
        default=TIMEOUT,
        help=f"seconds a client may think (default {TIMEOUT:g}; 0: no limit)",
    )
    parser.add_argument(
        "--max-timeouts",
        type=int,
        default=MAX_TIMEOUTS,
        help="answers missed in a row before the AI takes the seat",
    )
    parser.add_argument(
        "--max-invalid", type=int, default=MAX_INVALID, help="invalid answers before the AI answers"
    )
    parser.add_argument(
        "--max-size", type=int, default=MAX_SIZE, help=f"largest client message in bytes (default {MAX_SIZE})"
    )
    parser.add_argument(
        "--start-delay",
        type=float,
        default=START_DELAY,
        help="seconds between the last seat taken and the deal",
    )
    parser.add_argument(
        "--fail-on-drop", action="store_true", help="stop the run (exit status 1) when a client drops"
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
        timeout=args.timeout or None,
        max_invalid=args.max_invalid,
        max_timeouts=args.max_timeouts,
        max_size=args.max_size,
        start_delay=args.start_delay,
        fail_on_drop=args.fail_on_drop,
    )
    result = await server.run()
    return {"preset": args.preset, "seed": seed, **result}


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    result = asyncio.run(serve(args, seed))
    print(json.dumps(result, ensure_ascii=False), flush=True)
    return 1 if "failed" in result else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
