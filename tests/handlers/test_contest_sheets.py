"""The score sheet's buttons on a real database and outbox (Telegram replaced by recorders): the
📝 press sends the sheet privately, each outcome button enters one deal (a double tap enters it
once), refusals are localized alerts, ✅ reports or decides with the sheet's figures, a restarted
database shows the same sheet, and the round's clock adds its time-up once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

import pytest
from telegram import InlineKeyboardMarkup
from telegram.error import Forbidden

from app.contest import sheet_texts as words
from app.contest.callback_data import ContestOp, ContestPress
from app.contest.sheet_submission import SHEET_REASON
from app.contest.store import ContestStore
from app.preferences import Languages
from engine.contest import (
    Contest,
    ContestMatch,
    FactKind,
    MatchStatus,
    Schedule,
    ScheduleKind,
    draw,
    start_clock,
)
from engine.contest.seating import seating
from engine.contest.sheet import SheetRefusal
from handlers.contest import sheets
from handlers.contest.channels import GROUP
from handlers.contest.compose import play_keyboard
from handlers.contest.desk import ContestDesk
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import Outbox
from storage import Database, StoredContest
from tests.engine.contest.support import ON_TIME, ORGANISER, signed_up

AT_VENUE = Schedule(ScheduleKind.FIXED, starts_at=datetime(2026, 12, 26, 6, 0, tzinfo=UTC), venue="6楼")
CHAT = -9
STRANGER = 999


@dataclass
class Sent:
    chat_id: int
    text: str
    markup: InlineKeyboardMarkup | None
    message_id: int


@dataclass
class FakeBot:
    """Private messages and their edits; users in ``blocked`` never pressed Start."""

    sent: list[Sent] = field(default_factory=list)
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    blocked: set[int] = field(default_factory=set)

    async def send_message(self, chat_id: int, text: str, reply_markup: Any = None, **_: object) -> Any:
        if chat_id in self.blocked:
            raise Forbidden("Forbidden: bot can't initiate conversation with a user")
        self.sent.append(Sent(chat_id, text, reply_markup, len(self.sent) + 1))
        return SimpleNamespace(message_id=len(self.sent))

    async def edit_message_text(self, text: str, *, chat_id: int, message_id: int, **_: object) -> None:
        self.edits.append((chat_id, message_id, text))

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        return SimpleNamespace(status="member")


@dataclass
class FakeQuery:
    data: str
    from_user: SimpleNamespace
    answers: list[tuple[str | None, bool]] = field(default_factory=list)
    shown: list[tuple[str, InlineKeyboardMarkup | None]] = field(default_factory=list)

    async def answer(self, text: str | None = None, show_alert: bool = False, **_: object) -> bool:
        self.answers.append((text, show_alert))
        return True

    async def edit_message_text(self, text: str, reply_markup: Any = None, **_: object) -> None:
        self.shown.append((text, reply_markup))


class Table:
    """One contest on a real database, its desk, and the group's messages (what was queued)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.bot = FakeBot()
        self.outbox = Outbox(db.outbox)
        self.desk = ContestDesk(
            cast(Any, self.bot), ContestStore(db), self.outbox, ChatBudget(), cast(Any, None)
        )
        self.desk.clock = lambda: datetime(2026, 12, 26, 7, 0, tzinfo=UTC)
        self.group: list[tuple[str, str]] = []
        self.outbox.register(GROUP, self.record)
        self.context = SimpleNamespace(
            services=SimpleNamespace(languages=Languages(db), contests=self.desk), bot=self.bot
        )
        self.markup: InlineKeyboardMarkup | None = None

    async def record(self, chat_id: int, payload: dict[str, Any]) -> None:
        self.group.append((str(payload["what"]), str(payload.get("line", ""))))

    async def create(self, contest: Contest) -> StoredContest:
        self.stored = await self.db.contests.create(chat_id=CHAT, contest=contest)
        return self.stored

    @property
    def match(self) -> ContestMatch:
        current = self.stored.contest.current_round
        assert current is not None
        return current.matches[0]

    def player(self, index: int = 0) -> int:
        return self.stored.contest.pair(self.match.pairs[index]).user_ids[0]

    async def press(self, data: str, user_id: int) -> FakeQuery:
        query = FakeQuery(data, SimpleNamespace(id=user_id))
        await sheets.on_sheet_press(SimpleNamespace(callback_query=query), cast(Any, self.context))  # type: ignore[arg-type]
        if query.shown:
            self.markup = query.shown[-1][1]
        return query

    async def open(self, user_id: int) -> FakeQuery:
        query = await self.press(
            ContestPress(ContestOp.SHEET_OPEN, self.stored.id, self.match.code).encode(), user_id
        )
        if self.bot.sent:
            self.markup = self.bot.sent[-1].markup
        return query

    def button(self, label: str) -> str:
        assert self.markup is not None, "no sheet shown"
        for row in self.markup.inline_keyboard:
            for button in row:
                if button.text == label:
                    return str(button.callback_data)
        raise AssertionError(
            f"no button {label!r} in {[b.text for r in self.markup.inline_keyboard for b in r]}"
        )

    async def tap(self, label: str, user_id: int) -> FakeQuery:
        return await self.press(self.button(label), user_id)

    def labels(self) -> list[str]:
        assert self.markup is not None
        return [b.text for row in self.markup.inline_keyboard for b in row]


