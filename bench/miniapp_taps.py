"""Taps (input events) per play kind: the Mini App's page against the chat's hand keyboard.

For each pinned deal (``--seeds``) 小明 sits with three computer players and opens his page in
Debian's chromium at 360 px (Playwright, no browser download; the bot in this process against
the Bot API emulator). On his first turn, every play of each kind his 27 cards hold (as a lead)
is selected on the real page by the fewest gestures: the hand is drawn a column per rank (a
rank's cards stacked down it, the columns left to right in display order), and a gesture is a
tap on a card, a slide down a column (the cards it crosses: a pair, a triple, a bomb) or a
slide along the columns' tops (their top cards; across five ranks or more one card of each
rank, so a straight of neighbouring columns is one slide). Each play's copies are chosen to
need the fewest. The script performs those gestures with the mouse, checks that the page
selected exactly the play, and undoes them. Then
it plays 提示's choice (提示, 出牌) and, at a later turn with another seat's play to beat, 不出,
checking that the table moved on.

A page play is its gestures, then 出牌, then one more tap where the cards read several ways
(逢人配: the page offers the readings). The chat's count is the presses its hand keyboard
(handlers/table/keyboards.py) needs for the same cards: one press per copy on the card's face
button (``♠9²`` selects one, then two), the play button, and the readings keyboard's one press
where the cards read several ways; 提示's choice is 提示 and the play button, 不出 one press.

    .venv/bin/python bench/miniapp_taps.py --seeds 114 7 21
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright import async_api as playwright

from app.table.callback_data import Op, Press
from app.table.selection import readings
from emulator.client import User
from emulator.miniapp import StateWatch, served_table
from engine.cards import Card, Rank, parse_rank
from engine.moves import legal_plays
from engine.plays import Play, PlayKind
from handlers.table.keyboards import HandScope, hand_keyboard

CHROMIUM = "/usr/bin/chromium"
PHONE: playwright.ViewportSize = {"width": 360, "height": 640}
MATCH = "/newgame turn_seconds=null first_turn_seconds=null"
PLAYER = User(32_002, "小明")
TURN_TIMEOUT = 60.0
"""Seconds until the seat's next turn at most (three computer players' moves)."""
KINDS: dict[str, tuple[PlayKind, int]] = {
    "single 单张": (PlayKind.SINGLE, 1),
    "pair 对子": (PlayKind.PAIR, 2),
    "triple 三张": (PlayKind.TRIPLE, 3),
    "full house 三带二": (PlayKind.FULL_HOUSE, 5),
    "straight of 5 顺子": (PlayKind.STRAIGHT, 5),
    "bomb of 4 炸弹": (PlayKind.BOMB, 4),
}

WILD = ", with 配"
"""Marks a kind's plays that use a wildcard (逢人配), counted apart: a player seldom spends one."""
STRAIGHT_RANKS = 5
"""A slide across this many ranks takes one card of each (webapp/static/app.js)."""
Columns = Sequence[Sequence[int]]
"""The hand's display positions as the page lays them out: its columns, each top down."""


@dataclass(frozen=True, slots=True)
class Gesture:
    """One input event on the hand: a tap (``first`` only), a slide down ``column`` from its
    ``first``-th card to its ``last``-th, or a slide along the tops of columns ``first`` to
    ``last`` (``column`` None)."""

    first: int
    last: int
    column: int | None = None


@dataclass(frozen=True, slots=True)
class Taps:
    """One play's input events in the page and presses in the chat."""

    kind: str
    page: int
    chat: int


def rank_of(code: str) -> str:
    return code if code in ("BJ", "RJ") else code[1]


def takes(gesture: Gesture, columns: Columns, codes: Sequence[str]) -> tuple[int, ...]:
    """The positions one gesture selects from an empty selection (app.js's ``sweptPositions``):
    the cards crossed, or, across five ranks and more, the first crossed of each rank."""
    if gesture.column is not None:
        return tuple(columns[gesture.column][gesture.first : gesture.last + 1])
    crossed = [column[0] for column in columns[gesture.first : gesture.last + 1]]
    firsts: dict[str, int] = {}
    for position in crossed:
        firsts.setdefault(rank_of(codes[position]), position)
    return tuple(firsts.values()) if len(firsts) >= STRAIGHT_RANKS else tuple(crossed)


def gestures(columns: Columns) -> list[Gesture]:
    """Every gesture on the hand that selects more than one card."""
    found = [Gesture(a, b) for a, b in itertools.combinations(range(len(columns)), 2)]
    for c, column in enumerate(columns):
        found += [Gesture(i, j, c) for i, j in itertools.combinations(range(len(column)), 2)]
    return found


