"""Hand pictures, drawn in the render pool and kept by what they show.

A player who has a play selected (by 提示, or cards that make a play) will most likely
play it. The picture of the hand that would remain is drawn while they look at the
play button, so the press that plays it finds the picture ready instead of waiting for
Pillow on the press's path. A picture nobody asks for again is simply dropped from the
bounded cache.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, OrderedDict
from collections.abc import Hashable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from functools import partial

from engine.cards import Card
from engine.observation import Observation
from render.hand import render_hand

log = logging.getLogger(__name__)

CAPACITY = 256
"""Pictures kept (about 40 KB each): the humans' current hands and their likely next ones."""


def picture_key(
    obs: Observation, *, locale: str, four_color: bool, names: Sequence[str], group: bool = False
) -> Hashable:
    """Everything :func:`render_hand` draws: the hand, the level, both teams' levels and the
    seat (the header), the language, the colour scheme, the names and the arrangement (理牌)."""
    return (obs.hand, obs.level, obs.team_levels, obs.seat, locale, four_color, tuple(names), group)


def remaining(hand: tuple[Card, ...], played: Counter[Card]) -> tuple[Card, ...]:
    """The hand after playing ``played``, in the hand's order (as the engine will show it)."""
    left = Counter(played)
    kept = []
    for card in hand:
        if left[card] > 0:
            left[card] -= 1
        else:
            kept.append(card)
    return tuple(kept)


class HandPictures:
    """PNG bytes of hands, one render per distinct picture, shared by every asker."""

    def __init__(self, executor: Executor, capacity: int = CAPACITY) -> None:
        self._executor = executor
        self._capacity = capacity
        self._pictures: OrderedDict[Hashable, asyncio.Future[bytes]] = OrderedDict()

    async def draw(
        self, obs: Observation, *, locale: str, four_color: bool, names: Sequence[str], group: bool = False
    ) -> bytes:
        """The picture of ``obs.hand``, drawn now or taken from an earlier (pre)draw."""
        picture = self._picture(obs, locale=locale, four_color=four_color, names=names, group=group)
        return await asyncio.shield(picture)  # a cancelled asker must not cancel the shared render

    def prefetch(
        self,
        obs: Observation,
        played: Counter[Card],
        *,
        locale: str,
        four_color: bool,
        names: Sequence[str],
        group: bool = False,
    ) -> None:
        """Start drawing the hand that would remain after ``played``."""
        after = replace(obs, hand=remaining(obs.hand, played))
        self._picture(after, locale=locale, four_color=four_color, names=names, group=group)

    def _picture(
        self, obs: Observation, *, locale: str, four_color: bool, names: Sequence[str], group: bool
    ) -> asyncio.Future[bytes]:
        key = picture_key(obs, locale=locale, four_color=four_color, names=names, group=group)
        picture = self._pictures.get(key)
        if picture is not None and not _failed(picture):
            self._pictures.move_to_end(key)
            return picture
        draw = partial(render_hand, obs, locale=locale, four_color=four_color, names=list(names), group=group)
        picture = asyncio.wrap_future(self._executor.submit(draw))
        picture.add_done_callback(_log_failure)
        self._pictures[key] = picture
        while len(self._pictures) > self._capacity:
            self._pictures.popitem(last=False)
        return picture


def _failed(picture: asyncio.Future[bytes]) -> bool:
    return picture.done() and (picture.cancelled() or picture.exception() is not None)


def _log_failure(picture: asyncio.Future[bytes]) -> None:
    if not picture.cancelled() and picture.exception() is not None:
        log.error("hand picture failed", exc_info=picture.exception())
