"""Webhook mode: Telegram posts every update to the bot's public address instead of the bot
polling for them. ``main()`` chooses it when ``TELEGRAM_WEBHOOK_URL`` is set.

The settings are read from the environment once and checked before anything starts, so a
deployment that asks for webhook mode but does not describe a safe one stops with a message
saying what to set, rather than serving an endpoint anyone could post to. The secret is
required: Telegram sends it in the ``X-Telegram-Bot-Api-Secret-Token`` header of each
request (``setWebhook``'s ``secret_token``), and python-telegram-bot's webhook server answers
403 to a request without it or with another one, before the update reaches a handler.
Without it, anyone who learns the address could post forged presses for any player.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from telegram import Update
from telegram.ext import Application

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


def run_webhook(app: Application[Any, Any, Any, Any, Any, Any], config: WebhookConfig) -> None:
    """Serve ``config.path`` until a stop signal; ``setWebhook`` registers ``config.url`` with
    the secret. Start-up and shutdown are the same as ``run_polling``'s: ``post_init`` opens the
    services, ``post_shutdown`` closes them."""
    app.run_webhook(
        listen=config.listen,
        port=config.port,
        # python-telegram-bot routes the path as a regular expression.
        url_path=re.escape(config.path),
        webhook_url=config.url,
        secret_token=config.secret,
        allowed_updates=Update.ALL_TYPES,
    )
