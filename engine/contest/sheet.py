"""A recorder's score sheet for one match at a physical table (issue 11; docs/rules.md §1.8–§1.13, §4.9).

After each deal the table's recorder writes down who went out first (上游) and where the
上游's partner finished: 2nd (双下 of the opponents), 3rd or 4th. With A1 (each deal is
played at the level of the previous deal's 上游 team, the first deal of a game at 2) that
is everything the engine's scoring needs, so the sheet builds each deal's
:class:`~engine.scoring.DealResult` and asks the engine — :func:`~engine.scoring.settle_deal`
for the levels, points and A attempts, :func:`~engine.scoring.deal_verdict` and
:func:`~engine.scoring.stopped_verdict` for the end of a game or match,
:func:`~engine.figures.ended_figures` for the figures — exactly as a bot table does. No
scoring rule is written here: a sheet fed a bot match's finishing orders ends with that
match's figures (tests/engine/contest/test_sheet.py checks it against self-played matches).

Like the engine's action log, the sheet is its list of entries (:attr:`ScoreSheet.presses`,
undos included) and everything else is derived by replaying them; storage keeps the
entries, a restart replays them.

Notation (round-trips through :meth:`SheetEntry.parse`): ``NS 1·2`` (North–South went out
1st and 2nd: a 双下), ``EW 1·3``, ``NS 1·4``; ``time`` (the clock ran out), ``time NS``
(…while a North–South player was already out, 002-A); ``undo``.

>>> from engine.rules import Rules
>>> sheet = ScoreSheet(Rules.default(), ns=3, ew=5)
>>> sheet = sheet.enter(SheetEntry.parse("NS 1·2")).enter(SheetEntry.parse("EW 1·4"))
>>> [level.char for level in sheet.standing.levels], sheet.level_in_hand.char
(['5', '3'], '3')

Engine teams: 0 is North–South (seats 0 and 2), 1 is East–West; :meth:`ScoreSheet.contest_figures`
re-indexes the figures like the contest match's pairs (draw order), as a bot table's are.

What a sheet cannot know: 000-N's bonus levels (V30) need the cards of the final plays, so
a sheet under ``bonus_levels`` scores the plain level-ups; the first deal of a game has no
台上 team on paper before its 上游 is known, so a time-out during it takes North–South.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import Enum

from engine.actions import AAttempt, EndReason, partner_of
from engine.cards import Rank
from engine.contest.results import oriented
from engine.figures import MatchFigures, ended_figures
from engine.rules import FirstLeader, MatchFormat, NoTributeLeader, Rules, TimeUp
from engine.scoring import DealResult, Standing, Verdict, deal_verdict, settle_deal, stopped_verdict

__all__ = [
    "PARTNER_PLACES",
    "EntryKind",
    "LeaderProcedure",
    "ScoreSheet",
    "SheetEntry",
    "SheetRefusal",
    "SheetRefused",
    "SheetRow",
    "SheetState",
]

PARTNER_PLACES = (2, 3, 4)
"""Where the 上游's partner can finish: 1·2 (双下), 1·3, 1·4 — the three outcome classes."""

TEAM_NAMES = ("NS", "EW")


class EntryKind(Enum):
    DEAL = "deal"
    TIME_UP = "time"
    UNDO = "undo"


class SheetRefusal(Enum):
    """Why the sheet refused an entry; the handler says it in the presser's language."""

    DECIDED = "decided"  # the match is decided: nothing more to enter
    NOT_TIMED = "not_timed"  # a time-up under rules without a time limit
    TIME_ALREADY_UP = "time_already_up"
    NOTHING_TO_UNDO = "nothing_to_undo"
    BAD_ENTRY = "bad_entry"  # not a team 0/1 and a place 2–4, or unreadable notation


class SheetRefused(ValueError):
    """An entry the sheet does not take; ``refusal`` says why."""

    def __init__(self, refusal: SheetRefusal, detail: str = "") -> None:
        super().__init__(f"{refusal.value}: {detail}" if detail else refusal.value)
        self.refusal = refusal


