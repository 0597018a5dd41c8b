"""What a match holds and what may be asked of it, apart from how its phases change it.

:class:`MatchState` is the state of :class:`engine.match.Match` (one deal's cards and trick in
a :class:`DealState`, replaced whole when a deal is dealt) with every query players, tools and
:mod:`engine.observer` ask; :mod:`engine.deal_phase` (dealing, tribute, the free choices) and
:mod:`engine.match` (tricks, the end of a deal, the clock) are what change it. The split keeps
each file to one role: the observer reads a state without importing the machine that makes it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from engine import moves, tribute
from engine.actions import Action, Choice, DealEnded, Event, Phase
from engine.cards import Card, Rank, format_cards, sort_hand
from engine.classify import MAX_BOMB
from engine.errors import AmbiguousPlay, IllegalPlay, InvalidCards, NotYourTurn
from engine.observation import Turn
from engine.playcache import PlayCache
from engine.plays import Play, PlayKind
from engine.rules import Rules, WildcardDeclaration
from engine.scoring import Standing

__all__ = ["DealState", "EndedDeal", "MatchState", "Trick", "deal_seed"]


def deal_seed(match_seed: int, deal_number: int) -> int:
    """The seed of one deal's shuffle, derived from the match seed (stable across Pythons)."""
    digest = hashlib.sha256(f"guandan:{match_seed}:{deal_number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(slots=True)
class Trick:
    """The trick in play; a won trick (or a new lead) starts a fresh one."""

    play: Play | None = None  # the play to beat
    seat: int | None = None  # who played it
    marks: dict[int, Play | None] = field(default_factory=dict)  # seat → its play this trick (None: passed)
    waiting: set[int] = field(default_factory=set)  # seats still to answer the table play


@dataclass(slots=True)
class DealState:
    """One deal's state, created fresh when the deal is dealt: a reset is one assignment, and
    nothing of a deal can leak into the next (a field added here is reset with the rest)."""

    hands: list[list[Card]]
    played: list[Card] = field(default_factory=list)
    finish_order: list[int] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)  # the public record (observe shares one tuple of it)
    turns_view: tuple[Turn, ...] = ()
    trick_number: int = 0
    trick: Trick = field(default_factory=Trick)
    caches: list[PlayCache | None] = field(default_factory=lambda: [None, None, None, None])
    final_plays: dict[int, Play] = field(default_factory=dict)  # seat → the play that emptied its hand
    double_down: bool = False
    paid: dict[int, Card] = field(default_factory=dict)  # payer → tribute card
    receivers: dict[int, int] = field(default_factory=dict)  # payer → receiver
    returned: dict[int, Card] = field(default_factory=dict)  # payer → the card given back to it
    return_givers: dict[int, int] = field(default_factory=dict)  # payer → the winner whose return it got
    choice: tuple[Choice, tuple[int, ...]] | None = None  # the CHOICE phase's question
    returns_delivered: bool = False  # returns reach the payers' hands together

    def held(self) -> list[list[Card]]:
        """Each seat's cards, with tribute in transit back in the hand it left: with the
        played cards, all 108 even when the clock cuts a tribute short (不洗牌 gathers them)."""
        held = [list(hand) for hand in self.hands]
        for payer, card in self.paid.items():
            if payer not in self.receivers:
                held[payer].append(card)
        if not self.returns_delivered:
            for payer, card in self.returned.items():
                held[self.return_givers[payer]].append(card)
        return held

    def copy(self) -> DealState:
        """An independent copy; the legal-play caches are rebuilt on demand from its hands."""
        trick = self.trick
        return DealState(
            [list(hand) for hand in self.hands],
            list(self.played),
            list(self.finish_order),
            list(self.turns),
            self.turns_view,
            self.trick_number,
            Trick(trick.play, trick.seat, dict(trick.marks), set(trick.waiting)),
            [None, None, None, None],
            dict(self.final_plays),
            self.double_down,
            dict(self.paid),
            dict(self.receivers),
            dict(self.returned),
            dict(self.return_givers),
            self.choice,
            self.returns_delivered,
        )


@dataclass(frozen=True, slots=True)
class EndedDeal:
    """The latest finished deal as it stood at its last play: its ``DealState`` is never changed
    again (the next deal gets a new one), so keeping it costs one reference per deal."""

    deal: DealState
    number: int
    level: Rank
    standing: Standing  # before the deal was scored: the levels it was played at
    declarer_team: int
    version: int  # the match version once the deal's last action was applied


