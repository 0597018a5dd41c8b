"""The score sheet's words (Chinese first): its message, its buttons' labels and its refusals.

Kept apart from :mod:`app.contest.texts` so the sheet's strings do not collide
with the other contest texts being written at the same time. The button labels are part of
the bot's interface (the e2e tests press them by label): keep them stable.
"""

from __future__ import annotations

from typing import assert_never

from app.contest.texts import pair_label, pair_line, table_label
from app.table.texts import _, escape, preset_title
from engine.actions import AAttempt, EndReason
from engine.contest import Contest, ContestMatch
from engine.contest.lots import DrawSeed
from engine.contest.seating import first_leader_draw, marker_card_draw
from engine.contest.sheet import (
    EntryKind,
    LeaderProcedure,
    ScoreSheet,
    SheetEntry,
    SheetRefusal,
    SheetRow,
)
from engine.rules import MatchFormat
from render.words import is_english, rank_text

# ---------------------------------------------------------------- buttons (stable labels)


def team_word(team: int, locale: str) -> str:
    """North–South or East–West, as short as a phone button needs."""
    if is_english(locale):
        return "NS" if team == 0 else "EW"
    return "南北" if team == 0 else "东西"


def outcome_label(team: int, partner_place: int, locale: str) -> str:
    """``南北 双下`` / ``南北 1·3`` / ``南北 1·4`` (en: ``NS 1·2``…): the six deal buttons."""
    if partner_place == 2 and not is_english(locale):
        return f"{team_word(team, locale)} 双下"
    return f"{team_word(team, locale)} 1·{partner_place}"


def open_button_label(match: ContestMatch, locale: str) -> str:
    """The pairing message's button: ``📝 1桌记分`` / ``📝 Table 1 sheet``."""
    return _("📝 Table {n} sheet", locale, n=match.table)


def undo_label(locale: str) -> str:
    return _("↩ Undo", locale)


def time_label(locale: str) -> str:
    return _("⏱ Time up", locale)


def time_out_label(team: int | None, locale: str) -> str:
    """002-A's time-up buttons: which side already had a player out (its tie-break)."""
    if team is None:
        return _("⏱ Time up, nobody out", locale)
    return _("⏱ Time up, {side} had one out", locale, side=team_word(team, locale))


def leader_label(locale: str) -> str:
    return _("🎴 First leader", locale)


def submit_label(locale: str) -> str:
    return _("✅ Submit", locale)


# ---------------------------------------------------------------- the sheet


def sheet_text(contest: Contest, match: ContestMatch, sheet: ScoreSheet, locale: str, note: str = "") -> str:
    """The whole sheet (HTML): the table, both pairs with their seats, every deal with the
    levels (or points) after it, where the match is now, and ``note`` (a first-leader draw)."""
    lines = [
        _(
            "📝 <b>{table}</b> <code>{code}</code> · {name}, round {n}",
            locale,
            table=table_label(match.table, locale),
            code=match.code,
            name=escape(contest.name),
            n=match.round,
        ),
        escape(preset_title(contest.settings.match_preset, locale)),
        f"{team_word(0, locale)} {pair_line(contest.pair(sheet.ns), locale)}",
        f"{team_word(1, locale)} {pair_line(contest.pair(sheet.ew), locale)}",
        "",
    ]
    lines.extend(_row_line(sheet, row, locale) for row in sheet.rows)
    if not sheet.rows:
        lines.append(_("No deal entered yet: after each deal press who went out first.", locale))
    lines.append(_now_line(sheet, locale, eliminates=contest.format.eliminates))
    if note:
        lines.append(note)
    return "\n".join(lines)


def _score(sheet: ScoreSheet, row: SheetRow, locale: str) -> str:
    standing = row.state.standing
    if not sheet.rules.uses_levels:
        return f"{standing.points[0]} : {standing.points[1]}"
    return f"{rank_text(standing.levels[0])} : {rank_text(standing.levels[1])}"


