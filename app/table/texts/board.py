"""The group board: the public view of a deal (tricks, tribute, places) and the results.

Built from the public observation (``seat=None``) and the public events only.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from app.table.texts.words import N_, _, move_line, place_line, play_text, who
from engine.actions import (
    AAttempt,
    AntiTribute,
    DealEnded,
    DealStarted,
    Event,
    LeaderChosen,
    MatchEnded,
    Passed,
    Phase,
    Played,
    PlayerFinished,
    TrickWon,
)
from engine.cards import Rank
from engine.observation import Observation, TributeView
from engine.rules import MatchFormat, Rules
from render.words import card_text, place_name, rank_text, seat_name, team_name

# ---------------------------------------------------------------- board


TRICK_RULE = "──────────"  # between two tricks on the board


def header(obs: Observation, rules: Rules, locale: str) -> str:
    """第 3 副 · 打 5 · 比分 3:1 (or the teams' levels): the first line of a deal's messages."""
    return deal_header(obs.deal_number, obs.level, obs.team_levels, obs.points, rules, locale)


def played_header(match_events: Sequence[Event], result: DealEnded, rules: Rules, locale: str) -> str:
    """The header a finished deal's board had while it was played (``match_events``: the match's)."""
    started = next(
        e for e in match_events if isinstance(e, DealStarted) and e.deal_number == result.deal_number
    )
    earlier = [e for e in match_events if isinstance(e, DealEnded) and e.deal_number < result.deal_number]
    points = (sum(e.points[0] for e in earlier), sum(e.points[1] for e in earlier))
    return deal_header(result.deal_number, started.level, result.levels_before, points, rules, locale)


def deal_header(
    number: int, level: Rank, team_levels: Sequence[Rank], points: Sequence[int], rules: Rules, locale: str
) -> str:
    deal = _("Deal {number}", locale, number=number)
    playing = _("playing {rank}", locale, rank=rank_text(level, locale))
    if rules.match_format is MatchFormat.POINTS:
        score = _("points {a}:{b}", locale, a=points[0], b=points[1])
    else:
        score = " / ".join(f"{team_name(i, locale)} {rank_text(team_levels[i], locale)}" for i in (0, 1))
    return f"🃏 <b>{deal}</b> · {playing} · {score}"


def board_text(
    *,
    obs: Observation,
    events: Sequence[Event],
    names: dict[int, str],
    rules: Rules,
    locale: str,
    first: int = 0,
    autoplay: Collection[int] = (),
) -> str:
    """The live board message: every play of tricks ``first`` through the current one, then whose turn.

    ``events`` are the deal's public events; the deal's opening (tributes, who leads) goes
    with its first trick.
    """
    lines = [header(obs, rules, locale)]
    if first == 0:
        lines.extend(tribute_lines(obs, names, locale))
        lines.extend(anti_tribute_lines(events, names, locale))
    for block in trick_blocks(events, obs.level, names, locale)[first:]:
        lines.extend(block)
    lines.extend(status_lines(obs, names, locale, autoplay))
    return "\n".join(lines)


def tribute_lines(obs: Observation, names: dict[int, str], locale: str) -> list[str]:
    return [exchange_line(view, names, locale) for view in obs.tributes]


def exchange_line(tribute: TributeView, names: dict[int, str], locale: str) -> str:
    """进贡 or 还贡 as the group sees it (🂠 for a card it may not see)."""
    card = card_text(tribute.card, locale) if tribute.card is not None else "🂠"
    message = (
        N_("Return: {giver} → {receiver} {card}")
        if tribute.is_return
        else N_("Tribute: {giver} → {receiver} {card}")
    )
    return _(
        message,
        locale,
        giver=who(tribute.giver, names[tribute.giver], locale),
        receiver=who(tribute.receiver, names[tribute.receiver], locale),
        card=card,
    )


def anti_tribute_lines(events: Sequence[Event], names: dict[int, str], locale: str) -> list[str]:
    lines = []
    for event in events:
        if isinstance(event, AntiTribute):
            seats = "、".join(who(s, names[s], locale) for s in event.seats)
            lines.append(_("Anti-tribute! {seats} hold both red jokers: no tribute.", locale, seats=seats))
    return lines


def trick_blocks(events: Sequence[Event], level: Rank, names: dict[int, str], locale: str) -> list[list[str]]:
    """The deal's tricks as lines, one block per trick: a rule, who leads (first trick),
    every play and pass in order (🏁 on the play that took a player out), and ``✔`` with
    the winner once the trick is won. The last block is the trick in play (maybe empty).
    """
    blocks: list[list[str]] = [[TRICK_RULE]]
    last_play: Played | None = None  # the latest play of the trick, whose player may go out with it
    for event in events:
        lines = blocks[-1]
        if isinstance(event, LeaderChosen):
            lines.append(_("{seat} leads", locale, seat=who(event.seat, names[event.seat], locale)))
        elif isinstance(event, Played):
            last_play = event
            lines.append(
                move_line(event.seat, names[event.seat], play_text(event.play, level, locale), locale)
            )
        elif isinstance(event, Passed):
            lines.append(move_line(event.seat, names[event.seat], _("pass", locale), locale))
        elif isinstance(event, PlayerFinished) and last_play is not None and last_play.seat == event.seat:
            lines[-1] += f" 🏁 {place_name(event.place, locale)}"
        elif isinstance(event, TrickWon):
            note = _(" (partner takes over)", locale) if event.jiefeng else ""
            seat = who(event.seat, names[event.seat], locale)
            lines.append("✔ " + _("Trick won by {seat}", locale, seat=seat) + note)
            blocks.append([TRICK_RULE])
            last_play = None
    return blocks


def finished_board_text(
    *,
    heading: str,
    events: Sequence[Event],
    first: int,
    last: int,
    tributes: Sequence[TributeView],
    names: dict[int, str],
    locale: str,
) -> str:
    """A board message once play has moved on: the deal's ``heading`` (its :func:`header`, kept
    through every edit), every play of its tricks ``first``..``last`` and who won each (no turn
    line). ``tributes`` are the deal's exchanges as the group sees them."""
    started = next(e for e in events if isinstance(e, DealStarted))
    lines = [heading]
    if first == 0:
        lines.extend(exchange_line(view, names, locale) for view in tributes)
        lines.extend(anti_tribute_lines(events, names, locale))
    for block in trick_blocks(events, started.level, names, locale)[first : last + 1]:
        lines.extend(block)
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
        lines.append(place_line(place, seat, names[seat], locale))
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


