"""Webhook mode: Telegram posts every update to the bot's public address instead of the bot
polling for them. ``main()`` chooses it when ``TELEGRAM_WEBHOOK_URL`` is set.

The settings are read from the environment once and checked before anything starts, so a
deployment that asks for webhook mode but does not describe a safe one stops with a message
saying what to set, rather than serving an endpoint anyone could post to. The secret is
required: Telegram sends it in the ``X-Telegram-Bot-Api-Secret-Token`` header of each
request (``setWebhook``'s ``secret_token``), and python-telegram-bot's webhook server answers
403 to a request without it or with another one, before the update reaches a handler.
Without it, anyone who learns the address could post forged presses for any player.

The request handler is python-telegram-bot's, guarded (:class:`GuardedTelegramHandler`): a
body over :data:`MAX_BODY_BYTES` is refused with 413 before it is read (by its
``Content-Length``, or as soon as a chunked body passes the limit), with or without the
secret; a body that is not UTF-8, not JSON (100,000 nested brackets included) or not an
update gets 400 and one warning line in the log, never a traceback.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import tornado.web
from telegram import Update
from telegram.ext import Application, ExtBot
from telegram.ext import _updater as ptb_updater
from telegram.ext._utils.webhookhandler import TelegramHandler, WebhookAppClass

from handlers.platform.transport import slim_update

log = logging.getLogger(__name__)

URL = "TELEGRAM_WEBHOOK_URL"
SECRET = "TELEGRAM_WEBHOOK_SECRET"
LISTEN = "TELEGRAM_WEBHOOK_LISTEN"
PORT = "TELEGRAM_WEBHOOK_PORT"
PATH = "TELEGRAM_WEBHOOK_PATH"

DEFAULT_LISTEN = "127.0.0.1"
"""Loopback: the bot's own server speaks plain HTTP, so only the reverse proxy in front of
it (which terminates TLS) should reach it. A container sets 0.0.0.0 (see the Dockerfile)."""

DEFAULT_PORT = 8080

SECRET_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")
"""The characters Telegram accepts in ``setWebhook``'s ``secret_token`` (1-256 of them)."""

MIN_SECRET_LENGTH = 16
"""16 URL-safe characters are 96 random bits when generated as README.md says; a shorter
value is more likely a placeholder or a word than a secret."""

MAX_SECRET_LENGTH = 256

MAX_BODY_BYTES = 1 << 20
"""The largest request body read (1 MiB). Telegram's updates are a few kilobytes; a message
with a 4,096-character text and all its entities stays far below this."""

PATH_CHARACTERS = re.compile(r"/[A-Za-z0-9/_.~-]*")

GENERATE = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"

NO_SECRET = f"""\
{URL} is set, so the bot would receive updates by webhook, but {SECRET} is not set.
Without a secret anyone who finds the webhook address can post forged updates to the bot
(any user, any button). Generate one and start again with it:

    {SECRET}=$({GENERATE}) make run

Telegram then sends it with every update, and requests without it are refused (403).
To poll Telegram instead (no public address needed), unset {URL}.
"""


class WebhookConfigError(ValueError):
    """The environment asks for webhook mode but does not describe a usable, safe one."""


@dataclass(frozen=True)
class WebhookConfig:
    """Where Telegram posts updates (``url``, the reverse proxy's public HTTPS address) and
    where the bot's own server listens for them (``listen``:``port``, serving ``path``)."""

    url: str
    secret: str = field(repr=False)
    listen: str = DEFAULT_LISTEN
    port: int = DEFAULT_PORT
    path: str = "/"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> WebhookConfig | None:
        """The webhook settings, or None for polling (``TELEGRAM_WEBHOOK_URL`` unset)."""
        url = env.get(URL, "").strip()
        if not url:
            return None
        address = urlsplit(url)
        if address.scheme not in ("https", "http") or not address.hostname:
            raise WebhookConfigError(
                f"{URL}={url!r} is not an address Telegram can post to: give the public HTTPS "
                "URL of your reverse proxy, e.g. https://bot.example.com/telegram"
            )
        path = env.get(PATH, "").strip() or address.path or "/"
        if not PATH_CHARACTERS.fullmatch(path):
            raise WebhookConfigError(
                f"{PATH}={path!r}: a path starts with / and holds only letters, digits and / _ . ~ -"
            )
        return cls(
            url=url,
            secret=parse_secret(env.get(SECRET, "")),
            listen=env.get(LISTEN, "").strip() or DEFAULT_LISTEN,
            port=parse_port(env.get(PORT, "")),
            path=path,
        )


def parse_secret(value: str) -> str:
    """The secret token, refused when missing, too short or outside Telegram's alphabet."""
    secret = value.strip()
    if not secret:
        raise WebhookConfigError(NO_SECRET)
    if not SECRET_ALPHABET.fullmatch(secret):
        raise WebhookConfigError(
            f"{SECRET} may hold only letters, digits, _ and - (Telegram refuses other characters); "
            f"generate one with: {GENERATE}"
        )
    if not MIN_SECRET_LENGTH <= len(secret) <= MAX_SECRET_LENGTH:
        raise WebhookConfigError(
            f"{SECRET} must be {MIN_SECRET_LENGTH} to {MAX_SECRET_LENGTH} characters long "
            f"(it is {len(secret)}); generate one with: {GENERATE}"
        )
    return secret


