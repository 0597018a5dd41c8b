"""tools.searchcheck: 大师's decisions judged on the true hands."""

from __future__ import annotations

import json
import random

import pytest

from engine.cards import Card
from engine.match import observe
from engine.observation import Observation
from engine.players import master, planner
from engine.rules import Rules
from tests.engine.test_master import searched_spot
from tools import searchcheck

RULES = Rules.preset("default")


def test_given_the_true_hands_the_search_keeps_no_worse_than_标准s_choice() -> None:
    match, _ = searched_spot(6)
    obs = observe(match, match.to_act[0])
    truth = [list(match.hand(seat)) for seat in range(4)]
    draws = 0

    def true_hands(_obs: Observation, _rules: Rules, _rng: random.Random) -> list[list[Card]]:
        nonlocal draws
        draws += 1
        return [list(hand) for hand in truth]

    action = master.choose_action(obs, RULES, random.Random(0), master.Budget(cards=600), draw=true_hands)
    assert draws > 0
    base = planner.choose_action(obs, RULES)
    assert master.play_out(obs, RULES, truth, action) >= master.play_out(obs, RULES, truth, base)


def test_the_check_counts_positions_by_window_and_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    found = searchcheck.positions(2, 3, RULES, window=60, rate=0.2)
    assert found and all(sum(master._counts(p.obs)) <= 60 for p in found)
    assert searchcheck.main(["--shuffles", "2", "--seed", "3", "--rate", "0.2"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["positions"] == len(found)
    assert sum(b[0] for b in figures["by_cards_in_play"].values()) == len(found)
    assert 0 <= figures["deviations"] <= len(found)
    assert 0 < figures["placement_plain"] < 1
