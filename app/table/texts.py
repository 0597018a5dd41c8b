"""Every sentence the bot writes, built for one locale passed in explicitly.

Words shared with the images (play kinds, seats, places, cards) come from
:mod:`render.words`; whole sentences come from the gettext catalogs. Nothing here
reads a hand other than the viewer's own: the group board is built from the
public observation (``seat=None``) and the public events.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from app.i18n import translator
from app.table.counter import CardsOut, cards_out
from app.table.refusals import TableRefusal
from app.table.settings import SettingProblem
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
from engine.cards import Card, Rank
from engine.dealing import CUT_MIN, DECK_SIZE, PACKET
from engine.names import clean_name
from engine.observation import Observation, TributeView
from engine.plays import Play
from engine.rules import PRESETS, CountVisibility, MatchFormat, Rules, Setting, SettingKind, ShuffleProcedure
from render.words import card_text, describe_play, is_english, place_name, rank_text, seat_name, team_name


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


def escape(value: object) -> str:
    """Whatever a person chose (a name, a title, a typed value) as text inside an HTML message.

    Every builder of HTML here passes such text through this, so ``<b>x`` or ``&`` in a
    name shows as typed instead of becoming markup or making Telegram refuse the message; bidi
    controls and zero-width characters are removed (:mod:`engine.names`), so a name stored
    before they were refused cannot turn the rest of a line around either.
    """
    return html.escape(clean_name(str(value)), quote=False)


def who(seat: int, name: str, locale: str) -> str:
    return f"{seat_name(seat, locale)} {escape(name)}"


def preset_title(name: str, locale: str) -> str:
    preset = PRESETS.get(name)
    if preset is None:
        return name
    return preset.title_en if locale.startswith("en") else preset.title_zh


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
        case TableRefusal.NO_WATCH_HAND:
            return _("This table shows spectators no player's hand.", locale)
        case _:
            assert_never(code)


def restored_text(locale: str) -> str:
    """What a hand message from before a restart (or a restore) says, as its last caption and as
    the answer to a press on its buttons: the seat's hand is in a new message below it."""
    return _("♻️ This table was restored: use the new message below.", locale)


def error_text(code: str, locale: str) -> str:
    """Refusals shown as alerts; ``code`` comes from TableError or the play checks (a code that
    names no :class:`TableRefusal`, such as a play check's own, gets the generic text)."""
    try:
        refusal = TableRefusal(code)
    except ValueError:
        return _("That is not possible right now.", locale)
    return refusal_text(refusal, locale)


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
    code, name = problem.code, problem.name
    if code == "unknown_preset":
        text = _("Unknown preset “{name}”. /rules lists them.", locale, name=name)
    elif code == "unknown_setting":
        text = _("Unknown rule setting “{name}”.", locale, name=name)
    elif code == "setting_syntax":
        return _("Write each setting as name=value, e.g. turn_seconds=20 (not “{word}”).", locale, word=name)
    elif code == "too_many_settings":
        return _("Too many settings: give each setting once.", locale)
    else:
        assert problem.setting is not None
        allowed = setting_allowed(problem.setting, locale)
        text = _("{name} must be {allowed}.", locale, name=name, allowed=allowed)
        if code == "setting_too_long":
            text = _("That value is too long.", locale) + sentence_gap(locale) + text
    if problem.suggestions:
        names = joined(problem.suggestions, locale)
        text += sentence_gap(locale) + _("Did you mean: {names}?", locale, names=names)
    return text


def sentence_gap(locale: str) -> str:
    """Between two sentences: a space in English, nothing after Chinese full stops."""
    return " " if locale.startswith("en") else ""


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


def move_line(seat: int, name: str, move: str, locale: str) -> str:
    """名字：顺子 … / Name: Straight …: one separator for plays and passes (full-width in Chinese)."""
    return f"{who(seat, name, locale)}{colon(locale)}{move}"


def colon(locale: str) -> str:
    return ": " if locale.startswith("en") else "："


def joined(items: Iterable[str], locale: str) -> str:
    """A list in a sentence: ``a, b`` in English, ``a、b`` in Chinese (full-width, issue 20.10)."""
    return (", " if locale.startswith("en") else "、").join(items)


def bracketed(text: str, locale: str) -> str:
    """An aside: `` (25%)`` in English, ``（25%）`` in Chinese."""
    return f" ({text})" if locale.startswith("en") else f"（{text}）"


def place_line(place: int, seat: int, name: str, locale: str) -> str:
    """🏁 上游：名字."""
    return f"🏁 {place_name(place, locale)}{colon(locale)}{who(seat, name, locale)}"


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
