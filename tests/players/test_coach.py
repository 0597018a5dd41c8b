"""复盘点评 (players/coach.py): clear blunders are flagged with the right suggestion and a
positive cost; 大师's own deal costs nothing; every decision points at its turn in the 复盘."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine.actions import Action, DealStarted, Pass, Phase, PlayCards, partner_of
from engine.cards import Card
from engine.match import Match, observe
from engine.observation import Observation
from engine.review import review
from engine.rules import Rules, ShuffleProcedure
from players import planner
from players.coach import (
    AHEAD,
    MIN_COST,
    PRIOR_MEAN,
    SHOWN,
    Decision,
    coach_deal,
    confirmed,
    costliest,
    positions,
    share_ahead,
)
from players.policies import MASTER, seeded

RULES = Rules.default()
NO_SHUFFLE = RULES.replace(shuffle=ShuffleProcedure.NONE)
NORTH = 0

Blunder = Callable[[Match, Observation], Action | None]
"""North's mistake at this moment, or ``None`` to play as 标准."""


def first_deal(seed: int, blunder: Blunder) -> tuple[tuple[tuple[int | None, Action], ...], list[int]]:
    """Deal 1 of match ``seed`` by 标准, north blundering where ``blunder`` says; the history and
    the versions north blundered at."""
    played = play_deals(RULES, seed, 1, blunder)
    return played.history, played.blundered


@dataclass
class Played:
    """Deals played live: the history, the versions north blundered at (last deal), each
    deal's hands as dealt (sorted), and what north observed at each play turn of the last deal."""

    history: tuple[tuple[int | None, Action], ...] = ()
    blundered: list[int] = field(default_factory=list)
    dealt: list[list[tuple[Card, ...]]] = field(default_factory=list)
    seen: dict[int, Observation] = field(default_factory=dict)


def play_deals(rules: Rules, seed: int, deals: int, blunder: Blunder) -> Played:
    """``deals`` deals of match ``seed`` by 标准, north blundering in the last where ``blunder`` says."""
    match, played = Match.new(rules, seed), Played()
    played.dealt.append([tuple(sorted(hand)) for hand in match.hands])
    while len(match.deal_results) < deals:
        seat, last = match.to_act[0], len(match.deal_results) == deals - 1
        obs = observe(match, seat)
        action = None
        if seat == NORTH and match.phase is Phase.PLAY and last:
            played.seen[obs.version] = obs
            action = blunder(match, obs)
        if action is None:
            action = planner.choose_action(obs, rules)
        else:
            played.blundered.append(obs.version)
        if any(isinstance(event, DealStarted) for event in match.apply(seat, action)):
            played.dealt.append([tuple(sorted(hand)) for hand in match.hands])
    played.history = match.history
    return played


def bomb_the_partner(match: Match, obs: Observation) -> Action | None:
    """Break a bomb to beat the partner's (non-bomb) play that stands — once."""
    if obs.table_play is None or obs.table_seat != partner_of(NORTH) or obs.table_play.kind.is_bomb:
        return None
    bombs = [play for play in match.legal_plays(NORTH) if play.kind.is_bomb]
    return PlayCards(bombs[0]) if bombs else None


def hold_the_last_cards(match: Match, obs: Observation) -> Action | None:
    """Pass instead of playing out the last cards when following."""
    out = [play for play in match.legal_plays(NORTH) if play.size == len(obs.hand)]
    return Pass() if obs.table_play is not None and out else None


def test_breaking_a_bomb_on_the_partners_winning_play_is_flagged() -> None:
    history, at = first_deal(22, bomb_the_partner)
    assert len(at) == 1
    blunder = next(p for p in positions(RULES, 22, history, 0, NORTH) if p.observation.version == at[0])
    coaching = coach_deal(RULES, 22, history, 0, NORTH)
    flagged = next(d for d in coaching.decisions if (d.trick, d.turn) == (blunder.trick, blunder.turn))
    assert flagged.played is not None and flagged.played.kind.is_bomb
    assert flagged.suggested is None  # 不出: the partner's play was winning
    assert flagged.cost >= 1.0


def test_passing_when_the_last_cards_would_go_out_is_flagged() -> None:
    history, at = first_deal(1, hold_the_last_cards)
    coaching = coach_deal(RULES, 1, history, 0, NORTH)
    held = {
        (p.trick, p.turn): p for p in positions(RULES, 1, history, 0, NORTH) if p.observation.version in at
    }
    flagged = [d for d in coaching.decisions if (d.trick, d.turn) in held]
    assert flagged, coaching
    for decision in flagged:
        hand = held[decision.trick, decision.turn].observation.hand
        assert decision.played is None
        assert decision.suggested is not None and sorted(decision.suggested.cards) == sorted(hand)
        assert decision.cost >= MIN_COST


def test_a_deal_master_played_itself_costs_nothing() -> None:
    """Where 大师 sat (seeded as a table seats it) every suggestion is what it played."""
    master = seeded(MASTER)
    history, _ = first_deal(3, lambda match, obs: master(obs, RULES))
    coaching = coach_deal(RULES, 3, history, 0, NORTH)
    assert coaching.weighed > 10
    assert coaching.decisions == ()


def test_each_decision_points_at_its_turn_in_the_replay() -> None:
    history, _ = first_deal(22, bomb_the_partner)
    tricks = review(RULES, 22, history)[0].tricks
    found = positions(RULES, 22, history, 0, NORTH)
    assert len(found) > 10
    for position in found:
        played = position.action.play if isinstance(position.action, PlayCards) else None
        assert tricks[position.trick].turns[position.turn] == (NORTH, played)