def fewest_gestures(columns: Columns, codes: Sequence[str], cards: Sequence[Card]) -> tuple[Gesture, ...]:
    """The gestures that select ``cards`` in the fewest, the copies chosen to need the fewest."""
    where: dict[str, list[int]] = {}
    for position, code in enumerate(codes):
        where.setdefault(code, []).append(position)
    taken = {g: frozenset(takes(g, columns, codes)) for g in gestures(columns)}
    needed = Counter(str(card) for card in cards)
    best: tuple[Gesture, ...] | None = None
    for chosen in itertools.product(*(itertools.combinations(where[c], n) for c, n in needed.items())):
        plan = _cover(frozenset(p for copies in chosen for p in copies), taken, columns)
        if best is None or len(plan) < len(best):
            best = plan
    assert best is not None
    return best


def _cover(
    wanted: frozenset[int], taken: dict[Gesture, frozenset[int]], columns: Columns
) -> tuple[Gesture, ...]:
    """The fewest gestures whose selections make up ``wanted`` exactly (taps for the rest)."""
    if not wanted:
        return ()
    first = min(wanted)  # some gesture must take it: try those that take nothing unwanted
    column = next(c for c, cards in enumerate(columns) if first in cards)
    options = [
        (Gesture(columns[column].index(first), columns[column].index(first), column), frozenset({first}))
    ]
    options += [(g, cards) for g, cards in taken.items() if first in cards and cards <= wanted]
    plans = [(g, *_cover(wanted - cards, taken, columns)) for g, cards in options]
    return min(plans, key=len)


def chat_presses(hand: Sequence[Card], level: Rank, cards: Sequence[Card]) -> int:
    """Presses on the chat's hand keyboard: each face button until the copies are selected,
    as its buttons' callback data set them, then the play button (and a reading)."""
    target = Counter(cards)
    selection: Counter[Card] = Counter()
    presses = 0
    while selection != target:
        card = next(c for c in target if selection[c] != target[c])
        keys = hand_keyboard(
            HandScope(1, 1, 0),
            hand=hand,
            level=level,
            selection=selection,
            previous=None,
            autoplay=False,
            locale="zh",
        )
        press = next(
            p
            for p in (Press.decode(key.callback_data) for row in keys.inline_keyboard for key in row)
            if p.op is Op.TOGGLE and p.arg == card.index
        )
        assert press.count is not None
        selection = +Counter({**selection, card: press.count})
        presses += 1
    return presses + 1 + _reading(hand, level, target)


def _reading(hand: Sequence[Card], level: Rank, cards: Counter[Card]) -> int:
    """One more press where the cards can be played several ways (the readings to choose from)."""
    return 1 if len(readings(cards, hand, level, None)) > 1 else 0


def plays_by_kind(hand: Sequence[Card], level: Rank) -> dict[str, list[Play]]:
    """Every lead of each measured kind the hand holds, one per set of cards."""
    found: dict[str, dict[tuple[int, ...], Play]] = {name: {} for name in KINDS}
    for play in legal_plays(hand, level):
        for name, (kind, size) in KINDS.items():
            if play.kind is kind and len(play.cards) == size:
                found[name].setdefault(tuple(sorted(card.index for card in play.cards)), play)
    return {name: list(plays.values()) for name, plays in found.items()}


async def perform(page: Any, gesture: Gesture, columns: Columns) -> None:
    """One gesture with the mouse: pressed on a card's corner (the part its column shows), slid
    in small steps so that every card on the way is crossed."""
    if gesture.column is None:
        path = [columns[c][0] for c in range(gesture.first, gesture.last + 1)]
    else:
        path = list(columns[gesture.column][gesture.first : gesture.last + 1])
    boxes = [await page.locator(f'#hand .card[data-position="{p}"]').bounding_box() for p in path]
    start, end = boxes[0], boxes[-1]
    y_end = start["y"] + 6 if gesture.column is None else end["y"] + 6
    await page.mouse.move(start["x"] + 5, start["y"] + 6)
    await page.mouse.down()
    steps = 3 * len(path)
    for step in range(1, steps + 1):
        x = start["x"] + 5 + (end["x"] - start["x"]) * step / steps
        await page.mouse.move(x, start["y"] + 6 + (y_end - start["y"] - 6) * step / steps)
    await page.mouse.up()


async def selected(page: Any) -> list[int]:
    return sorted(
        await page.eval_on_selector_all("#hand .card.sel", "els => els.map(e => Number(e.dataset.position))")
    )


async def laid_out(page: Any) -> tuple[list[list[int]], list[str]]:
    """The hand's columns (display positions, top down) and each position's card, as drawn."""
    cards = await page.eval_on_selector_all(
        "#hand .card",
        "els => els.map(e => [Number(e.dataset.column), Number(e.dataset.position), e.dataset.card])",
    )
    columns: list[list[int]] = [[] for _ in range(1 + max(column for column, _, _ in cards))]
    codes = [""] * len(cards)
    for column, position, code in cards:
        columns[column].append(position)
        codes[position] = code
    return columns, codes


