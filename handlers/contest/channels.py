"""The contest's Telegram channels: its group announcements and private reminders as the outbox
sends them, and the edits that keep its card and pairing messages up to date.

A group announcement is stored as which announcement it is (:mod:`app.contest.announcements`)
and rebuilt when it is sent, from the contest as stored then, in the group's language then
(:mod:`handlers.contest.compose`). A round's pairings are one message and a report is two (the
official ``掼蛋{N}组`` line and its details), so a whole contest stays far below the group's 20
messages a minute; the sender waits for the group's budget all the same.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import timedelta

from telegram import InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot

from app.contest import texts
from app.contest.announcements import (
    AWAITED,
    Announcement,
    Card,
    Official,
    Pairings,
    Refresh,
    Refused,
    UnknownAnnouncement,
    from_payload,
)
from app.contest.store import ContestGone, ContestStore, HeldContest, StoreBusy
from handlers.contest.compose import card_keyboard, compose, play_keyboard
from handlers.platform.chats import DECISION_REACH, ChatBudget
from handlers.platform.edits import not_modified
from handlers.platform.outbox import Payload, Undeliverable
from handlers.platform.scheduler import Priority, at_priority
from handlers.platform.sender import LatestWins

log = logging.getLogger(__name__)

GROUP = "contest"  # outbox kinds
PRIVATE = "contest_dm"
LINK_TRIES = 8
LINK_RETRY = 0.5  # seconds before the first retry of a message's link; doubled each time


@dataclass
class TelegramChannels:
    bot: ExtBot[None]
    store: ContestStore
    budget: ChatBudget
    refreshes: LatestWins = field(default_factory=LatestWins)
    """Cards and pairing messages being brought up to date: one pending look per view."""
    shown_looks: dict[tuple[int, int], int] = field(default_factory=dict)
    """(chat, message) → the look last given to it, so an unchanged edit is not sent."""

    async def send_group(self, chat_id: int, payload: Payload) -> None:
        """One stored announcement; what an organiser's command posts for the whole group (the
        draw, a round's pairings, a decision: :data:`AWAITED`) as a decision, which replies and
        refreshes never hold back (issue 40)."""
        try:
            announcement = from_payload(payload)
        except UnknownAnnouncement as error:
            raise Undeliverable(str(error)) from error
        if announcement.what in AWAITED:
            with at_priority(Priority.DECISION):
                await self._send_group(chat_id, payload, announcement, DECISION_REACH)
        else:
            await self._send_group(chat_id, payload, announcement, 0)

    async def _send_group(
        self, chat_id: int, payload: Payload, announcement: Announcement, reserve: int
    ) -> None:
        match announcement:
            case Official(line):  # exactly the line, nothing else (docs/rules.md §4.8)
                await self.budget.acquire(chat_id, reserve)
                await self.bot.send_message(chat_id, line)
                return
            case Refused():
                locale = await self.store.languages.of_chat(chat_id)
                await self.budget.acquire(chat_id, reserve)
                await self.bot.send_message(chat_id, announcement.text(locale))
                return
        try:
            stored = await self.store.get(int(payload["contest_id"]))
        except ContestGone as error:
            raise Undeliverable(f"contest {payload['contest_id']} is gone") from error
        locale = await self.store.languages.of_chat(chat_id)
        if isinstance(announcement, Refresh):  # rows an earlier version stored: now a refresh
            self.refresh(stored.id, announcement.round)
            return
        text, markup = compose(stored, announcement, locale)
        await self.budget.acquire(chat_id, reserve)
        sent = await self.bot.send_message(
            chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True
        )
        if isinstance(announcement, Pairings | Card):
            round_ = announcement.round if isinstance(announcement, Pairings) else None
            await self._link(chat_id, sent.message_id, stored.id, round_)

    async def send_private(self, chat_id: int, payload: Payload) -> None:
        """A player's private reminder of their match without a result."""
        try:
            stored = await self.store.get(int(payload["contest_id"]))
        except ContestGone as error:
            raise Undeliverable("contest gone") from error
        locale = await self.store.languages.of_user(chat_id)
        match = stored.contest.match_by_code(str(payload["code"]))
        left = timedelta(seconds=int(payload["left"]))
        text = texts.reminder_dm_text(stored.contest, match, left, locale)
        await self.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML)

    async def _link(self, chat_id: int, message_id: int, contest_id: int, round_: int | None) -> None:
        """Store which message shows the card or a round, so refreshes edit it. The message is
        already in the group: a database fault here must not make the outbox send it again (a
        second card appeared when the database was locked right after the first was sent), so
        the write alone is tried again, for about a minute, then given up with a log line."""
        delay = LINK_RETRY
        for attempt in range(LINK_TRIES):
            try:
                await self.store.link_message(chat_id, message_id, contest_id, round_)
                return
            except StoreBusy as error:
                if attempt == LINK_TRIES - 1:
                    log.error("contest %s: message %s not linked: %s", contest_id, message_id, error)
                    return
                log.warning("contest %s: message %s not linked (%s): again", contest_id, message_id, error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 16.0)

    def refresh(self, contest_id: int, round_number: int | None) -> asyncio.Future[None]:
        """Bring the contest's card (``None``) or a round's pairing messages up to date, in the
        background and at refresh priority.

        A refresh is derived from the stored contest when its turn comes, so it is never stored:
        fifty sign-ups in a second ask fifty times and the group sees one or two edits, the
        newest look (:class:`LatestWins`), after every announcement waiting for the group."""

        async def edit() -> None:
            with at_priority(Priority.REFRESH):
                try:
                    stored = await self.store.get(contest_id)
                except ContestGone:
                    return
                locale = await self.store.languages.of_chat(stored.chat_id)
                await self._edit_messages(stored, round_number, locale)

        return self.refreshes.submit(("contest", contest_id, round_number), edit)

    async def _edit_messages(self, stored: HeldContest, number: int | None, locale: str) -> None:
        """Bring the contest's cards (``None``) or one round's pairing messages up to date."""
        if number is None:
            shown = await self.store.messages_of(stored.id, None)
            text = texts.card_text(stored.contest, locale)
            markup: InlineKeyboardMarkup | None = card_keyboard(stored, locale)
        else:
            shown = await self.store.messages_of(stored.id, number)
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
