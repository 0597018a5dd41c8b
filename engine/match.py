"""The match state machine: deals, tribute, tricks, scoring and the end of the match.

A :class:`Match` is fully determined by its rules, its seed and the list of
``(seat, action)`` pairs applied to it (``history``), so storage keeps only that
and :meth:`Match.replay` rebuilds the state. Deal *n* is shuffled with a
``random.Random`` seeded from (match seed, *n*), so any deal can be replayed alone; under
不洗牌 (``shuffle=none``) deal *n* is the seeded cut of deal *n − 1*'s table
(:mod:`engine.dealing`), rebuilt by replaying the history before it.

Internal state is mutable (like python-chess's ``Board``) but ``apply`` checks an
action completely before it changes anything, so a refused action leaves the
match exactly as it was. Everything handed out (events, observations, plays) is an
immutable value.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from engine import dealing, moves, tribute
from engine.actions import (
    Action,
    AntiTribute,
    CardsReported,
    Choice,
    ChooseSeat,
    DealEnded,
    DealStarted,
    EndReason,
    Event,
    GiveTribute,
    LeaderChosen,
    LeadReason,
    MatchEnded,
    Pass,
    Passed,
    Phase,
    PlayCards,
    Played,
    PlayerFinished,
    ReturnTribute,
    SeatChosen,
    TimeExpired,
    TributeGiven,
    TributeReturned,
    TrickWon,
    partner_of,
    team_of,
)
from engine.cards import Card, Rank, card_order, format_cards, sort_hand
from engine.classify import MAX_BOMB
from engine.dealing import CARDS_PER_SEAT
from engine.errors import AmbiguousPlay, IllegalAction, IllegalPlay, IllegalTribute, InvalidCards, NotYourTurn
from engine.observation import Observation, SeatView, TributeView, Turn
from engine.playcache import PlayCache
from engine.plays import Play, PlayKind, beats
from engine.rules import (
    CountVisibility,
    EqualTribute,
    FirstLeader,
    JiefengScope,
    MatchFormat,
    NoTributeLeader,
    ReturnPick,
    Rules,
    ShuffleProcedure,
    TimeUp,
    WildcardDeclaration,
)
from engine.scoring import (
    DealResult,
    Settlement,
    Standing,
    Verdict,
    deal_verdict,
    settle_deal,
    stopped_verdict,
)
from engine.serialize import action_from_json, action_to_json

__all__ = ["CARDS_PER_SEAT", "Match", "action_from_json", "action_to_json", "deal_seed", "observe"]


def deal_seed(match_seed: int, deal_number: int) -> int:
    """The seed of one deal's shuffle, derived from the match seed (stable across Pythons)."""
    digest = hashlib.sha256(f"guandan:{match_seed}:{deal_number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(slots=True)
class _Trick:
    """The trick in play; a won trick (or a new lead) starts a fresh one."""

    play: Play | None = None  # the play to beat
    seat: int | None = None  # who played it
    marks: dict[int, Play | None] = field(default_factory=dict)  # seat → its play this trick (None: passed)
    waiting: set[int] = field(default_factory=set)  # seats still to answer the table play


@dataclass(slots=True)
class _Deal:
    """One deal's state, created fresh when the deal is dealt: a reset is one assignment, and
    nothing of a deal can leak into the next (a field added here is reset with the rest)."""

    hands: list[list[Card]]
    played: list[Card] = field(default_factory=list)
    finish_order: list[int] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)  # the public record (observe shares one tuple of it)
    turns_view: tuple[Turn, ...] = ()
    trick_number: int = 0
    trick: _Trick = field(default_factory=_Trick)
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

    def copy(self) -> _Deal:
        """An independent copy; the legal-play caches are rebuilt on demand from its hands."""
        trick = self.trick
        return _Deal(
            [list(hand) for hand in self.hands],
            list(self.played),
            list(self.finish_order),
            list(self.turns),
            self.turns_view,
            self.trick_number,
            _Trick(trick.play, trick.seat, dict(trick.marks), set(trick.waiting)),
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
class _Ended:
    """The latest finished deal as it stood at its last play: its ``_Deal`` is never changed
    again (the next deal gets a new one), so keeping it costs one reference per deal."""

    deal: _Deal
    number: int
    level: Rank
    standing: Standing  # before the deal was scored: the levels it was played at
    declarer_team: int
    version: int  # the match version once the deal's last action was applied


class Match:
    """One match between team 0 (seats 0, 2) and team 1 (seats 1, 3)."""

    def __init__(self, rules: Rules, seed: int) -> None:
        """Use :meth:`new`; this only sets up an empty match."""
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
        self._ended: _Ended | None = None  # the latest finished deal, for observe_deal_end
        self._deal = _Deal([[], [], [], []])  # replaced whole when a deal is dealt
        self._time_expired = False
        self._sudden_death = False
        self._extra_deals = 0  # deals ended in sudden death / 加赛 after a tie
        self._expiry: tuple[int, tuple[int, ...]] | None = None  # declarer, finishers at expiry

    # ------------------------------------------------------------ construction

    @classmethod
    def new(cls, rules: Rules, seed: int) -> Match:
        """A new match with deal 1 dealt."""
        match = cls(rules, seed)
        match._events.extend(match._start_deal())
        return match

    @classmethod
    def from_position(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[Card]],
        *,
        previous_order: tuple[int, int, int, int] | None = None,
        standing: Standing | None = None,
        leader: int = 0,
        seed: int = 0,
        deal_number: int | None = None,
    ) -> Match:
        """A match whose current deal starts from given hands (tests, puzzles, analysis).

        With ``previous_order`` the deal is a later one: tribute follows from it and
        the level is its winners'. Later deals are shuffled from ``seed``; the
        history replays only onto the same position.
        """
        match = cls(rules, seed)
        match.deal_number = deal_number or (1 if previous_order is None else 2)
        match._deal_in_game = 0 if previous_order is None else 1
        match.previous_order = previous_order
        match.standing = standing or Standing()
        match._events.extend(match._open_deal([list(hand) for hand in hands], leader))
        return match

    @classmethod
    def replay(cls, rules: Rules, seed: int, history: Sequence[tuple[int | None, Action]]) -> Match:
        """Rebuild a match from its seed and accepted actions."""
        match = cls.new(rules, seed)
        for seat, action in history:
            match.apply(seat, action)
        return match

    def copy(self) -> Match:
        """An independent snapshot (undo by keeping one, never by reverse steps)."""
        clone = copy.copy(self)  # immutable values (rules, cards, plays, events) are shared
        clone._history, clone._events = list(self._history), list(self._events)
        clone._deal_results, clone._games_won = list(self._deal_results), list(self._games_won)
        clone._deal = self._deal.copy()
        return clone

    # ------------------------------------------------------------ public queries

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

    # ------------------------------------------------------------ actions

    def apply(self, seat: int | None, action: Action) -> list[Event]:
        """Apply one action; raise an :class:`EngineError` subclass and change nothing if refused."""
        if self.is_over:
            raise IllegalAction("the match is over")
        events = self._time_up(seat) if isinstance(action, TimeExpired) else self._seat_action(seat, action)
        self.version += 1
        self._history.append((seat, action))
        self._events.extend(events)
        return events

    def _seat_action(self, seat: int | None, action: Action) -> list[Event]:
        if seat is None or seat not in self.to_act:
            raise NotYourTurn(f"seat {seat} is not to act; waiting for {list(self.to_act)}")
        if isinstance(action, PlayCards | Pass) and self.phase is Phase.PLAY:
            return self._play(seat, action.play) if isinstance(action, PlayCards) else self._pass(seat)
        if isinstance(action, GiveTribute) and self.phase is Phase.TRIBUTE:
            return self._give_tribute(seat, action.card)
        if isinstance(action, ReturnTribute) and self.phase is Phase.RETURN_TRIBUTE:
            return self._return_tribute(seat, action.card)
        if isinstance(action, ChooseSeat) and self.phase is Phase.CHOICE:
            return self._choose(seat, action.seat)
        raise IllegalAction(f"{type(action).__name__} is not allowed in the {self.phase.value} phase")

    # ------------------------------------------------------------ dealing

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
        self._deal = _Deal(hands)
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

    def _payer_of(self, receiver: int) -> int:
        return next(payer for payer, r in self._deal.receivers.items() if r == receiver)

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

    # ------------------------------------------------------------ tricks

    def _play(self, seat: int, play: Play) -> list[Event]:
        self._require_held(seat, play.cards)
        self._check_play(seat, play)
        hand = self._deal.hands[seat]
        for card in play.cards:
            hand.remove(card)
        self._deal.played.extend(play.cards)
        self._deal.trick.play, self._deal.trick.seat = play, seat
        self._deal.trick.marks[seat] = play
        events: list[Event] = [Played(seat, play, len(hand))]
        self._record(seat, play)
        if self._reports_count(len(hand)):
            events.append(CardsReported(seat, len(hand)))
        self._deal.trick.waiting = {s for s in self._active() if s != seat}
        if not hand:
            self._deal.final_plays[seat] = play
            events.append(self._finish(seat))
            if self._order_fixed():
                return events + self._end_deal()
        if not self._deal.trick.waiting:
            return events + self._win_trick()
        self.to_act = (self._next_waiting(seat),)
        return events

    def _check_play(self, seat: int, play: Play) -> None:
        if self._too_big(play):
            raise IllegalPlay(f"bombs of more than {self.rules.max_bomb_size} cards are not allowed")
        if not self._is_reading(seat, play):
            raise IllegalPlay(f"{play} cannot be read as a {play.kind.value} of rank {play.rank}")
        table = self._deal.trick.play
        if table is not None and not beats(play, table):
            raise IllegalPlay(self._does_not_beat(f"{play} ({play.kind.value})", table))

    def _is_reading(self, seat: int, play: Play) -> bool:
        """Whether ``play`` reads its cards truly (the cards are known to be held).

        A play the seat's cache handed out is one by construction; anything else is classified.
        """
        cache = self._deal.caches[seat]
        if cache is not None and cache.generated(play):
            return True
        return moves.is_legal(play, self._deal.hands[seat], self.level)

    def _too_big(self, play: Play) -> bool:
        return play.kind is PlayKind.BOMB and play.size > self.rules.max_bomb_size

    def _pass(self, seat: int) -> list[Event]:
        if self._deal.trick.play is None:
            raise IllegalAction("the leader cannot pass")
        self._deal.trick.waiting.discard(seat)
        self._deal.trick.marks[seat] = None
        self._record(seat, None)
        events: list[Event] = [Passed(seat)]
        if not self._deal.trick.waiting:
            return events + self._win_trick()
        self.to_act = (self._next_waiting(seat),)
        return events

    def _record(self, seat: int, play: Play | None) -> None:
        left = _visible_count(self, seat, None)
        self._deal.turns.append(Turn(seat, play, left, self._deal.trick_number))

    def _next_waiting(self, seat: int) -> int:
        return next(s % 4 for s in range(seat + 1, seat + 4) if s % 4 in self._deal.trick.waiting)

    def _active(self) -> list[int]:
        return [s for s in range(4) if s not in self._deal.finish_order]

    def _win_trick(self) -> list[Event]:
        """Everyone else passed: the table seat leads again; if it is out, its partner
        leads (接风, V23), or under the 上游-only scope the next player still in."""
        winner = self._deal.trick.seat
        assert winner is not None
        out = winner in self._deal.finish_order
        jiefeng = out and (
            self.rules.jiefeng is JiefengScope.ANY_PLAYER or self._deal.finish_order[0] == winner
        )
        jiefeng = jiefeng and partner_of(winner) not in self._deal.finish_order  # out too: a played-on 双下
        leader = winner
        if out:
            leader = partner_of(winner) if jiefeng else self._next_active(winner)
        self._clear_trick()
        self._deal.trick_number += 1
        self.to_act = (leader,)
        return [TrickWon(winner, leader, jiefeng)]

    def _next_active(self, seat: int) -> int:
        return next(s % 4 for s in range(seat + 1, seat + 4) if s % 4 not in self._deal.finish_order)

    def _clear_trick(self) -> None:
        self._deal.trick = _Trick()

    def _reports_count(self, left: int) -> bool:
        visibility = self.rules.count_visibility
        announced = visibility in (CountVisibility.AT_THRESHOLD, CountVisibility.ON_REQUEST)
        return announced and 0 < left <= self.rules.report_threshold

    # ------------------------------------------------------------ end of a deal

    def _finish(self, seat: int) -> PlayerFinished:
        self._deal.finish_order.append(seat)
        self._deal.trick.waiting.discard(seat)
        return PlayerFinished(seat, len(self._deal.finish_order))

    def _order_fixed(self) -> bool:
        """A22: both players of a team are out, or three players are (only the latter when
        the losers of a 双下 play on for 3rd and 4th)."""
        out = self._deal.finish_order
        if len(out) == 3:
            return True
        if self.rules.double_down_play_on:
            return False
        return any(team_of(a) == team_of(b) for i, a in enumerate(out) for b in out[i + 1 :])

    def _end_deal(self) -> list[Event]:
        last = self._deal.finish_order[-1]
        rest = [s % 4 for s in range(last + 1, last + 4) if s % 4 not in self._deal.finish_order]
        order = (*self._deal.finish_order, *rest)
        assert len(order) == 4
        self._deal.finish_order = list(order)
        finals = tuple(self._deal.final_plays.get(seat) for seat in range(4))
        last_hand = tuple(self._deal.hands[order[3]])
        result = DealResult(self.deal_number, order, self.declarer_team, self.level, finals, last_hand)
        before = self.standing
        settled = settle_deal(before, result, self.rules)
        self.standing = settled.standing
        ended = DealEnded(
            self.deal_number,
            order,
            result.winner_team,
            result.outcome,
            settled.levels_gained,
            settled.points,
            before.levels,
            self.standing.levels,
            settled.a_attempt,
        )
        self._deal_results.append(ended)
        self._ended = _Ended(
            self._deal, self.deal_number, self.level, before, self.declarer_team, self.version + 1
        )
        self._extra_deals += self._sudden_death
        self.previous_order = result.finish_order
        self._clear_trick()
        return [ended, *self._after_deal(result, before, settled)]

    def _after_deal(self, result: DealResult, before: Standing, settled: Settlement) -> list[Event]:
        """Decide whether the match (or a best-of game) is over; otherwise deal again."""
        verdict = self._verdict(result, before, settled)
        if verdict is None:
            return self._start_deal()
        if verdict.sudden_death:
            self._sudden_death = True
            return self._start_deal()
        return self._conclude(verdict.winner, verdict.reason)

    def _conclude(self, winner: int | None, reason: EndReason) -> list[Event]:
        """A decided game ends the match, or in best-of counts one game; a game nobody
        won (001-B's time-out, A17) ends the match without a winner."""
        if self.rules.match_format is MatchFormat.BEST_OF and winner is not None:
            return self._game_over(winner)
        return self._end_match(winner, reason)

    def _verdict(self, result: DealResult, before: Standing, settled: Settlement) -> Verdict | None:
        declarer, first_out = self._expiry_facts()
        return deal_verdict(
            before,
            settled,
            result,
            self.rules,
            deals_played=self.deal_number,
            sudden_death=self._sudden_death,
            time_expired=self._time_expired,
            declarer=declarer,
            first_out=first_out,
        )

    def _expiry_facts(self) -> tuple[int, int | None]:
        """台上 when the clock ran out, and the team of the first player out by then (002-A)."""
        declarer, out = self._expiry or (self.declarer_team, ())
        return declarer, (team_of(out[0]) if out else None)

    def _game_over(self, winner: int) -> list[Event]:
        """Best-of: count the game; a new game restarts both teams at 2."""
        self._games_won[winner] += 1
        if self._games_won[winner] > self.rules.best_of // 2:
            return self._end_match(winner, EndReason.BEST_OF)
        self.standing = Standing()
        self._deal_in_game = 0
        self._time_expired, self._sudden_death, self._expiry = False, False, None
        return self._start_deal()

    def _end_match(self, winner: int | None, reason: EndReason) -> list[Event]:
        self.winner_team = winner
        self.phase, self.to_act = Phase.MATCH_OVER, ()
        self._clear_trick()
        return [MatchEnded(winner, reason)]

    # ------------------------------------------------------------ the clock

    def _time_up(self, seat: int | None) -> list[Event]:
        """TimeExpired: from the referee's clock (seat None) in timed formats only."""
        if seat is not None:
            raise IllegalAction("only the match clock (seat None) can end the time")
        if self.rules.time_limit_minutes is None:
            raise IllegalAction("this match is not timed")
        if self._time_expired:
            raise IllegalAction("the time has already expired")
        self._time_expired = True
        self._expiry = (self.declarer_team, tuple(self._deal.finish_order))
        if self.rules.time_up is not TimeUp.STOP_AT_ONCE:
            return []
        last = self._deal_results[-1].winner_team if self._deal_results else None
        declarer, first_out = self._expiry_facts()
        verdict = stopped_verdict(
            self.standing,
            self.rules,
            deals_played=self.deal_number,
            last_winner=last,
            declarer=declarer,
            first_out=first_out,
        )
        if verdict is None or verdict.sudden_death:
            self._sudden_death = True  # the deal in hand goes on as the first extra deal (002-A 顺延加时)
            return []
        return self._conclude(verdict.winner, EndReason.TIME)  # the deal in hand is ignored (001-B, 002-A)

    # ------------------------------------------------------------ helpers

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


