"""The words every table text is built from: translation, cards and plays, names, punctuation.

Full-width punctuation in Chinese, ASCII in English (issue 20.10); whatever a person chose goes
through :func:`escape` before it enters an HTML message.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from app.i18n import translator
from engine.cards import Card, Rank
from engine.names import clean_name
from engine.plays import Play
from engine.rules import PRESETS
from render.words import card_text, describe_play, place_name, seat_name


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


def sentence_gap(locale: str) -> str:
    """Between two sentences: a space in English, nothing after Chinese full stops."""
    return " " if locale.startswith("en") else ""


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
