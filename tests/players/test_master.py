"""大师 (``master``): legal, deterministic given its seed, blind to hidden hands, within its budget."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from engine.actions import OUTCOMES, Action, DealEnded, Pass, Phase, PlayCards
from engine.cards import CARDS, Card, full_deck
from engine.match import CARDS_PER_SEAT, Match, observe
from engine.observation import Observation
from engine.rules import Rules
from engine.scoring import outcome_of
from players import master, planner
from players.master import Budget, sample_hands
from players.policies import seeded
from tools.searchcheck import fours

RULES = Rules.preset("default")
SMALL = Budget(cards=600, min_samples=2, max_samples=4)
"""Enough to search in tests, small enough to be quick."""


def dealt(seed: int) -> list[list[Card]]:
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    return [deck[i * CARDS_PER_SEAT : (i + 1) * CARDS_PER_SEAT] for i in range(4)]


def searched_spot(seed: int, in_play: int = 60) -> tuple[Match, list[list[Card]]]:
    """A first deal played by 标准 until at most ``in_play`` cards are left, with the dealt hands."""
    hands = dealt(seed)
    match = Match.from_position(RULES, hands, leader=seed % 4)
    while sum(len(match.hand(seat)) for seat in range(4)) > in_play or match.table_play is None:
        seat = match.to_act[0]
        match.apply(seat, planner.choose_action(observe(match, seat), RULES))
    return match, hands


def reshuffled(match: Match, hands: list[list[Card]], seed: int) -> Match:
    """The same public deal with the other seats' unplayed cards dealt among them anew."""
    me = match.to_act[0]
    others = [seat for seat in range(4) if seat != me]
    rest = [card for seat in others for card in match.hand(seat)]
    random.Random(seed).shuffle(rest)
    start = [list(hand) for hand in hands]
    for seat in others:
        played = Counter(hands[seat]) - Counter(match.hand(seat))
        count = len(match.hand(seat))
        start[seat] = list(played.elements()) + rest[:count]
        rest = rest[count:]
    other = Match.from_position(RULES, start, leader=match.history[0][0] or 0)
    for seat, action in match.history:
        other.apply(seat, action)
    return other


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_same_observation_gets_the_same_action_whatever_the_hidden_hands(seed: int) -> None:
    match, hands = searched_spot(seed)
    me = match.to_act[0]
    other = reshuffled(match, hands, seed + 100)
    assert [other.hand(s) for s in range(4)] != [match.hand(s) for s in range(4)]
    obs, same = observe(match, me), observe(other, me)
    assert obs == same
    first = master.choose_action(obs, RULES, random.Random(7), SMALL)
    assert master.choose_action(same, RULES, random.Random(7), SMALL) == first


@pytest.mark.parametrize("seed", [4, 5])
def test_a_whole_deal_of_master_seats_is_legal_and_repeats_from_its_seed(seed: int) -> None:
    def play_out() -> list[tuple[int | None, Action]]:
        match = Match.from_position(RULES, dealt(seed), leader=0)
        rngs = [random.Random(f"{seed}:{seat}") for seat in range(4)]
        while match.phase is Phase.PLAY:
            seat = match.to_act[0]
            action = master.choose_action(observe(match, seat), RULES, rngs[seat], SMALL)
            assert isinstance(action, PlayCards | Pass)
            match.copy().apply(seat, action)  # the engine accepts it
            match.apply(seat, action)
            if match.deal_number > 1 or match.is_over:
                break
        return list(match.history)

    assert play_out() == play_out()


def test_the_budget_bounds_the_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    match, _ = searched_spot(6)
    obs = observe(match, match.to_act[0])
    calls = 0
    original = master._Rollout.value

    def counted(self: master._Rollout, first: Action) -> float:
        nonlocal calls
        calls += 1
        return original(self, first)

    monkeypatch.setattr(master._Rollout, "value", counted)
    budget = Budget(cards=10**6, candidates=3, min_samples=1, max_samples=2)
    master.choose_action(obs, RULES, random.Random(0), budget)
    assert 0 < calls <= 3 * 2
    calls = 0
    master.choose_action(obs, RULES, random.Random(0), Budget(search_from=0))
    assert calls == 0  # outside the search window 大师 plays 标准's choice


