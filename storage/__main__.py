"""Storage commands: ``python -m storage copy SRC DST`` (an SQLite file into PostgreSQL).

Each command is a subcommand of its own module; this file only parses the arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from storage.copy import Copied, copy
from storage.errors import StorageUnavailable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage", description="The bot's storage commands.")
    commands = parser.add_subparsers(dest="command", required=True)
    copying = commands.add_parser("copy", help="copy an SQLite database into an empty PostgreSQL one")
    copying.add_argument("source", help="the SQLite file, e.g. guandan.db")
    copying.add_argument("destination", help="a postgresql:// URL of an empty database")
    args = parser.parse_args(argv)
    if args.command == "copy":
        return asyncio.run(_copy(args.source, args.destination))
    return 2


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


if __name__ == "__main__":
    sys.exit(main())
