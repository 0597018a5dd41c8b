"""Results: a player's typed report (掼蛋3组, /report, or a reply to the pairings) and the
organiser's /result decision."""

from __future__ import annotations

import logging

from telegram import Chat, Update

from app.contest import texts
from app.contest.args import read_decision
from app.contest.problems import Problem
from engine.contest import ContestError, MatchNote, MatchUpdated, Refusal, decide, official_line, report_text
from handlers.contest.common import (
    answers_each_use,
    desk_of,
    here,
    locale_of,
    now,
    parts,
    remember,
    reply,
    run,
)
from handlers.platform.context import Context

log = logging.getLogger(__name__)

# Refusals of a typed line that was clearly meant as a report (it starts with the event word):
# answered. Anything else typed in the group is ordinary chat and gets no answer.
_MEANT_AS_REPORT = frozenset(
    {Refusal.SEVERAL_NUMBERS, Refusal.ZERO, Refusal.BAD_NUMERAL, Refusal.TRAILING_TEXT, Refusal.NO_NUMBER}
)
_TEXT_REFUSALS = frozenset(
    {
        Refusal.NOT_A_REPORT,
        Refusal.WRONG_EVENT,
        Refusal.NO_NUMBER,
        Refusal.SEVERAL_NUMBERS,
        Refusal.ZERO,
        Refusal.BAD_NUMERAL,
        Refusal.TRAILING_TEXT,
    }
)
"""What the parser refuses: silent for ordinary chat, answered when meant as a report."""


async def report_command(update: Update, context: Context) -> None:
    """/report 掼蛋3组: always seen, whatever the group's privacy mode."""
    _message, _chat, user = parts(update)
    await remember(context, user)
    await _report(update, context, " ".join(context.args or []), explicit=True)


async def on_group_text(update: Update, context: Context) -> None:
    """A typed line in a group: a report if it reads as one (or replies to the pairings)."""
    message, chat, user = parts(update)
    text = message.text or ""
    if chat.type == Chat.PRIVATE:
        return
    await remember(context, user)
    if "组" not in text and message.reply_to_message is None:
        return
    replied = message.reply_to_message
    explicit = False
    if replied is not None:
        explicit = await desk_of(context).store.shows_pairings(chat.id, replied.message_id)  # not a card
        if not explicit and "组" not in text:
            return
    await _report(update, context, text, explicit=explicit)


async def _report(update: Update, context: Context, text: str, *, explicit: bool) -> None:
    """A report's refusals are its own: ordinary chat that only looks like one gets no answer."""
    message, chat, user = parts(update)
    locale = await locale_of(context, chat)
    stored = await desk_of(context).store.open_in_chat(chat.id)
    if stored is None:
        if explicit:
            await reply(context, message, texts.problem_text(Problem.NO_CONTEST, "", locale))
        return
    event = stored.contest.settings.event_word
    if message.forward_origin is not None:  # someone else's line, or an old one: not a report
        if explicit or text.strip().startswith(event):
            await reply(context, message, texts.problem_text(Problem.FORWARDED_REPORT, "", locale))
        return
    if explicit and not text.strip().startswith(event) and text.strip():
        text = event + text.strip()  # a reply to the pairings may say just 3组
    desk = desk_of(context)
    try:
        _after, step = await desk.run(
            stored.id, lambda c: report_text(c, reporter=user.id, text=text, now=desk.clock())
        )
    except ContestError as error:
        meant = text.strip().startswith(event) and error.code in _MEANT_AS_REPORT
        if explicit or meant or error.code not in _TEXT_REFUSALS:
            await reply(context, message, texts.refusal_text(error.code, locale))
        return
    for event_ in step.events:
        if isinstance(event_, MatchUpdated):
            result = event_.match.result
            line = official_line(result.winner, event) if result is not None and result.winner else ""
            if event_.note is MatchNote.DUPLICATE:
                if desk.line_on_its_way(stored.id, event_.match):
                    continue  # the line on its way answers every copy, ahead of any reply (issue 40)
                await reply(context, message, texts.duplicate_text(line, locale))
            elif event_.note is MatchNote.CONTRADICTION:
                await reply(context, message, texts.contradiction_text(stored.contest, event_.match, locale))


@answers_each_use
async def result_command(update: Update, context: Context) -> None:
    """/result CODE WINNER [9:5] [levels=A:10] [3s=2:1] [time] [extra] REASON — the organiser's
    decision, logged with its reason; the figures give scored formats their 级差 and round score.
    ``/result 掼蛋8组 REASON``: the winner's group names its match, and the answer says which."""
    found = await here(update, context, organiser=True, repeat=True)
    if found is None:
        return
    message, user, locale, stored = found
    decision = read_decision(context.args or [], stored.contest)
    result = decision.with_figures(stored.contest)
    log.info("contest %s: %s decides %s: %s (%s)", stored.id, user.id, decision.code, result, decision.reason)
    command = lambda c: decide(  # noqa: E731
        c, code=decision.code, result=result, by=user.id, reason=decision.reason, now=now(context)
    )
    await run(context, stored, command)
    if decision.named_by is not None:
        match = stored.contest.match_by_code(decision.code)
        understood = texts.understood_text(match, result, decision.named_by, locale)
        await reply(context, message, understood, repeat=True)
