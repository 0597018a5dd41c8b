"""Tribute, return tribute and anti-tribute (docs/rules.md §1.10, V09–V15, A8–A12)."""

from __future__ import annotations

import pytest

from engine.actions import (
    Action,
    AntiTribute,
    Choice,
    ChooseSeat,
    Event,
    GiveTribute,
    LeaderChosen,
    Phase,
    ReturnTribute,
    SeatChosen,
    TributeGiven,
    TributeReturned,
)
from engine.cards import Card, Rank, parse_cards
from engine.errors import IllegalAction, IllegalTribute, InvalidCards, NotYourTurn
from engine.match import Match, action_from_json, action_to_json, observe
from engine.rules import (
    AntiTributeJokers,
    DoubleDownLeader,
    EqualTribute,
    ReturnLimit,
    ReturnPick,
    Rules,
    TributeAssignment,
)
from engine.scoring import Standing
from players.easy import choose_action

SINGLE_DOWN = (0, 1, 2, 3)  # seat 0 first, its partner 3rd: seat 3 pays seat 0
DOUBLE_DOWN = (0, 2, 3, 1)  # U = 0, U' = 2, L1 = 1 (U's 下家), L2 = 3 (U's 上家)
ONE_FOUR = (0, 1, 3, 2)  # seat 0 first and its partner seat 2 last


def c(text: str) -> Card:
    return Card.parse(text)


def position(hands: list[str], order, rules: Rules | None = None, level: Rank = Rank.TWO) -> Match:
    standing = Standing(levels=(level, level))
    return Match.from_position(
        rules or Rules.default(), [parse_cards(h) for h in hands], previous_order=order, standing=standing
    )


def snapshot(match: Match):
    return match.version, [observe(match, seat) for seat in (0, 1, 2, 3, None)]


def test_single_down_pays_the_largest_card_wildcard_excluded_and_the_payer_leads() -> None:
    match = position(["S3 S4 SJ SQ C5", "D3 D4", "C3 C4", "SA HA S6 H2 D7"], SINGLE_DOWN)
    assert match.phase is Phase.TRIBUTE and match.to_act == (3,)
    assert observe(match, 3).must_tribute_from == (c("SA"), c("HA"))  # ♥2 is the wildcard at level 2
    before = snapshot(match)
    refusals: list[tuple[int, Action, type[Exception]]] = [
        (3, GiveTribute(c("S6")), IllegalTribute),
        (3, GiveTribute(c("H2")), IllegalTribute),
        (3, GiveTribute(c("CA")), InvalidCards),
        (0, GiveTribute(c("S3")), NotYourTurn),
        (3, ReturnTribute(c("S6")), IllegalAction),
    ]
    for seat, action, error in refusals:
        with pytest.raises(error):
            match.apply(seat, action)
        assert snapshot(match) == before
    assert match.apply(3, GiveTribute(c("HA"))) == [TributeGiven(3, 0, c("HA"))]
    assert match.to_act == (0,)
    assert observe(match, 0).phase is Phase.RETURN_TRIBUTE
    assert observe(match, 0).may_return == (c("S3"), c("S4"), c("C5"))
    with pytest.raises(IllegalTribute):
        match.apply(0, ReturnTribute(c("SJ")))
    events = match.apply(0, ReturnTribute(c("C5")))
    assert events == [TributeReturned(0, 3, c("C5")), LeaderChosen(3, "tribute")]
    assert c("HA") in match.hand(0) and c("C5") in match.hand(3)
    assert observe(match, 3).phase is Phase.PLAY and match.to_act == (3,)


def test_a_joker_is_paid_as_tribute() -> None:
    match = position(["S3", "D3", "C3", "RJ SA BJ"], SINGLE_DOWN)
    assert match.must_tribute_from(3) == (c("RJ"),)


def pay_double_down(match: Match, cards: dict[int, str]) -> list[Event]:
    events = []
    for seat in (1, 3):
        events += match.apply(seat, GiveTribute(c(cards[seat])))
    return events


def test_double_down_larger_card_to_first_and_its_payer_leads() -> None:
    match = position(["S3 S4", "SA S9", "C3 C4", "BJ S8"], DOUBLE_DOWN)
    assert match.to_act == (1, 3)
    assert match.apply(1, GiveTribute(c("SA"))) == []  # nothing moves until both have paid
    events = match.apply(3, GiveTribute(c("BJ")))
    assert events == [TributeGiven(3, 0, c("BJ")), TributeGiven(1, 2, c("SA"))]
    assert match.to_act == (0, 2)
    match.apply(0, ReturnTribute(c("S3")))
    events = match.apply(2, ReturnTribute(c("C3")))
    assert events[-1] == LeaderChosen(3, "tribute")
    assert c("S3") in match.hand(3) and c("C3") in match.hand(1)


