"""Golden-image comparison in the manner of Pillow's own test helpers."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from engine.cards import Card
from render import faces
from render import hand as hand_module

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
FAILED = Path(__file__).resolve().parents[1] / "output" / "render"
TOLERANCE = 1.0
"""Largest mean difference per channel (0..255) still counted as the same picture."""


def decode(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    stat = ImageStat.Stat(ImageChops.difference(a, b))
    return sum(stat.mean) / len(stat.mean)


def assert_matches_golden(name: str, data: bytes) -> None:
    """Compare with ``tests/data/golden/<name>.png``; set UPDATE_GOLDEN=1 to rewrite it.

    On a mismatch the actual and expected pictures are saved side by side under
    ``tests/output/render`` for a look.
    """
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_bytes(data)
    expected = decode(path.read_bytes())
    actual = decode(data)
    same_size = actual.size == expected.size
    difference = mean_difference(actual, expected) if same_size else float("inf")
    if difference > TOLERANCE:
        FAILED.mkdir(parents=True, exist_ok=True)
        (FAILED / f"{name}.actual.png").write_bytes(data)
        (FAILED / f"{name}.expected.png").write_bytes(path.read_bytes())
        raise AssertionError(
            f"{name}: {actual.size} vs {expected.size}, mean difference {difference:.2f} > {TOLERANCE}; "
            f"see {FAILED}"
        )


def record_drawn_cards(monkeypatch: pytest.MonkeyPatch) -> list[Card]:
    """Every card face the hand renderer draws from now on, in order (privacy checks)."""
    drawn: list[Card] = []
    original = faces.card_sprite

    def recording(card: Card, *args: object, **kwargs: object) -> Image.Image:
        drawn.append(card)
        return original(card, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hand_module, "card_sprite", recording)
    return drawn
