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


def _update(app, kind: str, text: str, chat_type: str = "supergroup") -> object:
    from telegram import Update

    command = text.startswith("/")
    message = {
        "message_id": 5,
        "date": 1,
        "chat": {"id": -100, "type": chat_type, "title": "g"},
        "from": {"id": 7, "is_bot": False, "first_name": "A"},
        "text": text,
    }
    if command:
        message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
    if kind == "edited_message":
        message["edit_date"] = 2
    return Update.de_json({"update_id": 1, kind: message}, app.bot)


@pytest.mark.parametrize(
    "text", ["掼蛋3组", "/report 掼蛋3组", "/newgame", "/newgame match=ABC", "/signup", "/result X 3 r"]
)
def test_an_edited_command_or_report_is_ignored_and_a_new_one_handled(text: str) -> None:
    """PTB takes edited_message like a new message by default: editing an old 掼蛋3组 reported again."""
    from telegram import User

    app = bot.build_application("1:TEST", db_path=":memory:")
    app.bot._bot_user = User(666, "Bot", True, username="GuandanBot")  # what initialize() asks getMe
    handlers = [h for group in app.handlers.values() for h in group]
    assert any(h.check_update(_update(app, "message", text)) for h in handlers)
    assert not any(h.check_update(_update(app, "edited_message", text)) for h in handlers)
