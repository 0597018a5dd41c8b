"""Level-ups, the A rules and match verdicts (V01–V04, V34/V35, docs/rules.md §1.8–§1.9, §1.13)."""

from __future__ import annotations

import pytest

from engine.cards import Rank
from engine.rules import (
    AFailureCount,
    APass,
    AReset,
    MatchFormat,
    Overflow,
    PointsTieBreak,
    Rules,
    TimeTieBreak,
)
from engine.scoring import DealResult, Standing, Verdict, points_verdict, settle_deal, time_verdict

DOUBLE_DOWN = (0, 2, 3, 1)  # team 0 takes 1st and 2nd
ONE_THREE = (0, 1, 2, 3)
ONE_FOUR = (0, 1, 3, 2)
OPPONENTS_WIN = (1, 3, 0, 2)


def deal(order: tuple[int, int, int, int], levels: tuple[Rank, Rank], declarer: int = 0, number: int = 2):
    return DealResult(number, order, declarer, levels[declarer])


@pytest.mark.parametrize(("order", "gained"), [(DOUBLE_DOWN, 3), (ONE_THREE, 2), (ONE_FOUR, 1)])
def test_level_ups_by_outcome(order, gained) -> None:
    settled = settle_deal(Standing(), deal(order, (Rank.TWO, Rank.TWO)), Rules.default())
    assert settled.levels_gained == gained
    assert settled.standing.levels == (Rank(2 + gained), Rank.TWO)


def test_six_four_two_and_five_three_one_tables() -> None:
    rules = Rules.default().replace(level_ups=(6, 4, 2))
    assert (
        settle_deal(Standing(), deal(DOUBLE_DOWN, (Rank.TWO, Rank.TWO)), rules).standing.levels[0]
        is Rank.EIGHT
    )


def at_a(**changes) -> Standing:
    return Standing(levels=(Rank.ACE, Rank.FIVE), **changes)


@pytest.mark.parametrize(("order", "passed"), [(DOUBLE_DOWN, True), (ONE_THREE, True), (ONE_FOUR, False)])
def test_passing_a_needs_the_partner_not_last(order, passed) -> None:
    settled = settle_deal(at_a(), deal(order, (Rank.ACE, Rank.FIVE)), Rules.default())
    assert (settled.game_won == 0) is passed
    assert settled.a_attempt == ("passed" if passed else "failed")


def test_double_down_only_variant() -> None:
    rules = Rules.default().replace(a_pass=APass.DOUBLE_DOWN)
    assert settle_deal(at_a(), deal(ONE_THREE, (Rank.ACE, Rank.FIVE)), rules).game_won is None


@pytest.mark.parametrize(
    ("order", "won"),
    [(ONE_THREE, 0), ((1, 0, 2, 3), 0), ((3, 2, 0, 1), 0), (OPPONENTS_WIN, None), (ONE_FOUR, None)],
)
def test_no_fourth_variant_passes_a_for_the_side_at_a(order, won) -> None:
    """000-K: 只要己方不出现末游就算通过 — the side at A passes when neither of its players is
    下游, even in a deal the opponents' 上游 won; the game is the side at A's, never the 上游's."""
    rules = Rules.default().replace(a_pass=APass.NO_FOURTH)
    settled = settle_deal(at_a(), deal(order, (Rank.ACE, Rank.FIVE)), rules)
    assert settled.game_won == won


def test_failures_count_opponent_wins_and_reset_after_three() -> None:
    rules = Rules.default()
    standing = at_a()
    for failures in (1, 2):
        settled = settle_deal(standing, deal(OPPONENTS_WIN, standing.levels), rules)
        assert settled.a_attempt == "failed"
        standing = settled.standing
        assert standing.a_failures == (failures, 0)
        assert standing.levels[0] is Rank.ACE
        standing = Standing(levels=(Rank.ACE, Rank.FIVE), a_failures=standing.a_failures)
    settled = settle_deal(standing, deal(ONE_FOUR, standing.levels), rules)
    assert settled.a_attempt == "reset"
    assert settled.standing.levels[0] is Rank.TWO and settled.standing.a_failures == (0, 0)


def test_a_failure_by_own_one_four_win_does_not_climb() -> None:
    settled = settle_deal(at_a(), deal(ONE_FOUR, (Rank.ACE, Rank.FIVE)), Rules.default())
    assert settled.levels_gained == 0 and settled.standing.levels == (Rank.ACE, Rank.FIVE)


