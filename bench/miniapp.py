"""Four Mini App players a table: Bot API requests per move, and press → screen.

Each table is a group whose four players sit and start through the chat (as in the e2e
tests), then play the whole match from Mini App pages (WebSocket clients speaking the page's
protocol: 提示 then 出牌, or 不出; tributes and returns): the bot's real ``Application`` against
the Bot API emulator, the Mini App on a free port. Counted while the pages play:

- Bot API requests the bot made (``getUpdates`` long polls included), per move from a page;
- press → screen: a move sent → the mover's page has the new state (p50, p99).

    .venv/bin/python bench/miniapp.py --tables 4
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import build_application, close_services, open_services
from common import metrics
from emulator.client import Chat, Emulator, Telegram, User, polling
from emulator.miniapp import PagePlayer
from emulator.tables import GroupTable, set_up

MATCH = "/newgame wechat-6-deals points_deals=1 turn_seconds=null first_turn_seconds=null"


def requests_so_far() -> float:
    return float(
        sum(metrics.TELEGRAM_REQUESTS.labels(outcome)._value.get() for outcome in ("answered", "failed"))
    )


async def run(tables: int, seconds: float) -> None:
    emulator = Emulator.start()
    token = f"{uuid4().int % 10**9}:BENCH{uuid4().hex}"
    folder = Path(tempfile.mkdtemp())
    os.environ |= {"GUANDAN_WEBAPP_URL": "https://bench.example/app", "GUANDAN_WEBAPP_PORT": "0"}
    metrics.switch_on()
    app = build_application(
        token, db_path=str(folder / "b.db"), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    await open_services(app, db_path=str(folder / "b.db"))
    try:
        async with Telegram(emulator, token) as telegram, polling(app):
            miniapp = app.bot_data.services.miniapp
            port = getattr(miniapp, "port", 0)
            pages: list[PagePlayer] = []
            for t in range(tables):
                users = [User(30_000 + 4 * t + i, f"P{t}{i}") for i in range(4)]
                table = GroupTable(telegram, Chat.group(-50_000 - t, f"bench {t}"))
                await set_up(telegram, table, users, MATCH)
                pages += [PagePlayer(port, token, user.id, user.first_name) for user in users]
            over = asyncio.Event()
            before, started = requests_so_far(), time.perf_counter()
            tasks = [asyncio.create_task(page.play(over)) for page in pages]
            deadline = started + seconds
            while time.perf_counter() < deadline and not all(
                page.state is not None and page.state["match_over"] for page in pages
            ):
                await asyncio.sleep(0.2)
            elapsed, requests = time.perf_counter() - started, requests_so_far() - before
            over.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await close_services(app)
        emulator.stop()
    moves = sum(page.moves for page in pages)
    latencies = sorted(x for page in pages for x in page.latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan")
    print(f"tables {tables}, pages {len(pages)}, {elapsed:.1f} s of play, moves from pages {moves}")
    print(f"Bot API requests while playing: {requests:.0f} ({requests / max(moves, 1):.3f} per move)")
    if latencies:
        print(f"press → screen: p50 {statistics.median(latencies) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=180.0)
    args = parser.parse_args()
    asyncio.run(run(args.tables, args.max_seconds))


if __name__ == "__main__":
    main()
