"""Keyboard limits and labels: ≤ 100 buttons, ≤ 8 a row, ≤ 64-byte data, one button per face."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from app.table.callback_data import MAX_BYTES, Op, Press
from engine.cards import Card, Rank, full_deck, parse_cards
from engine.classify import classify
from handlers.table.keyboards import (
    MAX_BUTTONS,
    ROW,
    HandScope,
    Keys,
    PassPlay,
    count_buttons,
    exchange_keyboard,
    face_label,
    hand_keyboard,
    lobby_keyboard,
    play_label,
    readings_keyboard,
    stop_keyboard,
    waiting_keyboard,
)

SCOPE = HandScope(table_id=123456789, version=99999, check=2**32 - 1)


def _check_limits(markup) -> None:
    assert count_buttons(markup) <= MAX_BUTTONS
    for row in markup.inline_keyboard:
        assert 1 <= len(row) <= ROW
        for button in row:
            if button.callback_data is not None:
                assert len(str(button.callback_data).encode()) <= MAX_BYTES


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from(list(Rank)[:13]), size=st.integers(1, 27))
def test_hand_keyboard_limits_hold_for_any_hand(seed: int, level: Rank, size: int) -> None:
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    hand = deck[:size]
    markup = hand_keyboard(
        SCOPE, hand=hand, level=level, selection=Counter(), previous=None, autoplay=True, locale="zh"
    )
    _check_limits(markup)
    toggles = [
        Press.decode(str(b.callback_data))
        for row in markup.inline_keyboard
        for b in row
        if Press.decode(str(b.callback_data)).op is Op.TOGGLE
    ]
    assert sorted(p.arg for p in toggles) == sorted(card.index for card in set(hand))


def test_duplicates_share_a_button_and_show_the_count() -> None:
    hand = parse_cards("S9 S9 H3")
    markup = hand_keyboard(
        SCOPE,
        hand=hand,
        level=Rank.TWO,
        selection=Counter({Card.parse("S9"): 1}),
        previous=None,
        autoplay=False,
        locale="zh",
    )
    labels = [b.text for row in markup.inline_keyboard for b in row]
    assert "✓♠9¹" in labels and "♥3" in labels
    assert face_label(Card.parse("S9"), 2, 0, "zh") == "♠9²"
    assert face_label(Card.parse("S9"), 2, 2, "zh") == "✓♠9²"
    assert face_label(Card.parse("S9"), 1, 1, "zh") == "✓♠9"
    assert face_label(Card(Rank.BIG_JOKER), 1, 0, "en") == "RJ"
    assert "取消托管" not in labels


def test_a_card_button_names_the_count_it_selects() -> None:
    """Two taps of one button (the phone still shows it) select the same thing: the count
    the label promised, not one more each time."""
    hand = parse_cards("S9 S9 H3")
    counts = {}
    for selected in range(3):
        markup = hand_keyboard(
            SCOPE,
            hand=hand,
            level=Rank.TWO,
            selection=Counter({Card.parse("S9"): selected}),
            previous=None,
            autoplay=False,
            locale="zh",
        )
        presses = [Press.decode(str(b.callback_data)) for row in markup.inline_keyboard for b in row]
        counts[selected] = next(p.count for p in presses if p.arg == Card.parse("S9").index)
    assert counts == {0: 1, 1: 2, 2: 0}


def test_play_button_names_the_selection() -> None:
    hand = parse_cards("S3 H4 C5 D6 S7 S9")
    selection = Counter(parse_cards("S3 H4 C5 D6 S7"))
    assert play_label(selection, hand, Rank.TWO, None, "zh") == "出牌：顺子 3-7"
    assert play_label(selection, hand, Rank.TWO, None, "en") == "Play: Straight 3-7"
    assert play_label(Counter(), hand, Rank.TWO, None, "zh") == "出牌"
    assert play_label(Counter(parse_cards("S3 S9")), hand, Rank.TWO, None, "zh") == "出牌 ✖"


def test_controls_and_autoplay_button() -> None:
    markup = hand_keyboard(
        SCOPE,
        hand=parse_cards("S3"),
        level=Rank.TWO,
        selection=Counter(),
        previous=None,
        autoplay=True,
        locale="zh",
    )
    labels = [b.text for row in markup.inline_keyboard for b in row]
    assert {"提示", "不出", "清空", "取消托管"} <= set(labels)


def test_readings_exchange_and_lobby_keyboards_within_limits() -> None:
    options = classify(parse_cards("H2 S5 C5"), Rank.TWO)
    _check_limits(readings_keyboard(SCOPE, options=options, level=Rank.TWO, locale="zh"))
    full = parse_cards(" ".join(str(card) for card in full_deck()[:54:2]))
    tribute = exchange_keyboard(SCOPE, choices=full, level=Rank.TWO, giving=False, locale="zh")
    _check_limits(tribute)
    assert all(b.text.startswith("还 ") for row in tribute.inline_keyboard for b in row)
    lobby = lobby_keyboard(
        table_id=10**9, names={0: "Ann"}, deep_link="https://t.me/bot?start=abc", locale="zh"
    )
    _check_limits(lobby)
    assert lobby.inline_keyboard[-1][0].url == "https://t.me/bot?start=abc"


def test_a_hand_keyboard_is_sent_as_the_markup_python_telegram_bot_would_send() -> None:
    """Keys go out as their own JSON (python-telegram-bot's objects were too slow to build and
    serialise on every look): it must say what the library's own markup says."""
    hand = parse_cards("S9 S9 H3 SB HR")
    keys = hand_keyboard(
        SCOPE,
        hand=hand,
        level=Rank.TWO,
        selection=Counter({Card.parse("S9"): 1}),
        previous=None,
        autoplay=False,
        locale="zh",
    )
    sent = json.loads(keys.to_json())
    assert sent == keys.to_markup().to_dict()
    assert sent["inline_keyboard"][0][0] == {"text": "大王", "callback_data": keys.inline_keyboard[0][0][1]}
    assert "✓♠9¹" in keys.to_json()  # UTF-8, not \u escapes: shorter on the wire


