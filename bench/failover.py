"""Failover time: a leader killed or frozen with N tables mid-deal, until the standby has resumed them.

    python bench/failover.py [--tables 10] [--tables 100] [--signal kill|stop] [--timeout 180]

For each ``--tables`` N: a throw-away PostgreSQL cluster (emulator/postgresql.py, PostgreSQL's
durable settings), the Bot API emulator, and two ``bot.py`` processes with one token and
``GUANDAN_DB`` on that cluster, as the compose file runs them: the first leads, the second
stands by. N groups each open a table with one human and three AI seats (no turn clock) and
start it; the AIs play until it is the human's turn. Once every table waits for its human,
the leader is killed (SIGKILL) or frozen (``--signal stop``: SIGSTOP, as a paused VM; it is
let go with SIGCONT once measured) and the clock starts. Printed, in seconds from the signal:

* ``lease``: the standby holds the lease (``bot_lease``'s holder, unexpired);
* ``first``: the first table shows itself again (a message sent or edited in its group or
  its human's private chat, as the emulator stamps it);
* ``last``: the last of the N tables has.

The goal (issue 34): first ≤ 10 s, last ≤ 30 s at 100 tables. The machine's load average is
printed with the figures: run it at a quiet moment.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the project's packages live one level up

import asyncpg  # noqa: E402

from emulator.client import Chat, Emulator, Telegram, User, wait_for  # noqa: E402
from emulator.postgresql import Cluster, binaries  # noqa: E402
from emulator.tables import SHORT_MATCH, GroupTable, set_up  # noqa: E402
from storage.lease import bot_id_of  # noqa: E402

MATCH = SHORT_MATCH + " turn_seconds=null first_turn_seconds=null"
SETUP_AT_ONCE = 10
"""Tables opened at the same time while setting up."""


def start_bot(emulator: Emulator, token: str, url: str, log: Path) -> subprocess.Popen[bytes]:
    env = os.environ | {
        "TELEGRAM_BOT_TOKEN": token,
        "GUANDAN_DB": url,
        "TELEGRAM_API_BASE": emulator.base_url,
    }
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "bot.py"], cwd=ROOT, env=env, stdout=out, stderr=out)


async def lease_pid(url: str, token: str) -> int | None:
    db = await asyncpg.connect(url)
    try:
        name = await db.fetchval(
            "SELECT holder FROM bot_lease WHERE bot_id = $1 AND expires_at > clock_timestamp()",
            bot_id_of(token),
        )
    except asyncpg.UndefinedTableError:
        name = None
    finally:
        await db.close()
    return int(name.rsplit("-", 1)[1]) if name else None


async def waiting_for_human(telegram: Telegram, user: User) -> bool:
    hand = await telegram.last_message(Chat.private(user))
    return hand is not None and "轮到你" in hand.content


async def shown_after(telegram: Telegram, chats: list[Chat], since_ms: int) -> int | None:
    """The first time after ``since_ms`` one of ``chats`` got a message or an edit, if any."""
    times = []
    for chat in chats:
        for message in await telegram.messages(chat, include_deleted=True):
            times += [t for t in [message.sent_at_ms or 0, *message.edited_at_ms] if t > since_ms]
    return min(times) if times else None


async def run(tables: int, timeout: float, folder: Path, how: signal.Signals) -> dict[str, float | int]:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
    cluster = Cluster.start(bin_dir, durable=True)
    emulator = Emulator.start()
    token = f"{7000 + tables}:BENCHfailover"
    url = cluster.new_database()
    log = folder / f"bots-{tables}.log"
    leader = standby = None
    try:
        leader = start_bot(emulator, token, url, log)
        async with Telegram(emulator, token) as telegram:
            await wait_for(lambda: _is(lease_pid(url, token), leader.pid), 60, "the first bot to lead")
            standby = start_bot(emulator, token, url, log)
            humans = [User(500_000 + i, f"P{i}") for i in range(tables)]
            groups = [Chat.group(-900_000 - i, f"桌{i}") for i in range(tables)]
            started = time.monotonic()

            def table(group: Chat) -> GroupTable:
                return GroupTable(telegram, group)

            for first in range(0, tables, SETUP_AT_ONCE):  # as people arrive, not all in one instant
                batch = range(first, min(first + SETUP_AT_ONCE, tables))
                await asyncio.gather(*(set_up(telegram, table(groups[i]), [humans[i]], MATCH) for i in batch))
            for user in humans:
                await wait_for(
                    lambda u=user: waiting_for_human(telegram, u), 120, "every table to wait for its human"
                )
            await telegram.wait_idle()
            setup = time.monotonic() - started
            load = os.getloadavg()
            killed_ms = int(time.time() * 1000)
            leader.send_signal(how)
            if how == signal.SIGKILL:
                leader.wait()
            killed = time.monotonic()
            lease_s = None
            shown: dict[int, int] = {}
            while len(shown) < tables and time.monotonic() - killed < timeout:
                if lease_s is None and await lease_pid(url, token) == standby.pid:
                    lease_s = time.monotonic() - killed
                for i, (group, user) in enumerate(zip(groups, humans, strict=True)):
                    if i not in shown:
                        at = await shown_after(telegram, [group, Chat.private(user)], killed_ms)
                        if at is not None:
                            shown[i] = at
                await asyncio.sleep(0.2)
    finally:
        for process in (leader, standby):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
        emulator.stop()
        cluster.stop()
    times = sorted((at - killed_ms) / 1000 for at in shown.values())
    return {
        "tables": tables,
        "signal": how.name,
        "resumed": len(times),
        "setup_s": round(setup, 1),
        "lease_s": round(lease_s, 2) if lease_s is not None else -1,
        "first_s": round(times[0], 2) if times else -1,
        "last_s": round(times[-1], 2) if times else -1,
        "loadavg_before_kill": round(load[0], 2),
    }


async def _is(value: object, wanted: int) -> bool:
    return await value == wanted  # type: ignore[misc]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tables", type=int, action="append", help="tables mid-deal (repeatable; default 10 and 100)"
    )
    parser.add_argument(
        "--timeout", type=float, default=180.0, help="seconds to wait for every table after the kill"
    )
    parser.add_argument(
        "--signal", choices=["kill", "stop"], default="kill", help="SIGKILL the leader, or SIGSTOP it"
    )
    args = parser.parse_args(argv)
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"guandan-failover-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    how = signal.SIGKILL if args.signal == "kill" else signal.SIGSTOP
    heads = [("signal", 7), ("tables", 6), ("resumed", 7), ("lease s", 8), ("first s", 8)]
    heads += [("last s", 8), ("load", 5)]
    print(" ".join(f"{head:>{width}}" for head, width in heads))
    for tables in args.tables or [10, 100]:
        figures = asyncio.run(run(tables, args.timeout, folder, how))
        print(
            f"{how.name:>7} {figures['tables']:>6} {figures['resumed']:>7} {figures['lease_s']:>8}"
            f" {figures['first_s']:>8}"
            f" {figures['last_s']:>8} {figures['loadavg_before_kill']:>5}"
        )
        print(json.dumps(figures))
    print(f"bot logs: {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
