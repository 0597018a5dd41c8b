"""Rule variants (RULES.md §2 V01–V37) as one frozen settings object, and the presets.

The seed documents disagree on many points; each disagreement is one typed field
of :class:`Rules`, and :meth:`Rules.default` holds the recommended defaults of
RULES.md §4 (A1–A31). A preset (:data:`PRESETS`) is the set of choices one
organising document makes, named after that document, like python-chess's
variant registry.

Fields the engine enforces: level-ups, A rules, overflow, tribute and anti-tribute,
return limits, leaders, 接风, 报牌 visibility, bomb size and the match formats.
Fields for the bot or organiser only (clocks, conduct penalties, seating, lots) are
carried as data so a table keeps its rules in one place.
"""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Final, TypeGuard, Union, get_args, get_origin, get_type_hints

# ---------------------------------------------------------------- enums


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
    """V16 / §3.16: the first leader; all seed methods are a uniformly random seat."""

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
    """V18/V19: the physical shuffle; software deals a uniform random permutation."""

    SOFTWARE = "software"
    LAST_DRAWS_FIRST = "last_draws_first"  # 000-A / 002-D
    LAST_SHUFFLES_FIRST_CUTS = "last_shuffles_first_cuts"  # 003-A, 001-A, 001-B
    SECOND_SHUFFLES = "second_shuffles"  # 002-A
    FIRST_SHUFFLES = "first_shuffles"  # 000-L


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
    """V37 / §3: the unit a match is decided on."""

    LEVEL_RACE = "level_race"  # one 2→A game (optionally timed)
    POINTS = "points"  # N deals scored by class (000-E, 001-A, 000-H)
    BEST_OF = "best_of"  # best of N games, levels reset each game (000-G, 000-S, 001-D)


class PointsTieBreak(Enum):
    """§3.7–3.9: equal points after the last scheduled deal."""

    EXTRA_DEAL = "extra_deal"  # one more deal, its winner wins (000-E, 000-H)
    MORE_THREES_THEN_EXTRA = "more_threes_then_extra"  # 001-A: more 3-point deals, then extra


class RoundScore(Enum):
    """§3.10–3.12: what a finished match is worth in a multi-round contest."""

    NONE = "none"
    HUNDRED_PLUS_DIFFERENCE = "hundred_plus_difference"  # 001-B: 100 + level difference (≤15)
    MATCH_POINTS_TWO = "match_points_two"  # 002-D / 003-A 积分编排: 2 / 0, level difference kept


# ---------------------------------------------------------------- the settings object