_NOTATION = re.compile(r"^(NS|EW)\s*1\s*[·.\-]\s*([234])$|^time(?:\s+(NS|EW))?$|^undo$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SheetEntry:
    """One line the recorder enters: a deal, the clock running out, or an undo."""

    kind: EntryKind
    team: int | None = None  # DEAL: the 上游's engine team; TIME_UP: a team with a player out
    partner_place: int = 0  # DEAL: 2, 3 or 4

    def __post_init__(self) -> None:
        if self.kind is EntryKind.DEAL:
            ok = self.team in (0, 1) and self.partner_place in PARTNER_PLACES
        elif self.kind is EntryKind.TIME_UP:
            ok = self.team in (None, 0, 1) and self.partner_place == 0
        else:
            ok = self.team is None and self.partner_place == 0
        if not ok:
            raise SheetRefused(SheetRefusal.BAD_ENTRY, repr((self.kind, self.team, self.partner_place)))

    @classmethod
    def deal(cls, team: int, partner_place: int) -> SheetEntry:
        return cls(EntryKind.DEAL, team, partner_place)

    @classmethod
    def time_up(cls, first_out: int | None = None) -> SheetEntry:
        return cls(EntryKind.TIME_UP, first_out)

    @classmethod
    def undo(cls) -> SheetEntry:
        return cls(EntryKind.UNDO)

    @classmethod
    def parse(cls, text: str) -> SheetEntry:
        """The inverse of ``str()``: ``NS 1·2``, ``EW 1·4``, ``time``, ``time NS``, ``undo``."""
        found = _NOTATION.match(text.strip())
        if found is None:
            raise SheetRefused(SheetRefusal.BAD_ENTRY, text[:20])
        deal_team, place, out_team = found.groups()
        if deal_team is not None:
            return cls.deal(TEAM_NAMES.index(deal_team.upper()), int(place))
        if text.strip().lower() == "undo":
            return cls.undo()
        return cls.time_up(None if out_team is None else TEAM_NAMES.index(out_team.upper()))

    def __str__(self) -> str:
        if self.kind is EntryKind.DEAL:
            assert self.team is not None
            return f"{TEAM_NAMES[self.team]} 1·{self.partner_place}"
        if self.kind is EntryKind.TIME_UP:
            return "time" if self.team is None else f"time {TEAM_NAMES[self.team]}"
        return "undo"

    @property
    def finish_order(self) -> tuple[int, int, int, int]:
        """A finishing order of seats with this outcome (which seat of a team is irrelevant)."""
        assert self.team is not None and self.kind is EntryKind.DEAL
        first = self.team
        opponents = [(first + 1) % 4, (first + 3) % 4]
        order = [first, *opponents]
        order.insert(self.partner_place - 1, partner_of(first))
        return (order[0], order[1], order[2], order[3])


@dataclass(frozen=True, slots=True)
class SheetState:
    """The match between two entries (what a bot table's :class:`~engine.match.Match` keeps)."""

    standing: Standing = field(default_factory=Standing)
    games_won: tuple[int, int] = (0, 0)
    deals: int = 0  # deals finished in the match
    deals_in_game: int = 0
    declarer: int | None = None  # 台上 team of the deal in hand (A1); None: the game's first deal
    last_winner: int | None = None  # the last finished deal's 上游 team
    time_expired: bool = False
    sudden_death: bool = False  # the deals now are extra deals after a tie (加赛 / A26)
    extra_deals: int = 0
    expiry: tuple[int, int | None] | None = None  # (台上, team with a player out) at the time-out
    winner: int | None = None
    reason: EndReason | None = None  # set once the match is decided

    @property
    def is_decided(self) -> bool:
        return self.reason is not None


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One effective entry and the match after it, for the sheet's display."""

    entry: SheetEntry
    deal: int  # the deal's number in the match (a time-up: the deal in hand)
    game: int  # 1-based game (best-of)
    level: Rank | None  # the level the deal was played at; None for a time-up
    a_attempt: AAttempt | None
    extra: bool  # an extra deal after a tie
    state: SheetState  # after this entry
    game_won: int | None = None  # a best-of game this entry decided (engine team)


class LeaderProcedure(Enum):
    """docs/rules.md §4.9 / V16: how a physical table draws the first leader."""

    MARKER_CARD = "marker_card"  # 001-A: a card of the stack turned face up; its drawer leads
    CARD_TURN = "card_turn"  # 002-A: a turned card's value mod 4 picks who draws first


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """One match's sheet: the rules, who sits North–South (engine team 0) and East–West, and
    every entry so far (undos included, ``presses``); the rest is derived."""

    rules: Rules
    ns: int  # group number seated North–South
    ew: int
    presses: tuple[SheetEntry, ...] = ()
    rows: tuple[SheetRow, ...] = field(init=False)
    state: SheetState = field(init=False)

    def __post_init__(self) -> None:
        rows = _replay(self.rules, self.presses)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "state", rows[-1].state if rows else SheetState())

    # ------------------------------------------------------------ entering

    def enter(self, entry: SheetEntry) -> ScoreSheet:
        """The sheet with ``entry`` added; :class:`SheetRefused` (and nothing changes) if refused."""
        if entry.kind is EntryKind.UNDO and not self.rows:
            raise SheetRefused(SheetRefusal.NOTHING_TO_UNDO)
        if entry.kind is not EntryKind.UNDO:
            _step(self.state, entry, self.rules)  # refuses before anything is kept
        return replace(self, presses=(*self.presses, entry))

    def undo(self) -> ScoreSheet:
        return self.enter(SheetEntry.undo())

    @property
    def version(self) -> int:
        """Entries pressed so far (undos too): a button made for another version is stale."""
        return len(self.presses)

    # ------------------------------------------------------------ where the match is

    @property
    def standing(self) -> Standing:
        return self.state.standing

    @property
    def is_decided(self) -> bool:
        return self.state.is_decided

    @property
    def is_timed(self) -> bool:
        return self.rules.time_limit_minutes is not None

    @property
    def game(self) -> int:
        """The game being played (or the last one, once decided): 1-based."""
        return min(sum(self.state.games_won) + 1, self.rules.best_of) if self._best_of else 1

    @property
    def deal_in_hand(self) -> int:
        """The number of the next deal to enter."""
        return self.state.deals + 1

    @property
    def declarer(self) -> int | None:
        """台上: the team whose level the next deal is played at (None: a game's first deal)."""
        return self.state.declarer

    @property
    def level_in_hand(self) -> Rank:
        """The level the next deal is played at (A1; 2 in a fixed-level points match)."""
        declarer = self.state.declarer
        if declarer is None or not self.rules.uses_levels:
            return Rank.TWO
        return self.standing.levels[declarer]

    @property
    def winner_pair(self) -> int | None:
        winner = self.state.winner
        return None if winner is None else self.pair_of_team(winner)

    def pair_of_team(self, team: int) -> int:
        return self.ns if team == 0 else self.ew

    @property
    def leader_procedure(self) -> LeaderProcedure:
        """V16: 001-A's face-up card under ``marker_card``; the 002-A card turn otherwise."""
        if self.rules.first_leader is FirstLeader.MARKER_CARD:
            return LeaderProcedure.MARKER_CARD
        return LeaderProcedure.CARD_TURN

    @property
    def leader_draw_needed(self) -> bool:
        """Whether the next deal's leader is drawn: a game's first deal, or every deal of a
        match without tribute whose later leaders are random (001-A); otherwise the
        tribute or the 上游 decides it."""
        if self.is_decided:
            return False
        if self.state.deals_in_game == 0:
            return True
        return not self.rules.tribute and self.rules.no_tribute_leader is NoTributeLeader.RANDOM

    # ------------------------------------------------------------ figures

    def figures(self) -> MatchFigures:
        """The decided match's figures per engine team (0: North–South); ``ValueError`` before."""
        state = self.state
        if state.reason is None:
            raise ValueError("the match is not decided")
        return ended_figures(
            self.rules,
            state.standing,
            winner=state.winner,
            reason=state.reason,
            deals=state.deals,
            extra_deals=state.extra_deals,
            games_won=state.games_won,
        )

    def contest_figures(self, pairs: tuple[int, int]) -> MatchFigures:
        """:meth:`figures` indexed like a contest match's ``pairs`` (its draw order)."""
        if set(pairs) != {self.ns, self.ew}:
            raise ValueError(f"the sheet's pairs {self.ns}, {self.ew} are not {pairs}")
        return oriented(self.figures(), swap=pairs[0] != self.ns)

    @property
    def _best_of(self) -> bool:
        return self.rules.match_format is MatchFormat.BEST_OF


