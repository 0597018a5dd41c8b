"""The referee's helper on a real database and outbox (the senders replaced by recorders): a
table clock started through the desk is stored and announced once, its end is announced once
with what the rules say and runs the time-up hooks; lateness and leave are announced in their
own words. The pairing message of a physical round gives tables and seats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from app.contest import texts
from app.contest.args import ArgProblem, LateWords, parse_late, parse_new, parse_table
from app.contest.store import ContestStore
from engine.contest import (
    Contest,
    ContestError,
    Refusal,
    Schedule,
    ScheduleKind,
    Step,
    WithdrawReason,
    draw,
    record_lateness,
    seating,
    start_clock,
    withdraw,
)
from engine.contest.seating import RANKS
from engine.rules import SeatAssignment
from handlers.contest.channels import GROUP
from handlers.contest.desk import ContestDesk
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import Outbox
from storage import Database, StoredContest
from tests.engine.contest.support import ON_TIME, signed_up

AT_VENUE = Schedule(ScheduleKind.FIXED, starts_at=datetime(2026, 12, 26, 6, 0, tzinfo=UTC), venue="6楼")
STARTED = datetime(2026, 12, 26, 6, 5, tzinfo=UTC)  # 14:05 in Shanghai
CHAT = -9


def at_tables(pairs: int, format_name: str, **settings: object) -> Contest:
    return draw(signed_up(pairs, format_name=format_name, **settings), now=ON_TIME, schedule=AT_VENUE).contest


class Desk:
    """A desk on a real database whose group messages are composed (zh) and recorded."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.outbox = Outbox(db.outbox)
        self.desk = ContestDesk(cast(Any, None), ContestStore(db), self.outbox, ChatBudget(), cast(Any, None))
        self.desk.clock = lambda: STARTED
        self.sent: list[tuple[str, str]] = []
        self.outbox.register(GROUP, self.record)

    async def record(self, chat_id: int, payload: dict[str, Any]) -> None:
        what = str(payload["what"])
        if what in ("official", "edit_round", "edit_card"):
            self.sent.append((what, str(payload.get("line", ""))))
            return
        stored = await self.db.contests.get(contest_id=int(payload["contest_id"]))
        text, _markup = self.desk.compose(stored, payload, "zh")
        self.sent.append((what, text))

    async def create(self, contest: Contest) -> StoredContest:
        return await self.db.contests.create(chat_id=CHAT, contest=contest)

    def texts(self, what: str) -> list[str]:
        return [text for kind, text in self.sent if kind == what]


@pytest.fixture
async def desk(store: str) -> Any:
    db = await Database.open(store)
    made = Desk(db)
    try:
        yield made
    finally:
        await made.outbox.close()
        await db.close()


async def test_round_start_is_stored_announced_once_and_refused_again(desk: Desk) -> None:
    stored = await desk.create(at_tables(8, "movement"))  # 001-B: 60 minutes, stopped at once
    after, _step = await desk.desk.run(stored.id, lambda c: start_clock(c, now=STARTED))
    reloaded = await desk.db.contests.get(contest_id=stored.id)
    assert reloaded.contest.rounds[0].clocks == after.contest.rounds[0].clocks
    assert {c.ends_at for c in reloaded.contest.rounds[0].clocks} == {STARTED + timedelta(minutes=60)}
    with pytest.raises(ContestError) as refused:
        await desk.desk.run(stored.id, lambda c: start_clock(c, now=STARTED))
    assert refused.value.code is Refusal.CLOCK_STARTED
    await desk.outbox.join()
    (announced,) = desk.texts("clock")
    assert "1、2、3、4号桌开始计时，60 分钟，到 15:05 为止" in announced
    assert "立即停止：未打完的这副牌不计" in announced


