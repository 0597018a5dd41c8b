"""The store's command line: ``python -m storage backup DEST [--force]`` and
``python -m storage copy SRC DST``.

``backup`` copies the store ``GUANDAN_DB`` names, as for the bot; ``copy`` moves an SQLite file
into an empty PostgreSQL database. One subcommand per task (argparse subparsers), each doing
its work in a module of its own; this file only parses the arguments. Every refusal is one
plain line on stderr and a non-zero exit status; nothing is written then.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from storage.backup import BackupRefused, backup
from storage.copy import Copied, copy
from storage.database import default_path
from storage.errors import StorageUnavailable


def parser() -> argparse.ArgumentParser:
    commands = argparse.ArgumentParser(prog="python -m storage", description="The bot's storage commands.")
    tasks = commands.add_subparsers(dest="command", required=True, metavar="COMMAND")
    backing_up = tasks.add_parser(
        "backup",
        help="copy the store (GUANDAN_DB) to DEST while the bot runs",
        description="Copy the store GUANDAN_DB names to DEST, consistently, while the bot runs"
        " (SQLite's online backup API). Says what it copied.",
    )
    backing_up.add_argument("dest", metavar="DEST", type=Path, help="the backup file to write")
    backing_up.add_argument("--force", action="store_true", help="replace DEST if it exists")
    backing_up.set_defaults(run=run_backup)
    copying = tasks.add_parser("copy", help="copy an SQLite database into an empty PostgreSQL one")
    copying.add_argument("source", help="the SQLite file, e.g. guandan.db")
    copying.add_argument("destination", help="a postgresql:// URL of an empty database")
    copying.set_defaults(run=run_copy)
    return commands


NICENESS = 10
"""The command lowers its own CPU priority by this much: on a machine of a few cores the bot's
presses go first, and a backup takes the time that is left (bench/backup.py). Only the command
(``python -m storage``), not :func:`main` called in another process (tests)."""


def run_backup(args: argparse.Namespace) -> int:
    try:
        copied = backup(default_path(), args.dest, force=args.force)
    except BackupRefused as refused:
        print(f"backup refused: {refused}", file=sys.stderr)
        return 2
    print(copied.summary())
    return 0


def run_copy(args: argparse.Namespace) -> int:
    return asyncio.run(_copy(args.source, args.destination))


async def _copy(source: str, destination: str) -> int:
    def report(done: Copied) -> None:
        print(f"{done.table:<24}{done.rows:>10,}", flush=True)

    print(f"{'table':<24}{'rows':>10}")

    try:
        copied = await copy(source, destination, report=report)
    except (ValueError, StorageUnavailable) as error:
        print(f"not copied: {error}", file=sys.stderr)
        return 1
    print(f"{'total':<24}{sum(done.rows for done in copied):>10,}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    os.nice(NICENESS)
    sys.exit(main())
