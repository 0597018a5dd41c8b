"""The outbox: messages a chat is owed, stored before they are sent (migration 0004).

A row is added before the first attempt and deleted only once Telegram accepted the
message (or the chat can never take it). A row with a ``dedupe_key`` is enqueued at most
once, ever: the keys of delivered rows stay in ``outbox_done``, so re-announcing after a
restart what may have been lost is safe (the SELECTs cast their parameters: PostgreSQL cannot
tell their types from a select list). Each method is one statement (autocommit), except
:meth:`OutboxRepository.done`, whose two statements are ordered so that a crash between
them leaves a row that :meth:`OutboxRepository.pending` no longer returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storage.repositories import _now, _Repository

_COLUMNS = "id, chat_id, kind, payload_json, dedupe_key, attempts"


@dataclass(frozen=True, slots=True)
class OutboxRecord:
    id: int  # rows of one chat are delivered in id order
    chat_id: int
    kind: str
    payload_json: str
    dedupe_key: str | None
    attempts: int


def _record(row: tuple[Any, ...]) -> OutboxRecord:
    id_, chat_id, kind, payload_json, dedupe_key, attempts = row
    return OutboxRecord(
        id=id_,
        chat_id=chat_id,
        kind=kind,
        payload_json=payload_json,
        dedupe_key=dedupe_key,
        attempts=attempts,
    )


class OutboxRepository(_Repository):
    """Pending messages per chat, in the order they were enqueued."""

    async def add(
        self, *, chat_id: int, kind: str, payload_json: str, dedupe_key: str | None = None
    ) -> OutboxRecord | None:
        """Store one message; ``None`` if its key was enqueued before (pending or delivered)."""
        row = await self._conn.fetchone(
            "INSERT INTO outbox (chat_id, kind, payload_json, dedupe_key, created_at, bot_id)"
            " SELECT CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT),"
            " CAST(? AS BIGINT) WHERE NOT EXISTS (SELECT 1 FROM outbox_done WHERE dedupe_key = ?)"
            f" ON CONFLICT DO NOTHING RETURNING {_COLUMNS}",
            (chat_id, kind, payload_json, dedupe_key, _now(), self._bot_id, dedupe_key),
        )
        return _record(row) if row is not None else None

    async def pending(self) -> list[OutboxRecord]:
        """Every message this bot has not delivered yet, oldest first."""
        rows = await self._all(
            f"SELECT {_COLUMNS} FROM outbox WHERE bot_id = ? AND (dedupe_key IS NULL"
            " OR dedupe_key NOT IN (SELECT dedupe_key FROM outbox_done)) ORDER BY id",
            (self._bot_id,),
        )
        return [_record(row) for row in rows]

    async def failed(self, *, id: int, error: str) -> None:
        """Count a failed attempt (the row stays for the next one)."""
        await self._write(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?",
            (error[:500], id),
            f"outbox row {id}",
        )

    async def done(self, *, id: int) -> None:
        """Telegram accepted the message (or never will): remember its key, drop the row."""
        await self._write(
            "INSERT INTO outbox_done (dedupe_key, done_at)"
            " SELECT dedupe_key, CAST(? AS TEXT) FROM outbox WHERE id = ? AND dedupe_key IS NOT NULL"
            " ON CONFLICT DO NOTHING",
            (_now(), id),
            f"outbox row {id}",
        )
        await self._write("DELETE FROM outbox WHERE id = ?", (id,), f"outbox row {id}")
