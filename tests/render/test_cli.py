"""``python bench/pictures.py`` and ``python -m render demo`` run and report (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import pictures
from render import __main__ as cli


def test_bench_prints_a_row_per_picture(capsys: pytest.CaptureFixture[str]) -> None:
    assert pictures.main(["--repeat", "3"]) == 0
    out = capsys.readouterr().out
    for name in ("hand (27 cards)", "play strip", "deal result"):
        assert name in out
    assert "1280×672" in out


def test_demo_writes_every_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.glob("*.png"))
    assert "hand.png" in written and "bracket.png" in written and "play_joker_bomb.png" in written
    assert all((tmp_path / name).stat().st_size > 1000 for name in written)


def test_unknown_command_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["paint"]) == 2
    assert "demo DIR" in capsys.readouterr().out
