"""Standings per format family, with numbers worked by hand (docs/rules.md §4.4–§4.6).

Each test plays real results into a real contest (decisions and reports with the
engine's figures) and reads the family's columns and the format's order back.
"""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import timedelta
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Rank
from engine.contest import (
    Contest,
    ContestMatch,
    ContestPhase,
    FactKind,
    MatchFact,
    MatchResult,
    PlayMethod,
    Round,
    Schedule,
    ScheduleKind,
    decide,
    draw_next_round,
    report,
)
from engine.contest.families import Column, Family
from engine.contest.standings import (
    THIRD_PLACE_STAGE,
    Mark,
    contest_standings,
    csv_number,
    stage_of,
    standings_table,
)
from engine.figures import forfeit_figures, reported_figures
from engine.rules import ForfeitDifference, MatchFormat, TimeWinner

from .support import ON_TIME, ORGANISER
from .test_formats import decide_round, drawn, play_out

# ---------------------------------------------------------------- Swiss (003-A, docs/rules.md §4.6)

# (round, winner, loser, 级差): six pairs, three rounds, no rematch. Worked by hand (2/0 points):
#   pair  积分  级差           对手分 (opponents' 积分)
#   1     4    +3 +2 −1 = +4   2, 3, 5 → 2 + 4 + 4 = 10
#   3     4    +2 −2 +1 = +1   4, 1, 6 → 4 + 4 + 0 = 8
#   4     4    −2 +1 +2 = +1   3, 6, 2 → 4 + 0 + 2 = 6
#   5     4    +1 −4 +1 = −2   6, 2, 1 → 0 + 2 + 4 = 6
#   2     2    −3 +4 −2 = −1   1, 5, 4 → 4 + 4 + 4 = 12
#   6     0    −1 −1 −1 = −3   5, 4, 3 → 4 + 4 + 4 = 12
# 1 and 5 tie on 积分 and 级差 separates them; 3 and 4 tie on both, 对手分 separates them.
SWISS_RESULTS = (
    (1, 1, 2, 3), (1, 3, 4, 2), (1, 5, 6, 1),
    (2, 1, 3, 2), (2, 2, 5, 4), (2, 4, 6, 1),
    (3, 5, 1, 1), (3, 4, 2, 2), (3, 3, 6, 1),
)  # fmt: skip


def level_result(contest: Contest, match: ContestMatch, winner: int, difference: int) -> MatchResult:
    """Won on time by ``difference`` levels (the winner at 2 + difference, the loser at 2)."""
    index = match.pairs.index(winner)
    ahead = Rank(2 + difference)
    levels = (ahead, Rank.TWO) if index == 0 else (Rank.TWO, ahead)
    figures = reported_figures(contest.round_rules(match.round), winner=index, levels=levels, passed_a=False)
    return MatchResult(winner, PlayMethod.ORGANISER, figures=figures)


def passed_a_result(contest: Contest, match: ContestMatch, winner: int, margin: int) -> MatchResult:
    """Won by passing A, the loser ``margin`` levels below A (at 3 at most)."""
    index = match.pairs.index(winner)
    behind = Rank(max(3, int(Rank.ACE) - margin))
    levels = (Rank.ACE, behind) if index == 0 else (behind, Rank.ACE)
    figures = reported_figures(contest.round_rules(match.round), winner=index, levels=levels)
    return MatchResult(winner, PlayMethod.ORGANISER, figures=figures)


def with_rounds(contest: Contest, results: tuple[tuple[int, int, int, int], ...]) -> Contest:
    """``contest`` with its rounds replaced by these decided matches (the pairings are the test's)."""
    numbers = sorted({r for r, *_ in results})
    rounds = []
    for number in numbers:
        matches = []
        for table, (_, winner, loser, difference) in enumerate(r for r in results if r[0] == number):
            match = ContestMatch(number, table + 1, f"R{number}T{table + 1}", (winner, loser))
            result = level_result(contest, match, winner, difference)
            matches.append(match.with_fact(MatchFact(FactKind.DECISION, ON_TIME, ORGANISER, result)))
        rounds.append(Round(number, Schedule(ScheduleKind.BOT), tuple(matches)))
    return replace(contest, rounds=tuple(rounds))


