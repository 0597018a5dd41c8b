"""Inline keyboards: built from values, no I/O, so their limits are unit-tested
(≤ 100 buttons, ≤ 8 per row, callback data ≤ 64 bytes)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine.cards import Card, Rank
from engine.errors import EngineError
from engine.plays import Play
from handlers.table.service.callback_data import Area, Op, Press
from handlers.table.service.selection import faces, readings
from handlers.table.service.texts import N_, _
from render.words import card_text, describe_play, seat_name

ROW = 8
MAX_BUTTONS = 100

Keyboard = list[list[InlineKeyboardButton]]


@dataclass(frozen=True, slots=True)
class HandScope:
    """What every button of one hand message carries: table, match version, keyboard revision."""

    table_id: int
    version: int
    nonce: int

    def press(self, op: Op, arg: int | None = None) -> Press:
        return Press(Area.HAND, self.table_id, self.version, self.nonce, op, arg)


def _button(text: str, press: Press) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=press.encode())


def _rows(buttons: Sequence[InlineKeyboardButton], width: int = ROW) -> Keyboard:
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def face_label(card: Card, held: int, selected: int, locale: str) -> str:
    """``♠9``, ``♠9×2``; selected copies get a tick: ``✅♠9``, ``✅♠9 1/2``."""
    text = card_text(card, locale)
    if selected == 0:
        return f"{text}×{held}" if held > 1 else text
    if selected < held:
        return f"✅{text} {selected}/{held}"
    return f"✅{text}×{held}" if held > 1 else f"✅{text}"


def play_label(
    selection: Counter[Card], hand: Sequence[Card], level: Rank, previous: Play | None, locale: str
) -> str:
    """出牌：顺子 3-7 names what the selection would be played as."""
    if not selection:
        return _("Play", locale)
    try:
        found = readings(selection, hand, level, previous)
    except EngineError:
        found = []
    if not found:
        return _("Play ✖", locale)
    suffix = " …" if len(found) > 1 else ""
    return _("Play: {play}", locale, play=describe_play(found[0], level, locale)) + suffix


def hand_keyboard(
    scope: HandScope,
    *,
    hand: Sequence[Card],
    level: Rank,
    selection: Counter[Card],
    previous: Play | None,
    autoplay: bool,
    locale: str,
) -> InlineKeyboardMarkup:
    """One button per card face (duplicates share one), then 出牌 / 提示 / 不出 / 清空."""
    press = scope.press
    cards = [
        _button(face_label(card, held, selection[card], locale), press(Op.TOGGLE, card.index))
        for card, held in faces(hand, level)
    ]
    rows = _rows(cards)
    rows.append([_button(play_label(selection, hand, level, previous, locale), press(Op.PLAY))])
    rows.append(
        [
            _button(_("Hint", locale), press(Op.HINT)),
            _button(_("Pass", locale), press(Op.PASS)),
            _button(_("Clear", locale), press(Op.CLEAR)),
        ]
    )
    if autoplay:
        rows.append([_button(_("Cancel auto-play", locale), press(Op.CANCEL_AUTOPLAY))])
    return InlineKeyboardMarkup(rows)


def readings_keyboard(
    scope: HandScope, *, options: Sequence[Play], level: Rank, locale: str
) -> InlineKeyboardMarkup:
    """逢人配: the selection reads several ways; the player picks one."""
    rows = [
        [_button(describe_play(play, level, locale), scope.press(Op.READING, i))]
        for i, play in enumerate(options[: MAX_BUTTONS - 1])
    ]
    rows.append([_button(_("Back", locale), scope.press(Op.CANCEL_READING))])
    return InlineKeyboardMarkup(rows)


def exchange_keyboard(
    scope: HandScope, *, choices: Sequence[Card], level: Rank, giving: bool, locale: str
) -> InlineKeyboardMarkup:
    """进贡 / 还贡: one button per allowed card face."""
    op = Op.TRIBUTE if giving else Op.RETURN
    template = N_("Tribute {card}") if giving else N_("Return {card}")
    buttons = [
        _button(
            _(template, locale, card=card_text(card, locale)),
            scope.press(op, card.index),
        )
        for card, _held in faces(choices, level)
    ]
    return InlineKeyboardMarkup(_rows(buttons, 4))


def waiting_keyboard(scope: HandScope, *, autoplay: bool, locale: str) -> InlineKeyboardMarkup | None:
    """While others exchange tributes: only 取消托管 if the seat is in auto-play."""
    if not autoplay:
        return None
    return InlineKeyboardMarkup([[_button(_("Cancel auto-play", locale), scope.press(Op.CANCEL_AUTOPLAY))]])


def lobby_keyboard(
    *, table_id: int, names: dict[int, str], deep_link: str | None, locale: str
) -> InlineKeyboardMarkup:
    """Seats (tap an empty one to sit, your own to leave), AI, start, preset, private chat."""

    def press(op: Op, arg: int | None = None) -> Press:
        return Press(Area.LOBBY, table_id, 0, 0, op, arg)

    seats = [
        _button(
            f"{seat_name(seat, locale)}: {names[seat]}"
            if seat in names
            else _("{seat}: sit here", locale, seat=seat_name(seat, locale)),
            press(Op.SIT, seat),
        )
        for seat in range(4)
    ]
    rows = [seats[:2], seats[2:]]
    rows.append(
        [_button(_("🤖 Add AI", locale), press(Op.ADD_AI)), _button(_("Leave", locale), press(Op.LEAVE))]
    )
    rows.append(
        [_button(_("▶ Start", locale), press(Op.START)), _button(_("Rules ▸", locale), press(Op.PRESET))]
    )
    if deep_link:
        rows.append([InlineKeyboardButton(_("Open private chat", locale), url=deep_link)])
    return InlineKeyboardMarkup(rows)


def stop_keyboard(*, table_id: int, version: int, locale: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                _button(_("Yes, stop the match", locale), Press(Area.STOP, table_id, version, 0, Op.CONFIRM)),
                _button(_("No", locale), Press(Area.STOP, table_id, version, 0, Op.CANCEL)),
            ]
        ]
    )


def count_buttons(markup: InlineKeyboardMarkup) -> int:
    return sum(len(row) for row in markup.inline_keyboard)
