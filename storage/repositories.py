"""One repository per aggregate. Methods take keyword-only arguments, run one
statement each (autocommit) and return domain records; a missing row raises
:class:`NotFound`. The statements are the same for SQLite and PostgreSQL
(:mod:`storage.backend`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from storage.backend import Connection
from storage.errors import NotFound, StorageConflict, StorageUnavailable
from storage.models import ActionRecord, ChatRecord, SeatRecord, TableRecord, TableStatus, UserRecord

_TABLE_COLUMNS = (
    "id, chat_id, token, creator_id, status, preset, rules_json, seed, lobby_message_id, board_message_id,"
    " started_at, status_reason, board_deal, board_first"
)
MAX_REASON = 500  # characters of a quarantine reason kept (an exception's first lines)
_CHUNK = 500  # rows per INSERT: 2,500 parameters, far below SQLite's and PostgreSQL's limits
_SEAT_COLUMNS = "table_id, seat, user_id, name, is_ai, locale, dm_message_id, autoplay, timeouts, difficulty"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _table(row: Iterable[Any]) -> TableRecord:
    id_, chat_id, token, creator_id, status, preset, rules_json, seed, lobby_id, board_id, *rest = row
    started, reason, board_deal, board_first = rest
    return TableRecord(
        id=id_,
        chat_id=chat_id,
        token=token,
        creator_id=creator_id,
        status=TableStatus(status),
        preset=preset,
        rules_json=rules_json,
        seed=seed,
        lobby_message_id=lobby_id,
        board_message_id=board_id,
        started_at=datetime.fromisoformat(started) if started else None,
        status_reason=reason,
        board_deal=board_deal,
        board_first=board_first,
    )


def _seat(row: Iterable[Any]) -> SeatRecord:
    table_id, seat, user_id, name, is_ai, locale, dm_id, autoplay, timeouts, difficulty = row
    return SeatRecord(
        table_id=table_id,
        seat=seat,
        user_id=user_id,
        name=name,
        is_ai=bool(is_ai),
        locale=locale,
        dm_message_id=dm_id,
        autoplay=bool(autoplay),
        timeouts=timeouts,
        difficulty=difficulty,
    )


class _Repository:
    def __init__(self, conn: Connection, *, bot_id: int = 0) -> None:
        self._conn = conn
        # The bot whose tables and outbox rows this repository reads and writes (migration
        # 0015: several bots may share one store); 0 for an embedding of one bot.
        self._bot_id = bot_id

    async def _one(self, sql: str, params: tuple[Any, ...], what: str) -> tuple[Any, ...]:
        row = await self._conn.fetchone(sql, params)
        if row is None:
            raise NotFound(what)
        return row

    async def _all(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return await self._conn.fetchall(sql, params)

    async def _insert(self, sql: str, params: tuple[Any, ...], what: str) -> None:
        """Run one INSERT the quickest way (:meth:`Connection.insert`): the action log's writes
        are on every press's path."""
        try:
            await self._conn.insert(sql, params)
        except StorageConflict as error:
            raise StorageConflict(f"{what}: {error}") from error

    async def _write(self, sql: str, params: tuple[Any, ...], what: str) -> int:
        """Run one write; return its rowcount."""
        try:
            return await self._conn.execute(sql, params)
        except StorageConflict as error:
            raise StorageConflict(f"{what}: {error}") from error