def test_before_the_search_window_it_plays_as_标准() -> None:
    match = Match.from_position(RULES, dealt(8), leader=1)
    obs = observe(match, 1)
    assert master.choose_action(obs, RULES, random.Random(0)) == planner.choose_action(obs, RULES)


@pytest.mark.parametrize("seed", [9, 10])
def test_sampled_hands_hold_exactly_the_unseen_cards_in_the_shown_counts(seed: int) -> None:
    match, _ = searched_spot(seed)
    me = match.to_act[0]
    obs = observe(match, me)
    hands = sample_hands(obs, random.Random(seed))
    assert hands is not None and hands[me] == list(obs.hand)
    assert [len(hand) for hand in hands] == [len(match.hand(seat)) for seat in range(4)]
    played = Counter(card for turn in obs.history if turn.play for card in turn.play.cards)
    everything = Counter(card for hand in hands for card in hand) + played
    assert everything == Counter({card: 2 for card in CARDS})


def test_a_tribute_card_seen_given_is_in_the_receivers_sampled_hand() -> None:
    """After the exchange, what this seat saw given stays with the receiver until played."""
    match = Match.from_position(RULES, dealt(11), previous_order=(0, 1, 2, 3), leader=0)
    while match.phase is not Phase.PLAY:
        seat = match.to_act[0]
        match.apply(seat, planner.choose_action(observe(match, seat), RULES))
    seen = [
        (view, seat) for seat in range(4) for view in observe(match, seat).tributes if view.card is not None
    ]
    assert seen
    for view, seat in seen:
        if view.receiver == seat:
            continue
        obs = observe(match, seat)
        if obs.seat not in obs.to_act:
            obs = _as_if_to_act(obs)
        hands = sample_hands(obs, random.Random(0))
        assert hands is not None and view.card in hands[view.receiver]


def _as_if_to_act(obs: Observation) -> Observation:
    assert obs.seat is not None
    return replace(obs, to_act=(obs.seat,))


def test_the_seeded_policy_answers_an_observation_the_same_way_every_time() -> None:
    match, _ = searched_spot(12)
    obs = observe(match, match.to_act[0])
    play = seeded("master", 3)
    assert play(obs, RULES) == play(obs, RULES)


@pytest.mark.parametrize("seed", [13, 14, 15])
def test_a_rollout_on_the_true_hands_ends_the_deal_as_the_engine_does(seed: int) -> None:
    """The search's own table (tricks, passes, 接风, the finishing order) against the match's."""
    match, _ = searched_spot(seed, in_play=80)
    me = match.to_act[0]
    obs = observe(match, me)
    first = planner.choose_action(obs, RULES)
    value = master._Rollout(obs, RULES, [list(match.hand(seat)) for seat in range(4)]).value(first)
    events = match.apply(me, first)
    while not any(isinstance(event, DealEnded) for event in events):
        seat = match.to_act[0]
        events = match.apply(seat, planner.choose_action(observe(match, seat), RULES))
    ended = next(event for event in events if isinstance(event, DealEnded))
    sign = 1 if ended.winner_team == me % 2 else -1
    gain = RULES.level_ups[OUTCOMES.index(outcome_of(ended.finish_order))]
    assert value == sign * (gain + master.WIN_WORTH)


