"""Writing the records: a summary when a match ends, the back-fill of older matches, ratings.

No Telegram here. :meth:`RecordKeeper.on_table_finished` is a finished-match hook of the
table service (called with the table's lock held, after the last action is stored); if it
cannot write, the match is simply back-filled on the next start, because the back-fill
takes every finished table without a record and replays its log once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from app.records.rating import NEW, Skill, rate_match
from app.table.tables import LiveTable, decode_action
from engine.actions import partner_of, team_of
from engine.match import Match
from engine.records import MatchSummary, summarize
from engine.rules import Rules
from storage import Database, SeatRecord, TableRecord
from storage.records import ANONYMOUS, Figures, MatchRow, PlayerRow, Rating

log = logging.getLogger(__name__)


def player_key(seat: SeatRecord) -> str:
    """The rating key of a seat: the person, or the computer player at its difficulty."""
    if seat.is_ai or seat.user_id is None:
        return f"ai:{seat.difficulty}" if seat.is_ai else ANONYMOUS
    return f"u:{seat.user_id}"


def match_row(
    record: TableRecord, seats: Sequence[SeatRecord], summary: MatchSummary, ended_at: str
) -> MatchRow:
    """The rows stored for one finished match."""
    by_seat = {seat.seat: seat for seat in seats}
    players = tuple(_player_row(by_seat, seat, summary) for seat in sorted(by_seat))
    return MatchRow(
        record.id,
        record.chat_id,
        record.preset,
        ended_at,
        summary.winner_team,
        summary.reason,
        len(summary.deals),
        summary.to_json(),
        players,
    )


def _player_row(by_seat: dict[int, SeatRecord], seat: int, summary: MatchSummary) -> PlayerRow:
    me, partner = by_seat[seat], by_seat.get(partner_of(seat))
    tally = summary.tally(seat)
    result = None if summary.winner_team is None else int(summary.winner_team == team_of(seat))
    figures = Figures(
        tally.deals,
        *tally.places,
        tally.double_down_won,
        tally.double_down_suffered,
        tally.levels_gained,
        tally.tributes_paid,
        tally.tributes_received,
        tally.anti_tributes,
    )
    return PlayerRow(
        seat,
        None if me.is_ai else me.user_id,
        me.name,
        me.is_ai,
        player_key(me),
        player_key(partner) if partner is not None else ANONYMOUS,
        partner.name if partner is not None else "",
        result,
        figures,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class Backfill:
    """What the back-fill did: matches written, tables skipped (unreadable), seconds taken."""

    written: int
    skipped: int
    seconds: float

    @property
    def rate(self) -> float:
        """Matches back-filled per second."""
        return self.written / self.seconds if self.seconds > 0 else 0.0


class RecordKeeper:
    """Turns finished matches into stored records and keeps the groups' ratings."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def on_table_finished(self, table: LiveTable) -> None:
        """The finished-match hook: the summary of the match just ended, and its ratings."""
        if table.match is None or not table.match.is_over:
            return
        seats = [state.record for state in table.seats.values()]
        row = match_row(table.record, seats, summarize(table.match), _now())
        await self.db.records.write(row)
        await self.rate(row)

    async def rate(self, row: MatchRow) -> None:
        """Move the four players' ratings in the group by this match's result."""
        keys = [player.player for player in row.players]
        known = await self.db.records.ratings(chat_id=row.chat_id, players=keys)
        await self.db.records.put_ratings(rated(row, known))

    async def backfill(self) -> Backfill:
        """A record for every finished table that lacks one, then the touched groups' ratings
        rebuilt in match order (a late record may be older than ones already rated)."""
        started = time.perf_counter()
        written = skipped = 0
        chats: set[int] = set()
        for table_id in await self.db.records.missing():
            try:
                row = await self._replayed(table_id)
            except Exception:
                log.exception("table %s: no record could be made from its log", table_id)
                skipped += 1
                continue
            await self.db.records.write(row)
            chats.add(row.chat_id)
            written += 1
        for chat_id in sorted(chats):
            await self.rebuild_ratings(chat_id)
        return Backfill(written, skipped, time.perf_counter() - started)

    async def _replayed(self, table_id: int) -> MatchRow:
        record = await self.db.tables.get(table_id=table_id)
        seats = await self.db.seats.of_table(table_id=table_id)
        actions = await self.db.actions.of_table(table_id=table_id)
        history = [(action.seat, decode_action(action.action_json)) for action in actions]
        match = Match.replay(Rules.from_json(record.rules_json), record.seed, history)
        ended = await self.db.records.last_action_time(table_id=table_id)
        return match_row(record, seats, summarize(match), ended)

    async def rebuild_ratings(self, chat_id: int) -> None:
        """The group's ratings from its recorded matches alone, oldest first."""
        ratings: dict[str, Rating] = {}
        for row in await self.db.records.of_chat(chat_id=chat_id):
            for rating in rated(row, ratings):
                ratings[rating.player] = rating
        await self.db.records.replace_ratings(chat_id=chat_id, ratings=list(ratings.values()))


def rated(row: MatchRow, known: dict[str, Rating]) -> list[Rating]:
    """The ratings of a match's players after it (a forgotten person's seat is rated as a
    newcomer and not kept). Needs all four seats; a match without them changes nothing."""
    if len(row.players) != 4:
        return []
    by_seat = {player.seat: player for player in row.players}
    skills = {p.player: _skill(known.get(p.player)) for p in row.players}
    teams = [(skills[by_seat[t].player], skills[by_seat[t + 2].player]) for t in (0, 1)]
    after = rate_match(teams, row.winner_team)
    new: dict[str, Rating] = {}
    for team in (0, 1):
        for index, seat in enumerate((team, team + 2)):
            player = by_seat[seat]
            if player.player == ANONYMOUS or player.player in new:
                continue  # one computer difficulty on both seats of a side: moved once
            matches = known[player.player].matches if player.player in known else 0
            skill = after[team][index]
            new[player.player] = Rating(
                row.chat_id, player.player, player.name, skill.mu, skill.sigma, matches + 1
            )
    return list(new.values())


def _skill(rating: Rating | None) -> Skill:
    return NEW if rating is None else Skill(rating.mu, rating.sigma)


def human_ratings(ratings: Iterable[Rating]) -> list[Rating]:
    return [rating for rating in ratings if rating.player.startswith("u:")]