async def measure_selections(page: Any, hand: Sequence[Card], level: Rank) -> list[Taps]:
    """Every play of each kind selected on the page by its fewest gestures, and undone. Plays of
    the same ranks differ only in which copies they take, and a player takes the handiest: each
    is measured once, by its handiest copies on the page and on the chat keyboard alike."""
    columns, codes = await laid_out(page)
    measured = []
    for name, plays in plays_by_kind(hand, level).items():
        for same in _by_ranks(plays, level).values():
            plans = [fewest_gestures(columns, codes, play.cards) for play in same]
            easiest, plan = min(zip(same, plans, strict=True), key=lambda pair: len(pair[1]))
            for gesture in plan:
                await perform(page, gesture, columns)
            wanted = sorted(p for gesture in plan for p in takes(gesture, columns, codes))
            assert await selected(page) == wanted, (name, easiest, plan)
            assert sorted(codes[p] for p in wanted) == sorted(str(card) for card in easiest.cards)
            for gesture in plan:  # a gesture from a selected card unselects
                await perform(page, gesture, columns)
            assert await selected(page) == []
            extra = _reading(hand, level, Counter(easiest.cards))
            kind = name + WILD if any(card.is_wildcard(level) for card in easiest.cards) else name
            chat = min(chat_presses(hand, level, play.cards) for play in same)
            measured.append(Taps(kind, len(plan) + 1 + extra, chat))
    return measured


def _by_ranks(plays: Sequence[Play], level: Rank) -> dict[tuple[str, ...], list[Play]]:
    """Plays grouped by the ranks they show (a wildcard as 配): the same play to a player."""
    groups: dict[tuple[str, ...], list[Play]] = {}
    for play in plays:
        shown = sorted("配" if card.is_wildcard(level) else str(card.rank) for card in play.cards)
        groups.setdefault(tuple(shown), []).append(play)
    return groups


async def hint_and_pass(page: Any, watch: StateWatch, version: int) -> list[Taps]:
    """提示's choice played (提示, 出牌) and, at a turn with another seat's play to beat, 不出;
    each checked by the table moving on to the seat's next turn."""
    measured: dict[str, Taps] = {}
    while len(measured) < 2:
        trick = watch.state["trick"]
        if "pass" not in measured and trick is not None and trick["seat"] != watch.state["seat"]:
            await page.click("#pass")
            measured["pass"] = Taps("不出 (pass)", 1, 1)
        else:
            await page.click("#hint")
            await page.wait_for_timeout(500)
            chose = bool(await selected(page))
            await page.click("#play" if chose else "#pass")  # 提示 may suggest 不出
            if chose:
                measured.setdefault("hint", Taps("提示's choice (提示, 出牌)", 2, 2))
        version = await asyncio.wait_for(watch.turn(version), TURN_TIMEOUT)
    return list(measured.values())


async def measure(seed: int) -> list[Taps]:
    async with served_table([PLAYER], MATCH, seed=seed) as table, playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = await browser.new_page(viewport=PHONE, bypass_csp=True)  # wait_for_function evaluates strings
        watch = StateWatch(page)
        await page.goto(table.page_url(PLAYER.id, PLAYER.first_name))
        version = await watch.turn()
        hand = [Card.parse(code) for group in watch.state["hand"] for code in group]
        level = parse_rank(watch.state["level"])
        taps = await measure_selections(page, hand, level)
        taps += await hint_and_pass(page, watch, version)
        await browser.close()
        return taps


def table(taps: Sequence[Taps]) -> str:
    """The figures by kind: the median, and the range over every such play in the hands."""
    lines = [
        "| play | plays measured | Mini App: median (range) | chat keyboard: median (range) |",
        "| --- | --- | --- | --- |",
    ]
    for name in [*KINDS, "提示's choice (提示, 出牌)", "不出 (pass)", *(kind + WILD for kind in KINDS)]:
        found = [t for t in taps if t.kind == name]
        if found:
            lines.append(
                f"| {name} | {len(found)} | {_spread([t.page for t in found])} | "
                f"{_spread([t.chat for t in found])} |"
            )
    return "\n".join(lines)


def _spread(values: Sequence[int]) -> str:
    low, high = min(values), max(values)
    middle = f"{statistics.median(values):g}"
    return middle if low == high else f"{middle} ({low}–{high})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=[114, 7, 21], help="the deals (hands) measured"
    )
    args = parser.parse_args()
    taps = [tap for seed in args.seeds for tap in asyncio.run(measure(seed))]
    print(f"{len(args.seeds)} hands of 27 cards (seeds {', '.join(map(str, args.seeds))}), 360 px")
    print(table(taps))


if __name__ == "__main__":
    main()
