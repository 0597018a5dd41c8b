"""The fast AI decides exactly as the straightforward policy it replaced.

``Reference`` below is the original :mod:`players.easy` play choice: build every legal
play, key each one from scratch and take the minimum. The fast code builds only the
spare cards' plays of a big hand and keys plays lazily; these tests pin that it
gives the same action on seeded self-play and on full 27-card hands with 0, 1 and 2
wildcards, leading and following, partner or opponent on the table, in danger or not.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

from bench import moves as bench
from engine.actions import Action, Pass, Phase, PlayCards, partner_of
from engine.cards import PLAIN_RANKS, SUITS, Card, Rank, card_order, full_deck
from engine.match import Match, observe
from engine.moves import HandCounts, bombs_of, legal_plays, plays_of_kind
from engine.observation import Observation
from engine.plays import Play, PlayKind
from engine.rules import Rules
from players.easy import LEAD_KINDS, choose_action
from tools.selfplay import random_action


class Reference:
    """The original policy, kept verbatim in spirit: slow, obvious, and the oracle."""

    def __init__(self, obs: Observation, rules: Rules) -> None:
        self.obs = obs
        self.rules = rules
        self.held = Counter(card.rank for card in obs.hand)

    def choose(self) -> Action:
        obs = self.obs
        plays = [p for p in legal_plays(obs.hand, obs.level, obs.table_play) if self.allowed(p)]
        if obs.table_play is None:
            return PlayCards(self.lead(plays))
        choice = self.follow(plays)
        return Pass() if choice is None else PlayCards(choice)

    def allowed(self, play: Play) -> bool:
        return play.kind is not PlayKind.BOMB or play.size <= self.rules.max_bomb_size

    def lead(self, plays: Sequence[Play]) -> Play:
        finishing = [p for p in plays if p.size == len(self.obs.hand)]
        if finishing:
            return finishing[0]
        ordinary = [p for p in plays if not p.is_bomb]
        if ordinary:
            return min(ordinary, key=self.lead_key)
        return min(plays, key=bomb_key)

    def follow(self, plays: Sequence[Play]) -> Play | None:
        obs = self.obs
        assert obs.seat is not None
        finishing = [p for p in plays if p.size == len(obs.hand)]
        if finishing:
            return min(finishing, key=bomb_key)
        clean = sorted((p for p in plays if not p.is_bomb and self.spares(p)), key=self.follow_key)
        if obs.table_seat == partner_of(obs.seat):
            cheap = [p for p in clean if self.top(p) <= 10]
            return cheap[0] if cheap else None
        if clean:
            return clean[0]
        if not self.opponent_in_danger():
            return None
        costly = [p for p in plays if not p.is_bomb]
        if costly:
            return min(costly, key=self.follow_key)
        bombs = [p for p in plays if p.is_bomb]
        return min(bombs, key=bomb_key) if bombs else None

    def opponent_in_danger(self) -> bool:
        obs = self.obs
        assert obs.seat is not None
        opponents = ((obs.seat + 1) % 4, (obs.seat + 3) % 4)
        counts = [obs.seats[s].cards_left for s in opponents if obs.seats[s].place is None]
        return any(n is not None and n <= 6 for n in counts)

    def spares(self, play: Play) -> bool:
        if any(card.is_wildcard(self.obs.level) for card in play.cards):
            return False
        used = Counter(card.rank for card in play.cards)
        return all(self.held[rank] < 4 or used[rank] == self.held[rank] for rank in used)

    def lead_key(self, play: Play) -> tuple[int, ...]:
        return (not self.spares(play), self.low(play), -play.size, self.top(play), *indices(play))

    def follow_key(self, play: Play) -> tuple[int, ...]:
        return (play.rank, self.top(play), play.size, *indices(play))

    def low(self, play: Play) -> int:
        if play.kind.is_sequence:
            return play.rank - len(play.sequence_ranks()) + 1
        return min(card_order(card, self.obs.level) for card in play.cards)

    def top(self, play: Play) -> int:
        level = self.obs.level
        naturals = [card_order(card, level) for card in play.cards if not card.is_wildcard(level)]
        return max(naturals) if naturals else card_order(play.cards[0], level)


def bomb_key(play: Play) -> tuple[int, ...]:
    return (*play.bomb_power, play.size, *indices(play))


def indices(play: Play) -> tuple[int, ...]:
    return tuple(card.index for card in play.cards)


def deal(rng: random.Random, level: Rank, wildcards: int, size: int) -> list[Card]:
    """``size`` cards from two packs holding exactly ``wildcards`` of the level's ♥ cards."""
    wildcard = Card(level, SUITS[1])
    others = [card for card in full_deck() if card is not wildcard]
    return rng.sample(others, size - wildcards) + [wildcard] * wildcards


