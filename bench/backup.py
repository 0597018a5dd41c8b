"""Backup benchmark: ``python -m storage backup`` of a store of 10,000 finished matches, idle and
under play.

    python bench/backup.py [--matches 10000] [--tables 50] [--every 20] [--max-seconds 150]

1. Builds the store as bench/records.py does (``--matches`` finished matches with their full
   logs and records, 50 groups, 400 people) in a temporary folder.
2. Backs it up three times with nobody playing (``python -m storage backup``, a process of its
   own as a cron job's would be): the time of the whole command (interpreter start included)
   and the size of the copy.
3. Runs bench/load.py with ``--tables`` tables playing on a copy of that store and a backup every
   ``--every`` seconds of play: it prints the presses' p99 while a backup ran and outside them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.records import build  # noqa: E402
from storage import Database  # noqa: E402

IDLE_RUNS = 3


async def build_store(path: Path, matches: int) -> None:
    db = await Database.open(path)
    try:
        await build(
            db, argparse.Namespace(matches=matches, groups=50, people=400, backfill=0), random.Random(1)
        )
    finally:
        await db.close()


def back_up(store: Path, dest: Path) -> tuple[float, str]:
    """One ``python -m storage backup --force``: its wall time and what it said."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "storage", "backup", "--force", str(dest)],
        cwd=ROOT,
        env=os.environ | {"GUANDAN_DB": str(store)},
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - started, done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--matches", type=int, default=10_000, help="finished matches stored (default 10,000)"
    )
    parser.add_argument(
        "--tables", type=int, default=50, help="tables playing during the backups (default 50)"
    )
    parser.add_argument(
        "--every", type=float, default=20.0, help="seconds between backups in play (default 20)"
    )
    parser.add_argument("--max-seconds", type=float, default=150.0, help="bench/load.py's --max-seconds")
    parser.add_argument(
        "--store", metavar="PATH", help="build the store there, or use the one there (reruns)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="guandan-backup-bench-") as folder:
        store, dest = Path(args.store or Path(folder) / "store.db"), Path(folder) / "backup.db"
        started = time.perf_counter()
        if store.exists():
            print(f"store: {store} as it is, {store.stat().st_size / 2**20:.1f} MiB")
        else:
            asyncio.run(build_store(store, args.matches))
            print(f"store: {args.matches:,} matches, {store.stat().st_size / 2**20:.1f} MiB, built in"
                  f" {time.perf_counter() - started:.0f} s")  # fmt: skip
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for _ in range(IDLE_RUNS):
            seconds, said = back_up(store, dest)
            print(f"idle backup: {seconds:.2f} s for the whole command; {said}")
        print(f"copy: {dest.stat().st_size / 2**20:.1f} MiB")
        print(
            f"\nunder play: bench/load.py --tables {args.tables} --from-store <the store>"
            f" --backup-every {args.every}"
        )
        load = [
            sys.executable,
            str(ROOT / "bench" / "load.py"),
            "--tables",
            str(args.tables),
            "--from-store",
            str(store),
        ]
        load += ["--backup-every", str(args.every), "--max-seconds", str(args.max_seconds)]
        return subprocess.run(load, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
