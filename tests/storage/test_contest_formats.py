"""Issue 11's contest facts on a real SQLite file: stages, figures, tags, withdrawal reasons, settings."""

from __future__ import annotations

import pytest

from engine.cards import Rank
from engine.contest import (
    Contest,
    ContestPhase,
    MatchPoints,
    MatchResult,
    PlayMethod,
    WithdrawReason,
    confirm_partner,
    decide,
    draw,
    draw_next_round,
    record_lateness,
    sign_up,
    withdraw,
)
from engine.figures import reported_figures
from storage import Database
from tests.engine.contest.support import ON_TIME, new_contest, player, signed_up

CHAT = -1002


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


async def step(db: Database, contest_id: int, result) -> Contest:
    contest, events = result
    await db.contests.record(contest_id=contest_id, events=events)
    stored = await db.contests.get(contest_id=contest_id)
    assert stored.contest == contest  # stages, figures, tags and reasons come back exactly
    return stored.contest


async def decide_all(db: Database, cid: int, contest: Contest) -> Contest:
    current = contest.current_round
    assert current is not None
    for match in current.matches:
        index = 0
        figures = reported_figures(
            contest.round_rules(match.round), winner=index, levels=(Rank.ACE, Rank.NINE)
        )
        result = MatchResult(match.pairs[index], PlayMethod.ORGANISER, figures=figures)
        contest = await step(
            db, cid, decide(contest, code=match.code, result=result, by=1, reason="sheet", now=ON_TIME)
        )
    return contest


async def test_jingfang_stages_and_figures_survive_a_reload(db: Database) -> None:
    stored = await db.contests.create(chat_id=CHAT, contest=signed_up(11, format_name="jingfang"))
    cid = stored.id
    contest = await step(db, cid, draw(stored.contest, now=ON_TIME))
    assert contest.rounds[0].stage == "qualifying"
    contest = await decide_all(db, cid, contest)
    contest = await step(db, cid, draw_next_round(contest, now=ON_TIME))
    assert contest.rounds[1].stage == "repechage"
    again = (await db.contests.get(contest_id=cid)).contest
    assert again.rounds[0].matches[0].result is not None
    assert again.rounds[0].matches[0].result.figures is not None


async def test_tags_settings_and_withdrawal_reasons_round_trip(db: Database) -> None:
    contest = new_contest(
        format_name="swiss", match_points=MatchPoints(3, 1, 3), rounds=4, late_disqualify_after=1
    )
    stored = await db.contests.create(chat_id=CHAT, contest=contest)
    cid = stored.id
    contest = stored.contest
    assert contest.settings.match_points == MatchPoints(3, 1, 3) and contest.planned_rounds == 4
    for k, unit in enumerate(["财务", "人事", "财务", "后勤"]):
        contest = await step(db, cid, sign_up(contest, player(10 + 2 * k), player(11 + 2 * k), tag=unit))
        contest = await step(db, cid, confirm_partner(contest, 11 + 2 * k))
    contest = await step(db, cid, draw(contest, now=ON_TIME))
    assert sorted(p.tag for p in contest.pairs) == ["人事", "后勤", "财务", "财务"]
    first, second = contest.rounds[0].matches
    late = record_lateness(contest, code=first.code, late_pair=first.pairs[0], minutes=12, by=1, now=ON_TIME)
    contest = await step(db, cid, late)
    assert contest.withdrawals[0].reason is WithdrawReason.LATE
    leaver = contest.pair(second.pairs[0]).user_ids[0]
    contest = await step(db, cid, withdraw(contest, leaver, now=ON_TIME, reason=WithdrawReason.LEAVE))
    assert [w.reason for w in contest.withdrawals] == [WithdrawReason.LATE, WithdrawReason.LEAVE]
    assert contest.phase is ContestPhase.ROUND_COMPLETE