def test_double_down_last_place_leads_option() -> None:
    rules = Rules.default().replace(double_down_leader=DoubleDownLeader.LAST_PLACE)
    match = position(["S3 S4", "SA S9", "C3 C4", "BJ S8"], DOUBLE_DOWN, rules)
    pay_double_down(match, {1: "SA", 3: "BJ"})
    match.apply(0, ReturnTribute(c("S3")))
    assert match.apply(2, ReturnTribute(c("C3")))[-1] == LeaderChosen(1, "tribute")  # L1 counts as last


def test_double_down_by_place_assignment() -> None:
    rules = Rules.default().replace(tribute_assignment=TributeAssignment.BY_PLACE)
    match = position(["S3 S4", "SA S9", "C3 C4", "BJ S8"], DOUBLE_DOWN, rules)
    events = pay_double_down(match, {1: "SA", 3: "BJ"})
    assert set(events) == {TributeGiven(1, 0, c("SA")), TributeGiven(3, 2, c("BJ"))}


def test_spring_festival_the_larger_card_leads_even_when_it_went_to_second_place() -> None:
    """Issue 10 item 3 (V13, 004-A "进贡大牌的先出牌"): 末游 pays 上游 by place, but the other
    loser paid the larger card, so the other loser leads."""
    rules = Rules.preset("spring-festival")
    match = position(["S3 S4", "SA S9", "C3 C4", "BJ S8"], DOUBLE_DOWN, rules)
    events = pay_double_down(match, {1: "SA", 3: "BJ"})
    assert set(events) == {TributeGiven(1, 0, c("SA")), TributeGiven(3, 2, c("BJ"))}  # 末游 L1 → 上游
    match.apply(0, ReturnTribute(c("S3")))
    assert match.apply(2, ReturnTribute(c("C3")))[-1] == LeaderChosen(3, "tribute")


def equal_tributes(rules: Rules, returns: dict[int, str]) -> tuple[list[Event], list[Event]]:
    match = position(["S3 S9", "SA S4", "C3 C9", "HA S5"], DOUBLE_DOWN, rules)
    given = pay_double_down(match, {1: "SA", 3: "HA"})
    order = sorted(match.to_act)
    led = [e for seat in order for e in match.apply(seat, ReturnTribute(c(returns[seat])))]
    return given, led


def test_equal_tributes_default_first_takes_its_next_players_card_and_l1_leads() -> None:
    given, led = equal_tributes(Rules.default(), {0: "S3", 2: "C3"})
    assert given == [TributeGiven(1, 0, c("SA")), TributeGiven(3, 2, c("HA"))]
    assert led[-1] == LeaderChosen(1, "tribute")


def test_equal_tributes_counter_clockwise_option() -> None:
    rules = Rules.default().replace(equal_tribute=EqualTribute.L2_TO_FIRST)
    given, led = equal_tributes(rules, {0: "S3", 2: "C3"})
    assert given == [TributeGiven(3, 0, c("HA")), TributeGiven(1, 2, c("SA"))]
    assert led[-1] == LeaderChosen(3, "tribute")


def test_equal_tributes_upstream_leads_option() -> None:
    rules = Rules.default().replace(equal_tribute=EqualTribute.L1_TO_FIRST_L2_LEADS)
    given, led = equal_tributes(rules, {0: "S3", 2: "C3"})
    assert given[0] == TributeGiven(1, 0, c("SA")) and led[-1] == LeaderChosen(3, "tribute")


@pytest.mark.parametrize(
    ("returns", "leader"), [({0: "S3", 2: "C9"}, 1), ({0: "S9", 2: "C3"}, 3), ({0: "S3", 2: "C3"}, 1)]
)
def test_equal_tributes_smaller_return_leads_option(returns, leader) -> None:
    rules = Rules.default().replace(equal_tribute=EqualTribute.SMALLER_RETURN_LEADS)
    _, led = equal_tributes(rules, returns)
    assert led[-1] == LeaderChosen(leader, "tribute")


def test_anti_tribute_single_down_last_player_holds_both_big_jokers() -> None:
    match = position(["S3", "D3", "C3", "RJ RJ S4"], SINGLE_DOWN)
    assert match.events[1:] == (
        AntiTribute((3,)),
        LeaderChosen(0, "anti_tribute"),
    )
    assert match.phase is Phase.PLAY and match.to_act == (0,)


def test_single_down_big_jokers_split_with_partner_is_no_anti_tribute_by_default() -> None:
    hands = ["S3", "RJ D3", "C3", "RJ S4"]
    match = position(hands, SINGLE_DOWN)
    assert match.phase is Phase.TRIBUTE and match.must_tribute_from(3) == (c("RJ"),)
    rules = Rules.default().replace(anti_tribute_jokers=AntiTributeJokers.LOSING_SIDE)
    assert position(hands, SINGLE_DOWN, rules).events[1] == AntiTribute((1, 3))


