"""Why a table request was refused, worded for one locale: every :class:`TableRefusal` and
:class:`~app.table.settings.SettingRefusal` member has its text (``mypy --strict`` finds one
without), and no code falls back to a generic sentence.
"""

from __future__ import annotations

from typing import assert_never

from app.table.refusals import SettingRefusal, TableRefusal
from app.table.settings import SettingProblem
from app.table.texts.words import _, cards_text, joined, sentence_gap
from engine.cards import Rank
from engine.plays import Play
from engine.rules import Rules, Setting, SettingKind
from render.words import describe_play

# ---------------------------------------------------------------- errors


def refusal_text(code: TableRefusal, locale: str) -> str:
    """A table refusal, shown as an alert or a reply; every member has its text (mypy checks)."""
    match code:
        case TableRefusal.NO_TABLE:
            return _("There is no active table here. Start one with /newgame.", locale)
        case TableRefusal.TABLE_EXISTS:
            return _("This group already has a table. /stop ends it.", locale)
        case TableRefusal.SEAT_TAKEN:
            return _("That seat is taken.", locale)
        case TableRefusal.TABLE_FULL:
            return _("All four seats are taken.", locale)
        case TableRefusal.NOT_SEATED:
            return _("You are not seated at this table.", locale)
        case TableRefusal.NOT_YOUR_HAND:
            return _("These are another player's cards: only they can press these buttons.", locale)
        case TableRefusal.SEATS_MISSING:
            return _("Fill all four seats first (add AI players if needed).", locale)
        case TableRefusal.TABLE_NOT_LOBBY:
            return _("The match has already started.", locale)
        case TableRefusal.TABLE_NOT_PLAYING:
            return _("The match is not being played.", locale)
        case TableRefusal.NOT_ALLOWED:
            return _("Only the table's creator or a group admin can do that.", locale)
        case TableRefusal.STALE:
            return _("These buttons are out of date; use the newest message.", locale)
        case TableRefusal.RESTORED:
            return restored_text(locale)
        case TableRefusal.BAD_BUTTON:
            return _("This button is not valid.", locale)
        case TableRefusal.NOT_YOUR_TURN:
            return _("It is not your turn yet", locale)
        case TableRefusal.EMPTY:
            return _("Select cards first, or press Hint.", locale)
        case TableRefusal.NO_SUCH_PLAY:
            return _("These cards do not form a valid play", locale)
        case TableRefusal.MUST_LEAD:
            return _("You lead this trick: you cannot pass", locale)
        case TableRefusal.NO_HINT:
            return _("Nothing can beat it: pass", locale)
        case TableRefusal.PRIVATE_ONLY:
            return _("Use this in the private chat with the bot.", locale)
        case TableRefusal.GROUP_ONLY:
            return _("Use this in a group.", locale)
        case TableRefusal.OPEN_PRIVATE:
            return _("Open the private chat with the bot first, then you will be seated.", locale)
        case TableRefusal.NOT_SAVED:
            return _("Not saved: the bot cannot store it right now. Nothing changed; try again.", locale)
        case TableRefusal.INTERNAL:
            return _("Something went wrong on the bot's side. Nothing was lost; please try again.", locale)
        case TableRefusal.RESERVED_TABLE:
            return _("This table is kept for a contest match: only its four players can sit.", locale)
        case TableRefusal.RESERVED_RULES:
            return _("A contest match is played with the contest's rules.", locale)
        case TableRefusal.BUSY:
            return _("The bot is busy with many tables: try again in a few minutes.", locale)
        case TableRefusal.NO_SPECTATORS:
            return _("This table does not take spectators.", locale)
        case TableRefusal.PLAYING_HERE:
            return _("You play at this table: your hand is in your private chat with the bot.", locale)
        case TableRefusal.SPECTATORS_FULL:
            return _("This table has as many spectators as it takes.", locale)
        case TableRefusal.NOT_WATCHING:
            return _("You are not watching this table.", locale)
        case TableRefusal.WATCH_FROM_BOARD:
            return _("To watch, press 👀 Watch on the table's board in the group first.", locale)
        case TableRefusal.NO_WATCH_HAND:
            return _("This table shows spectators no player's hand.", locale)
        case TableRefusal.PAGE_BOUND:
            return _(
                "This page stays with the table it was opened for: open another from its own message.", locale
            )
        case _:
            assert_never(code)


