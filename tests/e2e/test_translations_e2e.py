"""Everything the bot writes in a Chinese group and in Chinese private chats is Chinese.

A whole match is played through the emulator in the default language (zh) with the
commands, refusals, tributes, timeouts, 托管 and a cancelled /stop around it. Every
string the bot sends — message texts, captions, button labels, alerts and toasts, the
command menu — is recorded at the bot's HTTP client, so intermediate edits count too;
then the deal-result and match-summary pictures of that same match are drawn in zh
and the words drawn on them are recorded. A word of English that is not a player's
name, a command, a preset id or a setting name fails the test: it means a string
never reached the catalogs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from PIL import ImageDraw

from app.table.results import deal_result_view, match_summary_view
from bot import build_application, close_services, open_services
from emulator.client import Chat, Emulator, Telegram, polling, wait_for
from engine.actions import DealEnded, Event, MatchEnded
from engine.match import Match, action_from_json
from engine.rules import PRESETS, Rules
from render.results import render_deal_result, render_match_summary
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    MATCH_TIMEOUT,
    SINGLE_DOWN_SEED,
    Table,
    answer_to,
    buttons_by_op,
    callback_op,
    cancel_autoplay,
    running_bot,
)

SETTINGS_WORDS = {setting.name for setting in dataclasses.fields(Rules)}
ALLOWED = re.compile(
    "|".join(
        [
            r"https?://\S+",
            r"/[a-z_]+(@\w+)?",  # commands
            r"\b[a-z_]+=\S*",  # a setting as typed
            r"“[^”]*”",  # what the user typed, quoted back
            *(re.escape(name) for name in sorted(PRESETS, key=len, reverse=True)),
            r"\b(zh|en)\b",  # /lang zh|en
        ]
    )
)
WORD = re.compile(r"[A-Za-z]{3,}")


def english_words(text: str, names: set[str]) -> list[str]:
    """The English words of a text meant to be Chinese, once markup, names, commands,
    preset ids and setting names are taken out."""
    plain = html.unescape(re.sub(r"<[^>]+>", " ", text))
    plain = ALLOWED.sub(" ", plain)
    return [word for word in WORD.findall(plain) if word not in names and word not in SETTINGS_WORDS]


def test_the_heuristic_finds_english_and_spares_names_and_commands() -> None:
    names = {"Alice", "Bob"}
    assert english_words("Tribute: 东 Bob → 北 Alice 小王", names) == ["Tribute"]
    assert english_words("⏳ Turn: 南 Alice", names) == ["Turn"]
    assert english_words("<b>第 1 副</b> · 打 2 · 比分 0:0", names) == []
    assert english_words("/newgame wechat-6-deals turn_seconds=30 · /lang zh|en", names) == []
    assert english_words("东 AI 甲：顺子 3-7  ♠3 ♥4 ♦5 ♣6 ♠7 · ♥J ♠Q ♦K ♣A", names) == []
    assert english_words("Does not beat the previous play", names) == [
        "Does",
        "not",
        "beat",
        "the",
        "previous",
        "play",
    ]


def sent_strings(parameters: dict[str, Any]) -> Iterator[str]:
    """The strings a request shows a user: texts, captions, button labels, command descriptions."""
    for key, value in parameters.items():
        if isinstance(value, str) and key in ("text", "caption", "description"):
            yield value
        elif isinstance(value, str) and value.startswith(("{", "[")):
            yield from sent_strings({"_": json.loads(value)})
        elif isinstance(value, dict):
            yield from sent_strings(value)
        elif isinstance(value, list):
            for item in value:
                yield from sent_strings({"_": item})


class Recorder:
    """Taps the bot's request backend: every string of every Bot API request it makes."""

    def __init__(self) -> None:
        self.strings: list[tuple[str, str]] = []  # (method, string)

    def attach(self, app: Any) -> None:
        request = app.bot.request
        original = request.do_request

        async def do_request(url: str, method: str, request_data: Any = None, **kwargs: Any) -> Any:
            if request_data is not None and request_data.parameters.get("language_code") != "en":
                api_method = url.rsplit("/", 1)[-1]  # (the English command menu is English)
                self.strings.extend((api_method, s) for s in sent_strings(request_data.parameters))
            return await original(url, method, request_data, **kwargs)

        request.do_request = do_request


