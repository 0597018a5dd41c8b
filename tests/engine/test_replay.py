"""Replaying seed + history reproduces a match; actions and transcripts round-trip as JSON."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import DealEnded, GiveTribute, Pass, ReturnTribute, TimeExpired
from engine.cards import Card
from engine.errors import EngineError
from engine.match import Match, action_from_json, action_to_json, observe
from engine.rules import Rules
from engine.serialize import event_to_json
from players.easy import choose_action
from tools.selfplay import random_action

TRANSCRIPTS = Path(__file__).parent.parent / "data" / "transcripts"
GOLDEN = [("default", 2024, 3), ("wechat-6-deals", 7, 2), ("spring-festival", 99, 2)]


def views(match: Match):
    return [observe(match, seat) for seat in (0, 1, 2, 3, None)], [match.hand(s) for s in range(4)]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 400))
def test_replay_reproduces_the_state_for_every_seat(seed: int, steps: int) -> None:
    rules = Rules.default()
    match = Match.new(rules, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.is_over:
            break
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
    stored = [(seat, action_to_json(action)) for seat, action in match.history]
    history = [(seat, action_from_json(json.loads(json.dumps(data)))) for seat, data in stored]
    again = Match.replay(rules, seed, history)
    assert views(again) == views(match)
    assert again.events == match.events and again.version == match.version


def test_copy_is_an_independent_snapshot() -> None:
    rules = Rules.default()
    match = Match.new(rules, 5)
    rng = random.Random(1)
    for _ in range(150):
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
    snapshot = match.copy()
    frozen = views(snapshot)
    for _ in range(60):
        seat = match.to_act[0]
        match.apply(seat, random_action(match, seat, rng))
    assert views(snapshot) == frozen and snapshot.version == 150 and match.version == 210
    assert views(Match.replay(rules, 5, snapshot.history)) == frozen
    seat = snapshot.to_act[0]
    assert Counter(snapshot.legal_plays(seat)) == Counter(
        Match.replay(rules, 5, snapshot.history).legal_plays(seat)
    )
    snapshot.apply(seat, random_action(snapshot, seat, random.Random(2)))
    assert snapshot.version == 151


@pytest.mark.parametrize(
    "action", [Pass(), TimeExpired(), GiveTribute(Card.parse("RJ")), ReturnTribute(Card.parse("H3"))]
)
def test_simple_actions_round_trip(action) -> None:
    assert action_from_json(action_to_json(action)) == action


def test_plays_keep_their_reading() -> None:
    match = Match.new(Rules.default(), 9)
    plays = match.legal_plays(match.to_act[0])
    for play in plays:
        from engine.actions import PlayCards

        data = action_to_json(PlayCards(play))
        assert set(data["play"]) == {"kind", "rank", "cards"}
        assert action_from_json(data) == PlayCards(play)


def test_unknown_action_json_is_refused() -> None:
    with pytest.raises(EngineError):
        action_from_json({"type": "cheat"})


def transcript(preset: str, seed: int, deals: int) -> list[dict[str, object]]:
    """Events of the first ``deals`` deals, every seat played by the engine AI."""
    rules = Rules.preset(preset)
    match = Match.new(rules, seed)
    done = 0
    while done < deals and not match.is_over:
        seat = match.to_act[0]
        events = match.apply(seat, choose_action(observe(match, seat), rules))
        done += sum(isinstance(event, DealEnded) for event in events)
    return [event_to_json(event) for event in match.events]


@pytest.mark.parametrize(("preset", "seed", "deals"), GOLDEN)
def test_golden_transcripts(preset: str, seed: int, deals: int) -> None:
    path = TRANSCRIPTS / f"{preset}-{seed}.json"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert expected["preset"] == preset and expected["seed"] == seed
    assert transcript(preset, seed, deals) == expected["events"]
