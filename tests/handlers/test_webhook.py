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
