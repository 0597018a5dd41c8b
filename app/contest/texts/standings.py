"""Standings and the end: the standings as text, the final places, the list of past contests,
the decided contest, a match's status and the contest's status.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.contest.columns import figures_text, standings_subtitle
from app.contest.texts.card import card_text
from app.contest.texts.words import TEXT_LIMIT, format_title, pair_label, pair_line, phase_text
from app.table.texts import _, escape
from engine.contest import (
    Contest,
    ContestPhase,
    MatchStatus,
    final_places,
)
from engine.contest.families import Column
from engine.contest.standings import (
    Mark,
    PairStatus,
    StandingRow,
    Standings,
    contest_standings,
)
from render.words import is_english

STANDINGS_TEXT_LIMIT = 4000
"""Characters of a standings message: Telegram takes 4096 after parsing the HTML, and the HTML
counted here is never shorter than what it shows. A field of 64 Swiss pairs needs ~4500."""


def standings_text(contest: Contest, locale: str) -> str:
    """The standings picture's columns as text: one line per pair in the format's order (the
    first pairs only when a large field would not fit one message; the picture has them all)."""
    table = contest_standings(contest)
    head = [
        _("📊 <b>{name}</b> — standings", locale, name=escape(contest.name)),
        phase_text(contest, locale),
    ]
    if table.rounds:
        head.append(standings_subtitle(table, locale))
    rows = [_standing_line(table, row, locale) for row in table.rows]
    legend = [_("✓ won ✗ lost ○ bye ⊘ both out … pending", locale)] if Column.MARKS in table.columns else []
    if legend and any(Mark.NO_WINNER in row.marks for row in table.rows):
        legend[0] += _(" = nobody won", locale)
    shown = len(rows)
    while shown and _length([*head, *rows[:shown], "", *legend]) > STANDINGS_TEXT_LIMIT - 80:
        shown -= 1
    more = [_("… and {n} more pairs: see the picture or /contest export.", locale, n=len(rows) - shown)]
    return "\n".join([*head, *rows[:shown], *(more if shown < len(rows) else []), *legend])


def _length(lines: Sequence[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _standing_line(table: Standings, row: StandingRow, locale: str) -> str:
    lot = " 🎲" if row.by_lot else ""
    figures = figures_text(table, row, locale)
    champion = row.status is PairStatus.CHAMPION and row.prize is not None  # the prize says it
    shown = (table.family.is_knockout and not champion) or row.status is PairStatus.WITHDRAWN
    status = f" {_status_word(row.status, locale)}" if shown else ""
    prize = f" 🏅{escape(row.prize)}" if row.prize else ""
    label = pair_label(row.number, locale)
    rank = f"{row.rank}." if table.ranked else "·"  # no rank before any result
    return f"{rank} <b>{label}</b> {escape(row.names)}{lot} — {figures}{status}{prize}"


def _status_word(status: PairStatus, locale: str) -> str:
    texts = {
        PairStatus.ALIVE: _("in", locale),
        PairStatus.OUT: _("out", locale),
        PairStatus.WITHDRAWN: _("withdrew", locale),
        PairStatus.CHAMPION: _("champion", locale),
    }
    return texts[status]


def final_text(contest: Contest, locale: str) -> str:
    lines = [_("🏆 <b>{name}</b> is over. Final places:", locale, name=escape(contest.name))]
    for placing in final_places(contest):
        if placing.prize is None and placing.place > 3:
            continue
        prize = f" — {escape(placing.prize)}" if placing.prize else ""
        lines.append(f"{placing.place}. {pair_line(contest.pair(placing.number), locale)}{prize}")
    return "\n".join(lines)


def contest_list_text(contests: Sequence[Contest], locale: str) -> str:
    """``/contest list``: the group's closed contests, the latest first, with their podium."""
    if not contests:
        return _("No contest has been closed in this group yet.", locale)
    text = _("<b>Past contests</b>", locale)
    for contest in contests:
        closed = contest.closed_at.date().isoformat() if contest.closed_at is not None else ""
        lines = [
            _(
                "🏆 <b>{name}</b> · {date} · {format} · {pairs} pairs",
                locale,
                name=escape(contest.name),
                date=closed,
                format=escape(format_title(contest, locale)),
                pairs=len(contest.pairs),
            )
        ]
        podium = [p for p in final_places(contest) if p.place <= 3]
        if not podium:
            lines.append("    " + _("closed before it was decided", locale))
        for placing in podium:
            prize = escape(placing.prize) if placing.prize else _("No. {place}", locale, place=placing.place)
            colon = ": " if is_english(locale) else "："
            lines.append(f"    {prize}{colon}{pair_line(contest.pair(placing.number), locale)}")
        block = "\n".join(lines)
        if len(text) + len(block) + 3 > TEXT_LIMIT:  # ten contests of long names: the latest ones
            return text + "\n…"
        text += "\n" + block
    return text


def decided_text(contest: Contest, locale: str) -> str:
    return _(
        "🏆 The contest is decided. The organiser closes it with /contest close to fix the final places.",
        locale,
    )


def match_status_word(status: MatchStatus, locale: str) -> str:
    texts = {
        MatchStatus.PENDING: _("no result", locale),
        MatchStatus.REPORTED: _("reported", locale),
        MatchStatus.CONFIRMED: _("confirmed", locale),
        MatchStatus.DISPUTED: _("disputed", locale),
        MatchStatus.DECIDED: _("decided", locale),
    }
    return texts[status]


def status_text(contest: Contest, locale: str) -> str:
    """``/contest``: the card and the current round's matches with their status."""
    lines = [card_text(contest, locale)]
    current = contest.current_round
    if current is not None and contest.phase is not ContestPhase.CLOSED:
        lines.append(_("Round {n}:", locale, n=current.number))
        for match in current.matches:
            a, b = match.pairs
            winner = f" → {pair_label(match.winner, locale)}" if match.winner is not None else ""
            word = match_status_word(match.status, locale)
            pairing = f"{pair_label(a, locale)} v {pair_label(b, locale)}"
            lines.append(f"• {pairing} <code>{match.code}</code> {word}{winner}")
    return "\n".join(lines)


def close_round_question(contest: Contest, locale: str) -> str:
    pending = sum(
        1
        for m in (contest.current_round.matches if contest.current_round else ())
        if m.status is MatchStatus.PENDING
    )
    return _(
        "Close the round now? The {n} matches without a result put both their pairs out.", locale, n=pending
    )
