"""Every sentence the bot writes, built for one locale passed in explicitly.

Words shared with the images (play kinds, seats, places, cards) come from
:mod:`render.words`; whole sentences come from the gettext catalogs. Nothing here
reads a hand other than the viewer's own: the group board is built from the
public observation (``seat=None``) and the public events.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable, Sequence

from engine.actions import (
    AntiTribute,
    DealEnded,
    DealStarted,
    Event,
    LeaderChosen,
    MatchEnded,
    Passed,
    Phase,
    Played,
    TrickWon,
)
from engine.cards import Card, Rank
from engine.observation import Observation
from engine.plays import Play
from engine.rules import PRESETS, MatchFormat, Rules
from handlers.i18n import translator
from render.words import card_text, describe_play, place_name, rank_text, seat_name, team_name


def _(message: str, locale: str, **values: object) -> str:
    """Translate ``message`` into ``locale`` and fill its ``{named}`` fields."""
    text = translator(locale).gettext(message)
    return text.format(**values) if values else text


def N_(message: str) -> str:
    """Mark a message for extraction where it is chosen before it is translated."""
    return message


def cards_text(cards: Iterable[Card], locale: str) -> str:
    return " ".join(card_text(card, locale) for card in cards)


def play_text(play: Play, level: Rank, locale: str) -> str:
    """A play on the board: its kind and its (now public) cards."""
    return f"{describe_play(play, level, locale)}  {cards_text(play.cards, locale)}"


def who(seat: int, name: str, locale: str) -> str:
    return f"{seat_name(seat, locale)} {html.escape(name)}"


def preset_title(name: str, locale: str) -> str:
    preset = PRESETS.get(name)
    if preset is None:
        return name
    return preset.title_en if locale.startswith("en") else preset.title_zh


# ---------------------------------------------------------------- errors


def error_text(code: str, locale: str) -> str:
    """Refusals shown as alerts; ``code`` comes from TableError or the play checks."""
    messages = {
        "no_table": _("There is no active table here. Start one with /newgame.", locale),
        "table_exists": _("This group already has a table. /stop ends it.", locale),
        "unknown_preset": _("Unknown preset. /rules lists them.", locale),
        "unknown_setting": _("Unknown rule setting.", locale),
        "bad_setting": _("That rule setting has an invalid value.", locale),
        "seat_taken": _("That seat is taken.", locale),
        "table_full": _("All four seats are taken.", locale),
        "not_seated": _("You are not seated at this table.", locale),
        "seats_missing": _("Fill all four seats first (add AI players if needed).", locale),
        "table_not_lobby": _("The match has already started.", locale),
        "table_not_playing": _("The match is not being played.", locale),
        "not_allowed": _("Only the table's creator or a group admin can do that.", locale),
        "stale": _("These buttons are out of date; use the newest message.", locale),
        "bad_button": _("This button is not valid.", locale),
        "not_your_turn": _("It is not your turn yet", locale),
        "empty": _("Select cards first, or press Hint.", locale),
        "no_such_play": _("These cards do not form a valid play", locale),
        "must_lead": _("You lead this trick: you cannot pass", locale),
        "no_hint": _("Nothing can beat it: pass", locale),
        "private_only": _("Use this in the private chat with the bot.", locale),
        "group_only": _("Use this in a group.", locale),
        "open_private": _("Open the private chat with the bot first, then you will be seated.", locale),
    }
    return messages.get(code, _("That is not possible right now.", locale))


def cannot_beat(previous: Play, level: Rank, locale: str) -> str:
    """打不过上家的 ♠9: names the play that must be beaten."""
    shown = (
        cards_text(previous.cards, locale) if previous.size <= 3 else describe_play(previous, level, locale)
    )
    return _("Does not beat the previous play {play}", locale, play=shown)


# ---------------------------------------------------------------- lobby


def lobby_text(*, names: dict[int, str], preset: str, rules: Rules, locale: str) -> str:
    lines = [
        _("<b>Guandan table</b> — rules: {preset}", locale, preset=html.escape(preset_title(preset, locale)))
    ]
    lines.append(format_summary(rules, locale))
    for team in (0, 1):
        seats = [seat for seat in range(4) if seat % 2 == team]
        members = ", ".join(
            who(seat, names[seat], locale) if seat in names else f"{seat_name(seat, locale)} —"
            for seat in seats
        )
        lines.append(f"{team_name(team, locale)}: {members}")
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
    return text


# ---------------------------------------------------------------- board


def header(obs: Observation, rules: Rules, locale: str) -> str:
    deal = _("Deal {number}", locale, number=obs.deal_number)
    level = _("playing {rank}", locale, rank=rank_text(obs.level, locale))
    if rules.match_format is MatchFormat.POINTS:
        score = _("points {a}:{b}", locale, a=obs.points[0], b=obs.points[1])
    else:
        score = " / ".join(f"{team_name(i, locale)} {rank_text(obs.team_levels[i], locale)}" for i in (0, 1))
    return f"🃏 <b>{deal}</b> · {level} · {score}"


def board_text(
    *,
    obs: Observation,
    events: Sequence[Event],
    names: dict[int, str],
    rules: Rules,
    locale: str,
    autoplay: Collection[int] = (),
) -> str:
    """The live board of the current trick: plays, tributes, counts, places, whose turn."""
    lines = [header(obs, rules, locale)]
    lines.extend(tribute_lines(obs, names, locale))
    lines.extend(trick_lines(events, obs.level, names, locale))
    lines.extend(status_lines(obs, names, locale, autoplay))
    return "\n".join(lines)


def tribute_lines(obs: Observation, names: dict[int, str], locale: str) -> list[str]:
    lines = []
    for tribute in obs.tributes:
        card = card_text(tribute.card, locale) if tribute.card is not None else "🂠"
        message = (
            "Return: {giver} → {receiver} {card}"
            if tribute.is_return
            else "Tribute: {giver} → {receiver} {card}"
        )
        lines.append(
            _(
                message,
                locale,
                giver=who(tribute.giver, names[tribute.giver], locale),
                receiver=who(tribute.receiver, names[tribute.receiver], locale),
                card=card,
            )
        )
    return lines


def trick_lines(events: Sequence[Event], level: Rank, names: dict[int, str], locale: str) -> list[str]:
    """This deal's leader and anti-tribute notes, the last trick's winner, this trick's plays."""
    start = 0
    lines: list[str] = []
    for i, event in enumerate(events):
        if isinstance(event, TrickWon):
            start = i + 1
    for event in events:
        if isinstance(event, AntiTribute):
            seats = "、".join(who(s, names[s], locale) for s in event.seats)
            lines.append(_("Anti-tribute! {seats} hold both red jokers: no tribute.", locale, seats=seats))
    won = [e for e in events[:start] if isinstance(e, TrickWon)]
    if won:
        last = won[-1]
        note = _(" (partner takes over)", locale) if last.jiefeng else ""
        lines.append(_("Last trick: {seat}", locale, seat=who(last.seat, names[last.seat], locale)) + note)
    lines.append("──────────")
    for event in events[start:]:
        if isinstance(event, LeaderChosen):
            lines.append(_("{seat} leads", locale, seat=who(event.seat, names[event.seat], locale)))
        elif isinstance(event, Played):
            lines.append(
                f"{who(event.seat, names[event.seat], locale)}: {play_text(event.play, level, locale)}"
            )
        elif isinstance(event, Passed):
            lines.append(_("{seat}: pass", locale, seat=who(event.seat, names[event.seat], locale)))
    return lines