def _replay(rules: Rules, presses: tuple[SheetEntry, ...]) -> tuple[SheetRow, ...]:
    """The rows of the effective entries: an undo takes back the entry before it."""
    rows: list[SheetRow] = []
    for entry in presses:
        if entry.kind is EntryKind.UNDO:
            if not rows:
                raise SheetRefused(SheetRefusal.NOTHING_TO_UNDO)
            rows.pop()
            continue
        rows.append(_step(rows[-1].state if rows else SheetState(), entry, rules))
    return tuple(rows)


def _step(state: SheetState, entry: SheetEntry, rules: Rules) -> SheetRow:
    if state.is_decided:
        raise SheetRefused(SheetRefusal.DECIDED)
    if entry.kind is EntryKind.DEAL:
        return _deal(state, entry, rules)
    return _time_up(state, entry, rules)


def _deal(state: SheetState, entry: SheetEntry, rules: Rules) -> SheetRow:
    """One finished deal, settled and judged as :class:`~engine.match.Match` does."""
    number = state.deals + 1
    declarer = entry.team if state.declarer is None else state.declarer
    assert declarer is not None
    level = state.standing.levels[declarer] if rules.uses_levels else Rank.TWO
    result = DealResult(number, entry.finish_order, declarer, level)
    settled = settle_deal(state.standing, result, rules)
    expiry = state.expiry or (declarer, None)
    verdict = deal_verdict(
        state.standing,
        settled,
        result,
        rules,
        deals_played=number,
        sudden_death=state.sudden_death,
        time_expired=state.time_expired,
        declarer=expiry[0],
        first_out=expiry[1],
    )
    after = replace(
        state,
        standing=settled.standing,
        deals=number,
        deals_in_game=state.deals_in_game + 1,
        declarer=result.winner_team,
        last_winner=result.winner_team,
        extra_deals=state.extra_deals + state.sudden_death,
    )
    game = sum(state.games_won) + 1
    decided, game_won = _after(after, verdict, rules)
    return SheetRow(entry, number, game, level, settled.a_attempt, state.sudden_death, decided, game_won)