def parse_port(value: str) -> int:
    """The local port, ``DEFAULT_PORT`` when unset."""
    text = value.strip()
    if not text:
        return DEFAULT_PORT
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise WebhookConfigError(f"{PORT}={text!r} is not a TCP port (1-65535)")
    return int(text)


class BodyRefused(tornado.web.HTTPError):
    """A request answered with ``status`` and one log line (``why``), without a traceback."""

    def __init__(self, status: HTTPStatus, why: str) -> None:
        super().__init__(status, reason=status.phrase)
        self.why = why


@tornado.web.stream_request_body
class GuardedTelegramHandler(TelegramHandler):
    """python-telegram-bot's webhook handler with a body limit and clean 400s (module docstring)."""

    def prepare(self) -> None:
        self._chunks: list[bytes] = []
        self._size = 0
        length = self.request.headers.get("Content-Length")
        if length is not None and not (length.isdigit() and int(length) <= MAX_BODY_BYTES):
            status = HTTPStatus.REQUEST_ENTITY_TOO_LARGE if length.isdigit() else HTTPStatus.BAD_REQUEST
            self._refuse(BodyRefused(status, f"Content-Length {length[:20]!r}"))
            return
        # A chunked body past the limit ends in data_received; tornado's own cap is the backstop.
        self.request.connection.set_max_body_size(2 * MAX_BODY_BYTES)  # type: ignore[union-attr]

    def data_received(self, chunk: bytes) -> None:
        if self._finished:  # refused already: the rest is dropped as it arrives
            return
        self._size += len(chunk)
        if self._size > MAX_BODY_BYTES:
            self._chunks.clear()
            too_large = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
            self._refuse(BodyRefused(too_large, f"body over {MAX_BODY_BYTES} bytes"))
            return
        self._chunks.append(chunk)

    async def post(self) -> None:
        if self._finished:
            return
        try:
            self._validate_post()
            update = self._update(b"".join(self._chunks))
        except BodyRefused as refused:
            self._refuse(refused)
            return
        self.set_status(HTTPStatus.OK)
        if update is not None:
            if isinstance(self.bot, ExtBot):
                self.bot.insert_callback_data(update)
            await self.update_queue.put(update)

    def _update(self, body: bytes) -> Update | None:
        try:
            data = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError:
            raise BodyRefused(HTTPStatus.BAD_REQUEST, "body is not UTF-8") from None
        except (ValueError, RecursionError) as error:
            raise BodyRefused(HTTPStatus.BAD_REQUEST, f"body is not JSON ({type(error).__name__})") from None
        if not isinstance(data, dict):
            raise BodyRefused(HTTPStatus.BAD_REQUEST, "body is not a JSON object")
        slim_update(data)
        try:
            return Update.de_json(data, self.bot)
        except (Exception, RecursionError) as error:
            raise BodyRefused(HTTPStatus.BAD_REQUEST, f"not an update ({type(error).__name__})") from None

    def _refuse(self, refused: BodyRefused) -> None:
        self._log_refusal(refused.status_code, refused.why)
        self.set_status(refused.status_code)
        self.finish()

    def _log_refusal(self, status: int, why: str) -> None:
        log.warning("webhook request from %s refused (%s): %s", self.request.remote_ip, status, why)


class GuardedWebhookApp(WebhookAppClass):
    """python-telegram-bot's webhook application, serving :class:`GuardedTelegramHandler`."""

    def __init__(
        self, webhook_path: str, bot: Any, update_queue: Any, secret_token: str | None = None
    ) -> None:
        self.shared_objects = {"bot": bot, "update_queue": update_queue, "secret_token": secret_token}
        handlers = [(rf"{webhook_path}/?", GuardedTelegramHandler, self.shared_objects)]
        tornado.web.Application.__init__(self, handlers)


def guard_webhook_server() -> None:
    """Make python-telegram-bot's ``start_webhook`` serve :class:`GuardedWebhookApp` (its
    Updater builds the application by this module-level name; the version is pinned)."""
    setattr(ptb_updater, "WebhookAppClass", GuardedWebhookApp)  # noqa: B010


def run_webhook(app: Application[Any, Any, Any, Any, Any, Any], config: WebhookConfig) -> None:
    """Serve ``config.path`` until a stop signal; ``setWebhook`` registers ``config.url`` with
    the secret. Start-up and shutdown are the same as ``run_polling``'s: ``post_init`` opens the
    services, ``post_shutdown`` closes them."""
    guard_webhook_server()
    app.run_webhook(
        listen=config.listen,
        port=config.port,
        # python-telegram-bot routes the path as a regular expression.
        url_path=re.escape(config.path),
        webhook_url=config.url,
        secret_token=config.secret,
        allowed_updates=Update.ALL_TYPES,
        close_loop=False,  # bot.py's main() closes it, once it checked that nothing was left running
    )
