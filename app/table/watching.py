"""观战: what a spectator's private message says, built from public values only (no Telegram).

A spectator follows a running table in the private chat, in one message edited as the table
plays. While a deal is played the message shows exactly what the group's board shows — its
plays, the counts as the table's 报牌 rule shows them, who finished, the levels — because it
is built from the same public observation (``observe(match, None)``) and the deal's public
events. Each deal has its own message; its last look adds the deal's hands
(:class:`EndedHands`), and :func:`spectator_text` refuses hands of a deal that is not over.

Where the table allows it (``Rules.spectators_follow_hands``), a spectator may follow one
seat's hand a trick behind: :func:`hand_before_trick` turns that seat's observation into the
hand it held when the trick in play began, the one thing of a seat's own observation a look
ever carries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.table.results import public_tributes
from app.table.texts import (
    _,
    board_text,
    cards_text,
    closing_board_text,
    colon,
    escape,
    finished_board_text,
    header,
    played_header,
    trick_blocks,
    who,
)
from engine.actions import DealEnded, DealStarted, Event, Phase
from engine.cards import Card, Rank, sort_hand
from engine.observation import Observation
from engine.rules import Rules

TEXT_LIMIT = 4096  # characters in one message
MAX_NAMES = 8  # names on the watchers' line; more are counted
MAX_SPECTATORS = 20
"""Spectators one table takes: each costs an edit per look, so a crowd would spend the token's
second on one table (bench/load.py --spectators measures three a table)."""


@dataclass(frozen=True, slots=True)
class EndedHands:
    """The four hands of a deal that is over, as dealt (before the tribute), sorted at its level."""

    deal_number: int
    level: Rank
    hands: tuple[tuple[Card, ...], ...]


def hands_after_deal(rules: Rules) -> bool:
    """Whether a spectator sees a deal's hands as soon as it is over: not where the rules hide
    hands (:attr:`engine.rules.Rules.hides_hands`, 不洗牌), which shows them once the match is over."""
    return not rules.hides_hands


@dataclass(frozen=True, slots=True)
class SeatHand:
    """One seat's hand as it was when the trick in play began (:func:`hand_before_trick`)."""

    seat: int
    trick: int  # the deal's trick in play, from 0
    cards: tuple[Card, ...]


def hand_before_trick(obs: Observation) -> SeatHand | None:
    """The seat's hand when the trick in play began: its cards now and those it has played in
    this trick (public on the board), never its hand as it stands. None outside the play
    (tribute, returns, a deal over): no trick has begun, and the hand is changing hands."""
    assert obs.seat is not None, "a seat's own observation"
    if obs.phase is not Phase.PLAY:
        return None
    history = obs.history
    trick = 0 if not history else history[-1].trick + (1 if obs.table_play is None else 0)
    played = [
        card
        for turn in history
        if turn.trick == trick and turn.seat == obs.seat and turn.play
        for card in turn.play.cards
    ]
    return SeatHand(obs.seat, trick, tuple(sort_hand([*obs.hand, *played], obs.level)))


def seat_hand_lines(hand: SeatHand, names: dict[int, str], locale: str) -> list[str]:
    """The followed seat's hand a trick behind, under a heading that says when it was taken."""
    seat = who(hand.seat, names.get(hand.seat, ""), locale)
    heading = _(
        "<b>👁 {seat}: the hand before trick {number} ({count} cards)</b>",
        locale,
        seat=seat,
        number=hand.trick + 1,
        count=len(hand.cards),
    )
    return [heading, cards_text(hand.cards, locale) if hand.cards else _("(no cards left)", locale)]


def watchers_line(names: Sequence[str], locale: str, following: Sequence[str] = ()) -> str:
    """👀 观战：张三、李四 (the first :data:`MAX_NAMES`, then how many more); "" for nobody.
    ``following``: the seats whose hands some spectator follows a trick behind, so the
    players know (👁 看牌：南 李四)."""
    if not names:
        return ""
    shown = "、".join(escape(name) for name in names[:MAX_NAMES])
    more = len(names) - MAX_NAMES
    if more > 0:
        shown += _(" and {count} more", locale, count=more)
    line = _("👀 Watching: {names}", locale, names=shown)
    if following:
        line += "\n" + _("👁 Hands followed a trick behind: {seats}", locale, seats="、".join(following))
    return line


