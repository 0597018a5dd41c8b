"""``python bench/pictures.py``: time and size of the pictures sent most often.

Prints median and p99 milliseconds per call (warm sprite caches, as in a running
bot), the median CPU time, and the bytes sent, with the JPEG size at quality 85
alongside for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from PIL import Image

from engine.cards import Rank
from render import samples
from render.encode import jpeg_bytes
from render.hand import hand_image, render_hand
from render.play import play_image, render_play
from render.results import deal_result_image, render_deal_result


def time_ms(call: Callable[[], bytes], repeat: int) -> tuple[float, float, float, int]:
    """(median wall ms, p99 wall ms, median CPU ms, bytes) over ``repeat`` warm calls.

    CPU time is this process's own, so it stays meaningful on a machine shared with
    other work, where wall time also counts waiting for a core.
    """
    size = len(call())
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    wall.sort()
    p99 = wall[min(len(wall) - 1, round(0.99 * (len(wall) - 1)))]
    return statistics.median(wall), p99, statistics.median(cpu), size


def cases() -> list[tuple[str, Callable[[], bytes], Callable[[], Image.Image]]]:
    """(name, bytes call, image call) for each picture timed."""
    obs = samples.hand_observation(seed=1)
    labels = samples.display_labels(obs)
    strip = samples.play("straight_flush")
    result = samples.deal_result()
    return [
        (
            "hand (27 cards)",
            lambda: render_hand(obs, selected={3, 4}, labels=labels),
            lambda: hand_image(obs, selected={3, 4}, labels=labels),
        ),
        ("play strip", lambda: render_play(strip, Rank.SEVEN), lambda: play_image(strip, Rank.SEVEN)),
        ("deal result", lambda: render_deal_result(result), lambda: deal_result_image(result)),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the timing table."""
    parser = argparse.ArgumentParser(prog="python bench/pictures.py", description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args(argv)
    print(
        f"{'picture':16} {'median ms':>9} {'p99 ms':>7} {'cpu ms':>7} {'PNG bytes':>9} {'JPEG q85':>9}  size"
    )
    for name, call, image in cases():
        median, p99, cpu, size = time_ms(call, args.repeat)
        picture = image()
        jpeg = len(jpeg_bytes(picture))
        dims = f"{picture.width}×{picture.height}"
        print(f"{name:16} {median:9.2f} {p99:7.2f} {cpu:7.2f} {size:9d} {jpeg:9d}  {dims}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
