"""Callback data of contest buttons: ``k:<op>:<contest id>[:<arg>]`` (at most 64 bytes).

A match code is 8 symbols and a contest id a few digits, so every button fits easily.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

PREFIX = "k"
MAX_BYTES = 64


class ContestOp(Enum):
    SIGN_UP = "su"
    WITHDRAW = "wd"
    PARTNER_YES = "py"  # the invited partner accepts
    PARTNER_NO = "pn"
    CONFIRM = "ok"  # 确认 a report (arg: match code)
    DISPUTE = "no"  # 有异议 (arg: match code)
    CLOSE_YES = "cy"  # /round close, confirmed
    CLOSE_NO = "cn"
    PLAY = "pl"  # open a bot table for the match (arg: match code)
    STANDINGS = "st"
    DRAW = "dr"
    MIRROR = "mw"  # /contest wechat in private: this contest gets the webhook just sent
    SHEET_OPEN = "so"  # the pairing message's 📝: open the match's score sheet privately (arg: code)
    SHEET = "sh"  # a score sheet button (arg: "CODE.VERSION.KEY", handlers/contest/sheets.py)


class BadContestButton(ValueError):
    """Callback data that no contest button of this bot carries."""


@dataclass(frozen=True, slots=True)
class ContestPress:
    op: ContestOp
    contest_id: int
    arg: str = ""

    def encode(self) -> str:
        data = f"{PREFIX}:{self.op.value}:{self.contest_id}" + (f":{self.arg}" if self.arg else "")
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    @classmethod
    def decode(cls, data: str) -> ContestPress:
        parts = data.split(":")
        if len(parts) not in (3, 4) or parts[0] != PREFIX or not parts[2].isdigit():
            raise BadContestButton(data)
        try:
            op = ContestOp(parts[1])
        except ValueError as error:
            raise BadContestButton(data) from error
        return cls(op, int(parts[2]), parts[3] if len(parts) == 4 else "")
