"""Every sentence the bot's code marks for translation is in both catalogs, translated to Chinese.

Found with ``ast`` (which also sees calls inside f-strings, where pybabel's extractor
does not look), so a message that would silently stay English fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "app").rglob("*.py")),
    *sorted((ROOT / "handlers").rglob("*.py")),
    *sorted((ROOT / "webapp").rglob("*.py")),
    ROOT / "bot.py",
]


def marked_messages() -> set[str]:
    found = set()
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("_", "N_")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.add(node.args[0].value)
    return found


def catalog(locale: str) -> dict[str, str]:
    with (ROOT / "locales" / locale / "LC_MESSAGES" / "guandan.po").open("rb") as handle:
        return {str(m.id): str(m.string) for m in read_po(handle) if m.id}


def test_every_marked_message_is_translated() -> None:
    messages = marked_messages()
    assert len(messages) > 80
    zh, en = catalog("zh"), catalog("en")
    assert sorted(messages - zh.keys()) == []
    assert sorted(messages - en.keys()) == []
    assert sorted(m for m in messages if not zh[m]) == []


def test_placeholders_survive_translation() -> None:
    zh = catalog("zh")
    for message, translated in zh.items():
        fields = {part.split("}")[0] for part in message.split("{")[1:]}
        assert fields == {part.split("}")[0] for part in translated.split("{")[1:]}, message


def test_the_bot_loads_the_chinese_catalog() -> None:
    """A catalog the bot cannot find falls back to English without an error: check it is found."""
    from app.i18n import LOCALES_DIR, translator

    assert (LOCALES_DIR / "zh" / "LC_MESSAGES" / "guandan.po").is_file()
    assert translator("zh").gettext("Language set.") != "Language set."
