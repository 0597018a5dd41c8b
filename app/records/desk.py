"""The records' services in one value, held by the bot's services and handed to the record commands."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.records.coaching import Coach
from app.records.keeper import RecordKeeper
from app.records.replays import Replays


@dataclass
class RecordDesk:
    """The records' services: the keeper (summaries, ratings), replays, their 点评 and who is known."""

    keeper: RecordKeeper
    replays: Replays
    coach: Coach
    known: dict[int, tuple[str | None, str]] = field(default_factory=dict)  # user → (username, name) stored
