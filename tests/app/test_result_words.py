"""/result as organisers type it after 有异议: the winner's group in the match code's place
(``/result 掼蛋8组 有异议成立``) names its match of the round in play; a group that names none,
or two groups, is refused with what to type (issue 32, item 7)."""

from __future__ import annotations

import pytest

from app.contest import texts
from app.contest.args import ArgProblem, MatchUnclear, Unclear, read_decision
from engine.contest import MatchResult, PlayMethod, decide, draw
from engine.contest.errors import ContestError, Refusal
from tests.engine.contest.support import ON_TIME, ORGANISER, report_win, signed_up

FIVE = draw(signed_up(5), now=ON_TIME).contest  # wechat-knockout: two matches, 5组 has a bye


def match_of(number: int):
    found = FIVE.current_round.match_of(number)  # type: ignore[union-attr]
    assert found is not None
    return found


@pytest.mark.parametrize("word", ["掼蛋4组", "4组", "第4组", "4", "４", "掼蛋四组", "四组"])
def test_the_winners_group_names_its_match(word):
    decision = read_decision([word, "有异议成立"], FIVE)
    assert decision.code == match_of(4).code and decision.named_by == 4
    assert decision.result == MatchResult(4, PlayMethod.ORGANISER) and decision.reason == "有异议成立"


def test_a_code_reads_as_before_and_takes_the_winner_as_8组():
    code = match_of(4).code
    decision = read_decision([code, "4组", "9:5", "对方少打一局"], FIVE)
    assert (decision.code, decision.named_by, decision.reason) == (code, None, "对方少打一局")
    assert decision.result.winner == 4 and decision.result.points == (9, 5)


def test_a_group_then_none_puts_both_pairs_of_its_match_out():
    decision = read_decision(["掼蛋1组", "none", "都没来"], FIVE)
    assert decision.code == match_of(1).code and decision.result.winner is None


def test_two_groups_ask_which_one_won():
    with pytest.raises(MatchUnclear) as unclear:
        read_decision(["4", "1", "有异议成立"], FIVE)
    assert unclear.value.why is Unclear.WHICH_WON and unclear.value.matches == (match_of(4),)
    text = texts.unclear_match_text(unclear.value, "zh")
    assert f"/result {match_of(4).code} 4 有异议成立" in text and "哪一组获胜" in text


def test_a_group_without_a_match_lists_the_matches_still_waiting():
    settled = decide(
        FIVE,
        code=match_of(1).code,
        result=MatchResult(1, PlayMethod.ORGANISER),
        by=ORGANISER,
        reason="x",
        now=ON_TIME,
    ).contest
    with pytest.raises(MatchUnclear) as bye:
        read_decision(["掼蛋5组", "理由"], settled)
    assert bye.value.why is Unclear.NO_MATCH and bye.value.matches == (match_of(2),)
    zh = texts.unclear_match_text(bye.value, "zh")
    assert "5组在本轮没有比赛。请输入 /result 对局码 胜方 理由" in zh and match_of(1).code not in zh
    assert zh.endswith(f"等待结果的比赛：{match_of(2).code}（2组 对 3组）。")
    with pytest.raises(MatchUnclear) as unknown:
        read_decision(["掼蛋9组", "理由"], settled)
    assert unknown.value.why is Unclear.NO_PAIR
    assert texts.unclear_match_text(unknown.value, "en").startswith("This contest has no Pair 9.")


def test_every_match_settled_says_so():
    done = report_win(report_win(FIVE, 1), 2)
    with pytest.raises(MatchUnclear) as bye:
        read_decision(["5", "理由"], done)
    assert "本轮每场比赛都已有结果" in texts.unclear_match_text(bye.value, "zh")


@pytest.mark.parametrize(
    ("args", "code", "detail"),
    [
        ([], "result_usage", ""),
        (["有异议成立"], "result_usage", "有异议成立"),
        (["ZZZZ2222", "4", "理由"], "not_a_match", "ZZZZ2222"),
        (["有异议", "成立"], "not_a_match", "有异议"),
        (["4"], "reason_missing", ""),
    ],
)
def test_words_that_name_no_match_say_what_to_type(args, code, detail):
    with pytest.raises(ArgProblem) as refused:
        read_decision(args, FIVE)
    assert (refused.value.code, refused.value.detail) == (code, detail)
    assert "/result" in texts.problem_text(refused.value.code, detail, "zh")


def test_a_code_then_a_reason_says_the_winner_comes_first():
    with pytest.raises(ArgProblem) as refused:
        read_decision([match_of(4).code, "有异议成立"], FIVE)
    assert refused.value.code == "bad_winner"
    assert texts.problem_text(refused.value.code, refused.value.detail, "zh") == (
        "“有异议成立”不是组号：组号写作 3、3组 或 掼蛋3组。"
    )


def test_before_the_draw_a_group_names_nothing_yet():
    with pytest.raises(ContestError) as refused:
        read_decision(["4", "理由"], signed_up(4))
    assert refused.value.code is Refusal.NOT_DRAWN
