"""Issue 11's formats, each with its seed's worked numbers (docs/rules.md §4)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest

from engine.cards import Rank
from engine.contest import (
    FORMATS,
    Contest,
    ContestError,
    ContestMatch,
    ContestPhase,
    MatchKind,
    MatchResult,
    PlayMethod,
    Refusal,
    WithdrawReason,
    confirm_partner,
    decide,
    draw,
    draw_next_round,
    final_places,
    pair_scores,
    record_lateness,
    report,
    sign_up,
    standings,
)
from engine.contest.knockouts import bracket_slots
from engine.contest.pairing import RoundInput
from engine.contest.standings import Mark
from engine.figures import MatchFigures, reported_figures
from engine.rules import MatchFormat

from .support import ON_TIME, ORGANISER, SEED, new_contest, player, signed_up

Pick = Callable[[Contest, ContestMatch], MatchResult]


def lower_number_wins(contest: Contest, match: ContestMatch) -> MatchResult:
    return MatchResult(min(match.pairs), PlayMethod.ORGANISER)


def decide_round(contest: Contest, pick: Pick = lower_number_wins) -> Contest:
    current = contest.current_round
    assert current is not None
    for match in current.matches:
        result = pick(contest, match)
        contest = decide(
            contest, code=match.code, result=result, by=ORGANISER, reason="r", now=ON_TIME
        ).contest
    return contest


def play_out(contest: Contest, pick: Pick = lower_number_wins) -> Contest:
    """Decide every round (each match by ``pick``) until the format says the contest is decided."""
    while True:
        contest = decide_round(contest, pick)
        if contest.phase is ContestPhase.DECIDED:
            return contest
        contest = draw_next_round(contest, now=ON_TIME).contest


def drawn(pairs: int, format_name: str, **settings: object) -> Contest:
    return draw(signed_up(pairs, format_name=format_name, **settings), now=ON_TIME).contest


def test_every_format_is_listed_with_its_seeds() -> None:
    assert set(FORMATS) == {
        "wechat-knockout", "redraw-knockout", "five-round-knockout", "points-knockout", "score-knockout",
        "fixed-bracket", "slot-groups", "table-draw", "jingfang", "movement", "swiss",
    }  # fmt: skip
    sources = {s for f in FORMATS.values() for s in f.sources}
    assert {"000-E", "000-D", "000-I", "004-A", "000-S", "002-E", "002-C", "000-L", "002-B"} <= sources
    assert {"001-B", "003-A", "000-B", "002-D", "001-A"} <= sources


# ---------------------------------------------------------------- 精方 (000-L / 002-B, docs/rules.md §4.3)


def test_jingfang_44_pairs_runs_exactly_as_the_seed() -> None:
    """44 → 22 → (1v2 … 21v22) 11 → 5 matches + 1 bye → repechage of 6 → 3 → 8 → 4 → semis, final."""
    contest = drawn(44, "jingfang")
    seen: list[tuple[str, int, int]] = []  # (stage, matches, byes)
    while True:
        current = contest.current_round
        assert current is not None
        seen.append((current.stage, len(current.main_matches), len(current.byes)))
        if current.number == 2:  # "1号与2号、3号与4号": round 1's table winners in table order
            winners = [m.winner for m in contest.rounds[0].matches]
            assert [m.pairs for m in current.matches] == list(zip(winners[::2], winners[1::2], strict=True))
        contest = decide_round(contest)
        if contest.phase is ContestPhase.DECIDED:
            break
        contest = draw_next_round(contest, now=ON_TIME).contest
    assert seen == [
        ("prelim", 22, 0),
        ("prelim", 11, 0),
        ("qualifying", 5, 1),  # "本次1对轮空进入附加赛"
        ("repechage", 3, 5),  # 5 losers + the bye play; the 5 winners wait
        ("quarter", 4, 0),  # 复赛: 8 → 4
        ("semi", 2, 0),
        ("final", 1, 0),
    ]
    qualifying, repechage = contest.rounds[2], contest.rounds[3]
    assert set(repechage.byes) == {m.winner for m in qualifying.matches}
    repechage_field = {n for m in repechage.matches for n in m.pairs}
    assert qualifying.byes[0] in repechage_field  # the bye does not advance
    assert len(contest.rounds[4].contenders) == 8  # "取初赛的前8组参加复赛"
    final = contest.rounds[-1]
    assert [m.kind for m in final.matches] == [MatchKind.MAIN, MatchKind.THIRD_PLACE]
    for number in (6, 7):  # semi-finals and final best of three; the rest one game
        rules = contest.round_rules(number)
        assert rules.match_format is MatchFormat.BEST_OF and rules.best_of == 3
    assert contest.round_rules(5).match_format is MatchFormat.LEVEL_RACE
    places = final_places(contest)
    assert [(p.place, p.prize) for p in places[:4]] == [(1, "冠军"), (2, "亚军"), (3, "季军"), (4, "第四名")]
    assert places[0].number == 1  # the lowest number wins every match here


def test_jingfang_small_fields_go_straight_to_the_later_stages() -> None:
    assert drawn(8, "jingfang").rounds[0].stage == "quarter"
    assert drawn(4, "jingfang").rounds[0].stage == "semi"
    contest = drawn(9, "jingfang")
    assert contest.rounds[0].stage == "qualifying"
    contest = draw_next_round(decide_round(contest), now=ON_TIME).contest
    repechage = contest.rounds[1]  # 4 qualified; 5 play for the 4 places left: one match
    assert (len(repechage.matches), len(repechage.byes)) == (1, 7)


# ---------------------------------------------------------------- movement (001-B, docs/rules.md §4.5)


def movement_result(contest: Contest, match: ContestMatch) -> MatchResult:
    """The lower number passes A; the other pair ends at level 7 (5 steps climbed)."""
    winner = min(match.pairs)
    index = match.pairs.index(winner)
    levels = (Rank.ACE, Rank.SEVEN) if index == 0 else (Rank.SEVEN, Rank.ACE)
    figures = reported_figures(contest.round_rules(match.round), winner=index, levels=levels)
    return MatchResult(winner, PlayMethod.ORGANISER, figures=figures)


def test_movement_groups_of_four_meet_once_each_by_the_movement_table() -> None:
    contest = play_out(drawn(8, "movement"), movement_result)
    assert len(contest.rounds) == 3 and contest.phase is ContestPhase.DECIDED
    met = Counter(frozenset(m.pairs) for r in contest.rounds for m in r.matches)
    assert set(met.values()) == {1} and len(met) == 12  # 2 groups × 6 meetings
    ns = Counter(m.pairs[0] for r in contest.rounds for m in r.matches)
    assert sorted(ns.values()) == [1, 1, 1, 1, 2, 2, 2, 2]  # "排前坐南北": everyone NS at least once
    # Worked numbers (A17): passing A against a pair at 7 is 100 + (13 − 5) = 108; the loser keeps 5.
    assert contest.rounds[0].matches[0].result is not None
    figures = contest.rounds[0].matches[0].result.figures
    assert figures is not None and sorted(figures.round_score) == [5, 108]
    scores = pair_scores([p.number for p in contest.pairs], contest.rounds)
    group_best = [n for n, s in scores.items() if s.won == 3]
    assert all(scores[n].round_score == 3 * 108 for n in group_best)
    assert sum(s.level_difference for s in scores.values()) == 0
    places = final_places(contest)
    assert {p.number for p in places if p.place == 1} == set(group_best)  # one per group, shared 1st


def test_movement_of_ten_pairs_is_4_3_3_and_a_three_group_has_a_bye_each_round() -> None:
    contest = drawn(10, "movement")
    assert len(contest.rounds[0].matches) == 4 and len(contest.rounds[0].byes) == 2
    with pytest.raises(ContestError) as refused:
        drawn(5, "movement")
    assert refused.value.code is Refusal.FIELD_SIZE


def test_movement_time_out_without_a_winner_scores_each_side_its_levels() -> None:
    """A17: nobody passed A within 60 minutes → no 100 for anybody; each keeps min(12, steps)."""
    contest = drawn(4, "movement")
    figures = reported_figures(contest.round_rules(1), winner=None, levels=(Rank.KING, Rank.NINE))
    assert figures.round_score == (11, 7)


# ---------------------------------------------------------------- Swiss (003-A / 000-B, docs/rules.md §4.6)


def swiss_result(contest: Contest, match: ContestMatch) -> MatchResult:
    """The lower number wins on time by 3 levels (2/0 match points; 级差 3)."""
    winner = min(match.pairs)
    index = match.pairs.index(winner)
    levels = (Rank.FIVE, Rank.TWO) if index == 0 else (Rank.TWO, Rank.FIVE)
    figures = reported_figures(contest.round_rules(match.round), winner=index, levels=levels, passed_a=False)
    return MatchResult(winner, PlayMethod.ORGANISER, figures=figures)


def test_swiss_three_rounds_pairs_by_score_without_rematches() -> None:
    contest = play_out(drawn(8, "swiss"), swiss_result)
    assert len(contest.rounds) == 3
    met = [frozenset(m.pairs) for r in contest.rounds for m in r.matches]
    assert len(met) == len(set(met)) == 12
    scores = pair_scores([p.number for p in contest.pairs], contest.rounds)
    for played in contest.rounds[1:]:  # pairs meet pairs on equal points where they can
        before = pair_scores([p.number for p in contest.pairs], contest.rounds[: played.number - 1])
        gaps = [
            abs(before[a].match_points - before[b].match_points) for a, b in (m.pairs for m in played.matches)
        ]
        assert max(gaps) <= 2
    assert scores[1].match_points == 6 and scores[1].level_difference == Fraction(9)
    places = final_places(contest)
    assert places[0].number == 1 and places[0].place == 1


def test_swiss_bye_goes_to_the_lowest_pair_without_one_and_scores_a_win() -> None:
    contest = play_out(drawn(7, "swiss"), swiss_result)
    byes = [n for r in contest.rounds for n in r.byes]
    assert len(byes) == len(set(byes)) == 3
    scores = pair_scores([p.number for p in contest.pairs], contest.rounds)
    assert all(scores[n].byes == 1 and scores[n].match_points >= 2 for n in byes)


def test_swiss_match_points_and_tie_breaks_are_settings() -> None:
    """A 3/1/3 scale; equal points and 级差 split by the opponents' score (对手分)."""
    from engine.contest import MatchPoints

    contest = drawn(4, "swiss", match_points=MatchPoints(win=3, loss=1, bye=3))
    contest = decide_round(contest, swiss_result)
    scores = pair_scores([p.number for p in contest.pairs], contest.rounds, contest.settings.match_points)
    assert sorted(s.match_points for s in scores.values()) == [1, 1, 3, 3]


