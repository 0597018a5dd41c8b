"""/result's figures (levels, points, 3-point deals) and /signup's tag=, read into the engine:
the parsing, the figures the engine scores from them, and one decision through the desk on a
real database (stored, reloaded, scored)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any, cast

import pytest

from app.contest import texts
from app.contest.args import ArgProblem, parse_decision, parse_signup
from app.contest.store import ContestStore
from engine.cards import Rank
from engine.contest import Refusal, confirm_partner, decide, draw, sign_up
from engine.contest.errors import ContestError
from engine.contest.scores import pair_scores
from handlers.contest.channels import GROUP, PRIVATE
from handlers.contest.desk import ContestDesk
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import Outbox
from storage import Database
from tests.engine.contest.support import ON_TIME, ORGANISER, player, signed_up


def drawn(format_name: str, pairs: int = 4):
    return draw(signed_up(pairs, format_name=format_name), now=ON_TIME).contest


# ---------------------------------------------------------------- parsing


def test_decision_reads_levels_threes_and_time_in_any_order_before_the_reason():
    decision = parse_decision(["K7", "3", "time", "levels=9：A", "3s=2:1", "extra", "打到", "时间"], "掼蛋")
    assert decision.levels == (Rank.NINE, Rank.ACE) and decision.threes == (2, 1)
    assert decision.on_time and decision.result.extra_deal and decision.reason == "打到 时间"
    plain = parse_decision(["K7", "3", "levels=A:10", "现场"], "掼蛋")
    assert plain.levels == (Rank.ACE, Rank.TEN) and not plain.on_time and plain.threes is None


@pytest.mark.parametrize(
    ("args", "code", "detail"),
    [
        (["K7", "3", "levels=A", "x"], "bad_levels", "A"),
        (["K7", "3", "levels=A:Z", "x"], "bad_levels", "A:Z"),
        (["K7", "3", "3s=two", "x"], "bad_threes", "two"),
        (["K7", "3", "levels=A:9", "levels=A:8", "x"], "repeated_option", "levels"),
        (["K7", "3", "time", "x"], "bad_levels", "time"),  # time says nothing without levels
        (["K7", "none", "levels=A:9", "x"], "result_usage", ""),  # both out: nothing was played
        (["K7", "3", "levels=A:9"], "reason_missing", ""),
    ],
)
def test_bad_figures_are_refused_with_the_word_at_fault(args, code, detail):
    with pytest.raises(ArgProblem) as refused:
        parse_decision(args, "掼蛋")
    assert (refused.value.code, refused.value.detail) == (code, detail)
    assert texts.problem_text(code, detail, "zh") != texts.problem_text(code, detail, "en")


def test_signup_splits_off_the_tag_per_format():
    assert parse_signup(["@bo", "tag=南京一队"], "unit").partner_words == ("@bo",)
    assert parse_signup(["@bo", "tag=南京一队"], "unit").tag == "南京一队"
    assert parse_signup(["tag=b"], "slot").tag == "B"
    assert parse_signup(["@bo"], "").tag == ""
    for args, uses, code in [
        (["tag=A"], "", "tag_not_used"),
        (["tag=C"], "slot", "bad_slot"),
        (["tag="], "unit", "bad_tag"),
        (["tag=" + "x" * 13], "unit", "bad_tag"),
        (["tag=A", "tag=B"], "slot", "repeated_option"),
    ]:
        with pytest.raises(ArgProblem) as refused:
            parse_signup(args, uses)
        assert refused.value.code == code


def test_a_tagged_signup_reaches_the_fixed_bracket_draw():
    contest = signed_up(0, format_name="fixed-bracket")
    for k, unit in enumerate(["东大", "东大", "南大", "南大"]):
        words = parse_signup([f"tag={unit}"], contest.format.uses_tags)
        contest, _ = sign_up(contest, player(100 + 2 * k), player(101 + 2 * k), tag=words.tag)
        contest, _ = confirm_partner(contest, 101 + 2 * k)
    contest = draw(contest, now=ON_TIME).contest
    assert sorted(p.tag for p in contest.pairs) == ["东大", "东大", "南大", "南大"]
    for unit in ("东大", "南大"):  # a unit's two teams never meet in round 1 (different halves)
        teams = {p.number for p in contest.pairs if p.tag == unit}
        assert all(set(m.pairs) != teams for m in contest.rounds[0].matches)


# ---------------------------------------------------------------- figures the engine scores


def test_levels_give_a_swiss_result_its_level_difference():
    contest = drawn("swiss")
    match = contest.rounds[0].matches[0]
    first, second = match.pairs
    decision = parse_decision([match.code, str(second), "levels=A:10", "现场"], "掼蛋")  # the winner's first
    result = decision.with_figures(contest)
    assert result.figures is not None and result.figures.winner == 1
    assert result.figures.level_difference == Fraction(13 - 8)  # past A (13 steps) against 10 (8 steps)
    contest = decide(
        contest, code=match.code, result=result, by=ORGANISER, reason="现场", now=ON_TIME
    ).contest
    scores = pair_scores([p.number for p in contest.pairs], contest.rounds)
    assert scores[second].level_difference == 5 and scores[first].level_difference == -5
    on_time = parse_decision([match.code, str(first), "levels=6:3", "time", "现场"], "掼蛋")
    assert on_time.with_figures(contest).figures.level_difference == Fraction(3)  # type: ignore[union-attr]
    at_ten = parse_decision([match.code, str(second), "levels=10:A", "现场"], "掼蛋")
    with pytest.raises(ArgProblem) as refused:  # the winner at 10 cannot have passed A
        at_ten.with_figures(contest)
    assert (refused.value.code, refused.value.detail) == ("bad_levels", "T:A")


def test_points_and_threes_decide_a_points_knockout_tie():
    contest = drawn("points-knockout")
    match = contest.rounds[0].matches[0]
    first, second = match.pairs
    wrong = parse_decision([match.code, str(second), "10:10", "3s=2:3", "现场"], "掼蛋").with_figures(contest)
    assert wrong.figures is not None and wrong.figures.three_point_deals == (3, 2)
    with pytest.raises(ContestError) as refused:  # more 3-point deals win a tie (001-A)
        decide(contest, code=match.code, result=wrong, by=ORGANISER, reason="现场", now=ON_TIME)
    assert refused.value.code is Refusal.BAD_RESULT
    right = parse_decision([match.code, str(first), "10:10", "3s=3:2", "现场"], "掼蛋").with_figures(contest)
    decided = decide(contest, code=match.code, result=right, by=ORGANISER, reason="现场", now=ON_TIME).contest
    assert decided.match_by_code(match.code).winner == first


def test_without_levels_or_threes_the_result_is_unchanged():
    contest = drawn("wechat-knockout")  # a 6-deal points match (000-E)
    match = contest.rounds[0].matches[0]
    decision = parse_decision([match.code, str(match.pairs[1]), "现场"], "掼蛋")
    assert decision.with_figures(contest) == decision.result
    decision = parse_decision([match.code, str(match.pairs[1]), "9:5", "现场"], "掼蛋")
    assert decision.with_figures(contest) == replace(decision.result, points=(5, 9))  # the match's order


@pytest.mark.parametrize("listed", [0, 1])
def test_figures_are_the_winners_first_and_a_contradiction_is_refused(listed: int) -> None:
    """/result CODE 6 9:5: 6组 won 9 to 5, whether it is listed first or second (issue 18.10)."""
    contest = drawn("wechat-knockout")
    match = contest.rounds[0].matches[0]
    winner, loser = match.pairs[listed], match.pairs[1 - listed]
    result = parse_decision([match.code, str(winner), "9:5", "现场"], "掼蛋").with_figures(contest)
    assert result.points is not None and result.points[listed] == 9 and result.points[1 - listed] == 5
    decided = decide(contest, code=match.code, result=result, by=ORGANISER, reason="现场", now=ON_TIME)
    assert decided.contest.match_by_code(match.code).winner == winner
    with pytest.raises(ArgProblem) as refused:
        parse_decision([match.code, str(winner), "5:9", "现场"], "掼蛋").with_figures(contest)
    assert refused.value.code == "figures_contradict"
    assert refused.value.detail == f"{winner}组 5:9 {loser}组"
    answer = texts.problem_text(refused.value.code, refused.value.detail, "zh")
    assert f"{winner}组 5:9 {loser}组" in answer and "先写胜方" in answer


def test_levels_on_time_that_give_the_winner_less_are_refused() -> None:
    contest = drawn("swiss")
    match = contest.rounds[0].matches[0]
    with pytest.raises(ArgProblem) as refused:
        parse_decision([match.code, str(match.pairs[1]), "levels=3:6", "time", "现场"], "掼蛋").with_figures(
            contest
        )
    assert refused.value.code == "figures_contradict"


# ---------------------------------------------------------------- through the desk


async def test_a_decision_with_levels_is_stored_and_scored(store: str) -> None:
    db = await Database.open(store)
    outbox = Outbox(db.outbox)
    desk = ContestDesk(cast(Any, None), ContestStore(db), outbox, ChatBudget(), cast(Any, None))
    sent: list[dict[str, Any]] = []

    async def record(_chat_id: int, payload: dict[str, Any]) -> None:
        sent.append(payload)

    outbox.register(GROUP, record)
    outbox.register(PRIVATE, record)
    try:
        stored = await db.contests.create(chat_id=-9, contest=signed_up(4, format_name="swiss"))
        _after, step = await desk.run(stored.id, lambda c: draw(c, now=ON_TIME))
        match = step.contest.rounds[0].matches[0]
        winner, loser = match.pairs
        decision = parse_decision([match.code, f"掼蛋{winner}组", "levels=A:8", "现场", "记分"], "掼蛋")

        def command(contest):
            result = decision.with_figures(contest)
            return decide(
                contest, code=match.code, result=result, by=ORGANISER, reason=decision.reason, now=ON_TIME
            )

        await desk.run(stored.id, command)
        await outbox.join()
        reloaded = (await db.contests.get(contest_id=stored.id)).contest
        figures = reloaded.match_by_code(match.code).result.figures  # type: ignore[union-attr]
        assert figures is not None and figures.levels == (Rank.ACE, Rank.EIGHT)
        scores = pair_scores([p.number for p in reloaded.pairs], reloaded.rounds)
        assert scores[winner].level_difference == 13 - 6 and scores[loser].level_difference == -7
        assert sent  # the decision was announced through the outbox
    finally:
        await outbox.close()
        await db.close()
