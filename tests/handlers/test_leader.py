"""What a standby answers on its ports (handlers/platform/leader.py): its webhook 503, so
Telegram delivers again later or a proxy tries the leader; its /healthz 200 "standby" while it
could take over (its lease connection is open) and 503 when it could not."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

from emulator.client import free_port
from emulator.postgresql import Cluster
from handlers.platform.leader import StandbyServers
from handlers.platform.monitor import MonitorConfig
from handlers.platform.webhook import WebhookConfig
from storage.lease import Lease


def ask(url: str, body: bytes | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


async def test_a_standby_refuses_updates_and_says_whether_it_could_take_over(
    postgresql_cluster: Cluster,
) -> None:
    url = postgresql_cluster.new_database()
    holder, standby = Lease(url, 5, instance="holder"), Lease(url, 5, instance="standby")
    webhook = WebhookConfig(url="https://bot.example/tg", secret="s" * 16, port=free_port(), path="/tg")
    health = MonitorConfig(free_port())
    servers = StandbyServers(standby, webhook, health)
    try:
        status, text = await asyncio.to_thread(ask, f"http://127.0.0.1:{health.port}/healthz")
        assert status == 503 and "no connection to the store" in text  # not connected yet
        assert await holder._try()
        assert not await standby._try()  # connected, standing by
        status, text = await asyncio.to_thread(ask, f"http://127.0.0.1:{health.port}/healthz")
        assert (status, text) == (200, "ok: standby for bot 5, waiting for its lease\n")
        status, _ = await asyncio.to_thread(ask, f"http://127.0.0.1:{webhook.port}/tg", b'{"update_id": 1}')
        assert status == 503
    finally:
        await servers.close()
        await holder.close()
        await standby.close()
