"""Contests in the database: the facts of :mod:`engine.contest`, written atomically, read back whole.

Handlers load a contest (:meth:`ContestRepository.get`), call a pure command, and
hand its events to :meth:`ContestRepository.record`, which writes every row they
imply in **one transaction**: a draw (pairs, a round, its matches and byes) is
stored entirely or not at all.

Those transactions go through the database's :class:`~storage.backend.Writer` (its own
connection, which nobody else's statement can join, and a lock serialising them); reads use
the shared connection, see only committed data, and hold the writer's lock while they read a
contest's several rows.

This module returns engine.contest values (the aggregate *is* the pure contest
value; a parallel set of records would only be copied field by field).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from engine.contest import (
    ClockStarted,
    Contest,
    ContestClosed,
    ContestMatch,
    Deadline,
    DeadlineMoved,
    Drawn,
    DrawSeed,
    Entry,
    Event,
    FactKind,
    MatchFact,
    MatchKind,
    MatchNote,
    MatchResult,
    MatchUpdated,
    Pair,
    PairWithdrew,
    PartnerChanged,
    PartnerConfirmed,
    PartnerDeclined,
    Player,
    PlayMethod,
    Round,
    RoundDrawn,
    Schedule,
    ScheduleKind,
    SignedUp,
    Stage,
    TableClock,
    Withdrawal,
    WithdrawReason,
    Withdrew,
    normalize_code,
)
from engine.contest.serialize import settings_from_json, settings_to_json
from engine.figures import MatchFigures
from storage.backend import Connection, Writer
from storage.errors import NotFound, StorageConflict

_CONTEST_COLUMNS = "id, chat_id, name, organiser_id, settings_json, seed_hex, opened_at, closed_at"
_FACT_COLUMNS = (
    "code, kind, at, by_user, winner, method, points_a, points_b, extra_deal, reason, text, figures_json"
)


@dataclass(frozen=True, slots=True)
class StoredContest:
    """A contest with its storage identity and group."""

    id: int
    chat_id: int
    contest: Contest


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


class ContestRepository:
    """Contests, their sign-ups, pairs, rounds, matches and fact history."""

    def __init__(self, conn: Connection, writer: Writer, *, bot_id: int = 0) -> None:
        self._conn = conn
        self._bot_id = bot_id  # the bot whose contests these are (migration 0015)
        self._writer = writer
        self._lock = writer.lock

    # ------------------------------------------------------------ transactions

    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """A transaction on the writer's connection (:meth:`Writer.writing
        <storage.backend.Writer.writing>`); any error rolls back."""
        return self._writer.writing()

    # ------------------------------------------------------------ writes

    async def create(self, *, chat_id: int, contest: Contest) -> StoredContest:
        """Store a new contest (and whatever it already holds); a second open one in the chat conflicts."""
        async with self._writing(f"contest in chat {chat_id}") as conn:
            row = await conn.fetchone(
                "INSERT INTO contests (chat_id, name, organiser_id, settings_json, seed_hex, commitment,"
                " opened_at, closed_at, bot_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    chat_id,
                    contest.name,
                    contest.organiser_id,
                    settings_to_json(contest.settings),
                    contest.seed.hex,
                    contest.seed.commitment,
                    _iso(contest.opened_at),
                    _iso(contest.closed_at),
                    self._bot_id,
                ),
            )
            assert row is not None
            contest_id = int(row[0])
            for event in _events_of(contest):
                await _write_event(conn, contest_id, event)
        return await self.get(contest_id=contest_id)

    async def record(self, *, contest_id: int, events: Sequence[Event]) -> None:
        """Write the rows a command's events imply, all in one transaction."""
        async with self._writing(f"contest {contest_id}") as conn:
            if not await _exists(conn, contest_id):
                raise NotFound(f"contest {contest_id}")
            for event in events:
                await _write_event(conn, contest_id, event)

    @asynccontextmanager
    async def _writing(self, what: str) -> AsyncIterator[Connection]:
        """A transaction whose conflicts are :class:`StorageConflict` (saying what was written)
        and whose storage faults (locked, read-only, full) are :class:`StorageUnavailable`:
        nothing was written, and the person is told "not saved, try again"."""
        try:
            async with self.transaction() as conn:
                yield conn
        except StorageConflict as error:
            raise StorageConflict(f"{what}: {error}") from error

    # ------------------------------------------------------------ reads

    # Reads hold the same lock as contest writes, so a contest is never read half before
    # and half after a write (its rows come from several SELECTs).

    async def get(self, *, contest_id: int) -> StoredContest:
        async with self._lock:
            return await self._get(contest_id)

    async def open_in_chat(self, *, chat_id: int) -> StoredContest:
        """The group's contest that is not closed yet."""
        async with self._lock:
            row = await self._one(
                f"SELECT {_CONTEST_COLUMNS} FROM contests"
                " WHERE bot_id = ? AND chat_id = ? AND closed_at IS NULL",
                (self._bot_id, chat_id),
            )
            if row is None:
                raise NotFound(f"open contest in chat {chat_id}")
            return await self._load(row)

    async def closed_in_chat(self, *, chat_id: int, limit: int = 10) -> list[StoredContest]:
        """The group's closed contests, the latest first (``/contest list``)."""
        async with self._lock:
            rows = await self._all(
                f"SELECT {_CONTEST_COLUMNS} FROM contests WHERE chat_id = ? AND closed_at IS NOT NULL"
                " ORDER BY closed_at DESC, id DESC LIMIT ?",
                (chat_id, limit),
            )
            return [await self._load(row) for row in rows]

    async def closed_with_player(self, *, user_id: int, limit: int = 5) -> list[StoredContest]:
        """Closed contests, anywhere, in which ``user_id`` was drawn into a pair, the latest first
        (``/stats``)."""
        async with self._lock:
            rows = await self._all(
                f"SELECT {_CONTEST_COLUMNS} FROM contests WHERE closed_at IS NOT NULL AND id IN"
                " (SELECT contest_id FROM contest_pairs WHERE user_a = ? OR user_b = ?)"
                " ORDER BY closed_at DESC, id DESC LIMIT ?",
                (user_id, user_id, limit),
            )
            return [await self._load(row) for row in rows]

    async def unfinished(self) -> list[StoredContest]:
        """This bot's contests to resume on start (deadline and reminder jobs are re-armed from these)."""
        async with self._lock:
            rows = await self._all(
                f"SELECT {_CONTEST_COLUMNS} FROM contests WHERE bot_id = ? AND closed_at IS NULL ORDER BY id",
                (self._bot_id,),
            )
            return [await self._load(row) for row in rows]

    async def by_code(self, *, code: str) -> tuple[StoredContest, ContestMatch]:
        """The contest and match a match code opens (``/newgame match=CODE``)."""
        wanted = normalize_code(code)
        async with self._lock:
            row = await self._one("SELECT contest_id FROM contest_matches WHERE code = ?", (wanted,))
            if row is None:
                raise NotFound(f"match code {code}")
            stored = await self._get(row[0])
        return stored, stored.contest.match_by_code(wanted)

    async def _get(self, contest_id: int) -> StoredContest:
        row = await self._one(f"SELECT {_CONTEST_COLUMNS} FROM contests WHERE id = ?", (contest_id,))
        if row is None:
            raise NotFound(f"contest {contest_id}")
        return await self._load(row)

    async def _load(self, row: tuple[Any, ...]) -> StoredContest:
        id_, chat_id, name, organiser_id, settings_json, seed_hex, opened_at, closed_at = row
        opened, closed = _time(opened_at), _time(closed_at)
        assert opened is not None
        contest = Contest(
            name=name,
            organiser_id=organiser_id,
            seed=DrawSeed.from_hex(seed_hex),
            opened_at=opened,
            settings=settings_from_json(settings_json),
            entries=await self._entries(id_),
            pairs=await self._pairs(id_),
            rounds=await self._rounds(id_),
            withdrawals=await self._withdrawals(id_),
            closed_at=closed,
        )
        return StoredContest(id_, chat_id, contest)

    async def _entries(self, contest_id: int) -> tuple[Entry, ...]:
        rows = await self._all(
            "SELECT user_id, name, partner_id, partner_name, confirmed, tag FROM contest_entries"
            " WHERE contest_id = ? ORDER BY id",
            (contest_id,),
        )
        return tuple(
            Entry(Player(uid, name), Player(pid, pname) if pid is not None else None, bool(ok), tag)
            for uid, name, pid, pname, ok, tag in rows
        )

    async def _pairs(self, contest_id: int) -> tuple[Pair, ...]:
        rows = await self._all(
            "SELECT number, user_a, name_a, user_b, name_b, by_lot, tag FROM contest_pairs"
            " WHERE contest_id = ? ORDER BY number",
            (contest_id,),
        )
        return tuple(
            Pair(n, (Player(ua, na), Player(ub, nb)), bool(lot), tag) for n, ua, na, ub, nb, lot, tag in rows
        )

    async def _rounds(self, contest_id: int) -> tuple[Round, ...]:
        rows = await self._all(
            "SELECT number, schedule, closes_at, zone, starts_at, venue, stage FROM contest_rounds"
            " WHERE contest_id = ? ORDER BY number",
            (contest_id,),
        )
        facts = await self._facts(contest_id)
        matches = await self._matches(contest_id, facts)
        byes = await self._all(
            "SELECT round, pair FROM contest_byes WHERE contest_id = ? ORDER BY rowid", (contest_id,)
        )
        clocks = await self._all(
            "SELECT round, table_no, started_at, minutes FROM contest_clocks WHERE contest_id = ?"
            " ORDER BY rowid",
            (contest_id,),
        )
        return tuple(
            Round(
                number,
                _schedule(kind, closes_at, zone, starts_at, venue),
                tuple(m for m in matches if m.round == number),
                tuple(pair for round_, pair in byes if round_ == number),
                Stage(stage),
                tuple(
                    TableClock(table, datetime.fromisoformat(at), minutes)
                    for round_, table, at, minutes in clocks
                    if round_ == number
                ),
            )
            for number, kind, closes_at, zone, starts_at, venue, stage in rows
        )

    async def _matches(self, contest_id: int, facts: dict[str, list[MatchFact]]) -> list[ContestMatch]:
        rows = await self._all(
            "SELECT round, table_no, code, pair_a, pair_b, kind FROM contest_matches"
            " WHERE contest_id = ? ORDER BY round, table_no",
            (contest_id,),
        )
        return [
            ContestMatch(r, t, code, (a, b), MatchKind(kind), tuple(facts.get(code, ())))
            for r, t, code, a, b, kind in rows
        ]

    async def _facts(self, contest_id: int) -> dict[str, list[MatchFact]]:
        rows = await self._all(
            f"SELECT {_FACT_COLUMNS} FROM contest_facts WHERE contest_id = ? ORDER BY id", (contest_id,)
        )
        facts: dict[str, list[MatchFact]] = {}
        for row in rows:
            facts.setdefault(row[0], []).append(_fact(row))
        return facts

    async def _withdrawals(self, contest_id: int) -> tuple[Withdrawal, ...]:
        rows = await self._all(
            "SELECT pair, by_user, at, reason FROM contest_withdrawals"
            " WHERE contest_id = ? ORDER BY at, rowid",
            (contest_id,),
        )
        return tuple(
            Withdrawal(pair, by, datetime.fromisoformat(at), WithdrawReason(reason))
            for pair, by, at, reason in rows
        )

    async def _one(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        return await self._conn.fetchone(sql, params)

    async def _all(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return await self._conn.fetchall(sql, params)


# ---------------------------------------------------------------- rows ↔ values


def _schedule(
    kind: str, closes_at: str | None, zone: str | None, starts_at: str | None, venue: str
) -> Schedule:
    moment = _time(closes_at)
    deadline = Deadline(moment, zone or "UTC") if moment is not None else None
    return Schedule(ScheduleKind(kind), deadline, _time(starts_at), venue)


def _fact(row: tuple[Any, ...]) -> MatchFact:
    _code, kind, at, by, winner, method, points_a, points_b, extra, reason, text, figures_json = row
    result = None
    if method is not None:
        points = (points_a, points_b) if points_a is not None and points_b is not None else None
        figures = MatchFigures.from_json(figures_json) if figures_json else None
        result = MatchResult(winner, PlayMethod(method), points, bool(extra), figures)
    return MatchFact(FactKind(kind), datetime.fromisoformat(at), by, result, reason, text)


def _events_of(contest: Contest) -> Iterable[Event]:
    """Events that rebuild an existing value's rows (for :meth:`ContestRepository.create`)."""
    yield from (SignedUp(entry) for entry in contest.entries)
    if contest.pairs:
        yield Drawn(contest.seed.hex, contest.pairs)
    for played in contest.rounds:
        bare = replace(played, matches=tuple(replace(m, facts=()) for m in played.matches), clocks=())
        yield RoundDrawn(bare)
        yield from (MatchUpdated(m, fact, MatchNote.REPORTED) for m in played.matches for fact in m.facts)
        if played.clocks:
            yield ClockStarted(played.number, played.clocks)
    yield from (PairWithdrew(w) for w in contest.withdrawals)


async def _exists(conn: Connection, contest_id: int) -> bool:
    return await conn.fetchone("SELECT 1 FROM contests WHERE id = ?", (contest_id,)) is not None


async def _write_event(conn: Connection, contest_id: int, event: Event) -> None:
    """The rows one event adds or changes; events with nothing to store are skipped."""
    match event:
        case SignedUp(entry):
            await _insert_entry(conn, contest_id, entry)
        case PartnerConfirmed(entry):  # the partner as well: it may take a stand-in's place (@username)
            await _replace_entry(conn, contest_id, entry.player.user_id, entry)
        case PartnerDeclined(entry):
            await _replace_entry(conn, contest_id, entry.player.user_id, entry)
        case Withdrew(_, removed, remaining):
            await _withdraw_entry(conn, contest_id, removed, remaining)
        case PairWithdrew(w):
            await conn.execute(
                "INSERT INTO contest_withdrawals (contest_id, pair, by_user, at, reason)"
                " VALUES (?, ?, ?, ?, ?)",
                (contest_id, w.number, w.by, _iso(w.at), w.reason.value),
            )
        case PartnerChanged(pair):
            await conn.execute(
                "DELETE FROM contest_pairs WHERE contest_id = ? AND number = ?",
                (contest_id, pair.number),
            )
            await _insert_pairs(conn, contest_id, (pair,))
        case Drawn(_, pairs):
            await _insert_pairs(conn, contest_id, pairs)
        case RoundDrawn(played):
            await _insert_round(conn, contest_id, played)
        case MatchUpdated(match, fact, _):
            await _insert_fact(conn, contest_id, match.code, fact)
        case DeadlineMoved(round_number, deadline):
            await _move_deadline(conn, contest_id, round_number, deadline)
        case ClockStarted(number, clocks):
            await conn.executemany(
                "INSERT INTO contest_clocks (contest_id, round, table_no, started_at, minutes)"
                " VALUES (?, ?, ?, ?, ?)",
                [(contest_id, number, c.table, _iso(c.started_at), c.minutes) for c in clocks],
            )
        case ContestClosed(at):
            await conn.execute("UPDATE contests SET closed_at = ? WHERE id = ?", (_iso(at), contest_id))


async def _insert_entry(conn: Connection, contest_id: int, entry: Entry) -> None:
    partner = entry.partner
    await conn.execute(
        "INSERT INTO contest_entries (contest_id, user_id, name, partner_id, partner_name, confirmed, tag)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            contest_id,
            entry.player.user_id,
            entry.player.name,
            partner.user_id if partner else None,
            partner.name if partner else None,
            int(entry.confirmed),
            entry.tag,
        ),
    )


async def _replace_entry(conn: Connection, contest_id: int, user_id: int, entry: Entry) -> None:
    """Rewrite one sign-up in place (keeping its position in the sign-up order)."""
    partner = entry.partner
    await conn.execute(
        "UPDATE contest_entries SET user_id = ?, name = ?, partner_id = ?, partner_name = ?, confirmed = ?,"
        " tag = ? WHERE contest_id = ? AND user_id = ?",
        (
            entry.player.user_id,
            entry.player.name,
            partner.user_id if partner else None,
            partner.name if partner else None,
            int(entry.confirmed),
            entry.tag,
            contest_id,
            user_id,
        ),
    )


async def _withdraw_entry(conn: Connection, contest_id: int, removed: Entry, remaining: Entry | None) -> None:
    if remaining is None:
        await conn.execute(
            "DELETE FROM contest_entries WHERE contest_id = ? AND user_id = ?",
            (contest_id, removed.player.user_id),
        )
    else:
        await _replace_entry(conn, contest_id, removed.player.user_id, remaining)


async def _insert_pairs(conn: Connection, contest_id: int, pairs: Sequence[Pair]) -> None:
    await conn.executemany(
        "INSERT INTO contest_pairs (contest_id, number, user_a, name_a, user_b, name_b, by_lot, tag)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                contest_id,
                p.number,
                p.players[0].user_id,
                p.players[0].name,
                p.players[1].user_id,
                p.players[1].name,
                int(p.by_lot),
                p.tag,
            )
            for p in pairs
        ],
    )


async def _insert_round(conn: Connection, contest_id: int, played: Round) -> None:
    schedule, deadline = played.schedule, played.schedule.deadline
    await conn.execute(
        "INSERT INTO contest_rounds (contest_id, number, schedule, closes_at, zone, starts_at, venue, stage)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            contest_id,
            played.number,
            schedule.kind.value,
            _iso(deadline.closes_at) if deadline else None,
            deadline.zone_name if deadline else None,
            _iso(schedule.starts_at),
            schedule.venue,
            played.stage,
        ),
    )
    await conn.executemany(
        "INSERT INTO contest_matches (contest_id, round, table_no, code, pair_a, pair_b, kind)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (contest_id, m.round, m.table, m.code, m.pairs[0], m.pairs[1], m.kind.value)
            for m in played.matches
        ],
    )
    await conn.executemany(
        "INSERT INTO contest_byes (contest_id, round, pair) VALUES (?, ?, ?)",
        [(contest_id, played.number, pair) for pair in played.byes],
    )


async def _insert_fact(conn: Connection, contest_id: int, code: str, fact: MatchFact) -> None:
    result = fact.result
    points = result.points if result is not None and result.points is not None else (None, None)
    await conn.execute(
        f"INSERT INTO contest_facts (contest_id, {_FACT_COLUMNS}) VALUES ({', '.join('?' * 13)})",
        (
            contest_id,
            code,
            fact.kind.value,
            _iso(fact.at),
            fact.by,
            result.winner if result else None,
            result.method.value if result else None,
            points[0],
            points[1],
            int(result.extra_deal) if result else 0,
            fact.reason,
            fact.text,
            result.figures.to_json() if result is not None and result.figures is not None else None,
        ),
    )


async def _move_deadline(
    conn: Connection, contest_id: int, round_number: int | None, deadline: Deadline
) -> None:
    if round_number is not None:
        await conn.execute(
            "UPDATE contest_rounds SET closes_at = ?, zone = ? WHERE contest_id = ? AND number = ?",
            (_iso(deadline.closes_at), deadline.zone_name, contest_id, round_number),
        )
        return
    row = await conn.fetchone("SELECT settings_json FROM contests WHERE id = ?", (contest_id,))
    assert row is not None
    settings = replace(settings_from_json(row[0]), deadline=deadline)
    await conn.execute(
        "UPDATE contests SET settings_json = ? WHERE id = ?", (settings_to_json(settings), contest_id)
    )
