"""The match state machine: deals, tricks, 接风, the end of a deal and of the match."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import moves
from engine.actions import (
    DealEnded,
    DealStarted,
    GiveTribute,
    LeaderChosen,
    MatchEnded,
    Pass,
    Passed,
    Phase,
    PlayCards,
    PlayerFinished,
    ReturnTribute,
    TimeExpired,
    TrickWon,
    team_of,
)
from engine.cards import Rank, full_deck, parse_cards
from engine.classify import classify
from engine.errors import IllegalAction, IllegalPlay, InvalidCards, NotYourTurn
from engine.match import Match, deal_seed, observe
from engine.plays import Play
from engine.rules import PRESETS, JiefengScope, MatchFormat, Rules, SuddenDeath, TimeUp
from engine.scoring import Standing
from tools.selfplay import random_action


def play(text: str, level: Rank = Rank.TWO) -> PlayCards:
    readings = classify(parse_cards(text), level)
    return PlayCards(readings[0])


def snapshot(match: Match):
    return (
        match.version,
        len(match.history),
        [match.hand(seat) for seat in range(4)],
        [observe(match, seat) for seat in (0, 1, 2, 3, None)],
    )


def test_new_match_deals_27_cards_each_reproducibly() -> None:
    match = Match.new(Rules.default(), 42)
    assert [len(match.hand(seat)) for seat in range(4)] == [27] * 4
    assert Counter(match.all_cards()) == Counter(full_deck())
    started, leader = match.events
    assert isinstance(leader, LeaderChosen) and leader.reason == "first_deal"
    assert started == DealStarted(1, Rank.TWO, team_of(leader.seat), deal_seed(42, 1))
    again = Match.new(Rules.default(), 42)
    assert [again.hand(s) for s in range(4)] == [match.hand(s) for s in range(4)]
    other = Match.new(Rules.default(), 43)
    assert [other.hand(s) for s in range(4)] != [match.hand(s) for s in range(4)]


def test_refused_actions_leave_the_state_unchanged() -> None:
    match = Match.new(Rules.default(), 7)
    leader = match.to_act[0]
    before = snapshot(match)
    with pytest.raises(NotYourTurn):
        match.apply((leader + 1) % 4, Pass())
    with pytest.raises(IllegalAction, match="leader cannot pass"):
        match.apply(leader, Pass())
    with pytest.raises(IllegalAction):
        match.apply(leader, GiveTribute(match.hand(leader)[0]))
    with pytest.raises(IllegalAction):
        match.apply(leader, TimeExpired())
    missing = next(card for card in full_deck() if card not in match.hand(leader))
    with pytest.raises(InvalidCards):
        match.apply(leader, PlayCards(Play(classify([missing], match.level)[0].kind, 2, (missing,))))
    assert snapshot(match) == before


def test_illegal_play_names_the_table_and_changes_nothing() -> None:
    hands = [parse_cards(h) for h in ("S9 S3", "S5 S6", "C3 C4", "D3 D4")]
    match = Match.from_position(Rules.default(), hands)
    match.apply(0, play("S9"))
    before = snapshot(match)
    with pytest.raises(IllegalPlay, match="S9"):
        match.apply(1, play("S5"))
    with pytest.raises(IllegalPlay):  # a wrong reading of the cards
        match.apply(1, PlayCards(Play(play("S6").play.kind, 10, play("S6").play.cards)))
    with pytest.raises(NotYourTurn):
        match.apply(2, Pass())
    assert snapshot(match) == before


def test_version_counts_accepted_actions() -> None:
    match = Match.new(Rules.default(), 3)
    rng = random.Random(0)
    for n in range(1, 20):
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
        assert match.version == n == len(match.history)


def test_trick_goes_round_counter_clockwise_and_the_last_player_leads() -> None:
    hands = [parse_cards(h) for h in ("S9 S3 S4", "S5 ST S6", "C3 C4 C5", "D3 D4 D5")]
    match = Match.from_position(Rules.default(), hands)
    match.apply(0, play("S3"))
    assert match.to_act == (1,)
    match.apply(1, play("ST"))
    assert match.to_act == (2,)
    match.apply(2, Pass())
    match.apply(3, Pass())
    assert match.apply(0, Pass()) == [Passed(0), TrickWon(1, 1, False)]
    assert match.to_act == (1,) and match.table_play is None


def test_jiefeng_partner_leads_when_the_player_who_went_out_wins_the_trick() -> None:
    hands = [parse_cards(h) for h in ("SA", "S3 S4", "C3 C4", "D3 D4")]
    match = Match.from_position(Rules.default(), hands)
    events = match.apply(0, play("SA"))
    assert PlayerFinished(0, 1) in events and match.to_act == (1,)
    match.apply(1, Pass())
    match.apply(2, Pass())
    assert match.apply(3, Pass())[-1] == TrickWon(0, 2, True)
    assert match.to_act == (2,)


@pytest.mark.parametrize(
    ("scope", "leader", "jiefeng"), [(JiefengScope.ANY_PLAYER, 3, True), (JiefengScope.FIRST_ONLY, 2, False)]
)
def test_jiefeng_scope_for_later_finishers(scope, leader, jiefeng) -> None:
    hands = [parse_cards(h) for h in ("SA", "S4", "C3 C4 C5", "D3 D4")]
    match = Match.from_position(Rules.default().replace(jiefeng=scope), hands)
    match.apply(0, play("SA"))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    match.apply(2, play("C3"))
    match.apply(3, Pass())
    assert PlayerFinished(1, 2) in match.apply(1, play("S4"))
    match.apply(2, Pass())
    assert match.apply(3, Pass())[-1] == TrickWon(1, leader, jiefeng)


def test_double_down_ends_the_deal_once_both_partners_are_out() -> None:
    hands = [parse_cards(h) for h in ("SA", "S3 S4", "SK", "D3 D4")]
    match = Match.from_position(Rules.default(), hands)
    match.apply(0, play("SA"))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    events = match.apply(2, play("SK"))
    ended = next(e for e in events if isinstance(e, DealEnded))
    assert ended.finish_order == (0, 2, 3, 1)
    assert (ended.winner_team, ended.outcome, ended.levels_gained) == (0, "double_down", 3)
    assert ended.levels_after == (Rank.FIVE, Rank.TWO)
    started = next(e for e in events if isinstance(e, DealStarted))
    assert (started.deal_number, started.level, started.declarer_team) == (2, Rank.FIVE, 0)
    assert match.phase in (Phase.TRIBUTE, Phase.PLAY)


def test_third_player_out_fixes_the_order() -> None:
    hands = [parse_cards(h) for h in ("SA", "SK", "C3 C4", "D3")]
    match = Match.from_position(Rules.default(), hands)
    match.apply(0, play("SA"))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    match.apply(2, play("C3"))
    match.apply(3, Pass())  # seat 3 could not beat ♣3 with ♦3
    events = match.apply(1, play("SK"))
    assert PlayerFinished(1, 2) in events
    match.apply(2, Pass())
    events = match.apply(3, Pass())
    assert events[-1] == TrickWon(1, 3, True)
    events = match.apply(3, play("D3"))
    ended = next(e for e in events if isinstance(e, DealEnded))
    assert ended.finish_order == (0, 1, 3, 2) and ended.outcome == "one_four"


def test_passing_a_ends_the_match() -> None:
    hands = [parse_cards(h) for h in ("SK", "S3 S4", "SQ", "D3 D4")]
    standing = Standing(levels=(Rank.ACE, Rank.NINE))
    match = Match.from_position(Rules.default(), hands, previous_order=(2, 1, 0, 3), standing=standing)
    assert match.level is Rank.ACE and match.to_act == (3,)
    match.apply(3, GiveTribute(match.must_tribute_from(3)[0]))
    match.apply(2, ReturnTribute(match.may_return(2)[0]))
    assert match.to_act == (3,)
    match.apply(3, play("D3", Rank.ACE))
    match.apply(0, play("SK", Rank.ACE))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    events = match.apply(2, play("SQ", Rank.ACE))
    assert events[-1] == MatchEnded(0, "passed_a")
    assert match.is_over and match.winner_team == 0
    assert not match.to_act
    with pytest.raises(IllegalAction):
        match.apply(1, Pass())


def test_points_format_plays_an_extra_deal_on_a_tie() -> None:
    rules = Rules.preset("wechat-6-deals")
    hands = [parse_cards(h) for h in ("SA", "S4", "C3 C4", "D5")]
    match = Match.from_position(rules, hands, standing=Standing(points=(8, 9)), deal_number=6)
    match.apply(0, play("SA"))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    match.apply(2, play("C3"))
    match.apply(3, play("D5"))
    match.apply(1, Pass())
    match.apply(2, Pass())
    events = match.apply(1, play("S4"))
    ended = next(e for e in events if isinstance(e, DealEnded))
    assert (ended.finish_order, ended.points) == ((0, 3, 1, 2), (1, 0))
    assert match.standing.points == (9, 9)
    assert not match.is_over and match.deal_number == 7
    winner = _finish_deal(match)
    assert match.is_over and match.events[-1] == MatchEnded(winner, "points")


def _finish_deal(match: Match) -> int:
    rng = random.Random(1)
    while True:
        seat = match.to_act[0]
        for event in match.apply(seat, random_action(match, seat, rng)):
            if isinstance(event, DealEnded):
                return event.winner_team


def test_time_expired_finishes_the_deal_then_the_higher_level_wins() -> None:
    rules = Rules.preset("lujiang-school")
    dealt = Match.new(rules, 11)
    standing = Standing(levels=(Rank.NINE, Rank.FIVE))
    match = Match.from_position(rules, dealt.hands, standing=standing, leader=dealt.to_act[0], seed=11)
    assert match.apply(None, TimeExpired()) == []
    with pytest.raises(IllegalAction):
        match.apply(None, TimeExpired())
    deals = match.deal_number
    _finish_deal(match)
    assert match.is_over and match.deal_number == deals
    assert match.events[-1] == MatchEnded(0, "time")  # team 1 can climb to 8 at most


def run_random_match(rules: Rules, seed: int, max_deals: int = 80) -> Match:
    match = Match.new(rules, seed)
    rng = random.Random(seed)
    deck = Counter(full_deck())
    while not match.is_over and match.deal_number <= max_deals:
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
        assert Counter(match.all_cards()) == deck
    return match


def check_winner(match: Match) -> None:
    assert match.is_over
    end = match.events[-1]
    assert isinstance(end, MatchEnded) and end.winner_team == match.winner_team
    winner = end.winner_team
    assert winner is not None
    last = match.deal_results[-1]
    rules = match.rules
    if rules.match_format is MatchFormat.POINTS:
        points = match.standing.points
        assert points[winner] >= points[1 - winner]
    elif end.reason == "passed_a":
        assert last.winner_team == end.winner_team and last.a_attempt == "passed"
        assert last.levels_before[winner] is Rank.ACE
    elif end.reason == "reached_a":
        assert last.levels_after[winner] is Rank.ACE
    elif end.reason == "best_of":
        assert match.games_won[winner] == rules.best_of // 2 + 1


UNTIMED_ENDING = sorted(set(PRESETS) - {"xiexiebang"})  # 002-A cycles past A: only its clock ends it


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(UNTIMED_ENDING))
def test_random_matches_conserve_cards_and_end_with_a_correct_winner(seed: int, preset: str) -> None:
    match = run_random_match(Rules.preset(preset), seed)
    check_winner(match)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_cached_legal_plays_match_fresh_generation(seed: int) -> None:
    match = Match.new(Rules.default(), seed)
    rng = random.Random(seed)
    while match.deal_number == 1:
        seat = match.to_act[0]
        fresh = moves.legal_plays(match.hands[seat], match.level, match.table_play)
        assert Counter(match.legal_plays(seat)) == Counter(fresh)
        assert all(match.legal_plays(other) == [] for other in range(4) if other != seat)
        match.apply(seat, random_action(match, seat, rng))


def test_resolve_takes_the_lowest_reading_unless_the_rules_require_a_declaration() -> None:
    from engine.errors import AmbiguousPlay
    from engine.rules import WildcardDeclaration

    hands = [parse_cards(h) for h in ("S3 C3 S4 C4 H2 S9", "D5 D6", "C9", "D9")]
    cards = parse_cards("S3 C3 S4 C4 H2")  # ♥2 makes either 333+44 or 444+33
    match = Match.from_position(Rules.default(), hands)
    readings = match.readings(0, cards)
    assert [p.rank for p in readings] == [3, 4]
    assert match.resolve(0, cards) == readings[0]
    with pytest.raises(NotYourTurn):
        match.resolve(1, parse_cards("D5"))
    with pytest.raises(InvalidCards):
        match.resolve(0, parse_cards("SA"))
    strict = Match.from_position(
        Rules.default().replace(wildcard_declaration=WildcardDeclaration.MUST_DECLARE), hands
    )
    with pytest.raises(AmbiguousPlay):
        strict.resolve(0, cards)
    match.apply(0, play("S9"))
    with pytest.raises(IllegalPlay, match="does not beat S9"):
        match.resolve(1, parse_cards("D5"))


def test_best_of_three_counts_games_and_resets_levels() -> None:
    rules = Rules.preset("best-of-3")
    hands = [parse_cards(h) for h in ("SK", "S3 S4", "SQ", "D3 D4")]
    standing = Standing(levels=(Rank.ACE, Rank.NINE))
    match = Match.from_position(rules, hands, previous_order=(2, 1, 0, 3), standing=standing)
    match.apply(3, GiveTribute(match.must_tribute_from(3)[0]))
    match.apply(2, ReturnTribute(match.may_return(2)[0]))
    match.apply(3, play("D3", Rank.ACE))
    match.apply(0, play("SK", Rank.ACE))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    events = match.apply(2, play("SQ", Rank.ACE))
    assert not match.is_over and match.games_won == (1, 0)
    started = next(e for e in events if isinstance(e, DealStarted))
    assert started.level is Rank.TWO and match.standing.levels == (Rank.TWO, Rank.TWO)
    assert isinstance(events[-1], LeaderChosen) and events[-1].reason == "first_deal"
    assert observe(match, None).games_won == (1, 0)


def test_cycling_levels_end_only_by_the_clock() -> None:
    """002-A: levels cycle past A, so only the clock ends the game, and at once (issue 10 item 5)."""
    rules = Rules.preset("xiexiebang")
    match = Match.new(rules, 4)
    rng = random.Random(4)
    while match.deal_number <= 12:
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
    assert not match.is_over
    deals = len(match.deal_results)
    out = match.finish_order
    match.apply(None, TimeExpired())
    keys = (match.standing.rank_key(0), match.standing.rank_key(1))
    if keys[0] != keys[1]:
        assert match.is_over and match.winner_team == (0 if keys[0] > keys[1] else 1)
    elif out:
        assert match.is_over and match.winner_team == team_of(out[0])
    else:
        assert not match.is_over
    assert len(match.deal_results) == deals


def xiexiebang_position(levels: tuple[Rank, Rank]) -> Match:
    """Seat 0 (team 0) leads at team 0's level; seat 1 can go out at once with ♠A."""
    hands = [parse_cards(h) for h in ("S3 S4 S5", "SA", "C3 C4 C5", "D3 D4 D5")]
    return Match.from_position(Rules.preset("xiexiebang"), hands, standing=Standing(levels=levels))


