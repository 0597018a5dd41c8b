"""What a seat may see: its own hand and the public table, never another hand."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import DealEnded, DealStarted, GiveTribute, Pass, Phase, PlayCards
from engine.cards import Card, Rank, parse_cards
from engine.match import Match, observe, observe_deal_end
from engine.observation import Observation
from engine.rules import CountVisibility, Rules
from tools.selfplay import random_action


def shown_cards(obs: Observation) -> Counter[Card]:
    """Every card the observation carries outside the seat's own hand and the table."""
    cards: Counter[Card] = Counter()
    for view in obs.tributes:
        if view.card is not None:
            cards[view.card] += 1
    cards.update(obs.must_tribute_from)
    cards.update(obs.may_return)
    return cards


def check_view(match: Match, seat: int | None) -> None:
    obs = observe(match, seat)
    assert obs.version == match.version and obs.phase is match.phase
    if seat is None:
        assert obs.hand == () and obs.must_tribute_from == () and obs.may_return == ()
    else:
        assert obs.hand == match.hand(seat)
        assert set(obs.must_tribute_from) <= set(obs.hand) and set(obs.may_return) <= set(obs.hand)
        assert obs.seats[seat].cards_left == len(obs.hand)
    for view in obs.seats:
        if view.seat != seat and view.cards_left is not None:
            assert view.cards_left <= match.rules.report_threshold or view.cards_left == 0
    for exchange in obs.tributes:
        if exchange.is_return and exchange.card is not None:
            assert seat in (exchange.giver, exchange.receiver)
        if not exchange.is_return:
            assert match.paid[exchange.giver] == exchange.card  # the tribute card itself is public
    if seat is not None:
        own = Counter(obs.hand)
        assert all(own[card] for card in shown_cards(obs) - _tribute_cards(obs))
    check_history(match, obs)


def check_history(match: Match, obs: Observation) -> None:
    """The public record: the same for every observer, exactly the cards played, counts per 报牌."""
    assert obs.history is observe(match, None).history  # one shared tuple, nothing per seat
    played = [card for turn in obs.history if turn.play is not None for card in turn.play.cards]
    assert played == list(match.played)
    for turn in obs.history:
        if turn.cards_left is not None:
            assert turn.cards_left <= match.rules.report_threshold or turn.cards_left == 0
    tricks = [turn.trick for turn in obs.history]
    assert tricks == sorted(tricks)
    if obs.history and match.table_play is not None:
        assert obs.history[-1].trick == max(tricks)
        current = [turn for turn in obs.history if turn.trick == tricks[-1]]
        assert current[0].play is not None  # a trick opens with a lead
        assert {turn.seat: turn.play for turn in current} == {
            s: match.trick_mark(s)[0] for s in range(4) if match.trick_mark(s) != (None, False)
        }


def _tribute_cards(obs: Observation) -> Counter[Card]:
    return Counter(view.card for view in obs.tributes if view.card is not None)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 300))
def test_observations_never_show_another_seats_cards(seed: int, steps: int) -> None:
    match = Match.new(Rules.default(), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.is_over:
            break
        for seat in (0, 1, 2, 3, None):
            check_view(match, seat)
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))


def test_card_counts_follow_the_report_rule() -> None:
    hands = [parse_cards(h) for h in ("S3 S4 S5 S6 S7 S8 S9", "D3 D4", "C3 C4 C5 C6 C7 C8", "H3")]
    match = Match.from_position(Rules.default(), hands)
    counts = [view.cards_left for view in observe(match, 1).seats]
    assert counts == [None, 2, 6, 1]  # seat 0 holds 7 > 6: hidden from others
    assert [v.cards_left for v in observe(match, 0).seats] == [7, 2, 6, 1]
    always = Match.from_position(Rules.default().replace(count_visibility=CountVisibility.ALWAYS), hands)
    assert [v.cards_left for v in observe(always, None).seats] == [7, 2, 6, 1]
    never = Match.from_position(Rules.default().replace(count_visibility=CountVisibility.NEVER), hands)
    assert [v.cards_left for v in observe(never, 2).seats] == [None, None, 6, None]


