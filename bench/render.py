"""Renderer benchmark; the same as ``python -m render bench``."""

import sys

from render.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