def test_xiexiebang_the_side_leading_when_time_runs_out_wins_at_once() -> None:
    """Issue 10 item 5 (002-A "谁领先谁晋级"): the deal in hand does not count, even if the
    trailing side is about to win it."""
    match = xiexiebang_position((Rank.FIVE, Rank.FOUR))
    events = match.apply(None, TimeExpired())
    assert events == [MatchEnded(0, "time")] and match.is_over and match.deal_results == ()


def test_xiexiebang_equal_levels_a_side_with_a_player_out_wins_at_once() -> None:
    match = xiexiebang_position((Rank.FIVE, Rank.FIVE))
    match.apply(0, play("S3", Rank.FIVE))
    assert PlayerFinished(1, 1) in match.apply(1, play("SA", Rank.FIVE))
    assert match.apply(None, TimeExpired()) == [MatchEnded(1, "time")]


def test_xiexiebang_equal_levels_nobody_out_plays_on_until_a_side_goes_up() -> None:
    match = xiexiebang_position((Rank.FIVE, Rank.FIVE))
    assert match.apply(None, TimeExpired()) == [] and not match.is_over
    match.apply(0, play("S3", Rank.FIVE))
    match.apply(1, play("SA", Rank.FIVE))
    for seat in (2, 3, 0):
        match.apply(seat, Pass())
    winner = _finish_deal(match)  # the deal in hand is the first extra deal; its winners go up
    assert match.is_over and match.events[-1] == MatchEnded(winner, "time")
    assert match.deal_results[-1].levels_gained > 0