@pytest.fixture
async def table(store: str) -> Any:
    db = await Database.open(store)
    made = Table(db)
    try:
        yield made
    finally:
        await made.outbox.close()
        await db.close()


def at_tables(**settings: object) -> Contest:
    """Two pairs at a physical table: 000-E's six scored deals unless a preset is given."""
    return draw(signed_up(2, **settings), now=ON_TIME, schedule=AT_VENUE).contest


SIX = [
    "南北 双下",
    "东西 1·3",
    "南北 1·4",
    "南北 双下",
    "东西 双下",
    "南北 1·3",
]  # NS 3+1+3+2 = 9, EW 2+3 = 5


async def test_the_sheet_opens_privately_with_six_outcomes_and_the_first_leader(table: Table) -> None:
    await table.create(at_tables())
    recorder = table.player()
    query = await table.open(recorder)
    assert query.answers == [(words.sent_text("zh"), False)]
    assert [s.chat_id for s in table.bot.sent] == [recorder]
    assert table.labels() == [
        *SIX[:1],
        "南北 1·3",
        "南北 1·4",
        "东西 双下",
        "东西 1·3",
        "东西 1·4",
        "🎴 首出",
    ]
    assert "1号桌" in table.bot.sent[0].text and table.match.code in table.bot.sent[0].text
    assert await table.db.contest_sheets.messages_of(contest_id=table.stored.id, code=table.match.code) == [
        (recorder, 1)
    ]


async def test_a_user_who_never_started_the_bot_is_told_to_start_it(table: Table) -> None:
    await table.create(at_tables())
    table.bot.blocked.add(table.player())
    query = await table.open(table.player())
    assert query.answers == [(words.start_private_text("zh"), True)]


async def test_only_players_and_the_organiser_keep_the_sheet(table: Table) -> None:
    await table.create(at_tables())
    query = await table.open(STRANGER)
    assert query.answers == [(words.not_recorder_text("zh"), True)] and not table.bot.sent
    await table.open(ORGANISER)
    assert [s.chat_id for s in table.bot.sent] == [ORGANISER]


async def test_a_round_played_through_the_bot_has_no_sheet(table: Table) -> None:
    contest = draw(signed_up(2), now=ON_TIME, schedule=Schedule(ScheduleKind.BOT)).contest
    await table.create(contest)
    query = await table.open(table.player())
    assert query.answers == [(words.not_physical_text("zh"), True)]
    keyboard = play_keyboard(table.stored, 1, "zh")
    assert keyboard is not None and all("记分" not in b.text for r in keyboard.inline_keyboard for b in r)


async def test_the_pairing_message_of_a_physical_round_has_the_sheet_button(table: Table) -> None:
    await table.create(at_tables())
    keyboard = play_keyboard(table.stored, 1, "zh")
    assert keyboard is not None
    assert [b.text for r in keyboard.inline_keyboard for b in r][-1] == "📝 1桌记分"
    assert [b.text for r in play_keyboard(table.stored, 1, "en").inline_keyboard for b in r][-1] == (
        "📝 Table 1 sheet"
    )


async def test_a_double_tap_enters_the_deal_once(table: Table) -> None:
    await table.create(at_tables())
    recorder = table.player()
    await table.open(recorder)
    data = table.button("南北 双下")
    first = await table.press(data, recorder)
    second = await table.press(data, recorder)  # the same button, the same version: stale
    assert first.answers == [("已记录：南北 双下", False)]
    assert second.answers == [(words.stale_text("zh"), False)]  # a toast, not an alert
    presses = await table.db.contest_sheets.presses(contest_id=table.stored.id, code=table.match.code)
    assert [(p.entry, p.by) for p in presses] == [("NS 1·2", recorder)]
    assert "1. 南北 双下 → 3 : 0" in second.shown[-1][0]


