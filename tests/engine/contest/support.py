"""Builders shared by the contest tests: players, a seeded contest, reports by winner."""

from __future__ import annotations

from datetime import UTC, date, datetime

from engine.contest import (
    Contest,
    ContestSettings,
    Deadline,
    DrawSeed,
    MatchResult,
    Player,
    PlayMethod,
    confirm_partner,
    decide,
    open_contest,
    report_text,
    sign_up,
)

SEED = DrawSeed(bytes.fromhex("5eed" * 16))
OPENED = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
ORGANISER = 1
# 000-E: "第一轮比赛在20号之前" → the last day is the 19th (A19).
DEADLINE = Deadline.before_day(date(2026, 12, 20))
ON_TIME = datetime(2026, 12, 10, 12, 0, tzinfo=UTC)


def player(user_id: int) -> Player:
    return Player(user_id, f"P{user_id}")


def new_contest(seed: DrawSeed = SEED, **settings: object) -> Contest:
    return open_contest(
        name="中心掼蛋赛",
        organiser_id=ORGANISER,
        seed=seed,
        now=OPENED,
        settings=ContestSettings(deadline=DEADLINE, **settings),  # type: ignore[arg-type]
    )


def signed_up(pairs: int, singles: int = 0, seed: DrawSeed = SEED, **settings: object) -> Contest:
    """``pairs`` registered pairs (users 100+2k, 101+2k) and ``singles`` singles (users 500+k)."""
    contest = new_contest(seed, **settings)
    for k in range(pairs):
        contest, _ = sign_up(contest, player(100 + 2 * k), player(101 + 2 * k))
        contest, _ = confirm_partner(contest, 101 + 2 * k)
    for k in range(singles):
        contest, _ = sign_up(contest, player(500 + k))
    return contest


def report_win(contest: Contest, number: int, at: datetime = ON_TIME) -> Contest:
    """A player of pair ``number`` types 掼蛋{number}组."""
    reporter = contest.pair(number).user_ids[0]
    return report_text(contest, reporter=reporter, text=f"掼蛋{number}组", now=at).contest


def decide_win(contest: Contest, code: str, winner: int, points: tuple[int, int] | None = None) -> Contest:
    result = MatchResult(winner, PlayMethod.ORGANISER, points)
    return decide(
        contest, code=code, result=result, by=ORGANISER, reason="played at the venue", now=ON_TIME
    ).contest
