"""观战 through the emulator (issue 35.2): a group member who is not seated follows a running
table in one private message, sees the plays as the board does, never a hand in play, cannot
change the game, can stop; the setting turns it off; a restart resumes the messages.

Every request the bot makes into a spectator's chat is recorded as it leaves (the bot runs in
this process), with the match as it stands at that moment: a text may name only cards already
played or exchanged in the deal it shows, hands only under the heading of a deal that is over,
and (at a watch_hand=on table) a followed seat's hand only as it was when the trick in play, or
an earlier one, began.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from app.table.tables import LiveTable
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from engine.actions import DealEnded, DealStarted, Played, TributeGiven, TributeReturned
from engine.match import Match, observe
from render.words import card_text, seat_name
from tests.e2e.test_match_e2e import (
    ALICE,
    CAROL,
    DAVE,
    FACE_PATTERN,
    MATCH_TIMEOUT,
    PINNED_MATCH,
    SINGLE_DOWN_SEED,
    Table,
    answer_to,
    buttons_by_op,
    logged_count,
    plays_of_match,
    running_bot,
    set_up,
)

HANDS_HEADING = re.compile(r"第 (\d+) 副的手牌（发牌时）")
FOLLOWED_HEADING = re.compile(r"👁 (\S) .*：第 (\d+) 轮之前的手牌（(\d+) 张）")
DEAL_HEADING = re.compile(r"第 (\d+) 副")


@dataclass
class Seen:
    """One request into a spectator's chat and the match as it stood when it left."""

    text: str
    leaks: list[str]


@dataclass
class Recorder:
    """Checks every text the bot sends or edits into the watched chats as it leaves."""

    table: LiveTable | None = None
    chats: set[int] = field(default_factory=set)
    seen: dict[int, list[Seen]] = field(default_factory=dict)
    followed: int = 0  # looks with a followed hand
    behind: int = 0  # ... that differed from the seat's hand as it stood when the look left

    def check(self, chat_id: int, text: str) -> None:
        assert self.table is not None and self.table.match is not None
        events = self.table.match.events
        ended = {e.deal_number for e in events if isinstance(e, DealEnded)}
        lines = text.split("\n")
        cut = next(
            (i for i, line in enumerate(lines) if HANDS_HEADING.search(line) or "👁" in line), len(lines)
        )
        board, leaks = "\n".join(lines[:cut]), []
        heading = DEAL_HEADING.search(board)
        if heading is not None:
            public = public_faces(events, int(heading.group(1)))
            shown = set(FACE_PATTERN.findall(board))
            leaks += [f"{face} of deal {heading.group(1)} not played yet" for face in shown - public]
        followed = FOLLOWED_HEADING.search(lines[cut]) if cut < len(lines) else None
        if followed is not None:
            deal = int(heading.group(1)) if heading is not None else 0
            leaks += self.check_followed(followed, lines[cut + 1], deal, ended)
        elif cut < len(lines):
            deal = int(HANDS_HEADING.search(lines[cut]).group(1))  # type: ignore[union-attr]
            if deal not in ended and not self.table.match.is_over:
                leaks.append(f"the hands of deal {deal}, still in play")
        self.seen.setdefault(chat_id, []).append(Seen(text, leaks))

    def check_followed(self, heading: re.Match[str], cards: str, deal: int, ended: set[int]) -> list[str]:
        """A followed hand must be the seat's hand at the lead of a trick of the deal in play no
        later than the trick in play now (a look may leave a little after it was taken)."""
        match = self.table.match if self.table is not None else None
        assert match is not None
        if deal != match.deal_number or deal in ended:
            return []  # that deal is over: none of its hands is in play
        seat = next(s for s in range(4) if seat_name(s) == heading.group(1))
        trick = int(heading.group(2)) - 1
        self.followed += 1
        return followed_leaks(match, seat, trick, FACE_PATTERN.findall(cards), self)

    def leaks(self) -> list[str]:
        return [leak for seen in self.seen.values() for one in seen for leak in one.leaks]

    def texts(self, user: User) -> list[str]:
        return [one.text for one in self.seen.get(user.id, [])]