def finished_trick_text(
    events: Sequence[Event], trick: int, names: dict[int, str], locale: str
) -> str | None:
    """A trick's board once it is over: its plays and who won it (no turn line).

    ``trick`` counts the tricks already won in the deal before it; None if it is not over.
    """
    won = [i for i, event in enumerate(events) if isinstance(event, TrickWon)]
    started = next((e for e in events if isinstance(e, DealStarted)), None)
    if trick >= len(won) or started is None:
        return None
    end = won[trick]
    winner = events[end]
    assert isinstance(winner, TrickWon)
    deal = _("Deal {number}", locale, number=started.deal_number)
    playing = _("playing {rank}", locale, rank=rank_text(started.level, locale))
    lines = [f"🃏 <b>{deal}</b> · {playing}"]
    lines.extend(trick_lines(events[:end], started.level, names, locale))
    lines.append("✔ " + _("Trick won by {seat}", locale, seat=who(winner.seat, names[winner.seat], locale)))
    return "\n".join(lines)


def status_lines(
    obs: Observation, names: dict[int, str], locale: str, autoplay: Collection[int]
) -> list[str]:
    lines = []
    counts = [
        f"{seat_name(view.seat, locale)} {view.cards_left}"
        for view in obs.seats
        if view.cards_left is not None and view.place is None
    ]
    if counts:
        lines.append(_("Cards left: {counts}", locale, counts=" · ".join(counts)))
    for place, seat in enumerate(obs.finish_order, start=1):
        lines.append(f"🏁 {place_name(place, locale)}: {who(seat, names[seat], locale)}")
    if autoplay:
        seats = " ".join(seat_name(seat, locale) for seat in sorted(autoplay))
        lines.append(_("Auto-play: {seats}", locale, seats=seats))
    if obs.to_act and obs.phase is not Phase.MATCH_OVER:
        turn = "、".join(who(s, names[s], locale) for s in obs.to_act)
        key = {
            Phase.TRIBUTE: N_("⏳ Tribute from {seats}"),
            Phase.RETURN_TRIBUTE: N_("⏳ Return from {seats}"),
        }.get(obs.phase, N_("⏳ Turn: {seats}"))
        lines.append(_(key, locale, seats=turn))
    return lines


