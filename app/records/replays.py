"""Loading a finished match for 复盘 and export: its rules, names and reviewed deals — or,
while a match is played, its deals that have ended (a deal's 复盘 opened from its hand message).

A replay's steps are pressed one after another, so the reviewed match is kept (a few of
them, least recently used first out) instead of replaying the log on every press. Which
step each replay message shows is kept too, so a press from an older state of the message
is recognised as stale.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from app.table.tables import decode_action
from engine.actions import Action
from engine.notation import write_transcript
from engine.review import DealReview, Frame, frames, review, review_through
from engine.rules import Rules
from storage import Database, NotFound, TableStatus

KEPT: Final = 16
"""Reviewed matches kept in memory: one is ~100 kB of frozen values; a group steps through
one or two at a time."""
SHOWN_KEPT: Final = 512  # replay messages whose shown step is remembered


class NotEnded(Exception):
    """The deal asked for is still being played (or never ended): its 复盘 does not exist yet."""


class NextDealDealtFromIt(Exception):
    """不洗牌: the deal asked for is the one the deal in play was dealt from, unshuffled — its
    replay (the order its cards were played in, the hands left) would give that deal's hands
    away, so it opens once the deal in play has ended too."""


class MatchGone(LookupError):
    """No finished match at that table (or, for a deal's 复盘, no such table): a button of a
    match that was never stored, or removed by /forgetme's owner."""


class NotSeated(Exception):
    """The asker has no seat at the table: its deals' 复盘 is its players' only."""


@dataclass(frozen=True, slots=True)
class StoredMatch:
    table_id: int
    chat_id: int
    rules: Rules
    seed: int
    history: tuple[tuple[int | None, Action], ...]
    names: tuple[str, str, str, str]
    user_ids: tuple[int | None, int | None, int | None, int | None]
    deals: tuple[DealReview, ...]
    steps: tuple[Frame, ...]
    started_at: str
    through: int | None = None  # a replay of deals 1 to N only (opened from deal N's hand message)

    def transcript(self) -> str:
        header = [f"match #{self.table_id}, started {self.started_at}"]
        header += [f"seat {seat}: {name or '-'}" for seat, name in enumerate(self.names)]
        return write_transcript(self.rules, self.seed, self.history, header=header)


class Replays:
    """Finished matches for replay, by table id."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._matches: OrderedDict[int, StoredMatch] = OrderedDict()
        self._shown: OrderedDict[tuple[int, int], int] = OrderedDict()
        self._through: OrderedDict[tuple[int, int], StoredMatch] = OrderedDict()

    async def load(self, table_id: int) -> StoredMatch:
        """The finished match of table ``table_id``; :class:`MatchGone` if there is none."""
        try:
            return await self._load(table_id)
        except NotFound:
            raise MatchGone(table_id) from None

    async def _load(self, table_id: int) -> StoredMatch:
        kept = self._matches.get(table_id)
        if kept is not None:
            self._matches.move_to_end(table_id)
            return kept
        record = await self.db.tables.get(table_id=table_id)
        if record.status is not TableStatus.FINISHED:
            raise MatchGone(table_id)
        seats = {seat.seat: seat for seat in await self.db.seats.of_table(table_id=table_id)}
        actions = await self.db.actions.of_table(table_id=table_id)
        history = tuple((action.seat, decode_action(action.action_json)) for action in actions)
        rules = Rules.from_json(record.rules_json)
        deals = review(rules, record.seed, history)
        names = tuple(seats[seat].name if seat in seats else "" for seat in range(4))
        users = tuple(seats[seat].user_id if seat in seats else None for seat in range(4))
        started = record.started_at.isoformat(timespec="minutes") if record.started_at else ""
        match = StoredMatch(
            table_id,
            record.chat_id,
            rules,
            record.seed,
            history,
            (names[0], names[1], names[2], names[3]),
            (users[0], users[1], users[2], users[3]),
            deals,
            frames(deals),
            started,
        )
        self._matches[table_id] = match
        while len(self._matches) > KEPT:
            self._matches.popitem(last=False)
        return match

    async def load_through(self, table_id: int, deal_number: int, user_id: int) -> StoredMatch:
        """Table ``table_id``'s deals 1 to ``deal_number`` for one of its seated players, once
        that deal has ended, whether the match goes on or not: a replay of them never reaches
        a later deal. MatchGone: no such table; NotSeated: ``user_id`` has no seat there;
        NotEnded: the deal is being played; NextDealDealtFromIt: at a 不洗牌 table, the deal in
        play was dealt from it. A replay's presses reuse it (kept, like matches)."""
        try:
            return await self._load_through(table_id, deal_number, user_id)
        except NotFound:
            raise MatchGone(table_id) from None

    async def _load_through(self, table_id: int, deal_number: int, user_id: int) -> StoredMatch:
        key = (table_id, deal_number)
        kept = self._through.get(key)
        if kept is not None:
            if user_id not in kept.user_ids:
                raise NotSeated(table_id)
            self._through.move_to_end(key)
            return kept
        record = await self.db.tables.get(table_id=table_id)
        seats = {seat.seat: seat for seat in await self.db.seats.of_table(table_id=table_id)}
        users = tuple(seats[seat].user_id if seat in seats else None for seat in range(4))
        if user_id not in users:  # checked before replaying anything: a stranger's press costs a query
            raise NotSeated(table_id)
        actions = await self.db.actions.of_table(table_id=table_id)
        rules = Rules.from_json(record.rules_json)
        logged = [(action.seat, decode_action(action.action_json)) for action in actions]
        reviewed = review_through(rules, record.seed, logged, deal_number) if deal_number > 0 else None
        if reviewed is None:
            raise NotEnded(table_id, deal_number)
        unshuffled = rules.hides_hands and record.status is TableStatus.PLAYING
        if unshuffled and review_through(rules, record.seed, logged, deal_number + 1) is None:
            raise NextDealDealtFromIt(table_id, deal_number)
        deals, used = reviewed
        names = tuple(seats[seat].name if seat in seats else "" for seat in range(4))
        started = record.started_at.isoformat(timespec="minutes") if record.started_at else ""
        match = StoredMatch(
            table_id,
            record.chat_id,
            rules,
            record.seed,
            tuple(logged[:used]),
            (names[0], names[1], names[2], names[3]),
            (users[0], users[1], users[2], users[3]),
            deals,
            frames(deals),
            started,
            deal_number,
        )
        self._through[key] = match
        while len(self._through) > KEPT:
            self._through.popitem(last=False)
        return match

    def shown(self, chat_id: int, message_id: int) -> int | None:
        """The step a replay message shows, if this run of the bot knows it."""
        return self._shown.get((chat_id, message_id))

    def show(self, chat_id: int, message_id: int, step: int) -> None:
        self._shown[(chat_id, message_id)] = step
        self._shown.move_to_end((chat_id, message_id))
        while len(self._shown) > SHOWN_KEPT:
            self._shown.popitem(last=False)

    def forget_user(self, user_id: int) -> None:
        """/forgetme: kept matches that name the person are dropped (reloaded anonymised)."""
        for table_id in [t for t, match in self._matches.items() if user_id in match.user_ids]:
            del self._matches[table_id]
        for key in [k for k, match in self._through.items() if user_id in match.user_ids]:
            del self._through[key]
