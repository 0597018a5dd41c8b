"""不洗牌 deals: gathered in play order, cut once, dealt in packets, replayed exactly."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import dealing
from engine.actions import DealEnded, DealStarted, Played
from engine.cards import Card, Rank, full_deck, sort_hand
from engine.match import Match, deal_seed, observe
from engine.presets import CASUAL_PRESET
from engine.rules import PRESETS, Rules
from engine.variants import ShuffleProcedure
from players.policies import greedy_policy

NO_SHUFFLE = Rules.default().replace(shuffle=ShuffleProcedure.NONE)


def _deck_split(played: int) -> tuple[list[Card], list[list[Card]]]:
    """The two packs as ``played`` cards played and the rest in four leftover hands."""
    deck = full_deck()
    random.Random(7).shuffle(deck)
    rest = deck[played:]
    return deck[:played], [rest[seat::4] for seat in range(4)]


def test_the_stack_is_the_plays_in_order_then_the_hands_in_finishing_order() -> None:
    played, hands = _deck_split(60)
    stack = dealing.gather(played, hands, (2, 0, 3, 1), Rank.TWO)
    assert stack[:60] == played
    top = [sort_hand(hands[seat], Rank.TWO) for seat in (2, 0, 3, 1)]
    assert stack[60:] == [card for hand in top for card in hand]  # the 末游's hand, seat 1, on top


def test_a_cut_short_deal_puts_unplaced_seats_after_the_placed_ones() -> None:
    played, hands = _deck_split(40)
    stack = dealing.gather(played, hands, (3,), Rank.TWO)
    top = [sort_hand(hands[seat], Rank.TWO) for seat in (3, 0, 1, 2)]
    assert stack[40:] == [card for hand in top for card in hand]


def test_a_stack_missing_a_card_is_refused() -> None:
    played, hands = _deck_split(60)
    with pytest.raises(ValueError, match="107"):
        dealing.gather(played[1:], hands, (0, 1, 2, 3), Rank.TWO)


@pytest.mark.parametrize("seed", range(20))
def test_the_cut_lifts_cards_off_the_top_and_puts_them_underneath(seed: int) -> None:
    stack = list(range(108))  # bottom first; distinct values show where every card went
    cut = dealing.cut(stack, random.Random(seed))
    lifted = 108 - cut[0]
    assert dealing.CUT_MIN <= lifted <= 108 - dealing.CUT_MIN
    assert cut == stack[-lifted:] + stack[:-lifted]


def test_packets_go_round_from_the_top_starting_with_the_first_seat() -> None:
    stack = full_deck()
    hands = dealing.deal_in_packets(stack, first=3)
    packet = dealing.PACKET
    assert hands[3][:packet] == list(reversed(stack[-packet:]))  # the top card first
    assert hands[0][:packet] == list(reversed(stack[-2 * packet : -packet]))
    assert [len(hand) for hand in hands] == [27] * 4
    assert Counter(card for hand in hands for card in hand) == Counter(stack)


def test_four_cards_played_in_a_row_mostly_come_back_in_one_hand() -> None:
    """What the mode is played for: a bomb played is dealt again whole unless the cut puts a
    packet's edge inside it (at most 3 of 9 positions)."""
    stack = list(range(108))
    bomb = set(range(52, 56))
    whole = sum(
        any(bomb <= set(hand) for hand in dealing.deal_in_packets(dealing.cut(stack, random.Random(seed)), 0))
        for seed in range(60)
    )
    assert whole >= 30


Deal = tuple[Match, list[list[Card]], list[tuple[int, Card]], tuple[int, ...]]


def _deal_one(rules: Rules, seed: int) -> Deal:
    """Play deal 1 (no tribute) with greedy players: its hands as dealt, each card played with
    its seat, and the finishing order."""
    match, rng = Match.new(rules, seed), random.Random(seed)
    dealt = [list(match.hand(seat)) for seat in range(4)]
    played: list[tuple[int, Card]] = []
    while match.deal_number == 1:
        seat = match.to_act[0]
        for event in match.apply(seat, greedy_policy(observe(match, seat), rules, rng)):
            if isinstance(event, Played):
                played.extend((event.seat, card) for card in event.play.cards)
            if isinstance(event, DealEnded):
                order = event.finish_order
    return match, dealt, played, order


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_second_deal_is_the_first_deals_table_gathered_cut_and_dealt(seed: int) -> None:
    match, dealt, played, order = _deal_one(NO_SHUFFLE, seed)
    by_seat = [[card for who, card in played if who == seat] for seat in range(4)]
    held = [list((Counter(hand) - Counter(by_seat[seat])).elements()) for seat, hand in enumerate(dealt)]
    rng = random.Random(deal_seed(seed, 2))
    expected = dealing.unshuffled_hands([card for _, card in played], held, order, Rank.TWO, rng)
    assert [Counter(match.hand(s)) for s in range(4)] == [Counter(h) for h in expected]


def test_shuffled_rules_deal_the_second_deal_from_the_seed_alone() -> None:
    match, _dealt, _played, _order = _deal_one(Rules.default(), 1)
    expected = dealing.shuffled_hands(random.Random(deal_seed(1, 2)))
    assert [Counter(match.hand(s)) for s in range(4)] == [Counter(h) for h in expected]


def test_a_replay_rebuilds_every_unshuffled_deal() -> None:
    match, rng = Match.new(NO_SHUFFLE, 11), random.Random(11)
    while match.deal_number < 4 and not match.is_over:
        seat = match.to_act[0]
        match.apply(seat, greedy_policy(observe(match, seat), NO_SHUFFLE, rng))
    again = Match.replay(NO_SHUFFLE, 11, match.history)
    assert [again.hand(s) for s in range(4)] == [match.hand(s) for s in range(4)]
    started = [e for e in again.events if isinstance(e, DealStarted)]
    assert len(started) == match.deal_number


def test_only_casual_presets_deal_without_shuffling() -> None:
    unshuffled = {name for name, preset in PRESETS.items() if preset.rules.shuffle is ShuffleProcedure.NONE}
    assert unshuffled == {"noshuffle"}
    assert PRESETS["noshuffle"].rules.card_counter and PRESETS[CASUAL_PRESET].rules.shuffle is not None
