"""The contests as the bot keeps them: the one way from the contest's handlers into storage
(issue 41: app/ owns state and storage, handlers only adapt).

Every read returns a :class:`HeldContest` (the contest, its number and its group), never a
storage record; storage's faults come out as this module's own refusals: a contest that is not
there is :class:`ContestGone` (or ``None`` where "none" is an ordinary answer), a database that
cannot take a write now is :class:`StoreBusy` (a locked SQLite file clears in seconds: the caller
may try again). A handler names neither a repository nor a storage type.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from app.preferences import Languages
from engine.contest import Contest, ContestMatch, Event
from storage import Database, NotFound, StorageConflict, StorageUnavailable, StoredContest, TableStatus
from storage.contest_links import ContestTable

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HeldContest:
    """A contest as the bot holds it: its number (in buttons and outbox keys), the group it is
    held in, and its state."""

    id: int
    chat_id: int
    contest: Contest

    @classmethod
    def of(cls, stored: StoredContest) -> HeldContest:
        return cls(stored.id, stored.chat_id, stored.contest)


class ContestGone(LookupError):
    """No contest by that number (a button of a contest that is no longer stored)."""


class StoreBusy(Exception):
    """The database cannot take this now (locked by another process, unreachable): nothing was
    changed, and the same call may succeed in a few seconds."""


def busy_is_told(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Storage's "unavailable" becomes :class:`StoreBusy`, the refusal the handlers know."""

    @functools.wraps(method)
    async def told(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except StorageUnavailable as error:
            raise StoreBusy(str(error)) from error

    return told


@dataclass
class ContestStore:
    """The contests, their messages, mirrors, bot tables and known usernames, as stored."""

    db: Database

    @property
    def languages(self) -> Languages:
        """The language of a group's or a person's messages (the announcements are in it)."""
        return Languages(self.db)

    # ------------------------------------------------------------ contests

    @busy_is_told
    async def get(self, contest_id: int) -> HeldContest:
        """The contest numbered ``contest_id``; :class:`ContestGone` if there is none."""
        try:
            return HeldContest.of(await self.db.contests.get(contest_id=contest_id))
        except NotFound:
            raise ContestGone(contest_id) from None

    @busy_is_told
    async def open_in_chat(self, chat_id: int) -> HeldContest | None:
        """The group's open contest, or None."""
        try:
            return HeldContest.of(await self.db.contests.open_in_chat(chat_id=chat_id))
        except NotFound:
            return None

    @busy_is_told
    async def create(self, chat_id: int, contest: Contest) -> HeldContest | None:
        """A new contest in the group; None when the group already has an open one."""
        try:
            return HeldContest.of(await self.db.contests.create(chat_id=chat_id, contest=contest))
        except StorageConflict:
            return None

    @busy_is_told
    async def record(self, contest_id: int, events: Sequence[Event]) -> None:
        """A command's events, in one transaction."""
        await self.db.contests.record(contest_id=contest_id, events=events)

    @busy_is_told
    async def closed_in_chat(self, chat_id: int) -> list[HeldContest]:
        """The group's past contests, newest first."""
        return [HeldContest.of(s) for s in await self.db.contests.closed_in_chat(chat_id=chat_id)]

    @busy_is_told
    async def unfinished(self) -> list[HeldContest]:
        """Every contest not closed yet (re-armed on start)."""
        return [HeldContest.of(s) for s in await self.db.contests.unfinished()]

    async def organised_by(self, user_id: int) -> list[HeldContest]:
        """The unfinished contests ``user_id`` organises (the WeChat mirror's choice)."""
        return [held for held in await self.unfinished() if held.contest.organiser_id == user_id]

    @busy_is_told
    async def by_code(self, code: str) -> tuple[HeldContest, ContestMatch] | None:
        """The contest and match of a match code, or None."""
        try:
            stored, match = await self.db.contests.by_code(code=code)
        except NotFound:
            return None
        return HeldContest.of(stored), match

    # ------------------------------------------------------------ the messages that show it

    @busy_is_told
    async def link_message(self, chat_id: int, message_id: int, contest_id: int, round_: int | None) -> None:
        """Message ``message_id`` shows the contest's card (``round_`` None) or a round's pairings."""
        await self.db.contest_links.add_message(
            chat_id=chat_id, message_id=message_id, contest_id=contest_id, round_=round_
        )

    @busy_is_told
    async def messages_of(self, contest_id: int, round_: int | None) -> list[tuple[int, int]]:
        """(chat, message) of every message showing the card (``None``) or round ``round_``."""
        return await self.db.contest_links.messages_of(contest_id=contest_id, round_=round_)

    @busy_is_told
    async def shows_pairings(self, chat_id: int, message_id: int) -> bool:
        """Whether the message is a round's pairings (a reply to it is a report)."""
        link = await self.db.contest_links.message(chat_id=chat_id, message_id=message_id)
        return link is not None and link[1] is not None

    # ------------------------------------------------------------ the WeChat mirror

    @busy_is_told
    async def mirror(self, contest_id: int) -> str | None:
        """The contest's WeChat webhook, or None."""
        return await self.db.contest_links.mirror(contest_id=contest_id)

    @busy_is_told
    async def set_mirror(self, contest_id: int, url: str | None, set_by: int) -> None:
        await self.db.contest_links.set_mirror(contest_id=contest_id, url=url, set_by=set_by)

    # ------------------------------------------------------------ who is who

    @busy_is_told
    async def remember_username(self, username: str, user_id: int, name: str) -> None:
        """Keep ``@username`` → user, so that ``/signup @partner`` can name this person later."""
        await self.db.contest_links.remember_username(username=username, user_id=user_id, name=name)

    @busy_is_told
    async def user_by_username(self, username: str) -> tuple[int, str] | None:
        """(user id, name) of an ``@username`` seen before, or None."""
        return await self.db.contest_links.user_by_username(username=username)

    # ------------------------------------------------------------ bot tables

    @busy_is_told
    async def match_table_open(self, code: str) -> bool:
        """Whether a bot table for this match is open already (waiting or playing)."""
        found = await self.db.contest_links.tables_of_code(code=code)
        return any(TableStatus(status).is_active for _link, status, _chat in found)

    @busy_is_told
    async def link_table(self, table_id: int, contest_id: int, code: str, team0_pair: int) -> None:
        """Bot table ``table_id`` plays match ``code``; ``team0_pair`` sits at seats 0 and 2."""
        await self.db.contest_links.add_table(ContestTable(table_id, contest_id, code, team0_pair))
