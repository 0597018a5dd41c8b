"""The emulator round trip: a small real python-telegram-bot Application over HTTP.

These tests pin down the Bot API behaviour the real bot relies on (commands, photos
in group and private chats, media and keyboard edits, callback answers, chat queries,
long polling), so that a failing full-match test points at the bot, not the emulator.
"""

import asyncio
import datetime as dtm
import io
import json
import random
import time
from typing import Any

import httpx
import pytest
from PIL import Image
from telegram import (
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Update,
)
from telegram.error import BadRequest, Forbidden, RetryAfter
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from emulator.client import (
    BOT_USERNAME,
    Chat,
    Emulator,
    EmulatorError,
    Telegram,
    User,
    most_in_window,
    polling,
    wait_for,
)

ALICE = User(1001, "Alice", username="alice")
BOB = User(1002, "Bob")
TABLE = Chat.group(-1001, "牌桌")


def picture(colour: str, size: tuple[int, int] = (120, 80)) -> bytes:
    """A small PNG, different per colour, standing in for a rendered hand."""
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def keyboard(*labels_and_data: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data)] for text, data in labels_and_data]
    )


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Greets in HTML, so the emulator's parse mode and entities are exercised."""
    assert update.effective_message and update.effective_user
    await update.effective_message.reply_html(f"<b>你好</b> {update.effective_user.first_name} &lt;3")


