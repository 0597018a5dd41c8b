"""The pure message layer against the protocol summary's own examples (NJUPT_PROTOCOL.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.actions import GiveTribute, Pass, PlayCards, ReturnTribute
from engine.cards import BIG_JOKER, SMALL_JOKER, Card, Rank, full_deck, parse_cards, parse_rank
from engine.classify import classify
from engine.moves import legal_plays
from engine.plays import Play, PlayKind
from tools.njupt import protocol
from tools.njupt.protocol import ProtocolError, action_play, legal_actions, parse_answer, play_action


def reading(cards: str, level: str, kind: PlayKind, rank: int | None = None) -> Play:
    found = [p for p in classify(cards, level) if p.kind is kind and (rank is None or p.rank == rank)]
    assert len(found) == 1, found
    return found[0]


# ---------------------------------------------------------------- cards and actions


def test_cards_are_two_characters_with_the_platforms_jokers() -> None:
    assert protocol.card_text(Card.parse("D5")) == "D5"
    assert protocol.card_text(Card.parse("HT")) == "HT"
    assert protocol.card_text(SMALL_JOKER) == "SB" and protocol.card_text(BIG_JOKER) == "HR"
    assert protocol.parse_card("SB") is SMALL_JOKER and protocol.parse_card("HR") is BIG_JOKER
    for bad in ("BJ ", "S10", "X5", 5):
        with pytest.raises(ValueError):
            protocol.parse_card(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("cards", "level", "kind", "rank", "golden"),
    [
        # the summary's examples
        ("D5", "2", PlayKind.SINGLE, None, ["Single", "5", ["D5"]]),
        ("H4 C4", "2", PlayKind.PAIR, None, ["Pair", "4", ["H4", "C4"]]),
        # a wildcard appears as itself (H9 at level 9), the level rank as its face
        ("S5 H9", "9", PlayKind.PAIR, None, ["Pair", "5", ["S5", "H9"]]),
        ("H9", "9", PlayKind.SINGLE, None, ["Single", "9", ["H9"]]),
        ("SB", "2", PlayKind.SINGLE, None, ["Single", "B", ["SB"]]),
        ("HR HR", "2", PlayKind.PAIR, None, ["Pair", "R", ["HR", "HR"]]),
        ("S7 S7 C7", "2", PlayKind.TRIPLE, None, ["Trips", "7", ["S7", "S7", "C7"]]),
        # full house: the triple's rank, the triple first
        (
            "S3 H3 SK HK DK",
            "2",
            PlayKind.FULL_HOUSE,
            None,
            ["ThreeWithTwo", "K", ["SK", "HK", "DK", "S3", "H3"]],
        ),
        (
            "S3 SK HK H9 H9",
            "9",
            PlayKind.FULL_HOUSE,
            13,
            ["ThreeWithTwo", "K", ["SK", "HK", "H9", "S3", "H9"]],
        ),
        # sequences: the lowest rank, A low in A2345, cards low to high, a wildcard where it stands
        ("SA D2 C3 S4 H5", "9", PlayKind.STRAIGHT, None, ["Straight", "A", ["SA", "D2", "C3", "S4", "H5"]]),
        ("ST DJ CQ SK HA", "9", PlayKind.STRAIGHT, None, ["Straight", "T", ["ST", "DJ", "CQ", "SK", "HA"]]),
        (
            "S3 S4 S6 S7 H9",
            "9",
            PlayKind.STRAIGHT_FLUSH,
            None,
            ["StraightFlush", "3", ["S3", "S4", "H9", "S6", "S7"]],
        ),
        (
            "SA HA S2 D2 C3 H3",
            "5",
            PlayKind.PAIR_RUN,
            None,
            ["ThreePair", "A", ["SA", "HA", "S2", "D2", "H3", "C3"]],
        ),
        (
            "SQ HQ DQ SK CK DK",
            "2",
            PlayKind.TRIPLE_RUN,
            None,
            ["TwoTrips", "Q", ["SQ", "HQ", "DQ", "SK", "CK", "DK"]],
        ),
        # bombs: a wildcard bomb shows its cards, 四王 is a Bomb of rank JOKER
        ("S7 C7 D7 H9", "9", PlayKind.BOMB, None, ["Bomb", "7", ["S7", "C7", "D7", "H9"]]),
        ("S9 C9 D9 D9", "9", PlayKind.BOMB, None, ["Bomb", "9", ["S9", "C9", "D9", "D9"]]),
        ("SB SB HR HR", "2", PlayKind.JOKER_BOMB, None, ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]),
    ],
)
def test_plays_are_written_as_the_platform_writes_them(
    cards: str, level: str, kind: PlayKind, rank: int | None, golden: list[object]
) -> None:
    play = reading(cards, level, kind, rank)
    assert play_action(play, parse_rank(level)) == golden
    assert action_play(golden, level) == play


def test_pass_tribute_and_back_actions() -> None:
    assert list(protocol.PASS_ACTION) == ["PASS", "PASS", "PASS"]
    listed, actions = protocol.tribute_actions([Card.parse("D5")])
    assert listed == [["tribute", "tribute", ["D5"]]] and actions == [GiveTribute(Card.parse("D5"))]
    listed, actions = protocol.back_actions(parse_cards("D5 S3"))
    assert listed == [["back", "back", ["D5"]], ["back", "back", ["S3"]]]
    assert actions == [ReturnTribute(Card.parse("D5")), ReturnTribute(Card.parse("S3"))]


def test_an_action_that_is_not_a_reading_is_refused() -> None:
    for bad in (
        ["Pair", "5", ["S5", "D6"]],
        ["Single", "6", ["S5"]],
        ["Pair", "5"],
        "PASS",
        ["Bomb", "7", "S7"],
    ):
        with pytest.raises(ProtocolError):
            action_play(bad, "2")


# ---------------------------------------------------------------- legal-action lists


def test_a_follower_gets_pass_first_then_greater_plays_then_bombs() -> None:
    hand = parse_cards("S3 S6 H6 DK SA S7 C7 D7 H7")
    table = reading("S5", "2", PlayKind.SINGLE)
    listed, actions = legal_actions(legal_plays(hand, "2", table), Rank.TWO, following=True)
    assert listed[0] == ["PASS", "PASS", "PASS"] and actions[0] == Pass()
    kinds = [action[0] for action in listed[1:]]
    assert kinds == ["Single"] * kinds.count("Single") + ["Bomb"]
    assert [action[1] for action in listed[1:-1]] == ["6", "6", "7", "7", "7", "7", "K", "A"]
    assert listed[-1] == ["Bomb", "7", ["S7", "H7", "C7", "D7"]]
    for action, engine_action in zip(listed, actions, strict=True):
        assert action == ["PASS"] * 3 or engine_action == PlayCards(action_play(action, "2"))


def test_a_leader_gets_no_pass_kinds_in_the_platforms_order_and_bombs_up_the_ladder() -> None:
    hand = parse_cards("S3 H3 S4 H4 S5 H5 S6 S7 C9 C9 C9 D9")
    listed, _ = legal_actions(legal_plays(hand, "2"), Rank.TWO, following=False)
    kinds = [action[0] for action in listed]
    assert "PASS" not in kinds
    order = ["Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo", "Straight"]
    assert kinds[:-2] == sorted(kinds[:-2], key=order.index)
    assert set(kinds[:-2]) == set(order)
    assert listed[-2:] == [  # a 4-card bomb is below a straight flush
        ["Bomb", "9", ["C9", "C9", "C9", "D9"]],
        ["StraightFlush", "3", ["S3", "S4", "S5", "S6", "S7"]],
    ]


def test_a_wildcard_bomb_is_listed_once_per_distinct_set_of_cards() -> None:
    """S7 S7 C7 with both ♥9 at level 9: bombs of 7s from four and five cards, each card set once."""
    hand = parse_cards("S7 S7 C7 H9 H9")
    listed, _ = legal_actions(legal_plays(hand, "9"), Rank.NINE, following=False)
    bombs = sorted(sorted(action[2]) for action in listed if action[0] == "Bomb")
    assert bombs == [
        ["C7", "H9", "H9", "S7"],
        ["C7", "H9", "H9", "S7", "S7"],
        ["C7", "H9", "S7", "S7"],
        ["H9", "H9", "S7", "S7"],
    ]


def test_every_listed_action_reads_back_as_the_play_it_stands_for() -> None:
    rng = random.Random(12)
    for _ in range(20):
        deck = full_deck()
        rng.shuffle(deck)
        level = rng.choice(list(Rank)[:13])
        hand = deck[:27]
        listed, actions = legal_actions(legal_plays(hand, level), level, following=False)
        assert len({json.dumps([a[0], a[1], sorted(a[2])]) for a in listed}) == len(listed)
        for index in rng.sample(range(len(listed)), 40):
            engine_action = actions[index]
            assert isinstance(engine_action, PlayCards)
            assert action_play(listed[index], level) == engine_action.play


# ---------------------------------------------------------------- messages


def test_notices_have_the_summarys_fields() -> None:
    hand = parse_cards("S2 H2 SB")
    assert protocol.beginning(hand, 1) == {
        "type": "notify",
        "stage": "beginning",
        "handCards": ["S2", "H2", "SB"],
        "myPos": 1,
    }
    single = ["Single", "5", ["D5"]]
    assert protocol.play_notice(2, protocol.PASS_ACTION, 1, single) == {
        "type": "notify",
        "stage": "play",
        "curPos": 2,
        "curAction": ["PASS", "PASS", "PASS"],
        "greaterPos": 1,
        "greaterAction": single,
    }
    assert protocol.exchange_notice("tribute", [(0, 3, Card.parse("S2"))]) == {
        "type": "notify",
        "stage": "tribute",
        "result": [[0, 3, "S2"]],
    }
    assert protocol.exchange_notice("back", [(3, 0, Card.parse("S2")), (1, 2, Card.parse("D3"))])[
        "result"
    ] == [
        [3, 0, "S2"],
        [1, 2, "D3"],
    ]
    assert protocol.anti_tribute_notice((0, 2)) == {
        "type": "notify",
        "stage": "anti-tribute",
        "antiNums": 2,
        "antiPos": [0, 2],
    }
    assert protocol.episode_over((0, 2, 1, 3), Rank.TEN, [(1, hand), (3, [BIG_JOKER])]) == {
        "type": "notify",
        "stage": "episodeOver",
        "order": [0, 2, 1, 3],
        "curRank": "T",
        "restCards": [[1, ["S2", "H2", "SB"]], [3, ["HR"]]],
    }
    assert protocol.game_over(1, 3) == {
        "type": "notify",
        "stage": "gameOver",
        "curTimes": 1,
        "settingTimes": 3,
    }
    assert protocol.game_result([2, 0, 2, 0], [0, 0, 0, 0]) == {
        "type": "notify",
        "stage": "gameResult",
        "victoryNum": [2, 0, 2, 0],
        "draws": [0, 0, 0, 0],
    }


def test_an_act_message_has_every_field_and_the_index_range() -> None:
    info = protocol.public_info([27, 26, 27, 27], [None, ["Single", "5", ["D5"]], None, None])
    actions: list[list[Any]] = [["PASS", "PASS", "PASS"], ["Single", "9", ["S9"]]]
    message = protocol.act(
        "play",
        hand=parse_cards("S9 HR"),
        info=info,
        ranks=(Rank.TWO, Rank.THREE, Rank.THREE),
        current=(1, ["Single", "5", ["D5"]]),
        greater=(1, ["Single", "5", ["D5"]]),
        actions=actions,
    )
    assert message == {
        "type": "act",
        "stage": "play",
        "handCards": ["S9", "HR"],
        "publicInfo": [
            {"rest": 27, "playArea": [None, None, None]},
            {"rest": 26, "playArea": ["Single", "5", ["D5"]]},
            {"rest": 27, "playArea": [None, None, None]},
            {"rest": 27, "playArea": [None, None, None]},
        ],
        "selfRank": "2",
        "oppoRank": "3",
        "curRank": "3",
        "curPos": 1,
        "curAction": ["Single", "5", ["D5"]],
        "greaterPos": 1,
        "greaterAction": ["Single", "5", ["D5"]],
        "actionList": actions,
        "indexRange": 1,
    }
    json.dumps(message)


def test_no_action_is_three_nones_as_the_platform_sends_it_never_null() -> None:
    """Issue 22.3: a captured platform ``act`` (quoted in a published client) has
    ``'curAction': [None, None, None]`` and ``'playArea': [None, None, None]`` where we sent null."""
    message = protocol.act(
        "play",
        hand=parse_cards("S9"),
        info=protocol.public_info([1, 27, 27, 27], [None, None, None, None]),
        ranks=(Rank.TWO, Rank.TWO, Rank.TWO),
        current=(-1, None),
        greater=(-1, None),
        actions=[["Single", "9", ["S9"]]],
    )
    assert message["curPos"] == message["greaterPos"] == -1
    assert message["curAction"] == message["greaterAction"] == [None, None, None]
    assert [info["playArea"] for info in message["publicInfo"]] == [[None, None, None]] * 4
    assert '"curAction": [null, null, null]' in json.dumps(message)


FLUSH = "S5 S6 S7 S8 S9"


def test_a_natural_straight_flush_is_listed_as_a_straight_too_when_leading() -> None:
    """Issue 22.2: the platform lists a same-suit run both ways; a client asking for the plain
    ``Straight`` reading found none. Either index plays our engine's 同花顺."""
    listed, actions = legal_actions(legal_plays(parse_cards(FLUSH), "2"), Rank.TWO, following=False)
    straight = ["Straight", "5", ["S5", "S6", "S7", "S8", "S9"]]
    flush = ["StraightFlush", "5", ["S5", "S6", "S7", "S8", "S9"]]
    assert straight in listed and flush in listed
    assert listed.index(straight) < listed.index(flush)  # among the straights, before the bombs
    assert actions[listed.index(straight)] == actions[listed.index(flush)]
    assert action_play(straight, "2").kind is PlayKind.STRAIGHT_FLUSH


