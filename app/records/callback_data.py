"""Callback data of the records' buttons: ``r:OP:ARGS`` (≤ 64 bytes).

``r:v:T`` opens match T's replay, ``r:x:T`` exports its transcript, ``r:s:T:SHOWN:TO`` steps a
replay showing step SHOWN to step TO (a press whose SHOWN is not what the message shows is
stale), ``r:c:T:SHOWN`` asks for the 点评 of the deal a replay showing step SHOWN is at,
``r:o:T`` lists matches older than T, ``r:f:y`` / ``r:f:n`` answer /forgetme.

A deal's hand message, once the deal has ended, carries ``r:d:T:N``: the presser's own replay of
table T's deals 1 to N, at deal N, while the match may go on. That replay's buttons carry N too —
``r:ds:T:N:SHOWN:TO`` and ``r:dc:T:N:SHOWN`` — so they step and coach within those deals only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class RecordOp(Enum):
    REPLAY = "v"
    EXPORT = "x"
    STEP = "s"
    COACH = "c"
    OLDER = "o"
    FORGET = "f"
    DEAL = "d"  # a finished deal's replay, from its hand message
    DEAL_STEP = "ds"
    DEAL_COACH = "dc"


_ARITY = {
    RecordOp.REPLAY: 1,
    RecordOp.EXPORT: 1,
    RecordOp.STEP: 3,
    RecordOp.COACH: 2,
    RecordOp.OLDER: 1,
    RecordOp.FORGET: 1,
    RecordOp.DEAL: 2,
    RecordOp.DEAL_STEP: 4,
    RecordOp.DEAL_COACH: 3,
}


class BadRecordButton(ValueError):
    """Data this bot did not make."""


@dataclass(frozen=True, slots=True)
class RecordPress:
    op: RecordOp
    args: tuple[int, ...]

    def encode(self) -> str:
        return ":".join(["r", self.op.value, *(str(arg) for arg in self.args)])

    @classmethod
    def decode(cls, data: str) -> RecordPress:
        parts = data.split(":")
        try:
            op = RecordOp(parts[1]) if len(parts) > 1 and parts[0] == "r" else None
        except ValueError:
            op = None
        if op is None or len(parts) != 2 + _ARITY[op]:
            raise BadRecordButton(data)
        if op is RecordOp.FORGET:
            if parts[2] not in ("y", "n"):
                raise BadRecordButton(data)
            return cls(op, (int(parts[2] == "y"),))
        if not all(part.isascii() and part.isdigit() and len(part) <= 12 for part in parts[2:]):
            raise BadRecordButton(data)
        return cls(op, tuple(int(part) for part in parts[2:]))


def replay(table_id: int) -> str:
    return RecordPress(RecordOp.REPLAY, (table_id,)).encode()


def export(table_id: int) -> str:
    return RecordPress(RecordOp.EXPORT, (table_id,)).encode()


def step(table_id: int, shown: int, target: int, through: int | None = None) -> str:
    """◀ ▶ of a finished match's replay, or (``through``) of a replay of its deals 1 to N."""
    if through is not None:
        return RecordPress(RecordOp.DEAL_STEP, (table_id, through, shown, target)).encode()
    return RecordPress(RecordOp.STEP, (table_id, shown, target)).encode()


def coach(table_id: int, shown: int, through: int | None = None) -> str:
    if through is not None:
        return RecordPress(RecordOp.DEAL_COACH, (table_id, through, shown)).encode()
    return RecordPress(RecordOp.COACH, (table_id, shown)).encode()


def deal(table_id: int, deal_number: int) -> str:
    """The button of deal ``deal_number``'s hand message once it has ended: its replay."""
    return RecordPress(RecordOp.DEAL, (table_id, deal_number)).encode()


def older(table_id: int) -> str:
    return RecordPress(RecordOp.OLDER, (table_id,)).encode()


def forget(confirm: bool) -> str:
    return f"r:f:{'y' if confirm else 'n'}"
