"""The variant types: one enum per disagreement of docs/rules.md §2 (V01–V37) that is a choice.

Apart from :class:`engine.rules.Rules` so that the preset data (:mod:`engine.presets`) can name
the choices without importing the settings object, which builds its presets from that data:
the dependency runs variants ← presets ← rules, with no cycle. ``engine.rules`` re-exports every
type, so ``from engine.rules import APass`` keeps working.
"""

from __future__ import annotations

from enum import Enum


class APass(Enum):
    """V02 / A3, A6: what a deal played at A must look like to end the game."""

    NOT_FOURTH = "not_fourth"  # A team takes 1st and its partner is not 4th (default)
    DOUBLE_DOWN = "double_down"  # only 1st+2nd (000-I)
    NO_FOURTH = "no_fourth"  # the A team has no 4th place at all (000-K)
    ANY_WIN = "any_win"  # the A team takes 1st (000-A "首先打过A")
    REACH = "reach"  # reaching A is enough; A is never played (000-L, 002-E)
    ORDINARY = "ordinary"  # A is an ordinary level; play continues (002-A)


class AFailureCount(Enum):
    """V03 / A4: how failed attempts at A are counted."""

    TOTAL = "total"  # 总计三次 (default)
    CONSECUTIVE = "consecutive"  # 连续2次 (000-N): a pass-free run; a deal at another level breaks it


class AReset(Enum):
    """V03: where a team goes after its last allowed failure at A."""

    TO_TWO = "to_two"  # 退到2重打 (default)
    TO_TWO_FROM_THREE = "to_two_from_three"  # 000-C: back to 2, the next win counts from 3
    ONE_LOWER = "one_lower"  # 002-E 从下一级开始: drop one level (to K)


class Overflow(Enum):
    """V04 / A5: levels gained beyond A."""

    STOP_AT_A = "stop_at_a"  # A必打: surplus is lost (default)
    CYCLE = "cycle"  # 002-A: continue into a second 2→A cycle
    DEMOTE_OPPONENTS = "demote_opponents"  # 002-D: surplus demotes the opponents


class TributeAssignment(Enum):
    """V10 / A9: which 双下 tribute goes to whom."""

    BY_RANK = "by_rank"  # the larger card to 上游, the smaller to 二游 (default)
    BY_PLACE = "by_place"  # 末游 → 头游, the other loser → 二游 (004-A, 002-E)


class ReturnLimit(Enum):
    """V11 / A11: which cards may be given back (还贡)."""

    TEN_OR_BELOW = "ten_or_below"  # face 2–10, never a joker (default)
    ANY = "any"  # any card (000-K, 002-E, 003-C)
    BELOW_LEVEL_TO_PARTNER = "below_level_to_partner"  # 000-M: to a partner below the level card


class DoubleDownLeader(Enum):
    """V13: who leads after a 双下 tribute with unequal cards."""

    LARGER_PAYER = "larger_payer"  # the loser who paid the larger card (default; 004-A 进贡大牌的先出牌)
    LAST_PLACE = "last_place"  # 末游 leads (000-H, 000-K, 000-N, 002-E, 003-C)


class EqualTribute(Enum):
    """V14 / A10: 双下 tributes of equal rank (U 上游, U' its partner, L1 U's 下家, L2 U's 上家).

    This picks the assignment and the leader. The seeds' free choices are separate
    settings: :attr:`Rules.first_picks_tribute` (U picks either card: a, g, h) and
    :attr:`Rules.payers_pick_returns` (V12); a choice is a ``ChooseSeat`` action.
    """

    L1_TO_FIRST = "l1_to_first"  # U gets L1's card, U' L2's; L1 leads (b, c, d, i, j; default)
    L1_TO_FIRST_L2_LEADS = "l1_to_first_l2_leads"  # as default but L2 leads (e: 003-A, 001-E)
    L2_TO_FIRST = "l2_to_first"  # 逆时针: U gets L2's card, U' L1's; L2 leads (f: 000-M, 000-P)
    SMALLER_RETURN_LEADS = "smaller_return_leads"  # (a) 000-A: the loser given the smaller return leads
    PAID_FIRST_LEADS = "paid_first_leads"  # (h) 000-J: the loser who paid 上游 leads
    PAYERS_CHOOSE = "payers_choose"  # (g) 001-D: the payers decide who leads (U's 下家 answers)