def test_two_consecutive_failures_variant() -> None:
    rules = Rules.preset("wuyi-2015")
    assert rules.a_failure_count is AFailureCount.CONSECUTIVE
    first = settle_deal(at_a(), deal(ONE_FOUR, (Rank.ACE, Rank.FIVE)), rules).standing
    assert first.a_failures == (1, 0)
    interrupted = settle_deal(first, deal(OPPONENTS_WIN, first.levels, declarer=1), rules).standing
    assert interrupted.a_failures == (0, 0)
    second = settle_deal(first, deal(ONE_FOUR, first.levels), rules)
    assert second.a_attempt == "reset" and second.standing.levels[0] is Rank.TWO


def test_never_reset_keeps_playing_a() -> None:
    rules = Rules.default().replace(a_failure_limit=None)
    standing = at_a()
    for _ in range(5):
        standing = settle_deal(standing, deal(ONE_FOUR, standing.levels), rules).standing
    assert standing.levels[0] is Rank.ACE and standing.a_failures == (5, 0)


def test_reset_variants() -> None:
    lower = Rules.default().replace(a_failure_limit=1, a_reset=AReset.ONE_LOWER)
    assert settle_deal(at_a(), deal(ONE_FOUR, (Rank.ACE, Rank.FIVE)), lower).standing.levels[0] is Rank.KING
    from_three = Rules.default().replace(a_failure_limit=1, a_reset=AReset.TO_TWO_FROM_THREE)
    reset = settle_deal(at_a(), deal(ONE_FOUR, (Rank.ACE, Rank.FIVE)), from_three).standing
    assert reset.levels[0] is Rank.TWO
    climbed = settle_deal(reset, deal(ONE_FOUR, reset.levels), from_three).standing
    assert climbed.levels[0] is Rank.FOUR


def test_overflow_stops_at_a() -> None:
    standing = Standing(levels=(Rank.QUEEN, Rank.TWO))
    settled = settle_deal(standing, deal(DOUBLE_DOWN, standing.levels), Rules.default())
    assert settled.standing.levels == (Rank.ACE, Rank.TWO) and settled.game_won is None


def test_overflow_cycles_or_demotes() -> None:
    standing = Standing(levels=(Rank.KING, Rank.SIX))
    cycle = Rules.default().replace(overflow=Overflow.CYCLE, a_pass=APass.ORDINARY, must_play=())
    cycled = settle_deal(standing, deal(DOUBLE_DOWN, standing.levels), cycle).standing
    assert cycled.levels == (Rank.THREE, Rank.SIX) and cycled.cycles == (1, 0)
    demote = Rules.default().replace(overflow=Overflow.DEMOTE_OPPONENTS, level_ups=(5, 3, 1))
    demoted = settle_deal(standing, deal(DOUBLE_DOWN, standing.levels), demote).standing
    assert demoted.levels == (Rank.ACE, Rank.TWO)


def test_jack_must_be_played() -> None:
    standing = Standing(levels=(Rank.NINE, Rank.TWO))
    rules = Rules.preset("nanjing-forestry")
    assert settle_deal(standing, deal(DOUBLE_DOWN, standing.levels), rules).standing.levels[0] is Rank.JACK


def test_reaching_a_wins_in_reach_formats() -> None:
    standing = Standing(levels=(Rank.QUEEN, Rank.TWO))
    settled = settle_deal(standing, deal(ONE_THREE, standing.levels), Rules.preset("jingfang"))
    assert (settled.game_won, settled.reason) == (0, "reached_a")


def test_points_scale_and_threes() -> None:
    rules = Rules.preset("wechat-6-deals")
    settled = settle_deal(Standing(), deal(DOUBLE_DOWN, (Rank.TWO, Rank.TWO)), rules)
    assert settled.points == (3, 0) and settled.standing.threes == (1, 0)
    assert settled.standing.levels == (Rank.TWO, Rank.TWO)


def test_points_verdict_after_six_deals_and_on_a_tie() -> None:
    rules = Rules.preset("wechat-6-deals")
    assert points_verdict(Standing(points=(9, 3)), 5, 0, rules) is None
    assert points_verdict(Standing(points=(9, 8)), 6, 0, rules) == Verdict(0, "points")
    assert points_verdict(Standing(points=(9, 9)), 6, 0, rules) == Verdict(None, "points", sudden_death=True)


