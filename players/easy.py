"""A simple, deterministic Guandan player that works from an :class:`Observation` only.

The policy is the one a casual player follows: lead the lowest combination and
shed as many small cards with it as possible, follow with the cheapest play that
beats the table, leave the partner's plays alone unless beating them is cheap,
keep bombs (and wildcards) for when an opponent is about to go out, pay the
allowed tribute card and give back the lowest allowed card. It sees exactly what
a human in that seat sees, so it can take over (托管) for anyone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import groupby
from typing import Final

from engine.actions import Action, ChooseSeat, GiveTribute, Pass, Phase, PlayCards, ReturnTribute, partner_of
from engine.cards import CARDS, Card, Rank, Suit, card_order
from engine.classify import MAX_BOMB
from engine.errors import NotYourTurn
from engine.moves import HandCounts, bombs_of, legal_plays, plays_of_kind
from engine.observation import Observation
from engine.plays import Play, PlayKind
from engine.rules import Rules

DANGER = 6
"""An opponent with this many cards or fewer is about to go out: bombs come out."""

CHEAP = 10
"""Beating the partner is fine when no card above 10 is spent."""

LEAD_KINDS: Final = (
    PlayKind.SINGLE,
    PlayKind.PAIR,
    PlayKind.TRIPLE,
    PlayKind.FULL_HOUSE,
    PlayKind.STRAIGHT,
    PlayKind.PAIR_RUN,
    PlayKind.TRIPLE_RUN,
)
"""The non-bomb kinds in :func:`legal_plays` order. Order matters on ties: 3344 with two
wildcards is both the pair run 334455 and the triple run 333444, equal on every key,
and the play listed first is led."""

_RUN_LENGTH: Final = {PlayKind.STRAIGHT: 5, PlayKind.PAIR_RUN: 3, PlayKind.TRIPLE_RUN: 2}
"""Ranks spanned by each non-bomb sequence kind."""

_RANK_OF: Final = tuple(int(card.rank) for card in CARDS)
"""Natural rank per card index, so the bomb check counts in a dict of ints."""


def choose_action(obs: Observation, rules: Rules) -> Action:
    """The action this seat takes now; raises :class:`NotYourTurn` if it is not to act."""
    if obs.seat is None or obs.seat not in obs.to_act:
        raise NotYourTurn(f"seat {obs.seat} is not to act")
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(obs.must_tribute_from[0])
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(_lowest(obs.may_return, obs.level))
    if obs.choice is not None:
        return ChooseSeat(obs.choice[1][0])
    hand = _Hand(obs)
    if obs.table_play is None:
        return PlayCards(_lead(hand, rules))
    choice = _follow(hand, obs, rules)
    return Pass() if choice is None else PlayCards(choice)


def _allowed(play: Play, rules: Rules) -> bool:
    return play.kind is not PlayKind.BOMB or play.size <= rules.max_bomb_size


class _Hand:
    """What the play keys need to know about one hand, worked out once per decision.

    A 27-card hand has hundreds of plays; counting the hand's ranks and looking up
    each card's order per play used to be most of the AI's time.
    """

    def __init__(self, obs: Observation) -> None:
        self.cards = obs.hand
        self.level = obs.level
        self.order = _card_orders(obs.level)
        self.wildcard = Card(obs.level, Suit.HEARTS).index
        held = Counter(card.rank for card in obs.hand)
        self.bomb_rank = {int(rank): n for rank, n in held.items() if n >= 4}

    @property
    def may_go_out(self) -> bool:
        """Whether one play (a bomb of up to 10 cards at most) could be the whole hand."""
        return len(self.cards) <= MAX_BOMB

    def spare_cards(self) -> list[Card]:
        """The cards a sparing play may use: no wildcard, no card of a rank held 4+ times.

        Non-bomb plays hold at most 3 cards of a rank, so a play touching a bomb's
        rank always breaks it: the sparing plays are exactly the plays of these cards.
        """
        return [
            card
            for card in self.cards
            if card.index != self.wildcard and _RANK_OF[card.index] not in self.bomb_rank
        ]

    def spares(self, play: Play) -> bool:
        """The play uses no wildcard and breaks no bomb (4+ of a rank) in the hand."""
        used: dict[int, int] = {}
        for card in play.cards:
            if card.index == self.wildcard:
                return False
            rank = _RANK_OF[card.index]
            if rank in self.bomb_rank:
                used[rank] = used.get(rank, 0) + 1
        return all(self.bomb_rank[rank] == n for rank, n in used.items())

    def lows(self, kind: PlayKind, plays: Sequence[Play]) -> list[int]:
        """The lowest card each play of ``kind`` spends (A counts 1 at the bottom of a sequence).

        Worked out per kind rather than per play: looking the kind up for each of
        hundreds of plays is an enum hash each time.
        """
        length = _RUN_LENGTH.get(kind)
        if length is not None:
            return [play.rank - length + 1 for play in plays]
        order = self.order
        return [min([order[card.index] for card in play.cards]) for play in plays]

    def top(self, play: Play) -> int:
        """The highest natural card the play spends (a wildcard costs as a level card)."""
        order, wildcard = self.order, self.wildcard
        naturals = [order[card.index] for card in play.cards if card.index != wildcard]
        return max(naturals) if naturals else order[play.cards[0].index]

    def lead_rest(self, play: Play) -> tuple[int, int]:
        """After the lowest start: the most cards, then the lowest top."""
        return (-len(play.cards), self.top(play))

    def follow_rest(self, play: Play) -> tuple[int, int]:
        """After the lowest rank: the lowest top, then the fewest cards."""
        return (self.top(play), len(play.cards))

    def is_cheap(self, play: Play) -> bool:
        """Cheap enough to beat the partner with."""
        return self.top(play) <= CHEAP and self.spares(play)


@lru_cache(maxsize=16)
def _card_orders(level: Rank) -> tuple[int, ...]:
    """:func:`card_order` of every card index at ``level``."""
    return tuple(card_order(card, level) for card in CARDS)


def _lead(hand: _Hand, rules: Rules) -> Play:
    """Go out if one play can; else the lowest play that spares bombs and wildcards.

    The key is (breaks a bomb or spends a wildcard, lowest card, most cards, lowest
    top, card indices). A big hand cannot go out in one play, and any hand has a
    sparing single unless every card is a wildcard or in a bomb, so usually only the
    plays of the spare cards are built: no bombs and no wildcard combinations.
    """
    if not hand.may_go_out:
        spare = hand.spare_cards()
        if spare:
            plays, lows = _ordinary_leads(HandCounts(spare, hand.level), hand)
            return _must(_cheapest(plays, lows, _any, hand.lead_rest))
    counts = HandCounts(hand.cards, hand.level)
    plays, lows = _ordinary_leads(counts, hand)
    finishing = [play for play in plays if len(play.cards) == len(hand.cards)]
    if finishing:
        return finishing[0]
    if hand.may_go_out or not plays:
        bombs = [play for play in bombs_of(counts) if _allowed(play, rules)]
        finishing = [play for play in bombs if play.size == len(hand.cards)]
        if finishing:
            return finishing[0]
        if not plays:
            return min(bombs, key=_bomb_key)
    sparing = _cheapest(plays, lows, hand.spares, hand.lead_rest)
    return sparing if sparing is not None else _must(_cheapest(plays, lows, _any, hand.lead_rest))


def _ordinary_leads(counts: HandCounts, hand: _Hand) -> tuple[list[Play], list[int]]:
    """The non-bomb plays of ``counts`` in :func:`legal_plays` order, with their lowest cards."""
    plays: list[Play] = []
    lows: list[int] = []
    for kind in LEAD_KINDS:
        of_kind = plays_of_kind(counts, kind)
        plays += of_kind
        lows += hand.lows(kind, of_kind)
    return plays, lows


def _follow(hand: _Hand, obs: Observation, rules: Rules) -> Play | None:
    """Go out if a play can; else the lowest sparing play that beats the table.

    The partner is beaten only cheaply; an opponent is beaten at any cost (bombs
    last) only when one is about to go out. A big hand cannot go out, so the sparing
    plays come from the spare cards alone, and the whole hand's plays (bombs and
    wildcards included) are built only when none of them beats the table.
    """
    assert obs.seat is not None and obs.table_play is not None
    partner_on_table = obs.table_seat == partner_of(obs.seat)
    if not hand.may_go_out:
        spare = _ordinary(legal_plays(hand.spare_cards(), hand.level, obs.table_play))
        ranks = [play.rank for play in spare]
        if partner_on_table:
            return _cheapest(spare, ranks, hand.is_cheap, hand.follow_rest)
        if spare:
            return _cheapest(spare, ranks, _any, hand.follow_rest)
        if not _opponent_in_danger(obs):
            return None
    plays = [p for p in legal_plays(hand.cards, hand.level, obs.table_play) if _allowed(p, rules)]
    finishing = [p for p in plays if p.size == len(hand.cards)]
    if finishing:
        return min(finishing, key=_bomb_key)
    ordinary = _ordinary(plays)
    ranks = [play.rank for play in ordinary]
    if partner_on_table:
        return _cheapest(ordinary, ranks, hand.is_cheap, hand.follow_rest)
    clean = _cheapest(ordinary, ranks, hand.spares, hand.follow_rest)
    if clean is not None:
        return clean
    if not _opponent_in_danger(obs):
        return None
    if ordinary:
        return _cheapest(ordinary, ranks, _any, hand.follow_rest)
    bombs = [p for p in plays if p.is_bomb]
    return min(bombs, key=_bomb_key) if bombs else None


def _ordinary(plays: Sequence[Play]) -> list[Play]:
    return [play for play in plays if not play.is_bomb]


def _cheapest(
    plays: Sequence[Play],
    firsts: Sequence[int],
    accept: Callable[[Play], bool],
    then: Callable[[Play], tuple[int, int]],
) -> Play | None:
    """The accepted play with the lowest ``(firsts[i], then(play), card indices)``, the first
    listed on a tie: the answer of ``min`` over the accepted plays with that key.

    Plays are grouped by the cheap first component ``firsts`` (one per play);
    ``accept``, ``then`` and the index tuples run only on the lowest groups, up to the
    first group with an accepted play, instead of on every one of a big hand's hundreds
    of plays.
    """
    by_first = sorted(range(len(plays)), key=firsts.__getitem__)
    for _, group in groupby(by_first, key=firsts.__getitem__):
        accepted = [plays[i] for i in group if accept(plays[i])]
        if accepted:
            return min(accepted, key=lambda play: (then(play), _indices(play)))
    return None


def _any(play: Play) -> bool:
    return True


def _must(play: Play | None) -> Play:
    assert play is not None
    return play


def _opponent_in_danger(obs: Observation) -> bool:
    assert obs.seat is not None
    opponents = ((obs.seat + 1) % 4, (obs.seat + 3) % 4)
    counts = [obs.seats[s].cards_left for s in opponents if obs.seats[s].place is None]
    return any(n is not None and n <= DANGER for n in counts)


def _bomb_key(play: Play) -> tuple[int, ...]:
    return (*play.bomb_power, play.size, *_indices(play))


def _indices(play: Play) -> tuple[int, ...]:
    return tuple(card.index for card in play.cards)


def _lowest(cards: Sequence[Card], level: Rank) -> Card:
    return min(cards, key=lambda card: (card_order(card, level), card.index))


def timeout_action(obs: Observation) -> Action:
    """What the clock plays for a seat out of time (V21 / A13, 002-E).

    A leader plays its lowest single (the docs/rules.md §1.2 order never picks a wildcard while a
    natural non-level card remains), a follower passes; tribute pays the first allowed
    card, a return gives the lowest allowed card and a free choice (V12, V14) takes the
    lowest seat offered. Used when ``rules.timeout_action``
    is ``LOWEST_OR_PASS``.
    """
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(obs.must_tribute_from[0])
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(_lowest(obs.may_return, obs.level))
    if obs.choice is not None:
        return ChooseSeat(obs.choice[1][0])
    if obs.table_play is not None:
        return Pass()
    card = _lowest(obs.hand, obs.level)
    return PlayCards(Play(PlayKind.SINGLE, card_order(card, obs.level), (card,)))
