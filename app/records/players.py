"""What the records say about players: /stats, /top, /history and /forgetme's figures, each read
in one indexed query (issue 41: the records' handlers reach storage only through here).

No Telegram here. Every answer is a value the records' texts and pictures take as they are; a
player or rating that is not stored is ``None``, never a storage exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.records.rating import MIN_MATCHES
from engine.contest import Contest, PairRecord, pair_record
from storage import Database, NotFound
from storage.records import MatchRow, PlayerTotals, Rating

RANKED_LIMIT = 1000
"""Ratings read to find a person's place in their group's ranking."""


@dataclass(frozen=True, slots=True)
class Place:
    """A person's skill rating in a group and their place among its ranked people."""

    rating: Rating
    place: int  # 1 for the first; 0 when not ranked yet (fewer than MIN_MATCHES matches)
    ranked: int


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """/stats' figures of one person: everywhere, in the group asked in, and their contests."""

    name: str
    everywhere: PlayerTotals
    here: PlayerTotals | None  # None in a private chat
    place: Place | None  # None in a private chat, or no rating in the group
    contests: tuple[tuple[Contest, PairRecord], ...]


@dataclass(frozen=True, slots=True)
class Ranking:
    """/top: the group's people (with enough matches to be ranked) and its computer players."""

    people: tuple[Rating, ...]
    computers: tuple[Rating, ...]


@dataclass
class PlayerRecords:
    """The records' figures of people, and who is who (``@username`` and names as last seen)."""

    db: Database
    known: dict[int, tuple[str | None, str]] = field(default_factory=dict)
    """user → (username, name) as stored, so an unchanged sender is not written again."""

    async def note(self, user_id: int, username: str | None, name: str) -> None:
        """Remember a sender's ``@username`` and name, so /stats @name finds them."""
        if self.known.get(user_id) == (username, name):
            return
        await self.db.records.note_user(user_id=user_id, username=username, name=name)
        self.known[user_id] = (username, name)

    async def by_username(self, username: str) -> tuple[int, str] | None:
        """(user id, name) of ``@username`` (without the @) as last seen, or None."""
        try:
            known = await self.db.records.by_username(username=username)
        except NotFound:
            return None
        return known.user_id, known.name

    async def named(self, chat_id: int, name: str) -> list[int]:
        """The group's players called ``name``."""
        return await self.db.records.players_named(chat_id=chat_id, name=name)

    async def stats(self, user_id: int, chat_id: int | None) -> PlayerStats | None:
        """A person's figures everywhere and, in a group (``chat_id``), there; None without a
        single recorded match."""
        records = self.db.records
        everywhere = await records.totals(user_id=user_id)
        if everywhere.matches == 0:
            return None
        name = await records.latest_name(user_id=user_id)
        here = await records.totals(user_id=user_id, chat_id=chat_id) if chat_id is not None else None
        place = await self._place(chat_id, user_id) if chat_id is not None else None
        closed = await self.db.contests.closed_with_player(user_id=user_id)
        paired = ((held.contest, pair_record(held.contest, user_id)) for held in closed)
        contests = tuple((contest, record) for contest, record in paired if record is not None)
        return PlayerStats(name, everywhere, here, place, contests)

    async def _place(self, chat_id: int, user_id: int) -> Place | None:
        try:
            mine = await self.db.records.rating(chat_id=chat_id, player=f"u:{user_id}")
        except NotFound:
            return None
        rows = await self.db.records.ranking(chat_id=chat_id, min_matches=MIN_MATCHES, limit=RANKED_LIMIT)
        ranked = [r for r in rows if r.player.startswith("u:")]
        place = next((i for i, r in enumerate(ranked, start=1) if r.player == mine.player), 0)
        return Place(mine, place, len(ranked))

    async def ranking(self, chat_id: int, size: int) -> Ranking | None:
        """The group's first ``size`` people by skill rating and its computer players; None
        before its first recorded match."""
        rows = await self.db.records.ranking(chat_id=chat_id, min_matches=1, limit=size * 4)
        if not rows:
            return None
        people = [r for r in rows if r.player.startswith("u:") and r.matches >= MIN_MATCHES][:size]
        computers = [r for r in rows if r.player.startswith("ai:")]
        return Ranking(tuple(people), tuple(computers))

    async def history(
        self, *, chat_id: int | None, user_id: int, size: int, before: int | None
    ) -> list[MatchRow]:
        """A page of finished matches, newest first: the group's, or (``chat_id`` None) the
        person's own; ``before``: older than that table."""
        records = self.db.records
        if chat_id is None:
            return await records.recent_of_user(user_id=user_id, limit=size, before=before)
        return await records.recent(chat_id=chat_id, limit=size, before=before)

    async def stored_about(self, user_id: int) -> tuple[int, int]:
        """(seats, groups) stored about the person: what /forgetme would remove."""
        return await self.db.records.stored_about(user_id=user_id)

    async def forget(self, user_id: int) -> int:
        """Remove the person's name and id from every record; the seats made anonymous."""
        seats = await self.db.records.forget(user_id=user_id)
        self.known.pop(user_id, None)
        return seats
