"""Match records (issue 21): summaries of finished matches, per-seat figures, ratings and
the @usernames people are known by. Written once per match; every command reads these
rows with one indexed query, never an action log.

Records take plain values (``PlayerRow``), not engine types: the records service turns an
:class:`engine.records.MatchSummary` into them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from storage.backend import Connection, Dialect, Writer
from storage.errors import NotFound
from storage.repositories import _Repository

ANONYMOUS: Final = "anon"
"""The rating key of a seat whose person used /forgetme: never rated, never listed."""

_FIGURES: Final = (
    "deals, firsts, seconds, thirds, lasts, double_down_won, double_down_suffered, levels_gained,"
    " tributes_paid, tributes_received, anti_tributes"
)
_PLAYER_COLUMNS: Final = (
    f"table_id, seat, chat_id, user_id, name, is_ai, player, partner, partner_name, result, {_FIGURES}"
)


@dataclass(frozen=True, slots=True)
class Figures:
    """Counts summed over deals (one match's, or a player's whole record)."""

    deals: int = 0
    firsts: int = 0
    seconds: int = 0
    thirds: int = 0
    lasts: int = 0
    double_down_won: int = 0
    double_down_suffered: int = 0
    levels_gained: int = 0
    tributes_paid: int = 0
    tributes_received: int = 0
    anti_tributes: int = 0

    def values(self) -> tuple[int, ...]:
        return (
            self.deals,
            self.firsts,
            self.seconds,
            self.thirds,
            self.lasts,
            self.double_down_won,
            self.double_down_suffered,
            self.levels_gained,
            self.tributes_paid,
            self.tributes_received,
            self.anti_tributes,
        )


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """One seat of a recorded match."""

    seat: int
    user_id: int | None
    name: str
    is_ai: bool
    player: str  # rating key
    partner: str
    partner_name: str
    result: int | None  # 1 won, 0 lost, None no winner
    figures: Figures


@dataclass(frozen=True, slots=True)
class MatchRow:
    table_id: int
    chat_id: int
    preset: str
    ended_at: str
    winner_team: int | None
    reason: str
    deals: int
    summary_json: str
    players: tuple[PlayerRow, ...] = ()


@dataclass(frozen=True, slots=True)
class PartnerLine:
    partner: str
    name: str
    matches: int
    won: int


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """A player's record over a set of matches (one group, or everywhere)."""

    matches: int
    won: int
    drawn: int  # matches without a winner
    figures: Figures
    partners: tuple[PartnerLine, ...] = ()


@dataclass(frozen=True, slots=True)
class Rating:
    chat_id: int
    player: str
    name: str
    mu: float
    sigma: float
    matches: int


@dataclass(frozen=True, slots=True)
class KnownUser:
    user_id: int
    username: str | None
    name: str


def _player(row: Sequence[Any]) -> PlayerRow:
    _, seat, _, user_id, name, is_ai, player, partner, partner_name, result, *figures = row
    return PlayerRow(
        seat, user_id, name, bool(is_ai), player, partner, partner_name, result, Figures(*figures)
    )


def _match(row: Sequence[Any], players: tuple[PlayerRow, ...] = ()) -> MatchRow:
    table_id, chat_id, preset, ended_at, winner_team, reason, deals, summary_json = row
    return MatchRow(table_id, chat_id, preset, ended_at, winner_team, reason, deals, summary_json, players)


_COUNT_WON: Final = "COALESCE(SUM(CASE WHEN result = 1 THEN 1 ELSE 0 END), 0)"
"""Matches won (PostgreSQL has no SUM of a comparison, SQLite's 0 or 1)."""
_MATCH_COLUMNS: Final = "table_id, chat_id, preset, ended_at, winner_team, reason, deals, summary_json"


