"""The bridge from bot tables to their contest: a contest table's finished match reports its
result, the lobby names its match, and on start a table that finished while its result was not
recorded (a crash between the two writes) reports then. Telegram-free (issue 19)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from app.contest import texts
from app.contest.announcements import Announcement, Refused
from app.contest.args import ArgProblem
from app.contest.problems import Problem
from app.contest.service import Clock, Command
from app.contest.store import ContestStore, HeldContest
from app.contest.views import plain
from app.table.tables import LiveTable, decode_action
from engine.contest import (
    Contest,
    ContestError,
    ContestMatch,
    MatchStatus,
    Step,
    record_bot_result,
    result_from_match,
    unreported,
)
from engine.match import Match
from engine.rules import Rules
from storage import TableStatus

log = logging.getLogger(__name__)

Runner = Callable[[int, Command], Awaitable[tuple[HeldContest, Step]]]
Notify = Callable[[int, Announcement, str], None]
"""Post an announcement to a chat (not the contest's group: the table's) under an outbox key."""


@dataclass
class BotTables:
    store: ContestStore
    run: Runner
    clock: Clock
    notify: Notify
    table_matches: dict[int, tuple[Contest, ContestMatch]] = field(default_factory=dict)
    """Open contest tables → their contest and match, for the lobby's heading."""

    async def on_table_finished(self, table: LiveTable) -> None:
        """A table hook: a contest table's match ended; its result reports itself."""
        link = await self.store.db.contest_links.table(table_id=table.id)
        if link is None or table.match is None:
            return
        await self.record_table(
            link.contest_id, link.code, link.team0_pair, table.match, table.record.chat_id
        )

    async def record_table(
        self, contest_id: int, code: str, team0_pair: int, match: Match, chat_id: int
    ) -> None:
        def command(contest: Contest) -> Step:
            pairs = contest.match_by_code(code).pairs
            result = result_from_match(match, pairs=pairs, team0_pair=team0_pair)
            return record_bot_result(contest, code=code, result=result, now=self.clock())

        try:
            await self.run(contest_id, command)
        except ContestError as error:
            log.info("contest %s: the result of table for %s was refused: %s", contest_id, code, error)
            zh, en = (plain(texts.refusal_text(error.code, loc)) for loc in ("zh", "en"))
            self.notify(chat_id, Refused(zh, en), f"contest:{contest_id}:refused:{code}:{chat_id}")

    async def reconcile(self, stored: HeldContest) -> None:
        """On start: a contest table that finished while its result was not recorded reports now."""
        for match in unreported(stored.contest):
            for link, status, chat_id in await self.store.db.contest_links.tables_of_code(code=match.code):
                if TableStatus(status).is_active:
                    self.table_matches[link.table_id] = (stored.contest, match)
                if status != TableStatus.FINISHED.value:
                    continue
                record = await self.store.db.tables.get(table_id=link.table_id)
                rows = await self.store.db.actions.of_table(table_id=link.table_id)
                replayed = Match.replay(
                    Rules.from_json(record.rules_json),
                    record.seed,
                    [(row.seat, decode_action(row.action_json)) for row in rows],
                )
                if replayed.is_over:
                    await self.record_table(stored.id, match.code, link.team0_pair, replayed, chat_id)
                    break

    async def match_to_open(self, code: str, user_id: int) -> tuple[HeldContest, ContestMatch]:
        """The contest and match whose bot table ``user_id`` asks to open, or why not
        (:class:`ArgProblem`): an unknown code, a match not pending in the current round, a
        table for it already open, or someone who does not play in it."""
        found = await self.store.by_code(code)
        if found is None:
            raise ArgProblem(Problem.UNKNOWN_MATCH_CODE)
        held, match = found
        contest = held.contest
        current = contest.current_round
        if contest.closed_at is not None or current is None or match.round != current.number:
            raise ArgProblem(Problem.MATCH_NOT_PENDING)
        if match.status is not MatchStatus.PENDING:
            raise ArgProblem(Problem.MATCH_NOT_PENDING)
        players = {uid for n in match.pairs for uid in contest.pair(n).user_ids}
        if user_id not in players:
            raise ArgProblem(Problem.NOT_IN_MATCH)
        if await self.store.match_table_open(match.code):
            raise ArgProblem(Problem.MATCH_TABLE_OPEN)
        return held, match

    async def opened(self, table_id: int, held: HeldContest, match: ContestMatch) -> None:
        """Bot table ``table_id`` now plays ``match``: linked (its result reports itself, the
        first pair of the pairing at seats 0 and 2) and named in its lobby."""
        first = held.contest.pair(match.pairs[0])
        await self.store.link_table(table_id, held.id, match.code, first.number)
        self.table_matches[table_id] = (held.contest, match)

    def lobby_heading(self, table: LiveTable, locale: str) -> str | None:
        """A table hook: a contest table's lobby says which match it is (pairs, numbers, code)."""
        found = self.table_matches.get(table.id)
        return texts.table_heading(*found, locale) if found is not None else None