def hands_lines(ended: EndedHands, names: dict[int, str], locale: str) -> list[str]:
    """The hands of a finished deal, one seat a line."""
    lines = [_("<b>Deal {number}: the hands as dealt</b>", locale, number=ended.deal_number)]
    for seat, hand in enumerate(ended.hands):
        lines.append(f"{who(seat, names.get(seat, ''), locale)}{colon(locale)}{cards_text(hand, locale)}")
    return lines


@dataclass(frozen=True, slots=True)
class SpectatorView:
    """One deal as a spectator's message shows it, taken under the table's lock: the deal in
    play (live), or a deal that just ended (its last look, before the next deal's message)."""

    obs: Observation  # the public observation (seat None) when it was taken
    events: tuple[Event, ...]  # the deal's public events
    match_events: tuple[Event, ...]  # the match's events (a finished deal's header); () while in play
    names: dict[int, str]
    rules: Rules
    hands: EndedHands | None = None  # the deal's hands, once it is over and they may be shown
    stopped: bool = False  # the table was stopped (/stop)
    followed: tuple[SeatHand, ...] = ()  # the followed seats' hands a trick behind (deal in play)

    @property
    def deal_number(self) -> int:
        started = next((e for e in self.events if isinstance(e, DealStarted)), None)
        return started.deal_number if started is not None else self.obs.deal_number

    @property
    def result(self) -> DealEnded | None:
        return next((e for e in self.events if isinstance(e, DealEnded)), None)

    @property
    def final(self) -> bool:
        """Watching ends with this look: the match is over or the table was stopped."""
        return self.stopped or self.obs.phase is Phase.MATCH_OVER

    @property
    def over(self) -> bool:
        """No card of this deal is in play any more."""
        return self.final or self.result is not None


def spectator_text(view: SpectatorView, locale: str, seat: int | None = None) -> str:
    """The spectator's message of one deal: a title, the deal as the board shows it (its latest
    tricks when the whole deal would be too long), and its hands once it is over; while it is
    played, the hand of the ``seat`` the spectator follows, a trick behind."""
    if view.hands is not None:
        assert view.over and view.hands.deal_number == view.deal_number, "hands only of a deal that is over"
    title = _("👀 You are watching this table.", locale)
    if view.stopped:
        title = _("👀 Watching has ended: the table was stopped.", locale)
    elif view.obs.phase is Phase.MATCH_OVER:
        title = _("👀 Watching has ended: the match is over.", locale)
    tail = hands_lines(view.hands, view.names, locale) if view.hands is not None else []
    followed = next((hand for hand in view.followed if hand.seat == seat), None)
    if followed is not None and not view.over:
        tail = seat_hand_lines(followed, view.names, locale)
    room = TEXT_LIMIT - len(title) - sum(len(line) + 1 for line in tail) - 2
    deal = _deal_text(view, locale, room)
    return "\n\n".join(part for part in (title, deal, "\n".join(tail)) if part)


def _deal_text(view: SpectatorView, locale: str, room: int) -> str:
    """The deal's board from the first trick that lets the text fit in ``room`` characters."""
    obs, events, names, ended = view.obs, view.events, view.names, view.result
    started = next((e for e in events if isinstance(e, DealStarted)), None)
    if started is None:
        return header(obs, view.rules, locale)
    blocks = trick_blocks(events, started.level, names, locale)
    for first in range(len(blocks)):
        if ended is not None:
            text = closing_board_text(
                heading=played_header(view.match_events, ended, view.rules, locale),
                events=events,
                result=ended,
                first=first,
                tributes=public_tributes(events),
                names=names,
                locale=locale,
            )
        elif view.over:  # stopped, or the clock ended the match inside the deal
            text = finished_board_text(
                heading=header(obs, view.rules, locale),
                events=events,
                first=first,
                last=len(blocks) - 1,
                tributes=public_tributes(events),
                names=names,
                locale=locale,
            )
        else:
            text = board_text(
                obs=obs, events=events, names=names, rules=view.rules, locale=locale, first=first
            )
        if len(text) <= room:
            return text
    return header(obs, view.rules, locale)  # one trick longer than a message: never seen