class RecordRepository(_Repository):
    """Finished matches' summaries and what is derived from them.

    Reads are single statements on the shared connection; a write of several rows runs in a
    transaction through the database's :class:`~storage.backend.Writer`, as contests' do, so it
    never takes in another handler's statement.
    """

    def __init__(self, conn: Connection, writer: Writer, *, bot_id: int = 0) -> None:
        super().__init__(conn, bot_id=bot_id)
        self._writer = writer

    async def write(self, match: MatchRow) -> None:
        """Store one match and its four seats in one transaction (or nothing, if it exists)."""
        async with self._writer.writing() as conn:
            added = await conn.execute(
                f"INSERT INTO match_records ({_MATCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (
                    match.table_id,
                    match.chat_id,
                    match.preset,
                    match.ended_at,
                    match.winner_team,
                    match.reason,
                    match.deals,
                    match.summary_json,
                ),
            )
            if added:
                await conn.executemany(
                    f"INSERT INTO match_players ({_PLAYER_COLUMNS}) VALUES ({', '.join('?' * 21)})",
                    [_player_params(match, player) for player in match.players],
                )

    async def missing(self) -> list[int]:
        """This bot's finished tables without a record (the back-fill's work), oldest first."""
        rows = await self._all(
            "SELECT id FROM game_tables WHERE bot_id = ? AND status = 'finished'"
            " AND id NOT IN (SELECT table_id FROM match_records) ORDER BY id",
            (self._bot_id,),
        )
        return [int(row[0]) for row in rows]

    async def last_action_time(self, *, table_id: int) -> str:
        """When a table's last action was stored: the end of a back-filled match."""
        row = await self._one(
            "SELECT COALESCE(MAX(created_at), (SELECT created_at FROM game_tables WHERE id = ?))"
            " FROM actions WHERE table_id = ?",
            (table_id, table_id),
            f"table {table_id}",
        )
        if row[0] is None:
            raise NotFound(f"table {table_id}")
        return str(row[0])

    async def get(self, *, table_id: int) -> MatchRow:
        row = await self._one(
            f"SELECT {_MATCH_COLUMNS} FROM match_records WHERE table_id = ?",
            (table_id,),
            f"record {table_id}",
        )
        players = await self._all(
            f"SELECT {_PLAYER_COLUMNS} FROM match_players WHERE table_id = ? ORDER BY seat", (table_id,)
        )
        return _match(row, tuple(_player(p) for p in players))

    async def recent(self, *, chat_id: int, limit: int, before: int | None = None) -> list[MatchRow]:
        """The group's last matches, newest first (``before``: older than that table id)."""
        rows = await self._all(
            f"SELECT {_MATCH_COLUMNS} FROM match_records WHERE chat_id = ? AND table_id < ?"
            " ORDER BY table_id DESC LIMIT ?",
            (chat_id, before if before is not None else 2**62, limit),
        )
        if not rows:
            return []
        ids = [row[0] for row in rows]
        players = await self._all(
            f"SELECT {_PLAYER_COLUMNS} FROM match_players WHERE table_id IN ({', '.join('?' * len(ids))})"
            " ORDER BY table_id, seat",
            tuple(ids),
        )
        seats: dict[int, list[PlayerRow]] = {}
        for player in players:
            seats.setdefault(int(player[0]), []).append(_player(player))
        return [_match(row, tuple(seats.get(row[0], ()))) for row in rows]

    async def recent_of_user(self, *, user_id: int, limit: int, before: int | None = None) -> list[MatchRow]:
        """A person's last matches in every group, newest first."""
        rows = await self._all(
            "SELECT table_id FROM match_players WHERE user_id = ? AND table_id < ?"
            " ORDER BY table_id DESC LIMIT ?",
            (user_id, before if before is not None else 2**62, limit),
        )
        return [await self.get(table_id=int(row[0])) for row in rows]

    async def chat_ids(self) -> list[int]:
        return [int(row[0]) for row in await self._all("SELECT DISTINCT chat_id FROM match_records", ())]

    async def of_chat(self, *, chat_id: int) -> list[MatchRow]:
        """Every recorded match of a group, oldest first (rebuilding its ratings)."""
        rows = await self._all(
            f"SELECT {_MATCH_COLUMNS} FROM match_records WHERE chat_id = ? ORDER BY table_id", (chat_id,)
        )
        players = await self._all(
            f"SELECT {_PLAYER_COLUMNS} FROM match_players WHERE chat_id = ? ORDER BY table_id, seat",
            (chat_id,),
        )
        seats: dict[int, list[PlayerRow]] = {}
        for player in players:
            seats.setdefault(int(player[0]), []).append(_player(player))
        return [_match(row, tuple(seats.get(row[0], ()))) for row in rows]

    # ---------------------------------------------------------------- a player's record

    async def totals(self, *, user_id: int, chat_id: int | None = None) -> PlayerTotals:
        """A person's record in one group (``chat_id``) or everywhere."""
        where, params = _scope(user_id, chat_id)
        sums = ", ".join(f"COALESCE(SUM({name.strip()}), 0)" for name in _FIGURES.split(","))
        row = await self._one(
            f"SELECT COUNT(*), {_COUNT_WON}, COALESCE(SUM(CASE WHEN result IS NULL THEN 1 ELSE 0 END), 0),"
            f" {sums}"
            f" FROM match_players WHERE {where}",
            params,
            f"user {user_id}",
        )
        partners = await self._all(
            f"SELECT partner, MAX(partner_name), COUNT(*), {_COUNT_WON} FROM match_players"
            f" WHERE {where} GROUP BY partner ORDER BY COUNT(*) DESC, partner LIMIT 10",
            params,
        )
        lines = tuple(PartnerLine(str(p), str(n), int(m), int(w)) for p, n, m, w in partners)
        return PlayerTotals(int(row[0]), int(row[1]), int(row[2]), Figures(*row[3:]), lines)

    async def latest_name(self, *, user_id: int) -> str:
        """The name a person last played under (raises NotFound if they never played)."""
        row = await self._one(
            "SELECT name FROM match_players WHERE user_id = ? ORDER BY table_id DESC LIMIT 1",
            (user_id,),
            f"user {user_id}",
        )
        return str(row[0])

    async def players_named(self, *, chat_id: int, name: str) -> list[int]:
        """People who played in the group under ``name`` (any case), most recent first."""
        rows = await self._all(
            "SELECT user_id FROM match_players WHERE chat_id = ? AND user_id IS NOT NULL"
            f" AND {self._same_text('name')} GROUP BY user_id ORDER BY MAX(table_id) DESC",
            (chat_id, name),
        )
        return [int(row[0]) for row in rows]

    def _same_text(self, column: str) -> str:
        """``column`` equals a parameter, ignoring case: SQLite's NOCASE (the column's index
        serves it), PostgreSQL's lower() (an index on lower(column) serves it)."""
        if self._conn.dialect is Dialect.SQLITE:
            return f"{column} = ? COLLATE NOCASE"
        return f"lower({column}) = lower(?)"

    # ---------------------------------------------------------------- ratings

    async def ratings(self, *, chat_id: int, players: Sequence[str]) -> dict[str, Rating]:
        if not players:
            return {}
        rows = await self._all(
            f"SELECT chat_id, player, name, mu, sigma, matches FROM ratings WHERE chat_id = ?"
            f" AND player IN ({', '.join('?' * len(players))})",
            (chat_id, *players),
        )
        return {str(row[1]): Rating(*row) for row in rows}

    async def put_ratings(self, ratings: Sequence[Rating]) -> None:
        async with self._writer.writing() as conn:
            await _put_ratings(conn, ratings)

    async def replace_ratings(self, *, chat_id: int, ratings: Sequence[Rating]) -> None:
        """A group's ratings rebuilt from its matches, swapped in one transaction."""
        async with self._writer.writing() as conn:
            await conn.execute("DELETE FROM ratings WHERE chat_id = ?", (chat_id,))
            await _put_ratings(conn, ratings)

    async def ranking(self, *, chat_id: int, min_matches: int, limit: int) -> list[Rating]:
        """The group's rated players with enough matches, best conservative figure first."""
        rows = await self._all(
            "SELECT chat_id, player, name, mu, sigma, matches FROM ratings WHERE chat_id = ?"
            " AND matches >= ? ORDER BY mu - 3 * sigma DESC, matches DESC, player LIMIT ?",
            (chat_id, min_matches, limit),
        )
        return [Rating(*row) for row in rows]

    async def rating(self, *, chat_id: int, player: str) -> Rating:
        row = await self._one(
            "SELECT chat_id, player, name, mu, sigma, matches FROM ratings WHERE chat_id = ? AND player = ?",
            (chat_id, player),
            f"rating of {player}",
        )
        return Rating(*row)

    # ---------------------------------------------------------------- 复盘点评

    async def coaching(self, *, table_id: int, deal: int, seat: int, judge: str) -> str:
        """The stored 点评 (JSON) of a seat's deal by ``judge``; NotFound if none is stored."""
        row = await self._one(
            "SELECT coaching_json FROM coaching WHERE table_id = ? AND deal = ? AND seat = ? AND judge = ?",
            (table_id, deal, seat, judge),
            f"coaching {table_id}/{deal}/{seat}",
        )
        return str(row[0])

    async def put_coaching(self, *, table_id: int, deal: int, seat: int, judge: str, text: str) -> None:
        """Keep a computed 点评 (a newer judge's replaces an older one's)."""
        await self._write(
            "INSERT INTO coaching (table_id, deal, seat, judge, coaching_json) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (table_id, deal, seat) DO UPDATE SET judge = excluded.judge,"
            " coaching_json = excluded.coaching_json",
            (table_id, deal, seat, judge, text),
            f"coaching {table_id}/{deal}/{seat}",
        )

    # ---------------------------------------------------------------- who is who

    async def note_user(self, *, user_id: int, username: str | None, name: str) -> None:
        await self._write(
            "INSERT INTO known_users (user_id, username, name) VALUES (?, ?, ?) ON CONFLICT (user_id)"
            " DO UPDATE SET username = excluded.username, name = excluded.name",
            (user_id, username, name),
            f"user {user_id}",
        )

    async def by_username(self, *, username: str) -> KnownUser:
        row = await self._one(
            f"SELECT user_id, username, name FROM known_users WHERE {self._same_text('username')}",
            (username,),
            f"@{username}",
        )
        return KnownUser(*row)

    async def forget(self, *, user_id: int) -> int:
        """/forgetme: blank the person's name and unlink their id everywhere it is kept; the
        matches stay for the other players. Returns how many match seats were anonymised."""
        key = f"u:{user_id}"
        async with self._writer.writing() as conn:
            seats = await conn.execute(
                "UPDATE match_players SET user_id = NULL, name = '', player = ? WHERE user_id = ?",
                (ANONYMOUS, user_id),
            )
            await conn.execute(
                "UPDATE match_players SET partner = ?, partner_name = '' WHERE partner = ?", (ANONYMOUS, key)
            )
            await conn.execute("DELETE FROM ratings WHERE player = ?", (key,))
            await conn.execute("DELETE FROM known_users WHERE user_id = ?", (user_id,))
            await conn.execute("DELETE FROM users WHERE user_id = ?", (user_id,))
            await conn.execute(
                "UPDATE seats SET user_id = NULL, name = '' WHERE user_id = ? AND table_id IN"
                " (SELECT id FROM game_tables WHERE status NOT IN ('lobby', 'playing'))",
                (user_id,),
            )
            await conn.execute(
                "UPDATE game_tables SET creator_id = 0"
                " WHERE creator_id = ? AND status NOT IN ('lobby', 'playing')",
                (user_id,),
            )
        return seats

    async def stored_about(self, *, user_id: int) -> tuple[int, int]:
        """(match seats, groups) stored under this person's id: what /forgetme would remove."""
        row = await self._one(
            "SELECT COUNT(*), COUNT(DISTINCT chat_id) FROM match_players WHERE user_id = ?",
            (user_id,),
            f"user {user_id}",
        )
        return int(row[0]), int(row[1])


async def _put_ratings(conn: Connection, ratings: Sequence[Rating]) -> None:
    await conn.executemany(
        "INSERT INTO ratings (chat_id, player, name, mu, sigma, matches) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (chat_id, player) DO UPDATE SET name = excluded.name, mu = excluded.mu,"
        " sigma = excluded.sigma, matches = excluded.matches",
        [(r.chat_id, r.player, r.name, r.mu, r.sigma, r.matches) for r in ratings],
    )


def _scope(user_id: int, chat_id: int | None) -> tuple[str, tuple[Any, ...]]:
    if chat_id is None:
        return "user_id = ?", (user_id,)
    return "user_id = ? AND chat_id = ?", (user_id, chat_id)


def _player_params(match: MatchRow, player: PlayerRow) -> tuple[Any, ...]:
    return (
        match.table_id,
        player.seat,
        match.chat_id,
        player.user_id,
        player.name,
        int(player.is_ai),
        player.player,
        player.partner,
        player.partner_name,
        player.result,
        *player.figures.values(),
    )


__all__ = ["ANONYMOUS", "Figures", "KnownUser", "MatchRow", "NotFound", "PlayerRow", "PlayerTotals", "Rating"]
