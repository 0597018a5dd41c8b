"""/lang, /fourcolor, /arrange and /autopass's stored choices, without Telegram (issue 41)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.preferences import Choices, Switch
from storage import Database

USER = 11
GROUP = -9


@pytest.fixture
async def choices(store: str) -> AsyncIterator[Choices]:
    db = await Database.open(store)
    yield Choices(db)
    await db.close()


@pytest.mark.parametrize("switch", list(Switch))
async def test_each_switch_is_off_for_someone_new_and_turns_each_time(
    choices: Choices, switch: Switch
) -> None:
    assert not await choices.is_on(USER, switch)
    assert await choices.turn(USER, switch)
    assert await choices.is_on(USER, switch)
    others = [other for other in Switch if other is not switch]
    assert not any([await choices.is_on(USER, other) for other in others])  # only this one
    assert not await choices.turn(USER, switch)
    assert not await choices.is_on(USER, switch)


async def test_languages_are_stored_per_person_and_per_group(choices: Choices) -> None:
    await choices.set_person_locale(USER, "en")
    await choices.set_group_locale(GROUP, "en")
    assert (await choices.db.users.get(user_id=USER)).locale == "en"
    assert (await choices.db.chats.get(chat_id=GROUP)).locale == "en"
    await choices.turn(USER, Switch.AUTO_PASS)
    assert (await choices.db.users.get(user_id=USER)).locale == "en"  # a switch keeps the language
