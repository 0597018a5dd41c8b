"""The referee without sockets: whole runs checked from every seat's side by a SeatModel."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from engine.actions import ChooseSeat, Pass
from engine.cards import Rank, card_order, parse_rank
from engine.rules import EqualTribute, ReturnPick, Rules
from tests.tools.njupt.seat_model import SeatModel
from tools.njupt.protocol import parse_card
from tools.njupt.referee import PLATFORM_DRAW_AFTER_RESETS, PLATFORM_RULES, Referee


def run(referee: Referee, models: list[SeatModel], policies: tuple[str, ...]) -> None:
    """Play the run to the end; seats with a model answer by index like a client would."""
    for notice in referee.start():
        models[notice.seat].see(notice.message)
    while (request := referee.request()) is not None:
        model = models[request.seat]
        model.see(json.loads(json.dumps(request.message)))  # what goes over the wire
        if policies[request.seat] == "ext":
            action = request.actions[model.choose(request.message)]
        else:
            action = referee.ai_action(request.seat, policies[request.seat])
        for notice in referee.answer(request.seat, action):
            models[notice.seat].see(json.loads(json.dumps(notice.message)))


@pytest.mark.parametrize("seed", [3, 11])
def test_a_run_is_consistent_from_every_seat(seed: int) -> None:
    referee = Referee(PLATFORM_RULES, seed, 12, draw_after_resets=PLATFORM_DRAW_AFTER_RESETS)
    models = [SeatModel(seed * 10 + seat) for seat in range(4)]
    run(referee, models, ("ext", "ai", "ext", "random"))
    result = referee.result()
    assert result["deals"] == 12 and referee.finished
    for model in models:
        assert model.stages["notify/beginning"] == model.stages["notify/episodeOver"] == 12
        assert model.stages["notify/gameResult"] == 1 and not model.in_deal
        assert model.result is not None
        assert model.result["victoryNum"] == [seat["games_won"] for seat in result["seats"]]
    wins = [seat["deal_wins"] for seat in result["seats"]]
    assert wins[0] == wins[2] and wins[1] == wins[3] and wins[0] + wins[1] == 12


def test_tributes_returns_anti_tributes_and_games_are_announced() -> None:
    """Seed 2's 10 deals hold 5 tributes with returns, 3 anti-tributes and 2 finished games
    (a new game starts at level 2 with no tribute); one notice each to every seat."""
    referee = Referee(PLATFORM_RULES, 2, 10, draw_after_resets=PLATFORM_DRAW_AFTER_RESETS)
    models = [SeatModel(seat) for seat in range(4)]
    run(referee, models, ("easy", "random", "easy", "random"))
    for model in models:
        stages = model.stages
        assert stages["notify/tribute"] == stages["notify/back"] == 5
        assert stages["notify/anti-tribute"] == 3
        assert stages["notify/gameOver"] == referee.games_over == 2
    assert sum(model.stages["act/tribute"] + model.stages["act/back"] for model in models) >= 10
    assert sum(seat["games_won"] for seat in referee.result()["seats"]) == 2 * 2


def test_a_run_can_stop_after_a_number_of_games() -> None:
    referee = Referee(PLATFORM_RULES, 7, 1000, games=1)
    models = [SeatModel(seat) for seat in range(4)]
    run(referee, models, ("easy", "random", "easy", "random"))
    assert referee.games_over == 1 and referee.deals_played < 1000
    assert models[0].result == {
        "type": "notify",
        "stage": "gameResult",
        "victoryNum": [1, 0, 1, 0],
        "draws": [0, 0, 0, 0],
    }


def test_drops_from_a_end_the_game_in_a_draw() -> None:
    """The platform draws a game after N drops from A back to 2; with N = 1 and one failure
    allowed at A, seed 0's random players draw their game in deal 8."""
    referee = Referee(PLATFORM_RULES.replace(a_failure_limit=1), 0, 60, games=1, draw_after_resets=1)
    models = [SeatModel(seat) for seat in range(4)]
    run(referee, models, ("random",) * 4)
    assert referee.deals_played == 8 and referee.games_over == 1
    assert all(seat["draws"] == 1 and seat["games_won"] == 0 for seat in referee.result()["seats"])
    assert models[0].result is not None and models[0].result["draws"] == [1, 1, 1, 1]


def test_levels_in_act_messages_follow_the_standing() -> None:
    referee = Referee(PLATFORM_RULES, 5, 3)
    referee.start()
    levels: Counter[str] = Counter()
    while (request := referee.request()) is not None:
        message = request.message
        levels[message["curRank"]] += 1
        assert message["curRank"] in (message["selfRank"], message["oppoRank"])
        referee.answer(request.seat, referee.ai_action(request.seat))
    assert levels["2"] > 0


def test_a_refused_action_changes_nothing() -> None:
    referee = Referee(PLATFORM_RULES, 5, 1)
    referee.start()
    request = referee.request()
    assert request is not None and request.message["greaterAction"] == [None, None, None]  # the first lead
    with pytest.raises(ValueError):
        referee.answer(request.seat, Pass())
    assert referee.request() == request


def test_tribute_offers_the_largest_cards_and_back_the_platforms_return_cards() -> None:
    """act/tribute lists the largest non-wildcard cards; act/back (platform rules) cards of 2–10
    other than the level rank, when the hand has any."""
    referee = Referee(PLATFORM_RULES, 2, 10)
    referee.start()
    asked = {"tribute": 0, "back": 0}
    while (request := referee.request()) is not None:
        message = request.message
        if message["stage"] in asked:
            asked[message["stage"]] += 1
            level = parse_rank(message["curRank"])
            hand = [parse_card(card) for card in message["handCards"]]
            offered = [parse_card(action[2][0]) for action in message["actionList"]]
            if message["stage"] == "tribute":
                top = max(card_order(card, level) for card in hand if not card.is_wildcard(level))
                assert {
                    card for card in hand if card_order(card, level) == top and not card.is_wildcard(level)
                } == set(offered)
            else:
                fitting = {card for card in hand if card.rank <= Rank.TEN and card.rank != level}
                assert fitting and set(offered) == fitting
        referee.answer(request.seat, referee.ai_action(request.seat, "easy"))
    assert asked["tribute"] >= 5 and asked["back"] >= 5


def test_free_choices_after_equal_tributes_are_made_by_the_ai() -> None:
    """The protocol has no message for V12/V14's choices: with every one of them on, seed 1's
    equal 双下 tributes are settled by the AI (three ChooseSeat) and the clients see a normal
    exchange, their hands consistent throughout."""
    rules = Rules(
        first_picks_tribute=True,
        payers_pick_returns=ReturnPick.ALWAYS,
        equal_tribute=EqualTribute.PAYERS_CHOOSE,
        returns_face_down=True,
    )
    referee = Referee(rules, 1, 10)
    models = [SeatModel(seat, check_at_most=5) for seat in range(4)]
    run(referee, models, ("ext", "random", "ext", "random"))
    assert referee.games_over == 0 and referee.deals_played == 10
    assert sum(isinstance(action, ChooseSeat) for _, action in referee.match.history) == 3
    assert all(model.stages["notify/back"] == model.stages["notify/tribute"] == 9 for model in models)