def _row_line(sheet: ScoreSheet, row: SheetRow, locale: str) -> str:
    entry = row.entry
    if entry.kind is EntryKind.TIME_UP:
        return _("⏱ time up during deal {n}", locale, n=row.deal)
    assert entry.team is not None
    extra = _(" (extra deal)", locale) if row.extra else ""
    at = f" @{rank_text(row.level)}" if row.level is not None and sheet.rules.uses_levels else ""
    attempt = _attempt_word(row.a_attempt, locale)
    outcome = outcome_label(entry.team, entry.partner_place, locale)
    line = f"{row.deal}. {outcome}{at} → {_score(sheet, row, locale)}"
    game = ""
    if row.game_won is not None and not row.state.is_decided:
        game = _(" · game {n} to {side}", locale, n=row.game, side=team_word(row.game_won, locale))
    return line + attempt + extra + game


def _attempt_word(attempt: AAttempt | None, locale: str) -> str:
    words = {
        "passed": _(" (passed A)", locale),
        "failed": _(" (A attempt failed)", locale),
        "reset": _(" (third A failure: back to 2)", locale),
    }
    return words.get(attempt or "", "")


def _now_line(sheet: ScoreSheet, locale: str, *, eliminates: bool) -> str:
    state = sheet.state
    if state.is_decided:
        return _decided_line(sheet, locale, eliminates=eliminates)
    parts = [_("Next: deal {n}", locale, n=sheet.deal_in_hand)]
    if sheet.rules.uses_levels:
        parts.append(_("played at {level}", locale, level=rank_text(sheet.level_in_hand)))
    else:
        parts.append(
            _("points {ns} : {ew}", locale, ns=sheet.standing.points[0], ew=sheet.standing.points[1])
        )
    if sheet.rules.match_format is MatchFormat.BEST_OF:
        won = state.games_won
        parts.append(_("game {n}, games {ns} : {ew}", locale, n=sheet.game, ns=won[0], ew=won[1]))
    for team in (0, 1):
        if state.standing.a_failures[team]:
            parts.append(
                _(
                    "{side} failed at A {k}×",
                    locale,
                    side=team_word(team, locale),
                    k=state.standing.a_failures[team],
                )
            )
    if state.sudden_death:
        parts.append(_("tie: extra deals decide", locale))
    elif state.time_expired:
        parts.append(_("time is up: finish this deal", locale))
    return "👉 " + " · ".join(parts)


def _decided_line(sheet: ScoreSheet, locale: str, *, eliminates: bool) -> str:
    state = sheet.state
    assert state.reason is not None  # decided
    reason = reason_word(state.reason, locale)
    if state.winner is None and not eliminates:
        return _(
            "🏁 Nobody won ({reason}): each pair scores the levels it climbed. Press ✅ Submit to report it.",
            locale,
            reason=reason,
        )
    if state.winner is None:
        return _(
            "🏁 Nobody won ({reason}): the organiser records this match with /result.", locale, reason=reason
        )
    return _(
        "🏁 {pair} wins ({reason}). Press ✅ Submit to report it.",
        locale,
        pair=pair_label(sheet.pair_of_team(state.winner), locale),
        reason=reason,
    )


def reason_word(reason: EndReason, locale: str) -> str:
    """How a sheet's match was decided, in words (every reason has its own: mypy checks)."""
    match reason:
        case EndReason.PASSED_A:
            return _("by passing A", locale)
        case EndReason.REACHED_A:
            return _("by reaching A", locale)
        case EndReason.POINTS:
            return _("on points", locale)
        case EndReason.TIME:
            return _("when time ran out", locale)
        case EndReason.BEST_OF:
            return _("on games won", locale)
        case _:
            assert_never(reason)


def submitted_text(contest: Contest, match: ContestMatch, sheet: ScoreSheet, locale: str) -> str:
    """The sheet once its result went to the group (no buttons any more)."""
    done = _("✅ Submitted: the result is in the group.", locale)
    return sheet_text(contest, match, sheet, locale) + "\n" + done