@pytest.fixture
def drawn_words(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every string drawn on a Pillow picture while the fixture is active."""
    words: list[str] = []
    original = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> None:
        words.append(str(text))
        original(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    return words


async def replayed(db_path: Path) -> tuple[Match, Rules, list[str]]:
    async with aiosqlite.connect(db_path) as db:
        async with db.execute("SELECT rules_json, seed FROM game_tables") as cursor:
            rules_json, seed = await cursor.fetchone()
        async with db.execute("SELECT seat, name FROM seats ORDER BY seat") as cursor:
            names = [str(name) for _seat, name in await cursor.fetchall()]
        async with db.execute("SELECT seat, action_json FROM actions ORDER BY version") as cursor:
            history = [(seat, action_from_json(json.loads(text))) for seat, text in await cursor.fetchall()]
    rules = Rules.from_json(rules_json)
    return Match.replay(rules, int(seed), history), rules, names


async def commands_around_a_table(telegram: Telegram, table: Table) -> None:
    """Commands answered in the group and in private, right and wrong."""
    group, private = table.group, Chat.private(ALICE)
    for user in (ALICE, BOB):
        await telegram.send(user, Chat.private(user), "/start")
    for chat, command in [
        (private, "/help"),
        (private, "/rules"),
        (private, "/fourcolor"),
        (private, "/fourcolor"),
        (private, "/lang"),
        (private, "/newgame"),
        (group, "/help"),
        (group, "/stop"),
        (group, "/newgame no-such-preset"),
        (group, "/newgame no_such_setting=1"),
    ]:
        await telegram.send(ALICE, chat, command)
    await telegram.wait_idle()


async def refused_lobby_presses(telegram: Telegram, table: Table) -> None:
    """Bob may not change the preset nor start: two alerts."""
    for op in ("pr", "go"):
        lobby = await table.lobby()
        text, alert = await answer_to(telegram, BOB, lobby, buttons_by_op(lobby)[op][0])
        assert alert, text


async def stop_then_no(telegram: Telegram, table: Table) -> None:
    """/stop mid-match, answered No: the table goes on."""
    await telegram.send(ALICE, table.group, "/stop")
    confirm = await telegram.wait_message(table.group, lambda m: bool(m.buttons) and "n" in buttons_by_op(m))
    await answer_to(telegram, ALICE, confirm, buttons_by_op(confirm)["n"][0])


async def test_a_chinese_match_shows_no_english(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, drawn_words: list[str]
) -> None:
    table = Table(telegram, Chat.group(-4101, "中文桌"), tmp_path / "g.db")
    recorder = Recorder()
    app = build_application(
        token, db_path=str(table.db_path), base_url=emulator.base_url, base_file_url=emulator.base_file_url
    )
    recorder.attach(app)
    await open_services(app, db_path=str(table.db_path))
    app.bot_data.services.tables.new_seed = lambda: SINGLE_DOWN_SEED  # Bob pays, Alice returns
    try:
        async with polling(app):
            await telegram.set_admins(table.group, [ALICE])
            await commands_around_a_table(telegram, table)
            await telegram.send(ALICE, table.group, "/newgame wechat-6-deals points_deals=2 turn_seconds=2")
            await table.lobby()
            await table.join(ALICE, 0)
            await table.join(BOB, 1)
            for _ in range(2):
                await table.add_ai(ALICE)
            await refused_lobby_presses(telegram, table)
            await table.start(ALICE)
            bob = asyncio.create_task(table.play(BOB))
            await telegram.wait_message(  # Alice sleeps through two turns: 超时, then 托管
                Chat.private(ALICE),
                lambda m: any(callback_op(b.data) == "a" for row in m.buttons for b in row),
                timeout=60,
            )
            await wait_for(lambda: cancel_autoplay(telegram, ALICE), timeout=20, what="取消托管")
            await stop_then_no(telegram, table)
            alice = asyncio.create_task(table.play(ALICE))
            watcher = asyncio.create_task(table.watch())
            try:
                await asyncio.wait_for(table.over.wait(), MATCH_TIMEOUT)
            finally:
                table.over.set()
                await asyncio.gather(bob, alice, watcher, return_exceptions=True)
            await telegram.wait_idle()
    finally:
        await close_services(app)

    match, rules, names = await replayed(table.db_path)
    events: list[Event] = list(match.events)
    for result in (e for e in events if isinstance(e, DealEnded)):
        render_deal_result(deal_result_view(events, result, names, rules, "zh"), locale="zh")
    assert any(isinstance(e, MatchEnded) for e in events)
    render_match_summary(match_summary_view(events, names, rules), locale="zh")

    people = {ALICE.first_name, BOB.first_name}
    shown = [text for _method, text in recorder.strings]
    assert len(shown) > 200
    untranslated = {f"{method}: {text!r}" for method, text in recorder.strings if english_words(text, people)}
    assert not untranslated, "\n".join(sorted(untranslated))
    assert any(text.startswith("进贡：") or "\n进贡：" in text for text in shown), "no tribute line was sent"
    assert any("\n还贡：" in text for text in shown), "no return line was sent"
    assert any("超时" in text for text in shown)
    assert ("setMyCommands", "开一桌") in recorder.strings
    assert any("第 1 副" in word for word in drawn_words)
    assert not {w for w in drawn_words if english_words(w, people)}, drawn_words


async def test_a_timeout_note_follows_the_players_lang(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Alice switches to English after the match started, then sleeps through her turns: the
    clock's note and her 托管 buttons are English; Bob's hand stays Chinese."""
    table = Table(telegram, Chat.group(-4102, "超时桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=9):
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, "/newgame wechat-6-deals points_deals=2 turn_seconds=2")
        await table.lobby()
        await table.join(ALICE, 0)
        await table.join(BOB, 1)
        for _ in range(2):
            await table.add_ai(ALICE)
        await table.start(ALICE)
        await telegram.send(ALICE, Chat.private(ALICE), "/lang en")
        await telegram.wait_message(Chat.private(ALICE), lambda m: m.content == "Language set.")
        bob = asyncio.create_task(table.play(BOB))
        try:
            autoplay = await telegram.wait_message(
                Chat.private(ALICE),
                lambda m: any(callback_op(b.data) == "a" for row in m.buttons for b in row),
                timeout=60,
            )
            bob_hand = await telegram.last_message(Chat.private(BOB))
        finally:
            table.over.set()
            await asyncio.gather(bob, return_exceptions=True)
    assert "Time ran out" in autoplay.content, autoplay.content
    assert "超时" not in autoplay.content
    assert any("Cancel" in b.text for row in autoplay.buttons for b in row)
    assert bob_hand is not None and "你：" in bob_hand.content
