"""The entry point: without a token it says what to do and exits 2."""

from __future__ import annotations

import pytest

import bot


def test_no_token_prints_instructions_and_exits_2(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    assert bot.main([]) == 2
    err = capsys.readouterr().err
    assert "@BotFather" in err and "TELEGRAM_BOT_TOKEN=<that token> make run" in err and "make demo" in err
    assert "python bot.py" not in err  # fails on a fresh machine: telegram lives in .venv


def test_application_has_typed_context_and_every_command() -> None:
    app = bot.build_application("1:TEST", db_path=":memory:")
    commands = {c for group in app.handlers.values() for h in group for c in getattr(h, "commands", ())}
    assert {name for name, _ in bot.COMMANDS} <= commands
    assert app.context_types.context.__name__ == "Context"
