"""Webhook settings: polling unless TELEGRAM_WEBHOOK_URL is set, and then no start without a
usable secret (the e2e test in tests/e2e/test_webhook.py runs the webhook itself)."""

from __future__ import annotations

import pytest

import bot
from handlers.platform.webhook import DEFAULT_LISTEN, DEFAULT_PORT, WebhookConfig, WebhookConfigError

SECRET = "s3cret-value_for-tests-0123456789"
URL = "https://bot.example.com/guandan/hook"


def config(**env: str) -> WebhookConfig | None:
    return WebhookConfig.from_env({"TELEGRAM_WEBHOOK_URL": URL, "TELEGRAM_WEBHOOK_SECRET": SECRET} | env)


def test_polling_when_no_webhook_url() -> None:
    assert WebhookConfig.from_env({}) is None
    assert WebhookConfig.from_env({"TELEGRAM_WEBHOOK_URL": "  ", "TELEGRAM_WEBHOOK_SECRET": SECRET}) is None


def test_defaults_serve_the_urls_path_on_loopback() -> None:
    assert config() == WebhookConfig(URL, SECRET, DEFAULT_LISTEN, DEFAULT_PORT, "/guandan/hook")
    assert config(TELEGRAM_WEBHOOK_URL="https://bot.example.com") == WebhookConfig(
        "https://bot.example.com", SECRET, "127.0.0.1", 8080, "/"
    )


def test_listen_port_and_path_from_the_environment() -> None:
    found = config(
        TELEGRAM_WEBHOOK_LISTEN="0.0.0.0", TELEGRAM_WEBHOOK_PORT="8443", TELEGRAM_WEBHOOK_PATH="/in"
    )
    assert found == WebhookConfig(URL, SECRET, "0.0.0.0", 8443, "/in")


def test_the_secret_never_appears_in_the_repr() -> None:
    assert SECRET not in repr(config())


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"TELEGRAM_WEBHOOK_SECRET": ""}, "TELEGRAM_WEBHOOK_SECRET is not set"),
        ({"TELEGRAM_WEBHOOK_SECRET": "short-secret"}, "16 to 256 characters"),
        ({"TELEGRAM_WEBHOOK_SECRET": "x" * 257}, "16 to 256 characters"),
        ({"TELEGRAM_WEBHOOK_SECRET": "has spaces and=signs 0123456789"}, "only letters, digits, _ and -"),
        ({"TELEGRAM_WEBHOOK_PORT": "http"}, "not a TCP port"),
        ({"TELEGRAM_WEBHOOK_PORT": "70000"}, "not a TCP port"),
        ({"TELEGRAM_WEBHOOK_URL": "bot.example.com/hook"}, "not an address Telegram can post to"),
        ({"TELEGRAM_WEBHOOK_URL": "ftp://bot.example.com/hook"}, "not an address Telegram can post to"),
        ({"TELEGRAM_WEBHOOK_PATH": "hook"}, "a path starts with /"),
        ({"TELEGRAM_WEBHOOK_PATH": "/hook?x=(.*)"}, "a path starts with /"),
    ],
)
def test_unusable_settings_are_refused_with_the_variable_named(env: dict[str, str], named: str) -> None:
    with pytest.raises(WebhookConfigError, match=named.replace("(", r"\(")):
        config(**env)


def test_main_refuses_webhook_mode_without_a_secret(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Exits 2 before building the bot, saying how to make a secret (no network is touched)."""
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "1:TEST")
    monkeypatch.setenv("TELEGRAM_WEBHOOK_URL", URL)
    monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET", raising=False)
    monkeypatch.setattr(bot, "build_application", pytest.fail)
    assert bot.main([]) == 2
    err = capsys.readouterr().err
    assert "TELEGRAM_WEBHOOK_SECRET is not set" in err and "secrets.token_urlsafe(32)" in err
    assert "unset TELEGRAM_WEBHOOK_URL" in err


# ---------------------------------------------------------------- the guarded request handler


async def _serve_guarded(secret: str = SECRET):
    """python-telegram-bot's webhook server with our application on a free loopback port."""
    import asyncio
    import socket

    from telegram import Bot
    from telegram.ext._utils.webhookhandler import WebhookServer

    from handlers.platform.webhook import GuardedWebhookApp

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    queue: asyncio.Queue[object] = asyncio.Queue()
    server = WebhookServer("127.0.0.1", port, GuardedWebhookApp("/hook", Bot("1:TEST"), queue, secret), None)
    await server.serve_forever()
    return server, port, queue


async def _raw(port: int, head: bytes, body: bytes = b"") -> bytes:
    """One request written by hand (a declared length need not be sent); the status line back."""
    import asyncio

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head + body)
    await writer.drain()
    line = await asyncio.wait_for(reader.readline(), 10)
    writer.close()
    return line


def _head(length: int | str, secret: str | None = SECRET, chunked: bool = False) -> bytes:
    lines = ["POST /hook HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    if secret is not None:
        lines.append(f"X-Telegram-Bot-Api-Secret-Token: {secret}")
    lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@pytest.mark.parametrize("secret", [SECRET, None])
async def test_a_body_over_the_limit_is_refused_413_before_it_is_read(secret) -> None:
    """50 MB declared, none sent: the answer comes without waiting for the body."""
    server, port, queue = await _serve_guarded()
    try:
        line = await _raw(port, _head(50 * 1024 * 1024, secret))
        assert line.startswith(b"HTTP/1.1 413"), line
        assert queue.empty()
    finally:
        await server.shutdown()


async def test_a_chunked_body_over_the_limit_is_refused_413() -> None:
    import asyncio

    from handlers.platform.webhook import MAX_BODY_BYTES

    server, port, queue = await _serve_guarded()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(_head(0, chunked=True))
        chunk = b"[" * 65536
        for _ in range(MAX_BODY_BYTES // len(chunk) + 2):
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 10)
        writer.close()
        assert line.startswith(b"HTTP/1.1 413"), line
        assert queue.empty()
    finally:
        await server.shutdown()


@pytest.mark.parametrize(
    "body",
    [b'{"update_id": ', b"\xff\xfe{}", b"[" * 100_000 + b"]" * 100_000, b'"just a string"', b"{}"],
    ids=["malformed", "not-utf8", "deep", "not-object", "not-update"],
)
async def test_bad_bodies_get_400_and_one_log_line(body, caplog) -> None:
    import logging

    server, port, queue = await _serve_guarded()
    caplog.set_level(logging.DEBUG)
    try:
        line = await _raw(port, _head(len(body)), body)
        assert line.startswith(b"HTTP/1.1 400"), line
        assert queue.empty()
    finally:
        await server.shutdown()
    ours = [r for r in caplog.records if r.name == "handlers.platform.webhook"]
    assert len(ours) == 1 and ours[0].levelname == "WARNING" and ours[0].exc_info is None
    assert not [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]


async def test_a_good_update_with_the_secret_is_queued() -> None:
    import json

    server, port, queue = await _serve_guarded()
    try:
        body = json.dumps({"update_id": 7}).encode()
        assert (await _raw(port, _head(len(body)), body)).startswith(b"HTTP/1.1 200")
        assert (await _raw(port, _head(len(body), "wrong-secret"), body)).startswith(b"HTTP/1.1 403")
        assert queue.qsize() == 1
    finally:
        await server.shutdown()
