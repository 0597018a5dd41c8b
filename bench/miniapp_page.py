"""The Mini App's page on a slow phone: bytes on the wire and first paint at a cold load.

Debian's chromium (Playwright, no browser download) opens a seated player's page from the bot
served in this process (the Bot API emulator behind it), cache off, on the phone profile of
``emulator.miniapp``: 1.6 Mbit/s down, 750 kbit/s up, 150 ms round trip, CPU 4× slower.
Prints each response's bytes, their sum (the issue's budget: 200 KB), first-contentful-paint
(budget: 1 s) and the time until the hand is on screen, over ``--loads`` cold loads.

    .venv/bin/python bench/miniapp_page.py --loads 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright import async_api as playwright

from bot import build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, User, polling
from emulator.miniapp import PHONE_CPU_SLOWDOWN, PHONE_NETWORK, PageLoad, init_data, load_throttled
from emulator.tables import GroupTable, set_up

CHROMIUM = "/usr/bin/chromium"
MATCH = "/newgame wechat-6-deals points_deals=1 turn_seconds=null first_turn_seconds=null"


async def loads(count: int) -> list[PageLoad]:
    emulator = Emulator.start()
    token = f"{uuid4().int % 10**9}:BENCH{uuid4().hex}"
    folder = Path(tempfile.mkdtemp())
    os.environ |= {"GUANDAN_WEBAPP_URL": "https://bench.example/app", "GUANDAN_WEBAPP_PORT": "0"}
    app = build_application(
        token, db_path=str(folder / "b.db"), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(folder / "b.db"))
    try:
        driving = playwright.async_playwright()
        async with Telegram(emulator, token) as telegram, polling(app), driving as driver:
            users = [User(31_000 + i, f"P{i}") for i in range(4)]
            await set_up(telegram, GroupTable(telegram, Chat.group(-51_000, "page bench")), users, MATCH)
            port = getattr(app.bot_data.services.miniapp, "port", 0)
            url = f"http://127.0.0.1:{port}/?t=1#tgWebAppData={quote(init_data(token, users[0].id))}"
            browser = await driver.chromium.launch(
                executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            results = []
            for _ in range(count):  # a new context each time: nothing cached
                context = await browser.new_context(viewport={"width": 360, "height": 640}, bypass_csp=True)
                results.append(await load_throttled(context, url))
                await context.close()
            await browser.close()
            return results
    finally:
        await close_services(app)
        emulator.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    results = asyncio.run(loads(args.loads))
    network = PHONE_NETWORK
    print(
        f"profile: {network['downloadThroughput'] * 8 / 1e6:.1f} Mbit/s down, {network['latency']} ms "
        f"round trip, CPU ÷{PHONE_CPU_SLOWDOWN}; {len(results)} cold loads"
    )
    for url, size in results[0].responses:
        print(f"  {size:>7,} B  {url.split('#')[0]}")
    print(f"transferred: {results[0].transferred:,} B (budget 200,000)")
    paints = [r.first_paint_ms for r in results]
    hands = [r.hand_ms for r in results]
    print(f"first-contentful-paint: median {statistics.median(paints):.0f} ms, worst {max(paints):.0f} ms")
    print(f"hand on screen: median {statistics.median(hands):.0f} ms, worst {max(hands):.0f} ms")


if __name__ == "__main__":
    main()