# ------------------------------------------------------- 积分淘汰制 (002-D) and 001-A (docs/rules.md §4.4)


def test_score_knockout_walkover_is_worth_level_difference_12() -> None:
    """A18: "如遇对手弃权，级差为1/2" read as 12, with 局分 2 to the winner."""
    contest = drawn(4, "score-knockout")
    match = contest.rounds[0].matches[0]
    quitter = match.pairs[1]
    from engine.contest import withdraw

    contest = withdraw(contest, contest.pair(quitter).user_ids[0], now=ON_TIME).contest
    result = contest.rounds[0].matches[0].result
    assert result is not None and result.method is PlayMethod.WALKOVER
    assert result.figures is not None
    assert result.figures.level_difference == Fraction(12)
    assert result.figures.round_score == (2, 0)
    scores = pair_scores([p.number for p in contest.pairs], contest.rounds)
    assert scores[match.pairs[0]].level_difference == 12 and scores[quitter].level_difference == -12


def test_score_knockout_ranks_pairs_out_in_the_same_round_by_level_difference() -> None:
    contest = drawn(8, "score-knockout")

    def by_margin(contest: Contest, match: ContestMatch) -> MatchResult:
        winner = min(match.pairs)
        index = match.pairs.index(winner)
        low = Rank(2 + max(match.pairs) % 5)  # losers end on different levels
        levels = (Rank.ACE, low) if index == 0 else (low, Rank.ACE)
        figures = reported_figures(contest.round_rules(match.round), winner=index, levels=levels)
        return MatchResult(winner, PlayMethod.ORGANISER, figures=figures)

    contest = play_out(contest, by_margin)
    places = {p.number: p.place for p in final_places(contest)}
    first_round_losers = [max(m.pairs) for m in contest.rounds[0].matches]
    scores = pair_scores(list(places), contest.rounds)
    ordered = sorted(first_round_losers, key=lambda n: places[n])
    assert [scores[n].level_difference for n in ordered] == sorted(
        (scores[n].level_difference for n in ordered), reverse=True
    )


