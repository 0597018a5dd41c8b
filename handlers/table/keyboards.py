"""Inline keyboards: built from values, no I/O, so their limits are unit-tested
(≤ 100 buttons, ≤ 8 per row, callback data ≤ 64 bytes, labels that fit a phone's width).

Telegram splits a row's width equally between its buttons and cuts a label that does not
fit with "…". Card labels are kept short (``♠10²``, ``✓♠10¹``) and a keyboard puts fewer
buttons in a row when its labels need it: :func:`per_row` estimates label widths on a
360-dp phone (see :data:`PHONE`; tests/handlers/test_keyboard_width.py checks the estimate
against the bundled Noto Sans CJK).

A button's colour (Bot API 9.4's ``style``) says what it does: 出牌 is green when the selection
plays, 托管 and the confirmation of /stop are red (they hand the seat away, or end the match for
all four), 取消托管 (the way back) is blue; everything else, 不出 included, keeps the app's plain
colour. Apps that know no ``style`` ignore it and show the buttons as before.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.constants import KeyboardButtonStyle

from app.records import callback_data as record_callbacks
from app.records.texts import deal_replay_button
from app.table.callback_data import Area, Op, Press
from app.table.selection import faces, next_count, readings
from app.table.texts import N_, _, colon
from engine.cards import Card, Rank
from engine.errors import EngineError
from engine.plays import Play
from render.words import card_text, describe_play, is_english, seat_name

ROW = 8
MAX_BUTTONS = 100


class Key(NamedTuple):
    """A button of a hand message: a label, the press it sends, and its colour (None: plain)."""

    text: str
    callback_data: str
    style: KeyboardButtonStyle | None = None
    web_app: str | None = None  # the Mini App's address: the button opens it (no callback)

    def to_dict(self) -> dict[str, object]:
        """The button as the Bot API reads it; a plain one has no ``style`` field at all."""
        if self.web_app is not None:
            return {"text": self.text, "web_app": {"url": self.web_app}}
        shown: dict[str, object] = {"text": self.text, "callback_data": self.callback_data}
        return shown if self.style is None else {**shown, "style": self.style.value}


@dataclass(frozen=True, slots=True)
class Keys:
    """A hand message's keyboard as plain values, sent as its JSON.

    Every look of a hand message carries a new keyboard of up to 40 buttons (each names the
    match version), several a press. python-telegram-bot's objects cost about 13 µs a button to
    build and 850 µs a keyboard to turn into JSON for the request, on the event loop, for every
    look of every table; these cost a microsecond and 40 (see :meth:`to_json`). The same
    attribute names as :class:`~telegram.InlineKeyboardMarkup` (``inline_keyboard``, a button's
    ``text`` and ``callback_data``), so a reader of either reads both."""

    inline_keyboard: tuple[tuple[Key, ...], ...]

    def to_json(self) -> str:
        """The ``reply_markup`` parameter as the Bot API reads it."""
        rows = [[key.to_dict() for key in row] for row in self.inline_keyboard]
        return json.dumps({"inline_keyboard": rows}, ensure_ascii=False, separators=(",", ":"))

    def to_markup(self) -> InlineKeyboardMarkup:
        """The same keyboard as python-telegram-bot's object (a new message's ``send_photo``)."""
        rows = self.inline_keyboard
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(key.text, web_app=WebAppInfo(key.web_app))
                    if key.web_app is not None
                    else InlineKeyboardButton(key.text, callback_data=key.callback_data, style=key.style)
                    for key in row
                ]
                for row in rows
            ]
        )


def deal_replay_keys(table_id: int, deal_number: int, locale: str) -> Keys:
    """An ended deal's hand message's one button: the player's own 复盘 of that deal, with its
    🎓 点评, opened in the private chat while the match goes on (handled by the records)."""
    return _keys([[Key(deal_replay_button(locale), record_callbacks.deal(table_id, deal_number))]])


def with_web_app(keys: Keys | None, url: str | None, locale: str) -> Keys | None:
    """A hand keyboard with the 🃏 button that opens the table in the Mini App (issue 42)."""
    if keys is None or url is None:
        return keys
    return Keys((*keys.inline_keyboard, (Key(_("🃏 Play in the Mini App", locale), "", web_app=url),)))


def _keys(rows: Sequence[Sequence[Key]]) -> Keys:
    return Keys(tuple(tuple(row) for row in rows))


def _key(text: str, press: Press, style: KeyboardButtonStyle | None = None) -> Key:
    return Key(text, press.encode(), style)


@dataclass(frozen=True, slots=True)
class Phone:
    """The width a keyboard gets on a small phone, in dp (Telegram Android's layout).

    A private chat's photo message widens its keyboard up to the screen less 15 dp of
    margins; each row is split equally after 5 dp between buttons and 2 dp at the edges;
    a label is cut beyond its button's width less 10 dp; button text is 15 dp.
    """

    keyboard: float = 360 - 15
    gap: float = 5
    edges: float = 2
    padding: float = 10
    text: float = 15

    def room(self, per_row: int) -> float:
        """The label width that fits in a row of ``per_row`` buttons."""
        return (self.keyboard - self.gap * (per_row - 1) - self.edges) / per_row - self.padding


PHONE = Phone()
_SUPERSCRIPT = {1: "¹", 2: "²"}
_EM = {"✓": 0.75, "¹": 0.45, "²": 0.45, " ": 0.3, "-": 0.45, "…": 1.0}
"""Character widths in em where they differ from the rules in :func:`label_width`."""


def label_width(text: str, phone: Phone = PHONE) -> float:
    """An upper estimate of a label's width in dp: wide and symbol characters (suits, hanzi,
    emoji) an em, Latin capitals 0.8 em, other ASCII 0.6 em."""
    ems = 0.0
    for char in text:
        if char in _EM:
            ems += _EM[char]
        elif char.isascii():
            ems += 0.8 if char.isupper() else 0.6
        elif unicodedata.combining(char):
            continue
        else:
            ems += 1.0
    return ems * phone.text


def per_row(labels: Iterable[str], most: int = ROW, phone: Phone = PHONE) -> int:
    """The most buttons a row may hold (up to ``most``) with every label readable."""
    widest = max((label_width(label, phone) for label in labels), default=0.0)
    return next((n for n in range(most, 1, -1) if widest <= phone.room(n)), 1)


@dataclass(frozen=True, slots=True)
class HandScope:
    """What every button of one hand message carries: table, match version, selection digest."""

    table_id: int
    version: int
    check: int

    def press(self, op: Op, arg: int | None = None, count: int | None = None) -> Press:
        return Press(Area.HAND, self.table_id, self.version, self.check, op, arg, count)


def _button(text: str, press: Press, style: KeyboardButtonStyle | None = None) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=press.encode(), style=style)


def _rows(buttons: Sequence[Key], most: int = ROW) -> list[list[Key]]:
    width = per_row((button.text for button in buttons), most)
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def button_card(card: Card, locale: str) -> str:
    """A card as a button names it: ``♠10``, 小王 (``BJ``/``RJ`` in English: "Black Joker"
    does not fit)."""
    if card.is_joker and is_english(locale):
        return "BJ" if card.rank is Rank.SMALL_JOKER else "RJ"
    return card_text(card, locale)


def face_label(card: Card, held: int, selected: int, locale: str) -> str:
    """``♠9``, ``♠9²`` (two held); a tick and the number selected: ``✓♠9``, ``✓♠9¹``, ``✓♠9²``."""
    text = button_card(card, locale)
    if selected == 0:
        return text + _SUPERSCRIPT[held] if held > 1 else text
    return f"✓{text}{_SUPERSCRIPT[selected]}" if held > 1 else f"✓{text}"


def play_label(
    selection: Counter[Card], hand: Sequence[Card], level: Rank, previous: Play | None, locale: str
) -> str:
    """出牌：顺子 3-7 names what the selection would be played as."""
    return _play_text(selection, _plays(selection, hand, level, previous), level, locale)


def _plays(selection: Counter[Card], hand: Sequence[Card], level: Rank, previous: Play | None) -> list[Play]:
    """What the selection may be played as (none: nothing selected, or it plays nothing)."""
    if not selection:
        return []
    try:
        return readings(selection, hand, level, previous)
    except EngineError:
        return []


def _play_text(selection: Counter[Card], found: Sequence[Play], level: Rank, locale: str) -> str:
    if not selection:
        return _("Play", locale)
    if not found:
        return _("Play ✖", locale)
    suffix = " …" if len(found) > 1 else ""
    return _("Play: {play}", locale, play=describe_play(found[0], level, locale)) + suffix


def _play_key(
    press: Press,
    selection: Counter[Card],
    hand: Sequence[Card],
    level: Rank,
    previous: Play | None,
    locale: str,
) -> Key:
    """出牌, green when a tap plays the selection (plain when it would be refused)."""
    found = _plays(selection, hand, level, previous)
    style = KeyboardButtonStyle.SUCCESS if found else None
    return _key(_play_text(selection, found, level, locale), press, style)


class PassPlay(Enum):
    """Why the play button reads 不出."""

    NOTHING_BEATS = "nothing_beats"  # 要不起
    HINTED = "hinted"  # 提示 suggested 不出 (the AI would let the table's play stand)


def pass_label(why: PassPlay, locale: str) -> str:
    if why is PassPlay.NOTHING_BEATS:
        return _("Pass (nothing beats it)", locale)
    return _("Pass (hint)", locale)


def hand_keyboard(
    scope: HandScope,
    *,
    hand: Sequence[Card],
    level: Rank,
    selection: Counter[Card],
    previous: Play | None,
    autoplay: bool,
    locale: str,
    pass_play: PassPlay | None = None,
) -> Keys:
    """One button per card face (duplicates share one), then 出牌 / 提示 / 不出 / 清空.

    A card button carries the count it selects. The row width depends on the hand only
    (its widest label, selected or not), so buttons stay in place while cards are picked.
    With ``pass_play`` (nothing selected, and nothing beats the table or 提示 suggested 不出)
    the play button itself passes: one tap, where the player's thumb already is.
    """
    press = scope.press
    rows = _card_rows(scope, hand, level, selection, locale)
    if pass_play is not None and not selection:
        rows.append([_key(pass_label(pass_play, locale), press(Op.PASS))])
    else:
        rows.append([_play_key(press(Op.PLAY), selection, hand, level, previous, locale)])
    rows.append(_controls(scope, autoplay, locale))
    if autoplay:
        rows.append([_cancel_autoplay(scope, locale)])
    return _keys(rows)


def _card_rows(
    scope: HandScope, hand: Sequence[Card], level: Rank, selection: Counter[Card], locale: str
) -> list[list[Key]]:
    """One button per card face, carrying the count it selects, in rows as wide as the hand's
    widest label (selected or not), so buttons stay in place while cards are picked."""
    held_faces = faces(hand, level)
    cards = [
        _key(
            face_label(card, held, selection[card], locale),
            scope.press(Op.TOGGLE, card.index, next_count(selection[card], held)),
        )
        for card, held in held_faces
    ]
    width = per_row(
        face_label(card, held, selected, locale) for card, held in held_faces for selected in range(held + 1)
    )
    return [cards[i : i + width] for i in range(0, len(cards), width)]


def _controls(scope: HandScope, autoplay: bool, locale: str) -> list[Key]:
    """提示 / 不出 / 清空, and 托管 for a seat not in auto-play."""
    press = scope.press
    controls = [
        _key(_("Hint", locale), press(Op.HINT)),
        _key(_("Pass", locale), press(Op.PASS)),
        _key(_("Clear", locale), press(Op.CLEAR)),
    ]
    if not autoplay:  # 托管 on request: a player who must step away hands the seat to the bot
        controls.append(_key(_("🤖 Auto", locale), press(Op.AUTOPLAY), KeyboardButtonStyle.DANGER))
    return controls


def _cancel_autoplay(scope: HandScope, locale: str) -> Key:
    """取消托管: the way back to one's own seat, blue where the player looks for it."""
    return _key(_("Cancel auto-play", locale), scope.press(Op.CANCEL_AUTOPLAY), KeyboardButtonStyle.PRIMARY)