def _time_up(state: SheetState, entry: SheetEntry, rules: Rules) -> SheetRow:
    """The clock ran out during the deal in hand: note it (the deal is finished, 000-A /
    002-D), or stop at once and judge without it (001-B, 002-A)."""
    if rules.time_limit_minutes is None:
        raise SheetRefused(SheetRefusal.NOT_TIMED)
    if state.time_expired:
        raise SheetRefused(SheetRefusal.TIME_ALREADY_UP)
    declarer = 0 if state.declarer is None else state.declarer
    after = replace(state, time_expired=True, expiry=(declarer, entry.team))
    game = sum(state.games_won) + 1
    if rules.time_up is not TimeUp.STOP_AT_ONCE:
        return SheetRow(entry, state.deals + 1, game, None, None, False, after)
    verdict = stopped_verdict(
        state.standing,
        rules,
        deals_played=state.deals + 1,
        last_winner=state.last_winner,
        declarer=declarer,
        first_out=entry.team,
    )
    if verdict is None or verdict.sudden_death:
        after = replace(after, sudden_death=True)  # the deal in hand goes on as the first extra deal
        return SheetRow(entry, state.deals + 1, game, None, None, False, after)
    decided, game_won = _after(after, Verdict(verdict.winner, EndReason.TIME), rules)
    return SheetRow(entry, state.deals + 1, game, None, None, False, decided, game_won)


def _after(state: SheetState, verdict: Verdict | None, rules: Rules) -> tuple[SheetState, int | None]:
    """Play on, go into extra deals, end a best-of game (both teams back to 2), or end the match."""
    if verdict is None:
        return state, None
    if verdict.sudden_death:
        return replace(state, sudden_death=True), None
    winner = verdict.winner
    if rules.match_format is MatchFormat.BEST_OF and winner is not None:
        won = (state.games_won[0] + (winner == 0), state.games_won[1] + (winner == 1))
        if won[winner] > rules.best_of // 2:
            return replace(state, games_won=won, winner=winner, reason=EndReason.BEST_OF), winner
        fresh = SheetState(games_won=won, deals=state.deals, last_winner=state.last_winner)
        return replace(fresh, extra_deals=state.extra_deals), winner
    return replace(state, winner=winner, reason=verdict.reason), None