def test_swiss_ties_on_points_go_by_level_difference_then_opponents_score() -> None:
    contest = with_rounds(drawn(6, "swiss"), SWISS_RESULTS)
    assert contest.phase is ContestPhase.DECIDED
    table = contest_standings(contest)
    assert table.family is Family.SWISS and not table.provisional
    assert table.columns == Family.SWISS.columns
    got = [
        (r.number, r.rank, r.score.match_points, r.score.level_difference, r.opponents_score, r.won, r.lost)
        for r in table.rows
    ]
    assert got == [
        (1, 1, 4, 4, 10, 2, 1),
        (3, 2, 4, 1, 8, 2, 1),
        (4, 3, 4, 1, 6, 2, 1),
        (5, 4, 4, -2, 6, 2, 1),
        (2, 5, 2, -1, 12, 1, 2),
        (6, 6, 0, -3, 12, 0, 3),
    ]
    assert [r.place for r in table.rows] == [1, 2, 3, 4, 5, 6]
    assert table.rows[0].prize == "冠军"


def test_swiss_standings_are_in_the_formats_order_while_it_runs() -> None:
    contest = with_rounds(drawn(6, "swiss"), SWISS_RESULTS[:6])  # two of three rounds
    table = contest_standings(contest)
    assert table.provisional and all(r.place is None and r.prize is None for r in table.rows)
    # After two rounds: 1 has 4 points (+5), 4 and 2 and 3 have 2, 5 has 2 (−3), 6 none.
    assert [r.number for r in table.rows][:1] == [1] and table.rows[-1].number == 6
    ranks = [r.rank for r in table.rows]
    assert ranks == sorted(ranks)


# ---------------------------------------------------------------- movement (001-B, docs/rules.md §4.5)


def movement_by_number(contest: Contest, match: ContestMatch) -> MatchResult:
    """The lower number passes A; the loser, pair n, ends at level 2 + n (n levels climbed)."""
    winner, loser = min(match.pairs), max(match.pairs)
    index = match.pairs.index(winner)
    low = Rank(2 + loser)
    levels = (Rank.ACE, low) if index == 0 else (low, Rank.ACE)
    figures = reported_figures(contest.round_rules(match.round), winner=index, levels=levels)
    return MatchResult(winner, PlayMethod.ORGANISER, figures=figures)


def test_movement_group_of_four_totals_100_plus_level_difference() -> None:
    """A17: the winner 100 + (13 − loser's steps), the loser its steps. By hand:
    1 beats 2, 3, 4: 111 + 110 + 109 = 330, 级差 +11 +10 +9 = +30;
    2 loses to 1 (2, −11), beats 3 and 4 (110, 109): 221, +8;
    3 loses to 1 and 2 (3 + 3), beats 4 (109): 115, −11;
    4 loses all three (4 × 3): 12, −27."""
    contest = play_out(drawn(4, "movement"), movement_by_number)
    table = contest_standings(contest)
    assert table.columns == (Column.TOTAL_SCORE, Column.ROUND_SCORES, Column.LEVEL_DIFFERENCE, Column.WON)
    got = [(r.number, r.rank, r.score.round_score, r.score.level_difference, r.won) for r in table.rows]
    assert got == [(1, 1, 330, 30, 3), (2, 2, 221, 8, 2), (3, 3, 115, -11, 1), (4, 4, 12, -27, 0)]
    rows = {r.number: r for r in table.rows}
    assert sorted(s for s in rows[1].round_scores if s is not None) == [109, 110, 111]
    assert sorted(s for s in rows[4].round_scores if s is not None) == [4, 4, 4]
    assert all(sum(s or 0 for s in r.round_scores) == r.score.round_score for r in table.rows)
    header = standings_table(contest).header
    scores = ("total_score", "round_1_score", "round_2_score", "round_3_score", "level_difference")
    assert header[5:10] == scores


# ---------------------------------------------------------------- 001-A points knockout (docs/rules.md §4.4)


