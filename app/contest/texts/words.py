"""Small words every contest message uses: pair labels and lines, the format's title, the
deadline, the phase, and fitting a long list into one Telegram message.
"""

from __future__ import annotations

from app.table.texts import _, escape
from engine.contest import (
    Contest,
    ContestPhase,
    Pair,
    official_line,
)
from render.words import is_english


def pair_label(number: int, locale: str) -> str:
    return f"Pair {number}" if is_english(locale) else f"{number}组"


def pair_line(pair: Pair, locale: str, names: bool = True) -> str:
    """``3组 Alice / Bob`` (escaped; ``🎲`` if paired by lot); ``3组`` alone without ``names``."""
    lot = " 🎲" if pair.by_lot else ""
    shown = f" {escape(pair.names)}" if names else ""
    return f"<b>{pair_label(pair.number, locale)}</b>{shown}{lot}"


def report_example(event_word: str) -> str:
    """``掼蛋3组`` in a contest's event word, inside an HTML message: the word is the
    organiser's (``event=<b>`` made Telegram refuse the card and the privacy note)."""
    return escape(official_line(3, event_word))


TEXT_LIMIT = 4000
"""Characters of a message the contest sends: Telegram takes 4,096 after parsing the HTML, and
the HTML counted here is never shorter than what it shows. A large field (64 pairs, 200
sign-ups) is summarised to fit: the card lists the first sign-ups, the draw the first pairs,
a round's pairings drop the names (the standings and /contest export have them all)."""


def _fitted(head: list[str], items: list[str], tail: list[str], more: str, budget: int) -> str:
    """``head``, as many ``items`` as fit in ``budget`` characters (then the ``more`` line, which
    may name ``{n}``, the items left out), and ``tail``."""
    shown = len(items)

    def length(count: int) -> int:
        extra = [more] if count < len(items) else []
        return sum(len(line) + 1 for line in [*head, *items[:count], *extra, *tail])

    while shown and length(shown) > budget:
        shown -= 1
    extra = [more.format(n=len(items) - shown)] if shown < len(items) else []
    return "\n".join([*head, *items[:shown], *extra, *tail])


def format_title(contest: Contest, locale: str) -> str:
    fmt = contest.format
    return fmt.title_en if is_english(locale) else fmt.title_zh


def deadline_line(contest: Contest, locale: str) -> str:
    current = contest.current_round
    deadline = current.schedule.deadline if current is not None else contest.settings.deadline
    if deadline is None:
        return _("Round 1 deadline: not set yet (/contest deadline YYYY-MM-DD).", locale)
    return _(
        "Round 1 deadline: results by {when} (both pairs are out if a match is "
        "not played or not reported by then).",
        locale,
        when=str(deadline),
    )


def phase_text(contest: Contest, locale: str) -> str:
    phase = contest.phase
    current = contest.current_round
    number = current.number if current is not None else 0
    texts = {
        ContestPhase.SIGN_UP: _("Sign-up is open.", locale),
        ContestPhase.ROUND_IN_PLAY: _("Round {n} is being played.", locale, n=number),
        ContestPhase.ROUND_COMPLETE: _(
            "Round {n} is complete; the next draw is the organiser's.", locale, n=number
        ),
        ContestPhase.DECIDED: _("The contest is decided.", locale),
        ContestPhase.CLOSED: _("The contest is closed.", locale),
    }
    return texts[phase]
