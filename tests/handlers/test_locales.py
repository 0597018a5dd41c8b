"""One place decides a message's language: the user's /lang in private, the group's in groups."""

from __future__ import annotations

from pathlib import Path

import pytest
from telegram import Chat

from app.preferences import Languages, Preferences, chat_locale, user_locale
from app.table.seat_choices import seat_locale, seat_preferences
from app.table.tables import TableService
from engine.rules import Rules
from handlers.platform.locales import reply_locale
from storage import Database


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "l.db")
    yield database
    await database.close()


async def test_nothing_set_reads_chinese(db: Database) -> None:
    assert await user_locale(db, 7) == "zh"
    assert await chat_locale(db, -7) == "zh"


async def test_private_replies_follow_the_user_and_group_replies_the_group(db: Database) -> None:
    await db.users.set_locale(user_id=7, locale="en")
    await db.chats.set_locale(chat_id=-7, locale="zh")
    assert await reply_locale(Languages(db), Chat(7, Chat.PRIVATE)) == "en"
    assert await reply_locale(Languages(db), Chat(-7, Chat.SUPERGROUP)) == "zh"


async def test_a_seat_speaks_its_players_language_not_the_copy_it_was_taken_with(db: Database) -> None:
    """The seat row keeps the locale its player had when sitting down; /lang later changes the
    user's row only, and every private message of the seat (hand, alerts, timeout notes) follows."""
    service = TableService(db, new_seed=lambda: 1)
    table = await service.create(chat_id=-7, creator_id=7, preset="default", rules=Rules.default())
    await service.take_seat(table, seat=0, user_id=7, name="Ann", locale="zh")
    await service.add_ai(table, seat=1, name="AI")
    state = table.seats[0]
    await db.users.set_locale(user_id=7, locale="en")
    await db.users.set_four_color(user_id=7, four_color=True)
    assert await seat_preferences(Languages(db), state) == Preferences("en", True)
    assert await seat_locale(Languages(db), table.seats[1]) == "zh"

    await db.users.set_locale(user_id=7, locale="zh")
    assert await seat_locale(Languages(db), state) == "en"  # cached until /lang clears it
    state.message.preferences = None
    assert await seat_locale(Languages(db), state) == "zh"
