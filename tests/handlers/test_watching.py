"""观战's texts and records (app/table/watching.py, storage/spectators.py) and the spectators'
place in the token's queue: a spectator's look never names a card of a hand in play, shows a
deal's hands only once it is over (at a 不洗牌 table only once the match is), a followed seat's
hand only as it was when the trick in play began, and waits behind every player's request."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.table.texts import lobby_text
from app.table.watching import (
    MAX_NAMES,
    EndedHands,
    SeatHand,
    SpectatorView,
    hand_before_trick,
    hands_after_deal,
    spectator_text,
    watchers_line,
)
from engine.actions import DealEnded, DealStarted, Event, Phase
from engine.cards import Card, sort_hand
from engine.match import Match, observe
from engine.rules import PRESETS, Rules
from handlers.platform.scheduler import Priority, PriorityLimiter, at_priority
from players.easy import timeout_action
from players.policies import seeded
from render.words import card_text
from storage import Database
from tests.e2e.test_match_e2e import FACE_PATTERN
from tests.handlers.test_scheduler import Clock, advance, request, settle

NAMES = {0: "Alice", 1: "AI 乙", 2: "AI 丙", 3: "AI 丁"}
RULES = Rules.default()


def deal_events(match: Match, deal: int) -> tuple[Event, ...]:
    events: list[Event] = []
    for event in match.events:
        if isinstance(event, DealStarted):
            events = []
        events.append(event)
        if isinstance(event, DealEnded) and event.deal_number == deal:
            break
    return tuple(events)


def play_until(match: Match, done: object) -> None:
    """Every seat plays the lowest it may (the timeout default) until ``done(match)``."""
    assert callable(done)
    while not done(match):
        seat = match.to_act[0]
        match.apply(seat, timeout_action(observe(match, seat)))


def dealt(match: Match) -> EndedHands:
    level = match.events[0].level if isinstance(match.events[0], DealStarted) else None
    assert level is not None
    return EndedHands(1, level, tuple(tuple(sort_hand(hand, level)) for hand in match.hands))


def view_of(match: Match, events: tuple[Event, ...], hands: EndedHands | None = None) -> SpectatorView:
    return SpectatorView(observe(match, None), events, match.events, NAMES, RULES, hands)


def test_a_look_at_a_deal_in_play_names_only_played_cards() -> None:
    match = Match.new(RULES, 7)
    play_until(match, lambda m: len(m.played) >= 12)
    text = spectator_text(view_of(match, deal_events(match, 1)), "zh")
    assert "Alice" in text and "你正在观战本桌" in text
    assert set(FACE_PATTERN.findall(text)) <= {card_text(card) for card in match.played}
    assert "手牌" not in text


def test_hands_are_refused_for_a_deal_in_play() -> None:
    match = Match.new(RULES, 7)
    hands = dealt(match)
    play_until(match, lambda m: len(m.played) >= 4)
    with pytest.raises(AssertionError):
        spectator_text(view_of(match, deal_events(match, 1), hands), "zh")


def test_a_finished_deal_shows_its_places_and_hands() -> None:
    match = Match.new(RULES, 7)
    hands = dealt(match)
    play_until(match, lambda m: any(isinstance(e, DealEnded) for e in m.events))
    text = spectator_text(view_of(match, deal_events(match, 1), hands), "zh")
    assert "第 1 副的手牌（发牌时）" in text and "🏁 下游" in text
    for hand in hands.hands:
        assert " ".join(card_text(card) for card in hand) in text
    english = spectator_text(view_of(match, deal_events(match, 1), hands), "en")
    assert "the hands as dealt" in english and "watching this table" in english


def test_a_no_shuffle_table_keeps_the_hands_until_the_match_is_over() -> None:
    """Its next deal is the last one's cards as played, cut once: the leftover hands would
    give away the pack."""
    assert not hands_after_deal(PRESETS["noshuffle"].rules)
    assert hands_after_deal(PRESETS["default"].rules)
    hiding = {name for name, preset in PRESETS.items() if preset.rules.hides_hands}  # the one home
    assert hiding == {name for name, preset in PRESETS.items() if not hands_after_deal(preset.rules)}
    assert "noshuffle" in hiding and "default" not in hiding
    assert all(preset.rules.spectators for preset in PRESETS.values())  # on everywhere, off by setting


def test_the_watchers_line_is_escaped_and_short() -> None:
    assert watchers_line([], "zh") == ""
    assert watchers_line(["张三", "<b>李四"], "zh") == "👀 观战：张三、&lt;b&gt;李四"
    crowd = [f"P{i}" for i in range(MAX_NAMES + 3)]
    assert watchers_line(crowd, "zh").endswith("P7 等 3 人")
    following = watchers_line(["张三"], "zh", ["南 李四"])
    assert following == "👀 观战：张三\n👁 滞后一轮看牌：南 李四"


def test_a_seats_hand_is_followed_only_where_the_table_allows_it() -> None:
    """Off by default and in every preset; never at a 不洗牌 table, whose leftover hands are
    the next deal's pack; nor where the table takes no spectators."""
    assert not Rules.default().spectators_follow_hands
    assert not any(preset.rules.spectators_follow_hands for preset in PRESETS.values())
    assert Rules.default().replace(watch_hand=True).spectators_follow_hands
    assert not PRESETS["noshuffle"].rules.replace(watch_hand=True).spectators_follow_hands
    assert not Rules.default().replace(watch_hand=True, spectators=False).spectators_follow_hands
    said = "观战者可选一家看牌（滞后一轮）"
    assert said in lobby_text(names={}, preset="default", rules=RULES.replace(watch_hand=True), locale="zh")
    assert said not in lobby_text(names={}, preset="default", rules=RULES, locale="zh")