def test_points_knockout_shows_points_and_threes_and_ranks_them_live() -> None:
    """Round 1: 12:12 won on more 3-point deals (3 v 2), and 15:9. While the contest runs the
    winners are ahead (the 15:9 winner first, on points difference +6 v 0), then the losers:
    12:12's loser (0) above 15:9's (−6)."""
    contest = drawn(4, "points-knockout")
    rules = contest.round_rules(1)
    tie, clear = contest.rounds[0].matches
    for match, points, threes in ((tie, (12, 12), (3, 2)), (clear, (15, 9), (4, 1))):
        winner = match.pairs[0]
        figures = reported_figures(rules, winner=0, points=points, three_point_deals=threes)
        contest = report(
            contest, reporter=contest.pair(winner).user_ids[0], winner=winner, now=ON_TIME,
            points=points, figures=figures,
        ).contest  # fmt: skip
    table = contest_standings(contest)
    assert table.provisional and table.columns == Family.POINTS_KNOCKOUT.columns
    order = [r.number for r in table.rows]
    assert order == [clear.pairs[0], tie.pairs[0], tie.pairs[1], clear.pairs[1]]
    rows = {r.number: r for r in table.rows}
    assert (rows[tie.pairs[0]].points_for, rows[tie.pairs[0]].points_against) == (12, 12)
    assert (rows[tie.pairs[0]].score.threes, rows[tie.pairs[1]].score.threes) == (3, 2)
    assert [r.rank for r in table.rows] == [1, 2, 3, 4]
    assert rows[tie.pairs[1]].marks == (Mark.LOST,) and rows[tie.pairs[0]].reached.stage == "semi"


# ---------------------------------------------------------------- 002-D walkover worth ½ (A18)


def test_a_half_level_walkover_counts_half_in_the_level_difference() -> None:
    contest = drawn(4, "score-knockout")
    match = contest.rounds[0].matches[0]
    rules = contest.round_rules(1).replace(forfeit_difference=ForfeitDifference.HALF)
    result = MatchResult(match.pairs[0], PlayMethod.WALKOVER, figures=forfeit_figures(rules, winner=0))
    contest = decide(
        contest, code=match.code, result=result, by=ORGANISER, reason="弃权", now=ON_TIME
    ).contest
    rows = {r.number: r for r in contest_standings(contest).rows}
    assert rows[match.pairs[0]].score.level_difference == Fraction(1, 2)
    assert rows[match.pairs[1]].score.level_difference == Fraction(-1, 2)
    assert rows[match.pairs[0]].score.match_points == 2  # 局分 2 to the winner
    assert csv_number(Fraction(1, 2)) == "0.5" and csv_number(Fraction(-12)) == -12
    table = standings_table(contest)
    column = table.header.index("level_difference")
    assert sorted(str(row[column]) for row in table.rows) == ["-0.5", "0", "0", "0.5"]


# ---------------------------------------------------------------- knockouts: reached, stages


def test_knockout_rows_say_how_far_each_pair_got() -> None:
    contest = play_out(drawn(8, "redraw-knockout"))
    table = contest_standings(contest)
    assert table.columns == (Column.REACHED, Column.MARKS)  # level races: no points columns
    stages = {r.number: r.reached.stage for r in table.rows}
    assert [stage_of(contest, r) for r in contest.rounds] == ["last8", "semi", "final"]
    assert sorted(stages.values()).count("last8") == 4
    assert sorted(stages.values()).count(THIRD_PLACE_STAGE) == 2
    assert [r.place for r in table.rows][:4] == [1, 2, 3, 4]
    assert table.rows[0].marks == (Mark.WON, Mark.WON, Mark.WON)


def test_jingfang_rounds_are_named_by_their_own_stage() -> None:
    contest = play_out(drawn(12, "jingfang"))
    stages = [stage_of(contest, r) for r in contest.rounds]
    assert stages[0] == "qualifying" and "repechage" in stages and stages[-3:] == ["quarter", "semi", "final"]
    table = contest_standings(contest)
    assert [(r.place, r.prize) for r in table.rows[:4]] == [
        (1, "冠军"),
        (2, "亚军"),
        (3, "季军"),
        (4, "第四名"),
    ]


def test_table_draw_rounds_are_numbered_and_ranked_by_who_passed_a_first() -> None:
    contest = draw_next_round(decide_round(drawn(8, "table-draw")), now=ON_TIME).contest
    late, early = contest.rounds[1].matches
    for match, minutes in ((late, 50), (early, 20)):
        winner = max(match.pairs)
        contest = report(
            contest, reporter=contest.pair(winner).user_ids[0], winner=winner,
            now=ON_TIME + timedelta(minutes=minutes),
        ).contest  # fmt: skip
    assert [stage_of(contest, r) for r in contest.rounds] == ["", ""]
    rows = contest_standings(contest).rows
    assert [r.number for r in rows[:2]] == [max(early.pairs), max(late.pairs)]