async def deal(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Shows a picture with buttons in the group and a private picture to the caller."""
    assert update.effective_chat and update.effective_user
    await context.bot.send_photo(
        update.effective_chat.id,
        picture("red"),
        caption="第1副",
        reply_markup=keyboard(("下一张", "next"), ("结束", "end")),
    )
    await context.bot.send_photo(update.effective_user.id, picture("blue", (60, 40)), caption="你的牌")


async def press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """`next` swaps the picture in place; `end` replaces the keyboard and alerts."""
    query = update.callback_query
    assert query is not None and query.message is not None
    if query.data == "next":
        await query.answer("换了")
        edited = await query.edit_message_media(
            InputMediaPhoto(picture("green"), caption="第2副"),
            reply_markup=keyboard(("下一张", "next"), ("结束", "end")),
        )
        assert not isinstance(edited, bool) and edited.photo
    else:
        edited = await query.edit_message_reply_markup(keyboard(("再来", "again")))
        assert not isinstance(edited, bool) and edited.reply_markup is not None
        await query.answer("结束了", show_alert=True)


def toy_bot(emulator: Emulator, token: str) -> Application[Any, Any, Any, Any, Any, Any]:
    app = emulator.application_builder(token).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("deal", deal))
    app.add_handler(CallbackQueryHandler(press))
    return app


async def test_command_in_private_chat_gets_an_html_reply(emulator: Emulator, telegram: Telegram) -> None:
    dm = Chat.private(ALICE)
    async with polling(toy_bot(emulator, telegram.token)):
        await telegram.send(ALICE, dm, "/start")
        reply = await telegram.wait_message(dm)
    assert reply.text == "你好 Alice <3"
    assert reply.raw["entities"] == [{"type": "bold", "offset": 0, "length": 2}]
    assert reply.raw["from"]["username"] == BOT_USERNAME
    assert reply.raw["chat"]["type"] == "private"
    assert abs(reply.raw["date"] - time.time()) < 60


async def test_photos_buttons_edits_and_answers_round_trip(emulator: Emulator, telegram: Telegram) -> None:
    dm = Chat.private(ALICE)
    async with polling(toy_bot(emulator, telegram.token)):
        await telegram.send(ALICE, dm, "/start")
        await telegram.wait_message(dm)
        await telegram.send(ALICE, TABLE, f"/deal@{BOT_USERNAME}")
        shown = await telegram.wait_message(TABLE, lambda m: m.photo_id is not None)
        hand = await telegram.wait_message(dm, lambda m: m.photo_id is not None)
        assert shown.caption == "第1副" and hand.caption == "你的牌"
        assert shown.raw["chat"]["type"] == "supergroup"
        assert [[b.text for b in row] for row in shown.buttons] == [["下一张"], ["结束"]]
        assert Image.open(io.BytesIO(await telegram.photo(hand))).size == (60, 40)

        toast = await telegram.wait_answer(await telegram.press_text(BOB, shown, "下一张"))
        swapped = await telegram.wait_message(TABLE, lambda m: m.edit_count == 1)
        assert (toast.text, toast.show_alert) == ("换了", False)
        assert swapped.message_id == shown.message_id and swapped.caption == "第2副"
        assert swapped.photo_id != shown.photo_id
        assert Image.open(io.BytesIO(await telegram.photo(swapped))).getpixel((0, 0)) == (0, 128, 0)

        alert = await telegram.wait_answer(await telegram.press(ALICE, swapped, "end"))
        ended = await telegram.wait_message(TABLE, lambda m: m.edit_count == 2)
        assert (alert.text, alert.show_alert) == ("结束了", True)
        assert ended.buttons[0][0].data == "again" and ended.caption == "第2副"
        await telegram.advance_clock(1.1)  # past the second a phone may still show the replaced keyboard
        with pytest.raises(EmulatorError, match="no button"):
            await telegram.press(ALICE, ended, "next")


async def test_telegram_rules_the_real_bot_must_respect(emulator: Emulator, token: str) -> None:
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        stranger = User(random.randrange(10**8, 10**9), "Stranger")  # no other test has met them
        with pytest.raises(Forbidden, match=r"(?i)initiate conversation"):
            await bot.send_message(stranger.id, "hi")
        await telegram.send(BOB, TABLE, "hello")
        sent = await bot.send_message(TABLE.id, "<b>bold</b>", parse_mode="HTML")
        with pytest.raises(BadRequest, match=r"(?i)not modified"):
            await bot.edit_message_text("<b>bold</b>", TABLE.id, sent.message_id, parse_mode="HTML")
        with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
            await bot.send_message(TABLE.id, "1 < 2", parse_mode="HTML")
        with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
            await bot.send_message(TABLE.id, "x", reply_markup=keyboard(("x", "x" * 65)))
        green = InlineKeyboardButton("出牌", callback_data="play", style="success")
        await bot.send_message(TABLE.id, "styled", reply_markup=InlineKeyboardMarkup([[green]]))
        styled = await telegram.wait_message(TABLE, lambda m: m.text == "styled")
        assert [(b.text, b.style) for row in styled.buttons for b in row] == [("出牌", "success")]
        with pytest.raises(BadRequest, match=r"(?i)unsupported style"):
            pink = InlineKeyboardButton("x", callback_data="x", style="pink")
            await bot.send_message(TABLE.id, "x", reply_markup=InlineKeyboardMarkup([[pink]]))
        edited = await bot.edit_message_text("plain", TABLE.id, sent.message_id)
        assert not isinstance(edited, bool) and edited.text == "plain" and edited.edit_date
        assert await bot.delete_message(TABLE.id, sent.message_id)
        shown = await telegram.messages(TABLE, include_deleted=True)
        assert [(m.text, m.deleted) for m in shown] == [("plain", True), ("styled", False)]


async def test_chat_queries_and_commands(emulator: Emulator, token: str) -> None:
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        await telegram.send(ALICE, TABLE, "hi")
        await telegram.send(BOB, TABLE, "hi")
        await telegram.set_admins(TABLE, [ALICE])
        chat = await bot.get_chat(TABLE.id)
        assert (chat.type, chat.title) == ("supergroup", "牌桌")
        assert (await bot.get_chat_member(TABLE.id, ALICE.id)).status == "creator"
        assert (await bot.get_chat_member(TABLE.id, BOB.id)).status == "member"
        carol = User(1003, "Carol")
        await telegram.send(carol, Chat.private(carol), "/start")
        assert (await bot.get_chat_member(TABLE.id, carol.id)).status == "left"
        shown = await bot.send_message(TABLE.id, "坐下", reply_markup=keyboard(("坐", "sit")))
        await telegram.press(carol, (await telegram.messages(TABLE))[-1], "sit")
        assert shown.message_id == (await telegram.messages(TABLE))[-1].message_id
        assert (await bot.get_chat_member(TABLE.id, carol.id)).status == "member"
        admins = await bot.get_chat_administrators(TABLE.id)
        assert [member.user.id for member in admins] == [ALICE.id]
        commands = [BotCommand("newgame", "开新局"), BotCommand("stop", "结束")]
        assert await bot.set_my_commands(commands)
        assert tuple(await bot.get_my_commands()) == tuple(commands)
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await bot.get_chat(-42)


async def test_long_polling_waits_for_updates_and_honours_offset(emulator: Emulator, token: str) -> None:
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot

        async def later() -> None:
            await asyncio.sleep(0.3)
            await telegram.send(ALICE, TABLE, "/deal")

        started = time.monotonic()
        sender = asyncio.create_task(later())
        updates = await bot.get_updates(timeout=5)
        await sender
        assert 0.25 < time.monotonic() - started < 4.5
        assert updates[0].message is not None and updates[0].message.text == "/deal"
        assert await bot.get_updates(timeout=0) == updates
        assert await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0) == ()
        assert await bot.get_updates(timeout=0, allowed_updates=["callback_query"]) == ()
        await telegram.send(ALICE, TABLE, "chatter")
        assert await telegram.pending_updates() == 0


async def test_two_pollers_of_one_token_are_counted_as_an_overlap(emulator: Emulator, token: str) -> None:
    """What the failover test relies on: polls one after another are no overlap, a poll left
    open by a client that went away is none either, and two open at once are one."""
    url = f"{emulator.base_url}{token}/getUpdates"
    async with Telegram(emulator, token) as telegram, httpx.AsyncClient(timeout=10) as one:
        for _ in range(2):
            assert (await one.post(url, json={"timeout": 0})).status_code == 200
        assert await telegram.poll_stats() == (2, 0)
        async with httpx.AsyncClient(timeout=10) as gone:
            abandoned = asyncio.create_task(gone.post(url, json={"timeout": 3}))
            await asyncio.sleep(0.3)
            abandoned.cancel()
            await asyncio.gather(abandoned, return_exceptions=True)
        await one.post(url, json={"timeout": 1})
        assert await telegram.poll_stats() == (4, 0)
        async with httpx.AsyncClient(timeout=10) as two:
            await asyncio.gather(one.post(url, json={"timeout": 1}), two.post(url, json={"timeout": 1}))
        assert await telegram.poll_stats() == (6, 1)


async def test_captions_resent_photos_and_deleted_messages(emulator: Emulator, token: str) -> None:
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        await telegram.send(ALICE, TABLE, "hi")
        first = await bot.send_photo(TABLE.id, picture("red"), caption="<i>旧</i>", parse_mode="HTML")
        again = await bot.send_photo(TABLE.id, first.photo[-1].file_id, reply_markup=keyboard(("出", "play")))
        assert again.photo[-1].file_id == first.photo[-1].file_id and again.caption is None
        recaptioned = await bot.edit_message_caption(TABLE.id, first.message_id, caption="新")
        assert not isinstance(recaptioned, bool) and recaptioned.caption == "新"
        with pytest.raises(BadRequest, match=r"(?i)no text in the message"):
            await bot.edit_message_text("x", TABLE.id, first.message_id)
        shown = await telegram.messages(TABLE)
        assert [(m.caption, m.edit_count, m.raw.get("caption_entities")) for m in shown] == [
            ("新", 1, None),
            (None, 0, None),
        ]
        await bot.delete_message(TABLE.id, again.message_id)
        with pytest.raises(EmulatorError, match="not found"):
            await telegram.press(BOB, shown[1], "play")


async def test_privacy_mode_hides_plain_group_messages_unless_admin(emulator: Emulator, token: str) -> None:
    """Privacy mode (set_privacy): commands, replies to the bot and private chats get through;
    plain group messages only while the bot is an administrator. getMe says which."""
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        assert (await bot.get_me()).can_read_all_group_messages
        await telegram.set_privacy(True)
        assert not (await bot.get_me()).can_read_all_group_messages
        await telegram.send(ALICE, TABLE, "/deal")
        await bot.send_message(TABLE.id, "对阵")
        mine = (await telegram.messages(TABLE))[-1]
        await telegram.send(ALICE, TABLE, "掼蛋3组")  # hidden
        await telegram.send(BOB, TABLE, "3组", reply_to=mine)  # a reply to the bot: seen
        await telegram.send(BOB, Chat.private(BOB), "你好")  # private: seen
        seen = [u.message.text for u in await bot.get_updates(timeout=0) if u.message is not None]
        assert seen == ["/deal", "3组", "你好"]
        await telegram.set_admins(TABLE, [ALICE, User(666, BOT_USERNAME)])
        await telegram.send(ALICE, TABLE, "掼蛋4组")  # the bot is an administrator now
        await telegram.set_privacy(False)
        await telegram.set_admins(TABLE, [ALICE])
        await telegram.send(BOB, TABLE, "掼蛋5组")  # privacy mode off
        seen = [u.message.text for u in await bot.get_updates(timeout=0) if u.message is not None]
        assert seen[-2:] == ["掼蛋4组", "掼蛋5组"]


async def timed(call: Any) -> float:
    """Seconds an awaitable takes."""
    started = time.monotonic()
    await call
    return time.monotonic() - started


def retry_seconds(error: RetryAfter) -> float:
    after = error.retry_after
    return after.total_seconds() if isinstance(after, dtm.timedelta) else float(after)


async def test_latency_delays_the_bots_requests_not_the_tests(emulator: Emulator, token: str) -> None:
    """set_latency: every Bot API request takes the round trip (state changes half way), the
    tests' own routes do not; None goes back to the server's default."""
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        await telegram.send(ALICE, TABLE, "hi")
        await telegram.set_latency(2000)  # seconds apart from any delay a loaded machine adds
        assert 1.98 < await timed(bot.get_me()) < 5
        assert 1.98 < await timed(bot.get_updates(timeout=0)) < 5
        sending = asyncio.create_task(bot.send_message(TABLE.id, "对阵"))
        assert await timed(telegram.messages(TABLE)) < 1  # a client route: not delayed
        shown = await wait_for(lambda: telegram.messages(TABLE), timeout=1.9, what="the message")
        assert not sending.done()  # the chat shows it before the bot hears back
        await sending
        assert shown[0].text == "对阵"
        await telegram.set_latency(None)
        assert await timed(bot.get_me()) < emulator.latency_ms / 1000 + 1.5  # not the 2 s


def test_latency_from_the_environment_reaches_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """GUANDAN_EMULATOR_LATENCY_MS, read by Emulator.start, becomes --latency-ms for every token."""
    monkeypatch.setenv("GUANDAN_EMULATOR_LATENCY_MS", "1500")
    slow = Emulator.start()
    try:
        assert slow.latency_ms == 1500
        started = time.monotonic()
        response = httpx.post(f"{slow.base_url}1:any/getMe")
        assert response.json()["ok"] and time.monotonic() - started >= 1.45
        started = time.monotonic()
        httpx.post(f"{slow.url}/botMessages", json={"token": "1:any"})
        assert (
            time.monotonic() - started < 1.0
        )  # the tests' own door is not slowed (a wide margin: shared cores)
    finally:
        slow.stop()


async def test_group_gets_20_new_messages_a_minute(emulator: Emulator, token: str) -> None:
    """With limits on, the 21st group message in a minute is 429 with Telegram's body and
    retry_after, and creates nothing; edits do not count toward the 20 (weight 0)."""
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        await telegram.send(ALICE, TABLE, "hi")
        await telegram.enforce_limits(chat_per_second=1000, chat_burst=1000)
        first = await bot.send_message(TABLE.id, "0")
        for n in range(1, 20):
            await bot.send_message(TABLE.id, str(n))
        async with httpx.AsyncClient() as raw:
            url = f"{emulator.base_url}{token}/sendMessage"
            response = await raw.post(url, data={"chat_id": TABLE.id, "text": "x"})
        body = response.json()
        assert response.status_code == 429 and body["ok"] is False and body["error_code"] == 429
        after = body["parameters"]["retry_after"]
        assert isinstance(after, int) and 55 <= after <= 60
        assert body["description"] == f"Too Many Requests: retry after {after}"
        with pytest.raises(RetryAfter) as refused:
            await bot.send_photo(TABLE.id, picture("red"))
        assert 55 <= retry_seconds(refused.value) <= 60
        assert await bot.edit_message_text("改", TABLE.id, first.message_id)
        shown = await telegram.messages(TABLE)
        assert len(shown) == 20 and shown[0].edit_count == 1 and shown[0].edited_at_ms
        assert all(m.sent_at_ms and abs(m.sent_at_ms / 1000 - time.time()) < 60 for m in shown)
        assert most_in_window([m.sent_at_ms or 0 for m in shown], 60_000) == 20
        await telegram.send(ALICE, Chat.private(ALICE), "/start")
        assert await bot.send_message(ALICE.id, "私聊")  # a private chat has no 20 a minute
        stats = await telegram.limit_stats()
        assert stats.enabled and stats.too_many_requests == 2
        assert stats.by_limit["group_per_minute"] == 2 and stats.by_chat == {TABLE.id: 2}
        assert 55 <= stats.max_retry_after <= 60

        await telegram.enforce_limits(chat_per_second=1000, chat_burst=1000, group_edit_weight=0.5)
        for n in range(19):
            await bot.send_message(TABLE.id, f"again {n}")
        await bot.edit_message_text("半", TABLE.id, first.message_id)
        await bot.edit_message_text("半半", TABLE.id, first.message_id)
        with pytest.raises(RetryAfter):
            await bot.edit_message_text("满", TABLE.id, first.message_id)
        assert (await telegram.messages(TABLE))[0].text == "半半"
        await telegram.enforce_limits(False)
        assert await bot.send_message(TABLE.id, "off")
        assert not (await telegram.limit_stats()).enabled


async def test_chat_gets_about_one_message_a_second(emulator: Emulator, token: str) -> None:
    """A chat takes a burst of 3 messages or edits, then one a second; a failed request
    (400) gives its share back."""
    dm = Chat.private(ALICE)
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        await telegram.send(ALICE, dm, "/start")
        await telegram.enforce_limits()
        sent = await bot.send_message(dm.id, "1")
        with pytest.raises(BadRequest, match="not modified"):
            await bot.edit_message_text("1", dm.id, sent.message_id)
        await bot.send_message(dm.id, "2")
        await bot.edit_message_text("1改", dm.id, sent.message_id)
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(dm.id, "4")
        assert retry_seconds(refused.value) == 1
        with pytest.raises(RetryAfter):
            await bot.edit_message_text("1改改", dm.id, sent.message_id)
        assert [m.text for m in await telegram.messages(dm)] == ["1改", "2"]
        stats = await telegram.limit_stats()
        assert stats.by_limit["chat_per_second"] == 2 and stats.by_chat == {dm.id: 2}

        async def sent_again() -> bool:  # refused until the chat's second has passed
            try:
                return bool(await bot.send_message(dm.id, "5"))
            except RetryAfter as again:
                assert retry_seconds(again) == 1
                return False

        started = time.monotonic()
        await wait_for(sent_again, timeout=5, what="the chat's budget to come back")
        assert time.monotonic() - started < 2  # one a second: back within about a second
        assert [m.text for m in await telegram.messages(dm)] == ["1改", "2", "5"]


async def test_bot_gets_30_requests_a_second(emulator: Emulator, token: str) -> None:
    """Over the token's messages a second, across chats, the rest are 429 and create nothing."""
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        groups = [Chat.group(-2000 - n, f"桌{n}") for n in range(12)]
        for group in groups:
            await telegram.send(ALICE, group, "hi")
        await telegram.enforce_limits(global_per_second=10)
        results = await asyncio.gather(
            *(bot.send_message(group.id, "开") for group in groups), return_exceptions=True
        )
        refused = [r for r in results if isinstance(r, RetryAfter)]
        assert len(refused) == 2 and all(retry_seconds(r) == 1 for r in refused)
        assert len(await telegram.messages()) == 10
        assert (await telegram.limit_stats()).by_limit["global_per_second"] == 2


async def test_an_old_callback_query_cannot_be_answered(emulator: Emulator, token: str) -> None:
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        await telegram.send(ALICE, TABLE, "hi")
        await telegram.enforce_limits(callback_ttl_seconds=0.5)
        await bot.send_message(TABLE.id, "坐下", reply_markup=keyboard(("坐", "sit")))
        shown = (await telegram.messages(TABLE))[-1]
        late = await telegram.press(ALICE, shown, "sit")
        await telegram.advance_clock(0.7)  # older than its 0.5 s to live: the duration is the rule under test
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await bot.answer_callback_query(late)
        assert await telegram.answer(late) is None
        prompt = await telegram.press(BOB, shown, "sit")
        assert await bot.answer_callback_query(prompt, "好")
        assert (await telegram.wait_answer(prompt)).text == "好"
        assert (await telegram.limit_stats()).too_old_callbacks == 1


async def slow_webhook(received: list[dict[str, Any]]) -> asyncio.Server:
    """A webhook that takes 50 ms to accept each update, so the emulator's posts overlap."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        received.append(json.loads(await reader.readexactly(length)))
        await asyncio.sleep(0.05)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    return await asyncio.start_server(serve, "127.0.0.1", 0)


@pytest.mark.parametrize("delivery", ["polling", "webhook"])
async def test_every_press_gets_its_own_callback_id(emulator: Emulator, token: str, delivery: str) -> None:
    """50 presses at once are 50 queries with distinct ids (and update ids), each answerable."""
    players = [User(3000 + n, f"P{n}") for n in range(50)]
    received: list[dict[str, Any]] = []
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        await telegram.send(ALICE, TABLE, "hi")
        await bot.get_updates(offset=(await bot.get_updates(timeout=0))[-1].update_id + 1, timeout=0)
        await bot.send_message(TABLE.id, "抢", reply_markup=keyboard(("抢", "grab")))
        shown = (await telegram.messages(TABLE))[-1]
        server = await slow_webhook(received) if delivery == "webhook" else None
        try:
            if server is not None:
                port = server.sockets[0].getsockname()[1]
                await bot.set_webhook(f"http://127.0.0.1:{port}/hook")
            ids = await asyncio.gather(*(telegram.press(player, shown, "grab") for player in players))
            if server is None:
                updates = [u.to_dict() for u in await bot.get_updates(timeout=0)]
            else:

                async def all_received() -> list[dict[str, Any]] | None:
                    return received if len(received) >= 50 else None

                updates = await wait_for(all_received, what="the webhook to get every press")
        finally:
            if server is not None:
                await bot.delete_webhook()
                server.close()
        assert len(set(ids)) == 50
        queries = [update["callback_query"] for update in updates]
        assert sorted(q["id"] for q in queries) == sorted(ids)
        assert len({update["update_id"] for update in updates}) == 50
        assert {q["from"]["id"] for q in queries} == {p.id for p in players}
        answered = await asyncio.gather(*(bot.answer_callback_query(i, f"抢到 {i}") for i in ids))
        assert all(answered)
        for query_id in ids:
            assert (await telegram.wait_answer(query_id)).text == f"抢到 {query_id}"
