"""Buttons at phone width: every card label of every keyboard is readable on a small phone.

Telegram splits a row's width equally between its buttons and cuts a label that does not
fit with "…". Assumptions, from Telegram Android's chat cell (ChatMessageCell,
Theme.chat_botButtonPaint), for a 360 dp wide phone:

- a private-chat photo message widens its keyboard to the screen less ~15 dp of margins:
  345 dp for a row;
- a row of n buttons gives each (345 - 5·(n-1) - 2) / n dp, 5 dp between buttons;
- a label is cut beyond the button's width less 10 dp of padding;
- button text is 15 dp, Roboto Medium, with suit symbols drawn as emoji (about an em).

Labels are measured with the bundled Noto Sans CJK SC Bold (render/fonts; Bold stands in for
Roboto Medium: its Latin is a little wider) at 15 dp, where ♠♥♣♦ and hanzi are a full em.
The measure is Pillow's ``ImageFont.getlength`` at 10 px per dp.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import ImageFont
from telegram import InlineKeyboardMarkup

from engine.cards import CARDS, Card, Rank, full_deck, parse_cards
from engine.classify import classify
from engine.moves import legal_plays
from handlers.table.keyboards import (
    PHONE,
    ROW,
    HandScope,
    Keys,
    exchange_keyboard,
    face_label,
    hand_keyboard,
    label_width,
    play_label,
    readings_keyboard,
)
from handlers.table.spectators import spectator_keyboard
from render.text import FONT_DIR, has_glyph

SCOPE = HandScope(table_id=1234567, version=9999, check=2**32 - 1)
PX_PER_DP = 10
FONT = ImageFont.truetype(str(FONT_DIR / "NotoSansSC-Bold-subset.otf"), round(PHONE.text * PX_PER_DP))
LOCALES = ("zh", "en")


EMOJI_EM = 1.25
"""Characters the font lacks are emoji (✖, 🤖): Telegram draws them a little over an em."""


def measured(text: str) -> float:
    """The label's width in dp, drawn with the bundled font (emoji at :data:`EMOJI_EM`)."""
    drawn = "".join(char for char in text if has_glyph(char))
    emoji = len(text) - len(drawn)
    return FONT.getlength(drawn) / PX_PER_DP + emoji * EMOJI_EM * PHONE.text


def overflowing(markup: InlineKeyboardMarkup | Keys) -> list[str]:
    """The labels Telegram would cut on the phone described above."""
    return [
        f"{button.text!r} ({measured(button.text):.1f} > {PHONE.room(len(row)):.1f} dp, {len(row)} a row)"
        for row in markup.inline_keyboard
        for button in row
        if measured(button.text) > PHONE.room(len(row))
    ]


def every_label_variant() -> Iterator[tuple[str, str]]:
    for locale in LOCALES:
        for card in CARDS:
            for held in (1, 2):
                for selected in range(held + 1):
                    yield locale, face_label(card, held, selected, locale)


def test_the_old_labels_did_not_fit_eight_in_a_row() -> None:
    """What the issue saw: ``✅♠10 1/2`` and ``♥Q×2`` lose their ending at 8 a row."""
    assert PHONE.room(ROW) < measured("♥Q×2") < measured("✅♠10 1/2".replace("✅", "✓"))


def test_the_width_estimate_is_never_below_the_font() -> None:
    """:func:`label_width` chooses the row size; it must not promise more room than there is."""
    for locale, label in every_label_variant():
        assert all(has_glyph(char) for char in label), label  # measured, not guessed
        assert label_width(label) >= measured(label), (locale, label)
    for locale in LOCALES:
        for giving in (True, False):
            markup = exchange_keyboard(SCOPE, choices=CARDS, level=Rank.TWO, giving=giving, locale=locale)
            for row in markup.inline_keyboard:
                for button in row:
                    assert label_width(button.text) >= measured(button.text), button.text


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    level=st.sampled_from(list(Rank)[:13]),
    size=st.integers(1, 27),
    locale=st.sampled_from(LOCALES),
)
def test_every_card_button_fits_whatever_is_selected(seed: int, level: Rank, size: int, locale: str) -> None:
    deck = full_deck()
    rng = random.Random(seed)
    rng.shuffle(deck)
    hand = deck[:size]
    held = Counter(hand)
    selection = Counter({card: rng.randint(0, n) for card, n in held.items()})
    markup = hand_keyboard(
        SCOPE, hand=hand, level=level, selection=+selection, previous=None, autoplay=True, locale=locale
    )
    assert overflowing(markup) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_the_widest_hand_fits_and_keeps_its_layout_while_cards_are_picked(locale: str) -> None:
    """Pairs of 10s and both jokers twice: the longest labels there are."""
    hand = (
        parse_cards("ST ST HT HT CT CT DT DT SQ SQ HQ HQ")
        + [Card(Rank.SMALL_JOKER)] * 2
        + [Card(Rank.BIG_JOKER)] * 2
    )
    shapes = set()
    for selected in range(3):
        selection = Counter(dict.fromkeys(set(hand), selected))
        markup = hand_keyboard(
            SCOPE,
            hand=hand,
            level=Rank.TWO,
            selection=selection,
            previous=None,
            autoplay=False,
            locale=locale,
        )
        assert overflowing(markup) == []
        shapes.add(tuple(len(row) for row in markup.inline_keyboard))
    assert len(shapes) == 1  # buttons stay where the finger expects them


@pytest.mark.parametrize("locale", LOCALES)
def test_exchange_readings_and_play_buttons_fit(locale: str) -> None:
    for giving in (True, False):
        markup = exchange_keyboard(SCOPE, choices=CARDS, level=Rank.TWO, giving=giving, locale=locale)
        assert overflowing(markup) == []
    options = classify(parse_cards("H2 S5 C5 D5 S9"), Rank.TWO)
    assert overflowing(readings_keyboard(SCOPE, options=options, level=Rank.TWO, locale=locale)) == []
    hand = parse_cards("HA HK HQ HJ HT ST ST S9 S9 S9 C9 D9 D9 H2")
    for play in legal_plays(hand, Rank.TWO, None):
        label = play_label(Counter(play.cards), hand, Rank.TWO, None, locale)
        assert measured(label) <= PHONE.room(1), label


@pytest.mark.parametrize("locale", LOCALES)
def test_a_spectators_seat_buttons_fit_four_in_a_row(locale: str) -> None:
    """观战看牌: four seats a row under the spectator's long text message (as wide as a photo's)."""
    for followed in (None, 0, 1, 2, 3):
        markup = spectator_keyboard(2**40, followed, locale, seats=True)
        assert len(markup.inline_keyboard[0]) == 4
        assert overflowing(markup) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_a_spectators_mini_app_button_has_its_own_row(locale: str) -> None:
    """观战 in the Mini App (issue 42): a web_app button of its own row, above 停止观战."""
    url = "https://guandan.example/app?t=7"
    markup = spectator_keyboard(7, None, locale, seats=False, web_app=url)
    opens = [row for row in markup.inline_keyboard if any(key.web_app for key in row)]
    assert [[key.web_app for key in row] for row in opens] == [[url]]
    assert len(markup.inline_keyboard) == 2 and overflowing(markup) == []
    assert [
        [key.web_app for key in row]
        for row in spectator_keyboard(7, None, locale, seats=False).inline_keyboard
    ] == [[None]]
