"""Localized texts: refusals in both languages, and a board that only shows public cards."""

from __future__ import annotations

import pytest

from app.i18n import normalize_locale, translator
from app.records.texts import coach_button
from app.table.refusals import TableRefusal
from app.table.texts import board_text, cannot_beat, error_text
from engine.actions import PlayCards, Played
from engine.cards import Rank, parse_cards
from engine.classify import classify
from engine.match import Match, observe
from engine.rules import CountVisibility, Rules
from handlers.general import help_text
from render.words import card_text


def test_refusals_are_localized() -> None:
    assert error_text(TableRefusal.NOT_YOUR_TURN, "zh") == "还没轮到你"
    assert error_text(TableRefusal.NOT_YOUR_TURN, "en") == "It is not your turn yet"
    with pytest.raises(ValueError):  # an unknown code is a mistake, never a generic text
        error_text("no-such-code", "zh")
    nine = classify(parse_cards("S9"), Rank.TWO)[0]
    assert cannot_beat(nine, Rank.TWO, "zh") == "打不过上家的 ♠9"
    assert cannot_beat(nine, Rank.TWO, "en") == "Does not beat the previous play ♠9"


def test_locale_normalization_defaults_to_chinese() -> None:
    assert normalize_locale("en-GB") == "en"
    assert normalize_locale("zh-hans") == "zh"
    assert normalize_locale("de") == "zh"
    assert normalize_locale(None) == "zh"
    assert translator("zh").gettext("Hint") == "提示"


def test_board_shows_played_cards_and_no_hand() -> None:
    match = Match.new(Rules.default(), seed=7)
    names = {seat: f"P{seat}" for seat in range(4)}
    events = list(match.events)
    for _ in range(6):
        seat = match.to_act[0]
        plays = match.legal_plays(seat)
        events += match.apply(seat, PlayCards(min(plays, key=lambda p: (p.size, p.rank))))
    text = board_text(obs=observe(match, None), events=events, names=names, rules=match.rules, locale="zh")
    played = {card_text(card) for e in events if isinstance(e, Played) for card in e.play.cards}
    for seat in range(4):
        for card in set(match.hand(seat)):
            if card_text(card) not in played:
                assert card_text(card) not in text
    assert any(isinstance(e, Played) for e in events)
    assert "⏳" in text


def test_hand_caption_shows_the_table_as_the_group_sees_it() -> None:
    """Issue 20.3: every other seat's count (as 报牌 shows it), places, the turn clock and its warning."""
    from app.table.texts import TurnClockView, hand_caption

    names = {0: "张老师", 1: "Bob", 2: "Carol", 3: "Dave"}
    match = Match.new(Rules.default(), seed=7)
    seat = match.to_act[0]
    obs = observe(match, seat)
    hidden = hand_caption(obs=obs, names=names, rules=match.rules, locale="zh", note=None)
    after = [(seat + offset) % 4 for offset in (1, 2, 3)]
    assert f"🂠 {'北西南东'[after[0]]} {names[after[0]]} ＞6 张" in hidden
    assert "（对家）" in hidden and "⏳" not in hidden
    shown = Match.new(Rules.default().replace(count_visibility=CountVisibility.ALWAYS), seed=7)
    clock = TurnClockView(30, warning=10, last_chance=True)
    text = hand_caption(
        obs=observe(shown, seat), names=names, rules=shown.rules, locale="zh", note=None, clock=clock
    )
    assert f"{names[after[1]]}（对家）27 张" in text
    assert "⏳ 限时 30 秒" in text and "⏰ <b>还剩 10 秒</b>：超时后进入托管" in text
    english = hand_caption(
        obs=observe(shown, seat), names=names, rules=shown.rules, locale="en", note=None, clock=clock
    )
    assert "27 cards" in english and "10 s left" in english


def test_a_seat_in_autoplay_says_so_in_every_look_not_only_the_first() -> None:
    """A note shows once; the 托管 line must outlive the next edit (the back-hand flake in CI)."""
    from app.table.texts import hand_caption

    names = {0: "张老师", 1: "Bob", 2: "Carol", 3: "Dave"}
    match = Match.new(Rules.default(), seed=7)
    obs = observe(match, match.to_act[0])
    on = hand_caption(obs=obs, names=names, rules=match.rules, locale="zh", note=None, autoplay=True)
    off = hand_caption(obs=obs, names=names, rules=match.rules, locale="zh", note=None)
    assert "🤖 已托管；按「取消托管」恢复自己出牌。" in on
    assert "托管" not in off


def test_help_says_where_the_coaching_is_with_the_buttons_own_words() -> None:
    """/help leads to 复盘点评 naming /history and the 🎓 button exactly as the replay shows it."""
    for locale in ("zh", "en"):
        text = help_text(locale)
        assert "/history" in text
        assert coach_button(locale) in text
