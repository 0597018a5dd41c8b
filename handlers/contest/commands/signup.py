"""Sign-up: /signup (alone or with a partner, a unit or time slot where the format uses one), a
partner change after the draw (V32), /withdraw, and /leave (请假)."""

from __future__ import annotations

import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, MessageEntity, Update

from app.contest import texts
from app.contest.args import parse_signup
from app.contest.callback_data import ContestOp, ContestPress
from app.contest.problems import Problem
from app.contest.store import HeldContest
from app.table.texts import _, escape
from engine.contest import (
    PairWithdrew,
    Player,
    WithdrawReason,
    change_partner,
    sign_up,
    username_placeholder,
    withdraw,
)
from handlers.contest.common import answers_refusals, desk_of, here, now, reply, run
from handlers.platform.context import Context
from handlers.table.lobby import display_name

_USERNAME = re.compile(r"[A-Za-z0-9_]{1,32}")
"""What a Telegram username may hold (letters, digits, underscores; at most 32)."""


@answers_refusals
async def signup_command(update: Update, context: Context) -> None:
    """/signup (alone: partner by lot) or /signup @partner (the partner confirms with a button);
    ``tag=UNIT`` (000-S) or ``tag=A``/``tag=B`` (002-E) where the format uses one."""
    found = await here(update, context, remember_user=True)
    if found is None:
        return
    message, user, locale, stored = found
    me = Player(user.id, display_name(user))
    words = parse_signup(context.args or [], stored.contest.format.uses_tags)
    asked = bool(words.partner_words) or message.reply_to_message is not None
    partner = await _partner(context, message) if asked else None
    if asked and partner is None:
        said = " ".join(words.partner_words)
        await reply(context, message, texts.problem_text(Problem.NO_PARTNER, said, locale))
        return
    pair = stored.contest.pair_of_user(user.id)
    if words.tag and pair is not None:
        await reply(context, message, texts.problem_text(Problem.TAG_AFTER_DRAW, "", locale))
        return
    if partner is not None and pair is not None:  # after the draw: a partner change (V32)
        new_partner = partner
        await run(context, stored, lambda c: change_partner(c, user.id, new_partner))
        await reply(context, message, texts.partner_changed_text(me.name, partner.name, pair.number, locale))
        return
    await _sign_up(context, message, stored, me, partner, words.tag, locale)


async def _sign_up(
    context: Context,
    message: Message,
    stored: HeldContest,
    me: Player,
    partner: Player | None,
    tag: str,
    locale: str,
) -> None:
    """Sign ``me`` up (with ``partner`` invited, in ``tag``'s unit or slot) and say so."""
    await run(context, stored, lambda c: sign_up(c, me, partner, tag=tag))
    text = texts.signup_done_text(stored.contest, me.name, partner.name if partner else None, locale)
    if tag:
        text += "\n" + texts.tag_text(stored.contest.format.uses_tags, tag, locale)
    markup = _invitation(stored.id, locale) if partner is not None else None
    # an invitation is the partner's only button; signing up alone is on the card too, so in a
    # rush (replies already waiting) its acknowledgement gives way (issue 40)
    alone = partner is None and not tag
    await reply(context, message, text, markup, keep=partner is not None, spare=alone)


def _invitation(contest_id: int, locale: str) -> InlineKeyboardMarkup:
    """The invited partner's answer: 接受 / 拒绝."""
    accept = ContestPress(ContestOp.PARTNER_YES, contest_id).encode()
    decline = ContestPress(ContestOp.PARTNER_NO, contest_id).encode()
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(_("Accept", locale), callback_data=accept),
                InlineKeyboardButton(_("Decline", locale), callback_data=decline),
            ]
        ]
    )


async def _partner(context: Context, message: Message) -> Player | None:
    """The partner named by a text mention, a reply, or an @username the bot has seen."""
    for entity in message.entities:
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            return Player(entity.user.id, display_name(entity.user))
    for word in message.text.split()[1:] if message.text else []:
        if word.startswith("@"):
            if not _USERNAME.fullmatch(word[1:]):
                return None
            known = await desk_of(context).store.user_by_username(word)
            # not seen yet (privacy mode: a bot sees only commands and presses): invited by the
            # username, and whoever presses 接受 with it takes the place
            return Player(*known) if known is not None else username_placeholder(word)
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
        return Player(replied.from_user.id, display_name(replied.from_user))
    return None


@answers_refusals
async def withdraw_command(update: Update, context: Context) -> None:
    """/withdraw: leave before the draw; after it, the pair forfeits (弃权)."""
    found = await here(update, context)
    if found is None:
        return
    message, user, locale, stored = found
    await run(context, stored, lambda c: withdraw(c, user.id, now=now(context)))
    await reply(context, message, _("{name} withdrew.", locale, name=escape(display_name(user))))


@answers_refusals
async def leave_command(update: Update, context: Context) -> None:
    """/leave (请假): a player asks for leave before their match; their pair is out and the match
    a walkover, announced in the group with its own wording. Refused once the match has begun."""
    found = await here(update, context)
    if found is None:
        return
    message, user, locale, stored = found
    step = await run(
        context, stored, lambda c: withdraw(c, user.id, now=now(context), reason=WithdrawReason.LEAVE)
    )
    if not any(isinstance(e, PairWithdrew) for e in step.events):
        await reply(context, message, _("{name} withdrew.", locale, name=escape(display_name(user))))
