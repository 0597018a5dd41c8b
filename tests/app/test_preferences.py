"""The language lookups a front end asks (app/preferences.py), bound to the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.preferences import Languages, Preferences
from storage import Database


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "l.db")
    yield database
    await database.close()


async def test_nothing_set_is_chinese_and_a_choice_is_read_back(db: Database) -> None:
    languages = Languages(db)
    assert await languages.of_user(7) == "zh" and await languages.of_chat(-7) == "zh"
    assert await languages.preferences(None) == Preferences("zh")  # an AI seat
    await db.users.set_locale(user_id=7, locale="en")
    await db.chats.set_locale(chat_id=-7, locale="en")
    assert await languages.of_user(7) == "en" and await languages.of_chat(-7) == "en"
    assert await languages.preferences(7) == Preferences("en", False, False)