async def test_bad_presses_get_localized_alerts(table: Table) -> None:
    await table.create(at_tables())
    recorder = table.player()
    await table.open(recorder)
    code, cid = table.match.code, table.stored.id
    time_up = ContestPress(ContestOp.SHEET, cid, f"{code}.0.T").encode()  # no ⏱ button: untimed
    query = await table.press(time_up, recorder)
    assert query.answers == [(words.refusal_text(SheetRefusal.NOT_TIMED, "zh"), True)]
    undo = ContestPress(ContestOp.SHEET, cid, f"{code}.0.U").encode()
    assert (await table.press(undo, recorder)).answers == [("没有可撤销的记录。", True)]
    nonsense = ContestPress(ContestOp.SHEET, cid, f"{code}.0.X9").encode()
    assert (await table.press(nonsense, recorder)).answers[0][1] is True
    early = ContestPress(ContestOp.SHEET, cid, f"{code}.0.S").encode()
    assert (await table.press(early, recorder)).answers == [(words.not_decided_text("zh"), True)]
    assert await table.db.contest_sheets.presses(contest_id=cid, code=code) == []


async def test_a_player_fills_the_sheet_and_submits_a_report_with_its_figures(table: Table) -> None:
    await table.create(at_tables())
    recorder = table.player()
    await table.open(recorder)
    for label in SIX:
        await table.tap(label, recorder)
    assert table.labels() == ["↩ 撤销", "✅ 提交"]
    query = await table.tap("✅ 提交", recorder)
    assert query.answers == [("已提交。", False)]
    await table.outbox.join()
    stored = await table.db.contests.get(contest_id=table.stored.id)
    match = stored.contest.match_by_code(table.match.code)
    fact = match.facts[-1]
    assert fact.kind is FactKind.REPORT and fact.by == recorder and match.status is MatchStatus.REPORTED
    ns = seating(stored.contest.seed, match, stored.contest.round_rules(1).seat_assignment).ns
    result = fact.result
    assert result is not None and result.winner == ns and result.figures is not None
    ns_index = match.pairs.index(ns)
    assert result.figures.points[ns_index] == 9 and result.figures.points[1 - ns_index] == 5
    assert result.points == result.figures.points and result.figures.winner == ns_index
    assert ("official", f"掼蛋{ns}组") in table.group
    assert "✅ 已提交" in query.shown[-1][0] and query.shown[-1][1] is None
    again = await table.open(recorder)  # the match has a result: the sheet is closed
    assert again.answers == [(words.refusal_for_result("zh"), True)]


async def test_the_organisers_submission_is_a_decision_with_its_reason(table: Table) -> None:
    await table.create(at_tables())
    await table.open(ORGANISER)
    for label in SIX:
        await table.tap(label, ORGANISER)
    await table.tap("✅ 提交", ORGANISER)
    stored = await table.db.contests.get(contest_id=table.stored.id)
    fact = stored.contest.match_by_code(table.match.code).facts[-1]
    assert fact.kind is FactKind.DECISION and fact.reason == SHEET_REASON and fact.by == ORGANISER


async def test_undo_then_a_restart_shows_the_same_sheet(store: str) -> None:
    db = await Database.open(store)
    first = Table(db)
    await first.create(at_tables())
    recorder = first.player()
    await first.open(recorder)
    for label in ["南北 双下", "东西 1·4", "↩ 撤销", "东西 1·3"]:
        await first.tap(label, recorder)
    shown = first.markup
    before = await first.desk.sheets.load(first.stored, first.match)
    await first.outbox.close()
    await db.close()

    db = await Database.open(store)
    second = Table(db)
    second.stored = await db.contests.get(contest_id=first.stored.id)
    second.markup = shown  # the message in the recorder's chat, pressed after the restart
    after = await second.desk.sheets.load(second.stored, second.match)
    assert after == before and after.standing.points == (3, 2) and after.version == 4
    query = await second.tap("南北 1·4", recorder)  # its buttons still work: same version
    assert query.answers == [("已记录：南北 1·4", False)]
    await second.outbox.close()
    await db.close()