async def test_time_up_is_announced_once_with_the_rule_and_runs_the_hooks(desk: Desk) -> None:
    stored = await desk.create(at_tables(4, "five-round-knockout"))  # 004-A: 40 minutes
    first, second = stored.contest.rounds[0].matches
    await desk.desk.run(stored.id, lambda c: start_clock(c, now=STARTED, table=first.table))
    late = STARTED + timedelta(minutes=5)
    await desk.desk.run(stored.id, lambda c: start_clock(c, now=late, table=second.table))
    ended: list[tuple[int, tuple[int, ...]]] = []

    async def hook(stored: StoredContest, number: int, tables: tuple[int, ...]) -> None:
        ended.append((number, tables))

    desk.desk.time_up_hooks.append(hook)
    end = (late + timedelta(minutes=40)).isoformat()
    await desk.desk.clock_alarm(stored.id, 1, end, "clock_warning")
    for _ in range(2):  # a restart re-arms a past end: the group hears it once
        await desk.desk.clock_alarm(stored.id, 1, end, "time_up")
    await desk.outbox.join()
    assert desk.texts("clock_warning") == [f"⏳ 第 1 轮 {second.table}号桌：还剩 10 分钟（到 14:50）。"]
    (time_up,) = desk.texts("time_up")
    assert f"时间到：第 1 轮 {second.table}号桌" in time_up and "打完手中这副牌后停止" in time_up
    assert ended == [(1, (second.table,))] * 2


async def test_a_table_with_a_result_hears_no_time_up(desk: Desk) -> None:
    stored = await desk.create(at_tables(4, "score-knockout"))
    match = stored.contest.rounds[0].matches[0]
    await desk.desk.run(stored.id, lambda c: start_clock(c, now=STARTED))
    late = match.pairs[0]

    def eleven_late(contest: Contest) -> Step:
        return record_lateness(contest, code=match.code, late_pair=late, minutes=11, by=1, now=STARTED)

    await desk.desk.run(stored.id, eleven_late)
    other = stored.contest.rounds[0].matches[1]
    await desk.desk.clock_alarm(stored.id, 1, (STARTED + timedelta(minutes=60)).isoformat(), "time_up")
    await desk.outbox.join()
    (time_up,) = desk.texts("time_up")
    assert f"{other.table}号桌" in time_up and f"{match.table}号桌" not in time_up


async def test_lateness_walkover_and_disqualification_are_announced_in_their_words(desk: Desk) -> None:
    stored = await desk.create(at_tables(4, "slot-groups", late_disqualify_after=1))  # 002-E
    match = stored.contest.rounds[0].matches[0]
    late, opponent = match.pairs
    noted = texts.late_noted_text(stored.contest, match, late, 9, "zh")
    assert noted == f"已记录：{late}组在对局 {match.code} 迟到 9 分钟，未满 10 分钟，不判负。"
    await desk.desk.run(
        stored.id,
        lambda c: record_lateness(c, code=match.code, late_pair=late, minutes=12, by=1, now=STARTED),
    )
    await desk.outbox.join()
    (decision,) = desk.texts("decision")
    assert f"{opponent}组 晋级" in decision and "迟到 12 分钟" in decision
    assert desk.texts("withdrew") == [f"🚫 {late}组连续迟到 1 次，取消比赛资格。"]
    assert ("official", f"掼蛋{opponent}组") in desk.sent
    (details,) = desk.texts("details")
    assert "迟到 12 分钟" in details and "late:" not in details


async def test_leave_is_announced_as_leave_and_refused_after_a_result(desk: Desk) -> None:
    stored = await desk.create(at_tables(4, "score-knockout"))
    first, second = stored.contest.rounds[0].matches
    leaver = stored.contest.pair(first.pairs[0]).user_ids[0]
    await desk.desk.run(stored.id, lambda c: withdraw(c, leaver, now=STARTED, reason=WithdrawReason.LEAVE))
    await desk.outbox.join()
    assert desk.texts("withdrew") == [f"{first.pairs[0]}组请假，退出本次比赛；未赛的对局由对手不战而胜。"]
    assert "对手弃权" in desk.texts("decision")[0]
    await desk.desk.run(stored.id, lambda c: start_clock(c, now=STARTED))
    playing = stored.contest.pair(second.pairs[1]).user_ids[1]
    leave = WithdrawReason.LEAVE
    with pytest.raises(ContestError) as refused:
        await desk.desk.run(stored.id, lambda c: withdraw(c, playing, now=STARTED, reason=leave))
    assert refused.value.code is Refusal.LEAVE_TOO_LATE
    assert "请假须在比赛开始前提出" in texts.refusal_text(refused.value.code, "zh")


# ---------------------------------------------------------------- the pairing message


def table_block(text: str, table: int) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"<b>{table}号桌</b>"))
    return lines[start : start + 3]


