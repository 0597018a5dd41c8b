"""Taps (input events) per play kind: the Mini App's page against the chat's hand keyboard.

For each pinned deal (``--seeds``) 小明 sits with three computer players and opens his page in
Debian's chromium at 360 px (Playwright, no browser download; the bot in this process against
the Bot API emulator). On his first turn, every play of each kind his 27 cards hold (as a lead)
is selected on the real page by the fewest gestures: the hand is drawn in rows in its display
order, a gesture is a tap or a press-and-slide across neighbouring cards of one row, so a play
takes one gesture per stretch of neighbouring cards it uses (with two copies of a card, the
copy that joins a stretch), except that a slide across five ranks or more takes one card of
each rank, so a straight is one slide over its ranks' doubled cards. The script performs those
gestures with the mouse, checks that the page selected exactly the play, and undoes them. Then
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
Run = tuple[int, int]
"""First and last display position of neighbouring cards in one row: one gesture."""


@dataclass(frozen=True, slots=True)
class Taps:
    """One play's input events in the page and presses in the chat."""

    kind: str
    page: int
    chat: int


def slide(rows: Sequence[Sequence[str]], first: int, last: int) -> tuple[int, ...]:
    """What one press-and-slide from card ``first`` to card ``last`` selects (app.js's
    ``sweptPositions``): every card crossed, or across five ranks and more one of each rank."""
    codes = [code for row in rows for code in row]
    firsts: dict[str, int] = {}
    for position in range(first, last + 1):
        firsts.setdefault(
            codes[position] if codes[position] in ("BJ", "RJ") else codes[position][1], position
        )
    if len(firsts) < STRAIGHT_RANKS:
        return tuple(range(first, last + 1))
    return tuple(firsts.values())


def fewest_runs(rows: Sequence[Sequence[str]], cards: Sequence[Card]) -> tuple[Run, ...]:
    """The gestures that select ``cards`` in the fewest (each copy tried): one slide where it
    takes exactly these cards, else one per stretch of neighbouring cards."""
    row_of = [r for r, row in enumerate(rows) for _ in row]
    codes = [code for row in rows for code in row]
    needed = Counter(str(card) for card in cards)
    for first, last in itertools.combinations(range(len(codes)), 2):
        if row_of[first] == row_of[last] and Counter(codes[p] for p in slide(rows, first, last)) == needed:
            return ((first, last),)
    where: dict[str, list[int]] = {}
    for position, code in enumerate(codes):
        where.setdefault(code, []).append(position)
    choices = [itertools.combinations(where[code], count) for code, count in needed.items()]
    best: tuple[Run, ...] | None = None
    for chosen in itertools.product(*choices):
        runs = _runs(sorted(p for group in chosen for p in group), row_of)
        if best is None or len(runs) < len(best):
            best = runs
    assert best is not None
    return best


def _runs(positions: Sequence[int], row_of: Sequence[int]) -> tuple[Run, ...]:
    runs: list[list[int]] = []
    for position in positions:
        if runs and runs[-1][1] == position - 1 and row_of[position] == row_of[position - 1]:
            runs[-1][1] = position
        else:
            runs.append([position, position])
    return tuple((first, last) for first, last in runs)


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


async def gesture(page: Any, first: int, last: int) -> None:
    """A tap on card ``first``, or a press there and a slide to card ``last`` (one input event)."""
    start = await page.locator(f'#hand .card[data-position="{first}"]').bounding_box()
    end = await page.locator(f'#hand .card[data-position="{last}"]').bounding_box()
    y = start["y"] + 30
    await page.mouse.move(start["x"] + 4, y)
    await page.mouse.down()
    steps = 2 * (last - first)
    for step in range(1, steps + 1):
        await page.mouse.move(start["x"] + 4 + (end["x"] - start["x"]) * step / steps, y)
    await page.mouse.up()


async def selected(page: Any) -> list[int]:
    return sorted(
        await page.eval_on_selector_all("#hand .card.sel", "els => els.map(e => Number(e.dataset.position))")
    )


async def measure_selections(page: Any, hand: Sequence[Card], level: Rank) -> list[Taps]:
    """Every play of each kind selected on the page by its fewest gestures, and undone. Plays of
    the same ranks differ only in which copies they take, and a player takes the handiest: each
    is measured once, by its handiest copies on the page and on the chat keyboard alike."""
    rows = await page.eval_on_selector_all(
        "#hand .row", "rows => rows.map(r => [...r.querySelectorAll('.card')].map(e => e.dataset.card))"
    )
    measured = []
    for name, plays in plays_by_kind(hand, level).items():
        for same in _by_ranks(plays, level).values():
            easiest = min(same, key=lambda play: len(fewest_runs(rows, play.cards)))
            runs = fewest_runs(rows, easiest.cards)
            for first, last in runs:
                await gesture(page, first, last)
            wanted = sorted(p for first, last in runs for p in slide(rows, first, last))
            assert await selected(page) == wanted, (name, easiest)
            for first, last in runs:  # a gesture from a selected card unselects
                await gesture(page, first, last)
            assert await selected(page) == []
            extra = _reading(hand, level, Counter(easiest.cards))
            kind = name + WILD if any(card.is_wildcard(level) for card in easiest.cards) else name
            chat = min(chat_presses(hand, level, play.cards) for play in same)
            measured.append(Taps(kind, len(runs) + 1 + extra, chat))
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
