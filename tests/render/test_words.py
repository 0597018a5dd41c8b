"""Words shared by images and buttons: kind names and play descriptions in both locales."""

from __future__ import annotations

import pytest

from engine.cards import Rank
from engine.classify import classify
from engine.plays import Play, PlayKind
from render.words import describe_play, order_rank, place_name, play_kind_name, seat_name

ZH = {
    PlayKind.SINGLE: "单张",
    PlayKind.PAIR: "对子",
    PlayKind.TRIPLE: "三张",
    PlayKind.FULL_HOUSE: "三带二",
    PlayKind.STRAIGHT: "顺子",
    PlayKind.PAIR_RUN: "三连对",
    PlayKind.TRIPLE_RUN: "钢板",
    PlayKind.BOMB: "炸弹",
    PlayKind.STRAIGHT_FLUSH: "同花顺",
    PlayKind.JOKER_BOMB: "四王",
}


@pytest.mark.parametrize("kind", list(PlayKind))
def test_every_kind_has_a_chinese_and_an_english_name(kind: PlayKind) -> None:
    assert play_kind_name(kind) == ZH[kind]
    english = play_kind_name(kind, "en")
    assert english.isascii() and english


def test_unknown_locales_fall_back_to_chinese() -> None:
    assert play_kind_name(PlayKind.BOMB, "fr") == "炸弹"
    assert play_kind_name(PlayKind.BOMB, "en_GB") == "Bomb"


def reading(text: str, kind: PlayKind, level: str = "7") -> Play:
    return next(p for p in classify(text, level) if p.kind is kind)


@pytest.mark.parametrize(
    ("text", "kind", "zh", "en"),
    [
        ("S3 H4 C5 D6 S7", PlayKind.STRAIGHT, "顺子 3-7", "Straight 3-7"),
        ("SA S2 H3 C4 D5", PlayKind.STRAIGHT, "顺子 A-5", "Straight A-5"),
        ("S9 H9 C9 D9 S9 H9", PlayKind.BOMB, "炸弹 6张9", "Bomb 6×9"),
        ("S5 S5 H5 C8 D8", PlayKind.FULL_HOUSE, "三带二 5带8", "Full house 5+8"),
        ("BJ BJ RJ RJ", PlayKind.JOKER_BOMB, "四王", "Joker bomb"),
        ("SQ SQ SQ SK SK SK", PlayKind.TRIPLE_RUN, "钢板 Q-K", "Triple run Q-K"),
        ("S3 S3 S4 S4 D5 D5", PlayKind.PAIR_RUN, "三连对 3-5", "Pair run 3-5"),
        ("ST SJ SQ SK SA", PlayKind.STRAIGHT_FLUSH, "同花顺 ♠10-A", "Straight flush ♠10-A"),
        ("RJ", PlayKind.SINGLE, "单张 大王", "Single Red Joker"),
        ("D7 C7", PlayKind.PAIR, "对子 7", "Pair 7"),
    ],
)
def test_describe_play(text: str, kind: PlayKind, zh: str, en: str) -> None:
    play = reading(text, kind)
    assert describe_play(play, Rank.SEVEN) == zh
    assert describe_play(play, Rank.SEVEN, "en") == en


def test_a_wildcard_in_a_full_house_names_the_rank_it_completes() -> None:
    readings = {describe_play(p, Rank.SEVEN) for p in classify("H7 S5 H5 C8 D8", "7")}
    assert readings == {"三带二 5带8", "三带二 8带5"}


def test_order_rank_maps_level_and_jokers_back_to_faces() -> None:
    assert order_rank(15, Rank.SEVEN) is Rank.SEVEN
    assert order_rank(16, Rank.SEVEN) is Rank.SMALL_JOKER
    assert order_rank(17, Rank.SEVEN) is Rank.BIG_JOKER
    assert order_rank(14, Rank.SEVEN) is Rank.ACE


def test_seats_and_places() -> None:
    assert [seat_name(s) for s in range(4)] == ["北", "西", "南", "东"]
    assert [place_name(p) for p in range(1, 5)] == ["上游", "二游", "三游", "下游"]
    assert seat_name(2, "en") == "South"