@pytest.mark.parametrize("levels", [(Rank.FIVE, Rank.FIVE), (Rank.NINE, Rank.FIVE)])
def test_three_round_movement_stops_at_once_with_no_winner(levels: tuple[Rank, Rank]) -> None:
    """Issue 10 item 4 (001-B "時間終了立即停止…按上一副牌成績計算", A17): nobody passed A, so
    nobody wins and the deal in hand is ignored, whatever the levels."""
    from engine.figures import match_figures

    rules = Rules.preset("three-round-movement")
    hands = [parse_cards(h) for h in ("S3 S4 S5", "SA", "C3 C4 C5", "D3 D4 D5")]
    match = Match.from_position(rules, hands, standing=Standing(levels=levels))
    match.apply(0, play("S3", levels[0]))
    assert match.apply(None, TimeExpired()) == [MatchEnded(None, "time")]
    assert match.is_over and match.winner_team is None and match.deal_results == ()
    figures = match_figures(match)
    assert figures.winner is None
    assert figures.round_score == (int(levels[0]) - 2, int(levels[1]) - 2)  # no 100 for anyone


def sudden_death_at_a(rules: Rules) -> tuple[Match, DealEnded]:
    """Both teams at A when time runs out, team 0 (two failures already) to play its A: the
    deal in hand goes on as the first extra deal and team 0 wins it 1st+4th, a failed attempt
    at A that resets it to 2."""
    hands = [parse_cards(h) for h in ("SK", "S7", "C3 C4 C5", "D6")]
    standing = Standing(levels=(Rank.ACE, Rank.ACE), a_failures=(2, 0))
    match = Match.from_position(rules, hands, standing=standing)
    assert match.apply(None, TimeExpired()) == [] and match.level is Rank.ACE
    match.apply(0, play("SK", Rank.ACE))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    match.apply(2, play("C3", Rank.ACE))  # 接风
    match.apply(3, play("D6", Rank.ACE))
    events = match.apply(1, play("S7", Rank.ACE))
    ended = next(e for e in events if isinstance(e, DealEnded))
    assert ended.finish_order == (0, 3, 1, 2) and ended.a_attempt == "reset"
    return match, ended


