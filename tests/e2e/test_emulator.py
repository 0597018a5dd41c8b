"""The emulator round trip: a small real python-telegram-bot Application over HTTP.

These tests pin down the Bot API behaviour the real bot relies on (commands, photos
in group and private chats, media and keyboard edits, callback answers, chat queries,
long polling), so that a failing full-match test points at the bot, not the emulator.
"""

import asyncio
import io
import time
from typing import Any

import pytest
from PIL import Image
from telegram import (
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Update,
)
from telegram.error import BadRequest, Forbidden
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from emulator.client import BOT_USERNAME, Chat, Emulator, EmulatorError, Telegram, User, polling

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
        await asyncio.sleep(1.1)  # past the moment a phone may still show the replaced keyboard
        with pytest.raises(EmulatorError, match="no button"):
            await telegram.press(ALICE, ended, "next")


async def test_telegram_rules_the_real_bot_must_respect(emulator: Emulator, token: str) -> None:
    async with Telegram(emulator, token) as telegram, toy_bot(emulator, token) as app:
        bot = app.bot
        with pytest.raises(Forbidden, match=r"(?i)initiate conversation"):
            await bot.send_message(BOB.id, "hi")
        await telegram.send(BOB, TABLE, "hello")
        sent = await bot.send_message(TABLE.id, "<b>bold</b>", parse_mode="HTML")
        with pytest.raises(BadRequest, match=r"(?i)not modified"):
            await bot.edit_message_text("<b>bold</b>", TABLE.id, sent.message_id, parse_mode="HTML")
        with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
            await bot.send_message(TABLE.id, "1 < 2", parse_mode="HTML")
        with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
            await bot.send_message(TABLE.id, "x", reply_markup=keyboard(("x", "x" * 65)))
        edited = await bot.edit_message_text("plain", TABLE.id, sent.message_id)
        assert not isinstance(edited, bool) and edited.text == "plain" and edited.edit_date
        assert await bot.delete_message(TABLE.id, sent.message_id)
        shown = await telegram.messages(TABLE, include_deleted=True)
        assert [(m.text, m.deleted) for m in shown] == [("plain", True)]


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
