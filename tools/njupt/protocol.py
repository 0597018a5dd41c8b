"""The NJUPT competition protocol's notation and messages, as pure functions.

docs/njupt.md describes the protocol as this server speaks it. Everything here turns
engine values into the platform's JSON and back, with no I/O, so the WebSocket layer
(:mod:`tools.njupt.server`) only moves these dicts:

- a card is ``"S5"``, ``"HT"``; jokers are ``"SB"`` (小王) and ``"HR"`` (大王);
- an action is ``[type, rank, cards]``, e.g. ``["Pair", "4", ["H4", "C4"]]``; PASS is
  ``["PASS", "PASS", "PASS"]``; tribute and return are ``["tribute", "tribute", ["D5"]]``
  and ``["back", "back", ["D5"]]``.

Choices the summary leaves open, made as the published competition bots expect them:

- the rank of a straight, straight flush, 三连对 and 钢板 is its *lowest* rank (``A`` for
  A2345, AA2233, AAA222); of a full house its triple's rank; of 四王 ``"JOKER"``;
- a play's cards are listed in reading order: a full house's triple before its pair, a
  sequence low to high, each wildcard where it stands (it appears as itself, ``H9`` at 9);
- the legal actions of a follower start with PASS at index 0; then the non-bomb plays by
  type (Single, Pair, Trips, ThreePair, ThreeWithTwo, TwoTrips, Straight) and rank, low
  to high; then the bombs from the weakest up the ladder (4, 5 cards, 同花顺, 6+, 四王).
  Plays differing only in which equal cards they use are listed one by one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Final

from engine.actions import Action, GiveTribute, Pass, PlayCards, ReturnTribute
from engine.cards import BIG_JOKER, SMALL_JOKER, Card, Rank, parse_rank
from engine.classify import classify, natural_rank
from engine.errors import InvalidCards
from engine.plays import Play, PlayKind

Message = dict[str, Any]
"""One JSON object of the protocol, ready for ``json.dumps``."""

ProtocolAction = list[Any]
"""``[type, rank, cards]`` as the platform writes it."""

PASS_ACTION: Final[tuple[str, str, str]] = ("PASS", "PASS", "PASS")

NO_ACTION: Final[tuple[None, None, None]] = (None, None, None)
""""No action" (a seat that has not acted in the trick; ``curAction`` and ``greaterAction`` when
the seat leads): the platform sends ``[null, null, null]``, as a captured ``act`` message quoted
in a published client shows, never a bare ``null``."""

TYPE_NAMES: Final = {
    PlayKind.SINGLE: "Single",
    PlayKind.PAIR: "Pair",
    PlayKind.TRIPLE: "Trips",
    PlayKind.PAIR_RUN: "ThreePair",
    PlayKind.FULL_HOUSE: "ThreeWithTwo",
    PlayKind.TRIPLE_RUN: "TwoTrips",
    PlayKind.STRAIGHT: "Straight",
    PlayKind.STRAIGHT_FLUSH: "StraightFlush",
    PlayKind.BOMB: "Bomb",
    PlayKind.JOKER_BOMB: "Bomb",
}
"""Our play kinds by the platform's type names; 四王 is a ``Bomb`` of rank ``JOKER``."""

_TYPE_ORDER: Final = {kind: i for i, kind in enumerate(TYPE_NAMES)}
_SEQUENCE_SHAPES: Final = {
    PlayKind.STRAIGHT: (5, 1),
    PlayKind.STRAIGHT_FLUSH: (5, 1),
    PlayKind.PAIR_RUN: (3, 2),
    PlayKind.TRIPLE_RUN: (2, 3),
}
"""(number of ranks, cards per rank) of the sequence kinds."""

_JOKER_CARDS: Final = {SMALL_JOKER: "SB", BIG_JOKER: "HR"}
_JOKER_RANKS: Final = {16: "B", 17: "R"}


class ProtocolError(ValueError):
    """A client's message the protocol does not allow (bad JSON, no ``actIndex``, out of range)."""


