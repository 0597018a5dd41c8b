"""What fencing (issue 40) costs a press's parts: a Bot API request with the lease checked when it
holds its connection, and an action-log write through the fence trigger, each with and without.

    python bench/fence_cost.py [--requests 3000] [--writes 3000] [--rounds 3]

* **request**: the bot's own transport (``AiohttpRequest``, 16 connections) against a loopback
  HTTP server answering at once, 20 requests at a time; the process's CPU time per request with
  ``admit`` and ``fence`` set (the lease's checks, as bot.py sets them) and without;
* **write**: the action log's INSERT one at a time on a throw-away PostgreSQL (durable
  settings), from a data session that carries a lease epoch (the trigger looks it up in
  ``bot_lease``) and from one that carries none (the trigger returns at once); wall time per
  write, the server's work included.

Rounds alternate the two settings, so the machine's load falls on both alike; the medians are
printed. Figures: docs/postgresql.md ("What the fence costs").
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from telegram.request import RequestData  # noqa: E402
from telegram.request._requestparameter import RequestParameter  # noqa: E402

from emulator.postgresql import Cluster, binaries  # noqa: E402
from handlers.platform.transport import AiohttpRequest  # noqa: E402
from storage import Database  # noqa: E402
from storage.lease import Lease  # noqa: E402

REPLY = b'{"ok":true,"result":true}'


async def _server() -> tuple[asyncio.Server, str]:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                ),
                0,
            )
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(REPLY), REPLY))
            await writer.drain()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/bot1:x/sendMessage"


async def requests_cpu(count: int, fenced: bool) -> float:
    """CPU milliseconds per request."""
    server, url = await _server()
    request = AiohttpRequest(connections=16)
    if fenced:

        def fence() -> None:
            if time.monotonic() < 0:
                raise RuntimeError("never")

        async def admit() -> None:
            fence()

        request.admit, request.fence = admit, fence
    await request.initialize()
    form = RequestData(
        [RequestParameter.from_input("chat_id", 7), RequestParameter.from_input("text", "出牌")]
    )
    gate = asyncio.Semaphore(20)

    async def one() -> None:
        async with gate:
            await request.do_request(url, "POST", form)

    await asyncio.gather(*(one() for _ in range(200)))  # warm: connections made
    started = time.process_time()
    await asyncio.gather(*(one() for _ in range(count)))
    spent = time.process_time() - started
    await request.shutdown()
    server.close()
    return spent / count * 1000


async def writes_ms(url: str, count: int, fenced: bool) -> float:
    """Wall milliseconds per single-row write (a user's setting upserted, as /lang does)."""
    lease = Lease(url, 1, instance=f"bench-{fenced}")
    keeping = None
    if fenced:
        assert await lease._try()
        keeping = asyncio.create_task(lease.keep())
    db = (
        await Database.open(url, bot_id=1, session=lease.session)
        if fenced
        else await Database.open(url, bot_id=1)
    )
    try:
        started = time.perf_counter()
        for user in range(count):
            await db.users.set_locale(user_id=user, locale="en" if fenced else "zh")
        return (time.perf_counter() - started) / count * 1000
    finally:
        await db.close()
        if keeping is not None:
            keeping.cancel()
        await lease.close()


async def main_async(args: argparse.Namespace) -> None:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
    cluster = Cluster.start(bin_dir, durable=True)
    try:
        url = cluster.new_database()
        figures: dict[str, list[float]] = {
            "request off": [],
            "request on": [],
            "write off": [],
            "write on": [],
        }
        for _ in range(args.rounds):
            for fenced in (False, True):
                setting = "on" if fenced else "off"
                figures[f"request {setting}"].append(await requests_cpu(args.requests, fenced))
                figures[f"write {setting}"].append(await writes_ms(url, args.writes, fenced))
    finally:
        cluster.stop()
    for name, values in figures.items():
        runs = " ".join(f"{value:.4f}" for value in values)
        print(f"{name:>12}: median {statistics.median(values):.4f} ms  (runs {runs})")
    for part in ("request", "write"):
        off, on = statistics.median(figures[f"{part} off"]), statistics.median(figures[f"{part} on"])
        print(f"{part}: fencing adds {on - off:+.4f} ms ({(on - off) / off:+.1%})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=3000, help="Bot API requests a round")
    parser.add_argument("--writes", type=int, default=3000, help="store writes a round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each setting in turn")
    asyncio.run(main_async(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
