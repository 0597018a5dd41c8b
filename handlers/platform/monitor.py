"""``/healthz`` and ``/metrics`` on a small HTTP server of their own (``GUANDAN_METRICS_PORT``).

The server runs in a thread beside the event loop, not on it: a stuck loop is then reported
("the event loop did not answer"), not merely silent, and a scrape costs the loop nothing.
``/metrics`` is prometheus_client's own WSGI exposition of the default registry
(:mod:`common.metrics`). ``/healthz`` answers 200 when

* the event loop runs a callback within :data:`LOOP_TIMEOUT`;
* the store takes a write (:meth:`storage.Database.ping`) within :data:`STORE_TIMEOUT`;
* the Bot API answered the latest request, at most :data:`TELEGRAM_FRESH` seconds ago. Polling
  asks every few seconds; a webhook bot may be idle, so when the latest answer is older (or the
  latest request failed) the check asks ``getMe`` itself and goes by that;

and 503 with the reasons otherwise, one a line. The Dockerfile's HEALTHCHECK runs
``scripts/healthcheck.py``, which asks ``/healthz``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from socketserver import ThreadingMixIn
from typing import Any, Protocol
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.types import StartResponse, WSGIEnvironment

from prometheus_client import make_wsgi_app
from telegram.error import TelegramError

from common import metrics
from common.faults import StorageUnavailable

log = logging.getLogger(__name__)

LOOP_TIMEOUT = 2.0
"""Seconds the event loop may take to run the check's first callback. At 200 busy tables a
callback waits well under 0.1 s; two seconds behind means every press is late."""
STORE_TIMEOUT = 3.0
"""Seconds the store's write probe may take (a lock held by another process makes it wait for
the busy timeout, 5 s: the check says so before then)."""
TELEGRAM_FRESH = 60.0
"""An answer from the Bot API this recent needs no probe (long polling asks every ~10 s)."""
TELEGRAM_TIMEOUT = 4.0
"""Seconds the ``getMe`` probe may take."""

Probe = Callable[[], Coroutine[Any, Any, object]]


class Store(Protocol):
    """What the health check asks of the store (:meth:`storage.Database.ping`): named here so
    the shared plumbing does not import storage."""

    async def ping(self) -> None: ...


@dataclass(frozen=True)
class MonitorConfig:
    """``GUANDAN_METRICS_PORT`` and ``GUANDAN_METRICS_LISTEN``: where the monitor listens."""

    port: int
    host: str = "127.0.0.1"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> MonitorConfig | None:
        """None when the port is unset; :class:`ValueError` (said plainly) when it is no port."""
        setting = env.get("GUANDAN_METRICS_PORT", "").strip()
        if not setting:
            return None
        if not setting.isdigit() or not 0 < int(setting) < 65536:
            raise ValueError(f"GUANDAN_METRICS_PORT={setting!r} is not a port number (1-65535)")
        return cls(int(setting), env.get("GUANDAN_METRICS_LISTEN", "").strip() or "127.0.0.1")


class Monitor:
    """The health and metrics server of one running bot."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        db: Store,
        ask_telegram: Probe,
        *,
        telegram_fresh: float = TELEGRAM_FRESH,
    ) -> None:
        self.loop = loop
        self.db = db
        self.ask_telegram = ask_telegram
        self.telegram_fresh = telegram_fresh
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None
        self._metrics = make_wsgi_app()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_port)

    def start(self, port: int, host: str = "127.0.0.1") -> None:
        """Listen on ``host:port`` (0: any free port, see :attr:`port`) and count metrics."""
        metrics.switch_on()
        self._server = make_server(host, port, self._serve, _Server, handler_class=_Quiet)
        self._thread = threading.Thread(target=self._server.serve_forever, name="monitor", daemon=True)
        self._thread.start()
        log.info("health and metrics on http://%s:%s/healthz and /metrics", host, self.port)

    def stop(self) -> None:
        """Stop serving and counting (the bot is stopping; tests start many bots)."""
        metrics.switch_off()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _serve(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/metrics":
            return self._metrics(environ, start_response)  # type: ignore[no-any-return]
        if path == "/healthz":
            faults = self.faults()
            status = "503 Service Unavailable" if faults else "200 OK"
            body = ("\n".join(faults) if faults else "ok") + "\n"
            start_response(status, [("Content-Type", "text/plain; charset=utf-8")])
            return [body.encode()]
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"/healthz or /metrics\n"]

    def faults(self) -> list[str]:
        """What is wrong, one reason a line (empty: healthy). Runs in the server's thread."""
        try:
            ran = asyncio.run_coroutine_threadsafe(asyncio.sleep(0), self.loop)
            ran.result(LOOP_TIMEOUT)
        except TimeoutError:
            ran.cancel()
            return [f"event loop: did not answer within {LOOP_TIMEOUT:g} s"]
        except RuntimeError as error:  # the loop is closed: the bot is stopping
            return [f"event loop: {error}"]
        checks = asyncio.run_coroutine_threadsafe(self._checks(), self.loop)
        try:
            return checks.result(STORE_TIMEOUT + TELEGRAM_TIMEOUT + LOOP_TIMEOUT)
        except TimeoutError:
            checks.cancel()
            return ["event loop: the checks did not finish"]

    async def _checks(self) -> list[str]:
        store, telegram = await asyncio.gather(self._store(), self._telegram())
        return [fault for fault in (store, telegram) if fault]

    async def _store(self) -> str:
        try:
            await asyncio.wait_for(self.db.ping(), STORE_TIMEOUT)
        except TimeoutError:
            return f"store: did not answer within {STORE_TIMEOUT:g} s"
        except (StorageUnavailable, ValueError) as error:  # ValueError: the connection is closed
            return f"store: {error}"
        return ""

    async def _telegram(self) -> str:
        if metrics.TELEGRAM.fine(self.telegram_fresh):
            return ""
        try:
            await asyncio.wait_for(self.ask_telegram(), TELEGRAM_TIMEOUT)
        except TimeoutError:
            return f"telegram: getMe did not answer within {TELEGRAM_TIMEOUT:g} s"
        except (TelegramError, RuntimeError) as error:  # RuntimeError: the HTTP session is closed
            return f"telegram: {error}"
        return ""


class _Server(ThreadingMixIn, WSGIServer):
    """One thread per request: a slow health check does not hold up a scrape."""

    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    """No access log line per scrape."""

    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes come every few seconds: not worth a log line each."""
