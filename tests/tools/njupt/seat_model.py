"""A protocol client's view of its seat, checked against every message the server sends.

It keeps its own hand from the notices alone (the dealt hand, tribute and return moves,
its own plays) and fails the test when a message disagrees: an ``act`` whose hand is not
that hand, an action using cards it does not hold or not beating the action to beat, a
PASS where it leads, a wrong ``indexRange``, a deal whose rest cards differ. So a run that
passes proves the server's lists and notices are consistent from the client's side.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.cards import Card
from engine.plays import beats
from tools.njupt.protocol import action_play, parse_card

NOTIFY_STAGES = {
    "beginning",
    "play",
    "tribute",
    "anti-tribute",
    "back",
    "episodeOver",
    "gameOver",
    "gameResult",
}


class SeatModel:
    """One seat's knowledge; :meth:`see` checks a message, :meth:`choose` answers an ``act``."""

    def __init__(self, seed: int, *, check_at_most: int = 60) -> None:
        self.check_at_most = check_at_most  # listed plays read back per act (a lead lists thousands)
        self._sample = random.Random(-seed)
        self.pos: int | None = None
        self.hand: Counter[Card] = Counter()
        self.rng = random.Random(seed)
        self.stages: Counter[str] = Counter()  # messages seen by (type/stage)
        self.acts = 0
        self.result: dict[str, Any] | None = None
        self.in_deal = False
        self.last: list[Any] | None = None  # [curPos, curAction] of the latest notify/play

    def see(self, message: dict[str, Any]) -> None:
        kind, stage = message["type"], message["stage"]
        self.stages[f"{kind}/{stage}"] += 1
        if kind == "act":
            self._check_act(message)
            return
        assert kind == "notify" and stage in NOTIFY_STAGES, message
        getattr(self, "_" + stage.replace("-", "_"))(message)

    # ------------------------------------------------------------ notices

    def _beginning(self, message: dict[str, Any]) -> None:
        assert not self.in_deal, "a deal began before the last one ended"
        self.in_deal = True
        self.pos = message["myPos"]
        self.hand = Counter(parse_card(c) for c in message["handCards"])
        assert sum(self.hand.values()) == 27

    def _move(self, message: dict[str, Any]) -> None:
        for giver, receiver, card_text in message["result"]:
            card = parse_card(card_text)
            assert giver != receiver
            if giver == self.pos:
                assert self.hand[card] > 0, f"gave {card} it does not hold"
                self.hand[card] -= 1
            if receiver == self.pos:
                self.hand[card] += 1

    _tribute = _move
    _back = _move

    def _anti_tribute(self, message: dict[str, Any]) -> None:
        assert message["antiNums"] == len(message["antiPos"]) > 0

    def _play(self, message: dict[str, Any]) -> None:
        action = message["curAction"]
        self.last = [message["curPos"], action]
        assert message["greaterAction"] is not None and message["greaterPos"] in range(4)
        if action == ["PASS", "PASS", "PASS"]:
            assert message["greaterPos"] != message["curPos"]
            return
        assert message["greaterPos"] == message["curPos"] and message["greaterAction"] == action
        if message["curPos"] == self.pos:
            for card_text in action[2]:
                card = parse_card(card_text)
                assert self.hand[card] > 0, f"played {card} it does not hold"
                self.hand[card] -= 1

    def _episodeOver(self, message: dict[str, Any]) -> None:
        assert self.in_deal
        self.in_deal = False
        assert sorted(message["order"]) == [0, 1, 2, 3]
        rest = {pos: Counter(parse_card(c) for c in cards) for pos, cards in message["restCards"]}
        assert rest.get(self.pos, Counter()) == +self.hand

    def _gameOver(self, message: dict[str, Any]) -> None:
        assert message["curTimes"] >= 1

    def _gameResult(self, message: dict[str, Any]) -> None:
        self.result = message

    # ------------------------------------------------------------ acts

    def _check_act(self, message: dict[str, Any]) -> None:
        self.acts += 1
        actions = message["actionList"]
        assert message["indexRange"] == len(actions) - 1 >= 0
        assert Counter(parse_card(c) for c in message["handCards"]) == +self.hand
        assert message["publicInfo"][self.pos]["rest"] == sum(self.hand.values())
        if message["stage"] in ("tribute", "back"):
            for name, rank, cards in actions:
                assert (
                    name == rank == message["stage"] and len(cards) == 1 and self.hand[parse_card(cards[0])]
                )
            return
        greater = message["greaterAction"]
        assert all(info["playArea"] is not None for info in message["publicInfo"]), "null, not [None]*3"
        if greater == [None, None, None]:
            assert message["curAction"] == greater
            greater = None
            assert message["greaterPos"] == -1 and message["curPos"] == -1
            assert all(action[0] != "PASS" for action in actions)
        else:
            assert actions[0] == ["PASS", "PASS", "PASS"] and message["greaterPos"] != self.pos
            assert [message["curPos"], message["curAction"]] == self.last, "curAction is not the last action"
        to_beat = None if greater is None else action_play(greater, message["curRank"])
        plays = actions[1 if greater is not None else 0 :]
        keys = {(action[0], action[1], tuple(sorted(action[2]))) for action in plays}
        assert len(keys) == len(plays), "an action is listed twice"
        for action in self._sample.sample(plays, min(len(plays), self.check_at_most)):
            play = action_play(action, message["curRank"])
            assert not Counter(play.cards) - self.hand, f"{action} uses cards not in hand"
            assert to_beat is None or beats(play, to_beat), f"{action} does not beat {greater}"

    def choose(self, message: dict[str, Any]) -> int:
        """A seeded random index (a lead or a follow equally likely)."""
        return self.rng.randint(0, message["indexRange"])
