"""The words images and buttons share: play kinds, plays, ranks, seats, places.

The bot labels its buttons with these same functions, so what a player reads on
a button matches what the picture shows. Chinese (``zh``) is the default locale,
English (``en``) the second; any other locale falls back to Chinese.
"""

from __future__ import annotations

from typing import Final

from engine.cards import Card, Rank, Suit
from engine.plays import Play, PlayKind
from render.arrange import arrange_play

_KIND_NAMES: Final[dict[PlayKind, tuple[str, str]]] = {
    PlayKind.SINGLE: ("单张", "Single"),
    PlayKind.PAIR: ("对子", "Pair"),
    PlayKind.TRIPLE: ("三张", "Triple"),
    PlayKind.FULL_HOUSE: ("三带二", "Full house"),
    PlayKind.STRAIGHT: ("顺子", "Straight"),
    PlayKind.PAIR_RUN: ("三连对", "Pair run"),
    PlayKind.TRIPLE_RUN: ("钢板", "Triple run"),
    PlayKind.BOMB: ("炸弹", "Bomb"),
    PlayKind.STRAIGHT_FLUSH: ("同花顺", "Straight flush"),
    PlayKind.JOKER_BOMB: ("四王", "Joker bomb"),
}

_SEAT_NAMES: Final = (("北", "North"), ("西", "West"), ("南", "South"), ("东", "East"))
_TEAM_NAMES: Final = (("南北", "North–South"), ("东西", "East–West"))
_PLACE_NAMES: Final = (("上游", "1st"), ("二游", "2nd"), ("三游", "3rd"), ("下游", "4th"))
_JOKER_NAMES: Final = {Rank.SMALL_JOKER: ("小王", "Black Joker"), Rank.BIG_JOKER: ("大王", "Red Joker")}


def _pick(pair: tuple[str, str], locale: str) -> str:
    return pair[1] if locale.lower().startswith("en") else pair[0]


def is_english(locale: str) -> bool:
    """``en``, ``en_GB``, ``en-US`` … are English; everything else reads Chinese."""
    return locale.lower().startswith("en")


def play_kind_name(kind: PlayKind, locale: str = "zh") -> str:
    """单张 对子 三张 三带二 顺子 三连对 钢板 炸弹 同花顺 四王, or the English name."""
    return _pick(_KIND_NAMES[kind], locale)


def rank_text(rank: Rank, locale: str = "zh") -> str:
    """Face text of a rank: ``2``..``10``, ``J``, ``Q``, ``K``, ``A``, 小王/大王."""
    if rank.is_joker:
        return _pick(_JOKER_NAMES[rank], locale)
    return "10" if rank is Rank.TEN else rank.char


def card_text(card: Card, locale: str = "zh") -> str:
    """``♥10``, ``♠A``, 大王: the short label of one card."""
    if card.suit is None:
        return rank_text(card.rank, locale)
    return card.suit.symbol + rank_text(card.rank, locale)


def order_rank(order: int, level: Rank) -> Rank:
    """The face rank at a singles order (15 = the level rank, 16 小王, 17 大王)."""
    if order == 15:
        return level
    if order >= 16:
        return Rank(order - 1)
    return Rank(order)


def seat_name(seat: int, locale: str = "zh") -> str:
    """北 西 南 东 (seats 0..3 in playing order)."""
    return _pick(_SEAT_NAMES[seat], locale)


def team_name(team: int, locale: str = "zh") -> str:
    """南北 (seats 0 & 2) or 东西 (seats 1 & 3)."""
    return _pick(_TEAM_NAMES[team], locale)


def place_name(place: int, locale: str = "zh") -> str:
    """上游 二游 三游 下游 for places 1..4."""
    return _pick(_PLACE_NAMES[place - 1], locale)


def describe_play(play: Play, level: Rank, locale: str = "zh") -> str:
    """A play in words, as on its button: ``顺子 3-7``, ``炸弹 6张9``, ``三带二 5带8``."""
    kind = play_kind_name(play.kind, locale)
    detail = _play_detail(play, level, locale)
    return f"{kind} {detail}" if detail else kind


def _play_detail(play: Play, level: Rank, locale: str) -> str:
    if play.kind is PlayKind.JOKER_BOMB:
        return ""
    if play.kind.is_sequence:
        ranks = play.sequence_ranks()
        span = f"{rank_text(ranks[0])}-{rank_text(ranks[-1])}"
        suit = _flush_suit(play, level) if play.kind is PlayKind.STRAIGHT_FLUSH else None
        return f"{suit.symbol}{span}" if suit else span
    top = rank_text(order_rank(play.rank, level), locale)
    if play.kind is PlayKind.BOMB:
        return f"{play.size}×{top}" if is_english(locale) else f"{play.size}张{top}"
    if play.kind is PlayKind.FULL_HOUSE:
        pair = _full_house_pair(play, level)
        joiner = "+" if is_english(locale) else "带"
        return f"{top}{joiner}{rank_text(pair, locale)}" if pair else top
    return top


def _flush_suit(play: Play, level: Rank) -> Suit | None:
    """The suit of a straight flush: that of its natural (non-wildcard) cards."""
    suits = {card.suit for card in play.cards if not card.is_wildcard(level)}
    return suits.pop() if len(suits) == 1 else None


def _full_house_pair(play: Play, level: Rank) -> Rank | None:
    """The pair's rank in a full house: the natural cards outside the triple."""
    cards = arrange_play(play, level)
    pair = [card for card in cards[3:] if not card.is_wildcard(level)]
    if pair:
        return pair[0].rank
    return level if cards[3:] else None