def test_points_tie_broken_by_three_point_deals() -> None:
    rules = Rules.preset("anhui-jianzhu")
    assert rules.points_tie_break is PointsTieBreak.MORE_THREES_THEN_EXTRA
    assert points_verdict(Standing(points=(12, 12), threes=(1, 2)), 10, 0, rules) == Verdict(1, "points")
    tie = Verdict(None, "points", sudden_death=True)
    assert points_verdict(Standing(points=(12, 12), threes=(2, 2)), 10, 0, rules) == tie


def test_points_target_wins_at_once() -> None:
    rules = Rules.preset("huaian")
    assert points_verdict(Standing(points=(13, 4)), 5, 0, rules) == Verdict(0, "points")


def test_time_verdicts() -> None:
    rules = Rules.default().replace(time_limit_minutes=60)
    assert time_verdict(Standing(levels=(Rank.NINE, Rank.FIVE)), rules, 1, 1, None) == Verdict(0, "time")
    tie = Standing(levels=(Rank.NINE, Rank.NINE))
    assert time_verdict(tie, rules, 1, 1, None).winner is None  # sudden death by default
    last = rules.replace(time_tie_break=TimeTieBreak.LAST_FIRST_PLACE)
    assert time_verdict(tie, last, 1, 0, None).winner == 1
    assert time_verdict(tie, rules.replace(time_tie_break=TimeTieBreak.DECLARER), 1, 0, None).winner == 0
    assert time_verdict(tie, rules.replace(time_tie_break=TimeTieBreak.NON_DECLARER), 1, 0, None).winner == 1
    assert time_verdict(tie, rules.replace(time_tie_break=TimeTieBreak.PLAYER_OUT), 1, 0, 1).winner == 1
    assert time_verdict(tie, rules, 1, 1, None).sudden_death


def test_time_verdict_without_a_winner_when_only_passing_a_wins() -> None:
    """001-B / A17: nobody passed A in time, so nobody wins, whatever the levels."""
    rules = Rules.preset("three-round-movement")
    for levels in ((Rank.NINE, Rank.FIVE), (Rank.NINE, Rank.NINE)):
        assert time_verdict(Standing(levels=levels), rules, 1, 1, 0) == Verdict(None, "time")


def test_points_formats_use_level_two() -> None:
    assert not Rules.preset("wechat-6-deals").uses_levels
    assert Rules.preset("huaian").uses_levels
    assert Rules.preset("huaian").match_format is MatchFormat.POINTS


def _play(text: str, level: Rank):
    from engine.cards import parse_cards
    from engine.classify import classify

    return classify(parse_cards(text), level)[0]


def test_bonus_levels_for_trailed_and_kept_small_twos() -> None:
    from engine.cards import parse_cards

    rules = Rules.default().replace(bonus_levels=True)
    level = Rank.FIVE
    finals = (_play("S2 H2", level), None, None, None)
    trailed = DealResult(2, ONE_THREE, 0, level, finals, tuple(parse_cards("C2 D9")))
    settled = settle_deal(Standing(levels=(level, level)), trailed, rules)
    assert settled.levels_gained == 2 + 2 + 1  # 1st+3rd, two trailed 2s, one 2 kept by an opponent
    kept_by_partner = DealResult(2, ONE_FOUR, 0, level, (_play("S9", level),), tuple(parse_cards("C2 D2 S2")))
    assert (
        settle_deal(Standing(levels=(level, level)), kept_by_partner, rules).standing.levels[0] is Rank.THREE
    )
    bomb = DealResult(2, ONE_THREE, 0, level, (_play("S2 H2 C2 D2", level),), ())
    assert settle_deal(Standing(levels=(level, level)), bomb, rules).levels_gained == 2
    assert settle_deal(Standing(levels=(level, level)), trailed, Rules.default()).levels_gained == 2


def test_round_scores() -> None:
    from engine.rules import RoundScore
    from engine.scoring import round_score

    standing = Standing(levels=(Rank.ACE, Rank.NINE))
    movement = Rules.preset("three-round-movement")
    assert movement.round_score is RoundScore.HUNDRED_PLUS_DIFFERENCE
    assert round_score(standing, 0, movement) == (100 + 13 - 7, 7)
    assert round_score(standing, None, movement) == (12, 7)
    assert round_score(standing, 1, Rules.preset("knockout-135")) == (0, 2)
    assert round_score(standing, 1, Rules.default()) == (0, 0)