class TableRepository(_Repository):
    """Game tables: one per lobby/match in a group chat."""

    async def create(
        self, *, chat_id: int, token: str, creator_id: int, preset: str, rules_json: str, seed: int
    ) -> TableRecord:
        """A new table in the lobby; a second active table in the chat is a conflict."""
        try:
            row = await self._conn.fetchone(
                "INSERT INTO game_tables (chat_id, token, creator_id, status, preset, rules_json, seed,"
                f" created_at, bot_id) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?) RETURNING {_TABLE_COLUMNS}",
                (chat_id, token, creator_id, preset, rules_json, seed, _now(), self._bot_id),
            )
        except StorageConflict as error:
            raise StorageConflict(f"chat {chat_id} already has an active table") from error
        assert row is not None
        return _table(row)

    async def get(self, *, table_id: int) -> TableRecord:
        row = await self._one(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE id = ?", (table_id,), f"table {table_id}"
        )
        return _table(row)

    async def by_token(self, *, token: str) -> TableRecord:
        row = await self._one(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE token = ?", (token,), f"token {token}"
        )
        return _table(row)

    async def active_in_chat(self, *, chat_id: int) -> TableRecord:
        row = await self._one(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables"
            " WHERE bot_id = ? AND chat_id = ? AND status IN ('lobby', 'playing')",
            (self._bot_id, chat_id),
            f"active table in chat {chat_id}",
        )
        return _table(row)

    async def unfinished(self) -> list[tuple[int, int]]:
        """This bot's tables to resume on start, lobbies and matches in progress, as (id, chat id): each is
        then read on its own, so one damaged row cannot keep the others from resuming."""
        rows = await self._all(
            "SELECT id, chat_id FROM game_tables WHERE bot_id = ? AND status IN ('lobby', 'playing')"
            " ORDER BY id",
            (self._bot_id,),
        )
        return [(int(id_), int(chat_id)) for id_, chat_id in rows]

    async def left_boards(self) -> list[TableRecord]:
        """This bot's tables whose live board message a previous run left open, with its deal
        stored: a restart goes on with each (``handlers/table/board.py``), ended tables included."""
        rows = await self._all(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables"
            " WHERE bot_id = ? AND board_message_id IS NOT NULL AND board_deal IS NOT NULL ORDER BY id",
            (self._bot_id,),
        )
        return [_table(row) for row in rows]

    async def set_status(self, *, table_id: int, status: TableStatus) -> None:
        await self._update(table_id, "status = ?", (status.value,))

    async def quarantine(self, *, table_id: int, reason: str) -> None:
        """The table cannot be resumed: it leaves play (and the group may open another), kept
        with ``reason`` for whoever looks into it."""
        await self._update(
            table_id, "status = ?, status_reason = ?", (TableStatus.QUARANTINED.value, reason[:MAX_REASON])
        )

    async def start(self, *, table_id: int) -> None:
        """The match was dealt: status playing, and the clock's start is now."""
        await self._update(table_id, "status = 'playing', started_at = ?", (_now(),))

    async def set_rules(self, *, table_id: int, preset: str, rules_json: str) -> None:
        await self._update(table_id, "preset = ?, rules_json = ?", (preset, rules_json))

    async def set_lobby_message(self, *, table_id: int, message_id: int | None) -> None:
        await self._update(table_id, "lobby_message_id = ?", (message_id,))

    async def set_board_message(
        self, *, table_id: int, message_id: int | None, deal: int | None = None, first: int = 0
    ) -> None:
        """The live board message, the deal it shows and its first trick (see 0014_board_range)."""
        await self._update(
            table_id, "board_message_id = ?, board_deal = ?, board_first = ?", (message_id, deal, first)
        )

    async def _update(self, table_id: int, assignments: str, params: tuple[Any, ...]) -> None:
        count = await self._write(
            f"UPDATE game_tables SET {assignments} WHERE id = ?", (*params, table_id), f"table {table_id}"
        )
        if count == 0:
            raise NotFound(f"table {table_id}")


class SeatRepository(_Repository):
    """The four seats of a table: a human (user id) or an AI, plus 托管 and DM state."""

    async def take(
        self,
        *,
        table_id: int,
        seat: int,
        user_id: int | None,
        name: str,
        is_ai: bool = False,
        locale: str | None = None,
        difficulty: str = "normal",
    ) -> SeatRecord:
        """Occupy an empty seat; a taken seat or a user already seated is a conflict."""
        await self._write(
            f"INSERT INTO seats ({_SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, 0, 0, ?)",
            (table_id, seat, user_id, name, int(is_ai), locale, difficulty),
            f"seat {seat} of table {table_id}",
        )
        return await self.get(table_id=table_id, seat=seat)

    async def leave(self, *, table_id: int, seat: int) -> None:
        count = await self._write(
            "DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat), f"seat {seat}"
        )
        if count == 0:
            raise NotFound(f"seat {seat} of table {table_id}")

    async def get(self, *, table_id: int, seat: int) -> SeatRecord:
        row = await self._one(
            f"SELECT {_SEAT_COLUMNS} FROM seats WHERE table_id = ? AND seat = ?",
            (table_id, seat),
            f"seat {seat} of table {table_id}",
        )
        return _seat(row)

    async def of_table(self, *, table_id: int) -> list[SeatRecord]:
        rows = await self._all(
            f"SELECT {_SEAT_COLUMNS} FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
        )
        return [_seat(row) for row in rows]

    async def set_dm_message(self, *, table_id: int, seat: int, message_id: int | None) -> None:
        await self._update(table_id, seat, "dm_message_id = ?", (message_id,))

    async def set_autoplay(self, *, table_id: int, seat: int, autoplay: bool, timeouts: int) -> None:
        await self._update(table_id, seat, "autoplay = ?, timeouts = ?", (int(autoplay), timeouts))

    async def set_difficulty(self, *, table_id: int, seat: int, difficulty: str) -> None:
        """An AI seat's player (``easy`` or ``normal``); anything else breaks the column's check."""
        await self._update(table_id, seat, "difficulty = ?", (difficulty,))

    async def set_locale(self, *, table_id: int, seat: int, locale: str | None) -> None:
        await self._update(table_id, seat, "locale = ?", (locale,))

    async def _update(self, table_id: int, seat: int, assignments: str, params: tuple[Any, ...]) -> None:
        count = await self._write(
            f"UPDATE seats SET {assignments} WHERE table_id = ? AND seat = ?",
            (*params, table_id, seat),
            f"seat {seat}",
        )
        if count == 0:
            raise NotFound(f"seat {seat} of table {table_id}")


