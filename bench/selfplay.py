"""Full matches between computer players per second: ``python -m tools selfplay``'s report, run
from the benchmarks' one home (``make bench``). Options as the tool's (``--deals N --seed S
--preset NAME --minutes-per-deal M``)."""

from __future__ import annotations

import sys

from tools import selfplay

if __name__ == "__main__":
    sys.exit(selfplay.main(sys.argv[1:]))
