"""README's picture of the Mini App: a real page, 360 px wide, on a table in the middle of a deal.

The bot runs in this process against the Bot API emulator (``emulator.miniapp.served_table``),
its deal pinned by ``--seed``; 小明 sits with three computer players at a casual table (the
记牌器 on) and plays ``--moves`` turns from the page in Debian's chromium (Playwright, no
browser download): 提示, then 出牌 or 不出. The picture is his first later turn with a play to
beat that 提示 can beat, the suggested cards raised. The PNG is reduced to a palette with
Pillow (a flat page needs few colours): about 10 KB.

    .venv/bin/python bench/miniapp_screenshot.py            # writes docs/img/miniapp.png
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image
from playwright import async_api as playwright

from emulator.client import User
from emulator.miniapp import StateWatch, served_table

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
PHONE: playwright.ViewportSize = {"width": 360, "height": 640}
MATCH = "/newgame turn_seconds=null first_turn_seconds=null"
PLAYER = User(32_001, "小明")
COLOURS = 64
"""Colours of the saved palette: text, cards, suits and the theme need about this many."""


async def hint(page: playwright.Page) -> bool:
    """提示; whether it selected cards (none: it suggests 不出)."""
    await page.click("#hint")
    await page.wait_for_timeout(400)
    return await page.is_enabled("#play")


async def shoot(seed: int, moves: int) -> bytes:
    async with served_table([PLAYER], MATCH, seed=seed) as table, playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = await browser.new_page(viewport=PHONE, bypass_csp=True)  # wait_for_function evaluates strings
        watched = StateWatch(page)
        await page.goto(table.page_url(PLAYER.id, PLAYER.first_name))
        version, played = await watched.turn(), 0
        # 提示 and 出牌 (or 不出); the picture: a later turn with a play to beat that 提示 can beat
        while not (await hint(page) and played >= moves and watched.state["trick"] is not None):
            await page.click("#play" if await page.is_enabled("#play") else "#pass")
            version, played = await watched.turn(version), played + 1
        await page.wait_for_function("document.getElementById('toast').hidden", polling=100)
        shot = await page.screenshot()
        await browser.close()
        return shot


def small_png(shot: bytes) -> bytes:
    """The screenshot as a palette PNG (``COLOURS`` colours, Pillow's optimizer)."""
    image = Image.open(io.BytesIO(shot)).convert("RGB").quantize(COLOURS, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=114, help="the deal (the e2e tests' single-down seed)")
    parser.add_argument("--moves", type=int, default=3, help="turns 小明 plays before the picture")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "miniapp.png")
    args = parser.parse_args()
    png = small_png(asyncio.run(shoot(args.seed, args.moves)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(png)
    print(f"{args.out}: {len(png):,} bytes, {PHONE['width']}×{PHONE['height']}")


if __name__ == "__main__":
    main()
