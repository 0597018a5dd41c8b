"""The contest desk: runs contest commands, announces their events, keeps the deadline jobs.

Every command follows one shape (:meth:`ContestDesk.run`): under the contest's lock, load
it, call the pure command, record its events in one transaction, then hand the
announcements to the outbox (stored before they are sent, retried, resent after a
restart, each under a key so that it is posted once). Nothing awaits the network while
the lock is held. A round's pairings are one message and a report is two (the official
``掼蛋{N}组`` line and its details), so a whole contest stays far below the group's 20
messages a minute; the outbox's sender waits for the group's budget all the same.

Announcements are rebuilt when they are sent (from the contest as stored then, in the
group's language then), except the WeChat mirror's text, which is written in Chinese
when the event happens. The mirror has its own outbox lane (a pseudo chat id per
contest), so a webhook that fails never holds up the group's messages.

Deadlines and reminders are JobQueue jobs named after the contest, re-armed from
storage on start (:meth:`ContestDesk.resume`), and after every command that may move them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
from telegram import InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ContextTypes, ExtBot, JobQueue

from app.contest import herald, texts
from app.contest.announcements import (
    FIRST,
    Announcement,
    Card,
    ClockNote,
    Official,
    Pairings,
    Refresh,
    Refused,
    Reminder,
    UnknownAnnouncement,
    What,
    from_payload,
    to_payload,
)
from app.contest.views import plain
from app.table.tables import LiveTable, decode_action
from engine.contest import (
    Contest,
    ContestClosed,
    ContestError,
    ContestMatch,
    ContestPhase,
    Drawn,
    Event,
    MatchUpdated,
    PartnerConfirmed,
    PartnerDeclined,
    ScheduleKind,
    SignedUp,
    Step,
    Withdrew,
    close_round,
    record_bot_result,
    result_from_match,
    running_clocks,
    unreported,
)
from engine.match import Match
from engine.rules import Rules
from handlers.contest.compose import card_keyboard, compose, play_keyboard
from handlers.platform.chats import ChatBudget
from handlers.platform.edits import not_modified
from handlers.platform.locales import chat_locale, user_locale
from handlers.platform.outbox import Outbox, Payload, TryLater, Undeliverable
from handlers.platform.scheduler import Priority, at_priority
from handlers.platform.sender import LatestWins
from storage import Database, NotFound, StorageUnavailable, StoredContest, TableStatus

log = logging.getLogger(__name__)

GROUP = "contest"  # outbox kinds
PRIVATE = "contest_dm"
WECHAT = "contest_wechat"
MIRROR_LANE = -(2**52)
"""The WeChat mirror's outbox lane of contest *k* is chat id ``MIRROR_LANE - k``: below every
Telegram chat id (supergroups are about -10¹²), so it is never a real chat, and a lane of
its own, so retries of a failing webhook never hold up a group's messages."""
WEBHOOK_TIMEOUT = 10.0  # seconds for one POST to the WeChat webhook
WEBHOOK_PREFIX = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key="
JOB_RETRY = 30.0
"""Seconds before a deadline or reminder job whose storage was unavailable runs again (a locked
database clears in seconds; the deadline's both-out and the reminders must not be lost)."""
DUE_NOW = 0.5
"""Seconds until a job whose moment has already passed runs (a deadline passed while the bot was
down is applied right after start)."""

CLOCK_WARNING = timedelta(minutes=10)
"""A table clock's reminder: 10 minutes before the end, time to finish the deal (§3.3)."""

Clock = Callable[[], datetime]
Command = Callable[[Contest], Step]
TimeUpHook = Callable[[StoredContest, int, tuple[int, ...]], Awaitable[None]]
"""Called when table clocks run out: (the contest, the round, its tables whose time is up)."""