def deal_result_text(result: DealEnded, names: dict[int, str], rules: Rules, locale: str) -> str:
    order = " → ".join(who(seat, names[seat], locale) for seat in result.finish_order)
    lines = [_("<b>Deal {number} over</b>", locale, number=result.deal_number), order]
    winners = team_name(result.winner_team, locale)
    if rules.match_format is MatchFormat.POINTS:
        lines.append(
            _(
                "This deal: {team0} {a} : {b} {team1}",
                locale,
                team0=team_name(0, locale),
                team1=team_name(1, locale),
                a=result.points[0],
                b=result.points[1],
            )
        )
    else:
        before = rank_text(result.levels_before[result.winner_team], locale)
        after = rank_text(result.levels_after[result.winner_team], locale)
        lines.append(
            _(
                "{team} up {n}: {before} → {after}",
                locale,
                team=winners,
                n=result.levels_gained,
                before=before,
                after=after,
            )
        )
    if result.a_attempt is not None:
        lines.append(a_attempt_text(result.a_attempt, locale))
    return "\n".join(lines)


def a_attempt_text(attempt: str, locale: str) -> str:
    """打 A: passed, failed, or back to 2 after too many failures."""
    message = {
        "passed": N_("A passed!"),
        "failed": N_("The attempt at A failed."),
        "reset": N_("Too many failures at A: back to 2."),
    }.get(attempt, N_("A attempt: {result}"))
    return _(message, locale, result=attempt)


def closing_board_text(events: Sequence[Event], result: DealEnded, names: dict[int, str], locale: str) -> str:
    """The board's last state for a finished deal: its last trick and the places."""
    started = next(e for e in events if isinstance(e, DealStarted))
    deal = _("Deal {number}", locale, number=result.deal_number)
    playing = _("playing {rank}", locale, rank=rank_text(started.level, locale))
    lines = [f"🃏 <b>{deal}</b> · {playing}"]
    lines.extend(
        trick_lines([e for e in events if not isinstance(e, DealEnded)], started.level, names, locale)
    )
    for place, seat in enumerate(result.finish_order, start=1):
        lines.append(f"🏁 {place_name(place, locale)}: {who(seat, names[seat], locale)}")
    return "\n".join(lines)


def match_result_text(result: MatchEnded, locale: str) -> str:
    if result.winner_team is None:
        return _("🏆 <b>The match is drawn.</b>", locale)
    return _("🏆 <b>{team} win the match!</b>", locale, team=team_name(result.winner_team, locale))


# ---------------------------------------------------------------- private hand


def trick_summary(obs: Observation, locale: str) -> str:
    """The others' moves in the current trick, in playing order after the viewer: 西 顺子 3-7 · 南 不出."""
    assert obs.seat is not None
    moves = []
    for offset in range(1, 4):
        view = obs.seats[(obs.seat + offset) % 4]
        if view.last_action is not None:
            moves.append(
                f"{seat_name(view.seat, locale)} {describe_play(view.last_action, obs.level, locale)}"
            )
        elif view.passed:
            passed = _("pass", locale)
            moves.append(f"{seat_name(view.seat, locale)} {passed}")
    return " · ".join(moves)


def hand_caption(
    *, obs: Observation, names: dict[int, str], rules: Rules, locale: str, note: str | None
) -> str:
    """The caption under a player's hand image: the play to beat and whose turn it is."""
    assert obs.seat is not None
    me = who(obs.seat, names[obs.seat], locale)
    lines = [header(obs, rules, locale), _("You: {seat}", locale, seat=me)]
    if note:
        lines.append(note)
    lines.extend(tribute_lines(obs, names, locale))
    if obs.phase is Phase.TRIBUTE and obs.seat in obs.to_act:
        lines.append(_("Choose your tribute card (your largest).", locale))
    elif obs.phase is Phase.RETURN_TRIBUTE and obs.seat in obs.to_act:
        lines.append(_("Choose the card to return.", locale))
    elif obs.phase is Phase.PLAY:
        trick = trick_summary(obs, locale)
        if trick:
            lines.append(_("This trick: {plays}", locale, plays=trick))
        if obs.table_play is not None and obs.table_seat is not None and obs.table_seat != obs.seat:
            previous = play_text(obs.table_play, obs.level, locale)
            lines.append(
                _(
                    "To beat: {seat}: {play}",
                    locale,
                    seat=who(obs.table_seat, names[obs.table_seat], locale),
                    play=previous,
                )
            )
        if obs.seat in obs.to_act:
            lines.append(_("👉 <b>Your turn</b>", locale))
        elif obs.to_act:
            lines.append(
                _("Waiting for {seat}", locale, seat=who(obs.to_act[0], names[obs.to_act[0]], locale))
            )
    elif obs.phase is Phase.MATCH_OVER:
        lines.append(_("The match is over.", locale))
    if obs.seat in obs.finish_order:
        place = obs.finish_order.index(obs.seat) + 1
        lines.append(_("You finished {place}.", locale, place=place_name(place, locale)))
    return "\n".join(lines)
