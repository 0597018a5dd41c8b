"""/lang, /help, /rules, /fourcolor, /arrange and /autopass.

Replies go through the chat's reply queue (``services.replies``): a handler returns at once
instead of waiting for the group's message quota, and a flood of equal commands gets one
answer.
"""

from __future__ import annotations

import html

from telegram import Chat, Update
from telegram.constants import ParseMode

from app.i18n import LOCALES
from app.preferences import Choices, Switch
from app.table.refusals import TableRefusal
from app.table.texts import _, error_text, format_summary, no_shuffle_text, preset_title
from engine.rules import PRESETS
from handlers.platform.context import Context
from handlers.platform.locales import reply_locale
from handlers.table import flow
from handlers.table.hand_message import post_hand
from handlers.table.lobby import is_group_admin


async def lang(update: Update, context: Context) -> None:
    """/lang zh|en: in a private chat for you, in a group for the group's board."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    choice = (context.args or [""])[0].lower()
    private = chat.type == Chat.PRIVATE
    current = await reply_locale(context.services.languages, chat)
    if choice not in LOCALES:
        context.services.replies.reply(message, _("Usage: /lang zh or /lang en", current), current)
        return
    choices = _choices(context)
    if private:
        await choices.set_person_locale(user.id, choice)
        for table, seat in context.services.tables.tables_of_user(user.id):
            # the seat's messages follow (handlers.platform.locales)
            table.seats[seat].message.preferences = None
    else:
        if not await is_group_admin(context, chat.id, user.id):
            context.services.replies.reply(message, error_text(TableRefusal.NOT_ALLOWED, current), current)
            return
        await choices.set_group_locale(chat.id, choice)
        context.services.board.forget_locale(chat.id)
    context.services.replies.reply(message, _("Language set.", choice), choice)


async def four_color(update: Update, context: Context) -> None:
    """/fourcolor: switch your hand pictures between two-colour and four-colour suits."""
    message, user = update.effective_message, update.effective_user
    assert message is not None and user is not None
    locale = await context.services.languages.of_user(user.id)
    on = await _choices(context).turn(user.id, Switch.FOUR_COLOR)
    for table, seat in context.services.tables.tables_of_user(user.id):
        table.seats[seat].message.preferences = None
    text = _("Four-colour suits: on.", locale) if on else _("Four-colour suits: off.", locale)
    context.services.replies.reply(message, text, locale)


def _choices(context: Context) -> Choices:
    """The stored choices (/lang, /fourcolor, /arrange, /autopass): each command turns one."""
    return context.services.choices


async def arrange(update: Update, context: Context) -> None:
    """/arrange (理牌): your hand pictures set bombs and straight flushes apart, or not."""
    message, user = update.effective_message, update.effective_user
    assert message is not None and user is not None
    locale = await context.services.languages.of_user(user.id)
    on = await _choices(context).turn(user.id, Switch.GROUP_HAND)
    for table, seat in context.services.tables.tables_of_user(user.id):
        async with table.lock:  # the picture follows at once
            if table.seat_of(user.id) != seat:  # left (or moved) while this waited for the lock
                continue
            table.seats[seat].message.redraw()
            if table.match is None:
                continue
            delivery = await post_hand(context.bot, context.services, table, seat)
        await delivery
    text = (
        _("Hand arrangement: bombs and straight flushes set apart.", locale)
        if on
        else _("Hand arrangement: strongest first.", locale)
    )
    context.services.replies.reply(message, text, locale)


async def auto_pass(update: Update, context: Context) -> None:
    """/autopass: pass automatically whenever nothing in your hand beats the table (要不起)."""
    message, user = update.effective_message, update.effective_user
    assert message is not None and user is not None
    locale = await context.services.languages.of_user(user.id)
    on = await _choices(context).turn(user.id, Switch.AUTO_PASS)
    for table, seat in context.services.tables.tables_of_user(user.id):
        async with table.lock:  # a seat waiting on a play it cannot beat passes now
            if table.seat_of(user.id) != seat:  # left (or moved) while this waited for the lock
                continue
            table.seats[seat].auto_pass = on
            if table.match is None or seat not in table.match.to_act:
                continue
            outcome = await context.services.tables.resume(table)
            delivery = await flow.post_in(context, table, outcome)
        await delivery
    text = (
        _("Auto-pass: on. When nothing in your hand beats the table, the bot passes for you.", locale)
        if on
        else _("Auto-pass: off.", locale)
    )
    context.services.replies.reply(message, text, locale)


async def help_command(update: Update, context: Context) -> None:
    """/help: how to play, in the chat's or user's language."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    locale = await reply_locale(context.services.languages, chat)
    context.services.replies.reply(message, help_text(locale), locale, parse_mode=ParseMode.HTML)


def help_text(locale: str) -> str:
    return "\n".join(
        [
            _("<b>Guandan bot</b>", locale),
            _("/newgame [preset] — open a table in this group (four seats; AI players fill gaps)", locale),
            _("Tap a seat to sit. First time? The bot asks you to open its private chat.", locale),
            _("Your hand arrives privately: tap cards, then Play; Hint suggests plays; Pass; Clear.", locale),
            _("Tributes and returns are chosen in the private chat too.", locale),
            _("/stop — end the table (creator or admin)", locale),
            _("/rules — rule presets · /lang zh|en — language · /fourcolor — four-colour suits", locale),
            _("/autopass — pass by itself when nothing beats the table", locale),
            _("/arrange — bombs and straight flushes set apart in your hand picture", locale),
            _(
                "/newgame noshuffle — 不洗牌: each deal from the last one's cards, unshuffled (/rules)",
                locale,
            ),
            _(
                "/history — your last matches. Replay shows one step by step; in your private chat, 🎓 Coach "
                "this deal marks your three costliest decisions and what the master would have played. "
                "While a match goes on, 🎓 Replay and coaching under a deal's ended hand opens that deal",
                locale,
            ),
            _(
                "👀 Watch on a table's board — follow it in your private chat; the hands once a deal is over",
                locale,
            ),
            _("/newgame … watch_hand=on — spectators may follow one seat's hand, a trick behind", locale),
        ]
    )


async def rules_command(update: Update, context: Context) -> None:
    """/rules: the presets /newgame accepts."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None and user is not None
    locale = await reply_locale(context.services.languages, chat)
    lines = [_("<b>Rule presets</b> (/newgame &lt;name&gt;):", locale)]
    for name, preset in PRESETS.items():
        title = html.escape(preset_title(name, locale))
        lines.append(f"• <code>{name}</code> — {title} ({format_summary(preset.rules, locale)})")
    lines += ["", no_shuffle_text(locale)]
    context.services.replies.reply(message, "\n".join(lines), locale, parse_mode=ParseMode.HTML)
