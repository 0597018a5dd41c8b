"""A player's private hand message: its caption, the trick so far, counts and the clock; and
the notes when a player is away or back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.table.counter import CardsOut, cards_out
from app.table.texts.board import deal_result_text, header, match_result_text, tribute_lines
from app.table.texts.words import _, cards_text, play_text, who
from engine.actions import DealEnded, MatchEnded, Phase
from engine.cards import Card, Rank
from engine.observation import Observation
from engine.plays import Play
from engine.rules import CountVisibility, Rules
from render.words import describe_play, is_english, place_name, rank_text, seat_name

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


def seats_line(obs: Observation, names: dict[int, str], rules: Rules, locale: str) -> str:
    """The others at the table, in playing order after the viewer, as the group sees them:
    西 张三 5 张 · 南 李四（对家）＞6 张 · 东 王五 🏁上游. A count the preset's 报牌 rule hides
    is shown as "more than the threshold" (or not at all when counts are never told); ❗ marks
    a seat down to two cards or fewer."""
    assert obs.seat is not None
    parts = []
    for offset in range(1, 4):
        view = obs.seats[(obs.seat + offset) % 4]
        text = who(view.seat, names[view.seat], locale)
        if offset == 2:
            text += _(" (partner)", locale)
        gap = "" if text.endswith("）") else " "  # no space after a full-width bracket
        if view.place is not None:
            text += f"{gap}🏁{place_name(view.place, locale)}"
        elif view.cards_left is not None:
            text += gap + _("{n} cards", locale, n=view.cards_left) + ("❗" if view.cards_left <= 2 else "")
        elif rules.count_visibility is not CountVisibility.NEVER:
            text += gap + _("over {n} cards", locale, n=rules.report_threshold)
        parts.append(text)
    return "🂠 " + " · ".join(parts)


def counter_line(out: CardsOut, locale: str) -> str:
    """🧮 记牌器：大王×2 小王×1 2×6 A×5 … 3×8 配×2: the cards still out, strongest first."""
    counts = [f"{_counter_rank(rank, locale)}×{n}" for rank, n in out.ranks]
    counts.append(_("Wild", locale) + f"×{out.wildcards}")
    return _("🧮 Cards out: {counts}", locale, counts=" ".join(counts))


def _counter_rank(rank: Rank, locale: str) -> str:
    if rank.is_joker and is_english(locale):
        return "BJ" if rank is Rank.SMALL_JOKER else "RJ"
    return rank_text(rank, locale)


def clock_lines(obs: Observation, clock: TurnClockView | None, locale: str) -> list[str]:
    """The turn clock of the seat to act, and the one warning before it runs out."""
    if clock is None or obs.seat not in obs.to_act:
        return []
    lines = [_("⏳ {seconds} s to act", locale, seconds=clock.seconds)]
    if clock.warning is not None:
        then = (
            _("then auto-play takes your seat", locale)
            if clock.last_chance
            else _("then the bot acts for you", locale)
        )
        lines.append(_("⏰ <b>{left} s left</b>: {then}", locale, left=clock.warning, then=then))
    return lines


@dataclass(frozen=True, slots=True)
class TurnClockView:
    """What a hand message says of the seat's turn clock: its length, and (once the warning
    rang) the seconds that were left; ``last_chance``: one more time-out starts 托管."""

    seconds: int
    warning: int | None = None
    last_chance: bool = False


def selection_line(cards: Sequence[Card], found: Sequence[Play], level: Rank, locale: str) -> str:
    """已选：♠9 ♥9 → 对子 9: the selection where the player looks, and what it makes (the
    first reading, as the play button names it; or that it is no play that can go now)."""
    shown = cards_text(cards, locale)
    if found:
        play = describe_play(found[0], level, locale) + (" …" if len(found) > 1 else "")
        return _("Selected: {cards} → {play}", locale, cards=shown, play=play)
    return _("Selected: {cards} → cannot be played now", locale, cards=shown)


def hand_caption(
    *,
    obs: Observation,
    names: dict[int, str],
    rules: Rules,
    locale: str,
    note: str | None,
    clock: TurnClockView | None = None,
    selected: str | None = None,
    autoplay: bool = False,
) -> str:
    """The caption under a player's hand image: the others' counts and places, the play to
    beat, whose turn it is and the turn clock. While 托管 plays for the seat, every look says
    so and how to end it (a one-off note would be gone at the next edit)."""
    assert obs.seat is not None
    me = who(obs.seat, names[obs.seat], locale)
    lines = [header(obs, rules, locale), _("You: {seat}", locale, seat=me)]
    if note:
        lines.append(note)
    if autoplay and obs.phase is not Phase.MATCH_OVER:
        lines.append("🤖 " + _("Auto-play is on; press Cancel auto-play to play again.", locale))
    lines.extend(tribute_lines(obs, names, locale))
    if obs.phase is Phase.TRIBUTE and obs.seat in obs.to_act:
        lines.append(_("Choose your tribute card (your largest).", locale))
        lines.extend(clock_lines(obs, clock, locale))
    elif obs.phase is Phase.RETURN_TRIBUTE and obs.seat in obs.to_act:
        lines.append(_("Choose the card to return.", locale))
        lines.extend(clock_lines(obs, clock, locale))
    elif obs.phase is Phase.PLAY:
        lines.append(seats_line(obs, names, rules, locale))
        if rules.card_counter:
            lines.append(counter_line(cards_out(obs), locale))
        trick = trick_summary(obs, locale)
        if trick:
            lines.append(_("This trick: {plays}", locale, plays=trick))
        to_beat = obs.play_to_beat()
        if to_beat is not None and obs.table_seat is not None:
            previous = play_text(to_beat, obs.level, locale)
            lines.append(
                _(
                    "To beat: {seat}: {play}",
                    locale,
                    seat=who(obs.table_seat, names[obs.table_seat], locale),
                    play=previous,
                )
            )
        if selected:
            lines.append(selected)
        if obs.seat in obs.to_act:
            lines.append(_("👉 <b>Your turn</b>", locale))
            lines.extend(clock_lines(obs, clock, locale))
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


def deal_end_caption(
    *,
    seat: int,
    heading: str,
    names: dict[int, str],
    rules: Rules,
    locale: str,
    result: DealEnded | None,
    match_end: MatchEnded | None,
) -> str:
    """The last caption of a deal's hand message, which has lost its buttons: how the deal
    ended (the finishing order, the levels or points it brought), the seat's own place, and
    the match's result or where the next deal is. ``result`` is None for a deal the match's
    clock cut short; ``heading`` is the deal's :func:`header` as it was played."""
    lines = [heading, _("You: {seat}", locale, seat=who(seat, names[seat], locale))]
    if result is not None:
        lines.append(deal_result_text(result, names, rules, locale))
        place = result.finish_order.index(seat) + 1
        lines.append(_("You finished {place}.", locale, place=place_name(place, locale)))
    if match_end is not None:
        lines.append(match_result_text(match_end, locale))
    else:
        lines.append(_("👇 The next deal is in a new message below.", locale))
    return "\n".join(lines)