def followed_leaks(match: Match, seat: int, trick: int, shown: list[str], recorder: Recorder) -> list[str]:
    """What is wrong with ``shown`` as ``seat``'s hand before ``trick``: its true hand then is
    its hand now with every card it has played since that trick's lead."""
    obs = observe(match, seat)
    history = obs.history
    now = 0 if not history else history[-1].trick + (1 if obs.table_play is None else 0)
    if trick > now:
        return [f"seat {seat}'s hand before trick {trick}, which is not led yet (now {now})"]
    since = [c for t in history if t.seat == seat and t.trick >= trick and t.play for c in t.play.cards]
    expected = sorted(card_text(card) for card in (*obs.hand, *since))
    recorder.behind += sorted(card_text(card) for card in obs.hand) != sorted(shown)
    if sorted(shown) != expected:
        return [f"seat {seat}'s hand before trick {trick} shown as {shown}, was {expected}"]
    return []


def public_faces(events: Any, deal: int) -> set[str]:
    """The faces of the cards played or exchanged so far in ``deal``."""
    faces: set[str] = set()
    current = None
    for event in events:
        if isinstance(event, DealStarted):
            current = event.deal_number
        elif current == deal and isinstance(event, Played):
            faces.update(card_text(card) for card in event.play.cards)
        elif current == deal and isinstance(event, TributeGiven | TributeReturned):
            faces.add(card_text(event.card))
    return faces