class ReturnPick(Enum):
    """V12: after equal 双下 tributes, whether the payers choose between the two returns."""

    NEVER = "never"  # each winner gives back to the payer it took from (default)
    EQUAL_RETURNS = "equal_returns"  # only when the returns are equal too (a: 000-A, 002-D, 001-C)
    ALWAYS = "always"  # (g) 001-D, (h) 000-J


class AntiTribute(Enum):
    """V15 / A12: 抗贡. "Optional" (可抗贡) is automatic in software: declining it only
    gives a card away for nothing."""

    AUTOMATIC = "automatic"
    DISABLED = "disabled"


class AntiTributeJokers(Enum):
    """V15: whose 大王 count after a single-down."""

    LAST_PLAYER = "last_player"  # the 4th must hold both (default)
    LOSING_SIDE = "losing_side"  # 000-N 末方 read as the losing side


class FirstLeader(Enum):
    """V16 / docs/rules.md §1.12: the first leader; all seed methods are a uniformly random seat."""

    RANDOM_SEAT = "random_seat"
    MARKER_CARD = "marker_card"  # the holder of one random card position (face-up marker card)


class NoTributeLeader(Enum):
    """Who leads a later deal when no tribute is paid (V08 off, or 1st+4th partners)."""

    FIRST_PLACE = "first_place"  # 头家先出 (000-L)
    RANDOM = "random"  # a fresh marker card each deal (001-A)


class CountVisibility(Enum):
    """V20 / A29: when other seats' card counts are public (报牌)."""

    AT_THRESHOLD = "at_threshold"  # announced at ≤ threshold cards (default, 6)
    ON_REQUEST = "on_request"  # 问牌: answered at ≤ threshold; software shows it then (001-E)
    ALWAYS = "always"
    NEVER = "never"  # 001-B without agreement: asking and announcing forbidden


class TimeoutAction(Enum):
    """V21 / A13: what the clock does for a player who runs out of time."""

    LOWEST_OR_PASS = "lowest_or_pass"  # leader plays the lowest single, follower passes (002-E)
    NONE = "none"  # the referee handles it


class WildcardDeclaration(Enum):
    """V22 / A24: reading a wildcard when several readings are legal."""

    EXPLICIT_OR_LOWEST = "explicit_or_lowest"  # default
    LOWEST = "lowest"  # 003-A: undeclared means the small reading
    MUST_DECLARE = "must_declare"  # 000-F/M/P: an ambiguous play without a reading is refused


class JiefengScope(Enum):
    """V23 / A21: 接风 after which player goes out."""

    ANY_PLAYER = "any_player"  # default
    FIRST_ONLY = "first_only"  # only after the 上游


class OutOfTurn(Enum):
    """V24: playing out of turn (impossible in software; a referee action)."""

    WARNING_OR_EXPOSED = "warning_or_exposed"  # 001-A, 001-B
    FOUL_PLUS_ONE = "foul_plus_one"  # 001-C: opponents +1 level
    POINTED_OUT = "pointed_out"  # 002-D


class ExposedCards(Enum):
    """V25: exposed cards (impossible in software; a referee action)."""

    LOSE_CHANCES = "lose_chances"  # 001-A: lose 1–3 chances to beat
    SMALLEST_OF_SUIT = "smallest_of_suit"  # 001-B
    NOT_ADDRESSED = "not_addressed"


class Misconduct(Enum):
    """V28: penalties for signalling and misconduct."""

    DISQUALIFY = "disqualify"
    WARNING_THEN_DISQUALIFY = "warning_then_disqualify"
    GRADUATED_POINTS = "graduated_points"  # 001-A
    GRADUATED_LEVELS = "graduated_levels"  # 001-B


class TributeViolation(Enum):
    """V29: a wrong tribute card (refused by the engine; kept for the referee)."""

    GIVE_AGAIN = "give_again"
    GIVE_AGAIN_AND_FOUL = "give_again_and_foul"  # 000-F


class PlayedCardsView(Enum):
    """V31: which played cards a player may look at."""

    CURRENT_TRICK = "current_trick"  # 001-C (default)
    FACE_DOWN = "face_down"  # 001-A, 001-B: face down once the trick is over
    OWN_PILE_ONLY = "own_pile_only"  # 002-A: each keeps their own; nobody looks at others'