def test_each_sample_is_one_draw_and_every_candidate_is_played_out_on_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No filter: the search draws exactly its budget's samples with :func:`sample_hands`, one
    each, and plays every candidate out on those very hands."""
    match, _ = searched_spot(23)
    obs = observe(match, match.to_act[0])
    budget = Budget(cards=900, candidates=3, min_samples=1, max_samples=5)
    drawn: list[list[list[Card]]] = []
    played: list[list[list[Card]]] = []
    draw, start = master.sample_hands, master._Rollout.__init__

    def counted_draw(obs: Observation, rng: random.Random) -> list[list[Card]] | None:
        hands = draw(obs, rng)
        assert hands is not None
        drawn.append([list(hand) for hand in hands])
        return hands

    def counted_start(self: master._Rollout, obs: Observation, rules: Rules, hands: list[list[Card]]) -> None:
        played.append([list(hand) for hand in hands])
        start(self, obs, rules, hands)

    monkeypatch.setattr(master, "sample_hands", counted_draw)
    monkeypatch.setattr(master._Rollout, "__init__", counted_start)
    master.choose_action(obs, RULES, random.Random(0), budget)
    candidates = master.candidate_actions(obs, RULES, planner.choose_action(obs, RULES), budget.candidates)
    assert len(candidates) >= 2
    in_play = sum(master._counts(obs))
    samples = max(budget.min_samples, min(budget.max_samples, budget.cards // (len(candidates) * in_play)))
    assert len(drawn) == samples
    assert played == [hands for hands in drawn for _ in candidates]


def test_the_search_draws_are_the_samplers_own_and_repeat_from_the_seed() -> None:
    match, _ = searched_spot(22)
    me = match.to_act[0]
    obs = observe(match, me)
    hands = master.draw_hands(obs, RULES, random.Random(5))
    assert hands == master.draw_hands(obs, RULES, random.Random(5))
    assert hands == sample_hands(obs, random.Random(5))
    assert hands != master.draw_hands(obs, RULES, random.Random(6))
    assert hands is not None and [len(hand) for hand in hands] == [len(match.hand(s)) for s in range(4)]
    played = Counter(card for turn in obs.history if turn.play for card in turn.play.cards)
    assert Counter(card for hand in hands for card in hand) + played == Counter({card: 2 for card in CARDS})


@pytest.mark.parametrize("affinity", [(1.0,), master.AFFINITY, (1.0, 100.0)])
@pytest.mark.parametrize("seed", [24, 25])
def test_clustered_samples_hold_exactly_the_unseen_cards_and_repeat_from_the_seed(
    seed: int, affinity: tuple[float, ...]
) -> None:
    match, _ = searched_spot(seed, in_play=80)
    me = match.to_act[0]
    obs = observe(match, me)
    hands = sample_hands(obs, random.Random(seed), affinity)
    assert hands is not None and hands[me] == list(obs.hand)
    assert hands == sample_hands(obs, random.Random(seed), affinity)
    assert [len(hand) for hand in hands] == [len(match.hand(seat)) for seat in range(4)]
    played = Counter(card for turn in obs.history if turn.play for card in turn.play.cards)
    assert Counter(card for hand in hands for card in hand) + played == Counter({card: 2 for card in CARDS})


@pytest.mark.parametrize("affinity", [master.AFFINITY, (1.0, 100.0)])
def test_clustered_samples_keep_the_exchange_facts(affinity: tuple[float, ...]) -> None:
    """However strongly the ranks cluster, a card seen given stays with its receiver and a
    tribute payer gets nothing above its tribute but wildcards."""
    checked = 0
    for seed in (26, 27, 28, 29):
        match = Match.from_position(RULES, dealt(seed), previous_order=(0, 1, 2, 3), leader=0)
        while match.phase is not Phase.PLAY:
            seat = match.to_act[0]
            match.apply(seat, planner.choose_action(observe(match, seat), RULES))
        for _ in range(8):  # a few turns in, so that some cards are gone
            seat = match.to_act[0]
            match.apply(seat, planner.choose_action(observe(match, seat), RULES))
        for seat in range(4):
            obs = _as_if_to_act(observe(match, seat))
            for n in range(3):
                hands = sample_hands(obs, random.Random(n), affinity)
                assert hands is not None
                for seen, card in master._known_cards(obs):
                    assert card in hands[seen]
                for payer, top in master._tribute_ceilings(obs).items():
                    assert not any(master._above(card, top, obs) for card in hands[payer])
                    checked += 1
    assert checked


def test_clustered_samples_hold_about_as_many_bombs_as_标准_keeps() -> None:
    """标准 keeps bombs whole, so its hidden hands hold far more four-of-a-kinds than a uniform
    deal of the unseen cards; the clustered sampler's come near the true count."""
    true = uniform = clustered = 0
    for seed in range(30, 38):
        match, _ = searched_spot(seed, in_play=50)
        obs = observe(match, match.to_act[0])
        true += fours(obs, [list(match.hand(seat)) for seat in range(4)]) * 4
        for n in range(4):
            plain = sample_hands(obs, random.Random(n), (1.0,))
            drawn = sample_hands(obs, random.Random(n))
            assert plain is not None and drawn is not None
            uniform += fours(obs, plain)
            clustered += fours(obs, drawn)
    assert clustered > 1.5 * uniform
    assert 0.6 * true < clustered < 1.6 * true
