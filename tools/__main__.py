"""Command line: ``python -m tools selfplay …`` (``python bench/moves.py`` times the engine)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tools import selfplay

USAGE = "usage: python -m tools selfplay [options]"


def main(argv: Sequence[str]) -> int:
    if not argv or argv[0] != "selfplay":
        print(USAGE, file=sys.stderr)
        return 2
    return selfplay.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
