"""The store's command line: ``python -m storage backup DEST [--force]``.

The store is the one ``GUANDAN_DB`` names, as for the bot. One subcommand per task (argparse
subparsers), so others (a copy between back ends) sit beside ``backup``. Every refusal is one
plain line on stderr and exit status 2; nothing is written then.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from storage.backup import BackupRefused, backup
from storage.database import default_path


def parser() -> argparse.ArgumentParser:
    commands = argparse.ArgumentParser(prog="python -m storage", description=__doc__.splitlines()[0])
    tasks = commands.add_subparsers(dest="command", required=True, metavar="COMMAND")
    copy = tasks.add_parser(
        "backup",
        help="copy the store (GUANDAN_DB) to DEST while the bot runs",
        description="Copy the store GUANDAN_DB names to DEST, consistently, while the bot runs"
        " (SQLite's online backup API). Says what it copied.",
    )
    copy.add_argument("dest", metavar="DEST", type=Path, help="the backup file to write")
    copy.add_argument("--force", action="store_true", help="replace DEST if it exists")
    copy.set_defaults(run=run_backup)
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


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    os.nice(NICENESS)
    sys.exit(main())