@dataclass(frozen=True, slots=True)
class Rules:
    """Every variant of RULES.md §2 as a typed setting; defaults are RULES.md §4."""

    # V01 / A2: levels gained by the 上游's side for 1st+2nd / 1st+3rd / 1st+4th.
    level_ups: tuple[int, int, int] = (3, 2, 1)
    # V02, V03, V04: the A rules.
    a_pass: APass = APass.NOT_FOURTH
    a_failure_limit: int | None = 3  # None: never reset, keep playing A
    a_failure_count: AFailureCount = AFailureCount.TOTAL
    a_reset: AReset = AReset.TO_TWO
    overflow: Overflow = Overflow.STOP_AT_A
    must_play: tuple[int, ...] = ()  # levels below A that cannot be jumped (002-E: J = 11)
    # V05 / A7: the largest same-rank bomb (8: no wildcard-lengthened 9/10 bombs).
    max_bomb_size: int = 10
    # V06 has no setting: every seed puts the straight flush between 5- and 6-card bombs.
    # V07: how the top pair-run / triple-run is written (AAKKQQ, AAAKKK or QQKKAA, KKKAAA).
    runs_written_high_first: bool = True
    # V08–V15: tribute.
    tribute: bool = True
    partner_tribute: bool = True  # V09 / A8: 4th pays a 1st who is the partner
    tribute_assignment: TributeAssignment = TributeAssignment.BY_RANK
    return_limit: ReturnLimit = ReturnLimit.TEN_OR_BELOW
    return_limit_double_down: ReturnLimit | None = None  # 004-A: "any" after 双下; None: same
    return_level_card: bool = True  # A11: a level card whose face is ≤ 10 may be returned
    returns_face_down: bool = False  # V12: 双下 returns revealed together (003-A, 004-A)
    double_down_leader: DoubleDownLeader = DoubleDownLeader.LARGER_PAYER
    equal_tribute: EqualTribute = EqualTribute.L1_TO_FIRST
    first_picks_tribute: bool = False  # V14 (a), (g), (h): 上游 picks either of two equal tributes
    payers_pick_returns: ReturnPick = ReturnPick.NEVER  # V12: U's 下家 picks a return, its partner the other
    # A22: a 双下 deal stops once the winners are out; on: the losers play on for 3rd and 4th.
    double_down_play_on: bool = False
    anti_tribute: AntiTribute = AntiTribute.AUTOMATIC
    anti_tribute_jokers: AntiTributeJokers = AntiTributeJokers.LAST_PLAYER
    # V16, V17–V19: leaders and the physical table.
    first_leader: FirstLeader = FirstLeader.RANDOM_SEAT
    no_tribute_leader: NoTributeLeader = NoTributeLeader.FIRST_PLACE
    seat_assignment: SeatAssignment = SeatAssignment.LOT
    shuffle: ShuffleProcedure = ShuffleProcedure.SOFTWARE
    min_shuffles: int = 3
    # V20 / A29: 报牌.
    count_visibility: CountVisibility = CountVisibility.AT_THRESHOLD
    report_threshold: int = 6
    # V21 / A13: clocks (seconds; None = no limit).
    turn_seconds: int | None = 30
    first_turn_seconds: int | None = None  # the first play of a deal; None = turn_seconds
    tribute_seconds: int | None = 30
    timeout_action: TimeoutAction = TimeoutAction.LOWEST_OR_PASS
    # V22 / A24, V23 / A21.
    wildcard_declaration: WildcardDeclaration = WildcardDeclaration.EXPLICIT_OR_LOWEST
    jiefeng: JiefengScope = JiefengScope.ANY_PLAYER
    # V24–V29, V31–V33, V36: conduct, for the bot and the organiser.
    out_of_turn: OutOfTurn = OutOfTurn.FOUL_PLUS_ONE
    exposed_cards: ExposedCards = ExposedCards.NOT_ADDRESSED
    misdeal_double_last: bool = False  # V26: 000-A 糊牌 ruled double-last, opponents +3
    retract_stray_card: bool = False  # V27: 002-A
    false_report_replay: bool = False  # V27: 002-A
    misconduct: Misconduct = Misconduct.WARNING_THEN_DISQUALIFY
    tribute_violation: TributeViolation = TributeViolation.GIVE_AGAIN
    bonus_levels: bool = False  # V30 / A28: 000-N 加级规则
    played_cards_view: PlayedCardsView = PlayedCardsView.CURRENT_TRICK
    partner_change: bool = False  # V32
    late_forfeit_minutes: int | None = 10  # V33; 0 = any lateness
    lots: LotsMethod = LotsMethod.SUM_OF_TWO_CARDS
    # V34, V35, V37 / §3: the match format.
    match_format: MatchFormat = MatchFormat.LEVEL_RACE
    time_limit_minutes: int | None = None  # timed games (per game in best-of)
    time_up: TimeUp = TimeUp.FINISH_DEAL
    time_tie_break: TimeTieBreak = TimeTieBreak.SUDDEN_DEATH
    time_winner: TimeWinner = TimeWinner.HIGHER_LEVEL
    sudden_death: SuddenDeath = SuddenDeath.GO_UP
    points_deals: int = 6
    points_scale: tuple[int, int, int] = (3, 2, 1)
    points_target: int | None = None  # 000-H: 13 points win at once
    points_fixed_level: bool = True  # every deal at level 2 (000-E, 001-A); False: levels progress
    points_tie_break: PointsTieBreak = PointsTieBreak.EXTRA_DEAL
    best_of: int = 3
    round_score: RoundScore = RoundScore.NONE
    forfeit_difference: ForfeitDifference = ForfeitDifference.TWELVE  # A18 (engine/figures.py)
    # Not a rule of play: whether a finished match's 复盘 (hands included) may be shown in the
    # group; off, only the table's players see it, each in the private chat (issue 21).
    replay_in_group: bool = False
    # Not a rule of play: 记牌器, the cards still out per rank (from the public history) in each
    # seat's private hand message, as the phone apps show it (issue 20). On for casual tables;
    # the contest presets turn it off (their V31 lets a player look at the current trick only),
    # and an organiser may turn it on again (card_counter=on).
    card_counter: bool = True

    VERSION: ClassVar[int] = 1

    @classmethod
    def default(cls) -> Rules:
        """RULES.md §4 defaults: 3/2/1, pass A with partner not 4th, 3 total failures."""
        return cls()

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The rules of one organising document, e.g. ``Rules.preset("jiangsu-union")``."""
        try:
            return PRESETS[name].rules
        except KeyError:
            raise KeyError(f"unknown preset {name!r}; known: {', '.join(sorted(PRESETS))}") from None

    def replace(self, **changes: Any) -> Rules:
        """A copy with some settings changed (validated like a new object)."""
        return dataclasses.replace(self, **changes)

    def __post_init__(self) -> None:
        _validate(self)

    def to_json(self) -> str:
        """Stable JSON (sorted keys, enums by value) for storing a table's rules."""
        data = {f.name: _encode(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return json.dumps({"version": self.VERSION, "rules": data}, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> Rules:
        """The inverse of :meth:`to_json`; settings missing from old JSON take defaults.

        Every value is checked against :data:`SETTINGS` (a stored row written by an older,
        laxer version raises :class:`SettingError`, a ``ValueError``).
        """
        payload = json.loads(text) if isinstance(text, str) else dict(text)
        data = payload.get("rules", payload) if isinstance(payload, dict) else None
        if not isinstance(data, dict):
            raise ValueError("rules JSON must be an object of settings")
        unknown = set(data) - set(SETTINGS)
        if unknown:
            raise ValueError(f"unknown rule settings: {', '.join(sorted(map(str, unknown)))}")
        return cls(**{name: SETTINGS[name].decode(value) for name, value in data.items()})

    @property
    def uses_levels(self) -> bool:
        """Whether deals are played at the winners' level (not fixed at 2)."""
        return not (self.match_format is MatchFormat.POINTS and self.points_fixed_level)


def _validate(rules: Rules) -> None:
    """Every setting's type and range (:data:`SETTINGS`): a Rules value is always playable."""
    for setting in SETTINGS.values():
        setting.check(getattr(rules, setting.name))


# ---------------------------------------------------------------- the settings schema


class SettingKind(Enum):
    """What a setting holds: the types of :class:`Rules` fields."""

    NUMBER = "number"  # a whole number within a range
    SWITCH = "switch"  # on / off
    CHOICE = "choice"  # one member of an enum
    NUMBERS = "numbers"  # a list of whole numbers within a range (fixed or bounded length)


SETTING_RANGES: dict[str, tuple[int, int]] = {
    # Levels: 2→A is 12 steps, so no deal can be worth more.
    "level_ups": (0, 12),
    "points_scale": (0, 12),
    "must_play": (3, 13),  # levels 3..K; A is governed by overflow
    "a_failure_limit": (1, 10),  # the seeds use 2 or 3
    "max_bomb_size": (8, 10),  # 8: no wildcard-lengthened 9/10 bombs
    "min_shuffles": (0, 20),  # a physical shuffle count, data only
    "report_threshold": (0, 27),  # a hand holds 27 cards
    # Clocks in seconds: the seeds use 15-40 s; 600 (ten minutes a play) is the load bench's
    # "no real clock", 2 lets tests run out a clock quickly. Beyond the clocks' range a
    # scheduler overflows (1e18 s), below 0 it fires at once.
    "turn_seconds": (2, 600),
    "first_turn_seconds": (2, 600),
    "tribute_seconds": (2, 600),
    "late_forfeit_minutes": (0, 120),  # 0: any lateness forfeits (000-A)
    "time_limit_minutes": (1, 600),  # the seeds use 30-90 minutes a game
    "points_deals": (1, 50),  # the seeds use 6-10
    "points_target": (1, 200),  # 000-H: 13
    "best_of": (1, 9),  # odd: a best-of has a majority
}
"""Every numeric setting's inclusive range, the bounds a real organiser might choose."""

_ODD = frozenset({"best_of"})


class SettingError(ValueError):
    """A rule setting's value is refused; ``setting`` says what it accepts."""

    def __init__(self, setting: Setting) -> None:
        super().__init__(f"{setting.name} must be {setting.describe()}")
        self.setting = setting


@dataclass(frozen=True, slots=True)
class Setting:
    """What one field of :class:`Rules` accepts, derived from its type and :data:`SETTING_RANGES`.

    ``optional``: ``None`` is allowed (no clock, no limit, same as another setting).
    ``count``: a NUMBERS setting's exact length (``None``: any number of distinct values).
    """

    name: str
    kind: SettingKind
    optional: bool = False
    low: int = 0
    high: int = 0
    odd: bool = False
    choices: type[Enum] | None = None
    count: int | None = None

    def check(self, value: object) -> None:
        """Raise :class:`SettingError` unless ``value`` is a valid, typed value of this setting."""
        if not ((value is None and self.optional) or self._valid(value)):
            raise SettingError(self)

    def decode(self, value: object) -> Any:
        """A JSON value (enums by value, lists for tuples) as the typed value, checked."""
        if self.kind is SettingKind.CHOICE and isinstance(value, str):
            assert self.choices is not None
            try:
                value = self.choices(value)
            except ValueError:
                raise SettingError(self) from None
        elif self.kind is SettingKind.NUMBERS and isinstance(value, list):
            value = tuple(value)
        self.check(value)
        return value

    def describe(self) -> str:
        """The allowed values in English, for logs and errors (players get :mod:`texts`)."""
        if self.kind is SettingKind.NUMBER:
            text = f"{'an odd' if self.odd else 'a whole'} number from {self.low} to {self.high}"
        elif self.kind is SettingKind.SWITCH:
            text = "true or false"
        elif self.kind is SettingKind.CHOICE:
            assert self.choices is not None
            text = "one of " + ", ".join(member.value for member in self.choices)
        elif self.count is not None:
            text = f"{self.count} whole numbers from {self.low} to {self.high}"
        else:
            text = f"distinct whole numbers from {self.low} to {self.high}"
        return text + (", or null" if self.optional else "")

    def _valid(self, value: object) -> bool:
        if self.kind is SettingKind.NUMBER:
            return _in_range(value, self.low, self.high) and not (self.odd and value % 2 == 0)
        if self.kind is SettingKind.SWITCH:
            return isinstance(value, bool)
        if self.kind is SettingKind.CHOICE:
            return self.choices is not None and isinstance(value, self.choices)
        if not isinstance(value, tuple) or not all(_in_range(v, self.low, self.high) for v in value):
            return False
        return len(value) == self.count if self.count is not None else len(set(value)) == len(value)


def _in_range(value: object, low: int, high: int) -> TypeGuard[int]:
    return type(value) is int and low <= value <= high  # bool is an int: refused


def _setting(name: str, hint: Any) -> Setting:
    optional = get_origin(hint) in (Union, types.UnionType)
    if optional:
        hint = next(arg for arg in get_args(hint) if arg is not type(None))
    if hint is bool:
        return Setting(name, SettingKind.SWITCH, optional)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return Setting(name, SettingKind.CHOICE, optional, choices=hint)
    low, high = SETTING_RANGES[name]  # a numeric setting without a range fails at import
    if hint is int:
        return Setting(name, SettingKind.NUMBER, optional, low, high, odd=name in _ODD)
    items = get_args(hint)
    count = None if items[-1] is Ellipsis else len(items)
    return Setting(name, SettingKind.NUMBERS, optional, low, high, count=count)


def _settings() -> dict[str, Setting]:
    hints = get_type_hints(Rules)
    return {field.name: _setting(field.name, hints[field.name]) for field in dataclasses.fields(Rules)}


SETTINGS: dict[str, Setting] = _settings()
"""Setting name → :class:`Setting`, in field order: the one schema both ``/newgame`` words
and stored rules are checked against."""


def _encode(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


# ---------------------------------------------------------------- presets


@dataclass(frozen=True, slots=True)
class Preset:
    """One organising document's rules, with titles for the lobby."""

    name: str
    title_zh: str
    title_en: str
    description: str
    sources: tuple[str, ...]  # RULES.md §0.1 keys
    rules: Rules


def _preset(
    name: str, zh: str, en: str, description: str, sources: tuple[str, ...], **changes: Any
) -> Preset:
    changes.setdefault("card_counter", name == CASUAL_PRESET)  # 记牌器: casual tables only
    return Preset(name, zh, en, description, sources, Rules(**changes))


CASUAL_PRESET: Final = "default"
"""The preset of a casual table (``/newgame`` without one); every other preset is a contest's."""


_TIMED = {"time_up": TimeUp.FINISH_DEAL}

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _preset(
            "default",
            "标准规则",
            "Standard rules",
            "RULES.md §4 defaults: 3/2/1, pass A with partner not last, 3 failures at A reset to 2.",
            ("003-A", "001-E"),
        ),
        _preset(
            "jiangsu-union",
            "江苏省分行南京地区工会掼蛋规则",
            "Jiangsu branch union (Nanjing) rules",
            "3/2/1, A must be passed with partner not last, 3 total failures back to 2, 40 s first play.",
            ("003-A", "000-B", "001-E"),
            equal_tribute=EqualTribute.L1_TO_FIRST_L2_LEADS,
            returns_face_down=True,
            first_leader=FirstLeader.MARKER_CARD,
            count_visibility=CountVisibility.ON_REQUEST,
            turn_seconds=20,
            first_turn_seconds=40,
            wildcard_declaration=WildcardDeclaration.LOWEST,
            round_score=RoundScore.MATCH_POINTS_TWO,
        ),
        _preset(
            "lujiang-school",
            "庐江县第二希望小学教职工掼蛋比赛",
            "Lujiang No. 2 Hope School staff contest",
            "30-minute knockout game, 3/2/1, 3 failures at A reset, tie: last deal's first place wins.",
            ("000-A",),
            a_pass=APass.ANY_WIN,
            equal_tribute=EqualTribute.SMALLER_RETURN_LEADS,
            jiefeng=JiefengScope.FIRST_ONLY,
            shuffle=ShuffleProcedure.LAST_DRAWS_FIRST,
            misdeal_double_last=True,
            late_forfeit_minutes=0,
            time_limit_minutes=30,
            time_tie_break=TimeTieBreak.LAST_FIRST_PLACE,
            **_TIMED,
        ),
        _preset(
            "wechat-6-deals",
            "中心微信群“6局积分制”",
            "Centre WeChat group: six scored deals",
            "Six deals all at level 2, 3/2/1 points, tribute on, an extra deal on a tie (000-E).",
            ("000-E",),
            match_format=MatchFormat.POINTS,
            points_deals=6,
        ),
        _preset(
            "jingfang",
            "精方药业掼蛋比赛",
            "Jingfang Pharma contest",
            "First to reach A wins, no tribute, first place leads the next deal.",
            ("000-L", "002-B"),
            a_pass=APass.REACH,
            tribute=False,
            first_leader=FirstLeader.MARKER_CARD,
            seat_assignment=SeatAssignment.CARD_DRAW,
            shuffle=ShuffleProcedure.FIRST_SHUFFLES,
            misconduct=Misconduct.DISQUALIFY,
        ),
        _preset(
            "anhui-jianzhu",
            "安徽建筑大学教职工扑克牌（掼蛋）比赛",
            "Anhui Jianzhu University staff contest",
            "Ten deals at level 2 scored 3/2/1, no tribute, random leader each deal; ties: more 3s.",
            ("001-A",),
            match_format=MatchFormat.POINTS,
            points_deals=10,
            points_tie_break=PointsTieBreak.MORE_THREES_THEN_EXTRA,
            tribute=False,
            no_tribute_leader=NoTributeLeader.RANDOM,
            first_leader=FirstLeader.MARKER_CARD,
            out_of_turn=OutOfTurn.WARNING_OR_EXPOSED,
            exposed_cards=ExposedCards.LOSE_CHANCES,
            misconduct=Misconduct.GRADUATED_POINTS,
            played_cards_view=PlayedCardsView.FACE_DOWN,
            shuffle=ShuffleProcedure.LAST_SHUFFLES_FIRST_CUTS,
            min_shuffles=5,
            max_bomb_size=10,
        ),
        _preset(
            "xiexiebang",
            "首届员工“掼蛋”比赛（xiexiebang）",
            "First staff contest (xiexiebang)",
            "90-minute game, levels cycle past A; at time the leader wins at once, on equal levels "
            "a side with a player out, else the first to go up; 报牌 at 10 cards.",
            ("002-A",),
            a_pass=APass.ORDINARY,
            overflow=Overflow.CYCLE,
            report_threshold=10,
            count_visibility=CountVisibility.ON_REQUEST,
            played_cards_view=PlayedCardsView.OWN_PILE_ONLY,
            shuffle=ShuffleProcedure.SECOND_SHUFFLES,
            retract_stray_card=True,
            false_report_replay=True,
            time_limit_minutes=90,
            time_up=TimeUp.STOP_AT_ONCE,  # 谁领先谁晋级: the deal in hand does not count
            time_tie_break=TimeTieBreak.PLAYER_OUT,
        ),
        _preset(
            "nanjing-forestry",
            "南京林业大学研究生会“掼蛋”大赛",
            "Nanjing Forestry University graduate union contest",
            "5/3/1, first to reach A within 1 h, J must be played, 4th → 1st tribute, 30 s auto-play.",
            ("002-E",),
            level_ups=(5, 3, 1),
            a_pass=APass.REACH,
            a_reset=AReset.ONE_LOWER,
            must_play=(11,),
            tribute_assignment=TributeAssignment.BY_PLACE,
            return_limit=ReturnLimit.ANY,
            double_down_leader=DoubleDownLeader.LAST_PLACE,
            turn_seconds=30,
            late_forfeit_minutes=10,
            time_limit_minutes=60,
            **_TIMED,
        ),
        _preset(
            "spring-festival",
            "春节联欢“扑克”比赛（工会）",
            "Spring Festival union contest",
            "6/4/2 level-ups, 40-minute games, any return after a double-down, 报牌 at 6.",
            ("004-A",),
            level_ups=(6, 4, 2),
            tribute_assignment=TributeAssignment.BY_PLACE,
            return_limit_double_down=ReturnLimit.ANY,
            returns_face_down=True,
            jiefeng=JiefengScope.FIRST_ONLY,
            late_forfeit_minutes=15,
            time_limit_minutes=40,
            **_TIMED,
        ),
        _preset(
            "huaian",
            "掼蛋比赛（两副牌）规则（淮安网）",
            "Two-deck rules (Huai'an)",
            "Eight deals or 13 points (points = levels gained at 3/2/1); an extra deal on a tie.",
            ("000-H", "000-Q", "003-C"),
            match_format=MatchFormat.POINTS,
            points_deals=8,
            points_target=13,
            points_fixed_level=False,
            partner_tribute=False,
            double_down_leader=DoubleDownLeader.LAST_PLACE,
        ),
        _preset(
            "wuyi-2015",
            "“五一”扑克牌比赛（局机关2015）",
            "May Day contest 2015 (bureau office)",
            "50-minute games, 2 consecutive failures at A reset, 末游 leads after 双下, tie: 台上 wins.",
            ("000-N",),
            a_failure_limit=2,
            a_failure_count=AFailureCount.CONSECUTIVE,
            runs_written_high_first=False,
            bonus_levels=True,
            double_down_leader=DoubleDownLeader.LAST_PLACE,
            time_limit_minutes=50,
            time_tie_break=TimeTieBreak.DECLARER,
            **_TIMED,
        ),
        _preset(
            "canmou",
            "掼蛋竞赛规则（参谋版）",
            "Canmou rules (000-F/M/P)",
            "Never reset at A, A must be played, wildcards declared, 逆时针 equal tribute (000-M/P).",
            ("000-F", "000-M", "000-P"),
            a_failure_limit=None,
            equal_tribute=EqualTribute.L2_TO_FIRST,
            returns_face_down=True,
            wildcard_declaration=WildcardDeclaration.MUST_DECLARE,
            jiefeng=JiefengScope.FIRST_ONLY,
            tribute_violation=TributeViolation.GIVE_AGAIN_AND_FOUL,
        ),
        _preset(
            "knockout-135",
            "掼蛋比赛规则（1-3-5 积分淘汰制）",
            "Knockout 1-3-5 (match points 2/0)",
            "5/3/1, 60-minute game, surplus at A demotes the opponents, tie: last first place wins.",
            ("002-D",),
            level_ups=(5, 3, 1),
            a_pass=APass.ANY_WIN,
            overflow=Overflow.DEMOTE_OPPONENTS,
            equal_tribute=EqualTribute.SMALLER_RETURN_LEADS,
            shuffle=ShuffleProcedure.LAST_DRAWS_FIRST,
            jiefeng=JiefengScope.FIRST_ONLY,
            out_of_turn=OutOfTurn.POINTED_OUT,
            partner_change=True,
            time_limit_minutes=60,
            time_tie_break=TimeTieBreak.LAST_FIRST_PLACE,
            round_score=RoundScore.MATCH_POINTS_TWO,
            **_TIMED,
        ),
        _preset(
            "three-round-movement",
            "分组三轮移位总得分制",
            "Three-round movement, total score",
            "60-minute rounds stopped at once; passing A scores 100 + level difference, "
            "else no winner and each side its levels (A17); 30 s / 15 s clocks.",
            ("001-B",),
            a_pass=APass.ANY_WIN,
            count_visibility=CountVisibility.NEVER,
            turn_seconds=15,
            first_turn_seconds=30,
            seat_assignment=SeatAssignment.MOVEMENT_TABLE,
            shuffle=ShuffleProcedure.LAST_SHUFFLES_FIRST_CUTS,
            min_shuffles=5,
            out_of_turn=OutOfTurn.WARNING_OR_EXPOSED,
            exposed_cards=ExposedCards.SMALLEST_OF_SUIT,
            misconduct=Misconduct.GRADUATED_LEVELS,
            played_cards_view=PlayedCardsView.FACE_DOWN,
            time_limit_minutes=60,
            time_up=TimeUp.STOP_AT_ONCE,
            time_winner=TimeWinner.NONE,
            round_score=RoundScore.HUNDRED_PLUS_DIFFERENCE,
        ),
        _preset(
            "best-of-3",
            "三局两胜制",
            "Best of three",
            "Best of three 2→A games, levels reset each game, A never reset (001-D).",
            ("000-G", "000-S", "001-D"),
            level_ups=(5, 3, 1),
            a_failure_limit=None,
            match_format=MatchFormat.BEST_OF,
            best_of=3,
        ),
    )
}
"""Preset name → :class:`Preset`; ``Rules.preset(name)`` gives its rules."""
