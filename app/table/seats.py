"""One seat of a live table, in three parts that change at different paces and for different readers.

- :class:`SeatState`: who sits and how the bot acts for them (the stored seat row, 托管, /autopass):
  changed a few times a match, read by the table service;
- :class:`Selection`: the hand keyboard's working state (cards picked, 提示's suggestions, the
  readings to pick from): changed by every press, cleared whole by a play, read by the press
  handler and the hand message;
- :class:`HandMessage`: what the seat's private message last showed and whether it can still be
  edited, a cache of Telegram's side: changed by every delivery, read by the hand message only.

Nothing here is stored: a restart builds each seat from its row and the caches start empty, so
a resumed seat's hand comes in a new message (:attr:`HandMessage.first_sent`).
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from app.table.selection import Hints
from engine.actions import Phase
from engine.cards import Card
from engine.observation import Observation
from engine.plays import Play
from storage import SeatRecord

HandKey = tuple[int, tuple[Card, ...]]
"""(deal, hand): which hand a picture or a keyboard was made for."""


class Ahead(NamedTuple):
    """A turn's suggestions thought out before 提示 is pressed (:func:`app.table.hints.think_ahead`)."""

    version: int
    """The match version they are for."""
    thought: asyncio.Future[Hints]
    started: threading.Event
    """Set by the lane's thread when it begins: until then the thought waits behind other turns'."""


@dataclass
class Selection:
    """The hand keyboard's working state, kept apart from the seat so that a play, a refusal or
    a new deal clears it in one call (:meth:`clear`) and a new hand button's state has a place."""

    cards: Counter[Card] = field(default_factory=Counter)
    hint_index: int = 0
    hint_play: Play | None = None  # the reading 提示 chose, played as is if the selection is unchanged
    hint_pass: bool = False  # 提示 suggested 不出: the play button reads 不出 until a card is picked
    hints: Hints | None = None  # the suggestions 提示 cycles through
    ahead: Ahead | None = None
    """The turn's suggestions being thought out before 提示 is pressed, and the match version they
    are for (:func:`app.table.hints.think_ahead`)."""
    hint_keyboard: tuple[int, int] | None = None
    """The keyboard 提示 was pressed on, as its buttons name it: (match version, selection digest)."""
    readings: tuple[Play, ...] = ()  # several readings of the selection: the player picks one
    held: HandKey | None = None  # the hand the seat's buttons were last made for
    held_since: int = 0  # the match version since which the seat holds that hand

    def hand_since(self, deal: int, hand: tuple[Card, ...], version: int) -> int:
        """The match version since which the seat holds ``hand`` (noted at ``version``).

        Called whenever buttons are made and whenever one is pressed, so a button made at a
        version below this one was made for a hand (or deal) the seat no longer holds.
        Others' moves do not change it: selecting cards while others play is not interrupted.
        """
        if self.held != (deal, hand):
            self.held, self.held_since = (deal, hand), version
        return self.held_since

    def clear(self) -> None:
        """Nothing picked, 提示 from its first suggestion (the suggestions themselves are kept:
        they belong to the match version they were made at)."""
        self.cards = Counter()
        self.hint_index = 0
        self.hint_play = None
        self.hint_pass = False
        self.hint_keyboard = None
        self.readings = ()


@dataclass(frozen=True, slots=True)
class Closing:
    """The last look of a deal's hand message, sent when the next deal's message replaces it:
    how the deal ended, with one button (the deal's replay) instead of the hand's; after a restart,
    that a new message replaces it, with none. Kept on the seat until then, so a newer look that
    takes the queued one's place still closes the old message."""

    message_id: int
    caption: str
    picture: Observation | None  # the hand as the deal ended; None: the picture stays as it is
    ended: int | None = None  # the deal's number once it ended: its 🎓 复盘点评 button opens its replay


@dataclass
class HandMessage:
    """What the seat's private hand message last showed, kept so that a refresh sends the
    cheapest edit (or none) and a press can tell lag from a mistake."""

    shown_hand: HandKey | None = None  # in the image
    shown_caption: str | None = None
    shown_deal: int | None = None
    shown_markup: object = None  # the keyboard last handed to the sender
    delivered: tuple[int, HandKey, str] | None = None  # (message, hand, caption) sent
    lost_message: bool = False  # the hand message cannot be edited: the next refresh sends a new one
    look_shown_at: float | None = 0.0  # when the newest look reached Telegram (None: on its way)
    turn_delivered: bool = False  # the last look that reached Telegram said it was the seat's turn
    needs_new_message: bool = False  # the next delivery sends a new hand message (first/new deal, lost)
    closing: Closing | None = None  # the old message's last look, sent with the new deal's message
    preferences: tuple[str, bool, bool] | None = None  # (locale, four-colour, 理牌), cached from the user row
    note: str | None = None  # a one-off caption line (a timeout acted for the player)
    warned: tuple[tuple[int, Phase, int], int] | None = None  # (turn key, seconds left) of the clock warning
    first_sent: int | None = None
    """The first hand message this process sent the seat (None: none yet). The store's message
    id is from before a restart, and after a restore even the newest message in the chat may be
    one the store never knew (the next deal's, a tribute prompt): see :meth:`from_before`."""

    def from_before(self, message_id: int) -> bool:
        """Was ``message_id`` sent before this process's first hand message to the seat — by
        the bot before a restart, whether or not the store knew it? Telegram numbers a chat's
        messages in increasing order, so this needs no list of what was sent before: every such
        message is older than the fresh hand message a resumed seat gets first."""
        return self.first_sent is None or message_id < self.first_sent

    def redraw(self) -> None:
        """The player changed how their hand looks (理牌): forget the shown picture and
        preferences, so the next refresh draws and sends it again."""
        self.preferences = None
        self.shown_hand = None
        self.delivered = None


@dataclass
class SeatState:
    """A seat: its stored row (who sits, 托管, timeouts, the hand message's id) and the player's
    /autopass choice, with the two caches of its private message beside them."""

    record: SeatRecord
    auto_pass: bool = False  # /autopass: the bot passes for the player when nothing beats (要不起)
    selection: Selection = field(default_factory=Selection)
    message: HandMessage = field(default_factory=HandMessage)

    @property
    def is_bot(self) -> bool:
        """AI seats and seats in 托管 are played by the engine's policy."""
        return self.record.is_ai or self.record.autoplay
