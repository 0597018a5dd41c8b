"""Four Mini App players a table: Bot API requests per move, and press → screen.

Each table is a group whose four players sit and start through the chat (as in the e2e
tests), then play the whole match from Mini App pages (WebSocket clients speaking the page's
protocol: 提示 then 出牌, or 不出; tributes and returns): the bot's real ``Application`` against
the Bot API emulator, the Mini App on a free port. Counted while the pages play:

- Bot API requests the bot made (``getUpdates`` long polls included), per move from a page;
- the same requests by method and chat kind (group, private, bot-wide), to see what is left;
- press → screen: a move sent → the mover's page has the new state (p50, p99).

``--think`` gives each move a person's pace: it waits 0.5–1.5× that many seconds after its
turn is shown (0, the default, is the worst case: the board's edits over the fewest presses).

    .venv/bin/python bench/miniapp.py --tables 4 --think 1.5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import build_application, close_services, open_services
from common import metrics
from emulator.client import Chat, Emulator, Telegram, User, polling
from emulator.miniapp import PagePlayer
from emulator.tables import GroupTable, set_up
from handlers.platform import transport

MATCH = "/newgame wechat-6-deals points_deals={deals} turn_seconds=null first_turn_seconds=null"


BY_METHOD: Counter[str] = Counter()
"""Answered Bot API requests by ``method chat-kind`` (counted while :data:`COUNTING` is set)."""
COUNTING = asyncio.Event()


def count_by_method() -> None:
    """Count each request the Bot API answers by its method and chat kind (wraps ``_noted``)."""
    noted = transport._noted

    def counted(url: str, request_data: Any, status: int) -> None:
        if COUNTING.is_set():
            chat = request_data.parameters.get("chat_id") if request_data is not None else None
            BY_METHOD[f"{url.rsplit('/', 1)[-1]} {metrics.chat_kind(_chat_id(chat))}"] += 1
        noted(url, request_data, status)

    transport._noted = counted


def _chat_id(value: object) -> int | None:
    try:
        return int(str(value)) if value is not None else None
    except ValueError:
        return None


def requests_so_far() -> float:
    return float(
        sum(metrics.TELEGRAM_REQUESTS.labels(outcome)._value.get() for outcome in ("answered", "failed"))
    )


async def run(tables: int, seconds: float, think: float, deals: int) -> None:
    emulator = Emulator.start()
    token = f"{uuid4().int % 10**9}:BENCH{uuid4().hex}"
    folder = Path(tempfile.mkdtemp())
    os.environ |= {"GUANDAN_WEBAPP_URL": "https://bench.example/app", "GUANDAN_WEBAPP_PORT": "0"}
    metrics.switch_on()
    count_by_method()
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
                await set_up(telegram, table, users, MATCH.format(deals=deals))
                for user in users:  # the deal's hand messages are set-up, not play
                    await telegram.wait_message(Chat.private(user), lambda m: bool(m.buttons))
                pages += [PagePlayer(port, token, user.id, user.first_name, think=think) for user in users]
            await asyncio.sleep(2.0)  # the lobby's last edit ("started") goes out
            over = asyncio.Event()
            before, started = requests_so_far(), time.perf_counter()
            COUNTING.set()
            tasks = [asyncio.create_task(page.play(over)) for page in pages]
            deadline = started + seconds
            while time.perf_counter() < deadline and not all(
                page.state is not None and page.state["match_over"] for page in pages
            ):
                await asyncio.sleep(0.2)
            elapsed, requests = time.perf_counter() - started, requests_so_far() - before
            COUNTING.clear()
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
    print(
        f"tables {tables}, pages {len(pages)}, think {think:.1f} s, {elapsed:.1f} s of play, "
        f"moves from pages {moves}"
    )
    connections = sum(page.connections for page in pages)
    print(f"page connections {connections} for {len(pages)} pages ({connections - len(pages)} reopened)")
    polls = sum(count for name, count in BY_METHOD.items() if name.startswith("getUpdates"))
    print(f"Bot API requests while playing: {requests:.0f} ({requests / max(moves, 1):.3f} per move)")
    print(
        f"  without getUpdates (the process's long poll, not the tables'): {requests - polls:.0f} "
        f"({(requests - polls) / max(moves, 1):.3f} per move)"
    )
    for name, count in BY_METHOD.most_common():
        print(f"  {name:<32} {count:>5}  {count / max(moves, 1):.3f} per move")
    if latencies:
        print(f"press → screen: p50 {statistics.median(latencies) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=180.0)
    parser.add_argument("--deals", type=int, default=1, help="deals a match lasts (2: a tribute)")
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds before each move")
    args = parser.parse_args()
    asyncio.run(run(args.tables, args.max_seconds, args.think, args.deals))


if __name__ == "__main__":
    main()
