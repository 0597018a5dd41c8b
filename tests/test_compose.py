"""compose.yaml held to the program (Docker does not run here): every bot service runs a command
that exists with environment variables the bot reads, both bots share one token and one
PostgreSQL store (so one lease), the health check asks the bot's own /healthz port, and the
backup dumps the same database. tests/e2e/test_failover_e2e.py starts the bots with the
environment :func:`bot_environment` takes from this file."""

from __future__ import annotations

import ast
import json
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from storage.backend import is_postgresql

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "compose.yaml"
SOURCES = [
    ROOT / "bot.py",
    *sorted((ROOT / "handlers").rglob("*.py")),
    *sorted((ROOT / "storage").rglob("*.py")),
]
SOURCES += sorted((ROOT / "app").rglob("*.py"))
INTERPOLATION = re.compile(r"\$\{([A-Z_]+)(?::?[?-][^}]*)?\}")


def services() -> dict[str, dict[str, Any]]:
    return dict(yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"])


def bots() -> dict[str, dict[str, Any]]:
    """The services that run bot.py."""
    return {name: service for name, service in services().items() if "bot.py" in service.get("command", [])}


def bot_environment(token: str, db: str) -> dict[str, str]:
    """A bot service's environment with the deployment's own values put in (the token, the
    store's URL): what the failover test starts ``bot.py`` with."""
    environment = dict(next(iter(bots().values()))["environment"])
    environment |= {"TELEGRAM_BOT_TOKEN": token, "GUANDAN_DB": db}
    return {name: str(value) for name, value in environment.items()}


def read_variables() -> set[str]:
    """Every environment variable the bot's code reads: names given to ``environ.get``,
    ``environ[...]``, ``env.get`` and ``getenv``, as literals or module constants."""
    names: set[str] = set()
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            node.targets[0].id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        }
        for node in ast.walk(tree):
            key: ast.expr | None = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                owner = ast.unparse(node.func.value)
                if (
                    node.func.attr == "get" and owner.endswith(("environ", "env"))
                ) or node.func.attr == "getenv":
                    key = node.args[0]
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("environ"):
                key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                names.add(key.value)
            elif isinstance(key, ast.Name) and key.id in constants:
                names.add(constants[key.id])
    return names


def test_the_bot_services_run_bot_py_with_variables_it_reads() -> None:
    known = read_variables()
    assert {"TELEGRAM_BOT_TOKEN", "GUANDAN_DB", "GUANDAN_METRICS_PORT"} <= known  # the scan sees them
    assert len(bots()) == 2
    for name, service in bots().items():
        program, script = service["command"]
        assert program == ".venv/bin/python", name  # the Dockerfile's virtualenv (make install)
        assert (ROOT / script).is_file(), name
        unknown = set(service["environment"]) - known
        assert not unknown, f"{name} sets variables the bot never reads: {unknown}"
        assert service["restart"] in ("always", "unless-stopped", "on-failure")  # after a step-down


def test_both_bots_share_one_token_and_one_postgresql_store() -> None:
    tokens = {service["environment"]["TELEGRAM_BOT_TOKEN"] for service in bots().values()}
    stores = {service["environment"]["GUANDAN_DB"] for service in bots().values()}
    assert len(tokens) == 1 and len(stores) == 1
    url = stores.pop()
    assert is_postgresql(url)
    address = urlsplit(INTERPOLATION.sub("x", url))
    database = services()[str(address.hostname)]
    assert database["environment"]["POSTGRES_USER"] == address.username
    assert database["environment"]["POSTGRES_DB"] == address.path.lstrip("/")
    assert all("postgres" in service["depends_on"] for service in bots().values())


def test_the_health_check_is_the_images_own_asking_the_bots_healthz_port() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    found = re.search(r"^HEALTHCHECK .*?\bCMD (\[.*\])\s*$", dockerfile, re.MULTILINE)
    assert found, "the Dockerfile has no HEALTHCHECK in exec form"
    for name, service in bots().items():
        assert service["healthcheck"]["test"] == ["CMD", *json.loads(found.group(1))], name
        assert service["environment"]["GUANDAN_METRICS_PORT"].isdigit(), name
        assert service["environment"]["GUANDAN_METRICS_LISTEN"] == "127.0.0.1"
    assert "GUANDAN_METRICS_PORT" in (ROOT / "scripts" / "healthcheck.py").read_text(encoding="utf-8")


def test_the_backup_dumps_the_bots_database_on_a_schedule() -> None:
    backup = services()["backup"]
    environment = backup["environment"]
    url = urlsplit(INTERPOLATION.sub("x", next(iter(bots().values()))["environment"]["GUANDAN_DB"]))
    assert (environment["PGHOST"], environment["PGUSER"], environment["PGDATABASE"]) == (
        url.hostname,
        url.username,
        url.path.lstrip("/"),
    )
    script = backup["entrypoint"][-1]
    assert "pg_dump" in shlex.split(script.replace(";", " ; ")) and "sleep" in script