def closed_text(contest: Contest, match: ContestMatch, sheet: ScoreSheet, locale: str) -> str:
    """The sheet of a match that has a result (reported, decided or played through the bot)."""
    done = _("This match already has a result; the sheet is closed.", locale)
    return sheet_text(contest, match, sheet, locale) + "\n" + done


# ---------------------------------------------------------------- the first leader (docs/rules.md §4.9)


def leader_text(seed: DrawSeed, match: ContestMatch, sheet: ScoreSheet, locale: str) -> str:
    """The draw for the next deal, by the rules' procedure: 001-A's face-up card or 002-A's
    mod-4 card turn, reproducible from the contest's published seed."""
    deal = sheet.deal_in_hand
    if sheet.leader_procedure is LeaderProcedure.MARKER_CARD:
        marker = marker_card_draw(seed, match.code, deal)
        return _(
            "🎴 Deal {deal}: turn the card at position {position} from the top face up (翻牌). "
            "Drawing one card each counter-clockwise, player No. {drawer} from the first drawer "
            "draws it and leads.",
            locale,
            deal=deal,
            position=marker.position,
            drawer=marker.drawer,
        )
    turn = first_leader_draw(seed, match.code, deal)
    jokers = _(" ({k} joker(s) turned again)", locale, k=turn.jokers_turned) if turn.jokers_turned else ""
    return _(
        "🎴 Deal {deal}: the turned card is {card}{jokers}; {value} ÷ 4 leaves {rest}, so player "
        "No. {drawer} (the turner is No. 1, counting counter-clockwise) draws first, and whoever "
        "draws the turned card leads.",
        locale,
        deal=deal,
        card=turn.card,
        jokers=jokers,
        value=turn.value,
        rest=turn.value % 4,
        drawer=turn.drawer,
    )


def no_draw_text(sheet: ScoreSheet, locale: str) -> str:
    """The 🎴 button when the next deal's leader is not drawn (tribute or the 上游 decides)."""
    return _(
        "Deal {n} is not drawn: the tribute (or the last deal's first place) decides who leads.",
        locale,
        n=sheet.deal_in_hand,
    )


# ---------------------------------------------------------------- answers


def refusal_text(refusal: SheetRefusal, locale: str) -> str:
    texts = {
        SheetRefusal.DECIDED: _("The match is decided: press ✅ Submit, or ↩ Undo a wrong entry.", locale),
        SheetRefusal.NOT_TIMED: _("This match has no time limit.", locale),
        SheetRefusal.TIME_ALREADY_UP: _("The time is already up on this sheet.", locale),
        SheetRefusal.NOTHING_TO_UNDO: _("Nothing to undo.", locale),
        SheetRefusal.BAD_ENTRY: _("That is not a sheet entry.", locale),
    }
    return texts[refusal]


def stale_text(locale: str) -> str:
    return _("The sheet changed meanwhile: here it is again, press once more.", locale)


def not_recorder_text(locale: str) -> str:
    return _("Only the players of this match or the organiser keep its sheet.", locale)


def not_physical_text(locale: str) -> str:
    return _("This round is played through the bot: its tables score themselves.", locale)


def start_private_text(locale: str) -> str:
    return _("Open a private chat with me and press Start first, then press the sheet button again.", locale)


def refusal_for_result(locale: str) -> str:
    return _("This match already has a result; the sheet is closed.", locale)


def submitted_toast(locale: str) -> str:
    return _("Submitted.", locale)


def sent_text(locale: str) -> str:
    return _("The sheet is in your private chat with the bot.", locale)


def not_decided_text(locale: str) -> str:
    return _("The match is not decided yet: keep entering deals.", locale)


def no_winner_text(locale: str) -> str:
    return _("Nobody won this match: the organiser records it with /result.", locale)


def entered_toast(entry: SheetEntry, locale: str) -> str:
    if entry.kind is EntryKind.UNDO:
        return _("Undone.", locale)
    if entry.kind is EntryKind.TIME_UP:
        return _("Time up noted.", locale)
    assert entry.team is not None
    return _("Entered: {what}", locale, what=outcome_label(entry.team, entry.partner_place, locale))