def test_sudden_death_must_be_won_by_going_up() -> None:
    """Issue 10 item 6 (A26 "先升级的为获胜方"): a failed attempt at A wins nothing."""
    rules = Rules.default().replace(time_limit_minutes=60, time_up=TimeUp.STOP_AT_ONCE)
    match, ended = sudden_death_at_a(rules)
    assert not match.is_over and ended.levels_after == (Rank.TWO, Rank.ACE)
    assert match.deal_number == 2


def test_sudden_death_deal_winner_option() -> None:
    rules = Rules.default().replace(
        time_limit_minutes=60, time_up=TimeUp.STOP_AT_ONCE, sudden_death=SuddenDeath.DEAL_WINNER
    )
    match, _ = sudden_death_at_a(rules)
    assert match.is_over and match.events[-1] == MatchEnded(0, "time")


def test_double_down_losers_are_listed_l2_then_l1() -> None:
    """Issue 10 item 7: the docstring of ``DealEnded.finish_order`` says what the match does."""
    hands = [parse_cards(h) for h in ("SA", "S3 S4", "SK", "D3 D4")]
    match = Match.from_position(Rules.default(), hands)
    match.apply(0, play("SA"))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    ended = next(e for e in match.apply(2, play("SK")) if isinstance(e, DealEnded))
    first = ended.finish_order[0]
    assert ended.finish_order == (first, (first + 2) % 4, (first + 3) % 4, (first + 1) % 4)  # U U' L2 L1
    doc = DealEnded.__doc__ or ""
    assert "U, U', L2, L1" in doc and "seat order" not in doc