def self_play_views(rules: Rules, seed: int, actions: int) -> Iterator[Observation]:
    """Views of the seat to act while the reference (and now and then chance) plays."""
    rng = random.Random(seed)
    match = Match.new(rules, seed)
    for _ in range(actions):
        if match.is_over:
            return
        seat = match.to_act[0]
        obs = observe(match, seat)
        yield obs
        if match.phase is Phase.PLAY and obs.seat is not None and rng.random() < 0.3:
            action = random_action(match, seat, rng)
        elif match.phase is Phase.PLAY:
            action = Reference(obs, rules).choose()
        else:
            action = choose_action(obs, rules)
        match.apply(seat, action)


def big_hand_views(base: Observation, seed: int, count: int) -> Iterator[Observation]:
    """Full 27-card hands at random levels with 0, 1, 2 wildcards, leading or following
    a random play by an opponent or the partner, opponents near out or not."""
    rng = random.Random(seed)
    assert base.seat is not None
    seat = base.seat
    for n in range(count):
        level = rng.choice(PLAIN_RANKS)
        hand = tuple(deal(rng, level, n % 3, 27))
        table: Play | None = None
        table_seat: int | None = None
        if n % 2:
            candidates = legal_plays(deal(rng, level, rng.randint(0, 2), 27), level)
            table = rng.choice([p for p in candidates if p.is_bomb == (n % 10 == 1)] or candidates)
            table_seat = (seat + rng.choice((1, 2, 3))) % 4
        north, west, south, east = (
            dataclasses.replace(
                view, place=None, cards_left=len(hand) if view.seat == seat else rng.choice((2, 6, 9, 20))
            )
            for view in base.seats
        )
        yield dataclasses.replace(
            base,
            hand=hand,
            level=level,
            table_play=table,
            table_seat=table_seat,
            seats=(north, west, south, east),
            phase=Phase.PLAY,
        )


def test_same_decisions_as_the_reference_in_self_play() -> None:
    compared = Counter[str]()
    for rules, seed in ((Rules.default(), 3), (Rules.preset("jingfang"), 5), (Rules.preset("huaian"), 8)):
        for obs in self_play_views(rules, seed, 400):
            if obs.phase is Phase.PLAY:
                assert choose_action(obs, rules) == Reference(obs, rules).choose(), obs
                compared["lead" if obs.table_play is None else "follow"] += 1
    assert compared["lead"] >= 100 and compared["follow"] >= 400


@pytest.mark.parametrize("seed", [1, 2])
def test_same_decisions_as_the_reference_on_27_card_hands(seed: int) -> None:
    rules = dataclasses.replace(Rules.default(), max_bomb_size=8)
    base = next(obs for obs in self_play_views(rules, seed, 50) if obs.phase is Phase.PLAY)
    played = Counter[bool]()
    for obs in big_hand_views(base, seed, 60):
        action = choose_action(obs, rules)
        assert action == Reference(obs, rules).choose(), obs
        played[isinstance(action, PlayCards)] += 1
    assert played[True] >= 30 and played[False] >= 5


def test_bench_times_the_ai(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--hands", "2", "--repeat", "1", "--section", "ai"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("choose_action on 2 seeded 27-card hands")
    rows = [line.split() for line in lines[2:]]
    assert [(row[0], row[1]) for row in rows] == [(w, m) for w in "012" for m in ("lead", "follow")]
    assert all(float(row[2]) > 0 for row in rows)


def test_lead_kinds_follow_legal_plays_order() -> None:
    rng = random.Random(11)
    for wildcards in (0, 1, 2):
        level = rng.choice(PLAIN_RANKS)
        hand = deal(rng, level, wildcards, 27)
        counts = HandCounts(hand, level)
        listed = [play for kind in LEAD_KINDS for play in plays_of_kind(counts, kind)] + bombs_of(counts)
        assert listed == legal_plays(hand, level)


def test_sparing_plays_are_the_plays_of_the_spare_cards() -> None:
    """What the fast path relies on: dropping wildcards and bomb ranks from a hand leaves
    exactly its sparing non-bomb plays, in the same order, leading and following."""
    rng = random.Random(12)
    for n in range(60):
        level = rng.choice(PLAIN_RANKS)
        hand = deal(rng, level, n % 3, rng.randint(11, 27))
        held = Counter(card.rank for card in hand)
        spare = [card for card in hand if not card.is_wildcard(level) and held[card.rank] < 4]
        table = None if n % 2 else rng.choice(legal_plays(deal(rng, level, 0, 27), level))
        whole = [
            play
            for play in legal_plays(hand, level, table)
            if not play.is_bomb and all(card in spare for card in play.cards)
        ]
        assert whole == [play for play in legal_plays(spare, level, table) if not play.is_bomb]
