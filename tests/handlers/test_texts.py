"""Localized texts: refusals in both languages, and a board that only shows public cards."""

from __future__ import annotations

from engine.actions import PlayCards, Played
from engine.cards import Rank, parse_cards
from engine.classify import classify
from engine.match import Match, observe
from engine.rules import Rules
from handlers.platform.i18n import normalize_locale, translator
from handlers.table.service.texts import board_text, cannot_beat, error_text
from render.words import card_text


def test_refusals_are_localized() -> None:
    assert error_text("not_your_turn", "zh") == "还没轮到你"
    assert error_text("not_your_turn", "en") == "It is not your turn yet"
    assert error_text("no-such-code", "zh") == "现在不能这样做。"
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