# ---------------------------------------------------------------- cards and ranks


def card_text(card: Card) -> str:
    """``HT`` → ``"HT"``; the jokers as the platform writes them, ``"SB"`` and ``"HR"``."""
    return _JOKER_CARDS.get(card, str(card))


def cards_text(cards: Iterable[Card]) -> list[str]:
    return [card_text(card) for card in cards]


def parse_card(text: str) -> Card:
    """The inverse of :func:`card_text` (``Card.parse`` reads ``SB``/``HR`` too)."""
    if not isinstance(text, str) or len(text) != 2:
        raise InvalidCards(f"not a protocol card: {text!r}")
    return Card.parse(text)


def rank_text(rank: Rank) -> str:
    """A level or card rank: ``"2"`` … ``"9"``, ``"T"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``."""
    return rank.char


def _order_text(order: int, level: Rank) -> str:
    """A same-rank play's rank (singles order at ``level``) as the platform's character."""
    if order in _JOKER_RANKS:
        return _JOKER_RANKS[order]
    return rank_text(level if order == 15 else Rank(order))


def _low_value(play: Play) -> int:
    length, _ = _SEQUENCE_SHAPES[play.kind]
    return play.rank - length + 1


# ---------------------------------------------------------------- plays


def play_action(play: Play, level: Rank) -> ProtocolAction:
    """``[type, rank, cards]`` for one of our plays at ``level``."""
    if play.kind is PlayKind.JOKER_BOMB:
        return ["Bomb", "JOKER", cards_text(play.cards)]
    if play.kind in _SEQUENCE_SHAPES:
        rank = rank_text(natural_rank(_low_value(play)))
    else:
        rank = _order_text(play.rank, level)
    return [TYPE_NAMES[play.kind], rank, cards_text(_reading_order(play, level))]


def _reading_order(play: Play, level: Rank) -> list[Card]:
    """The play's cards as read: a triple before its pair, a sequence low to high, each wildcard
    in the place it fills (the engine keeps cards in index order)."""
    wild = [card for card in play.cards if card.is_wildcard(level)]
    naturals = [card for card in play.cards if not card.is_wildcard(level)]
    if play.kind is PlayKind.FULL_HOUSE:
        rank = level if play.rank == 15 else Rank(play.rank)
        triple = [card for card in naturals if card.rank == rank]
        used = 3 - len(triple)
        return triple + wild[:used] + [card for card in naturals if card.rank != rank] + wild[used:]
    if play.kind not in _SEQUENCE_SHAPES:
        return naturals + wild
    length, per_rank = _SEQUENCE_SHAPES[play.kind]
    ordered: list[Card] = []
    left = list(naturals)
    for value in range(_low_value(play), _low_value(play) + length):
        face = natural_rank(value)
        here = [card for card in left if card.rank == face][:per_rank]
        for card in here:
            left.remove(card)
        ordered += here + [wild.pop() for _ in range(per_rank - len(here))]
    return ordered


def action_play(action: Sequence[Any], level: Rank | str) -> Play:
    """The play a protocol action stands for (its cards read at ``level`` with its type and rank).

    Raises :class:`ProtocolError` when no reading of the cards has that type and rank.
    """
    level = parse_rank(level)
    try:
        kind_name, rank, names = action
        cards = [parse_card(name) for name in names]
    except (TypeError, ValueError) as error:
        raise ProtocolError(f"not a protocol action: {action!r}") from error
    readings = classify(cards, level)
    for play in readings:
        if play_action(play, level)[:2] == [kind_name, rank]:
            return play
    for play in readings:  # a natural 同花顺 listed as a Straight too (see legal_actions)
        if kind_name == "Straight" and play_action(play, level)[:2] == ["StraightFlush", rank]:
            return play
    raise ProtocolError(f"{action!r} is not a reading of its cards at level {level.char}")


def _listing_key(play: Play) -> tuple[int, int, int, tuple[int, ...]]:
    indices = tuple(card.index for card in play.cards)
    if play.is_bomb:
        tier, rank = play.bomb_power
        return (1, tier, rank, indices)
    return (0, _TYPE_ORDER[play.kind], play.rank, indices)


