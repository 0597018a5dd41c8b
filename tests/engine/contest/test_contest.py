"""The contest state machine: sign-up, reports, disputes, the 000-E deadline, a whole contest."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.contest import (
    ContestPhase,
    Deadline,
    DeadlineMoved,
    Mark,
    MatchNote,
    MatchResult,
    MatchStatus,
    PairStatus,
    PlayMethod,
    PrizeTier,
    Refusal,
    ReportRefused,
    ResultRefused,
    RoundCompleted,
    Schedule,
    ScheduleKind,
    SignupRefused,
    WrongPhase,
    change_partner,
    close_contest,
    close_round,
    confirm,
    decide,
    decline_partner,
    dispute,
    draw,
    draw_next_round,
    export_tables,
    final_places,
    move_deadline,
    record_bot_result,
    report_text,
    sign_up,
    standings,
    unreported,
    withdraw,
)

from .support import DEADLINE, ON_TIME, ORGANISER, decide_win, new_contest, player, report_win, signed_up

# ---------------------------------------------------------------- sign-up


def test_sign_up_rules() -> None:
    contest, _ = sign_up(new_contest(), player(1), player(2))
    with pytest.raises(SignupRefused) as taken:
        sign_up(contest, player(3), player(2))
    assert taken.value.code is Refusal.PARTNER_TAKEN
    with pytest.raises(SignupRefused) as again:
        sign_up(contest, player(1))
    assert again.value.code is Refusal.ALREADY_SIGNED_UP
    with pytest.raises(SignupRefused) as self_partner:
        sign_up(contest, player(3), player(3))
    assert self_partner.value.code is Refusal.SELF_PARTNER


def test_declined_invitation_leaves_a_single_and_withdrawal_keeps_the_partner() -> None:
    contest, _ = sign_up(new_contest(), player(1), player(2))
    contest, _ = decline_partner(contest, 2)
    assert [(e.player.user_id, e.partner) for e in contest.entries] == [(1, None)]
    contest = signed_up(pairs=1)
    contest, (event,) = withdraw(contest, 100, now=ON_TIME)
    assert event.remaining is not None and event.remaining.player.user_id == 101
    assert [e.is_single for e in contest.entries] == [True]


def test_partner_change_after_the_draw_is_refused_v32() -> None:
    contest, _ = draw(signed_up(pairs=4), now=ON_TIME)
    with pytest.raises(SignupRefused) as refused:
        change_partner(contest, 100, player(999))
    assert refused.value.code is Refusal.PARTNER_CHANGE
    with pytest.raises(WrongPhase) as closed:
        sign_up(contest, player(999))
    assert closed.value.code is Refusal.SIGNUP_CLOSED


def test_partner_change_where_the_preset_allows_it() -> None:
    contest, _ = draw(signed_up(pairs=2, preset="knockout-135"), now=ON_TIME)
    contest, _ = change_partner(contest, 100, player(999))
    assert 999 in contest.pair_of_user(100).user_ids  # type: ignore[union-attr]


# ---------------------------------------------------------------- reports


def drawn(pairs: int = 4):
    contest, _ = draw(signed_up(pairs=pairs), now=ON_TIME)
    return contest


def test_a_report_counts_at_once_and_duplicates_are_acknowledged() -> None:
    contest = drawn()
    match = contest.rounds[0].matches[0]
    winner, loser = match.pairs
    contest, (event,) = report_text(
        contest, reporter=contest.pair(loser).user_ids[1], text=f"掼蛋{winner}组", now=ON_TIME
    )
    assert event.note is MatchNote.REPORTED and event.match.status is MatchStatus.REPORTED
    assert contest.rounds[0].match_of(winner).winner == winner  # type: ignore[union-attr]
    contest, (again,) = report_text(
        contest, reporter=contest.pair(winner).user_ids[0], text=f"掼蛋 {winner} 组", now=ON_TIME
    )
    assert again.note is MatchNote.DUPLICATE
    assert len(again.match.facts) == 2 and again.match.status is MatchStatus.REPORTED


def test_a_contradicting_report_is_a_dispute_for_the_organiser() -> None:
    contest = drawn()
    a, b = contest.rounds[0].matches[0].pairs
    contest = report_win(contest, a)
    contest, (event,) = report_text(
        contest, reporter=contest.pair(b).user_ids[0], text=f"掼蛋{b}组", now=ON_TIME
    )
    assert event.note is MatchNote.CONTRADICTION and event.match.status is MatchStatus.DISPUTED
    assert event.match.winner is None  # the first report no longer stands alone
    contest = decide_win(contest, event.match.code, b)
    decided = contest.rounds[0].match_of(a)
    assert decided.status is MatchStatus.DECIDED and decided.winner == b  # type: ignore[union-attr]
    assert len(decided.facts) == 3  # type: ignore[union-attr]  # nothing overwritten


def test_confirm_and_dispute_only_by_the_opponents() -> None:
    contest = drawn()
    match = contest.rounds[0].matches[0]
    a, b = match.pairs
    contest = report_win(contest, a)  # reported by a player of pair a
    with pytest.raises(ResultRefused) as own:
        confirm(contest, code=match.code, by=contest.pair(a).user_ids[1], now=ON_TIME)
    assert own.value.code is Refusal.NOT_OPPONENT
    stranger = next(p for p in contest.pairs if p.number not in match.pairs).user_ids[0]
    with pytest.raises(ResultRefused) as outsider:
        confirm(contest, code=match.code, by=stranger, now=ON_TIME)
    assert outsider.value.code is Refusal.NOT_A_PLAYER
    confirmed, _ = confirm(contest, code=match.code, by=contest.pair(b).user_ids[0], now=ON_TIME)
    assert confirmed.rounds[0].matches[0].status is MatchStatus.CONFIRMED
    disputed, _ = dispute(
        contest, code=match.code, by=contest.pair(b).user_ids[0], now=ON_TIME, reason="we won"
    )
    assert disputed.rounds[0].matches[0].status is MatchStatus.DISPUTED


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("掼蛋99组", Refusal.UNKNOWN_GROUP),
        ("桥牌1组", Refusal.WRONG_EVENT),
        ("掼蛋1组2组", Refusal.SEVERAL_NUMBERS),
    ],
)
def test_report_refusals(text: str, code: Refusal) -> None:
    contest = drawn()
    with pytest.raises(ReportRefused) as refused:
        report_text(contest, reporter=100, text=text, now=ON_TIME)
    assert refused.value.code is code


def test_a_report_from_someone_outside_the_match_or_for_a_bye_is_refused() -> None:
    contest = drawn(pairs=5)
    (bye,) = contest.rounds[0].byes
    with pytest.raises(ReportRefused) as not_in_round:
        report_text(contest, reporter=contest.pair(bye).user_ids[0], text=f"掼蛋{bye}组", now=ON_TIME)
    assert not_in_round.value.code is Refusal.NOT_IN_ROUND
    match = contest.rounds[0].matches[0]
    with pytest.raises(ReportRefused) as outsider:
        report_text(
            contest, reporter=contest.pair(bye).user_ids[0], text=f"掼蛋{match.pairs[0]}组", now=ON_TIME
        )
    assert outsider.value.code is Refusal.NOT_A_PLAYER


def test_a_late_report_is_refused() -> None:
    contest = drawn()
    late = DEADLINE.closes_at
    with pytest.raises(ResultRefused) as refused:
        report_win(contest, contest.rounds[0].matches[0].pairs[0], at=late)
    assert refused.value.code is Refusal.LATE
    report_win(contest, contest.rounds[0].matches[0].pairs[0], at=late - timedelta(seconds=1))


def test_a_bot_result_is_authoritative() -> None:
    contest = drawn()
    match = contest.rounds[0].matches[0]
    result = MatchResult(match.pairs[1], PlayMethod.BOT_TABLE, (5, 9))
    contest, (event,) = record_bot_result(contest, code=match.code.lower(), result=result, now=ON_TIME)
    assert event.match.status is MatchStatus.CONFIRMED and event.match.winner == match.pairs[1]
    with pytest.raises(ResultRefused) as refused:
        dispute(contest, code=match.code, by=contest.pair(match.pairs[0]).user_ids[0], now=ON_TIME)
    assert refused.value.code is Refusal.ALREADY_DECIDED


# ---------------------------------------------------------------- the 000-E deadline


def test_unreported_matches_are_both_out_at_the_deadline() -> None:
    contest = drawn(pairs=8)
    first, second, *rest = contest.rounds[0].matches
    contest = report_win(contest, first.pairs[0])
    contest, _ = dispute(contest, code=first.code, by=contest.pair(first.pairs[1]).user_ids[0], now=ON_TIME)
    for match in rest:
        contest = report_win(contest, match.pairs[1])
    assert [m.code for m in unreported(contest)] == [second.code]
    contest, events = close_round(contest, now=DEADLINE.closes_at)
    assert [e.note for e in events] == [MatchNote.BOTH_OUT]
    both_out = contest.rounds[0].match_of(second.pairs[0])
    assert both_out.status is MatchStatus.DECIDED and both_out.winner is None  # type: ignore[union-attr]
    assert contest.phase is ContestPhase.ROUND_IN_PLAY  # the dispute still waits for the organiser
    result = MatchResult(first.pairs[1], PlayMethod.ORGANISER)
    contest, events = decide(
        contest, code=first.code, result=result, by=ORGANISER, reason="score sheet", now=ON_TIME
    )
    assert any(isinstance(e, RoundCompleted) for e in events)
    assert set(contest.alive) == {first.pairs[1], *(m.pairs[1] for m in rest)}
    assert not set(second.pairs) & set(contest.alive)


def test_decisions_need_a_reason_and_a_player_of_the_match() -> None:
    contest = drawn()
    match = contest.rounds[0].matches[0]
    with pytest.raises(ResultRefused) as no_reason:
        decide(
            contest,
            code=match.code,
            result=MatchResult(match.pairs[0], PlayMethod.ORGANISER),
            by=1,
            reason=" ",
            now=ON_TIME,
        )
    assert no_reason.value.code is Refusal.REASON_REQUIRED
    outsider = next(p.number for p in contest.pairs if p.number not in match.pairs)
    with pytest.raises(ResultRefused) as bad:
        decide(
            contest,
            code=match.code,
            result=MatchResult(outsider, PlayMethod.ORGANISER),
            by=1,
            reason="x",
            now=ON_TIME,
        )
    assert bad.value.code is Refusal.BAD_RESULT


def test_moving_the_deadline_moves_the_both_out_line() -> None:
    contest = drawn()
    later = Deadline.parse("2026-12-24")
    contest, (moved,) = move_deadline(contest, later)
    assert moved == DeadlineMoved(1, later) and contest.rounds[0].schedule.deadline == later
    winner = contest.rounds[0].matches[0].pairs[0]
    past_the_old_line = DEADLINE.closes_at + timedelta(days=1)
    reported = report_win(contest, winner, at=past_the_old_line)  # in time now: not refused as late
    match = reported.rounds[0].match_of(winner)
    assert match.status is MatchStatus.REPORTED and match.winner == winner
    with pytest.raises(ResultRefused) as refused:  # the new line holds as the old one did
        report_win(contest, winner, at=later.closes_at)
    assert refused.value.code is Refusal.LATE
    closed, _ = close_round(contest, now=later.closes_at)  # unreported at the new line: both out
    both_out = closed.rounds[0].match_of(winner)
    assert both_out.status is MatchStatus.DECIDED and both_out.winner is None
    assert both_out.result is not None and both_out.result.method is PlayMethod.BOTH_OUT


def test_a_withdrawal_after_the_draw_is_a_walkover() -> None:
    contest = drawn()
    match = contest.rounds[0].matches[0]
    quitter, opponent = match.pairs
    contest, events = withdraw(contest, contest.pair(quitter).user_ids[1], now=ON_TIME)
    assert [type(e).__name__ for e in events] == ["PairWithdrew", "MatchUpdated"]
    assert events[1].note is MatchNote.WALKOVER  # type: ignore[union-attr]
    assert quitter not in contest.alive
    updated = contest.rounds[0].match_of(opponent)
    assert updated.winner == opponent and updated.result.method is PlayMethod.WALKOVER  # type: ignore[union-attr]


# ---------------------------------------------------------------- a whole contest


def test_eight_pairs_two_of_them_singles_paired_by_lot_to_places_one_to_three() -> None:
    tiers = (PrizeTier("一等奖", 1), PrizeTier("二等奖", 1), PrizeTier("三等奖", 1))
    contest, _ = draw(signed_up(pairs=6, singles=4, prize_tiers=tiers), now=ON_TIME)
    assert sum(p.by_lot for p in contest.pairs) == 2 and contest.phase is ContestPhase.ROUND_IN_PLAY
    # Round 1 (self-scheduled): the lower group number wins 9:5, typed as 掼蛋N组.
    for match in contest.rounds[0].matches:
        winner = min(match.pairs)
        contest = report_win(contest, winner)
        contest = decide_win(contest, match.code, winner, _points(match.pairs, winner, 9, 5))
    assert contest.phase is ContestPhase.ROUND_COMPLETE
    fixed = Schedule(ScheduleKind.FIXED, starts_at=ON_TIME + timedelta(days=16), venue="6楼会议室")
    while contest.phase is ContestPhase.ROUND_COMPLETE:
        contest, _ = draw_next_round(contest, now=ON_TIME, schedule=fixed)
        for match in contest.current_round.matches:  # type: ignore[union-attr]
            winner = min(match.pairs)
            contest = decide_win(contest, match.code, winner, _points(match.pairs, winner, 6, 3))
    assert contest.phase is ContestPhase.DECIDED
    assert [len(r.matches) for r in contest.rounds] == [4, 2, 2]  # quarter, semi, final + 3rd place
    places = final_places(contest)
    survivors_r1 = sorted(min(m.pairs) for m in contest.rounds[0].matches)
    semi = contest.rounds[1].matches
    champion = min(survivors_r1)
    finalists = sorted(min(m.pairs) for m in semi)
    third_match = contest.rounds[2].matches[1]
    assert [(p.place, p.number, p.prize) for p in places[:3]] == [
        (1, champion, "一等奖"),
        (2, max(finalists), "二等奖"),
        (3, min(third_match.pairs), "三等奖"),
    ]
    assert places[3].place == 4 and places[3].number == max(third_match.pairs)
    assert {p.place for p in places[4:]} == {5}  # the four round-1 losers share 5th
    rows = standings(contest)
    assert sum(r.points_for for r in rows) == sum(r.points_against for r in rows)
    assert sum(r.won for r in rows) == sum(r.lost for r in rows) == 8
    champion_row = next(r for r in rows if r.number == champion)
    assert champion_row.status is PairStatus.CHAMPION and champion_row.marks == (Mark.WON,) * 3
    assert champion_row.points_for == 9 + 6 + 6 and champion_row.points_against == 5 + 3 + 3
    with pytest.raises(WrongPhase):
        draw_next_round(contest, now=ON_TIME)
    contest, _ = close_contest(contest, now=ON_TIME)
    assert contest.phase is ContestPhase.CLOSED and final_places(contest) == places
    entrants, matches, reports, table = export_tables(contest)
    assert len(entrants.rows) == 16 and len(matches.rows) == 8 and len(table.rows) == 8
    assert len(reports.rows) == 4 + 8  # four typed reports, eight decisions
    assert all(len(row) == len(t.header) for t in (entrants, matches, reports, table) for row in t.rows)


def test_odd_field_byes_carry_into_the_next_draw() -> None:
    contest = drawn(pairs=5)
    (bye,) = contest.rounds[0].byes
    for match in contest.rounds[0].matches:
        contest = report_win(contest, match.pairs[0])
    assert bye in contest.alive and len(contest.alive) == 3
    contest, _ = draw_next_round(contest, now=ON_TIME)
    assert len(contest.current_round.matches) == 1 and len(contest.current_round.byes) == 1  # type: ignore[union-attr]
    assert contest.current_round.byes != (bye,)  # the pair without a bye gets this one  # type: ignore[union-attr]


def _points(pairs: tuple[int, int], winner: int, high: int, low: int) -> tuple[int, int]:
    return (high, low) if pairs[0] == winner else (low, high)


def test_an_invitation_by_username_is_taken_by_whoever_presses_with_that_username() -> None:
    """Issue 18.11: in privacy mode the bot has not seen the partner; the press carries it."""
    from engine.contest import Player, confirm_partner, decline_partner, sign_up, username_placeholder
    from engine.contest.errors import SignupRefused

    contest = signed_up(1)
    stand_in = username_placeholder("@T1_partner")
    assert stand_in.user_id == username_placeholder("t1_PARTNER").user_id < 0
    assert stand_in.name == "@T1_partner"
    contest, _ = sign_up(contest, player(700), stand_in)
    with pytest.raises(SignupRefused):  # someone else, or without the username
        confirm_partner(contest, 701, player=player(701), username="other_one")
    with pytest.raises(SignupRefused):
        confirm_partner(contest, 701, player=player(701))
    accepted, _ = confirm_partner(contest, 702, player=player(702), username="t1_partner")
    entry = next(e for e in accepted.entries if e.player.user_id == 700)
    assert entry.confirmed and entry.partner == player(702)
    declined, _ = decline_partner(contest, 702, username="T1_PARTNER")
    assert next(e for e in declined.entries if e.player.user_id == 700).partner is None
    with pytest.raises(SignupRefused):  # already signed up: cannot take the place
        confirm_partner(contest, 100, player=player(100), username="t1_partner")
    assert Player(1, "x") != stand_in