class WebhookFailed(TryLater):
    """The mirror's POST failed: the outbox logs one line, tries again a few times, then gives up."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


LINK_TRIES = 8
LINK_RETRY = 0.5  # seconds before the first retry of a message's link; doubled each time


@dataclass
class ContestDesk:
    bot: ExtBot[None]
    db: Database
    outbox: Outbox
    budget: ChatBudget
    renderer: Executor
    clock: Clock = _utc_now  # tests move time by replacing it
    match_rules: Callable[[Contest, int], Rules] = Contest.round_rules
    """A bot table's rules for a match of round N: the round's stage rules (精方's best-of-three
    semi-final and final); tests shorten the match."""
    webhook_allowed: Callable[[str], bool] = lambda url: url.startswith(WEBHOOK_PREFIX)
    job_queue: JobQueue[Any] | None = None
    table_matches: dict[int, tuple[Contest, ContestMatch]] = field(default_factory=dict)
    """Open contest tables → their contest and match, for the lobby's heading."""
    pending_mirrors: dict[int, str] = field(default_factory=dict)
    """Organiser → webhook URL waiting for their choice of contest (buttons; memory only:
    after a restart they send it again, the secret never goes to storage half-set)."""
    time_up_hooks: list[TimeUpHook] = field(default_factory=list)
    """Run when table clocks end, e.g. the score sheets' time-up entry (handlers/contest/sheets.py)."""
    _clocks_done: set[str] = field(default_factory=set)
    """Clock ends handled by this process (after a restart a past end is handled once more, its
    announcement deduplicated by the outbox's key)."""
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    refreshes: LatestWins = field(default_factory=LatestWins)
    """Cards and pairing messages being brought up to date: one pending look per view."""
    shown_looks: dict[tuple[int, int], int] = field(default_factory=dict)
    """(chat, message) → the look last given to it, so an unchanged edit is not sent."""
    _http: aiohttp.ClientSession | None = None

    def __post_init__(self) -> None:
        self.outbox.register(GROUP, self._send_group)
        self.outbox.register(PRIVATE, self._send_private)
        self.outbox.register(WECHAT, self._send_wechat)

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None

    def lock(self, contest_id: int) -> asyncio.Lock:
        return self._locks.setdefault(contest_id, asyncio.Lock())

    # ------------------------------------------------------------ commands

    async def run(self, contest_id: int, command: Command) -> tuple[StoredContest, Step]:
        """Load, command, record, announce: the one shape of every contest change.

        A refusal (:class:`ContestError`) propagates before anything is stored.
        """
        async with self.lock(contest_id):
            stored = await self.db.contests.get(contest_id=contest_id)
            step = command(stored.contest)
            if step.events:
                await self.db.contests.record(contest_id=contest_id, events=step.events)
            after = StoredContest(stored.id, stored.chat_id, step.contest)
            await self.announce(after, step.events)
        self.arm(after)
        return after, step

    # ------------------------------------------------------------ announcements

    async def announce(self, stored: StoredContest, events: Sequence[Event]) -> None:
        """Queue the group messages (and their mirror) that these events call for."""
        found = herald.posts(stored.contest, events)
        self._refresh(stored, events)
        mirror = await self.db.contest_links.mirror(contest_id=stored.id)
        for post in found:
            self.post(stored, post.announcement, post.key)
            if mirror is not None and post.mirror is not None:
                self.mirror(stored.id, post.mirror, f"wechat:{stored.id}:{post.key}")

    def post(self, stored: StoredContest, announcement: Announcement, key: str) -> None:
        """Queue one group announcement under the contest's key ``key`` (posted once)."""
        payload = {"contest_id": stored.id, **to_payload(announcement)}
        first = announcement.what in FIRST
        self.outbox.post(stored.chat_id, GROUP, payload, key=f"contest:{stored.id}:{key}", first=first)

    def mirror(self, contest_id: int, text: str, key: str) -> None:
        """Queue one message for the contest's WeChat mirror, in its own lane, under ``key``."""
        payload = {"contest_id": contest_id, "text": text}
        self.outbox.post(MIRROR_LANE - contest_id, WECHAT, payload, key=key)

    def _refresh(self, stored: StoredContest, events: Sequence[Event]) -> None:
        """Edit what these events made stale: the card after a sign-up change or the draw, and a
        round's pairing message once a match has a result (its ▶ button goes away)."""
        card_events = (SignedUp, PartnerConfirmed, PartnerDeclined, Withdrew, Drawn, ContestClosed)
        if any(isinstance(event, card_events) for event in events):
            self.refresh(stored.id, None)
        for number in sorted({e.match.round for e in events if isinstance(e, MatchUpdated)}):
            self.refresh(stored.id, number)

    def refresh(self, contest_id: int, round_number: int | None) -> asyncio.Future[None]:
        """Bring the contest's card (``None``) or a round's pairing messages up to date, in the
        background and at refresh priority.

        A refresh is derived from the stored contest when its turn comes, so it is never stored:
        fifty sign-ups in a second ask fifty times and the group sees one or two edits, the
        newest look (:class:`LatestWins`), after every announcement waiting for the group."""

        async def edit() -> None:
            with at_priority(Priority.REFRESH):
                try:
                    stored = await self.db.contests.get(contest_id=contest_id)
                except NotFound:
                    return
                locale = await chat_locale(self.db, stored.chat_id)
                await self._edit_messages(stored, round_number, locale)

        return self.refreshes.submit(("contest", contest_id, round_number), edit)

    # ------------------------------------------------------------ senders (outbox)

    async def _send_group(self, chat_id: int, payload: Payload) -> None:
        try:
            announcement = from_payload(payload)
        except UnknownAnnouncement as error:
            raise Undeliverable(str(error)) from error
        match announcement:
            case Official(line):  # exactly the line, nothing else (RULES.md §3.15)
                await self.budget.acquire(chat_id)
                await self.bot.send_message(chat_id, line)
                return
            case Refused():
                locale = await chat_locale(self.db, chat_id)
                await self.budget.acquire(chat_id)
                await self.bot.send_message(chat_id, announcement.text(locale))
                return
        try:
            stored = await self.db.contests.get(contest_id=int(payload["contest_id"]))
        except NotFound as error:
            raise Undeliverable(f"contest {payload['contest_id']} is gone") from error
        locale = await chat_locale(self.db, chat_id)
        if isinstance(announcement, Refresh):  # rows an earlier version stored: now a refresh
            self.refresh(stored.id, announcement.round)
            return
        text, markup = compose(stored, announcement, locale)
        await self.budget.acquire(chat_id)
        sent = await self.bot.send_message(
            chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True
        )
        if isinstance(announcement, Pairings | Card):
            round_ = announcement.round if isinstance(announcement, Pairings) else None
            await self._link(chat_id, sent.message_id, stored.id, round_)

    async def _link(self, chat_id: int, message_id: int, contest_id: int, round_: int | None) -> None:
        """Store which message shows the card or a round, so refreshes edit it. The message is
        already in the group: a storage fault here must not make the outbox send it again (a
        second card appeared when the database was locked right after the first was sent), so
        the write alone is tried again, for about a minute, then given up with a log line."""
        delay = LINK_RETRY
        for attempt in range(LINK_TRIES):
            try:
                await self.db.contest_links.add_message(
                    chat_id=chat_id, message_id=message_id, contest_id=contest_id, round_=round_
                )
                return
            except StorageUnavailable as error:
                if attempt == LINK_TRIES - 1:
                    log.error("contest %s: message %s not linked: %s", contest_id, message_id, error)
                    return
                log.warning("contest %s: message %s not linked (%s): again", contest_id, message_id, error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 16.0)

    async def _edit_messages(self, stored: StoredContest, number: int | None, locale: str) -> None:
        """Bring the contest's cards (``None``) or one round's pairing messages up to date."""
        if number is None:
            shown = await self.db.contest_links.messages_of(contest_id=stored.id, round_=None)
            text = texts.card_text(stored.contest, locale)
            markup: InlineKeyboardMarkup | None = card_keyboard(stored, locale)
        else:
            shown = await self.db.contest_links.messages_of(contest_id=stored.id, round_=number)
            text = texts.round_text(stored.contest, number, locale)
            if number == 1:
                text = texts.draw_message(stored.contest, locale)
            markup = play_keyboard(stored, number, locale)
        for chat_id, message_id in shown:
            try:
                await self.edit_shown(chat_id, message_id, text, markup)
            except BadRequest as error:
                log.info("contest %s: message %s not edited: %s", stored.id, message_id, error)

    async def edit_shown(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None
    ) -> None:
        """Edit a message the contest shows (a card, pairings, a score sheet) to ``text``.

        A look this process already gave the message is not sent again (an unchanged edit still
        spends the group's budget); after a restart Telegram's "not modified" says the same."""
        look = hash((text, markup.to_json() if markup is not None else ""))
        if self.shown_looks.get((chat_id, message_id)) == look:
            return
        try:
            await self.bot.edit_message_text(
                text,
                chat_id=chat_id,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                disable_web_page_preview=True,
            )
        except BadRequest as error:
            if not not_modified(error):
                raise
        self.shown_looks[(chat_id, message_id)] = look

    def compose(
        self, stored: StoredContest, payload: Payload, locale: str
    ) -> tuple[str, InlineKeyboardMarkup | None]:
        """The text and buttons of one stored group announcement (:func:`compose`)."""
        return compose(stored, from_payload(payload), locale)

    def play_keyboard(self, stored: StoredContest, number: int, locale: str) -> InlineKeyboardMarkup | None:
        return play_keyboard(stored, number, locale)

    async def _send_private(self, chat_id: int, payload: Payload) -> None:
        try:
            stored = await self.db.contests.get(contest_id=int(payload["contest_id"]))
        except NotFound as error:
            raise Undeliverable("contest gone") from error
        locale = await user_locale(self.db, chat_id)
        match = stored.contest.match_by_code(str(payload["code"]))
        left = timedelta(seconds=int(payload["left"]))
        text = texts.reminder_dm_text(stored.contest, match, left, locale)
        await self.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML)

    async def _send_wechat(self, chat_id: int, payload: Payload) -> None:
        """POST one text message to the contest's Enterprise WeChat group robot."""
        url = await self.db.contest_links.mirror(contest_id=int(payload["contest_id"]))
        if url is None:
            return  # the mirror was turned off meanwhile
        body = {"msgtype": "text", "text": {"content": str(payload["text"])}}
        if self._http is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WEBHOOK_TIMEOUT))
        try:
            async with self._http.post(url, json=body) as response:
                answer = await response.json(content_type=None) if response.status == 200 else None
                status = response.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            raise WebhookFailed(f"contest {payload['contest_id']}: {type(error).__name__}") from None
        if status != 200 or not isinstance(answer, dict) or answer.get("errcode", 0) != 0:
            errcode = answer.get("errcode") if isinstance(answer, dict) else None
            raise WebhookFailed(f"contest {payload['contest_id']}: HTTP {status}, errcode {errcode}")

    # ------------------------------------------------------------ bot tables

    async def on_table_finished(self, table: LiveTable) -> None:
        """A table hook: a contest table's match ended; its result reports itself."""
        link = await self.db.contest_links.table(table_id=table.id)
        if link is None or table.match is None:
            return
        await self.record_table(
            link.contest_id, link.code, link.team0_pair, table.match, table.record.chat_id
        )

    async def record_table(
        self, contest_id: int, code: str, team0_pair: int, match: Match, chat_id: int
    ) -> None:
        def command(contest: Contest) -> Step:
            pairs = contest.match_by_code(code).pairs
            result = result_from_match(match, pairs=pairs, team0_pair=team0_pair)
            return record_bot_result(contest, code=code, result=result, now=self.clock())

        try:
            await self.run(contest_id, command)
        except ContestError as error:
            log.info("contest %s: the result of table for %s was refused: %s", contest_id, code, error)
            zh, en = (plain(texts.refusal_text(error.code, loc)) for loc in ("zh", "en"))
            payload = to_payload(Refused(zh, en))
            self.outbox.post(chat_id, GROUP, payload, key=f"contest:{contest_id}:refused:{code}:{chat_id}")

    async def reconcile_tables(self, stored: StoredContest) -> None:
        """On start: a contest table that finished while its result was not recorded (a crash
        between the two writes) reports now."""
        for match in unreported(stored.contest):
            for link, status, chat_id in await self.db.contest_links.tables_of_code(code=match.code):
                if TableStatus(status).is_active:
                    self.table_matches[link.table_id] = (stored.contest, match)
                if status != TableStatus.FINISHED.value:
                    continue
                record = await self.db.tables.get(table_id=link.table_id)
                rows = await self.db.actions.of_table(table_id=link.table_id)
                replayed = Match.replay(
                    Rules.from_json(record.rules_json),
                    record.seed,
                    [(row.seat, decode_action(row.action_json)) for row in rows],
                )
                if replayed.is_over:
                    await self.record_table(stored.id, match.code, link.team0_pair, replayed, chat_id)
                    break

    def lobby_heading(self, table: LiveTable, locale: str) -> str | None:
        """A table hook: a contest table's lobby says which match it is (pairs, numbers, code)."""
        found = self.table_matches.get(table.id)
        return texts.table_heading(*found, locale) if found is not None else None

    # ------------------------------------------------------------ deadlines and reminders

    def arm(self, stored: StoredContest) -> None:
        """(Re-)schedule the current round's reminders and deadline (none once it is settled),
        and its table clocks' 10-minute reminders and ends."""
        if self.job_queue is None:
            return
        self._arm_clocks(stored)
        cid = stored.id
        for name in (f"contest:{cid}:deadline", f"contest:{cid}:remind"):
            for job in self.job_queue.get_jobs_by_name(name):
                job.schedule_removal()
        contest = stored.contest
        current = contest.current_round
        if contest.phase is not ContestPhase.ROUND_IN_PLAY or current is None:
            return
        deadline = current.schedule.deadline
        if current.schedule.kind is not ScheduleKind.SELF_SCHEDULED or deadline is None:
            return
        for at in deadline.reminders(self.clock()):
            left = int((deadline.closes_at - at).total_seconds())
            self._run_at(at, self._on_reminder, (cid, current.number, left), f"contest:{cid}:remind")
        self._run_at(deadline.closes_at, self._on_deadline, (cid, current.number), f"contest:{cid}:deadline")

    def _run_at(self, at: datetime, callback: Any, data: tuple[object, ...], name: str) -> None:
        """Schedule ``callback`` for the moment ``at`` of the desk's clock (a moment past: at once).

        The JobQueue runs on the wall clock and drops a date job whose time it thinks has passed;
        the desk's times are on ``clock``. Handing the scheduler the interval from the desk's now
        makes the two agree whatever the distance between the clocks (tests move theirs; a host
        whose clock is corrected by NTP moves the other)."""
        assert self.job_queue is not None
        delay = max((at - self.clock()).total_seconds(), DUE_NOW)
        self.job_queue.run_once(callback, when=delay, data=data, name=name)

    async def _on_deadline(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.job is not None
        assert isinstance(context.job.data, tuple)
        contest_id, number = context.job.data
        try:
            await self.deadline_passed(int(contest_id), int(number))
        except StorageUnavailable as error:  # the both-out must not be lost: try again soon
            self._retry(context.job.callback, context.job.data, f"contest:{contest_id}:deadline", error)

    async def deadline_passed(self, contest_id: int, number: int) -> None:
        """000-E: every round-1 match with nothing reported by the deadline puts both pairs out."""
        stored = await self.db.contests.get(contest_id=contest_id)
        current = stored.contest.current_round
        if (
            current is None
            or current.number != number
            or stored.contest.phase is not ContestPhase.ROUND_IN_PLAY
        ):
            return
        deadline = current.schedule.deadline
        if deadline is not None and deadline.is_on_time(self.clock()):
            self.arm(stored)  # moved later meanwhile
            return
        try:
            await self.run(contest_id, lambda c: close_round(c, now=self.clock()))
        except ContestError as error:
            log.warning("contest %s: the deadline could not be applied: %s", contest_id, error)

    async def _on_reminder(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.job is not None
        assert isinstance(context.job.data, tuple)
        contest_id, number, left = context.job.data
        try:
            await self.remind(int(contest_id), int(number), int(left))
        except StorageUnavailable as error:
            self._retry(context.job.callback, context.job.data, f"contest:{contest_id}:remind", error)

    def _retry(self, callback: Any, data: object, name: str, error: Exception) -> None:
        """A job whose storage was unavailable runs again in ``JOB_RETRY`` seconds."""
        log.warning("%s: storage unavailable (%s), trying again in %.0f s", name, error, JOB_RETRY)
        if self.job_queue is not None:
            self.job_queue.run_once(callback, when=JOB_RETRY, data=data, name=name)

    async def remind(self, contest_id: int, number: int, left: int) -> None:
        """A mention in the group and a private message to the players of matches with no result."""
        stored = await self.db.contests.get(contest_id=contest_id)
        current = stored.contest.current_round
        pending = unreported(stored.contest)
        if current is None or current.number != number or not pending:
            return
        codes = tuple(m.code for m in pending)
        deadline = current.schedule.deadline
        closes = deadline.closes_at.isoformat() if deadline is not None else ""
        key = f"remind:{number}:{closes}:{left}"  # a moved deadline reminds again
        self.post(stored, Reminder(codes, left), key)
        key = f"contest:{contest_id}:{key}"
        for match in pending:
            for number_ in match.pairs:
                for player in stored.contest.pair(number_).players:
                    self.outbox.post(
                        player.user_id,
                        PRIVATE,
                        {"contest_id": contest_id, "code": match.code, "left": left},
                        key=f"{key}:dm:{player.user_id}",
                    )

    # ------------------------------------------------------------ table clocks

    def _arm_clocks(self, stored: StoredContest) -> None:
        """One job per end time of the running clocks (a late table's ends later), one per 10-minute
        reminder still ahead; a clock that ran out while the bot was down ends at once."""
        assert self.job_queue is not None
        name = f"contest:{stored.id}:clock"
        for job in self.job_queue.get_jobs_by_name(name):
            job.schedule_removal()
        now = self.clock()
        current = stored.contest.current_round
        ends = sorted({clock.ends_at for clock, _match in running_clocks(stored.contest)})
        for end in ends:
            assert current is not None
            data = (stored.id, current.number, end.isoformat())
            warning = end - CLOCK_WARNING
            if warning > now:
                self._run_at(warning, self._on_clock, (*data, "clock_warning"), name)
            if _clock_key(*data) not in self._clocks_done:
                self._run_at(end, self._on_clock, (*data, "time_up"), name)

    async def _on_clock(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.job is not None
        assert isinstance(context.job.data, tuple)
        contest_id, number, end, what = context.job.data
        try:
            await self.clock_alarm(int(contest_id), int(number), str(end), str(what))
        except StorageUnavailable as error:
            self._retry(context.job.callback, context.job.data, f"contest:{contest_id}:clock", error)

    async def clock_alarm(self, contest_id: int, number: int, end: str, what: str) -> None:
        """10 minutes left, or time is up, at the round's tables whose clock ends at ``end`` and whose
        match has no result yet: announced once in the group; at the end the hooks run."""
        stored = await self.db.contests.get(contest_id=contest_id)
        current = stored.contest.current_round
        ends_at = datetime.fromisoformat(end)
        clocks = tuple(clock for clock, _match in running_clocks(stored.contest) if clock.ends_at == ends_at)
        if current is None or current.number != number or not clocks:
            return
        tables = tuple(clock.table for clock in clocks)
        key = f"{what}:{number}:{end}"
        self.post(stored, ClockNote(What(what), number, tables), key)
        if what != What.TIME_UP:
            return
        self._clocks_done.add(_clock_key(contest_id, number, end))
        if await self.db.contest_links.mirror(contest_id=contest_id) is not None:
            self.mirror(
                contest_id,
                plain(texts.time_up_text(stored.contest, number, clocks, "zh")),
                f"wechat:contest:{contest_id}:{key}",
            )
        for hook in self.time_up_hooks:  # the score sheets' time-up entry (sheets.time_up, bot.py)
            try:
                await hook(stored, number, tuple(tables))
            except Exception:
                log.exception("contest %s: a time-up hook failed for round %s", contest_id, number)

    async def resume(self) -> None:
        """On start: re-arm every unfinished contest's jobs; catch up on finished contest tables."""
        for stored in await self.db.contests.unfinished():
            try:
                await self.reconcile_tables(stored)
                self.arm(await self.db.contests.get(contest_id=stored.id))
                self.refresh(stored.id, None)  # a refresh the last run had not sent yet
            except Exception:
                log.exception("contest %s could not be resumed", stored.id)


def _clock_key(contest_id: int, number: int, end: str) -> str:
    return f"{contest_id}:{number}:{end}"
