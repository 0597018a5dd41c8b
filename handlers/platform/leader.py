"""A bot process among several on one PostgreSQL: stand by, take the lease, lead, step down.

``bot.py`` runs :func:`serve` when ``GUANDAN_DB`` is a PostgreSQL URL (SQLite keeps one
process and no lease). The lease itself is :mod:`storage.lease`; here is what a process does
around it:

* **standing by** it sends nothing to Telegram (its requests are refused by the lease before
  they leave), never calls ``getUpdates``, and keeps two small servers: in webhook mode the
  webhook's port answers 503 (Telegram retries; a proxy in front tries the next process), and
  on ``GUANDAN_METRICS_PORT`` ``/healthz`` answers 200 ``standby`` while its lease connection
  is open (it could take over) and 503 when it is not;
* **taking over** it stops those servers, fences the store (the old leader's sessions are
  ended), initializes the bot, in webhook mode starts its own webhook server and registers it
  with ``setWebhook`` (so Telegram's retries reach it), then opens the services (``post_init``:
  every table resumes from its action log), starts, and in polling mode polls;
* **leading** it renews the lease every second, from the moment it took it (the fence and the
  taker's wait may outlast one validity); when a renewal fails it steps down: every Bot API
  request and statement is refused at once, the application stops within
  :data:`STOP_TIMEOUT`, and the process exits with :data:`STEP_DOWN_EXIT` for its supervisor to
  start it again, as a standby. A leader woken from a freeze does the same: its row was taken;
* **stopped** (SIGTERM, SIGINT: a deploy stops the old process once the new one stands by) it
  stops the application and only then releases the lease, so the standby takes it at once.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, Protocol

import tornado.httpserver
import tornado.web
from telegram import Update
from telegram.ext import Application

from handlers.platform.monitor import MonitorConfig
from handlers.platform.webhook import WebhookConfig, guard_webhook_server

log = logging.getLogger(__name__)

STEP_DOWN_EXIT = 75
"""The exit status of a leader that lost its lease (``EX_TEMPFAIL``): start me again."""
STOP_TIMEOUT = 15.0
"""Seconds the application may take to stop after the lease was lost (its store may be gone)."""

App = Application[Any, Any, Any, Any, Any, Any]


class Lease(Protocol):
    """What a process does with its lease (:class:`storage.lease.Lease`, which bot.py opens): named
    here so the shared plumbing does not import storage."""

    bot_id: int
    lost: asyncio.Event

    @property
    def connected(self) -> bool: ...

    async def acquire(self) -> None: ...

    async def fence(self) -> int: ...

    async def keep(self) -> None: ...

    async def close(self) -> None: ...


class _Unavailable(tornado.web.RequestHandler):
    """The standby's webhook: 503 to everything, so Telegram delivers it again later."""

    def prepare(self) -> None:
        self.set_status(HTTPStatus.SERVICE_UNAVAILABLE)
        self.finish("standby: another process holds this bot's lease\n")


class _StandbyHealth(tornado.web.RequestHandler):
    """``/healthz`` of a standby: healthy while it could take over."""

    def initialize(self, lease: Lease) -> None:
        self.lease = lease

    def get(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        if self.lease.connected:
            self.finish(f"ok: standby for bot {self.lease.bot_id}, waiting for its lease\n")
        else:
            self.set_status(HTTPStatus.SERVICE_UNAVAILABLE)
            self.finish(
                f"standby for bot {self.lease.bot_id}: no connection to the store, cannot take over\n"
            )


class StandbyServers:
    """The ports a standby keeps answering on (module docstring); closed before it leads."""

    def __init__(self, lease: Lease, webhook: WebhookConfig | None, health: MonitorConfig | None) -> None:
        self._servers: list[tornado.httpserver.HTTPServer] = []
        if webhook is not None:
            app = tornado.web.Application([(r"/.*", _Unavailable)])
            self._listen(app, webhook.port, webhook.listen)
        if health is not None:
            app = tornado.web.Application([(r"/healthz", _StandbyHealth, {"lease": lease})])
            self._listen(app, health.port, health.host)

    def _listen(self, app: tornado.web.Application, port: int, host: str) -> None:
        server = tornado.httpserver.HTTPServer(app)
        server.listen(port, host)
        self._servers.append(server)

    async def close(self) -> None:
        for server in self._servers:
            server.stop()
            await server.close_all_connections()
        self._servers.clear()


async def serve(
    app: App,
    lease: Lease,
    *,
    webhook: WebhookConfig | None = None,
    health: MonitorConfig | None = None,
    after_open: Callable[[], None] | None = None,
) -> int:
    """Stand by until the lease is ours, lead until it is lost or a stop signal; the exit status."""
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopping.set)
    standby = StandbyServers(lease, webhook, health)
    try:
        if not await _first(lease.acquire(), stopping.wait()):
            return 0
        keeping = asyncio.create_task(lease.keep())  # renewing from the first moment: the
        try:  # fence and the taker's wait together may outlast one validity
            await standby.close()
            await lease.fence()
            lost = await _lead(app, lease, keeping, webhook, stopping, after_open)
        finally:
            keeping.cancel()
    finally:
        await standby.close()
        await lease.close()
    return STEP_DOWN_EXIT if lost else 0


async def _lead(
    app: App,
    lease: Lease,
    keeping: asyncio.Task[None],
    webhook: WebhookConfig | None,
    stopping: asyncio.Event,
    after_open: Callable[[], None] | None,
) -> bool:
    """Serve the token until a stop signal (False) or the lease is lost (True)."""
    try:
        try:
            started = await _first(_start(app, webhook, after_open), lease.lost.wait(), stopping.wait())
        except Exception:
            if not lease.lost.is_set():
                raise
            started = False  # a request refused because the lease was lost meanwhile
        if started:
            await _first(keeping, stopping.wait())
    finally:
        keeping.cancel()
        lost = lease.lost.is_set()
        try:
            await asyncio.wait_for(_stop(app), STOP_TIMEOUT)
        except Exception:
            log.exception("the application did not stop cleanly")
    return lost


async def _start(app: App, webhook: WebhookConfig | None, after_open: Callable[[], None] | None) -> bool:
    """What ``run_polling``/``run_webhook`` do before idling, webhook registration first."""
    await app.initialize()
    assert app.updater is not None
    if webhook is not None:
        guard_webhook_server()
        await app.updater.start_webhook(
            listen=webhook.listen,
            port=webhook.port,
            url_path=re.escape(webhook.path),  # python-telegram-bot routes it as a pattern
            webhook_url=webhook.url,
            secret_token=webhook.secret,
            allowed_updates=Update.ALL_TYPES,
        )
    if app.post_init is not None:
        await app.post_init(app)  # the services open; every table resumes
    if after_open is not None:
        after_open()
    await app.start()
    if webhook is None:
        await app.updater.start_polling(allowed_updates=Update.ALL_TYPES)
    log.info("leading: serving bot %s", app.bot.token.partition(":")[0])
    return True


async def _stop(app: App) -> None:
    """What ``run_polling`` does after idling (each step only if it was reached)."""
    if app.updater is not None and app.updater.running:
        await app.updater.stop()
    if app.running:
        await app.stop()
        if app.post_stop is not None:
            await app.post_stop(app)
    await app.shutdown()
    if app.post_shutdown is not None:
        await app.post_shutdown(app)


async def _first(*waits: Any) -> bool:
    """Run the awaitables until the first finishes; cancel the rest. True when the first one
    given finished first (its exception, if any, is raised)."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if tasks[0] in done:
        tasks[0].result()
        return True
    return False
