"""理牌: hand display order, bomb and straight-flush groups, and how plays are laid out."""

from __future__ import annotations

from engine.cards import Rank, format_cards, parse_cards, sort_hand
from engine.classify import classify
from engine.plays import PlayKind
from render.arrange import arrange_hand, arrange_play, arrange_positions, hand_groups
from render.samples import deal


def test_strongest_first_jokers_then_level_then_ace_down() -> None:
    hand = sort_hand(parse_cards("S2 H7 RJ SA BJ D7 C3 HK"), Rank.SEVEN)
    assert format_cards(arrange_hand(hand, Rank.SEVEN)) == "RJ BJ H7 D7 SA HK C3 S2"


def test_suits_inside_a_rank_are_spades_hearts_clubs_diamonds() -> None:
    hand = parse_cards("D9 C9 S9 H9")
    assert format_cards(arrange_hand(hand, Rank.TWO)) == "S9 H9 C9 D9"


def test_positions_are_a_permutation_matching_the_cards() -> None:
    hand = sort_hand(deal(4)[0], Rank.TEN)
    positions = arrange_positions(hand, Rank.TEN, group=True)
    assert sorted(positions) == list(range(27))
    assert [hand[p] for p in positions] == arrange_hand(hand, Rank.TEN, group=True)


def test_grouping_sets_bombs_and_straight_flushes_apart() -> None:
    hand = parse_cards("S9 H9 C9 D9 S9 H3 H4 H5 H6 H7 CK DQ")
    groups = hand_groups(hand, Rank.TWO, group=True)
    shown = [format_cards(hand[i] for i in g) for g in groups]
    assert shown == ["CK DQ", "S9 S9 H9 C9 D9", "H7 H6 H5 H4 H3"]


def test_straight_flush_group_is_five_consecutive_cards_of_one_suit() -> None:
    hand = parse_cards("H3 H4 H5 H6 H7 CK")
    groups = hand_groups(hand, Rank.TWO, group=True)
    assert [format_cards(hand[i] for i in g) for g in groups] == ["CK", "H7 H6 H5 H4 H3"]


def test_four_jokers_group_as_a_bomb() -> None:
    hand = parse_cards("BJ RJ BJ RJ S3")
    groups = hand_groups(hand, Rank.TWO, group=True)
    assert [len(g) for g in groups] == [1, 4]


def test_without_grouping_one_group() -> None:
    hand = parse_cards("S9 H9 C9 D9 S3")
    assert len(hand_groups(hand, Rank.TWO)) == 1
    assert hand_groups([], Rank.TWO) == []


def test_a_wildcard_sits_in_the_straight_gap_it_fills() -> None:
    play = next(p for p in classify("S3 S4 H7 S6 S7", "7") if p.kind is PlayKind.STRAIGHT and p.rank == 7)
    assert format_cards(arrange_play(play, Rank.SEVEN)) == "S3 S4 H7 S6 S7"


def test_pair_run_with_a_wildcard_keeps_pairs_together() -> None:
    play = next(p for p in classify("S3 S3 S4 S4 H7 S5", "7") if p.kind is PlayKind.PAIR_RUN)
    assert format_cards(arrange_play(play, Rank.SEVEN)) == "S3 S3 S4 S4 S5 H7"


def test_full_house_shows_the_triple_first() -> None:
    plays = {p.rank: p for p in classify("H7 S5 H5 C8 D8", "7") if p.kind is PlayKind.FULL_HOUSE}
    assert format_cards(arrange_play(plays[5], Rank.SEVEN)) == "S5 H5 H7 C8 D8"
    assert format_cards(arrange_play(plays[8], Rank.SEVEN)) == "C8 D8 H7 S5 H5"


def test_bomb_shows_naturals_then_wildcards() -> None:
    play = next(p for p in classify("H7 S9 H9 C9", "7") if p.kind is PlayKind.BOMB)
    assert format_cards(arrange_play(play, Rank.SEVEN)) == "S9 H9 C9 H7"