def test_tribute_view_lists_the_allowed_cards_only_for_the_payer() -> None:
    hands = [parse_cards(h) for h in ("S3", "D3", "C3", "SA HA S4")]
    match = Match.from_position(Rules.default(), hands, previous_order=(0, 1, 2, 3))
    assert match.phase is Phase.TRIBUTE
    assert observe(match, 3).must_tribute_from == (Card.parse("SA"), Card.parse("HA"))
    assert observe(match, 0).must_tribute_from == () and observe(match, None).must_tribute_from == ()
    match.apply(3, GiveTribute(Card.parse("SA")))
    assert observe(match, 0).may_return == (Card.parse("S3"),)
    assert observe(match, 3).may_return == ()
    assert observe(match, 1).tributes[0].card == Card.parse("SA")  # the tribute card is shown
    assert observe(match, 1).level is Rank.TWO


def test_history_records_plays_passes_tricks_and_reported_counts() -> None:
    hands = [parse_cards(h) for h in ("S3 S4 S9", "D5 D6", "C7 C8", "H3 SK")]
    match = Match.from_position(Rules.default(), hands)
    for seat, action in (
        (0, "S3"),
        (1, "D5"),
        (2, "C7"),
        (3, None),
        (0, "S9"),
        (1, None),
        (2, None),
        (3, None),
        (0, "S4"),
    ):
        play = match.resolve(seat, parse_cards(action)) if action else None
        match.apply(seat, PlayCards(play) if play else Pass())
    history = observe(match, 3).history
    assert [(t.seat, str(t.play) if t.play else None, t.trick) for t in history] == [
        (0, "S3", 0),
        (1, "D5", 0),
        (2, "C7", 0),
        (3, None, 0),
        (0, "S9", 0),
        (1, None, 0),
        (2, None, 0),
        (3, None, 0),
        (0, "S4", 1),
    ]
    assert [t.cards_left for t in history] == [2, 1, 1, 2, 1, 1, 1, 2, 0]  # all at or under the threshold
    hidden = Match.from_position(Rules.default().replace(count_visibility=CountVisibility.NEVER), hands)
    hidden.apply(0, PlayCards(hidden.resolve(0, parse_cards("S3"))))
    assert observe(hidden, 0).history[0].cards_left is None  # not even the own count: it is public
    assert observe(hidden, 1).history is observe(hidden, 2).history


def test_the_play_to_beat_is_the_tables_unless_it_is_ones_own() -> None:
    """One fact in one place (issue 19): ``play_to_beat`` is what the old inline
    ``obs.table_play if obs.table_seat != seat else None`` said, for every seat and the public."""
    rng = random.Random(19)
    match = Match.new(Rules.default(), seed=19)
    for _ in range(200):
        if match.phase is Phase.MATCH_OVER:
            break
        for seat in (None, 0, 1, 2, 3):
            obs = observe(match, seat)
            for asked in (None, 0, 1, 2, 3):
                beating = obs.seat if asked is None else asked
                expected = obs.table_play if obs.table_seat != beating else None
                assert obs.play_to_beat(asked) == expected
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))


def test_the_end_of_a_deal_stays_observable_once_the_next_is_dealt() -> None:
    """The action that ends a deal deals the next one: each seat's last look at the deal keeps
    the cards it was left with, the places, and nobody to act (the hand message's last look)."""
    match, rng = Match.new(Rules.default(), 5), random.Random(5)
    assert observe_deal_end(match, 0) is None
    while not match.deal_results:
        seat = match.to_act[0]
        before = [list(match.hand(s)) for s in range(4)]
        action = random_action(match, seat, rng)
        events = match.apply(seat, action)
    assert isinstance(action, PlayCards)
    for card in action.play.cards:
        before[seat].remove(card)
    ended = next(e for e in events if isinstance(e, DealEnded))
    assert any(isinstance(e, DealStarted) and e.deal_number == 2 for e in events)
    for viewer in range(4):
        obs = observe_deal_end(match, viewer)
        assert obs is not None and obs.seat == viewer and obs.deal_number == 1
        assert list(obs.hand) == before[viewer] and obs.level is Rank.TWO
        assert obs.finish_order == ended.finish_order and obs.to_act == () and obs.table_play is None
        assert [view.place for view in obs.seats] == [ended.finish_order.index(s) + 1 for s in range(4)]
        assert obs.seats[viewer].cards_left == len(obs.hand)
        assert observe(match, viewer).deal_number == 2
