"""The match state machine: tricks, the end of a deal, scoring and the end of the match.

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

The machine is three files by role: :mod:`engine.match_state` (what a match holds and what may
be asked of it), :mod:`engine.deal_phase` (dealing and tribute, up to the first lead) and this
one (the tricks, the end of a deal and the clock); :mod:`engine.observer` decides what a seat
may see. This module re-exports their public names, the one import the rest of the code uses.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from engine import moves
from engine.actions import (
    Action,
    CardsReported,
    ChooseSeat,
    DealEnded,
    EndReason,
    Event,
    GiveTribute,
    MatchEnded,
    Pass,
    Passed,
    Phase,
    PlayCards,
    Played,
    PlayerFinished,
    ReturnTribute,
    TimeExpired,
    TrickWon,
    partner_of,
    team_of,
)
from engine.cards import Card
from engine.deal_phase import DealPhase
from engine.dealing import CARDS_PER_SEAT
from engine.errors import IllegalAction, IllegalPlay, NotYourTurn
from engine.match_state import EndedDeal, deal_seed
from engine.observation import Turn
from engine.observer import observe, observe_deal_end, shown_count
from engine.plays import Play, beats
from engine.rules import CountVisibility, JiefengScope, MatchFormat, Rules, TimeUp
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

__all__ = [
    "CARDS_PER_SEAT",
    "Match",
    "action_from_json",
    "action_to_json",
    "deal_seed",
    "observe",
    "observe_deal_end",
]


class Match(DealPhase):
    """One match between team 0 (seats 0, 2) and team 1 (seats 1, 3)."""

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
        left = shown_count(self.rules, len(self._deal.hands[seat]), visible=False)
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
        self._ended = EndedDeal(
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