def readings_keyboard(scope: HandScope, *, options: Sequence[Play], level: Rank, locale: str) -> Keys:
    """逢人配: the selection reads several ways; the player picks one."""
    rows = [
        [_key(describe_play(play, level, locale), scope.press(Op.READING, i))]
        for i, play in enumerate(options[: MAX_BUTTONS - 1])
    ]
    rows.append([_key(_("Back", locale), scope.press(Op.CANCEL_READING))])
    return _keys(rows)


def exchange_keyboard(
    scope: HandScope, *, choices: Sequence[Card], level: Rank, giving: bool, locale: str
) -> Keys:
    """进贡 / 还贡: one button per allowed card face."""
    op = Op.TRIBUTE if giving else Op.RETURN
    template = N_("Tribute {card}") if giving else N_("Return {card}")
    buttons = [
        _key(
            _(template, locale, card=button_card(card, locale)),
            scope.press(op, card.index),
        )
        for card, _held in faces(choices, level)
    ]
    return _keys(_rows(buttons, 4))


def waiting_keyboard(scope: HandScope, *, autoplay: bool, locale: str) -> Keys | None:
    """While others exchange tributes: only 取消托管 if the seat is in auto-play."""
    if not autoplay:
        return None
    return _keys([[_cancel_autoplay(scope, locale)]])


