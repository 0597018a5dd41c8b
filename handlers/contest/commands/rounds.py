"""The organiser's rounds: /draw, /round next | start [TABLE] | close (a subcommand table), and
/late (docs/rules.md §4.7's lateness, as referee)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from app.contest import texts
from app.contest.args import parse_late, parse_schedule, parse_table
from app.contest.callback_data import ContestOp, ContestPress
from app.contest.problems import Problem
from app.table.texts import _
from engine.contest import draw, draw_next_round, record_lateness, start_clock
from handlers.contest.common import Here, answers_refusals, here, now, reply, run
from handlers.platform.context import Context

RoundSub = Callable[[Context, Here, list[str]], Awaitable[None]]


@answers_refusals
async def draw_command(update: Update, context: Context) -> None:
    """/draw (organiser): close sign-up, pair the singles, number the pairs, draw round 1."""
    found = await here(update, context, organiser=True)
    if found is not None:
        await run(context, found.stored, lambda c: draw(c, now=now(context)))


@answers_refusals
async def round_command(update: Update, context: Context) -> None:
    """/round next | /round start [TABLE] | /round close (organiser; closing asks for confirmation)."""
    found = await here(update, context, organiser=True)
    if found is None:
        return
    args = list(context.args or [""])
    await ROUND.get(args[0].lower(), _usage)(context, found, args[1:])


async def _next(context: Context, here: Here, args: list[str]) -> None:
    schedule = parse_schedule(args, here.stored.contest.settings.zone_name, now=now(context))
    await run(context, here.stored, lambda c: draw_next_round(c, now=now(context), schedule=schedule))


async def _start_clock(context: Context, here: Here, args: list[str]) -> None:
    """/round start [TABLE]: the timed round's table clocks (announced in the group by the desk)."""
    table = parse_table(args)
    await run(context, here.stored, lambda c: start_clock(c, now=now(context), table=table))


async def _ask_close(context: Context, here: Here, _args: list[str]) -> None:
    locale, stored = here.locale, here.stored
    buttons = [
        InlineKeyboardButton(
            _("Close the round", locale),
            callback_data=ContestPress(ContestOp.CLOSE_YES, stored.id).encode(),
        ),
        InlineKeyboardButton(
            _("Cancel", locale), callback_data=ContestPress(ContestOp.CLOSE_NO, stored.id).encode()
        ),
    ]
    question = texts.close_round_question(stored.contest, locale)
    await reply(context, here.message, question, InlineKeyboardMarkup([buttons]), owed=True)


async def _usage(context: Context, here: Here, _args: list[str]) -> None:
    usage = (
        texts.problem_text(Problem.USAGE_ROUND, "", here.locale)
        + "\n"
        + texts.problem_text(Problem.USAGE_START, "", here.locale)
    )
    await reply(context, here.message, usage)


ROUND: dict[str, RoundSub] = {"next": _next, "start": _start_clock, "close": _ask_close}


@answers_refusals
async def late_command(update: Update, context: Context) -> None:
    """/late CODE GROUP MINUTES (organiser, as referee): docs/rules.md §4.7's lateness — under the rules'
    threshold noted, at it a walkover, and the settings' repeats in a row disqualify."""
    found = await here(update, context, organiser=True)
    if found is None:
        return
    message, user, locale, stored = found
    words = parse_late(context.args or [], stored.contest.settings.event_word)
    match = stored.contest.match_by_code(words.code)
    if not match.has(words.pair):
        await reply(context, message, texts.problem_text(Problem.LATE_NOT_IN_MATCH, str(words.pair), locale))
        return
    command = lambda c: record_lateness(  # noqa: E731
        c, code=match.code, late_pair=words.pair, minutes=words.minutes, by=user.id, now=now(context)
    )
    step = await run(context, stored, command)
    if not step.events:
        await reply(
            context, message, texts.late_noted_text(stored.contest, match, words.pair, words.minutes, locale)
        )