class ActionLog(_Repository):
    """The accepted actions of each table, in version order: the match's only record."""

    async def append(self, *, table_id: int, version: int, seat: int | None, action_json: str) -> None:
        """Write (and commit) one accepted action; a repeated version is a conflict."""
        await self._insert(
            "INSERT INTO actions (table_id, version, seat, action_json, created_at) VALUES (?, ?, ?, ?, ?)",
            (table_id, version, seat, action_json, _now()),
            f"action {version} of table {table_id}",
        )

    async def append_many(self, *, table_id: int, actions: Sequence[tuple[int, int | None, str]]) -> None:
        """Write (version, seat, action JSON) rows in order, one statement per chunk.

        Each statement commits atomically; chunks go oldest first, so a failure can only
        leave a prefix of the log, which still replays.
        """
        now = _now()
        for start in range(0, len(actions), _CHUNK):
            chunk = actions[start : start + _CHUNK]
            rows = ", ".join("(?, ?, ?, ?, ?)" for _ in chunk)
            params = tuple(
                value for version, seat, text in chunk for value in (table_id, version, seat, text, now)
            )
            try:
                await self._insert(
                    f"INSERT INTO actions (table_id, version, seat, action_json, created_at) VALUES {rows}",
                    params,
                    f"actions {chunk[0][0]}..{chunk[-1][0]} of table {table_id}",
                )
            except StorageUnavailable as error:
                error.written = start
                raise

    async def of_table(self, *, table_id: int) -> list[ActionRecord]:
        rows = await self._all(
            "SELECT table_id, version, seat, action_json FROM actions WHERE table_id = ? ORDER BY version",
            (table_id,),
        )
        return [ActionRecord(table_id=r[0], version=r[1], seat=r[2], action_json=r[3]) for r in rows]


class UserRepository(_Repository):
    """Per-user preferences and whether the bot may message them privately."""

    async def get(self, *, user_id: int) -> UserRecord:
        row = await self._one(
            "SELECT user_id, locale, four_color, reachable, auto_pass, group_hand FROM users"
            " WHERE user_id = ?",
            (user_id,),
            f"user {user_id}",
        )
        return UserRecord(
            user_id=row[0],
            locale=row[1],
            four_color=bool(row[2]),
            reachable=bool(row[3]),
            auto_pass=bool(row[4]),
            group_hand=bool(row[5]),
        )

    async def set_reachable(self, *, user_id: int, reachable: bool) -> None:
        await self._write(
            "INSERT INTO users (user_id, reachable) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET reachable = excluded.reachable",
            (user_id, int(reachable)),
            f"user {user_id}",
        )

    async def set_locale(self, *, user_id: int, locale: str | None) -> None:
        await self._write(
            "INSERT INTO users (user_id, locale) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale",
            (user_id, locale),
            f"user {user_id}",
        )

    async def set_four_color(self, *, user_id: int, four_color: bool) -> None:
        await self._write(
            "INSERT INTO users (user_id, four_color) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET four_color = excluded.four_color",
            (user_id, int(four_color)),
            f"user {user_id}",
        )

    async def set_group_hand(self, *, user_id: int, group_hand: bool) -> None:
        await self._write(
            "INSERT INTO users (user_id, group_hand) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET group_hand = excluded.group_hand",
            (user_id, int(group_hand)),
            f"user {user_id}",
        )

    async def set_auto_pass(self, *, user_id: int, auto_pass: bool) -> None:
        await self._write(
            "INSERT INTO users (user_id, auto_pass) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET auto_pass = excluded.auto_pass",
            (user_id, int(auto_pass)),
            f"user {user_id}",
        )


class ChatRepository(_Repository):
    """Per-group settings (the board's language)."""

    async def get(self, *, chat_id: int) -> ChatRecord:
        row = await self._one(
            "SELECT chat_id, locale FROM chats WHERE chat_id = ?", (chat_id,), f"chat {chat_id}"
        )
        return ChatRecord(chat_id=row[0], locale=row[1])

    async def set_locale(self, *, chat_id: int, locale: str | None) -> None:
        await self._write(
            "INSERT INTO chats (chat_id, locale) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET locale = excluded.locale",
            (chat_id, locale),
            f"chat {chat_id}",
        )