def lobby_keyboard(
    *,
    table_id: int,
    names: dict[int, str],
    deep_link: str | None,
    locale: str,
    difficulties: dict[int, str] | None = None,
) -> InlineKeyboardMarkup:
    """Seats (tap an empty one to sit, your own to leave), AI and its difficulty per AI seat
    (``difficulties``: seat → easy/normal/master), start, preset, private chat."""

    def press(op: Op, arg: int | None = None) -> Press:
        return Press(Area.LOBBY, table_id, 0, 0, op, arg)

    rows = _seat_rows(press, names, locale)
    rows.append(
        [_button(_("🤖 Add AI", locale), press(Op.ADD_AI)), _button(_("Leave", locale), press(Op.LEAVE))]
    )
    ai_row = _difficulty_row(press, difficulties or {}, locale)
    if ai_row:
        rows.append(ai_row)
    rows.append(
        [_button(_("▶ Start", locale), press(Op.START)), _button(_("Rules ▸", locale), press(Op.PRESET))]
    )
    if deep_link:
        rows.append([InlineKeyboardButton(_("Open private chat", locale), url=deep_link)])
    return InlineKeyboardMarkup(rows)


def _seat_rows(
    press: Callable[[Op, int], Press], names: dict[int, str], locale: str
) -> list[list[InlineKeyboardButton]]:
    """The four seats, two by two: who sits there, or "sit here"."""
    seats = [
        _button(
            f"{seat_name(seat, locale)}{colon(locale)}{names[seat]}"
            if seat in names
            else _("{seat}: sit here", locale, seat=seat_name(seat, locale)),
            press(Op.SIT, seat),
        )
        for seat in range(4)
    ]
    return [seats[:2], seats[2:]]


