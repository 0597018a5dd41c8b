"""The referee of a protocol run: the match, the messages each seat gets, and the tallies.

Pure and deterministic given its seed: it never touches a socket. The server asks it
for the next :class:`Request` (whose seat answers with an index into ``actions``),
hands the answer to :meth:`Referee.answer`, and sends the :class:`Notice` values that
come back. AI seats are answered by :meth:`Referee.ai_action` with a policy from
:data:`SEAT_POLICIES`; the free choices some
presets have after equal 双下 tributes (no protocol message exists for them) are
answered by the fallback AI for whoever must choose.

A run plays ``deals`` deals. A *game* is one of our matches (a race past A under the
rules); when one ends the next starts at level 2, as the platform does, until the deals
are played (or ``games`` games are). Each seat's tally counts deals won by its team, the
levels its team gained and the games it won or drew.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from engine.actions import (
    AAttempt,
    Action,
    AntiTribute,
    DealEnded,
    DealStarted,
    Event,
    LeaderChosen,
    LeadReason,
    MatchEnded,
    Passed,
    Phase,
    PlayCards,
    Played,
    TributeGiven,
    TrickWon,
    team_of,
)
from engine.cards import Card, Rank
from engine.match import Match, observe
from engine.plays import Play
from engine.rules import AFailureCount, APass, CountVisibility, Rules
from players.policies import DEFAULT, POLICIES, Policy
from tools.njupt import protocol
from tools.njupt.protocol import Message, ProtocolAction

PLATFORM_RULES: Final = Rules(
    a_pass=APass.DOUBLE_DOWN,
    a_failure_limit=2,
    a_failure_count=AFailureCount.TOTAL,
    return_level_card=False,
    count_visibility=CountVisibility.ALWAYS,
)
"""The offline platform's rules where they differ from ours: A is passed only by 1st+2nd,
two failed deals at A send the team back to 2, the return is a card of 2–10 other than the
level rank (the manual's example), and every seat's card count is public (``publicInfo``)."""

SEAT_POLICIES: Final[dict[str, Policy]] = {"ai": POLICIES[DEFAULT], **POLICIES}
"""Our computer players by seat name: ``ai`` is 标准 (the planner, fast enough to be the fallback
too), the others are :data:`players.policies.POLICIES` (``normal``, ``master``, ``easy``,
``greedy``, ``random``)."""

FALLBACK: Final = "ai"
"""Plays for an outside client that keeps answering wrongly, times out or leaves."""

PLATFORM_DRAW_AFTER_RESETS: Final = 50
"""The platform declares a game drawn after this many drops from A back to 2."""


@dataclass(frozen=True, slots=True)
class Notice:
    """A message for one seat."""

    seat: int
    message: Message


@dataclass(frozen=True, slots=True)
class Request:
    """``seat`` must choose one of ``actions``; ``message`` is the ``act`` to send it."""

    seat: int
    message: Message
    actions: tuple[Action, ...]


@dataclass(slots=True)
class Tally:
    """One seat's figures for the result line."""

    deals: int = 0
    deal_wins: int = 0
    level_gains: int = 0
    firsts: int = 0  # 上游
    games_won: int = 0
    draws: int = 0


def game_seed(seed: int, game: int) -> int:
    """Game *n*'s match seed, derived from the run's seed (stable across Pythons)."""
    digest = hashlib.sha256(f"njupt:{seed}:{game}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class Referee:
    """Runs deals between four seats and says who must answer what; see the module docstring."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        deals: int,
        *,
        games: int | None = None,
        draw_after_resets: int | None = None,
    ) -> None:
        if deals < 1:
            raise ValueError("a run needs at least one deal")
        self.rules, self.seed, self.deals = rules, seed, deals
        self.games, self.draw_after_resets = games, draw_after_resets
        self.tallies = [Tally() for _ in range(4)]
        self.deals_played = 0
        self.games_over = 0
        self.finished = False
        self._rng = random.Random(seed)
        self._game = 0
        self.match = self._new_game()
        self._resets = 0  # drops from A back to 2 in this game
        self._last: tuple[int, ProtocolAction] | None = None  # curPos / curAction of this trick

    def start(self) -> list[Notice]:
        """The first deal's notices (``notify/beginning`` for every seat)."""
        return self._notices(self.match.events, _Before(self.match))

    # ------------------------------------------------------------ what to ask

    def request(self) -> Request | None:
        """The decision the run waits for, or ``None`` once it is finished."""
        if self.finished:
            return None
        match = self.match
        seat = match.to_act[0]
        if match.phase is Phase.TRIBUTE:
            listed, actions = protocol.tribute_actions(match.must_tribute_from(seat))
            return Request(seat, self._act("tribute", seat, listed, exchange=True), tuple(actions))
        if match.phase is Phase.RETURN_TRIBUTE:
            listed, actions = protocol.back_actions(match.may_return(seat))
            return Request(seat, self._act("back", seat, listed, exchange=True), tuple(actions))
        following = match.table_play is not None
        listed, actions = protocol.legal_actions(
            match.legal_plays(seat), match.level, following=following, table=match.table_play
        )
        return Request(seat, self._act("play", seat, listed, exchange=False), tuple(actions))

    def _act(self, stage: str, seat: int, listed: list[ProtocolAction], *, exchange: bool) -> Message:
        match = self.match
        levels = match.standing.levels
        team = team_of(seat)
        current: tuple[int, ProtocolAction | None] = (-1, None)
        greater: tuple[int, ProtocolAction | None] = (-1, None)
        if not exchange and match.table_play is not None and match.table_seat is not None:
            greater = (match.table_seat, protocol.play_action(match.table_play, match.level))
            current = self._last or greater
        return protocol.act(
            stage,
            hand=match.hand(seat),
            info=self._public_info(),
            ranks=(levels[team], levels[1 - team], match.level),
            current=current,
            greater=greater,
            actions=listed,
        )

    def _public_info(self) -> list[dict[str, Any]]:
        areas: list[ProtocolAction | None] = []
        for seat in range(4):
            play, passed = self.match.trick_mark(seat)
            if play is not None:
                areas.append(protocol.play_action(play, self.match.level))
            else:
                areas.append(list(protocol.PASS_ACTION) if passed else None)
        return protocol.public_info([self.match.cards_left(seat) for seat in range(4)], areas)

    def ai_action(self, seat: int, policy: Policy | str = FALLBACK) -> Action:
        """What the named (or given) computer player does for ``seat`` now."""
        chosen = SEAT_POLICIES[policy] if isinstance(policy, str) else policy
        return chosen(observe(self.match, seat), self.rules, self._rng)

    # ------------------------------------------------------------ answers

    def answer(self, seat: int, action: Action) -> list[Notice]:
        """Apply ``seat``'s action (from a request's ``actions`` or :meth:`ai_action`)."""
        if self.finished:
            raise ValueError("the run is finished")
        before = _Before(self.match)
        notices = self._notices(self.match.apply(seat, action), before)
        while not self.finished and self.match.phase is Phase.CHOICE:
            chooser = self.match.to_act[0]
            before = _Before(self.match)
            events = self.match.apply(chooser, self.ai_action(chooser))
            notices += self._notices(events, before)
        return notices

    # ------------------------------------------------------------ events → notices

    def _notices(self, events: Sequence[Event], before: _Before) -> list[Notice]:
        out: list[Notice] = []
        tributes: list[tuple[int, int, Card]] = []  # a payer's TributeGiven come together
        game = self._game
        for event in events:
            if tributes and not isinstance(event, TributeGiven):
                out += self._everyone(protocol.exchange_notice("tribute", tributes))
                tributes = []
            if self._game != game or (isinstance(event, DealStarted) and not self._more()):
                break  # a new game has sent its own notices, or the run ends with this deal
            if isinstance(event, DealStarted):
                self._last = None
                out += [Notice(s, protocol.beginning(self.match.hand(s), s)) for s in range(4)]
            elif isinstance(event, Played | Passed):
                out += self._everyone(self._play_notice(event, before))
            elif isinstance(event, TrickWon):
                self._last = None
            elif isinstance(event, AntiTribute):
                out += self._everyone(protocol.anti_tribute_notice(event.seats))
            elif isinstance(event, TributeGiven):
                tributes.append((event.giver, event.receiver, event.card))
            elif isinstance(event, LeaderChosen) and event.reason is LeadReason.TRIBUTE:
                out += self._everyone(protocol.exchange_notice("back", self._returns()))
            elif isinstance(event, DealEnded):
                out += self._deal_ended(event, before)
            elif isinstance(event, MatchEnded):
                out += self._game_ended(event.winner_team)
        if tributes:
            out += self._everyone(protocol.exchange_notice("tribute", tributes))
        if not self.finished and not self._more():
            self.finished = True
            out += self._everyone(self._result_message())
        return out

    def _more(self) -> bool:
        """Whether another deal is to be played."""
        games_left = self.games is None or self.games_over < self.games
        return self.deals_played < self.deals and games_left

    def _everyone(self, message: Message) -> list[Notice]:
        return [Notice(seat, message) for seat in range(4)]

    def _play_notice(self, event: Played | Passed, before: _Before) -> Message:
        level = before.level
        if isinstance(event, Played):
            action = protocol.play_action(event.play, level)
            self._last = (event.seat, action)
            return protocol.play_notice(event.seat, action, event.seat, action)
        self._last = (event.seat, list(protocol.PASS_ACTION))
        assert before.table_play is not None and before.table_seat is not None
        greater = protocol.play_action(before.table_play, level)
        return protocol.play_notice(event.seat, protocol.PASS_ACTION, before.table_seat, greater)

    def _returns(self) -> list[tuple[int, int, Card]]:
        returned, givers = self.match.returned, self.match.return_givers
        return sorted((givers[payer], payer, card) for payer, card in returned.items())

    def _deal_ended(self, event: DealEnded, before: _Before) -> list[Notice]:
        self.deals_played += 1
        for seat, tally in enumerate(self.tallies):
            tally.deals += 1
            if team_of(seat) == event.winner_team:
                tally.deal_wins += 1
                tally.level_gains += event.levels_gained
        self.tallies[event.finish_order[0]].firsts += 1
        rest = before.rest_after(self.match.history[-1])
        out = self._everyone(protocol.episode_over(event.finish_order, before.level, rest))
        if event.a_attempt is AAttempt.RESET:
            self._resets += 1
        if self.draw_after_resets is not None and self._resets >= self.draw_after_resets:
            out += self._game_ended(None)
        return out

    def _game_ended(self, winner: int | None) -> list[Notice]:
        self.games_over += 1
        for seat, tally in enumerate(self.tallies):
            if winner is None:
                tally.draws += 1
            elif team_of(seat) == winner:
                tally.games_won += 1
        out = self._everyone(protocol.game_over(self.games_over, self.games or 0))
        if not self._more():
            return out
        self.match = self._new_game()
        self._resets = 0
        return out + self._notices(self.match.events, _Before(self.match))

    def _new_game(self) -> Match:
        self._game += 1
        return Match.new(self.rules, game_seed(self.seed, self._game))

    # ------------------------------------------------------------ the result

    def _result_message(self) -> Message:
        return protocol.game_result(
            [tally.games_won for tally in self.tallies], [tally.draws for tally in self.tallies]
        )

    def result(self) -> dict[str, Any]:
        """Deals, games and each seat's tally, for the JSON result line."""
        return {
            "deals": self.deals_played,
            "games": self.games_over,
            "seats": [{"seat": seat, **asdict(tally)} for seat, tally in enumerate(self.tallies)],
        }


class _Before:
    """What an action's notices need from the moment before it: the level, the play to beat
    and the hands (a deal's last play deals the next one in the same step)."""

    def __init__(self, match: Match) -> None:
        self.level: Rank = match.level
        self.table_play: Play | None = match.table_play
        self.table_seat: int | None = match.table_seat
        self.hands = match.hands

    def rest_after(self, last: tuple[int | None, Action]) -> list[tuple[int, list[Card]]]:
        """Each seat's cards once the deal's last action (a play) has been made."""
        hands = [list(hand) for hand in self.hands]
        seat, action = last
        if seat is not None and isinstance(action, PlayCards):
            for card in action.play.cards:
                hands[seat].remove(card)
        return [(seat, hand) for seat, hand in enumerate(hands) if hand]