def test_points_knockout_more_threes_breaks_a_tie_else_the_extra_deal() -> None:
    """001-A: "積分相同，以積3分次數多的一方獲勝；如若相同，加賽一輪"."""
    contest = drawn(4, "points-knockout")
    match = contest.rounds[0].matches[0]
    a = match.pairs[0]
    rules = contest.round_rules(1)
    reporter = contest.pair(a).user_ids[0]

    def sheet(winner: int, threes: tuple[int, int]) -> MatchFigures:
        return reported_figures(rules, winner=winner, points=(12, 12), three_point_deals=threes)

    with pytest.raises(ContestError) as refused:  # 12:12, 3s 2:3 — the first pair cannot have won
        report(contest, reporter=reporter, winner=a, now=ON_TIME, points=(12, 12), figures=sheet(0, (2, 3)))
    assert refused.value.code is Refusal.BAD_RESULT
    ok = report(contest, reporter=reporter, winner=a, now=ON_TIME, points=(12, 12), figures=sheet(0, (3, 2)))
    assert ok.contest.rounds[0].matches[0].winner == a
    with pytest.raises(ContestError):  # 12:12 and 3s 2:2: only the extra deal decides
        report(contest, reporter=reporter, winner=a, now=ON_TIME, points=(12, 12), figures=sheet(0, (2, 2)))
    tied = report(
        contest,
        reporter=reporter,
        winner=a,
        now=ON_TIME,
        points=(12, 12),
        extra_deal=True,
        figures=sheet(0, (2, 2)),
    )
    assert tied.contest.rounds[0].matches[0].winner == a