def _difficulty_row(
    press: Callable[[Op, int], Press], difficulties: dict[int, str], locale: str
) -> list[InlineKeyboardButton]:
    """Each AI seat's difficulty (easy/normal/master), pressed to change it."""
    levels = {"easy": _("Easy", locale), "normal": _("Normal", locale), "master": _("Master", locale)}
    return [
        _button(
            _("{seat}: {level} ▸", locale, seat=seat_name(seat, locale), level=levels.get(level, level)),
            press(Op.DIFFICULTY, seat),
        )
        for seat, level in sorted(difficulties.items())
    ]


def stop_keyboard(*, table_id: int, version: int, locale: str) -> InlineKeyboardMarkup:
    """/stop's question: ending the match for all four is red; 否 stays plain."""
    stop = Press(Area.STOP, table_id, version, 0, Op.CONFIRM)
    keep = Press(Area.STOP, table_id, version, 0, Op.CANCEL)
    return InlineKeyboardMarkup(
        [
            [
                _button(_("Yes, stop the match", locale), stop, KeyboardButtonStyle.DANGER),
                _button(_("No", locale), keep),
            ]
        ]
    )


def count_buttons(markup: InlineKeyboardMarkup | Keys) -> int:
    return sum(len(row) for row in markup.inline_keyboard)
