"""The contest desk: the contest's pieces wired together, and the jobs' landing when a deadline,
a reminder or a table clock comes due (what each still calls for is decided by
:mod:`app.contest.due`; the desk loads, runs and sends).

Each piece has one job (issue 19):

- :class:`app.contest.service.ContestService` runs every command in one shape, under the
  contest's lock: load it, call the pure command, record its events in one transaction, then
  announce them (Telegram-free);
- :func:`app.contest.herald.posts` says which announcements the events call for; the desk hands
  them to the outbox (stored before they are sent, retried, resent after a restart, each under a
  key so that it is posted once), and their Chinese text to the WeChat mirror's lane;
- :class:`handlers.contest.channels.TelegramChannels` sends them (rebuilt when sent, from the
  contest as stored then, in the group's language then) and keeps the card and pairing
  messages up to date; :class:`handlers.contest.wechat.WeChatMirror` POSTs the mirror;
- :class:`handlers.contest.alarms.ContestAlarms` keeps the JobQueue jobs named after the contest,
  re-armed from the stored contests on start (:meth:`ContestDesk.resume`) and after every command;
- :class:`app.contest.bot_tables.BotTables` reports a bot table's result to its contest.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, assert_never

from telegram import InlineKeyboardMarkup
from telegram.ext import ExtBot, JobQueue

from app.contest import herald
from app.contest.announcements import FIRST, Announcement, What, from_payload, to_payload
from app.contest.bot_tables import BotTables
from app.contest.due import AtDeadline, at_deadline, clock_due, reminding
from app.contest.score_sheets import ScoreSheets
from app.contest.service import Clock, Command, ContestService, utc_now
from app.contest.store import ContestStore, HeldContest
from engine.contest import (
    Contest,
    ContestClosed,
    ContestError,
    ContestMatch,
    Drawn,
    Event,
    MatchUpdated,
    PartnerConfirmed,
    PartnerDeclined,
    SignedUp,
    Step,
    Withdrew,
    close_round,
)
from engine.rules import Rules
from handlers.contest.alarms import ContestAlarms, clock_key
from handlers.contest.channels import GROUP, PRIVATE, TelegramChannels
from handlers.contest.compose import compose
from handlers.contest.wechat import WEBHOOK_PREFIX, WECHAT, WeChatMirror, mirror_post
from handlers.platform.chats import ChatBudget
from handlers.platform.outbox import Outbox, Payload

log = logging.getLogger(__name__)

TimeUpHook = Callable[[HeldContest, int, tuple[int, ...]], Awaitable[None]]
"""Called when table clocks run out: (the contest, the round, its tables whose time is up)."""


@dataclass
class ContestDesk:
    bot: ExtBot[None]
    store: ContestStore
    outbox: Outbox
    budget: ChatBudget
    renderer: Executor
    clock: Clock = utc_now  # tests move time by replacing it
    match_rules: Callable[[Contest, int], Rules] = Contest.round_rules
    """A bot table's rules for a match of round N: the round's stage rules (精方's best-of-three
    semi-final and final); tests shorten the match."""
    webhook_allowed: Callable[[str], bool] = lambda url: url.startswith(WEBHOOK_PREFIX)
    job_queue: JobQueue[Any] | None = None
    pending_mirrors: dict[int, str] = field(default_factory=dict)
    """Organiser → webhook URL waiting for their choice of contest (buttons; memory only:
    after a restart they send it again, the secret is never stored half-set)."""
    time_up_hooks: list[TimeUpHook] = field(default_factory=list)
    """Run when table clocks end, e.g. the score sheets' time-up entry (handlers/contest/sheets.py)."""
    service: ContestService = field(init=False)
    channels: TelegramChannels = field(init=False)
    wechat: WeChatMirror = field(init=False)
    alarms: ContestAlarms | None = field(init=False)
    bot_tables: BotTables = field(init=False)
    sheets: ScoreSheets = field(init=False)

    def __post_init__(self) -> None:
        self.service = ContestService(self.store, self.announce, self.arm)
        self.channels = TelegramChannels(self.bot, self.store, self.budget)
        self.wechat = WeChatMirror(self.store)
        self.sheets = ScoreSheets(self.store, self.service.lock)
        now = lambda: self.clock()  # noqa: E731 - tests replace ``clock`` after construction
        self.alarms = ContestAlarms(self.job_queue, self, now) if self.job_queue is not None else None
        self.bot_tables = BotTables(self.store, self.run, now, self._notify)
        self.outbox.register(GROUP, self.channels.send_group)
        self.outbox.register(PRIVATE, self.channels.send_private)
        self.outbox.register(WECHAT, self.wechat.send)

    async def stop_sending(self) -> None:
        """The bot is stopping: queued card and pairing refreshes are dropped (each shows stored
        state, and is derived afresh after a restart); left queued, they ran after the
        database had closed and failed with a traceback."""
        await self.channels.refreshes.close()

    async def close(self) -> None:
        await self.stop_sending()
        await self.wechat.close()

    def lock(self, contest_id: int) -> asyncio.Lock:
        return self.service.lock(contest_id)

    async def run(self, contest_id: int, command: Command) -> tuple[HeldContest, Step]:
        """Load, command, record, announce (:meth:`ContestService.run`)."""
        return await self.service.run(contest_id, command)

    # ------------------------------------------------------------ announcements

    async def announce(self, stored: HeldContest, events: Sequence[Event]) -> None:
        """Queue the group messages (and their mirror) that these events call for."""
        found = herald.posts(stored.contest, events)
        self._refresh(stored, events)
        mirror = await self.store.mirror(stored.id)
        for post in found:
            self.post(stored, post.announcement, post.key)
            if mirror is not None and post.mirror is not None:
                mirror_post(self.outbox, stored.id, post.mirror, f"wechat:{stored.id}:{post.key}")

    def line_on_its_way(self, contest_id: int, match: ContestMatch) -> bool:
        """An official line of ``match`` is stored and waiting for the group's minute."""
        return any(self.outbox.queued(f"contest:{contest_id}:{key}") for key in herald.official_keys(match))

    def post(self, stored: HeldContest, announcement: Announcement, key: str) -> None:
        """Queue one group announcement under the contest's key ``key`` (posted once)."""
        payload = {"contest_id": stored.id, **to_payload(announcement)}
        first = announcement.what in FIRST
        self.outbox.post(stored.chat_id, GROUP, payload, key=f"contest:{stored.id}:{key}", first=first)

    def _notify(self, chat_id: int, announcement: Announcement, key: str) -> None:
        self.outbox.post(chat_id, GROUP, to_payload(announcement), key=key)

    def _refresh(self, stored: HeldContest, events: Sequence[Event]) -> None:
        """Edit what these events made stale: the card after a sign-up change or the draw, and a
        round's pairing message once a match has a result (its ▶ button goes away)."""
        card_events = (SignedUp, PartnerConfirmed, PartnerDeclined, Withdrew, Drawn, ContestClosed)
        if any(isinstance(event, card_events) for event in events):
            self.refresh(stored.id, None)
        for number in sorted({e.match.round for e in events if isinstance(e, MatchUpdated)}):
            self.refresh(stored.id, number)

    def refresh(self, contest_id: int, round_number: int | None) -> asyncio.Future[None]:
        """Bring the card (``None``) or a round's pairings up to date (:meth:`TelegramChannels.refresh`)."""
        return self.channels.refresh(contest_id, round_number)

    async def edit_shown(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None
    ) -> None:
        await self.channels.edit_shown(chat_id, message_id, text, markup)

    def compose(
        self, stored: HeldContest, payload: Payload, locale: str
    ) -> tuple[str, InlineKeyboardMarkup | None]:
        """The text and buttons of one stored group announcement (:func:`compose`)."""
        return compose(stored, from_payload(payload), locale)

    # ------------------------------------------------------------ deadlines, reminders, clocks

    def arm(self, stored: HeldContest) -> None:
        """(Re-)schedule the contest's jobs (:meth:`ContestAlarms.arm`); none without a JobQueue."""
        if self.alarms is not None:
            self.alarms.arm(stored)

    async def deadline_passed(self, contest_id: int, number: int) -> None:
        """000-E: every round-1 match with nothing reported by the deadline puts both pairs out
        (:func:`app.contest.due.at_deadline` says whether it is still due)."""
        stored = await self.store.get(contest_id)
        match at_deadline(stored.contest, number, self.clock()):
            case AtDeadline.NOTHING:
                return
            case AtDeadline.ARM_AGAIN:
                self.arm(stored)
            case AtDeadline.CLOSE_ROUND:
                try:
                    await self.run(contest_id, lambda c: close_round(c, now=self.clock()))
                except ContestError as error:
                    log.warning("contest %s: the deadline could not be applied: %s", contest_id, error)
            case unexpected:
                assert_never(unexpected)

    async def remind(self, contest_id: int, number: int, left: int) -> None:
        """A mention in the group and a private message to the players of matches with no result
        (:func:`app.contest.due.reminding`)."""
        stored = await self.store.get(contest_id)
        found = reminding(stored, number, left)
        if found is None:
            return
        self.post(stored, found.announcement, found.key)
        for reminder in found.private:
            self.outbox.post(reminder.user_id, PRIVATE, found.payload(contest_id, reminder), key=reminder.key)

    async def clock_alarm(self, contest_id: int, number: int, end: str, what: str) -> None:
        """10 minutes left, or time is up, at the round's tables whose clock ends at ``end`` and whose
        match has no result yet (:func:`app.contest.due.clock_due`): announced once in the group;
        at the end the hooks run."""
        stored = await self.store.get(contest_id)
        due = clock_due(stored.contest, number, end, What(what))
        if due is None:
            return
        self.post(stored, due.note, due.key)
        if not due.time_up:
            return
        if self.alarms is not None:
            self.alarms.clocks_done.add(clock_key(contest_id, number, end))
        if await self.store.mirror(contest_id) is not None:
            mirror_post(
                self.outbox,
                contest_id,
                due.mirror_text(stored.contest),
                f"wechat:contest:{contest_id}:{due.key}",
            )
        for hook in self.time_up_hooks:  # the score sheets' time-up entry (sheets.time_up, bot.py)
            try:
                await hook(stored, number, due.tables)
            except Exception:
                log.exception("contest %s: a time-up hook failed for round %s", contest_id, number)

    async def resume(self) -> None:
        """On start: re-arm every unfinished contest's jobs; catch up on finished contest tables."""
        for stored in await self.store.unfinished():
            try:
                await self.bot_tables.reconcile(stored)
                self.arm(await self.store.get(stored.id))
                self.refresh(stored.id, None)  # a refresh the last run had not sent yet
            except Exception:
                log.exception("contest %s could not be resumed", stored.id)