def legal_actions(
    plays: Iterable[Play], level: Rank, *, following: bool, table: Play | None = None
) -> tuple[list[ProtocolAction], list[Action]]:
    """The actions to offer for ``plays`` (the engine's legal plays) and, index for index, the
    engine actions they stand for. A follower's list starts with PASS.

    A same-suit run of five naturals is a 同花顺 to our engine only, but the platform also lists
    it as a plain ``Straight`` wherever a straight of its rank is legal (leading, or over a lower
    straight ``table``): so do we, and either index plays the engine's 同花顺 (a bomb, never
    weaker than the straight); ``notify/play`` then names it ``StraightFlush``.
    """
    listed: list[ProtocolAction] = [list(PASS_ACTION)] if following else []
    actions: list[Action] = [Pass()] if following else []
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    plays = list(plays)
    readings = [(play, play_action(play, level)) for play in plays]
    readings += [
        (play, _straight_reading(play, level))
        for play in _flushes_as_straights(plays, level, following, table)
    ]
    for play, action in sorted(readings, key=lambda item: _reading_key(item[0], item[1][0])):
        key = (action[0], action[1], tuple(sorted(action[2])))
        if key not in seen:
            seen.add(key)
            listed.append(action)
            actions.append(PlayCards(play))
    return listed, actions


def _flushes_as_straights(plays: list[Play], level: Rank, following: bool, table: Play | None) -> list[Play]:
    """The natural 同花顺 among ``plays`` that may also be listed as a ``Straight`` here."""
    if following and (table is None or table.kind is not PlayKind.STRAIGHT):
        return []
    low = 0 if table is None else table.rank
    return [
        play
        for play in plays
        if play.kind is PlayKind.STRAIGHT_FLUSH
        and play.rank > low
        and not any(card.is_wildcard(level) for card in play.cards)
    ]


def _straight_reading(play: Play, level: Rank) -> ProtocolAction:
    _, rank, cards = play_action(play, level)
    return ["Straight", rank, cards]


def _reading_key(play: Play, type_name: str) -> tuple[int, int, int, tuple[int, ...]]:
    """:func:`_listing_key`, with a 同花顺 read as a straight listed among the straights."""
    if type_name == "Straight" and play.kind is PlayKind.STRAIGHT_FLUSH:
        return (0, _TYPE_ORDER[PlayKind.STRAIGHT], play.rank, tuple(card.index for card in play.cards))
    return _listing_key(play)


def tribute_actions(cards: Iterable[Card]) -> tuple[list[ProtocolAction], list[Action]]:
    """进贡: one ``["tribute", "tribute", [card]]`` per allowed card."""
    cards = list(cards)
    return [["tribute", "tribute", [card_text(c)]] for c in cards], [GiveTribute(c) for c in cards]


def back_actions(cards: Iterable[Card]) -> tuple[list[ProtocolAction], list[Action]]:
    """还贡: one ``["back", "back", [card]]`` per allowed card."""
    cards = list(cards)
    return [["back", "back", [card_text(c)]] for c in cards], [ReturnTribute(c) for c in cards]


# ---------------------------------------------------------------- server → client


def notify(stage: str, **fields: Any) -> Message:
    return {"type": "notify", "stage": stage, **fields}


def beginning(hand: Iterable[Card], seat: int) -> Message:
    """``notify/beginning``: the dealt hand and the seat."""
    return notify("beginning", handCards=cards_text(hand), myPos=seat)


def play_notice(
    cur_pos: int, cur_action: Sequence[Any], greater_pos: int, greater_action: Sequence[Any]
) -> Message:
    """``notify/play``: who just acted (a play or PASS) and the action to beat now."""
    return notify(
        "play",
        curPos=cur_pos,
        curAction=list(cur_action),
        greaterPos=greater_pos,
        greaterAction=greater_action,
    )