@contextmanager
def recording(app: Application[Any, Any, Any, Any, Any, Any], recorder: Recorder) -> Iterator[None]:
    """Every request of the bot into a watched chat is checked as it leaves."""
    bot = app.bot
    original = bot._post

    async def post(endpoint: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        params = data or {}
        chat_id = params.get("chat_id")
        text = params.get("text") or params.get("caption")
        if chat_id in recorder.chats and isinstance(text, str):
            recorder.check(int(chat_id), text)
        return await original(endpoint, data, **kwargs)

    bot._post = post
    try:
        yield
    finally:
        bot._post = original


async def board(telegram: Telegram, table: Table) -> BotMessage:
    """The group's live board: the message with the 观战 button."""
    return await telegram.wait_message(table.group, lambda m: "v" in buttons_by_op(m))


async def spectator_message(telegram: Telegram, user: User, words: str = "观战") -> BotMessage:
    return await telegram.wait_message(Chat.private(user), lambda m: words in m.content)


async def open_private_chat(telegram: Telegram, user: User) -> None:
    await telegram.send(user, Chat.private(user), "/start")
    await telegram.wait_message(Chat.private(user))


async def watch(telegram: Telegram, table: Table, user: User) -> tuple[str, bool]:
    shown = await board(telegram, table)
    return await answer_to(telegram, user, shown, buttons_by_op(shown)["v"][0])


async def play_until_over(table: Table, user: User) -> None:
    player = asyncio.create_task(table.play(user))
    watcher = asyncio.create_task(table.watch())
    try:
        await asyncio.wait_for(table.over.wait(), MATCH_TIMEOUT)
    finally:
        table.over.set()
        await asyncio.gather(player, watcher, return_exceptions=True)


def live_table(app: Application[Any, Any, Any, Any, Any, Any], table: Table) -> LiveTable:
    return app.bot_data.services.tables.in_chat(table.group.id)  # type: ignore[no-any-return]


async def test_a_member_watches_the_public_table_and_never_a_hand_in_play(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Carol and Dave, not seated, press 观战 (Dave through the private chat's Start): each gets
    one private message a deal, edited as the table plays; the board names them; Dave stops
    watching; no text either receives names a card of a hand in play; a deal's hands come once
    it is over; watching ends with the match."""
    table = Table(telegram, Chat.group(-4601, "观战群"), tmp_path / "g.db")
    recorder = Recorder(chats={CAROL.id, DAVE.id})
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED) as app:
        with recording(app, recorder):
            await set_up(telegram, table, [ALICE], PINNED_MATCH)
            recorder.table = live_table(app, table)
            await open_private_chat(telegram, CAROL)
            text, alert = await watch(telegram, table, CAROL)
            assert not alert and "观战中" in text
            await spectator_message(telegram, CAROL, "你正在观战本桌")
            shown = await board(telegram, table)  # Dave never opened the private chat
            answer = await telegram.wait_answer(
                await telegram.press(DAVE, shown, buttons_by_op(shown)["v"][0])
            )
            assert answer.url is not None and "start=watch_" in answer.url, answer
            await telegram.send(DAVE, Chat.private(DAVE), "/start " + answer.url.split("start=", 1)[1])
            await spectator_message(telegram, DAVE, "你正在观战本桌")
            await wait_for(
                lambda: _board_names(telegram, table, "👀 观战：Carol、Dave"), what="the board naming both"
            )
            dave = await spectator_message(telegram, DAVE)
            text, alert = await answer_to(telegram, DAVE, dave, buttons_by_op(dave)["u"][0])
            assert (text, alert) == ("已停止观战。", False)
            await spectator_message(telegram, DAVE, "你已停止观战本桌")
            await wait_for(lambda: _board_names(telegram, table, "👀 观战：Carol\n"), what="Dave gone")
            await play_until_over(table, ALICE)
            await wait_for(lambda: _shows(telegram, CAROL, "观战结束：比赛已结束"), what="watching ended")
    assert recorder.leaks() == []
    assert table.leaks == []
    carol = await telegram.messages(Chat.private(CAROL))
    watching = [m for m in carol if "观战" in m.content]
    # One message a deal, edited as it plays. Deal 2's may come once, already at its end, when the
    # deal was over before Carol's chat could take its first look (a loaded machine): its text
    # below shows it caught up either way.
    assert len(watching) == 2 and watching[0].edit_count >= 1
    assert [m.buttons for m in watching] == [[], []]  # no 停止观战 once the match is over
    assert "第 1 副的手牌（发牌时）" in watching[0].content and "🏁 下游" in watching[0].content
    assert "第 2 副的手牌（发牌时）" in watching[1].content and "观战结束：比赛已结束" in watching[1].content
    texts = recorder.texts(CAROL)
    assert any("第 1 副的手牌（发牌时）" in text for text in texts)  # deal 1's hands, once it was over
    missing = plays_missing_from(await plays_of_match(table.db_path), texts)
    assert missing == []  # every play seen
    assert len(recorder.texts(DAVE)) < len(texts)  # Dave's stopped with him
    assert "v" not in buttons_by_op(await telegram.wait_message(table.group, lambda m: "🏁" in m.content))


def plays_missing_from(plays: list[str], texts: list[str]) -> list[str]:
    shown = {line for text in texts for line in text.split("\n")}
    return [p for p in plays if p not in shown and not any(s.startswith(p + " 🏁") for s in shown)]


async def _board_names(telegram: Telegram, table: Table, line: str) -> bool:
    messages = await telegram.messages(table.group)
    return any(line in m.content + "\n" and "v" in buttons_by_op(m) for m in messages)


async def _shows(telegram: Telegram, user: User, words: str) -> bool:
    return any(words in m.content for m in await telegram.messages(Chat.private(user)))


async def forged_press(
    app: Application[Any, Any, Any, Any, Any, Any],
    user: User,
    message: BotMessage,
    data: str,
    number: int,
) -> tuple[str, bool]:
    """A press with callback data no button of ``message`` carries (a modified client sends any).
    The emulator lets only shown buttons be pressed and answers only its own queries, so the
    update goes to the bot directly and its answer is taken as it leaves; the rest of what the
    press makes the bot do goes to the emulator as ever."""
    query_id = f"forged-{user.id}-{number}"
    chat = {"id": message.chat_id, "type": "private" if message.chat_id > 0 else "group"}
    query = {
        "id": query_id,
        "from": user.to_api(),
        "chat_instance": "forged",
        "data": data,
        "message": {"message_id": message.message_id, "date": 0, "chat": chat},
    }
    answers: list[tuple[str, bool]] = []
    original = app.bot._post

    async def post(endpoint: str, params: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        if endpoint == "answerCallbackQuery" and params and params.get("callback_query_id") == query_id:
            answers.append((str(params.get("text") or ""), bool(params.get("show_alert"))))
            return True
        return await original(endpoint, params, **kwargs)

    app.bot._post = post
    try:
        await app.process_update(
            Update.de_json({"update_id": 10_000 + number, "callback_query": query}, app.bot)
        )
    finally:
        app.bot._post = original
    assert len(answers) == 1, answers
    return answers[0]


async def test_spectators_cannot_touch_the_game(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Hostile presses: a spectator forging a hand button, the /stop confirmation, 观战 outside
    the group, a seated player pressing 观战: each is refused with an alert and nothing changes."""
    table = Table(telegram, Chat.group(-4602, "观战群"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED) as app:
        await set_up(telegram, table, [ALICE], PINNED_MATCH)
        await open_private_chat(telegram, CAROL)
        assert (await watch(telegram, table, CAROL))[1] is False
        mine = await spectator_message(telegram, CAROL, "你正在观战本桌")
        live = live_table(app, table)
        before, version = await logged_count(table.db_path), live.version
        forged = [
            f"h:{live.id}:{version}:0:p",  # 出牌
            f"h:{live.id}:{version}:0:x",  # 不出
            f"h:{live.id}:{version}:0:o",  # 托管
            f"h:{live.id}:{version}:0:t:0:1",  # select a card
            f"s:{live.id}:{version}:0:y",  # yes, stop the match
            f"w:{live.id}:0:0:v",  # 观战 from the private chat
            f"w:{live.id}:0:0:zz",
            "w:x:0:0:v",
        ]
        for number, data in enumerate(forged):
            text, alert = await forged_press(app, CAROL, mine, data, number)
            assert alert, (data, text)
        assert "f" not in buttons_by_op(mine)  # no seat's hand at this table (watch_hand is off)
        text, alert = await forged_press(app, CAROL, mine, f"w:{live.id}:0:0:f:1", 50)
        assert alert and "本桌不向观战者显示手牌" in text
        hand = await telegram.wait_message(Chat.private(ALICE), lambda m: bool(m.photo_id))
        text, alert = await forged_press(app, ALICE, hand, f"w:{live.id}:0:0:v", 99)
        assert alert  # not from the group's board
        text, alert = await watch(telegram, table, ALICE)
        assert alert and "你在本桌打牌" in text
        assert await logged_count(table.db_path) == before and live.version == version
        assert live.record.status.value == "playing"


async def test_a_spectator_follows_one_seats_hand_a_trick_behind(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """At a watch_hand=on table Carol presses 西 on her message: every look after it carries
    西's hand as it was when the trick in play began (checked as each look leaves against the
    match at that moment), never as it stands once 西 has played in the trick; the board tells
    the players which hand is followed; a deal that is over shows the hands as dealt instead."""
    table = Table(telegram, Chat.group(-4605, "观战看牌"), tmp_path / "g.db")
    recorder = Recorder(chats={CAROL.id})
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED) as app:
        with recording(app, recorder):
            await set_up(telegram, table, [ALICE], PINNED_MATCH + " watch_hand=on")
            recorder.table = live_table(app, table)
            await open_private_chat(telegram, CAROL)
            assert (await watch(telegram, table, CAROL))[1] is False
            mine = await telegram.wait_message(Chat.private(CAROL), lambda m: "f" in buttons_by_op(m))
            follow = buttons_by_op(mine)["f"]
            assert len(follow) == 4 and "u" in buttons_by_op(mine)
            text, alert = await answer_to(telegram, CAROL, mine, follow[1])
            assert not alert and text.startswith("正在看西") and "滞后一轮" in text
            # 西 led trick 1 and it is Alice's turn (no clock): the table waits for her
            first = await spectator_message(telegram, CAROL, "轮之前的手牌")
            assert "👁 西 AI 乙：第 1 轮之前的手牌（27 张）" in first.content
            await wait_for(lambda: _board_names(telegram, table, "👁 滞后一轮看牌：西 "), what="board says")
            await play_until_over(table, ALICE)
            await wait_for(lambda: _shows(telegram, CAROL, "观战结束：比赛已结束"), what="watching ended")
    assert recorder.leaks() == []
    assert recorder.followed >= 1 and recorder.behind >= 1, (recorder.followed, recorder.behind)
    watching = [m for m in await telegram.messages(Chat.private(CAROL)) if "观战" in m.content]
    assert all("轮之前的手牌" not in m.content for m in watching)  # each deal ends with its hands
    assert "第 1 副的手牌（发牌时）" in watching[0].content


async def test_only_a_spectator_follows_a_hand_and_never_changes_the_game(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """Hostile presses of a seat's hand button: from the group, from a member not watching, from
    the seated player (who may not watch), with a seat that does not exist or forged data. Each
    is refused with an alert and shows no hand; Carol's own presses change only her message."""
    table = Table(telegram, Chat.group(-4606, "看牌不改局"), tmp_path / "g.db")
    recorder = Recorder(chats={CAROL.id, DAVE.id})
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED) as app:
        with recording(app, recorder):
            await set_up(telegram, table, [ALICE], PINNED_MATCH + " watch_hand=on")
            live = recorder.table = live_table(app, table)
            await open_private_chat(telegram, CAROL)
            await open_private_chat(telegram, DAVE)
            assert (await watch(telegram, table, CAROL))[1] is False
            mine = await telegram.wait_message(Chat.private(CAROL), lambda m: "f" in buttons_by_op(m))
            before, version = await logged_count(table.db_path), live.version
            group_board = await board(telegram, table)
            dave = await telegram.wait_message(Chat.private(DAVE))
            alice = await telegram.wait_message(Chat.private(ALICE), lambda m: bool(m.photo_id))
            forged = [
                (CAROL, group_board, f"w:{live.id}:0:0:f:0", "这个按钮无效"),  # not her own message
                (DAVE, dave, f"w:{live.id}:0:0:f:0", "你没有在观战本桌"),
                (ALICE, alice, f"w:{live.id}:0:0:f:1", "你没有在观战本桌"),  # a player sees no other hand
                (CAROL, mine, f"w:{live.id}:0:0:f:4", "这个按钮无效"),
                (CAROL, mine, f"w:{live.id}:0:0:f", "这个按钮无效"),
                (CAROL, mine, f"w:{live.id}:0:0:f:1:2", "这个按钮无效"),
                (CAROL, mine, f"w:{live.id}:0:0:v:1", "这个按钮无效"),
            ]
            for number, (user, message, data, words) in enumerate(forged):
                text, alert = await forged_press(app, user, message, data, number)
                assert alert and words in text, (data, text)
            for number, data in enumerate([f"w:{live.id}:0:0:f:2", f"w:{live.id}:0:0:f:2"]):
                text, alert = await forged_press(app, CAROL, mine, data, 20 + number)
                assert not alert, text  # 南 followed, then no hand
            assert await logged_count(table.db_path) == before and live.version == version
            assert live.record.status.value == "playing"
    assert recorder.leaks() == []
    assert [t for t in recorder.texts(DAVE) if "轮之前的手牌" in t] == []


async def test_spectators_off_hides_the_button_and_refuses(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    table = Table(telegram, Chat.group(-4603, "不许观战"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED) as app:
        await set_up(telegram, table, [ALICE], PINNED_MATCH + " spectators=off")
        live = live_table(app, table)
        shown = await telegram.wait_message(table.group, lambda m: "第 1 副" in m.content)
        assert "v" not in buttons_by_op(shown)
        await open_private_chat(telegram, CAROL)
        text, alert = await forged_press(app, CAROL, shown, f"w:{live.id}:0:0:v", 0)
        assert alert and "本桌不开放观战" in text
        assert not await _shows(telegram, CAROL, "观战")


async def test_a_restart_resumes_the_spectators_messages(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    """The bot stops and starts again mid-deal: Carol's message of the deal is the same one,
    edited on (a later deal gets its own), and still follows the seat she chose."""
    table = Table(telegram, Chat.group(-4604, "重启观战"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await set_up(telegram, table, [ALICE], PINNED_MATCH + " watch_hand=on")
        await open_private_chat(telegram, CAROL)
        await watch(telegram, table, CAROL)
        first = await telegram.wait_message(Chat.private(CAROL), lambda m: "f" in buttons_by_op(m))
        await answer_to(telegram, CAROL, first, buttons_by_op(first)["f"][1])
        first = await spectator_message(telegram, CAROL, "👁 西 AI 乙：第")
    edits = first.edit_count
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await wait_for(lambda: _board_names(telegram, table, "👀 观战：Carol"), what="the board naming Carol")
        await wait_for(lambda: _board_names(telegram, table, "👁 滞后一轮看牌：西 "), what="西 followed")
        logged = await logged_count(table.db_path)
        player = asyncio.create_task(table.play(ALICE))
        try:
            await wait_for(lambda: _logged_beyond(table, logged + 4), timeout=60, what="play to go on")
            await wait_for(lambda: _edited_since(telegram, first, edits), what="Carol's message edited")
        finally:
            table.over.set()
            await asyncio.gather(player, return_exceptions=True)
    watching = [m for m in await telegram.messages(Chat.private(CAROL)) if "观战" in m.content]
    assert watching[0].message_id == first.message_id  # followed on, not sent again
    deals = [DEAL_HEADING.search(m.content).group(1) for m in watching]  # type: ignore[union-attr]
    assert len(deals) == len(set(deals))  # one message a deal


async def _logged_beyond(table: Table, count: int) -> bool:
    return await logged_count(table.db_path) >= count


async def _edited_since(telegram: Telegram, message: BotMessage, edits: int) -> bool:
    chat = Chat.private(CAROL)
    now = next(m for m in await telegram.messages(chat) if m.message_id == message.message_id)
    return now.edit_count > edits and "你正在观战本桌" in now.content and "👁 西 AI 乙：第" in now.content


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
