"""Records benchmark: /stats, /top and /history over 10,000 stored matches, and the back-fill.

    python bench/records.py [--matches 10000] [--groups 50] [--people 400] [--backfill 300]

Builds a temporary SQLite file: ``--matches`` finished tables spread over ``--groups``
groups and ``--people`` people (each table's log is one of a few dozen seeded matches,
stored in full), with their records. The back-fill's rate is measured on ``--backfill``
tables whose records are deleted and rebuilt by replaying their logs (the start-up path);
the other records are written from the same summaries directly, to keep set-up short.

Then it times, per command, the bot's own work (every query, the text and, for /stats, the
战绩 picture) — everything but the Bot API call — 300 times each with random people and
groups, and prints p50 / p99 / max in ms. The goal (issue 21) is p99 ≤ 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.records import texts, views
from app.records.keeper import RecordKeeper, match_row
from app.records.rating import MIN_MATCHES
from app.table.tables import encode_action
from engine.match import Match
from engine.records import summarize
from engine.rules import Rules
from render.records import render_stats_card
from storage import Database, TableStatus
from tools.selfplay import random_action

SAMPLES = 300
SHORT = Rules.preset("wechat-6-deals").replace(points_deals=2)
"""Two deals (plus any tie-break deal): short, and with a tribute from the second deal on."""


def played(rules: Rules, seed: int) -> Match:
    """A whole match, every seat playing a random legal action, from ``seed``."""
    match = Match.new(rules, seed)
    rng = random.Random(seed)
    while not match.is_over:
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
    return match


async def build(db: Database, args: argparse.Namespace, rng: random.Random) -> list[int]:
    """The stored tables; returns the ids left for the back-fill."""
    logs = [played(SHORT, seed) for seed in range(24)]
    keeper = RecordKeeper(db)
    left: list[int] = []
    for n in range(args.matches):
        match = logs[n % len(logs)]
        chat_id = -(1000 + rng.randrange(args.groups))
        people = rng.sample(range(1, args.people + 1), 4)
        record = await db.tables.create(
            chat_id=chat_id,
            token=f"b{n}",
            creator_id=people[0],
            preset="wechat-6-deals",
            rules_json=SHORT.to_json(),
            seed=match.seed,
        )
        for seat, user_id in enumerate(people):
            await db.seats.take(table_id=record.id, seat=seat, user_id=user_id, name=f"P{user_id}")
        rows = [(v, seat, encode_action(action)) for v, (seat, action) in enumerate(match.history, 1)]
        await db.actions.append_many(table_id=record.id, actions=rows)
        await db.tables.set_status(table_id=record.id, status=TableStatus.FINISHED)
        if n < args.backfill:
            left.append(record.id)
            continue
        seats = await db.seats.of_table(table_id=record.id)
        row = match_row(record, seats, summarize(match), "2026-01-01T00:00:00")
        await db.records.write(row)
        await keeper.rate(row)
    return left


async def stats(db: Database, user_id: int, chat_id: int) -> None:
    here = await db.records.totals(user_id=user_id, chat_id=chat_id)
    everywhere = await db.records.totals(user_id=user_id)
    if everywhere.matches == 0:
        return  # /stats answers "no record" after these two queries
    name = await db.records.latest_name(user_id=user_id)
    ranking = await db.records.ranking(chat_id=chat_id, min_matches=MIN_MATCHES, limit=1000)
    texts.stats_caption(name, here, everywhere, None, [], "zh")
    render_stats_card(views.stats_card(name, here, "本群", "zh"))
    assert ranking is not None


async def top(db: Database, chat_id: int) -> None:
    rows = await db.records.ranking(chat_id=chat_id, min_matches=1, limit=80)
    texts.top_text([r for r in rows if r.player.startswith("u:")][:20], [], "zh")


async def history(db: Database, chat_id: int) -> None:
    texts.history_text(await db.records.recent(chat_id=chat_id, limit=5), "zh")


async def timed(label: str, make: object) -> None:
    assert callable(make)
    times = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        await make()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p99 = times[int(len(times) * 0.99) - 1]
    print(f"{label:9} p50 {statistics.median(times):6.1f} ms  p99 {p99:6.1f} ms  max {times[-1]:6.1f} ms")


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "bench.db")
        try:
            started = time.perf_counter()
            await build(db, args, rng)
            print(f"set-up: {args.matches} matches in {time.perf_counter() - started:.0f} s")
            done = await RecordKeeper(db).backfill()
            print(f"back-fill: {done.written} matches in {done.seconds:.1f} s = {done.rate:.0f} matches/s")
            groups = [-(1000 + g) for g in range(args.groups)]
            await timed("/stats", lambda: stats(db, rng.randrange(1, args.people + 1), rng.choice(groups)))
            await timed("/top", lambda: top(db, rng.choice(groups)))
            await timed("/history", lambda: history(db, rng.choice(groups)))
        finally:
            await db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--people", type=int, default=400)
    parser.add_argument("--backfill", type=int, default=300)
    asyncio.run(main(parser.parse_args()))
