"""Store benchmark: the writes and reads on a press's path, timed on SQLite and on PostgreSQL.

    python bench/store.py [--presses 2000] [--tables 20]
                          [--db sqlite,postgresql,postgresql?synchronous_commit=off]

Per store (a temporary SQLite file; a throw-away PostgreSQL cluster started as the tests
start theirs, emulator/postgresql.py, or ``postgresql://…``, an empty database of yours):

* ``append``: one action logged, committed before the press is answered — the write every
  press makes (``ActionLog.append``), one after another;
* ``append ×T``: the same from ``--tables`` tables at once, each a task of its own: what one
  press waits when every table presses together (the connection takes one statement at a
  time, so this includes waiting for the others');
* ``read log``: a table's whole log read back (a resume, a replay), 200 actions;
* ``record``: a finished match's record and its four seats, one transaction on the records'
  own connection.

``postgresql?name=value``: the throw-away cluster with a setting of the bot's connections
(``synchronous_commit=off``: a commit does not wait for its WAL to reach the disk, the
guarantee SQLite's ``synchronous = NORMAL`` gives); the cluster itself keeps PostgreSQL's
defaults (every commit flushed).

The stores take turns operation by operation, so both see the same machine (on a shared
machine, other work inflates both alike). Figures in milliseconds; the last line is JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from emulator.postgresql import Cluster, binaries
from storage import Database
from storage.backend import POSTGRESQL_SCHEMES
from storage.records import Figures, MatchRow, PlayerRow

LOG = 200  # actions in the log read back
GROUPS = itertools.count(1000)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))] if ordered else 0.0


@contextlib.asynccontextmanager
async def opened(choice: str, folder: Path) -> AsyncIterator[Database]:
    """The store ``choice`` names, migrated and empty, with a table to log to."""
    cluster = None
    if choice.startswith(POSTGRESQL_SCHEMES):
        target = choice
    elif choice.partition("?")[0] == "postgresql":
        bin_dir = binaries()
        if bin_dir is None:
            raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
        cluster = Cluster.start(bin_dir, durable=True)
        settings = choice.partition("?")[2]  # asyncpg passes a URL's other parameters as settings
        target = cluster.new_database() + (f"&{settings}" if settings else "")
    else:
        target = str(folder / "store.db")
    db = await Database.open(target)
    try:
        yield db
    finally:
        await db.close()
        if cluster is not None:
            cluster.stop()


async def timed(action: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await action()
    return (time.perf_counter() - start) * 1000


async def new_table(db: Database, token: str) -> int:
    """A table in a group of its own (a group has one active table at a time)."""
    chat_id = -next(GROUPS)
    table = await db.tables.create(
        chat_id=chat_id, token=token, creator_id=1, preset="default", rules_json="{}", seed=1
    )
    return table.id


Times = dict[str, dict[str, list[float]]]


async def measure(stores: dict[str, Database], presses: int, tables: int) -> Times:
    times: Times = {name: {} for name in stores}
    tables_of = {name: [await new_table(db, f"t{n}") for n in range(tables)] for name, db in stores.items()}
    version: dict[str, Counter[int]] = {name: Counter() for name in stores}

    def append(name: str, table_id: int) -> Callable[[], Awaitable[None]]:
        version[name][table_id] += 1
        return lambda: stores[name].actions.append(
            table_id=table_id, version=version[name][table_id], seat=0, action_json='{"type": "pass"}'
        )

    for press in range(presses):
        for name, db in stores.items():
            ids = tables_of[name]
            times[name].setdefault("append", []).append(await timed(append(name, ids[0])))
            together = await asyncio.gather(*(timed(append(name, table_id)) for table_id in ids[1:]))
            times[name].setdefault(f"append ×{tables - 1}", []).extend(together)
            if press % 10 == 0:
                read = lambda db=db, ids=ids: db.actions.of_table(table_id=ids[0])  # noqa: E731
                times[name].setdefault("read log", []).append(await timed(read))
                finished = await new_table(db, f"done{press}")
                record = lambda db=db, finished=finished: db.records.write(match_row(finished))  # noqa: E731
                times[name].setdefault("record", []).append(await timed(record))
            if version[name][ids[0]] >= LOG:  # keep the log read back at LOG actions
                tables_of[name][0] = await new_table(db, f"log{press}")
    return times


def match_row(table_id: int) -> MatchRow:
    players = tuple(
        PlayerRow(
            seat, 100 + seat, f"P{seat}", False, f"u:{100 + seat}", "p", "P", seat % 2, Figures(deals=1)
        )
        for seat in range(4)
    )
    return MatchRow(table_id, -1, "default", "2026-01-01T00:00:00", 0, "levels", 1, "{}", players)


async def run(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="guandan-store-") as folder:
        async with contextlib.AsyncExitStack() as stack:
            stores = {
                choice.split("://")[0]: await stack.enter_async_context(opened(choice, Path(folder)))
                for choice in args.db.split(",")
            }
            times = await measure(stores, args.presses, args.tables)
    width = max(len(name) for name in times) + 2
    print(f"{'store':<{width}}{'operation':<14}{'n':>7}{'p50':>9}{'p90':>9}{'p99':>9}{'max':>9}")
    summary: dict[str, object] = {"presses": args.presses, "tables": args.tables}
    for name, operations in times.items():
        for operation, values in operations.items():
            row = [percentile(values, p) for p in (50, 90, 99)] + [max(values)]
            print(f"{name:<{width}}{operation:<14}{len(values):>7}" + "".join(f"{v:>9.2f}" for v in row))
            summary[f"{name} {operation} p50_ms"] = round(row[0], 3)
            summary[f"{name} {operation} p99_ms"] = round(row[2], 3)
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(json.dumps(summary))
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--presses", type=int, default=2000, help="rounds of presses (default 2000)")
    parser.add_argument("--tables", type=int, default=20, help="tables pressing at once (default 20)")
    parser.add_argument("--db", default="sqlite,postgresql", help="stores to compare, comma-separated")
    args = parser.parse_args(argv)
    if args.presses < 1 or args.tables < 2:
        parser.error("--presses must be ≥ 1 and --tables ≥ 2")
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