def test_a_followed_hand_is_the_hand_the_seat_held_when_the_trick_in_play_began() -> None:
    """A whole match played by the 标准 player: after every action, each seat's followed hand
    is the seat's true hand at the lead of the trick in play (taken from the match itself at
    each lead), never the hand it holds once it has played in that trick."""
    rules = Rules.default().replace(watch_hand=True)
    match, policy = Match.new(rules, seed=21), seeded("normal")
    at_lead: dict[int, tuple[Card, ...]] = {}
    tricks, deal, behind, checked = -1, 0, 0, 0
    while not match.is_over:
        public = observe(match, None)
        if public.deal_number != deal:
            tricks, deal = -1, public.deal_number
        if public.phase is Phase.PLAY and public.table_play is None:  # a trick is led next
            tricks += 1
            at_lead = {seat: tuple(sort_hand(hand, public.level)) for seat, hand in enumerate(match.hands)}
        for seat in range(4):
            shown = hand_before_trick(observe(match, seat))
            if public.phase is not Phase.PLAY:
                assert shown is None
                continue
            assert shown is not None and (shown.trick, shown.cards) == (tricks, at_lead[seat])
            live = tuple(sort_hand(match.hands[seat], public.level))
            assert set(live) <= set(shown.cards)
            behind += shown.cards != live
            checked += 1
        seat = match.to_act[0]
        match.apply(seat, policy(observe(match, seat), rules))
    assert checked > 1000 and behind > 300  # many looks where the seat had played in the trick


def test_a_look_shows_the_followed_seat_and_no_other_hand() -> None:
    match = Match.new(RULES.replace(watch_hand=True), 7)
    play_until(match, lambda m: len(m.played) >= 12 and observe(m, None).table_play is not None)
    followed = hand_before_trick(observe(match, 1))
    assert followed is not None and followed.trick > 0
    view = view_of(match, deal_events(match, 1))
    view = SpectatorView(view.obs, view.events, (), NAMES, view.rules, followed=(followed,))
    text = spectator_text(view, "zh", seat=1)
    heading = f"👁 西 AI 乙：第 {followed.trick + 1} 轮之前的手牌（{len(followed.cards)} 张）"
    assert heading in text
    cards = text.split(heading, 1)[1]
    assert set(FACE_PATTERN.findall(cards)) == {card_text(card) for card in followed.cards}
    assert spectator_text(view, "zh", seat=None) == spectator_text(view, "zh", seat=2)  # only its own
    assert "👁" not in spectator_text(view, "zh", seat=None)
    assert "the hand before trick" in spectator_text(view, "en", seat=1)
    out = SpectatorView(view.obs, view.events, (), NAMES, view.rules, followed=(SeatHand(1, 3, ()),))
    assert "（已出完）" in spectator_text(out, "zh", seat=1)