def stopped_caption(*, obs: Observation, names: dict[int, str], rules: Rules, locale: str) -> str:
    """The last caption of a hand message whose table was stopped: nobody is to act any more."""
    assert obs.seat is not None
    lines = [
        header(obs, rules, locale),
        _("You: {seat}", locale, seat=who(obs.seat, names[obs.seat], locale)),
    ]
    lines.append(_("The table was stopped.", locale))
    if obs.seat in obs.finish_order:
        place = obs.finish_order.index(obs.seat) + 1
        lines.append(_("You finished {place}.", locale, place=place_name(place, locale)))
    return "\n".join(lines)


def too_many_text(locale: str) -> str:
    """The one notice a flooded chat gets when commands go unanswered (issue 8, finding 4)."""
    return _("Too many commands at once: some were not answered. Please wait a minute.", locale)


# ---------------------------------------------------------------- players gone and back


def away_text(name: str, blocked: bool, locale: str) -> str:
    """The group's one notice that a player is gone (plain text: never sent as HTML)."""
    if blocked:
        return _(
            "{name} blocked the bot and cannot see their cards: the bot plays for them (auto-play)."
            " /start in the private chat with the bot brings the hand back.",
            locale,
            name=name,
        )
    return _(
        "{name} left the group: the bot plays for them (auto-play)."
        " Rejoining the group, or /start in the private chat with the bot, brings the hand back.",
        locale,
        name=name,
    )


def back_note(locale: str) -> str:
    """The caption line of a hand message sent again to a player who came back in 托管."""
    return _("Your hand is back.", locale)


def welcome_back_text(locale: str) -> str:
    """``/start`` from a seated player: the answer before the hand comes again."""
    return _("Welcome back! Your hand follows.", locale)