# ---------------------------------------------------------------- other knockouts (docs/rules.md §4.3)


def test_five_round_knockout_takes_32_pairs_and_has_004a_prizes() -> None:
    with pytest.raises(ContestError) as refused:
        drawn(33, "five-round-knockout")
    assert refused.value.code is Refusal.TOO_MANY_PAIRS
    contest = play_out(drawn(32, "five-round-knockout"))
    assert len([r for r in contest.rounds]) == 5  # "共五轮"
    prizes = Counter(p.prize for p in final_places(contest))
    # Tiers take pairs in place order (1, 2, 3, 4, then 4 quarter-final losers sharing 5th);
    # a tie that starts inside a tier takes it whole ("可以微调"): 1 / 2 / 1 + 4, then the
    # 8 pairs out in the last 16 share 9th and are all 优胜奖.
    assert (prizes["一等奖"], prizes["二等奖"], prizes["三等奖"], prizes["优胜奖"]) == (1, 2, 5, 8)


def test_redraw_knockout_places_one_to_three_with_a_third_place_match() -> None:
    contest = play_out(drawn(8, "redraw-knockout"))
    final = contest.rounds[-1]
    assert [m.kind for m in final.matches] == [MatchKind.MAIN, MatchKind.THIRD_PLACE]
    assert [p.place for p in final_places(contest)][:3] == [1, 2, 3]


def unit_contest(units: list[str]) -> Contest:
    contest = new_contest(format_name="fixed-bracket")
    for k, unit in enumerate(units):
        contest = sign_up(contest, player(100 + 2 * k), player(101 + 2 * k), tag=unit).contest
        contest = confirm_partner(contest, 101 + 2 * k).contest
    return draw(contest, now=ON_TIME).contest


def test_fixed_bracket_puts_a_units_two_teams_in_different_halves() -> None:
    units = ["财务", "财务", "人事", "人事", "后勤", "后勤", "信息", "工会", "办公室", "保卫"]
    contest = unit_contest(units)
    view = RoundInput(1, (), (), SEED.lots("x"), seed=SEED, pairs=tuple(p.number for p in contest.pairs),
                      tags={p.number: p.tag for p in contest.pairs})  # fmt: skip
    slots = bracket_slots(view)
    assert len(slots) == 16
    halves = (slots[:8], slots[8:])
    for unit in ("财务", "人事", "后勤"):
        teams = [p.number for p in contest.pairs if p.tag == unit]
        assert [sum(t in half for t in teams) for half in halves] == [1, 1]
    assert all(a is not None for a in slots[::2])  # one bye per slot pair at most
    assert contest.rules().match_format is MatchFormat.BEST_OF  # every match best of three
    finished = play_out(contest)
    winners_r1 = {m.winner for m in finished.rounds[0].matches} | set(finished.rounds[0].byes)
    assert set(finished.rounds[1].contenders) == winners_r1
    level2 = [(slots[i], slots[i + 1]) for i in range(0, 16, 2)]
    survivors = [min(n for n in pair if n is not None) if None not in pair else pair[0] for pair in level2]
    expected = [tuple(sorted(survivors[i : i + 2])) for i in range(0, 8, 2)]
    assert sorted(tuple(sorted(m.pairs)) for m in finished.rounds[1].matches) == sorted(expected)


