"""Command line: ``python -m tools selfplay …`` or ``python -m tools bench …``."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tools import selfplay

USAGE = "usage: python -m tools {selfplay,bench} [options]"


def main(argv: Sequence[str]) -> int:
    if not argv or argv[0] not in ("selfplay", "bench"):
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0] == "selfplay":
        return selfplay.main(argv[1:])
    from tools import bench  # only this subcommand needs the benchmark suite

    return bench.main(list(argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