class MatchState:
    """What a match holds and what may be asked of it; the phases (:mod:`engine.deal_phase`,
    :class:`engine.match.Match`) change it."""

    def __init__(self, rules: Rules, seed: int) -> None:
        """Use :meth:`engine.match.Match.new`; this only sets up an empty match."""
        self.rules = rules
        self.seed = seed
        self.version = 0
        self._history: list[tuple[int | None, Action]] = []
        self._events: list[Event] = []
        self.standing = Standing()
        self._games_won = [0, 0]
        self.deal_number = 0
        self._deal_in_game = 0
        self.declarer_team = 0
        self.level = Rank.TWO
        self.phase = Phase.PLAY
        self.to_act: tuple[int, ...] = ()
        self.winner_team: int | None = None
        self.previous_order: tuple[int, int, int, int] | None = None
        self._deal_results: list[DealEnded] = []
        self._ended: EndedDeal | None = None  # the latest finished deal, for observe_deal_end
        self._deal = DealState([[], [], [], []])  # replaced whole when a deal is dealt
        self._time_expired = False
        self._sudden_death = False
        self._extra_deals = 0  # deals ended in sudden death / 加赛 after a tie
        self._expiry: tuple[int, tuple[int, ...]] | None = None  # declarer, finishers at expiry

    @property
    def history(self) -> tuple[tuple[int | None, Action], ...]:
        """Every accepted ``(seat, action)``; storage keeps this and the seed."""
        return tuple(self._history)

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """All four hands (for tests and the engine's own tools; players get :func:`observe`)."""
        return tuple(tuple(hand) for hand in self._deal.hands)

    @property
    def table_play(self) -> Play | None:
        """The play to beat in the current trick (None: the next play leads)."""
        return self._deal.trick.play

    @property
    def table_seat(self) -> int | None:
        """Who made :attr:`table_play`."""
        return self._deal.trick.seat

    @property
    def played(self) -> tuple[Card, ...]:
        """The cards played so far in this deal."""
        return tuple(self._deal.played)

    @property
    def finish_order(self) -> tuple[int, ...]:
        """Seats out so far, 上游 first (all four once the deal has ended)."""
        return tuple(self._deal.finish_order)

    @property
    def deal_results(self) -> tuple[DealEnded, ...]:
        return tuple(self._deal_results)

    @property
    def time_expired(self) -> bool:
        """Whether the referee's clock has run out in the current game (TimeExpired applied)."""
        return self._time_expired

    @property
    def extra_deals(self) -> int:
        """Deals played after a tie (加赛 in points formats, A26 sudden death after a time-out)."""
        return self._extra_deals

    @property
    def games_won(self) -> tuple[int, int]:
        return (self._games_won[0], self._games_won[1])

    @property
    def paid(self) -> Mapping[int, Card]:
        """This deal's tribute: payer → card."""
        return MappingProxyType(self._deal.paid)

    @property
    def receivers(self) -> Mapping[int, int]:
        """This deal's tribute: payer → receiver (once every payer has paid)."""
        return MappingProxyType(self._deal.receivers)

    @property
    def returned(self) -> Mapping[int, Card]:
        """This deal's return tribute: payer → the card given back to it."""
        return MappingProxyType(self._deal.returned)

    @property
    def return_givers(self) -> Mapping[int, int]:
        """This deal's return tribute: payer → the winner whose card it got back."""
        return MappingProxyType(self._deal.return_givers)

    @property
    def pending_choice(self) -> tuple[Choice, tuple[int, ...]] | None:
        """In the CHOICE phase: what ``to_act`` decides and the seats it may answer."""
        return self._deal.choice if self.phase is Phase.CHOICE else None

    @property
    def last_deal(self) -> EndedDeal | None:
        """The latest finished deal as it stood at its last play (None before one has ended)."""
        return self._ended

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.MATCH_OVER

    @property
    def turn(self) -> int | None:
        """The seat to play in the PLAY phase."""
        return self.to_act[0] if self.phase is Phase.PLAY and self.to_act else None

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(sort_hand(self._deal.hands[seat], self.level))

    def cards_left(self, seat: int) -> int:
        return len(self._deal.hands[seat])

    def all_cards(self) -> list[Card]:
        """Every card the deal is holding: hands, played cards and tribute in transit."""
        pending = [card for payer, card in self._deal.paid.items() if payer not in self._deal.receivers]
        if not self._deal.returns_delivered:
            pending.extend(self._deal.returned.values())
        return [card for hand in self._deal.hands for card in hand] + self._deal.played + pending

    def legal_plays(self, seat: int) -> list[Play]:
        """Plays ``seat`` may make now (empty unless it is the seat's turn to play)."""
        if self.turn != seat:
            return []
        cache = self._deal.caches[seat]
        if cache is None:
            cache = self._deal.caches[seat] = PlayCache(self.level)
        plays = cache.plays(self._deal.hands[seat], self._deal.trick.play)
        if self.rules.max_bomb_size >= MAX_BOMB:
            return plays
        return [play for play in plays if not self._too_big(play)]

    def readings(self, seat: int, cards: Sequence[Card]) -> list[Play]:
        """The readings of a selection that ``seat`` may play now, lowest first.

        Raises :class:`InvalidCards` for cards the seat does not hold.
        """
        self._require_held(seat, cards)
        if self.turn != seat:
            return []
        found = moves.readings_for(cards, self._deal.hands[seat], self.level, self._deal.trick.play)
        return sorted((p for p in found if not self._too_big(p)), key=lambda p: (p.bomb_power, p.rank))

    def resolve(self, seat: int, cards: Sequence[Card]) -> Play:
        """The play a selection without a declared reading stands for (V22 / A24).

        One legal reading is taken as is; with several, the lowest is used unless the
        rules make the player declare it (:class:`AmbiguousPlay`). No legal reading
        raises :class:`IllegalPlay` naming what is on the table.
        """
        if self.turn != seat:
            raise NotYourTurn(f"seat {seat} is not to play; waiting for {list(self.to_act)}")
        found = self.readings(seat, cards)
        if not found:
            raise IllegalPlay(self._no_reading_message(cards))
        if len(found) > 1 and self.rules.wildcard_declaration is WildcardDeclaration.MUST_DECLARE:
            raise AmbiguousPlay(f"{format_cards(cards)} can be read {len(found)} ways; declare one")
        return found[0]

    def _no_reading_message(self, cards: Sequence[Card]) -> str:
        table = self._deal.trick.play
        if table is None:
            return f"{format_cards(cards)} is not a play"
        return self._does_not_beat(format_cards(cards), table)

    def _does_not_beat(self, what: str, table: Play) -> str:
        return f"{what} does not beat {table} ({table.kind.value}) played by seat {self._deal.trick.seat}"

    def must_tribute_from(self, seat: int) -> tuple[Card, ...]:
        if self.phase is not Phase.TRIBUTE or seat not in self.to_act:
            return ()
        return tribute.allowed_tribute(self._deal.hands[seat], self.level)

    def may_return(self, seat: int) -> tuple[Card, ...]:
        if self.phase is not Phase.RETURN_TRIBUTE or seat not in self.to_act:
            return ()
        payer = self._payer_of(seat)
        return tribute.allowed_returns(
            self._deal.hands[seat], self.level, seat, payer, self._deal.double_down, self.rules
        )

    @property
    def turns(self) -> tuple[Turn, ...]:
        """This deal's plays and passes as everyone saw them (one shared tuple per version)."""
        if len(self._deal.turns_view) != len(self._deal.turns):
            self._deal.turns_view = tuple(self._deal.turns)
        return self._deal.turns_view

    def trick_mark(self, seat: int) -> tuple[Play | None, bool]:
        """The seat's play in the current trick and whether it passed."""
        if seat not in self._deal.trick.marks:
            return None, False
        play = self._deal.trick.marks[seat]
        return play, play is None

    # ------------------------------------------------------------ helpers the phases share

    def _payer_of(self, receiver: int) -> int:
        return next(payer for payer, r in self._deal.receivers.items() if r == receiver)

    def _too_big(self, play: Play) -> bool:
        return play.kind is PlayKind.BOMB and play.size > self.rules.max_bomb_size

    def _clear_trick(self) -> None:
        self._deal.trick = Trick()

    def _require_held(self, seat: int, cards: Sequence[Card]) -> None:
        rest = list(self._deal.hands[seat])
        try:
            for card in cards:
                rest.remove(card)  # cards are interned: identity, in C
        except ValueError:
            self._refuse_unheld(seat, cards)

    def _refuse_unheld(self, seat: int, cards: Sequence[Card]) -> None:
        """Name every card of the selection beyond what the seat holds."""
        missing = Counter(cards)
        missing.subtract(Counter(self._deal.hands[seat]))
        lacking = sorted((card for card, n in missing.items() if n > 0), key=lambda card: card.index)
        if lacking:
            raise InvalidCards(f"seat {seat} does not hold: {' '.join(str(c) for c in lacking)}")