def test_double_down_play_on_decides_third_and_fourth() -> None:
    hands = [parse_cards(h) for h in ("SA", "S5", "SK", "D3 D4")]
    match = Match.from_position(Rules.default().replace(double_down_play_on=True), hands)
    match.apply(0, play("SA"))
    for seat in (1, 2, 3):
        match.apply(seat, Pass())
    events = match.apply(2, play("SK"))
    assert not any(isinstance(e, DealEnded) for e in events)
    match.apply(3, Pass())
    events = match.apply(1, Pass())
    assert events[-1] == TrickWon(2, 3, False)  # both winners are out: no 接风, the next player leads
    match.apply(3, play("D3"))
    ended = next(e for e in match.apply(1, play("S5")) if isinstance(e, DealEnded))
    assert ended.finish_order == (0, 2, 1, 3) and ended.outcome == "double_down"  # not U U' L2 L1


def test_bombs_longer_than_the_preset_allows_are_refused() -> None:
    cards = "S5 S5 H5 H5 C5 C5 D5 D5 H2 H2"
    hands = [parse_cards(h) for h in (cards + " S9", "D3", "C3", "D4")]
    ten = next(p for p in classify(parse_cards(cards), Rank.TWO) if p.size == 10)
    short = Match.from_position(Rules.default().replace(max_bomb_size=8), hands)
    assert all(p.size <= 8 for p in short.legal_plays(0) if p.is_bomb)
    with pytest.raises(IllegalPlay, match="more than 8"):
        short.apply(0, PlayCards(ten))
    full = Match.from_position(Rules.default(), hands)
    assert ten in full.legal_plays(0)
    full.apply(0, PlayCards(ten))