def test_slot_groups_a1_plays_b1() -> None:
    contest = new_contest(format_name="slot-groups")
    for k in range(6):
        contest = sign_up(contest, player(100 + 2 * k), player(101 + 2 * k), tag="AB"[k % 2]).contest
        contest = confirm_partner(contest, 101 + 2 * k).contest
    contest = draw(contest, now=ON_TIME).contest
    tag = {p.number: p.tag for p in contest.pairs}
    assert all((tag[m.pairs[0]], tag[m.pairs[1]]) == ("A", "B") for m in contest.rounds[0].matches)
    assert len(contest.rounds[0].matches) == 3


def test_table_draw_places_round_two_winners_by_who_passed_a_first() -> None:
    """002-C: "第二轮比赛以最先打过A为胜出，即按时间决出冠、亚、季军"."""
    from datetime import timedelta

    contest = draw_next_round(decide_round(drawn(8, "table-draw")), now=ON_TIME).contest
    second = contest.rounds[1]
    assert len(second.matches) == 2
    late, early = second.matches
    for match, minutes in ((late, 50), (early, 20)):
        winner = max(match.pairs)
        reporter = contest.pair(winner).user_ids[0]
        contest = report(
            contest, reporter=reporter, winner=winner, now=ON_TIME + timedelta(minutes=minutes)
        ).contest
    assert contest.phase is ContestPhase.DECIDED
    places = final_places(contest)
    assert [p.number for p in places[:2]] == [max(early.pairs), max(late.pairs)]
    assert [p.place for p in places[:3]] == [1, 2, 3]


# ------------------------------------------------------- lateness, leave, partner change (docs/rules.md §4.7)


def test_lateness_forfeits_at_the_threshold_and_disqualifies_after_repeats() -> None:
    """001-B: 10 minutes late forfeits the round; late more than 2 times in a row → out."""
    contest = drawn(4, "movement", late_disqualify_after=3)
    late_pair = contest.pairs[0].number
    for number in (1, 2, 3):
        match = contest.rounds[number - 1].match_of(late_pair)
        assert match is not None
        nothing = record_lateness(contest, code=match.code, late_pair=late_pair, minutes=9, by=1, now=ON_TIME)
        assert nothing.events == ()
        step = record_lateness(contest, code=match.code, late_pair=late_pair, minutes=10, by=1, now=ON_TIME)
        contest = step.contest
        updated = contest.rounds[number - 1].match_of(late_pair)
        assert updated is not None and updated.winner == match.opponent(late_pair)
        assert bool(contest.withdrawals) is (number == 3)
        if number < 3:
            contest = decide_round_pending(contest)
            contest = draw_next_round(contest, now=ON_TIME).contest
    assert contest.withdrawals[0].reason is WithdrawReason.LATE


def decide_round_pending(contest: Contest) -> Contest:
    current = contest.current_round
    assert current is not None
    for match in current.matches:
        if match.winner is None:
            result = MatchResult(min(match.pairs), PlayMethod.ORGANISER)
            contest = decide(contest, code=match.code, result=result, by=1, reason="r", now=ON_TIME).contest
    return contest


def test_leave_and_partner_change_are_forfeits_with_their_reason() -> None:
    from engine.contest import withdraw

    contest = drawn(4, "redraw-knockout")
    first, second = contest.rounds[0].matches
    contest = withdraw(
        contest, contest.pair(first.pairs[0]).user_ids[0], now=ON_TIME, reason=WithdrawReason.LEAVE
    ).contest
    contest = withdraw(
        contest, contest.pair(second.pairs[1]).user_ids[1], now=ON_TIME, reason=WithdrawReason.PARTNER_CHANGE
    ).contest
    assert [w.reason for w in contest.withdrawals] == [WithdrawReason.LEAVE, WithdrawReason.PARTNER_CHANGE]
    rows = {r.number: r for r in standings(contest)}
    walkover = rows[first.pairs[1]]  # a walkover counts as won (pair_scores) with no deal's points
    assert walkover.won == 1 and walkover.points_for == 0 and walkover.marks == (Mark.WON,)
    assert contest.rounds[0].matches[0].winner == first.pairs[1]


def test_lateness_needs_a_threshold_in_the_rules() -> None:
    contest = drawn(4, "jingfang")  # the jingfang preset keeps the default 10 minutes
    match = contest.rounds[0].matches[0]
    assert record_lateness(
        contest, code=match.code, late_pair=match.pairs[0], minutes=10, by=1, now=ON_TIME
    ).events
