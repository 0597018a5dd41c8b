"""Copy benchmark: ``python -m storage copy`` of a store of 10,000 finished matches from SQLite
into PostgreSQL (issue 34).

    python bench/storage_copy.py [--matches 10000] [--store PATH]

1. Builds the store as bench/records.py does (``--matches`` finished matches with their full
   logs and records, 50 groups, 400 people) in a temporary folder, or takes ``--store``'s.
2. Starts a throw-away PostgreSQL cluster with its default, durable settings, as
   ``bench/load.py --db postgresql`` does, and makes an empty database on it.
3. Runs the real command, ``python -m storage copy SRC URL``, in a process of its own as an
   operator would (interpreter start and both migrations included; the command lowers its own
   priority by 10), and prints what it printed — the rows of each table and the total — with
   the SQLite file's size, the seconds and the rows a second.
4. Opens the copy with storage's ``Database`` on PostgreSQL and checks that it holds as many
   tables, finished matches, match records and actions as the source.

(Not ``bench/copy.py``: run as a script, that name would hide the standard library's ``copy``.)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.backup import build_store  # noqa: E402
from emulator.postgresql import Cluster, binaries  # noqa: E402
from storage import Database  # noqa: E402

CHECKS = {
    "tables": "SELECT COUNT(*) FROM game_tables",
    "finished matches": "SELECT COUNT(*) FROM game_tables WHERE status = 'finished'",
    "match records": "SELECT COUNT(*) FROM match_records",
    "actions": "SELECT COUNT(*) FROM actions",
}
"""What is counted in both stores after the copy: cheap, and a lost table would show."""


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def copy_store(store: Path, url: str) -> tuple[float, str]:
    """One ``python -m storage copy``: its wall time and what it printed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "storage", "copy", str(store), url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"python -m storage copy failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, done.stdout


def total_rows(printed: str) -> int:
    """The command's own ``total`` line."""
    for line in printed.splitlines():
        if line.startswith("total"):
            return int(line.split()[-1].replace(",", ""))
    raise SystemExit(f"no total in the command's output:\n{printed}")


async def counts(where: str | Path) -> dict[str, int]:
    db = await Database.open(where)
    try:
        found = {}
        for name, sql in CHECKS.items():
            row = await db.conn.fetchone(sql)
            found[name] = int(row[0]) if row else -1
        return found
    finally:
        await db.close()


def measure(store: Path) -> int:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
    source = asyncio.run(counts(store))
    cluster = Cluster.start(bin_dir, durable=True)
    try:
        url = cluster.new_database()
        print(f"load average before the copy: {load_average()}")
        seconds, printed = copy_store(store, url)
        print(f"load average after the copy: {load_average()}")
        print(printed.rstrip())
        rows = total_rows(printed)
        print(
            f"copied {rows:,} rows from {store.stat().st_size / 2**20:.1f} MiB of SQLite"
            f" ({store.stat().st_size:,} bytes) in {seconds:.1f} s: {rows / seconds:,.0f} rows/s"
            " (the whole command: interpreter start, migrations of both, COPY, the counts, commit)"
        )
        copied = asyncio.run(counts(url))
    finally:
        cluster.stop()
    for name in CHECKS:
        print(f"{name:<18}SQLite {source[name]:>10,}   PostgreSQL {copied[name]:>10,}")
    if copied != source:
        print("the copy differs from the source")
        return 1
    print("the copy holds what the source holds")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--matches", type=int, default=10_000, help="finished matches stored (default 10,000)"
    )
    parser.add_argument(
        "--store", metavar="PATH", help="build the store there, or use the one there (reruns)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="guandan-copy-bench-") as folder:
        store = Path(args.store or Path(folder) / "store.db")
        if store.exists():
            print(f"store: {store} as it is, {store.stat().st_size / 2**20:.1f} MiB")
        else:
            started = time.perf_counter()
            asyncio.run(build_store(store, args.matches))
            print(f"store: {args.matches:,} matches, {store.stat().st_size / 2**20:.1f} MiB, built in"
                  f" {time.perf_counter() - started:.0f} s")  # fmt: skip
        return measure(store)


if __name__ == "__main__":
    sys.exit(main())