@pytest.mark.parametrize(
    ("hands", "holders"), [(["S3", "RJ D3", "C3", "RJ S4"], (1, 3)), (["S3", "RJ RJ", "C3", "S4"], (1,))]
)
def test_anti_tribute_double_down_jokers_anywhere_on_the_losing_side(hands, holders) -> None:
    match = position(hands, DOUBLE_DOWN)
    assert match.events[1:] == (
        AntiTribute(holders),
        LeaderChosen(0, "anti_tribute"),
    )


def test_one_big_joker_is_no_anti_tribute() -> None:
    match = position(["S3", "RJ D3", "C3", "BJ S4"], DOUBLE_DOWN)
    assert match.phase is Phase.TRIBUTE and not any(isinstance(e, AntiTribute) for e in match.events)


def test_return_limit_default_allows_a_level_card_of_face_ten_or_less() -> None:
    match = position(["S5 SK SQ", "D3", "C3", "SA S4"], SINGLE_DOWN, level=Rank.FIVE)
    match.apply(3, GiveTribute(c("SA")))
    assert match.may_return(0) == (c("S5"),)


def test_return_limit_level_card_forbidden_falls_back_to_the_lowest_card() -> None:
    rules = Rules.default().replace(return_level_card=False)
    match = position(["S5 SK SQ", "D3", "C3", "SA S4"], SINGLE_DOWN, rules, level=Rank.FIVE)
    match.apply(3, GiveTribute(c("SA")))
    assert match.may_return(0) == (c("SQ"),)


def test_return_limit_any_card() -> None:
    rules = Rules.default().replace(return_limit=ReturnLimit.ANY)
    match = position(["S3 SK", "D3", "C3", "SA S4"], SINGLE_DOWN, rules)
    match.apply(3, GiveTribute(c("SA")))
    assert set(match.may_return(0)) == {c("S3"), c("SK"), c("SA")}


def test_one_four_partner_still_pays_by_default() -> None:
    match = position(["S3 S9", "D3", "SK S4", "C3"], ONE_FOUR)
    assert match.to_act == (2,) and match.must_tribute_from(2) == (c("SK"),)
    match.apply(2, GiveTribute(c("SK")))
    assert match.to_act == (0,)


def test_one_four_partner_tribute_option_off() -> None:
    rules = Rules.default().replace(partner_tribute=False)
    match = position(["S3 S9", "D3", "SK S4", "C3"], ONE_FOUR, rules)
    assert match.events[1:] == (LeaderChosen(0, "no_tribute"),)


def test_partner_return_below_the_level_card() -> None:
    rules = Rules.default().replace(return_limit=ReturnLimit.BELOW_LEVEL_TO_PARTNER)
    match = position(["SK S2 BJ", "D3", "SA S4", "C3"], ONE_FOUR, rules)
    match.apply(2, GiveTribute(c("SA")))
    assert set(match.may_return(0)) == {c("SK"), c("SA")}  # not the level card 2, not a joker


def test_no_tribute_preset_first_place_leads() -> None:
    match = position(["S3", "D3", "C3", "S4"], SINGLE_DOWN, Rules.preset("jingfang"))
    assert match.events[1:] == (LeaderChosen(0, "no_tribute"),)


def test_face_down_returns_reach_the_payers_together() -> None:
    rules = Rules.default().replace(returns_face_down=True)
    match = position(["S3 S4", "SA S9", "C3 C4", "BJ S8"], DOUBLE_DOWN, rules)
    pay_double_down(match, {1: "SA", 3: "BJ"})
    match.apply(0, ReturnTribute(c("S3")))  # to seat 3, which paid 上游
    assert c("S3") not in match.hand(3)
    assert [v.card for v in observe(match, 3).tributes if v.is_return] == [None]
    assert [v.card for v in observe(match, 0).tributes if v.is_return] == [c("S3")]
    match.apply(2, ReturnTribute(c("C3")))
    assert c("S3") in match.hand(3) and c("C3") in match.hand(1)
    assert [v.card for v in observe(match, 3).tributes if v.is_return] == [c("S3"), None]


# ---------------------------------------------------------------- V12, V14 (a), (g), (h): free choices


def equal_position(rules: Rules) -> Match:
    """DOUBLE_DOWN with equal tributes: L1 (seat 1) pays ♠A, L2 (seat 3) ♥A."""
    match = position(["S3 S9", "SA S4", "C3 C9", "HA S5"], DOUBLE_DOWN, rules)
    pay_double_down(match, {1: "SA", 3: "HA"})
    return match


