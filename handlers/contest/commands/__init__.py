"""Contest commands, typed reports and contest buttons (the Telegram side; thin), by topic:
:mod:`.setup` (/contest and its subcommands), :mod:`.signup`, :mod:`.rounds` (the organiser's),
:mod:`.reports` (results), :mod:`.standings` (pictures) and :mod:`.buttons`.

Each handler reads who and where, calls :meth:`ContestDesk.run` with a pure command, and
answers the person: refusals in one place (:func:`handlers.contest.common.answers_refusals`),
successes mostly by the announcements the desk queues. Organiser commands are the contest's
organiser's or a group admin's.
"""

from __future__ import annotations

from handlers.contest.commands.buttons import on_contest_press
from handlers.contest.commands.reports import on_group_text, report_command, result_command
from handlers.contest.commands.rounds import draw_command, late_command, round_command
from handlers.contest.commands.setup import contest_command
from handlers.contest.commands.signup import leave_command, signup_command, withdraw_command
from handlers.contest.commands.standings import bracket_command, standings_command

COMMANDS = (
    ("contest", contest_command),
    ("signup", signup_command),
    ("withdraw", withdraw_command),
    ("draw", draw_command),
    ("report", report_command),
    ("result", result_command),
    ("round", round_command),
    ("late", late_command),
    ("leave", leave_command),
    ("standings", standings_command),
    ("bracket", bracket_command),
)
"""The contest's slash commands, as ``bot.py`` registers them."""

__all__ = ["COMMANDS", "on_contest_press", "on_group_text"]
