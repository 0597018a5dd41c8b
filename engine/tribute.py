"""Tribute (进贡), return tribute (还贡) and anti-tribute (抗贡): docs/rules.md §1.10, V08–V15.

Pure functions of the previous deal's finishing order, the new hands and the
rules; the match keeps the state and calls these to decide who pays whom, which
cards are allowed and who leads afterwards.

Names follow docs/rules.md §1.10: after a 双下, U = 上游, U' = its partner (二游),
L1 = U's 下家 and L2 = U's 上家. The match records a 双下 finishing order as
U, U', L2, L1, so L1 counts as the last player (001-B "頭游下家為最后一名").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.actions import partner_of, team_of
from engine.cards import BIG_JOKER, Card, Rank, card_order
from engine.rules import (
    AntiTribute,
    AntiTributeJokers,
    DoubleDownLeader,
    EqualTribute,
    ReturnLimit,
    Rules,
    TributeAssignment,
)


@dataclass(frozen=True, slots=True)
class TributeSetup:
    """What happens before play: who pays, or why nobody does."""

    payers: tuple[int, ...]  # seats that must pay, empty when no tribute is paid
    double_down: bool
    anti_tribute: tuple[int, ...] = ()  # 抗贡: the seats whose 大王 count
    leader: int | None = None  # the leader when nobody pays


def is_double_down(order: Sequence[int]) -> bool:
    """双下: the first two places are partners."""
    return team_of(order[0]) == team_of(order[1])


def setup(order: Sequence[int], hands: Sequence[Sequence[Card]], rules: Rules) -> TributeSetup:
    """Decide the tribute for a deal after one that finished in ``order``."""
    double = is_double_down(order)
    payers = (order[2], order[3]) if double else (order[3],)
    if not double and team_of(order[3]) == team_of(order[0]) and not rules.partner_tribute:
        return TributeSetup((), False, leader=order[0])
    holders = _anti_tribute_holders(order, hands, double, rules)
    if holders:
        return TributeSetup((), double, anti_tribute=holders, leader=order[0])
    return TributeSetup(tuple(sorted(payers)), double)


def _anti_tribute_holders(
    order: Sequence[int], hands: Sequence[Sequence[Card]], double: bool, rules: Rules
) -> tuple[int, ...]:
    """The losers' seats holding the two 大王 between them, or () if they do not."""
    if rules.anti_tribute is AntiTribute.DISABLED:
        return ()
    seats = [order[2], order[3]] if double else [order[3]]
    losing_side = rules.anti_tribute_jokers is AntiTributeJokers.LOSING_SIDE
    if not double and losing_side and partner_of(order[3]) != order[0]:
        seats.append(partner_of(order[3]))
    counts = {seat: sum(card is BIG_JOKER for card in hands[seat]) for seat in seats}
    if sum(counts.values()) < 2:
        return ()
    return tuple(sorted(seat for seat, n in counts.items() if n))


def allowed_tribute(hand: Iterable[Card], level: Rank) -> tuple[Card, ...]:
    """The highest cards of the hand, wildcards (♥ level cards) excluded; one per face."""
    candidates = [card for card in hand if not card.is_wildcard(level)]
    top = max(card_order(card, level) for card in candidates)
    return _distinct(card for card in candidates if card_order(card, level) == top)


def assign(order: Sequence[int], paid: Mapping[int, Card], level: Rank, rules: Rules) -> dict[int, int]:
    """Payer → receiver once every payer has paid (V10, V14)."""
    first, second = order[0], order[1]
    if not is_double_down(order):
        return {order[3]: first}
    l1, l2 = (first + 1) % 4, (first + 3) % 4
    if rules.tribute_assignment is TributeAssignment.BY_PLACE:
        return {order[3]: first, order[2]: second}
    rank1, rank2 = card_order(paid[l1], level), card_order(paid[l2], level)
    if rank1 != rank2:
        larger, smaller = (l1, l2) if rank1 > rank2 else (l2, l1)
        return {larger: first, smaller: second}
    if rules.equal_tribute is EqualTribute.L2_TO_FIRST:
        return {l2: first, l1: second}
    return {l1: first, l2: second}


def equal_double_down(order: Sequence[int], paid: Mapping[int, Card], level: Rank) -> bool:
    """A 双下 whose two tribute cards rank equal (V14): where the seeds' free choices apply."""
    if not is_double_down(order) or len(paid) != 2:
        return False
    first, second = (card_order(card, level) for card in paid.values())
    return first == second


def allowed_returns(
    hand: Iterable[Card], level: Rank, receiver: int, payer: int, double_down: bool, rules: Rules
) -> tuple[Card, ...]:
    """Cards ``receiver`` may give back to ``payer`` (V11, A11); the lowest if none fit."""
    cards = list(hand)
    limit = rules.return_limit
    if double_down and rules.return_limit_double_down is not None:
        limit = rules.return_limit_double_down
    fitting = [
        card for card in cards if _fits_limit(card, level, limit, team_of(receiver) == team_of(payer), rules)
    ]
    if fitting:
        return _distinct(fitting, level)
    lowest = min(card_order(card, level) for card in cards)
    return _distinct((card for card in cards if card_order(card, level) == lowest), level)


def _fits_limit(card: Card, level: Rank, limit: ReturnLimit, to_partner: bool, rules: Rules) -> bool:
    if limit is ReturnLimit.ANY:
        return True
    if limit is ReturnLimit.BELOW_LEVEL_TO_PARTNER and to_partner:
        return not card.is_joker and card.rank != level  # below the level card (参谋)
    if card.is_joker or card.rank > Rank.TEN:
        return False
    return rules.return_level_card or card.rank != level


def leader_after(
    order: Sequence[int],
    paid: Mapping[int, Card],
    receivers: Mapping[int, int],
    returned: Mapping[int, Card],
    level: Rank,
    rules: Rules,
) -> int:
    """Who leads once the exchange is over (docs/rules.md §1.10, V13, V14).

    ``paid`` maps payer → tribute card; ``returned`` maps payer → card it got back.
    Under :attr:`EqualTribute.PAYERS_CHOOSE` the match asks the payers; this gives L1.
    """
    if not is_double_down(order):
        return order[3]
    first = order[0]
    l1, l2 = (first + 1) % 4, (first + 3) % 4
    rank1, rank2 = card_order(paid[l1], level), card_order(paid[l2], level)
    if rank1 != rank2:
        if rules.double_down_leader is DoubleDownLeader.LAST_PLACE:
            return order[3]
        return l1 if rank1 > rank2 else l2  # 进贡大牌的先出牌, whoever received it (V10 by place)
    if rules.equal_tribute in (EqualTribute.L1_TO_FIRST_L2_LEADS, EqualTribute.L2_TO_FIRST):
        return l2
    if rules.equal_tribute is EqualTribute.PAID_FIRST_LEADS:
        return next(payer for payer, receiver in receivers.items() if receiver == first)
    if rules.equal_tribute is EqualTribute.SMALLER_RETURN_LEADS:
        back1, back2 = card_order(returned[l1], level), card_order(returned[l2], level)
        if back1 != back2:
            return l1 if back1 < back2 else l2
    return l1


def _distinct(cards: Iterable[Card], level: Rank | None = None) -> tuple[Card, ...]:
    """One card per face, low to high (in the level's order when given)."""
    unique = set(cards)
    if level is None:
        return tuple(sorted(unique, key=lambda card: card.index))
    return tuple(sorted(unique, key=lambda card: (card_order(card, level), card.index)))
