"""What the proxy in front of the bot processes relies on (the Caddyfile, docs/miniapp.md
"Failover"): ``/healthz`` on the Mini App's port answers 200 only while the process serves the
tables, a page's WebSocket is refused by a process that no longer does, and the Caddyfile checks
that address on the compose services' ports. The failover itself, in a browser through a real
caddy: tests/e2e/test_miniapp_failover_browser_e2e.py."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import yaml
from aiohttp.test_utils import TestClient, TestServer

from common.faults import StorageUnavailable
from handlers.table.miniapp import holding
from webapp.protocol import Ping, parse
from webapp.server import MiniApp
from webapp.settings import WebAppConfig

ROOT = Path(__file__).resolve().parents[2]


class Lease:
    """The store session's check as bot.py hands it in: raises once the lease is lost."""

    def __init__(self) -> None:
        self.held = True

    def check(self) -> None:
        if not self.held:
            raise StorageUnavailable("this process does not hold the lease")


async def test_healthz_answers_200_only_while_the_process_serves() -> None:
    lease = Lease()
    config = WebAppConfig("https://g.example/")
    miniapp = MiniApp(None, "1:T", config, None, leading=holding(lease.check))  # type: ignore[arg-type]
    async with TestClient(TestServer(miniapp.application())) as client:
        answer = await client.get("/healthz")
        assert answer.status == 200
        lease.held = False  # the lease lost (or not renewed in time): the proxy looks elsewhere
        assert (await client.get("/healthz")).status == 503
        upgrade = await client.get("/ws", headers={"Connection": "Upgrade", "Upgrade": "websocket"})
        assert upgrade.status == 503  # a page is not taken in: it reconnects, through the proxy
        lease.held = True
        miniapp.closing = True  # stopping: its pages go to the next process
        assert (await client.get("/healthz")).status == 503


def test_without_a_lease_the_process_always_holds() -> None:
    assert holding(None)() is True


def compose_upstreams() -> list[str]:
    """The Mini App's address in each compose bot service (service name, GUANDAN_WEBAPP_PORT)."""
    override = yaml.safe_load((ROOT / "compose.miniapp.yaml").read_text(encoding="utf-8"))
    services = override["services"]
    return [
        f"{name}:{services[name]['environment']['GUANDAN_WEBAPP_PORT']}"
        for name in services
        if "GUANDAN_WEBAPP_PORT" in (services[name].get("environment") or {})
    ]


def test_the_caddyfile_checks_the_leader_on_the_compose_services(tmp_path: Path) -> None:
    """Adapted by caddy itself (2.6, Debian's): every directive is one it knows."""
    adapted = subprocess.run(
        ["caddy", "adapt", "--config", str(ROOT / "Caddyfile"), "--adapter", "caddyfile"],
        env=os.environ | {"MINIAPP_DOMAIN": "g.example", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    config: dict[str, Any] = json.loads(adapted.stdout)
    (server,) = config["apps"]["http"]["servers"].values()
    proxy = server["routes"][0]["handle"][0]["routes"][0]["handle"][0]
    assert proxy["handler"] == "reverse_proxy"
    assert [upstream["dial"] for upstream in proxy["upstreams"]] == compose_upstreams()
    assert proxy["load_balancing"]["selection_policy"]["policy"] == "first"
    active = proxy["health_checks"]["active"]
    assert active["uri"] == "/healthz" and active["expect_status"] == 200
    assert active["interval"] <= 2e9 and active["timeout"] <= 3e9  # a dead leader out within seconds
    assert proxy["health_checks"]["passive"]["unhealthy_status"] == [503]
    assert proxy["load_balancing"]["try_duration"] >= 10e9  # a failover's seconds are held, not refused


def test_a_page_may_ask_whether_the_server_is_still_there() -> None:
    assert parse('{"t": "ping"}') == Ping()
