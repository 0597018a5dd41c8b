"""Match records on a real SQLite file: hand-worked figures of seeded matches, the summaries a
finished match writes equal what replaying its log gives, ratings, /forgetme, golden pictures."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.records import views
from app.records.keeper import RecordKeeper
from engine.match import Match
from engine.records import MatchSummary, summarize
from engine.review import frames, review
from engine.rules import Rules
from render.records import render_review, render_stats_card
from storage import Database, NotFound
from storage.records import Figures, PartnerLine, PlayerTotals
from tests.records.support import SHORT, played, store_match
from tests.render.helpers import assert_matches_golden
from tools.selfplay import random_action

CHAT = -7001
PEOPLE: list[tuple[int | None, str]] = [(11, "Alice"), (12, "Bob"), (13, "Carol"), (None, "AI")]


@pytest.fixture
async def db(store: str):
    database = await Database.open(store)
    yield database
    await database.close()


def test_seeded_deals_worked_by_hand() -> None:
    """Seed 1: deal 1 goes 南 西 北 东 (1+3: 东 pays 南), deal 2 北 西 南 东 (1+3 again).
    Seed 3: deal 1 南 北 西 东 (双下), deal 2 北 南 东 西 (双下: 西 and 东 both pay)."""
    one, three = summarize(played(SHORT, 1)), summarize(played(SHORT, 3))
    assert [d.finish_order for d in one.deals] == [(2, 3, 0, 1), (0, 1, 2, 3)]
    assert [d.outcome for d in one.deals] == ["one_three", "one_three"]
    assert [d.tributes for d in one.deals] == [(), ((1, 2),)]
    assert (one.winner_team, one.reason, one.points) == (0, "points", (4, 0))
    assert [d.finish_order for d in three.deals] == [(2, 0, 1, 3), (0, 2, 3, 1)]
    assert [d.tributes for d in three.deals] == [(), ((1, 2), (3, 0))]
    assert (three.winner_team, three.points) == (0, (6, 0))
    north = three.tally(0)
    assert (north.deals, north.places, north.double_down_won, north.double_down_suffered) == (
        2,
        (1, 1, 0, 0),
        2,
        0,
    )
    assert (north.tributes_paid, north.tributes_received, north.anti_tributes, north.levels_gained) == (
        0,
        1,
        0,
        0,
    )
    west = three.tally(1)
    assert (west.places, west.double_down_suffered, west.tributes_paid, west.tributes_received) == (
        (0, 0, 1, 1),
        2,
        1,
        0,
    )


async def test_stored_records_worked_by_hand(db: Database) -> None:
    for seed in (1, 3):
        await store_match(db, played(SHORT, seed), chat_id=CHAT, people=PEOPLE)
    done = await RecordKeeper(db).backfill()
    assert (done.written, done.skipped) == (2, 0)
    alice = await db.records.totals(user_id=11, chat_id=CHAT)
    assert (alice.matches, alice.won, alice.drawn) == (2, 2, 0)
    assert alice.figures == Figures(4, 2, 1, 1, 0, 2, 0, 0, 0, 1, 0)
    assert [(p.partner, p.name, p.matches, p.won) for p in alice.partners] == [("u:13", "Carol", 2, 2)]
    bob = await db.records.totals(user_id=12)
    assert (bob.matches, bob.won) == (2, 0)
    assert bob.figures == Figures(4, 0, 1, 1, 2, 0, 2, 0, 2, 0, 0)
    assert [(p.partner, p.matches) for p in bob.partners] == [("ai:normal", 2)]
    assert (await db.records.totals(user_id=11, chat_id=CHAT + 1)).matches == 0
    ranking = await db.records.ranking(chat_id=CHAT, min_matches=2, limit=10)
    assert {r.player for r in ranking[:2]} == {"u:11", "u:13"}  # the winners, tied
    assert ranking[0].mu > 25 > ranking[-1].mu and all(r.matches == 2 for r in ranking)
    recent = await db.records.recent(chat_id=CHAT, limit=5)
    assert [m.table_id for m in recent] == [2, 1] and [p.name for p in recent[0].players] == [
        n for _, n in PEOPLE
    ]


async def test_the_hook_and_the_back_fill_write_the_same_record(db: Database) -> None:
    """A second back-fill finds nothing; a stopped table gets no record."""
    match = played(SHORT, 5)
    table_id = await store_match(db, match, chat_id=CHAT, people=PEOPLE)
    await store_match(db, played(SHORT, 6), chat_id=CHAT, people=PEOPLE, finished=False)
    await RecordKeeper(db).backfill()
    stored = await db.records.get(table_id=table_id)
    assert MatchSummary.from_json(stored.summary_json) == summarize(match)
    assert (await RecordKeeper(db).backfill()).written == 0
    assert await db.records.missing() == []


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(["default", "wechat-6-deals", "jiangsu-union"]))
def test_summaries_equal_what_replaying_the_log_gives(seed: int, preset: str) -> None:
    rules = Rules.preset(preset)
    match = Match.new(rules, seed)
    rng = random.Random(seed)
    while not match.is_over:
        match.apply(match.to_act[0], random_action(match, match.to_act[0], rng))
    live = summarize(match)
    assert summarize(Match.replay(rules, seed, match.history)) == live
    assert MatchSummary.from_json(live.to_json()) == live
    tallies = [live.tally(seat) for seat in range(4)]
    for place in range(4):
        assert sum(t.places[place] for t in tallies) == len(live.deals)
    assert sum(t.tributes_paid for t in tallies) == sum(t.tributes_received for t in tallies)
    assert sum(t.double_down_won for t in tallies) == sum(t.double_down_suffered for t in tallies)
    gained = sum(d.levels_gained for d in live.deals)
    assert tallies[0].levels_gained + tallies[1].levels_gained == gained


async def test_forgetme_anonymises_and_keeps_the_matches(db: Database) -> None:
    await store_match(db, played(SHORT, 1), chat_id=CHAT, people=PEOPLE)
    await RecordKeeper(db).backfill()
    await db.records.note_user(user_id=11, username="alice", name="Alice")
    assert await db.records.stored_about(user_id=11) == (1, 1)
    assert await db.records.forget(user_id=11) == 1
    assert (await db.records.totals(user_id=11)).matches == 0
    match = (await db.records.recent(chat_id=CHAT, limit=1))[0]
    assert [p.name for p in match.players] == ["", "Bob", "Carol", "AI"] and match.players[0].user_id is None
    assert match.players[2].partner == "anon"
    assert "u:11" not in {r.player for r in await db.records.ranking(chat_id=CHAT, min_matches=0, limit=9)}
    seats = await db.seats.of_table(table_id=match.table_id)
    assert (seats[0].user_id, seats[0].name) == (None, "")
    with pytest.raises(NotFound):
        await db.records.by_username(username="alice")


def test_replay_pictures_match_the_golden_images() -> None:
    """Hands, the tribute and a trick of seed 3, and a 战绩 card (viewed at 360 px on a phone)."""
    match = played(SHORT, 3)
    deals = review(SHORT, 3, match.history)
    steps = frames(deals)
    names = ["Alice", "Bob", "Carol", "电脑"]
    tribute = next(i for i, frame in enumerate(steps) if frame.kind == "tribute")
    assert len(steps) == sum(len(d.tricks) for d in deals) + len(deals) + 1
    for name, index in (("replay_hands", 0), ("replay_tribute", tribute), ("replay_trick", 3)):
        assert_matches_golden(name, render_review(views.review_view(7, deals, steps, index, names, "zh")))
    totals = PlayerTotals(
        12, 7, 0, Figures(48, 15, 10, 12, 11, 5, 3, 30, 6, 9, 1), (PartnerLine("u:2", "Bob", 5, 4),)
    )
    assert_matches_golden("stats_card", render_stats_card(views.stats_card("Alice", totals, "本群", "zh")))