# ---------------------------------------------------------------- observation


def observe(match: Match, seat: int | None) -> Observation:
    """What ``seat`` may see (``None``: the public view). Other hands never appear."""
    return Observation(
        seat=seat,
        hand=match.hand(seat) if seat is not None else (),
        level=match.level,
        team_levels=match.standing.levels,
        declarer_team=match.declarer_team,
        deal_number=match.deal_number,
        phase=match.phase,
        to_act=match.to_act,
        table_play=match.table_play,
        table_seat=match.table_seat,
        seats=(
            _seat_view(match, 0, seat),
            _seat_view(match, 1, seat),
            _seat_view(match, 2, seat),
            _seat_view(match, 3, seat),
        ),
        finish_order=tuple(match.finish_order),
        tributes=_tribute_views(match, seat),
        points=match.standing.points,
        a_failures=match.standing.a_failures,
        version=match.version,
        must_tribute_from=match.must_tribute_from(seat) if seat is not None else (),
        may_return=match.may_return(seat) if seat is not None else (),
        games_won=match.games_won,
        choice=match.pending_choice,
        history=match.turns,
    )


def observe_deal_end(match: Match, seat: int) -> Observation | None:
    """What ``seat`` saw as the latest finished deal ended: the cards it was left with (none once
    out), every seat's place, nobody to act; None before a deal has ended. The next deal is
    dealt by the same action, so :func:`observe` already shows it: this is the deal's last look
    (a hand message that closes the deal shows it)."""
    ended = match._ended
    if ended is None:
        return None
    deal, order = ended.deal, tuple(ended.deal.finish_order)
    counts = [_shown_count(match.rules, len(deal.hands[s]), visible=s == seat) for s in range(4)]
    return Observation(
        seat=seat,
        hand=tuple(sort_hand(deal.hands[seat], ended.level)),
        level=ended.level,
        team_levels=ended.standing.levels,
        declarer_team=ended.declarer_team,
        deal_number=ended.number,
        phase=Phase.PLAY,
        to_act=(),
        table_play=None,
        table_seat=None,
        seats=(
            SeatView(0, counts[0], order.index(0) + 1, None, False),
            SeatView(1, counts[1], order.index(1) + 1, None, False),
            SeatView(2, counts[2], order.index(2) + 1, None, False),
            SeatView(3, counts[3], order.index(3) + 1, None, False),
        ),
        finish_order=order,
        tributes=(),
        points=ended.standing.points,
        a_failures=ended.standing.a_failures,
        version=ended.version,
        games_won=match.games_won,
        history=tuple(deal.turns),
    )