def stopped_board_text(board: str, locale: str) -> str:
    """A stopped table's last board message: its plays as they were, then that it was stopped."""
    return f"{board}\n⏹ {_('The table was stopped.', locale)}"


def moved_board_text(locale: str) -> str:
    """A board message left by an older run whose deal goes on in a new message below."""
    return _("⏬ This deal's board goes on in a new message below.", locale)


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


def a_attempt_text(attempt: AAttempt, locale: str) -> str:
    """打 A: passed, failed, or back to 2 after too many failures."""
    message = {
        "passed": N_("A passed!"),
        "failed": N_("The attempt at A failed."),
        "reset": N_("Too many failures at A: back to 2."),
    }.get(attempt, N_("A attempt: {result}"))
    return _(message, locale, result=attempt)


def closing_board_text(
    *,
    heading: str,
    events: Sequence[Event],
    result: DealEnded,
    first: int,
    tributes: Sequence[TributeView],
    names: dict[int, str],
    locale: str,
) -> str:
    """The last board message of a finished deal: every play from trick ``first`` on, and the places."""
    last = sum(isinstance(e, TrickWon) for e in events)
    lines = [
        finished_board_text(
            heading=heading,
            events=events,
            first=first,
            last=last,
            tributes=tributes,
            names=names,
            locale=locale,
        )
    ]
    for place, seat in enumerate(result.finish_order, start=1):
        lines.append(place_line(place, seat, names[seat], locale))
    return "\n".join(lines)


def match_result_text(result: MatchEnded, locale: str) -> str:
    if result.winner_team is None:
        return _("🏆 <b>The match is drawn.</b>", locale)
    return _("🏆 <b>{team} win the match!</b>", locale, team=team_name(result.winner_team, locale))