@pytest.mark.parametrize(("table", "as_straight"), [("D3 C4 H5 S6 D7", True), ("DT CJ HQ SK DA", False)])
def test_following_a_straight_the_flush_is_a_straight_only_if_it_beats_it(
    table: str, as_straight: bool
) -> None:
    to_beat = reading(table, "2", PlayKind.STRAIGHT)
    hand = parse_cards(FLUSH + " D2")
    listed, _ = legal_actions(legal_plays(hand, "2", to_beat), Rank.TWO, following=True, table=to_beat)
    assert (["Straight", "5", ["S5", "S6", "S7", "S8", "S9"]] in listed) is as_straight
    assert ["StraightFlush", "5", ["S5", "S6", "S7", "S8", "S9"]] in listed


def test_following_another_kind_the_flush_is_only_a_bomb() -> None:
    to_beat = reading("D3", "2", PlayKind.SINGLE)
    hand = parse_cards(FLUSH)
    listed, _ = legal_actions(legal_plays(hand, "2", to_beat), Rank.TWO, following=True, table=to_beat)
    assert not any(action[0] == "Straight" for action in listed)


# ---------------------------------------------------------------- answers


def test_a_valid_answer_is_its_index() -> None:
    assert parse_answer('{"actIndex": 0}', 0) == 0
    assert parse_answer(b'{"actIndex": 3, "extra": 1}', 3) == 3


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("3", "expected"),
        ("{not json", "not JSON"),
        ('{"index": 1}', "expected"),
        ('{"actIndex": "1"}', "integer"),
        ('{"actIndex": true}', "integer"),
        ('{"actIndex": 1.0}', "integer"),
        ('{"actIndex": 4}', "outside 0..3"),
        ('{"actIndex": -1}', "outside 0..3"),
        (b"\xff", "not JSON"),
    ],
)
def test_an_invalid_answer_says_why(text: str | bytes, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_answer(text, 3)
