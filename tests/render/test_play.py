"""Play strips for every kind, both locales, with and without a caption."""

from __future__ import annotations

import pytest

from engine.cards import Rank
from render import samples
from render.play import play_image, render_play


@pytest.mark.parametrize("name", [name for name, _ in samples.sample_plays()])
def test_every_sample_play_renders(name: str) -> None:
    play = samples.play(name)
    image = play_image(play, Rank.SEVEN)
    assert image.height < 250
    assert render_play(play, Rank.SEVEN, locale="en", four_color=True, caption="South Alice")


def test_strip_grows_with_the_number_of_cards() -> None:
    single = play_image(samples.play("single"), Rank.SEVEN)
    bomb = play_image(samples.play("bomb"), Rank.SEVEN)
    assert bomb.width > single.width


def test_locale_and_caption_change_the_words() -> None:
    play = samples.play("straight")
    zh = render_play(play, Rank.SEVEN)
    assert zh != render_play(play, Rank.SEVEN, locale="en")
    assert zh != render_play(play, Rank.SEVEN, caption="南 张三")
    assert zh == render_play(play, Rank.SEVEN)
