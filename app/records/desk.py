"""The records' services in one value, held by the bot's services and handed to the record commands."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.records.coaching import Coach
from app.records.keeper import RecordKeeper
from app.records.players import PlayerRecords
from app.records.replays import Replays
from app.tasks import Tasks


@dataclass
class RecordDesk:
    """The records' services: the keeper (summaries, ratings), replays, their 点评, and the
    players' figures and who is who."""

    keeper: RecordKeeper
    replays: Replays
    coach: Coach
    players: PlayerRecords
    tasks: Tasks = field(default_factory=Tasks)  # 点评 judged after the press was answered

    async def forget(self, user_id: int) -> int:
        """/forgetme: the person's records made anonymous and nothing of them kept in memory;
        the number of seats changed."""
        seats = await self.players.forget(user_id)
        self.replays.forget_user(user_id)
        return seats

    async def close(self) -> None:
        """The bot is stopping: judging under way is cancelled, then the judge's worker stops."""
        await self.tasks.close()
        self.coach.close()
