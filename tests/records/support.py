"""Finished matches stored on a real SQLite file, as the bot stores them, for the records tests."""

from __future__ import annotations

import random

from app.table.tables import encode_action
from engine.match import Match, observe
from engine.rules import Rules
from players.easy import choose_action
from storage import Database, TableStatus
from tools.selfplay import random_action

SHORT = Rules.preset("wechat-6-deals").replace(points_deals=2)
"""Two deals (plus any tie-break deal): short, and with a tribute from the second deal on."""


def played(rules: Rules, seed: int, *, planner: bool = True) -> Match:
    """A whole match, every seat played by the engine's planner (or at random), from ``seed``."""
    match = Match.new(rules, seed)
    rng = random.Random(seed)
    while not match.is_over:
        seat = match.to_act[0]
        action = choose_action(observe(match, seat), rules) if planner else random_action(match, seat, rng)
        match.apply(seat, action)
    return match


async def store_match(
    db: Database,
    match: Match,
    *,
    chat_id: int,
    people: list[tuple[int | None, str]],
    preset: str = "wechat-6-deals",
    finished: bool = True,
    playing: bool = False,
) -> int:
    """Lobby, seats (``None``: an AI seat), the whole action log and the final status (none:
    ``playing``, a match still being played, its log so far)."""
    record = await db.tables.create(
        chat_id=chat_id,
        token=f"t{random.getrandbits(40)}",
        creator_id=people[0][0] or 1,
        preset=preset,
        rules_json=match.rules.to_json(),
        seed=match.seed,
    )
    for seat, (user_id, name) in enumerate(people):
        await db.seats.take(table_id=record.id, seat=seat, user_id=user_id, name=name, is_ai=user_id is None)
    await db.tables.start(table_id=record.id)
    rows = [(version, seat, encode_action(action)) for version, (seat, action) in enumerate(match.history, 1)]
    await db.actions.append_many(table_id=record.id, actions=rows)
    if playing:
        return record.id
    status = TableStatus.FINISHED if finished else TableStatus.STOPPED
    await db.tables.set_status(table_id=record.id, status=status)
    return record.id
