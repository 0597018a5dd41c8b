"""The lobby's texts: who sits where, the rules in brief, 不洗牌 explained."""

from __future__ import annotations

from app.table.texts.words import _, colon, escape, joined, preset_title, who
from engine.dealing import CUT_MIN, DECK_SIZE, PACKET
from engine.rules import MatchFormat, Rules, ShuffleProcedure
from render.words import seat_name, team_name

# ---------------------------------------------------------------- lobby


def lobby_text(*, names: dict[int, str], preset: str, rules: Rules, locale: str) -> str:
    lines = [_("<b>Guandan table</b> — rules: {preset}", locale, preset=escape(preset_title(preset, locale)))]
    lines.append(format_summary(rules, locale))
    if rules.spectators_follow_hands:  # the players know before they sit
        lines.append(_("👁 Spectators may follow one seat's hand, a trick behind.", locale))
    for team in (0, 1):
        seats = [seat for seat in range(4) if seat % 2 == team]
        members = joined(
            (
                who(seat, names[seat], locale) if seat in names else f"{seat_name(seat, locale)} —"
                for seat in seats
            ),
            locale,
        )
        lines.append(f"{team_name(team, locale)}{colon(locale)}{members}")
    lines.append(_("Take a seat, add AI players, then start. Partners sit opposite each other.", locale))
    return "\n".join(lines)


def format_summary(rules: Rules, locale: str) -> str:
    if rules.match_format is MatchFormat.POINTS:
        text = _("{deals} scored deals", locale, deals=rules.points_deals)
    elif rules.match_format is MatchFormat.BEST_OF:
        text = _("best of {games} games", locale, games=rules.best_of)
    else:
        text = _("levels 2 to A", locale)
    if rules.turn_seconds:
        text += " · " + _("{seconds} s per play", locale, seconds=rules.turn_seconds)
    if rules.shuffle is ShuffleProcedure.NONE:
        text += " · " + _("no shuffle", locale)
    return text


def no_shuffle_text(locale: str) -> str:
    """How a 不洗牌 deal is dealt, exactly (engine.dealing), for /rules."""
    return _(
        "<b>No shuffle</b> (<code>shuffle=none</code>): every deal after the first is dealt from "
        "the last deal's cards. The cards played are stacked in the order they were played, the "
        "first play at the bottom; the cards left in hands go on top, hand by hand in finishing "
        "order, each sorted. The stack is cut once ({low} to {high} cards from the top go underneath), "
        "never shuffled, and dealt from the top {packet} cards at a time, counter-clockwise, the "
        "last deal's last player first. Played bombs and runs come back together.",
        locale,
        packet=PACKET,
        low=CUT_MIN,
        high=DECK_SIZE - CUT_MIN,
    )