class SeatAssignment(Enum):
    """V17: how pairs get their compass seats."""

    LOT = "lot"  # 抓阄 (003-A)
    CARD_DRAW = "card_draw"  # smaller card NS (000-L)
    MOVEMENT_TABLE = "movement_table"  # first listed NS (001-B)
    TABLE_NUMBER = "table_number"  # 002-C, 004-A


class ShuffleProcedure(Enum):
    """V18/V19: the physical shuffle; software deals a uniform random permutation.

    Every member but :attr:`NONE` is a physical table's procedure, data for the organiser:
    the bot deals those as :attr:`SOFTWARE`. :attr:`NONE` is the apps' 不洗牌 mode, which
    changes the deal itself."""

    SOFTWARE = "software"
    LAST_DRAWS_FIRST = "last_draws_first"  # 000-A / 002-D
    LAST_SHUFFLES_FIRST_CUTS = "last_shuffles_first_cuts"  # 003-A, 001-A, 001-B
    SECOND_SHUFFLES = "second_shuffles"  # 002-A
    FIRST_SHUFFLES = "first_shuffles"  # 000-L
    NONE = "none"  # 不洗牌: the last deal's cards gathered, cut and dealt in packets (engine.dealing)


class LotsMethod(Enum):
    """V36 / A27: deciding by lot."""

    SUM_OF_TWO_CARDS = "sum_of_two_cards"  # 000-N (default)
    REFEREE = "referee"


class TimeUp(Enum):
    """V34: the deal in progress when a timed game runs out."""

    FINISH_DEAL = "finish_deal"  # 000-A, 002-D (default)
    STOP_AT_ONCE = "stop_at_once"  # 001-B: the unfinished deal is ignored


class TimeTieBreak(Enum):
    """V35 / A26: equal levels when time is up."""

    SUDDEN_DEATH = "sudden_death"  # extra deals; the first side to go up wins (default)
    LAST_FIRST_PLACE = "last_first_place"  # the last deal's 上游 side (000-A, 002-D)
    DECLARER = "declarer"  # 台上 (000-N)
    NON_DECLARER = "non_declarer"  # 台下 (002-C)
    FIRST_TO_LEVEL = "first_to_level"  # 先晋级 (000-O): the side that reached the level first
    PLAYER_OUT = "player_out"  # 002-A: a side with a player already out; else sudden death


class TimeWinner(Enum):
    """V34 / A17: who wins a timed game that nobody won before the time ran out."""

    HIGHER_LEVEL = "higher_level"  # the higher level; equal levels per time_tie_break (default)
    NONE = "none"  # 001-B: only passing A wins; nobody gets the 100, each side keeps its levels' score


class SuddenDeath(Enum):
    """A26: the extra deals after a tied time-out (time_tie_break sudden_death, or player_out
    with nobody out)."""

    GO_UP = "go_up"  # 先升级的为获胜方: the first side to go up or pass A wins (default)
    DEAL_WINNER = "deal_winner"  # the next deal's 上游 side wins, even by a failed attempt at A


class ForfeitDifference(Enum):
    """A18, 002-D "如遇对手弃权，级差为1/2": the level difference a walkover is worth."""

    TWELVE = "twelve"  # "1/2" read as a garbled 12, the whole 2→A span (default)
    HALF = "half"  # the literal ½ level


class MatchFormat(Enum):
    """V37 / docs/rules.md §1.13: the unit a match is decided on."""

    LEVEL_RACE = "level_race"  # one 2→A game (optionally timed)
    POINTS = "points"  # N deals scored by class (000-E, 001-A, 000-H)
    BEST_OF = "best_of"  # best of N games, levels reset each game (000-G, 000-S, 001-D)


class PointsTieBreak(Enum):
    """docs/rules.md §1.13: equal points after the last scheduled deal."""

    EXTRA_DEAL = "extra_deal"  # one more deal, its winner wins (000-E, 000-H)
    MORE_THREES_THEN_EXTRA = "more_threes_then_extra"  # 001-A: more 3-point deals, then extra


class RoundScore(Enum):
    """docs/rules.md §1.14: what a finished match is worth in a multi-round contest."""

    NONE = "none"
    HUNDRED_PLUS_DIFFERENCE = "hundred_plus_difference"  # 001-B: 100 + level difference (≤15)
    MATCH_POINTS_TWO = "match_points_two"  # 002-D / 003-A 积分编排: 2 / 0, level difference kept
