"""tools.searchcheck: 大师's decisions judged on the true hands."""

from __future__ import annotations

import json
import random

import pytest

from engine.cards import Card, Rank, parse_cards
from engine.match import observe
from engine.observation import Observation
from engine.rules import Rules
from players import master, planner
from tests.players.test_master import searched_spot
from tools import handsplits, searchcheck

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
    true, sampled, plain = figures["fours_true_sampled_plain"]
    assert min(true, sampled, plain) >= 0


def test_handsplits_prints_the_splits_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert handsplits.main(["--shuffles", "3", "--seed", "3"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["positions"] > 0 and figures["distance_sampler"] >= 0


def test_splits_count_a_rank_with_two_or_more_unseen_copies_by_how_the_hidden_hands_hold_it() -> None:
    hands = [parse_cards(text) for text in ("S3 H3", "S5 H5 C5 D5 S7", "S5 C7", "D7 S9 H9")]
    found = handsplits.splits([(0, int(Rank.TWO), hands)])
    assert found[5] == {"410": 1} and found[3] == {"111": 1} and found[2] == {"200": 1}
