"""A deal from the shuffle to the first lead: dealing, tribute, its return and the free choices.

:class:`DealPhase` is the part of :class:`engine.match.Match` that runs before the first card is
played (A1 levels, V12–V14 tribute and 抗贡, 不洗牌's cut of the last table); the match
inherits it and goes on with the tricks once :meth:`DealPhase._begin_play` names the leader.
"""

from __future__ import annotations

import random

from engine import dealing, tribute
from engine.actions import (
    AntiTribute,
    Choice,
    DealStarted,
    Event,
    LeaderChosen,
    LeadReason,
    Phase,
    SeatChosen,
    TributeGiven,
    TributeReturned,
    partner_of,
    team_of,
)
from engine.cards import Card, Rank, card_order
from engine.dealing import CARDS_PER_SEAT
from engine.errors import IllegalAction, IllegalTribute
from engine.match_state import DealState, MatchState, deal_seed
from engine.rules import EqualTribute, FirstLeader, NoTributeLeader, ReturnPick, ShuffleProcedure

__all__ = ["DealPhase"]


class DealPhase(MatchState):
    """Deals the cards and settles tribute; :class:`engine.match.Match` plays the tricks."""

    def _start_deal(self) -> list[Event]:
        self.deal_number += 1
        rng = random.Random(deal_seed(self.seed, self.deal_number))
        if self.rules.shuffle is ShuffleProcedure.NONE and self.deal_number > 1:
            last = self._deal
            hands = dealing.unshuffled_hands(last.played, last.held(), last.finish_order, self.level, rng)
        else:
            hands = dealing.shuffled_hands(rng)
        return self._open_deal(hands, self._random_leader(rng))

    def _open_deal(self, hands: list[list[Card]], drawn_leader: int) -> list[Event]:
        """Set up a dealt deal: level (A1), then tribute or the leader."""
        self._deal_in_game += 1
        self._deal = DealState(hands)
        first_of_game = self._deal_in_game == 1 or self.previous_order is None
        if self.previous_order is not None and not first_of_game:
            self.declarer_team = team_of(self.previous_order[0])
        else:
            self.declarer_team = team_of(drawn_leader)
        self.level = self.standing.levels[self.declarer_team] if self.rules.uses_levels else Rank.TWO
        seed = deal_seed(self.seed, self.deal_number)
        events: list[Event] = [DealStarted(self.deal_number, self.level, self.declarer_team, seed)]
        if first_of_game:
            return events + self._begin_play(drawn_leader, LeadReason.FIRST_DEAL)
        return events + self._start_tribute(drawn_leader)

    def _random_leader(self, rng: random.Random) -> int:
        """V16: a random seat, or the holder of a random card position (marker card)."""
        if self.rules.first_leader is FirstLeader.MARKER_CARD:
            return rng.randrange(4 * CARDS_PER_SEAT) // CARDS_PER_SEAT
        return rng.randrange(4)

    def _start_tribute(self, drawn_leader: int) -> list[Event]:
        assert self.previous_order is not None
        order = self.previous_order
        if not self.rules.tribute:
            random_leader = self.rules.no_tribute_leader is NoTributeLeader.RANDOM
            return self._begin_play(drawn_leader if random_leader else order[0], LeadReason.NO_TRIBUTE)
        setup = tribute.setup(order, self._deal.hands, self.rules)
        if setup.anti_tribute:
            assert setup.leader is not None
            return [AntiTribute(setup.anti_tribute), *self._begin_play(setup.leader, LeadReason.ANTI_TRIBUTE)]
        if not setup.payers:
            assert setup.leader is not None
            return self._begin_play(setup.leader, LeadReason.NO_TRIBUTE)
        self._deal.double_down = setup.double_down
        self.phase, self.to_act = Phase.TRIBUTE, setup.payers
        return []

    def _begin_play(self, leader: int, reason: LeadReason) -> list[Event]:
        self._deal.caches = [None, None, None, None]  # the hands are final for this deal
        self.phase = Phase.PLAY
        self.to_act = (leader,)
        self._clear_trick()
        return [LeaderChosen(leader, reason)]

    # ------------------------------------------------------------ tribute

    def _give_tribute(self, seat: int, card: Card) -> list[Event]:
        self._require_held(seat, [card])
        allowed = tribute.allowed_tribute(self._deal.hands[seat], self.level)
        if card not in allowed:
            names = " ".join(str(c) for c in allowed)
            raise IllegalTribute(f"tribute must be the largest card (wildcards excluded): {names}")
        self._deal.hands[seat].remove(card)
        self._deal.paid[seat] = card
        self.to_act = tuple(s for s in self.to_act if s != seat)
        if self.to_act:
            return []
        order = self.previous_order
        assert order is not None
        if self.rules.first_picks_tribute and self._equal_tributes():
            return self._ask(Choice.TRIBUTE, order[0], tuple(sorted(self._deal.paid)))
        return self._deliver_tribute(tribute.assign(order, self._deal.paid, self.level, self.rules))

    def _equal_tributes(self) -> bool:
        assert self.previous_order is not None
        return tribute.equal_double_down(self.previous_order, self._deal.paid, self.level)

    def _deliver_tribute(self, receivers: dict[int, int]) -> list[Event]:
        order = self.previous_order
        assert order is not None
        self._deal.receivers = receivers
        events: list[Event] = []
        for payer, receiver in sorted(receivers.items(), key=lambda item: order.index(item[1])):
            self._deal.hands[receiver].append(self._deal.paid[payer])
            events.append(TributeGiven(payer, receiver, self._deal.paid[payer]))
        self.phase = Phase.RETURN_TRIBUTE
        self.to_act = tuple(sorted(receivers.values()))
        return events

    def _return_tribute(self, seat: int, card: Card) -> list[Event]:
        self._require_held(seat, [card])
        payer = self._payer_of(seat)
        allowed = tribute.allowed_returns(
            self._deal.hands[seat], self.level, seat, payer, self._deal.double_down, self.rules
        )
        if card not in allowed:
            names = " ".join(str(c) for c in allowed)
            raise IllegalTribute(f"the card given back must be one of: {names}")
        self._deal.hands[seat].remove(card)
        self._deal.returned[payer] = card
        self._deal.return_givers[payer] = seat
        self.to_act = tuple(s for s in self.to_act if s != seat)
        events: list[Event] = [TributeReturned(seat, payer, card)]
        if self.to_act:
            return events
        if self._payers_pick_returns():
            return events + self._ask(Choice.RETURN, self._l1(), tuple(sorted(self._deal.receivers.values())))
        return events + self._deliver_returns()

    def _l1(self) -> int:
        """U's 下家, who answers the payers' choices (001-B: it counts as last)."""
        assert self.previous_order is not None
        return (self.previous_order[0] + 1) % 4

    def _payers_pick_returns(self) -> bool:
        pick = self.rules.payers_pick_returns
        if pick is ReturnPick.NEVER or not self._equal_tributes():
            return False
        first, second = (card_order(card, self.level) for card in self._deal.returned.values())
        return pick is ReturnPick.ALWAYS or first == second

    def _deliver_returns(self) -> list[Event]:
        for back_to, returned in self._deal.returned.items():  # V12: revealed together
            self._deal.hands[back_to].append(returned)
        self._deal.returns_delivered = True
        assert self.previous_order is not None
        if self.rules.equal_tribute is EqualTribute.PAYERS_CHOOSE and self._equal_tributes():
            return self._ask(Choice.LEADER, self._l1(), tuple(sorted(self._deal.paid)))
        leader = tribute.leader_after(
            self.previous_order,
            self._deal.paid,
            self._deal.receivers,
            self._deal.returned,
            self.level,
            self.rules,
        )
        return self._begin_play(leader, LeadReason.TRIBUTE)

    # ------------------------------------------------------------ free choices (V12, V14)

    def _ask(self, choice: Choice, seat: int, options: tuple[int, ...]) -> list[Event]:
        self._deal.choice = (choice, options)
        self.phase, self.to_act = Phase.CHOICE, (seat,)
        return []

    def _choose(self, seat: int, chosen: int) -> list[Event]:
        assert self._deal.choice is not None
        choice, options = self._deal.choice
        if chosen not in options:
            raise IllegalAction(f"choose one of seats {list(options)} ({choice.value})")
        other = next(option for option in options if option != chosen)
        self._deal.choice = None
        events: list[Event] = [SeatChosen(seat, choice, chosen)]
        order = self.previous_order
        assert order is not None
        if choice is Choice.TRIBUTE:  # 上游 takes ``chosen``'s card, 二游 the other's
            return events + self._deliver_tribute({chosen: order[0], other: order[1]})
        if choice is Choice.RETURN:  # ``seat`` takes ``chosen``'s return, its partner the other
            cards = {self._deal.return_givers[payer]: card for payer, card in self._deal.returned.items()}
            partner = partner_of(seat)
            self._deal.returned = {seat: cards[chosen], partner: cards[other]}
            self._deal.return_givers = {seat: chosen, partner: other}
            return events + self._deliver_returns()
        return events + self._begin_play(chosen, LeadReason.TRIBUTE)