def _seat_view(match: Match, seat: int, observer: int | None) -> SeatView:
    play, passed = match.trick_mark(seat)
    place = match.finish_order.index(seat) + 1 if seat in match.finish_order else None
    return SeatView(seat, _visible_count(match, seat, observer), place, play, passed)


def _visible_count(match: Match, seat: int, observer: int | None) -> int | None:
    """Own count always; others per the 报牌 rule (V20 / A29)."""
    return _shown_count(match.rules, match.cards_left(seat), visible=seat == observer)


def _shown_count(rules: Rules, left: int, *, visible: bool) -> int | None:
    """A seat's count as an observer sees it: ``visible`` (its own) always, others per 报牌."""
    visibility = rules.count_visibility
    if visible or left == 0 or visibility is CountVisibility.ALWAYS:
        return left
    if visibility is CountVisibility.NEVER or left > rules.report_threshold:
        return None
    return left


def _tribute_views(match: Match, observer: int | None) -> tuple[TributeView, ...]:
    views = [
        TributeView(payer, receiver, match.paid[payer], False) for payer, receiver in match.receivers.items()
    ]
    hidden = match.rules.returns_face_down and match.phase is Phase.RETURN_TRIBUTE  # 暗扣 until all returned
    choice = match.pending_choice
    picking = choice is not None and choice[0] is Choice.RETURN and observer in match.receivers
    for payer, card in match.returned.items():
        giver = match.return_givers[payer]
        seen = picking or (observer in (giver, payer) and not (hidden and observer == payer))
        views.append(TributeView(giver, payer, card if seen else None, True))
    return tuple(views)
