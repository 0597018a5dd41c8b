"""The 大师 (``master``) player: 标准's candidates, judged by playing the deal out.

At each play decision it

1. takes a few candidates: 标准's choice, its next-best plays and (following) passing;
2. samples the cards it cannot see, consistently with everything public — the cards played
   (this deal's history), each seat's count (27 less what it played), the exchange as far as
   this seat saw it (a tribute or return card it saw given is in the receiver's hand unless
   played since; a tribute payer holds nothing above its tribute but wildcards) — one plain
   draw of :func:`sample_hands` a sample, dealing the unseen cards rank by rank so that the
   hidden hands hold their pairs, triples and bombs together as 标准's do (:data:`AFFINITY`);
3. plays every candidate out on every sample with 标准 for all four seats (the same samples
   for every candidate, so their differences are not luck) and scores the deal's level
   result for its team plus :data:`WIN_WORTH` for winning it, positive or negative;
4. keeps 标准's choice unless another candidate is better on average by :data:`MARGIN`.

It reads only its :class:`~engine.observation.Observation` and draws the samples from the
generator it is given, so the same observation and seed give the same action whatever the
hidden hands are. Its time is bounded by :class:`Budget`, counted in cards played out (a
rollout's cost grows with the cards left), never by the clock, so it stays deterministic.
Tribute, return and seat choices are 标准's.

There is no filter on the samples. 大师 used to keep, of three draws, the one whose seats would
best have replayed their latest eight turns as 标准 (issue 22); that cost much of a searching
decision's time (its window decisions took 165 / 578 ms median / p99 with it, 118 / 418 ms
without, ``tools.searchcheck --shuffles 40 --seed 6 --positions 150``) and measured no better
than one draw a sample: over ``tools.searchcheck`` seeds 6–8, deviating from 标准 on the
true hands gained +4 deals and +52 levels with it and +8, +87 without, all within the noise.
Many deals fit 标准's public play equally well, so replaying the latest turns told the samples
little about where the cards are.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from engine.actions import Action, Pass, Phase, PlayCards, partner_of, team_of
from engine.cards import CARDS, Card, Rank, card_order, sort_hand
from engine.match import CARDS_PER_SEAT
from engine.observation import Observation, SeatView, Turn
from engine.plays import Play
from engine.rules import CountVisibility, JiefengScope, Rules
from engine.scoring import level_gain
from players import planner

MARGIN: Final = 0.25
"""Levels per deal another candidate must gain over 标准's choice on average to replace it: the
samples are few (a deal's result swings by ±4), so a smaller edge is mostly noise."""

WIN_WORTH: Final = 1.0
"""Added to a won deal's level result (taken from a lost one's): the deal's level result alone
let 大师 trade wins for bigger wins (49.2% of deals against 标准 at +0.08 levels a deal)."""

AFFINITY: Final[tuple[float, ...]] = (1.0, 8.0, 4.0, 11.0, 1.4, 0.2)
"""How much likelier a seat is to get the next unseen copy of a rank when it already got 0, 1, 2,
3, 4, 5+ of them (:func:`sample_hands`). 标准 keeps pairs, triples and bombs whole and plays
its loose cards first, so the hidden hands hold a rank's copies together far more often than a
uniform deal of the unseen cards: over 655 positions (``tools.searchcheck`` seed 5) a rank
with 2 unseen copies was in one hand 76% of the time (a uniform deal: 49%), with 3 copies 53%
(24%), with 4 copies 48% (11%), while 5 copies sat together only 20% and 6 or more almost
never (a 4-5 card bomb is kept, the rest played). These weights were fitted to those splits
(``python -m tools.handsplits --fit``: the rank splits that differ from the true ones fell
from 1,248 of about 4,100 to 211) and give as many four-of-a-kinds as the true hands (1,006
against 1,011; a uniform deal 448)."""

FALLBACK_GAINS: Final = (3, 2, 1)
"""The value of 双下 / 1-3 / 1-4 when the rules keep points rather than levels."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one decision may search.

    ``cards`` bounds the work: samples × candidates × cards still in play. The search starts
    once at most ``search_from`` cards are in play (about 15 a seat): before that a rollout is
    long, its result mostly the luck of the sample, and 标准's plan is as good a guess; at the
    end, where one play decides who goes out first, rollouts are short and many. The figures
    (decision time median and p99) are printed by ``python -m tools.arena --a master``.
    """

    cards: int = 1_500
    candidates: int = 4
    min_samples: int = 4
    max_samples: int = 32
    search_from: int = 60


DEFAULT_BUDGET: Final = Budget()

Draw: TypeAlias = Callable[[Observation, Rules, random.Random], "list[list[Card]] | None"]
"""How the hidden hands are drawn: :func:`draw_hands` in play; ``tools.searchcheck`` passes the
true hands instead, to measure what better inference could gain."""


def choose_action(
    obs: Observation,
    rules: Rules,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    draw: Draw | None = None,
) -> Action:
    """大师's action for ``obs``; 标准's outside the play phase or with nothing to weigh."""
    draw = draw or draw_hands
    base = planner.choose_action(obs, rules)
    if obs.phase is not Phase.PLAY or obs.choice is not None or obs.seat is None:
        return base
    in_play = sum(_counts(obs))
    if in_play > budget.search_from:
        return base
    candidates = candidate_actions(obs, rules, base, budget.candidates)
    if len(candidates) < 2:
        return base
    samples = budget.cards // (len(candidates) * max(in_play, 1))
    samples = max(budget.min_samples, min(budget.max_samples, samples))
    totals = [0.0] * len(candidates)
    for _ in range(samples):
        hands = draw(obs, rules, rng)
        if hands is None:
            return base
        for i, action in enumerate(candidates):
            totals[i] += _Rollout(obs, rules, hands).value(action)
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    if totals[best] - totals[0] > MARGIN * samples:
        return candidates[best]
    return candidates[0]


def candidate_actions(obs: Observation, rules: Rules, base: Action, limit: int) -> list[Action]:
    """标准's choice first, then passing when following, then 标准's next-best plays: ``limit``."""
    out: list[Action] = [base]
    if obs.table_play is not None and Pass() not in out:
        out.append(Pass())
    for play in planner.ranked_plays(obs, rules, limit=limit):
        action = PlayCards(play)
        if action not in out and len(out) < limit:
            out.append(action)
    return out


# ---------------------------------------------------------------- sampling the hidden hands


def _counts(obs: Observation) -> list[int]:
    """Cards each seat holds: 27 less what it played this deal (the exchange is card for card)."""
    played = [0, 0, 0, 0]
    for turn in obs.history:
        if turn.play is not None:
            played[turn.seat] += turn.play.size
    return [CARDS_PER_SEAT - n for n in played]


def draw_hands(obs: Observation, rules: Rules, rng: random.Random) -> list[list[Card]] | None:
    """大师's :data:`Draw`: one :func:`sample_hands` deal a sample, kept whatever it implies about
    the seats' earlier turns (a best-of-three filter on them cost time and gained nothing
    measurable: see the module's notes). ``rules`` is unused (the draw hook's
    signature)."""
    del rules
    return sample_hands(obs, rng)


def sample_hands(
    obs: Observation, rng: random.Random, affinity: Sequence[float] = AFFINITY
) -> list[list[Card]] | None:
    """Four hands: the own hand as it is, the others drawn from the unseen cards; ``None`` when
    the public facts admit no deal (a preset this reasoning does not cover).

    The unseen cards are dealt rank by rank (:func:`_deal_groups`): each copy of a rank goes to a
    seat with weight ``need × affinity[copies of the rank it already got]`` (the last entry for
    more), so a seat that got one copy tends to get the others; ``affinity=(1.0,)`` is a uniform
    deal of the unseen cards, the one before :data:`AFFINITY`."""
    assert obs.seat is not None
    counts = _counts(obs)
    pool = _unseen(obs)
    hands: list[list[Card]] = [[], [], [], []]
    hands[obs.seat] = list(obs.hand)
    need = [0 if seat == obs.seat else counts[seat] for seat in range(4)]
    for seat, card in _known_cards(obs):
        if card in pool and need[seat] > 0:
            pool.remove(card)
            hands[seat].append(card)
            need[seat] -= 1
    if sum(need) != len(pool) or len(obs.hand) != counts[obs.seat]:
        return None
    ceilings = _tribute_ceilings(obs)

    def barred(card: Card) -> int:
        return sum(1 for top in ceilings.values() if _above(card, top, obs))

    groups = _deal_groups(pool, obs.level)
    rng.shuffle(groups)
    groups.sort(key=lambda group: -barred(group[0]))  # stable: the most barred first, while room is left
    for group in groups:
        held = [0, 0, 0, 0]  # the copies each seat holds already (a known exchange card)
        if not group[0].is_wildcard(obs.level):  # a wildcard draws no other to its hand
            held = [sum(1 for card in hands[s] if card in group) if s != obs.seat else 0 for s in range(4)]
        for card in group:
            allowed = [
                s for s in range(4) if need[s] > 0 and not (s in ceilings and _above(card, ceilings[s], obs))
            ]
            if not allowed:
                allowed = [s for s in range(4) if need[s] > 0]
            weights = [need[s] * affinity[min(held[s], len(affinity) - 1)] for s in allowed]
            seat = rng.choices(allowed, weights=weights)[0]
            hands[seat].append(card)
            need[seat] -= 1
            held[seat] += 1
    return hands


def _deal_groups(pool: list[Card], level: Rank) -> list[list[Card]]:
    """The unseen cards as they are dealt together: each rank's natural copies (the jokers by
    colour), and each wildcard alone — 标准 spends wildcards where they help most, so where one
    lies says nothing of the rank it is."""
    by_rank: dict[Rank, list[Card]] = {}
    groups: list[list[Card]] = []
    for card in pool:
        if card.is_wildcard(level):
            groups.append([card])
        else:
            by_rank.setdefault(card.rank, []).append(card)
    return groups + list(by_rank.values())


def _unseen(obs: Observation) -> list[Card]:
    left = dict.fromkeys(CARDS, 2)
    for card in obs.hand:
        left[card] -= 1
    for turn in obs.history:
        if turn.play is not None:
            for card in turn.play.cards:
                left[card] -= 1
    return [card for card, n in left.items() for _ in range(max(n, 0))]


def _known_cards(obs: Observation) -> list[tuple[int, Card]]:
    """Exchange cards this seat saw go to another seat that has not played such a card since."""
    known = []
    for view in obs.tributes:
        if view.card is None or view.receiver == obs.seat:
            continue
        played = any(
            turn.seat == view.receiver and turn.play is not None and view.card in turn.play.cards
            for turn in obs.history
        )
        if not played:
            known.append((view.receiver, view.card))
    return known


def _tribute_ceilings(obs: Observation) -> dict[int, Card]:
    """A payer gave its highest card but wildcards: it holds nothing above the card it paid."""
    return {
        view.giver: view.card
        for view in obs.tributes
        if not view.is_return and view.card is not None and view.giver != obs.seat
    }


def _above(card: Card, top: Card, obs: Observation) -> bool:
    return not card.is_wildcard(obs.level) and card_order(card, obs.level) > card_order(top, obs.level)


# ---------------------------------------------------------------- playing a deal out


def deal_levels(rules: Rules, order: Sequence[int], seat: int) -> int:
    """Levels a finished deal is worth to ``seat``'s team: the winners' level-up (the rules'
    ``level_ups``, or :data:`FALLBACK_GAINS` when they keep points), negative when the other
    team won."""
    outcome = list(order).index(partner_of(order[0])) - 1  # 双下, 1-3, 1-4
    gain = level_gain(rules, outcome) if rules.uses_levels else FALLBACK_GAINS[outcome]
    return gain if team_of(order[0]) == team_of(seat) else -gain


def finish_order(
    obs: Observation, rules: Rules, hands: list[list[Card]], first: Action
) -> tuple[int, ...] | None:
    """How the deal ends after ``first`` on ``hands``, 标准 playing the rest for every seat."""
    return _Rollout(obs, rules, hands).ending(first)


def play_out(obs: Observation, rules: Rules, hands: list[list[Card]], first: Action) -> float:
    """The deal's result for ``obs``'s team after ``first`` on ``hands``, 标准 playing the rest:
    its level result plus :data:`WIN_WORTH`, negative when the other team wins."""
    return _Rollout(obs, rules, hands).value(first)


class _Rollout:
    """The rest of the deal from ``obs``'s moment on sampled hands, 标准 for every seat."""

    def __init__(self, obs: Observation, rules: Rules, hands: list[list[Card]]) -> None:
        assert obs.seat is not None
        self.obs, self.rules, self.me = obs, rules, obs.seat
        self.hands = [list(hand) for hand in hands]
        self.history = list(obs.history)
        self.finish = list(obs.finish_order)
        self.table_play, self.table_seat = obs.table_play, obs.table_seat
        self.trick = obs.history[-1].trick + (obs.table_play is None) if obs.history else 0
        self.waiting = self._waiting_now()
        self.to_act = obs.seat

    def _waiting_now(self) -> set[int]:
        if self.table_seat is None:
            return set()
        passed: set[int] = set()
        for turn in reversed(self.history):
            if turn.play is not None:
                break
            passed.add(turn.seat)
        return {s for s in range(4) if s not in self.finish and s != self.table_seat and s not in passed}

    def value(self, first: Action) -> float:
        """The deal's level result for this seat's team after ``first``, the rest by 标准."""
        order = self.ending(first)
        return 0.0 if order is None else self._score(order)

    def ending(self, first: Action) -> tuple[int, ...] | None:
        """The deal's finish order after ``first``, 标准 playing the rest (``None``: it never ended)."""
        action = first
        for _ in range(400):
            order = self._act(self.to_act, action)
            if order is not None:
                return order
            action = planner.choose_action(self._observe(self.to_act), self.rules)
        return None

    def _act(self, seat: int, action: Action) -> tuple[int, ...] | None:
        if isinstance(action, PlayCards):
            return self._play(seat, action.play)
        self._pass(seat)
        return None

    def _play(self, seat: int, play: Play) -> tuple[int, ...] | None:
        hand = self.hands[seat]
        for card in play.cards:
            hand.remove(card)
        self.history.append(Turn(seat, play, len(hand), self.trick))
        self.table_play, self.table_seat = play, seat
        self.waiting = {s for s in range(4) if s not in self.finish and s != seat}
        if not hand:
            self.finish.append(seat)
            if self._order_fixed():
                return self._order()
        if not self.waiting:
            self._win_trick()
        else:
            self.to_act = self._next(seat, self.waiting)
        return None

    def _pass(self, seat: int) -> None:
        self.history.append(Turn(seat, None, len(self.hands[seat]), self.trick))
        self.waiting.discard(seat)
        if not self.waiting:
            self._win_trick()
        else:
            self.to_act = self._next(seat, self.waiting)

    def _win_trick(self) -> None:
        winner = self.table_seat
        assert winner is not None
        leader = winner
        if winner in self.finish:
            scope = self.rules.jiefeng is JiefengScope.ANY_PLAYER or self.finish[0] == winner
            if scope and partner_of(winner) not in self.finish:
                leader = partner_of(winner)
            else:
                leader = self._next(winner, {s for s in range(4) if s not in self.finish})
        self.table_play, self.table_seat, self.waiting = None, None, set()
        self.trick += 1
        self.to_act = leader

    @staticmethod
    def _next(seat: int, among: set[int]) -> int:
        return next(s % 4 for s in range(seat + 1, seat + 5) if s % 4 in among)

    def _order_fixed(self) -> bool:
        out = self.finish
        if len(out) == 3:
            return True
        if self.rules.double_down_play_on:
            return False
        return any(team_of(a) == team_of(b) for i, a in enumerate(out) for b in out[i + 1 :])

    def _order(self) -> tuple[int, ...]:
        last = self.finish[-1]
        rest = [s % 4 for s in range(last + 1, last + 4) if s % 4 not in self.finish]
        return (*self.finish, *rest)

    def _score(self, order: tuple[int, ...]) -> float:
        gain = abs(deal_levels(self.rules, order, self.me))
        worth = gain + WIN_WORTH
        return worth if team_of(order[0]) == team_of(self.me) else -worth

    def _observe(self, seat: int) -> Observation:
        obs = self.obs
        views = _seat_views([len(hand) for hand in self.hands], self.finish, seat, self.rules)
        return Observation(
            seat=seat,
            hand=tuple(sort_hand(self.hands[seat], obs.level)),
            level=obs.level,
            team_levels=obs.team_levels,
            declarer_team=obs.declarer_team,
            deal_number=obs.deal_number,
            phase=Phase.PLAY,
            to_act=(seat,),
            table_play=self.table_play,
            table_seat=self.table_seat,
            seats=views,
            finish_order=tuple(self.finish),
            tributes=(),
            points=obs.points,
            a_failures=obs.a_failures,
            version=obs.version,
            history=tuple(self.history),
        )


def _seat_views(
    counts: list[int], finish: list[int], observer: int, rules: Rules
) -> tuple[SeatView, SeatView, SeatView, SeatView]:
    """The seats as ``observer`` sees them: counts only as the preset's 报牌 rule shows them."""
    views = [
        SeatView(
            s,
            _shown(counts[s], s == observer, rules),
            finish.index(s) + 1 if s in finish else None,
            None,
            False,
        )
        for s in range(4)
    ]
    return (views[0], views[1], views[2], views[3])


def _shown(count: int, own: bool, rules: Rules) -> int | None:
    """Own count always; the others' as :func:`engine.match.observe` shows them (V20 / A29)."""
    visibility = rules.count_visibility
    if own or count == 0 or visibility is CountVisibility.ALWAYS:
        return count
    if visibility is CountVisibility.NEVER or count > rules.report_threshold:
        return None
    return count
