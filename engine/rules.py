"""Rule variants (docs/rules.md §2, V01–V37) as one frozen settings object, its schema and the presets.

The seed documents disagree on many points; each disagreement is one typed field
of :class:`Rules` (its type one of :mod:`engine.variants`, re-exported here), and
:meth:`Rules.default` holds the defaults of docs/rules.md §3 (A1–A31). A preset
(:data:`PRESETS`) is the set of choices one organising document makes, named after that
document, like python-chess's variant registry; the documents' data is :mod:`engine.presets`.

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
from typing import Any, ClassVar, TypeGuard, Union, get_args, get_origin, get_type_hints

from engine.presets import DOCUMENTS, Document
from engine.variants import (
    AFailureCount,
    AntiTribute,
    AntiTributeJokers,
    APass,
    AReset,
    CountVisibility,
    DoubleDownLeader,
    EqualTribute,
    ExposedCards,
    FirstLeader,
    ForfeitDifference,
    JiefengScope,
    LotsMethod,
    MatchFormat,
    Misconduct,
    NoTributeLeader,
    OutOfTurn,
    Overflow,
    PlayedCardsView,
    PointsTieBreak,
    ReturnLimit,
    ReturnPick,
    RoundScore,
    SeatAssignment,
    ShuffleProcedure,
    SuddenDeath,
    TimeoutAction,
    TimeTieBreak,
    TimeUp,
    TimeWinner,
    TributeAssignment,
    TributeViolation,
    WildcardDeclaration,
)

__all__ = [
    "PRESETS",
    "SETTINGS",
    "SETTING_RANGES",
    "AFailureCount",
    "APass",
    "AReset",
    "AntiTribute",
    "AntiTributeJokers",
    "CountVisibility",
    "DoubleDownLeader",
    "EqualTribute",
    "ExposedCards",
    "FirstLeader",
    "ForfeitDifference",
    "JiefengScope",
    "LotsMethod",
    "MatchFormat",
    "Misconduct",
    "NoTributeLeader",
    "OutOfTurn",
    "Overflow",
    "PlayedCardsView",
    "PointsTieBreak",
    "Preset",
    "ReturnLimit",
    "ReturnPick",
    "RoundScore",
    "Rules",
    "SeatAssignment",
    "Setting",
    "SettingError",
    "SettingKind",
    "ShuffleProcedure",
    "SuddenDeath",
    "TimeTieBreak",
    "TimeUp",
    "TimeWinner",
    "TimeoutAction",
    "TributeAssignment",
    "TributeViolation",
    "WildcardDeclaration",
]

# ---------------------------------------------------------------- the settings object


@dataclass(frozen=True, slots=True)
class Rules:
    """Every variant of docs/rules.md §2 as a typed setting; defaults are docs/rules.md §3."""

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
    # V34, V35, V37 / docs/rules.md §1.13: the match format.
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
    # Not a rule of play: 观战, whether a group member who is not seated may follow the table in
    # the private chat (the public board live, the hands once a deal is over; issue 35). On for
    # every preset: during a deal a spectator sees only what the group's board shows. An
    # organiser turns it off with spectators=off.
    spectators: bool = True
    # Not a rule of play: 观战看牌, whether a spectator may choose one seat and follow its hand
    # a trick behind (as it was when the trick in play began, never as it is now). Off by
    # default and in every preset: with the board's plays, a hand a trick behind tells what the
    # seat holds, so only a table of friends that wants it (teaching, a family game) turns it
    # on with watch_hand=on. Never at a 不洗牌 table (spectators_follow_hands).
    watch_hand: bool = False

    VERSION: ClassVar[int] = 1

    @classmethod
    def default(cls) -> Rules:
        """docs/rules.md §3 defaults: 3/2/1, pass A with partner not 4th, 3 total failures."""
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
    def hides_hands(self) -> bool:
        """Whether a deal's hands stay hidden from everyone but their holders until the match is
        over: at a 不洗牌 table (``shuffle=none``) the next deal is the last one's cards as they
        were played, the leftover hands on top, cut once; whoever knew the leftover hands would
        know the whole pack, and with a few plays of the next deal where it was cut — every
        hand. The one home of this fact: spectators, the deal-end board and replays ask it."""
        return self.shuffle is ShuffleProcedure.NONE

    @property
    def spectators_follow_hands(self) -> bool:
        """Whether a spectator may follow one seat's hand a trick behind: ``watch_hand`` and
        ``spectators`` on, and not where :attr:`hides_hands` (a hand a trick behind and the last
        trick's plays give the leftover hands away)."""
        return self.spectators and self.watch_hand and not self.hides_hands

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
    sources: tuple[str, ...]  # docs/rules.md §2.9 keys
    rules: Rules

    @classmethod
    def of(cls, document: Document) -> Preset:
        """The document's choices over the defaults, checked like every ``Rules`` value."""
        rules = Rules(**document.changes)
        return cls(
            document.name, document.title_zh, document.title_en, document.description, document.sources, rules
        )


PRESETS: dict[str, Preset] = {document.name: Preset.of(document) for document in DOCUMENTS}
"""Preset name → :class:`Preset`; ``Rules.preset(name)`` gives its rules."""