def exchange_notice(stage: str, moves: Iterable[tuple[int, int, Card]]) -> Message:
    """``notify/tribute`` or ``notify/back``: ``result`` = ``[[from_pos, to_pos, card], …]``."""
    return notify(stage, result=[[giver, receiver, card_text(card)] for giver, receiver, card in moves])


def anti_tribute_notice(seats: Sequence[int]) -> Message:
    """``notify/anti-tribute``: the seats whose 大王 refuse the tribute."""
    return notify("anti-tribute", antiNums=len(seats), antiPos=list(seats))


def episode_over(order: Sequence[int], level: Rank, rest: Iterable[tuple[int, Iterable[Card]]]) -> Message:
    """``notify/episodeOver``: the finishing order, the level played and the cards still held."""
    rest_cards = [[seat, cards_text(cards)] for seat, cards in rest]
    return notify("episodeOver", order=list(order), curRank=rank_text(level), restCards=rest_cards)


def game_over(games_played: int, games_set: int) -> Message:
    """``notify/gameOver``: a game (a race to pass A) ended; ``settingTimes`` 0 = no set number."""
    return notify("gameOver", curTimes=games_played, settingTimes=games_set)


def game_result(victories: Sequence[int], draws: Sequence[int]) -> Message:
    """``notify/gameResult``: games won and drawn per seat, at the end of the run."""
    return notify("gameResult", victoryNum=list(victories), draws=list(draws))


def public_info(rests: Sequence[int], areas: Sequence[ProtocolAction | None]) -> list[dict[str, Any]]:
    """Per seat: cards left and its action in the current trick (a play, PASS or, for ``None``,
    :data:`NO_ACTION`)."""
    return [{"rest": rest, "playArea": _or_none(area)} for rest, area in zip(rests, areas, strict=True)]


def _or_none(action: ProtocolAction | None) -> ProtocolAction:
    return list(NO_ACTION) if action is None else action


def act(
    stage: str,
    *,
    hand: Iterable[Card],
    info: list[dict[str, Any]],
    ranks: tuple[Rank, Rank, Rank],
    current: tuple[int, ProtocolAction | None],
    greater: tuple[int, ProtocolAction | None],
    actions: list[ProtocolAction],
) -> Message:
    """``act/play``, ``act/tribute`` or ``act/back``: the seat must answer with an index.

    ``ranks`` are the own team's level, the opponents' and the level played; ``current`` and
    ``greater`` are ``(-1, None)`` when the seat leads (after 接风 too) and in the exchange, sent
    as ``-1`` and :data:`NO_ACTION`.
    """
    self_rank, oppo_rank, cur_rank = ranks
    return {
        "type": "act",
        "stage": stage,
        "handCards": cards_text(hand),
        "publicInfo": info,
        "selfRank": rank_text(self_rank),
        "oppoRank": rank_text(oppo_rank),
        "curRank": rank_text(cur_rank),
        "curPos": current[0],
        "curAction": _or_none(current[1]),
        "greaterPos": greater[0],
        "greaterAction": _or_none(greater[1]),
        "actionList": actions,
        "indexRange": len(actions) - 1,
    }


def error(stage: str, reason: str) -> Message:
    """Sent before asking again after an invalid answer (the summary names no format)."""
    return {"type": "error", "stage": stage, "message": reason}


# ---------------------------------------------------------------- client → server


def parse_answer(text: str | bytes, index_range: int) -> int:
    """The index of ``{"actIndex": i}``; :class:`ProtocolError` says what is wrong otherwise."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not JSON: {text[:80]!r}") from exc
    if not isinstance(data, dict) or "actIndex" not in data:
        raise ProtocolError(f'expected {{"actIndex": i}}, got {str(data)[:80]}')
    index = data["actIndex"]
    if isinstance(index, bool) or not isinstance(index, int):
        raise ProtocolError(f"actIndex must be an integer, got {index!r}")
    if not 0 <= index <= index_range:
        raise ProtocolError(f"actIndex {index} is outside 0..{index_range}")
    return index
