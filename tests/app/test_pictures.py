"""Hand pictures: a selected play's remaining hand is drawn before it is played."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from app.table.pictures import HandPictures, picture_key
from engine.actions import Phase, PlayCards
from engine.match import Match, observe
from engine.rules import Rules
from players.easy import choose_action
from render.hand import render_hand

NAMES = ["北", "西", "南", "东"]


class CountingExecutor(ThreadPoolExecutor):
    """Counts the pictures actually drawn."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.drawn = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.drawn += 1
        return super().submit(fn, *args, **kwargs)


async def test_the_hand_left_by_a_selected_play_is_drawn_once_before_it_is_played() -> None:
    match = Match.new(Rules.default(), seed=5)
    assert match.phase is Phase.PLAY
    executor = CountingExecutor()
    pictures = HandPictures(executor)
    plays = 0
    for _ in range(12):  # a dozen plays along a real match, each as a player would make it
        seat = match.to_act[0]
        obs = observe(match, seat)
        action = choose_action(obs, match.rules)
        if not isinstance(action, PlayCards):
            match.apply(seat, action)
            continue
        pictures.prefetch(obs, Counter(action.play.cards), locale="zh", four_color=False, names=NAMES)
        drawn = executor.drawn
        match.apply(seat, action)
        after = observe(match, seat)
        picture = await pictures.draw(after, locale="zh", four_color=False, names=NAMES)
        assert executor.drawn == drawn  # the play found its picture ready
        assert picture == render_hand(after, locale="zh", names=NAMES)
        plays += 1
    assert plays >= 6
    executor.shutdown()


async def test_what_the_picture_shows_decides_whether_it_is_reused() -> None:
    match = Match.new(Rules.default(), seed=6)
    obs = observe(match, 0)
    executor = CountingExecutor()
    pictures = HandPictures(executor, capacity=2)
    for locale in ("zh", "en", "zh"):
        await pictures.draw(obs, locale=locale, four_color=False, names=NAMES)
    assert executor.drawn == 2
    await pictures.draw(obs, locale="zh", four_color=True, names=NAMES)
    await pictures.draw(obs, locale="en", four_color=False, names=NAMES)  # evicted by the capacity
    assert executor.drawn == 4
    moved = observe(match, 1)
    assert picture_key(moved, locale="zh", four_color=False, names=NAMES) != picture_key(
        obs, locale="zh", four_color=False, names=NAMES
    )
    executor.shutdown()
