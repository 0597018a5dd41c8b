"""``python -m render bench``: time and size of the pictures sent most often.

Prints median and p99 milliseconds per call (warm sprite caches, as in a running
bot) and the bytes sent, with the JPEG size at quality 85 alongside for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence

from PIL import Image

from engine.cards import Rank
from render import samples
from render.encode import jpeg_bytes
from render.hand import hand_image, render_hand
from render.play import play_image, render_play
from render.results import deal_result_image, render_deal_result


def time_ms(call: Callable[[], bytes], repeat: int) -> tuple[float, float, int]:
    """(median ms, p99 ms, bytes) over ``repeat`` calls after one warm-up call."""
    size = len(call())
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, round(0.99 * (len(times) - 1)))], size


def cases() -> list[tuple[str, Callable[[], bytes], Callable[[], Image.Image]]]:
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
    parser = argparse.ArgumentParser(prog="python -m render bench", description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"{'picture':18} {'median ms':>10} {'p99 ms':>8} {'PNG bytes':>10} {'JPEG q85':>9}  size")
    for name, call, image in cases():
        median, p99, size = time_ms(call, args.repeat)
        picture = image()
        jpeg = len(jpeg_bytes(picture))
        print(f"{name:18} {median:10.2f} {p99:8.2f} {size:10d} {jpeg:9d}  {picture.width}×{picture.height}")
    return 0
