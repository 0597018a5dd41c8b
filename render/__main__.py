"""``python -m render demo DIR`` writes sample pictures (``python bench/pictures.py`` times them)."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cards import Rank
from render import samples
from render.contest import render_bracket, render_standings
from render.hand import render_hand
from render.play import render_play
from render.results import render_deal_result, render_match_summary


def demo(directory: Path) -> None:
    """Write every sample picture as PNG into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    obs = samples.hand_observation(seed=1)
    labels = samples.display_labels(obs)
    pictures = {
        "hand": render_hand(obs, selected={3, 4}, labels=labels, names=samples.NAMES),
        "hand_en_four_colour": render_hand(
            obs,
            labels=samples.display_labels(obs, group=True),
            locale="en",
            four_color=True,
            group=True,
            names=samples.ENGLISH_NAMES,
        ),
        "hand_small": render_hand(samples.hand_observation(seed=2, size=6)),
        "deal_result": render_deal_result(samples.deal_result()),
        "deal_result_en": render_deal_result(samples.deal_result(english=True), locale="en"),
        "match_summary": render_match_summary(samples.match_summary()),
        "standings": render_standings(samples.standings()),
        "bracket": render_bracket(samples.bracket()),
    }
    for name, _ in samples.sample_plays():
        pictures[f"play_{name}"] = render_play(samples.play(name), Rank.SEVEN, caption="南 张三")
    for name, data in pictures.items():
        (directory / f"{name}.png").write_bytes(data)
        print(f"{directory / name}.png {len(data)} bytes")


def main(argv: list[str]) -> int:
    """Run ``demo DIR``; anything else prints the usage."""
    if argv[:1] == ["demo"] and len(argv) == 2:
        demo(Path(argv[1]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
