"""A throw-away PostgreSQL cluster for a test session or a benchmark: Debian's ``postgresql``
binaries, ``initdb`` in a temporary folder, a Unix socket in that folder (no TCP port, so
parallel test runs on one machine never meet), stopped and removed at the end. Tests and
benchmarks never need a server someone else started; like the Bot API emulator, it is a stand-in
both use, so it lives here rather than under tests/ (bench/ imports nothing from tests/).

As root (CI containers), the server runs as the ``postgres`` user the Debian package creates:
PostgreSQL refuses to run as root. Durability is switched off (``fsync``,
``synchronous_commit``): a test cluster that crashes is simply made again.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Final

SERVER_USER: Final = "postgres"
SUPERUSER: Final = "guandan"
PORT: Final = 5432  # names the socket file only: the server listens on no TCP port
FAST: Final = ("fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=200")
_HIDDEN_ENV: Final = ("LD_PRELOAD", "FAKETIME", "FAKETIME_NO_CACHE", "DONT_FAKE_MONOTONIC")
"""Kept from the server: `make calendar-check` runs the tests under libfaketime, the server need not."""


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/15/bin)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda path: int(path.parent.parent.name)
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class Cluster:
    """One running server and the databases made on it, one per test."""

    def __init__(self, bin_dir: Path, folder: Path) -> None:
        self.bin_dir = bin_dir
        self.folder = folder
        self.data = folder / "data"
        self._names = itertools.count(1)

    @classmethod
    def start(cls, bin_dir: Path, *, durable: bool = False) -> Cluster:
        """``durable``: PostgreSQL's own settings (every commit flushed to disk), for benches
        that compare with production; the tests' cluster skips the flushes."""
        folder = Path(tempfile.mkdtemp(prefix="guandan-pg-"))
        cluster = cls(bin_dir, folder)
        if os.geteuid() == 0:
            account = pwd.getpwnam(SERVER_USER)
            os.chown(folder, account.pw_uid, account.pw_gid)
        try:
            cluster._server(
                "initdb",
                "-D",
                str(cluster.data),
                "-U",
                SUPERUSER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            )
            options = " ".join(
                [f"-k {folder}", "-c listen_addresses=''", f"-p {PORT}"]
                + [f"-c {o}" for o in (() if durable else FAST)]
            )
            log = str(folder / "server.log")
            cluster._server("pg_ctl", "-D", str(cluster.data), "-l", log, "-w", "-o", options, "start")
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return cluster

    def stop(self) -> None:
        try:
            self._server("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.folder}&port={PORT}"

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        name = f"test_{next(self._names)}"
        self._client("createdb", name)
        return self.url(name)

    def dump(self, url: str, dest: Path) -> None:
        """``pg_dump --format=custom`` of the database at ``url`` into ``dest``, as compose's
        backup service makes it."""
        self._client("pg_dump", "--format=custom", f"--file={dest}", f"--dbname={url}")

    def restore(self, dump: Path) -> str:
        """A fresh database with ``dump`` restored into it (``pg_restore``, as docs/operations.md
        says); its URL."""
        url = self.new_database()
        self._client("pg_restore", "--exit-on-error", f"--dbname={url}", str(dump))
        return url

    def _client(self, program: str, *args: str) -> None:
        command = [str(self.bin_dir / program), "-h", str(self.folder), "-p", str(PORT), "-U", SUPERUSER]
        subprocess.run([*command, *args], check=True, capture_output=True, env=_environment())

    def _server(self, program: str, *args: str) -> None:
        command = [str(self.bin_dir / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, env=_environment(), cwd=self.folder)
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{program} failed: {done.stderr.strip()}\n{tail}")


def _environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in _HIDDEN_ENV}