def test_a_finished_deal_shows_no_followed_hand_but_the_hands_as_dealt() -> None:
    match = Match.new(RULES, 7)
    hands = dealt(match)
    play_until(match, lambda m: any(isinstance(e, DealEnded) for e in m.events))
    view = view_of(match, deal_events(match, 1), hands)
    stale = SeatHand(0, 5, hands.hands[0])
    shown = SpectatorView(view.obs, view.events, view.match_events, NAMES, RULES, hands, followed=(stale,))
    assert "之前的手牌" not in spectator_text(shown, "zh", seat=0)


async def test_who_watches_is_stored_with_the_message_of_the_deal(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "g.db")
    try:
        table = await db.tables.create(
            chat_id=-1, token="t", creator_id=1, preset="default", rules_json=RULES.to_json(), seed=1
        )
        await db.spectators.watch(table_id=table.id, user_id=5, name="Carol")
        await db.spectators.watch(table_id=table.id, user_id=6, name="Dave")
        await db.spectators.set_message(table_id=table.id, user_id=5, message_id=42, deal=2)
        await db.spectators.watch(table_id=table.id, user_id=5, name="Carol 2")  # again: keeps the message
        await db.spectators.follow(table_id=table.id, user_id=6, seat=3)
        rows = await db.spectators.of_table(table_id=table.id)
        assert [(r.user_id, r.name, r.message_id, r.deal, r.seat) for r in rows] == [
            (5, "Carol 2", 42, 2, None),
            (6, "Dave", None, None, 3),
        ]
        await db.spectators.follow(table_id=table.id, user_id=6, seat=None)
        assert (await db.spectators.of_table(table_id=table.id))[1].seat is None
        await db.spectators.leave(table_id=table.id, user_id=6)
        assert [r.user_id for r in await db.spectators.of_table(table_id=table.id)] == [5]
        await db.spectators.end(table_id=table.id)
        assert await db.spectators.of_table(table_id=table.id) == []
    finally:
        await db.close()


async def test_a_spectators_look_waits_behind_every_players_request() -> None:
    clock = Clock()
    limiter = PriorityLimiter(token_limit=1, clock=clock)
    sent: list[str] = []
    await request(limiter, sent, "first", 1)  # the token's second is used
    tasks = []
    for name, priority in (
        ("spectator", Priority.WATCH),
        ("glance", Priority.GLANCE),
        ("hand", Priority.HAND),
    ):
        with at_priority(priority):
            tasks.append(asyncio.create_task(request(limiter, sent, name, 7)))
    await settle()
    for _ in range(3):
        await advance(limiter, clock, 1.0)
    await asyncio.gather(*tasks)
    assert sent == ["first", "hand", "glance", "spectator"]


async def test_a_spectators_look_leaves_part_of_the_tokens_second_to_the_players() -> None:
    """A look goes while the token's second is less than two-thirds used; a player's request
    arriving after it still finds room in that second."""
    clock = Clock()
    limiter = PriorityLimiter(token_limit=3, clock=clock)
    sent: list[str] = []
    await request(limiter, sent, "first", 1)
    with at_priority(Priority.WATCH):
        looks = [asyncio.create_task(request(limiter, sent, f"look {i}", 7)) for i in range(2)]
    await settle()
    assert sent == ["first", "look 0"]  # two of the second's three: the third is the players'
    with at_priority(Priority.HAND):
        await request(limiter, sent, "hand", 8)
    assert sent == ["first", "look 0", "hand"]
    await advance(limiter, clock, 1.0)
    await asyncio.gather(*looks)
    assert sent == ["first", "look 0", "hand", "look 1"]
