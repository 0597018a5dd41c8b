"""The records' services in one value, held by the bot's services and handed to the record commands."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.records.keeper import RecordKeeper
from app.records.replays import Replays


@dataclass
class RecordDesk:
    """The records' services: the keeper (summaries, ratings), replays and who is known."""

    keeper: RecordKeeper
    replays: Replays
    known: dict[int, tuple[str | None, str]] = field(default_factory=dict)  # user → (username, name) stored