# ---------------------------------------------------------------- colours (Bot API 9.4's style)


def _styles(markup) -> dict[str, str | None]:
    return {b.text: b.style for row in markup.inline_keyboard for b in row}


def _hand_keys(selection: str, *, autoplay: bool = False, pass_play: PassPlay | None = None) -> Keys:
    return hand_keyboard(
        SCOPE,
        hand=parse_cards("S3 H4 C5 D6 S7 S9"),
        level=Rank.TWO,
        selection=Counter(parse_cards(selection)),
        previous=None,
        autoplay=autoplay,
        locale="zh",
        pass_play=pass_play,
    )


def test_the_play_button_is_green_only_when_a_tap_plays() -> None:
    assert _styles(_hand_keys("S3 H4 C5 D6 S7"))["出牌：顺子 3-7"] == "success"
    assert _styles(_hand_keys("S3 S9"))["出牌 ✖"] is None  # refused: no promise of a play
    assert _styles(_hand_keys(""))["出牌"] is None  # nothing selected yet
    passing = _styles(_hand_keys("", pass_play=PassPlay.NOTHING_BEATS))
    assert passing["不出（要不起）"] is None and passing["不出"] is None  # passing stays plain


def test_auto_play_and_stopping_are_red_and_the_way_back_is_blue() -> None:
    controls = _styles(_hand_keys("S3"))
    assert controls["🤖托管"] == "danger"
    assert (controls["提示"], controls["清空"]) == (None, None)
    assert _styles(_hand_keys("S3", autoplay=True))["取消托管"] == "primary"
    waiting = waiting_keyboard(SCOPE, autoplay=True, locale="zh")
    assert waiting is not None and _styles(waiting) == {"取消托管": "primary"}
    assert _styles(stop_keyboard(table_id=1, version=2, locale="zh")) == {"确定结束": "danger", "不": None}


def test_a_plain_button_is_sent_without_a_style_field() -> None:
    """Clients that know no ``style`` lose nothing, and a plain button's JSON is as before."""
    sent = json.loads(_hand_keys("S3 H4 C5 D6 S7").to_json())["inline_keyboard"]
    fields = {button["text"]: set(button) for row in sent for button in row}
    assert fields["出牌：顺子 3-7"] == {"text", "callback_data", "style"}
    assert fields["提示"] == {"text", "callback_data"}
    assert sent == _hand_keys("S3 H4 C5 D6 S7").to_markup().to_dict()["inline_keyboard"]