def test_the_costliest_shown_are_sure_enough_and_in_the_deals_order() -> None:
    judged = [
        Decision(0, 1, None, None, 2.0, 0.5),
        Decision(1, 0, None, None, 0.2, 0.0),  # below the least cost shown
        Decision(2, 3, None, None, 1.0, 1.5),  # less than one standard error sure
        Decision(3, 0, None, None, 0.5, 0.1),
        Decision(4, 2, None, None, 3.0, 0.4),
        Decision(5, 1, None, None, 0.3, 0.1),
    ]
    shown = costliest(judged, confidence=1.0)
    assert len(shown) == SHOWN
    assert [(d.trick, d.cost) for d in shown] == [(0, 2.0), (3, 0.5), (4, 3.0)]


def test_the_candidates_are_shown_at_their_fresh_price() -> None:
    """The costliest on the first draws are priced again; those whose fresh price is not above
    zero make room for the next, three at most are shown, at the fresh price, in the deal's order;
    a candidate after the third confirmed is never priced."""
    candidates = [
        Decision(t, 0, None, None, cost, 0.3)
        for t, cost in ((4, 2.0), (1, 1.5), (6, 1.0), (2, 0.8), (3, 0.5))
    ]
    fresh = {4: 0.9, 1: -0.1, 6: 0.0, 2: 0.3, 3: 0.2}
    asked: list[int] = []

    def priced(decision: Decision) -> Decision:
        asked.append(decision.trick)
        return Decision(decision.trick, 0, None, None, fresh[decision.trick], 0.4)

    shown = confirmed(candidates, priced)
    assert [(d.trick, d.cost) for d in shown] == [(2, 0.3), (3, 0.2), (4, 0.9)]
    assert asked == [4, 1, 6, 2, 3]
    assert [d.trick for d in confirmed(candidates[:2], priced)] == [4]  # fewer when fewer were real
    asked.clear()
    fresh[1] = 0.5
    assert [d.trick for d in confirmed(candidates, priced)] == [1, 2, 4] and asked == [4, 1, 6, 2]


def test_a_candidate_is_shown_only_where_its_fresh_draws_mostly_ended_better() -> None:
    """A fresh mean above zero that stands on a few big swings, the suggestion ending worse on
    most draws that differed, is not shown: with the true hands it mostly ends worse too."""
    lucky = Decision(1, 0, None, None, 0.8, 0.3, ahead=0.4)  # +4 once, -1 more often
    steady = Decision(2, 0, None, None, 0.5, 0.2, ahead=0.8)
    shown = confirmed([lucky, steady], lambda decision: decision)
    assert [d.trick for d in shown] == [2]
    assert [d.trick for d in confirmed([lucky, steady], lambda decision: decision, ahead=0.0)] == [1, 2]
    assert steady.ahead >= AHEAD > lucky.ahead


def test_a_price_counts_the_draws_ahead_among_those_that_differed() -> None:
    """Draws whose endings were the same say nothing of which play is better."""
    assert share_ahead([4, -1, -1, 0, 0, -1]) == 0.25
    assert share_ahead([1, 1, 0, -2]) == 2 / 3
    assert share_ahead([0, 0]) == 0.0


def test_a_price_is_shrunk_by_its_noise_and_sure_only_clear_of_it() -> None:
    """A noiseless mean is its own price; a noisy one is pulled toward what a candidate is worth
    on average, the more the noisier; a figure is given only clear of the noise left."""
    assert Decision(0, 0, None, None, 1.5, 0.0).price == 1.5
    high, noisy = Decision(0, 0, None, None, 2.0, 0.3), Decision(0, 0, None, None, 2.0, 0.9)
    assert PRIOR_MEAN < noisy.price < high.price < 2.0
    assert 0.1 < Decision(0, 0, None, None, 0.1, 0.5).price < PRIOR_MEAN  # a low one pulled up
    assert Decision(0, 0, None, None, 1.0, 0.5).sure
    assert not Decision(0, 0, None, None, 0.6, 0.5).sure  # within the noise
    assert not Decision(0, 0, None, None, 0.2, 0.0).sure  # below the least cost worth a figure


def test_a_no_shuffle_deal_is_judged_and_replayed_from_the_hands_it_dealt() -> None:
    """不洗牌: deal 2 is dealt from deal 1's table, not from its seed. The 点评 rebuilds it from
    the history: north's every decision seen exactly as north saw it live, and at its turn in
    the 复盘, which shows the hands that were dealt."""
    played = play_deals(NO_SHUFFLE, 22, 2, bomb_the_partner)
    shuffled = play_deals(RULES, 22, 2, bomb_the_partner)
    assert played.dealt[1] != shuffled.dealt[1]  # the seed alone does not give this deal
    deals = review(NO_SHUFFLE, 22, played.history)
    assert [[tuple(sorted(hand)) for hand in deal.hands] for deal in deals] == played.dealt
    found = positions(NO_SHUFFLE, 22, played.history, 1, NORTH)
    assert len(found) > 10
    for position in found:
        assert position.observation == played.seen[position.observation.version]
        done = position.action.play if isinstance(position.action, PlayCards) else None
        assert deals[1].tricks[position.trick].turns[position.turn] == (NORTH, done)
    coaching = coach_deal(NO_SHUFFLE, 22, played.history, 1, NORTH)
    assert {(d.trick, d.turn) for d in coaching.decisions} <= {(p.trick, p.turn) for p in found}