def test_first_place_picks_either_equal_tribute() -> None:
    """V14 (a), (g), (h): 上游 may take either card; 二游 gets the other."""
    match = equal_position(Rules.default().replace(first_picks_tribute=True))
    assert match.phase is Phase.CHOICE and match.to_act == (0,)
    assert match.pending_choice == (Choice.TRIBUTE, (1, 3))
    assert observe(match, 0).choice == (Choice.TRIBUTE, (1, 3)) and observe(match, None).choice is not None
    with pytest.raises(IllegalAction, match="choose one of seats"):
        match.apply(0, ChooseSeat(2))
    with pytest.raises(NotYourTurn):
        match.apply(2, ChooseSeat(3))
    events = match.apply(0, ChooseSeat(3))
    assert events == [
        SeatChosen(0, Choice.TRIBUTE, 3),
        TributeGiven(3, 0, c("HA")),
        TributeGiven(1, 2, c("SA")),
    ]
    assert c("HA") in match.hand(0) and match.to_act == (0, 2)
    match.apply(0, ReturnTribute(c("S3")))
    assert match.apply(2, ReturnTribute(c("C3")))[-1] == LeaderChosen(1, "tribute")
    assert c("S3") in match.hand(3) and c("C3") in match.hand(1)


def test_paid_first_place_leads_option() -> None:
    """V14 (h) 000-J: the loser who paid 上游 leads, whichever card 上游 picked."""
    rules = Rules.default().replace(first_picks_tribute=True, equal_tribute=EqualTribute.PAID_FIRST_LEADS)
    match = equal_position(rules)
    match.apply(0, ChooseSeat(3))
    match.apply(0, ReturnTribute(c("S3")))
    assert match.apply(2, ReturnTribute(c("C9")))[-1] == LeaderChosen(3, "tribute")


@pytest.mark.parametrize(("returns", "asked"), [({0: "S3", 2: "C3"}, True), ({0: "S3", 2: "C9"}, False)])
def test_payers_pick_between_equal_returns(returns: dict[int, str], asked: bool) -> None:
    """V12 / V14 (a): with equal returns too, U's 下家 picks whose return it takes."""
    rules = Rules.default().replace(
        payers_pick_returns=ReturnPick.EQUAL_RETURNS, equal_tribute=EqualTribute.SMALLER_RETURN_LEADS
    )
    match = equal_position(rules)
    match.apply(0, ReturnTribute(c(returns[0])))
    events = match.apply(2, ReturnTribute(c(returns[2])))
    assert (match.phase is Phase.CHOICE) is asked
    if not asked:
        assert events[-1] == LeaderChosen(1, "tribute")  # (a): the smaller return's receiver
        return
    assert match.to_act == (1,) and match.pending_choice == (Choice.RETURN, (0, 2))
    seen = [v.card for v in observe(match, 3).tributes if v.is_return]
    assert sorted(map(str, seen)) == ["C3", "S3"]  # both payers see both returns to choose
    events = match.apply(1, ChooseSeat(0))
    assert events[0] == SeatChosen(1, Choice.RETURN, 0) and events[-1] == LeaderChosen(1, "tribute")
    assert c("S3") in match.hand(1) and c("C3") in match.hand(3)
    assert dict(match.return_givers) == {1: 0, 3: 2}


def test_payers_decide_who_leads_option() -> None:
    """V14 (g) 001-D: U picks a card, the payers pick the returns and decide who leads."""
    rules = Rules.default().replace(
        first_picks_tribute=True,
        payers_pick_returns=ReturnPick.ALWAYS,
        equal_tribute=EqualTribute.PAYERS_CHOOSE,
    )
    match = equal_position(rules)
    match.apply(0, ChooseSeat(1))
    match.apply(0, ReturnTribute(c("S3")))
    match.apply(2, ReturnTribute(c("C9")))
    assert match.pending_choice == (Choice.RETURN, (0, 2))
    assert match.apply(1, ChooseSeat(2)) == [SeatChosen(1, Choice.RETURN, 2)]
    assert match.pending_choice == (Choice.LEADER, (1, 3)) and match.to_act == (1,)
    assert match.apply(1, ChooseSeat(3)) == [SeatChosen(1, Choice.LEADER, 3), LeaderChosen(3, "tribute")]
    assert c("C9") in match.hand(1) and c("S3") in match.hand(3)


def test_choices_replay_from_json_and_the_ai_answers_them() -> None:
    rules = Rules.default().replace(
        first_picks_tribute=True,
        payers_pick_returns=ReturnPick.ALWAYS,
        equal_tribute=EqualTribute.PAYERS_CHOOSE,
    )
    match = equal_position(rules)
    while match.phase is not Phase.PLAY:
        seat = match.to_act[0]
        action = choose_action(observe(match, seat), rules)
        assert action_from_json(action_to_json(action)) == action
        match.apply(seat, action)
    assert [type(a).__name__ for _, a in match.history].count("ChooseSeat") == 3