def test_card_draw_seats_show_the_cards_and_the_smaller_sits_ns() -> None:
    contest = at_tables(4, "jingfang")  # 000-L: 小牌坐南北
    text = texts.round_text(contest, 1, "zh")
    assert "小牌坐南北" in text
    for match in contest.rounds[0].matches:
        seats = seating(contest.seed, match, SeatAssignment.CARD_DRAW)
        heading, ns, ew = table_block(text, match.table)
        assert match.code in heading
        assert ns.startswith(f"南北 <b>{seats.ns}组</b>") and ew.startswith(f"东西 <b>{seats.ew}组</b>")
        ns_card = RANKS[seats.cards[-2 + match.pairs.index(seats.ns)] - 1]
        ew_card = RANKS[seats.cards[-2 + match.pairs.index(seats.ew)] - 1]
        assert ns.endswith(ns_card) and ew.endswith(ew_card) and "🃏" in ns
        assert RANKS.index(ns_card) < RANKS.index(ew_card)
        assert max(len(line) for line in (heading, ns, ew)) < 60  # one phone line each (plain names)


def test_movement_seats_put_the_first_listed_pair_ns() -> None:
    contest = at_tables(8, "movement")  # 001-B: 排前坐南北
    text = texts.round_text(contest, 1, "en")
    assert "the pair listed first sits North–South (排前坐南北)" in text
    lines = text.splitlines()
    assert "<b>Group 1</b>: " in lines[1]  # 8 pairs: two groups of four, each above its tables
    for match in contest.rounds[0].matches:
        start = next(i for i, line in enumerate(lines) if line.startswith(f"<b>Table {match.table}</b>"))
        ns, ew = lines[start + 1 : start + 3]
        assert ns.startswith(f"NS <b>Pair {match.pairs[0]}</b>")
        assert ew.startswith(f"EW <b>Pair {match.pairs[1]}</b>")
        assert "🃏" not in ns + ew


def test_lot_seats_follow_the_seed_and_a_bot_round_keeps_its_line() -> None:
    contest = at_tables(4, "score-knockout")
    text = texts.round_text(contest, 1, "zh")
    assert "座位由公布的种子抓阄决定" in text
    for match in contest.rounds[0].matches:
        seats = seating(contest.seed, match, SeatAssignment.LOT)
        _heading, ns, _ew = table_block(text, match.table)
        assert ns.startswith(f"南北 <b>{seats.ns}组</b>")
    bot_round = draw(signed_up(4, format_name="score-knockout"), now=ON_TIME).contest
    plain_text = texts.round_text(bot_round, 1, "zh")
    assert "号桌" not in plain_text and "南北" not in plain_text
    assert f"1. <b>{bot_round.rounds[0].matches[0].pairs[0]}组</b>" in plain_text


# ---------------------------------------------------------------- the typed words


def test_late_and_round_start_words() -> None:
    assert parse_late(["K7QX", "掼蛋3组", "12分钟"], "掼蛋") == LateWords("K7QX", 3, 12)
    assert parse_late(["K7QX", "3组", "5"], "掼蛋") == LateWords("K7QX", 3, 5)
    assert parse_table([]) is None and parse_table(["2号桌"]) == 2
    wrong = [
        (["K7QX", "3"], "usage_late"),
        (["K7QX", "x", "5"], "bad_winner"),
        (["K", "3", "x"], "usage_late"),
    ]
    for late_args, code in wrong:
        with pytest.raises(ArgProblem) as refused:
            parse_late(late_args, "掼蛋")
        assert refused.value.code == code
    for table_args in (["0"], ["1", "2"], ["first"]):
        with pytest.raises(ArgProblem) as refused:
            parse_table(table_args)
        assert refused.value.code == "usage_start"


def test_late_out_sets_the_disqualification_after_repeats() -> None:
    assert parse_new(["杯", "late_out=3"]).settings.late_disqualify_after == 3  # 001-B
    assert parse_new(["杯"]).settings.late_disqualify_after is None
    for bad in ("0", "10", "three"):
        with pytest.raises(ArgProblem) as refused:
            parse_new(["杯", f"late_out={bad}"])
        assert refused.value.code == "bad_late_out"
        assert "late_out=" in texts.problem_text("bad_late_out", bad, "zh")