async def test_the_rounds_clock_adds_the_time_up_once(table: Table) -> None:
    await table.create(at_tables(preset="knockout-135"))
    recorder = table.player()
    await table.open(recorder)
    await table.tap("南北 1·3", recorder)
    assert "⏱ 时间到" in table.labels()
    hook = sheets.time_up_hook(table.desk)
    await hook(table.stored, 1, (1,))
    await hook(table.stored, 1, (1,))  # again after a restart: nothing more
    presses = await table.db.contest_sheets.presses(contest_id=table.stored.id, code=table.match.code)
    assert [(p.entry, p.by) for p in presses] == [("NS 1·3", recorder), ("time", None)]
    assert len(table.bot.edits) == 1 and "时间到" in table.bot.edits[0][2]
    sheet = await table.desk.sheets.load(table.stored, table.match)
    assert sheet.state.time_expired and not sheet.is_decided  # 002-D: the deal in hand is finished
    await hook(table.stored, 1, (2,))  # another table's clock: not this sheet
    assert len(await table.db.contest_sheets.presses(contest_id=table.stored.id, code=table.match.code)) == 2


async def test_the_first_leader_button_draws_from_the_seed_and_says_it(table: Table) -> None:
    await table.create(at_tables(preset="anhui-jianzhu"))
    recorder = table.player()
    await table.open(recorder)
    query = await table.tap("🎴 首出", recorder)
    note = query.shown[-1][0]
    assert "第1副" in note and "翻开正面朝上" in note
    again = await table.tap("🎴 首出", recorder)  # reproducible: the same card, not a redraw
    assert again.shown[-1][0] == note
    assert await table.db.contest_sheets.presses(contest_id=table.stored.id, code=table.match.code) == []


async def test_the_table_clocks_end_enters_the_time_up_on_the_open_sheet(table: Table) -> None:
    """Through the desk: /round start's clock runs out and its hooks add the sheet's time-up."""
    await table.create(at_tables(preset="knockout-135"))  # 002-D: 60 minutes, finish the deal
    recorder = table.player()
    await table.open(recorder)
    started = datetime(2026, 12, 26, 6, 5, tzinfo=UTC)
    await table.desk.run(table.stored.id, lambda c: start_clock(c, now=started))
    table.desk.time_up_hooks.append(sheets.time_up_hook(table.desk))
    end = (started + timedelta(minutes=60)).isoformat()
    for _ in range(2):  # a restart re-arms a past end: the sheet gets it once
        await table.desk.clock_alarm(table.stored.id, 1, end, "time_up")
    presses = await table.db.contest_sheets.presses(contest_id=table.stored.id, code=table.match.code)
    assert [(p.entry, p.by) for p in presses] == [("time", None)]
    assert "👉 下一副：第1副 · 打2 · 时间到：打完这一副" in table.bot.edits[-1][2]


async def test_a_movement_sheet_stopped_with_nobody_past_a_is_submitted_without_winner(
    table: Table,
) -> None:
    """001-B: the clock stops the round at once; nobody passed A, so nobody won and each pair
    scores its levels (A17). The group gets the details, and no 掼蛋N组 line (it names a winner)."""
    contest = draw(
        signed_up(4, format_name="movement", preset="three-round-movement"), now=ON_TIME, schedule=AT_VENUE
    ).contest
    await table.create(contest)
    recorder = table.player()
    await table.open(recorder)
    await table.tap("南北 双下", recorder)  # NS 2 → 5
    await table.tap("东西 1·4", recorder)  # EW 2 → 3
    await table.tap("⏱ 时间到", recorder)
    assert "✅ 提交" in table.labels()
    query = await table.tap("✅ 提交", recorder)
    assert query.answers == [("已提交。", False)]
    await table.outbox.join()
    stored = await table.db.contests.get(contest_id=table.stored.id)
    match = stored.contest.match_by_code(table.match.code)
    result = match.result
    assert result is not None and result.no_winner and match.status is MatchStatus.REPORTED
    ns = seating(stored.contest.seed, match, stored.contest.round_rules(1).seat_assignment).ns
    assert result.figures is not None
    ns_index = match.pairs.index(ns)
    assert (result.figures.round_score[ns_index], result.figures.round_score[1 - ns_index]) == (3, 1)
    posted = [what for what, _line in table.group]
    assert "details" in posted and "official" not in posted


async def test_a_knockout_sheet_nobody_won_is_left_to_the_organiser(table: Table) -> None:
    await table.create(at_tables(format_name="redraw-knockout", preset="three-round-movement"))
    recorder = table.player()
    await table.open(recorder)
    await table.tap("南北 双下", recorder)
    query = await table.tap("⏱ 时间到", recorder)
    assert "✅ 提交" not in table.labels()
    assert "无胜方" in query.shown[-1][0] and "/result" in query.shown[-1][0]