# ---------------------------------------------------------------- CSV headers per family


def test_csv_header_carries_each_familys_columns() -> None:
    headers = {
        name: standings_table(play_out(drawn(pairs, name))).header
        for name, pairs in (("swiss", 6), ("movement", 4), ("points-knockout", 4), ("score-knockout", 4),
                            ("wechat-knockout", 4), ("jingfang", 4))
    }  # fmt: skip
    common = ("group", "names", "by_lot", "status", "rank")
    tail = ("provisional", "place", "prize")
    assert headers["swiss"] == (
        *common,
        "match_points",
        "level_difference",
        "opponents_score",
        "won",
        "lost",
        *tail,
    )
    assert headers["movement"] == (
        *common, "total_score", "round_1_score", "round_2_score", "round_3_score", "level_difference",
        "won", *tail,
    )  # fmt: skip
    rounds = ("round_1", "round_2")
    reached = ("reached_round", "reached")
    assert headers["points-knockout"] == (
        *common, *reached, *rounds, "points_for", "points_against", "three_point_deals", *tail,
    )  # fmt: skip
    assert headers["score-knockout"] == (
        *common,
        *reached,
        *rounds,
        "match_points",
        "level_difference",
        *tail,
    )
    assert headers["wechat-knockout"] == (*common, *reached, *rounds, "points_for", "points_against", *tail)
    assert headers["jingfang"] == (*common, *reached, *rounds, *tail)


def test_the_csv_rows_read_back_with_the_figures() -> None:
    contest = with_rounds(drawn(6, "swiss"), SWISS_RESULTS)
    table = standings_table(contest)
    buffer = io.StringIO()
    csv.writer(buffer).writerows([table.header, *table.rows])
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue())))
    first = rows[0]
    assert (first["group"], first["match_points"], first["level_difference"], first["opponents_score"]) == (
        "1", "4", "4", "10",
    )  # fmt: skip
    assert (first["place"], first["prize"], first["provisional"]) == ("1", "冠军", "0")


# ---------------------------------------------------------------- totals add up (property)


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(
        ["swiss", "movement", "score-knockout", "points-knockout", "redraw-knockout", "jingfang"]
    ),
    pairs=st.integers(min_value=4, max_value=12),
    margins=st.lists(st.integers(min_value=1, max_value=11), min_size=1, max_size=40),
    upsets=st.lists(st.booleans(), min_size=1, max_size=40),
)
def test_standings_totals_add_up(name: str, pairs: int, margins: list[int], upsets: list[bool]) -> None:
    """Σ 级差 = 0 over all pairs, Σ wins = Σ losses = settled matches, every pair once, the
    order is the rank order; in every round, finished or not."""
    if name == "movement" and pairs == 5:  # 5 pairs cannot be grouped in threes and fours
        pairs = 6
    count = [0]

    def pick(contest: Contest, match: ContestMatch) -> MatchResult:
        k = count[0]
        count[0] += 1
        winner = match.pairs[int(upsets[k % len(upsets)])]
        if contest.rules().match_format is MatchFormat.POINTS:  # figures need a points sheet
            return MatchResult(winner, PlayMethod.ORGANISER)
        if contest.rules().time_winner is TimeWinner.NONE:  # 001-B: only passing A wins
            return passed_a_result(contest, match, winner, margins[k % len(margins)])
        return level_result(contest, match, winner, margins[k % len(margins)])

    contest = drawn(pairs, name)
    while True:
        check_totals(contest)
        contest = decide_round(contest, pick)
        check_totals(contest)
        if contest.phase is ContestPhase.DECIDED:
            break
        contest = draw_next_round(contest, now=ON_TIME).contest


def check_totals(contest: Contest) -> None:
    table = contest_standings(contest)
    rows = table.rows
    assert sorted(r.number for r in rows) == sorted(p.number for p in contest.pairs)
    assert sum((r.score.level_difference for r in rows), Fraction(0)) == 0
    settled = sum(1 for r in contest.rounds for m in r.matches if m.winner is not None)
    assert sum(r.won for r in rows) == sum(r.lost for r in rows) == settled
    assert [r.rank for r in rows] == sorted(r.rank for r in rows)
    assert all(len(r.marks) == len(contest.rounds) == len(r.round_scores) for r in rows)
    header = standings_table(contest).header
    assert all(len(row) == len(header) for row in standings_table(contest).rows)