def restored_text(locale: str) -> str:
    """What a hand message from before a restart (or a restore) says, as its last caption and as
    the answer to a press on its buttons: the seat's hand is in a new message below it."""
    return _("♻️ This table was restored: use the new message below.", locale)


def error_text(code: TableRefusal, locale: str) -> str:
    """A refusal shown as an alert or a reply: :func:`refusal_text` of ``code``. Only a member
    has a text (mypy holds every caller to it); anything else raises ``ValueError``, never a
    generic text."""
    return refusal_text(TableRefusal(code), locale)


def busy_text(open_tables: int, locale: str) -> str:
    """/newgame at the bot's capacity: how busy it is and when to try again."""
    return _(
        "The bot is busy: {open} tables are open, as many as it can serve at a good pace. "
        "Try /newgame again in a few minutes, when a match has ended.",
        locale,
        open=open_tables,
    )


def quarantined_text(locale: str) -> str:
    """The group's notice that its table was taken out of play on start (plain text)."""
    return _(
        "⚠️ This group's table could not be resumed after the bot restarted, so it was closed. "
        "Start a new one with /newgame.",
        locale,
    )


def setting_problem_text(problem: SettingProblem, locale: str) -> str:
    """Why ``/newgame`` words were refused, naming the setting and what it accepts (plain text)."""
    text = _setting_refusal_text(problem, locale)
    if problem.suggestions:
        names = joined(problem.suggestions, locale)
        text += sentence_gap(locale) + _("Did you mean: {names}?", locale, names=names)
    return text


def _setting_refusal_text(problem: SettingProblem, locale: str) -> str:
    """Every :class:`SettingRefusal` member's sentence (mypy finds one without)."""
    name = problem.name
    match problem.code:
        case SettingRefusal.UNKNOWN_PRESET:
            return _("Unknown preset “{name}”. /rules lists them.", locale, name=name)
        case SettingRefusal.UNKNOWN_SETTING:
            return _("Unknown rule setting “{name}”.", locale, name=name)
        case SettingRefusal.SETTING_SYNTAX:
            return _(
                "Write each setting as name=value, e.g. turn_seconds=20 (not “{word}”).", locale, word=name
            )
        case SettingRefusal.TOO_MANY_SETTINGS:
            return _("Too many settings: give each setting once.", locale)
        case SettingRefusal.BAD_SETTING:
            return _must_be(problem, locale)
        case SettingRefusal.SETTING_TOO_LONG:
            return _("That value is too long.", locale) + sentence_gap(locale) + _must_be(problem, locale)
        case _:
            assert_never(problem.code)


def _must_be(problem: SettingProblem, locale: str) -> str:
    assert problem.setting is not None
    allowed = setting_allowed(problem.setting, locale)
    return _("{name} must be {allowed}.", locale, name=problem.name, allowed=allowed)


def setting_allowed(setting: Setting, locale: str) -> str:
    """What a setting accepts: 2 到 600 之间的整数，或 none."""
    low, high = setting.low, setting.high
    if setting.kind is SettingKind.NUMBER and setting.odd:
        text = _("an odd number from {low} to {high}", locale, low=low, high=high)
    elif setting.kind is SettingKind.NUMBER:
        text = _("a whole number from {low} to {high}", locale, low=low, high=high)
    elif setting.kind is SettingKind.SWITCH:
        text = _("on or off", locale)
    elif setting.kind is SettingKind.CHOICE:
        assert setting.choices is not None
        text = _("one of: {choices}", locale, choices=joined((m.value for m in setting.choices), locale))
    elif setting.count is not None:
        example = ",".join(str(n) for n in getattr(Rules.default(), setting.name))
        text = _(
            "{count} whole numbers from {low} to {high}, e.g. {example}",
            locale,
            count=setting.count,
            low=low,
            high=high,
            example=example,
        )
    else:
        text = _("whole numbers from {low} to {high}, separated by commas", locale, low=low, high=high)
    return _("{allowed}, or none", locale, allowed=text) if setting.optional else text


def cannot_beat(previous: Play, level: Rank, locale: str) -> str:
    """打不过上家的 ♠9: names the play that must be beaten."""
    shown = (
        cards_text(previous.cards, locale) if previous.size <= 3 else describe_play(previous, level, locale)
    )
    return _("Does not beat the previous play {play}", locale, play=shown)
