"""What a seat can do (actions) and what the match reports back (events).

Actions and events are small frozen values. A match is fully described by its
seed, its rules and the list of ``(seat, action)`` pairs applied to it, so storage
keeps exactly that and replays it on restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum

from engine.cards import Card, Rank
from engine.plays import Play


class Phase(Enum):
    """Where a match is; ``to_act`` says who may act in it."""

    TRIBUTE = "tribute"  # 进贡: the payers choose their tribute card
    RETURN_TRIBUTE = "return_tribute"  # 还贡: the receivers choose a card to give back
    CHOICE = "choice"  # a free choice of V12 / V14 after equal 双下 tributes (see Choice)
    PLAY = "play"  # tricks
    MATCH_OVER = "match_over"


class LeadReason(StrEnum):
    """Why a seat leads the deal's first trick (``LeaderChosen.reason``); the values are the
    strings the action log's transcripts have always held."""

    FIRST_DEAL = "first_deal"
    TRIBUTE = "tribute"
    ANTI_TRIBUTE = "anti_tribute"  # 抗贡
    NO_TRIBUTE = "no_tribute"


class Outcome(StrEnum):
    """A deal's class seen from the 上游's side: where the 上游's partner finished."""

    DOUBLE_DOWN = "double_down"  # 1+2 (双下)
    ONE_THREE = "one_three"  # 1+3
    ONE_FOUR = "one_four"  # 1+4

    @classmethod
    def of(cls, finish_order: tuple[int, ...]) -> Outcome:
        """The outcome of a complete finishing order (the one formula, docs/rules.md §1.7)."""
        return OUTCOMES[finish_order.index((finish_order[0] + 2) % 4) - 1]

    @property
    def column(self) -> int:
        """0, 1, 2: the column of the rules' level-up and points tables for this outcome."""
        return OUTCOMES.index(self)


OUTCOMES = (Outcome.DOUBLE_DOWN, Outcome.ONE_THREE, Outcome.ONE_FOUR)
"""Outcome classes in the order of the rules' tables (``level_ups``, ``points_scale``)."""


class AAttempt(StrEnum):
    """A deal played at the declarer's own A (V02/V03): its result for the A team."""

    PASSED = "passed"
    FAILED = "failed"
    RESET = "reset"  # the team fell back (to 2, or K)


class EndReason(StrEnum):
    """Why a game or match ended (``MatchEnded.reason``, ``Verdict.reason``)."""

    PASSED_A = "passed_a"
    REACHED_A = "reached_a"
    POINTS = "points"
    TIME = "time"
    BEST_OF = "best_of"


# ---------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class PlayCards:
    """Play these cards with this reading (wildcards make the reading explicit)."""

    play: Play


@dataclass(frozen=True, slots=True)
class Pass:
    """不出 / 过: decline to beat the table. Never allowed when leading."""


@dataclass(frozen=True, slots=True)
class GiveTribute:
    """进贡: pay one card (the largest, wildcards excluded) to the receiver."""

    card: Card


@dataclass(frozen=True, slots=True)
class ReturnTribute:
    """还贡: give one card back to the payer, within the preset's limit."""

    card: Card


@dataclass(frozen=True, slots=True)
class ChooseSeat:
    """A free choice after equal 双下 tributes (V12, V14 (a), (g), (h)), answered with a seat:
    whose tribute 上游 takes, whose return a payer takes, or who leads (see :class:`Choice`)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TimeExpired:
    """The referee's clock ran out (timed formats): finish per the preset's rule."""


Action = PlayCards | Pass | GiveTribute | ReturnTribute | ChooseSeat | TimeExpired


class Choice(Enum):
    """What a :class:`ChooseSeat` decides in the CHOICE phase (only after equal 双下 tributes)."""

    TRIBUTE = "tribute"  # 上游 picks whose tribute card it takes; 二游 gets the other (V14 a, g, h)
    RETURN = "return"  # U's 下家 picks whose return it takes; its partner gets the other (V12)
    LEADER = "leader"  # U's 下家 names the payer who leads (V14 g: the payers decide)


# ---------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class DealStarted:
    """A new deal: 27 cards each were dealt from ``seed``; played at ``level``."""

    deal_number: int
    level: Rank
    declarer_team: int  # the team whose level is played (台上)
    seed: int


@dataclass(frozen=True, slots=True)
class AntiTribute:
    """抗贡: the losers hold both big jokers, so no tribute is paid."""

    seats: tuple[int, ...]  # the seats whose 大王 count


@dataclass(frozen=True, slots=True)
class TributeGiven:
    giver: int
    receiver: int
    card: Card


@dataclass(frozen=True, slots=True)
class TributeReturned:
    giver: int
    receiver: int
    card: Card


@dataclass(frozen=True, slots=True)
class SeatChosen:
    """A CHOICE answered: ``seat`` chose ``chosen`` for ``choice``."""

    seat: int
    choice: Choice
    chosen: int


@dataclass(frozen=True, slots=True)
class LeaderChosen:
    """Who leads the deal's first trick, and why (first deal, tribute, 抗贡)."""

    seat: int
    reason: LeadReason


@dataclass(frozen=True, slots=True)
class Played:
    seat: int
    play: Play
    cards_left: int


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int


@dataclass(frozen=True, slots=True)
class TrickWon:
    """Everyone else passed: ``seat``'s play stood; ``next_leader`` leads (接风 when the
    winner is out and the partner leads)."""

    seat: int
    next_leader: int
    jiefeng: bool  # 接风


@dataclass(frozen=True, slots=True)
class CardsReported:
    """报牌: a seat's card count became public under the preset's rule."""

    seat: int
    cards_left: int


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    seat: int
    place: int  # 1 上游, 2 二游, 3 三游, 4 下游


@dataclass(frozen=True, slots=True)
class DealEnded:
    """The finishing order is fixed; levels (or points) change per the preset.

    ``finish_order`` holds all four seats, 上游 first. A 双下 deal stops once the
    winners are out (A22), so its two losers did not finish: they are listed as U's
    上家 then U's 下家 — U, U', L2, L1 in docs/rules.md §1.10 — so that L1, U's 下家, counts
    as last (001-B "頭游下家為最后一名"), which is what the tribute rules expect. With
    ``Rules.double_down_play_on`` the losers play on and appear in their real order.
    """

    deal_number: int
    finish_order: tuple[int, ...]  # all four seats, 上游 first (双下 losers: see above)
    winner_team: int
    outcome: Outcome
    levels_gained: int  # for the winner team (0 in points formats)
    points: tuple[int, int]  # points scored this deal per team (points formats), else (0, 0)
    levels_before: tuple[Rank, Rank]
    levels_after: tuple[Rank, Rank]
    a_attempt: AAttempt | None


@dataclass(frozen=True, slots=True)
class MatchEnded:
    winner_team: int | None  # None for a draw (only if the preset allows one)
    reason: EndReason


Event = (
    DealStarted
    | AntiTribute
    | TributeGiven
    | TributeReturned
    | SeatChosen
    | LeaderChosen
    | Played
    | Passed
    | TrickWon
    | CardsReported
    | PlayerFinished
    | DealEnded
    | MatchEnded
)


def team_of(seat: int) -> int:
    """Seats 0 and 2 are team 0 (North/South), 1 and 3 team 1 (East/West)."""
    return seat % 2


def partner_of(seat: int) -> int:
    return (seat + 2) % 4
