"""Scoring a deal: outcome class, level-ups, the A rules and points (V01–V04, docs/rules.md §1.8–§1.13).

Everything here is a pure function of frozen values, so the match only has to
swap its :class:`Standing` for the one :func:`settle_deal` returns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from engine.actions import AAttempt, EndReason, Outcome, team_of
from engine.cards import Card, Rank
from engine.plays import Play
from engine.rules import (
    AFailureCount,
    APass,
    AReset,
    MatchFormat,
    Overflow,
    PointsTieBreak,
    RoundScore,
    Rules,
    SuddenDeath,
    TimeTieBreak,
    TimeWinner,
)

_T = TypeVar("_T")
_Comparable = TypeVar("_Comparable", int, tuple[int, int])


@dataclass(frozen=True, slots=True)
class Standing:
    """Both teams' position in the match between deals."""

    levels: tuple[Rank, Rank] = (Rank.TWO, Rank.TWO)
    cycles: tuple[int, int] = (0, 0)  # completed 2→A cycles (Overflow.CYCLE)
    a_failures: tuple[int, int] = (0, 0)
    from_three: tuple[bool, bool] = (False, False)  # AReset.TO_TWO_FROM_THREE pending
    points: tuple[int, int] = (0, 0)
    threes: tuple[int, int] = (0, 0)  # 3-point deals (001-A tie-break)
    level_since: tuple[int, int] = (0, 0)  # deal number each team reached its level (先晋级)

    def rank_key(self, team: int) -> tuple[int, int]:
        """Comparable level including cycles, for "the higher level wins" at time-out."""
        return (self.cycles[team], int(self.levels[team]))


@dataclass(frozen=True, slots=True)
class DealResult:
    """The facts of one finished deal that scoring needs."""

    deal_number: int
    finish_order: tuple[int, int, int, int]
    declarer_team: int
    level: Rank  # the level the deal was played at
    final_plays: tuple[Play | None, ...] = ()  # per seat: the play that emptied its hand (V30)
    last_hand: tuple[Card, ...] = ()  # the cards the last player still held (V30)

    @property
    def winner_team(self) -> int:
        return team_of(self.finish_order[0])

    @property
    def outcome(self) -> Outcome:
        return Outcome.of(self.finish_order)

    @property
    def outcome_index(self) -> int:
        return self.outcome.column


@dataclass(frozen=True, slots=True)
class Settlement:
    """What one deal changed; ``game_won`` is the team that won the game, if any."""

    standing: Standing
    levels_gained: int
    points: tuple[int, int]
    a_attempt: AAttempt | None
    game_won: int | None
    reason: EndReason | None  # PASSED_A or REACHED_A when a game is won


def outcome_of(finish_order: tuple[int, ...]) -> Outcome:
    """The outcome class of a complete finishing order (:meth:`Outcome.of`)."""
    return Outcome.of(finish_order)


def level_gain(rules: Rules, outcome_index: int) -> int:
    """Levels the winners climb for an outcome class (V01), before the rules of A and any bonus.
    The one reader of the rules' level-up table: a new shape of it changes the rules and this."""
    return rules.level_ups[outcome_index]


def settle_deal(standing: Standing, result: DealResult, rules: Rules) -> Settlement:
    """Apply V01–V04 (or the points scale) to ``standing`` for one finished deal."""
    points = _deal_points(result, rules)
    standing = replace(standing, points=_add(standing.points, points), threes=_count_threes(standing, points))
    if not rules.uses_levels:
        return Settlement(standing, 0, points, None, None, None)
    attempt, standing, passed = _a_attempt(standing, result, rules)
    if passed:  # the side at A wins its game, even where an opponent was 上游 (no_fourth, 000-K)
        return Settlement(standing, 0, points, AAttempt.PASSED, result.declarer_team, EndReason.PASSED_A)
    gain = level_gain(rules, result.outcome_index)
    if attempt is not None and result.declarer_team == result.winner_team:
        gain = 0  # a failed attempt at A: the A team cannot climb past A
    elif rules.bonus_levels:
        gain += bonus_levels(result)
    if gain < 0:
        standing = _demote(standing, result.winner_team, -gain)
    else:
        standing = _climb(standing, result.winner_team, gain, result.deal_number, rules)
    if rules.a_pass is APass.REACH and standing.levels[result.winner_team] is Rank.ACE:
        return Settlement(standing, gain, points, attempt, result.winner_team, EndReason.REACHED_A)
    return Settlement(standing, gain, points, attempt, None, None)


def bonus_levels(result: DealResult) -> int:
    """V30 / A28 (000-N 加级规则): extra levels for the 上游's side, possibly negative.

    +1 per small card (2, or 3 at level 2) trailed in the winners' final plays (both
    winners' in a 双下; a bomb does not count), and per small card left in the last
    player's hand: +1 each when the last player is an opponent, −1 each when it is the
    上游's partner.
    """
    small = Rank.THREE if result.level is Rank.TWO else Rank.TWO
    winners = result.finish_order[:2] if result.outcome is Outcome.DOUBLE_DOWN else result.finish_order[:1]
    trailed = sum(
        sum(card.rank is small for card in play.cards)
        for seat in winners
        if (play := _final_play(result, seat)) is not None and not play.is_bomb
    )
    kept = sum(card.rank is small for card in result.last_hand)
    last_is_partner = team_of(result.finish_order[3]) == result.winner_team
    return trailed - kept if last_is_partner else trailed + kept


def _final_play(result: DealResult, seat: int) -> Play | None:
    return result.final_plays[seat] if seat < len(result.final_plays) else None


def _demote(standing: Standing, team: int, levels: int) -> Standing:
    """Lose levels (V30 penalty), never below 2 (A28)."""
    lowered = Rank(max(int(Rank.TWO), int(standing.levels[team]) - levels))
    return replace(standing, levels=_set(standing.levels, team, lowered))


def _deal_points(result: DealResult, rules: Rules) -> tuple[int, int]:
    if rules.match_format is not MatchFormat.POINTS:
        return (0, 0)
    scored = rules.points_scale[result.outcome_index]
    return (scored, 0) if result.winner_team == 0 else (0, scored)


def _count_threes(standing: Standing, points: tuple[int, int]) -> tuple[int, int]:
    return (standing.threes[0] + (points[0] == 3), standing.threes[1] + (points[1] == 3))


def _a_attempt(
    standing: Standing, result: DealResult, rules: Rules
) -> tuple[AAttempt | None, Standing, bool]:
    """V02/V03: a deal the declarer played at its own A is an attempt at passing A."""
    team = result.declarer_team
    is_attempt = (
        rules.a_pass not in (APass.REACH, APass.ORDINARY)
        and result.level is Rank.ACE
        and standing.levels[team] is Rank.ACE
    )
    if rules.a_failure_count is AFailureCount.CONSECUTIVE:
        standing = _break_runs(standing, team if is_attempt else None)
    if not is_attempt:
        return None, standing, False
    if _passes_a(result, rules):
        return AAttempt.PASSED, standing, True
    failures = standing.a_failures[team] + 1
    limit = rules.a_failure_limit
    if limit is not None and failures >= limit:
        return AAttempt.RESET, _reset(standing, team, rules), False
    return AAttempt.FAILED, replace(standing, a_failures=_set(standing.a_failures, team, failures)), False


def _break_runs(standing: Standing, attempting: int | None) -> Standing:
    """Consecutive counting: a deal that is not a team's attempt at A ends its run."""
    failures = tuple(n if team == attempting else 0 for team, n in enumerate(standing.a_failures))
    return replace(standing, a_failures=(failures[0], failures[1]))


def _passes_a(result: DealResult, rules: Rules) -> bool:
    team, order = result.declarer_team, result.finish_order
    if rules.a_pass is APass.NO_FOURTH:
        return team_of(order[3]) != team
    if result.winner_team != team:
        return False
    if rules.a_pass is APass.DOUBLE_DOWN:
        return result.outcome is Outcome.DOUBLE_DOWN
    if rules.a_pass is APass.NOT_FOURTH:
        return result.outcome is not Outcome.ONE_FOUR
    return True


def _reset(standing: Standing, team: int, rules: Rules) -> Standing:
    level = Rank.KING if rules.a_reset is AReset.ONE_LOWER else Rank.TWO
    return replace(
        standing,
        levels=_set(standing.levels, team, level),
        a_failures=_set(standing.a_failures, team, 0),
        from_three=_set(standing.from_three, team, rules.a_reset is AReset.TO_TWO_FROM_THREE),
    )


def _climb(standing: Standing, team: int, gain: int, deal_number: int, rules: Rules) -> Standing:
    """Move ``team`` up ``gain`` levels under the overflow rule (V04)."""
    if gain == 0:
        return standing
    start = Rank.THREE if standing.from_three[team] else standing.levels[team]
    target = int(start) + gain
    stops = [m for m in sorted(rules.must_play) if int(standing.levels[team]) < m < target]
    cycles = standing.cycles
    other = 1 - team
    levels = standing.levels
    if stops:
        target = stops[0]
    elif target > Rank.ACE and rules.overflow is Overflow.CYCLE:
        target -= 13
        cycles = _set(cycles, team, cycles[team] + 1)
    elif target > Rank.ACE and rules.overflow is Overflow.DEMOTE_OPPONENTS:
        levels = _set(levels, other, Rank(max(2, int(levels[other]) - (target - Rank.ACE))))
    new_level = Rank(min(target, int(Rank.ACE)))
    levels = _set(levels, team, new_level)
    failures = tuple(0 if levels[t] is not Rank.ACE else standing.a_failures[t] for t in (0, 1))
    since = _set(standing.level_since, team, deal_number) if new_level != standing.levels[team] else None
    return replace(
        standing,
        levels=levels,
        cycles=cycles,
        a_failures=(failures[0], failures[1]),
        from_three=_set(standing.from_three, team, False),
        level_since=since or standing.level_since,
    )


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return (a[0] + b[0], a[1] + b[1])


def _set(pair: tuple[_T, _T], index: int, value: _T) -> tuple[_T, _T]:
    return (value, pair[1]) if index == 0 else (pair[0], value)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A decided match or game: ``winner`` (``None``: nobody wins, 001-B / A17) and ``reason``;
    or, with ``sudden_death``, a tie that extra deals settle (A26, :class:`SuddenDeath`)."""

    winner: int | None
    reason: EndReason
    sudden_death: bool = False


def _tie_or(winner: int | None, reason: EndReason) -> Verdict:
    """``winner``'s verdict, or a sudden-death tie when there is none."""
    return Verdict(winner, reason, sudden_death=winner is None)


def deal_verdict(
    before: Standing,
    settled: Settlement,
    result: DealResult,
    rules: Rules,
    *,
    deals_played: int,
    sudden_death: bool,
    time_expired: bool,
    declarer: int,
    first_out: int | None,
) -> Verdict | None:
    """After a finished deal: the game's (or match's) verdict, or None to deal again.

    ``before`` is the standing before the deal, ``settled`` what :func:`settle_deal` made of
    it; ``sudden_death``: the deal was an extra deal after a tie; ``time_expired``: the clock
    ran out during it (:attr:`TimeUp.FINISH_DEAL`), when ``declarer`` was 台上 and
    ``first_out`` the team of a player already out. A bot table and a recorder's score sheet
    both ask this, so a match ends the same way wherever it is played.
    """
    if rules.match_format is MatchFormat.POINTS:
        if sudden_death:
            # 加赛一副: its winner, whatever the class (docs/rules.md §1.13)
            return Verdict(result.winner_team, EndReason.POINTS)
        return points_verdict(settled.standing, deals_played, result.winner_team, rules, time_expired)
    if settled.game_won is not None and settled.reason is not None:
        return Verdict(settled.game_won, settled.reason)
    if sudden_death:
        return _sudden_death_verdict(result.winner_team, before, settled.standing, rules)
    if time_expired:
        return time_verdict(settled.standing, rules, result.winner_team, declarer, first_out)
    return None


def stopped_verdict(
    standing: Standing,
    rules: Rules,
    *,
    deals_played: int,
    last_winner: int | None,
    declarer: int,
    first_out: int | None,
) -> Verdict | None:
    """:attr:`TimeUp.STOP_AT_ONCE`: the verdict when the clock stops the deal in hand (001-B,
    002-A), which then does not count; a sudden-death verdict (or None) means the deal in
    hand goes on as the first extra deal (002-A 顺延加时)."""
    if rules.match_format is MatchFormat.POINTS:
        return points_verdict(standing, deals_played, last_winner, rules, time_up=True)
    return time_verdict(standing, rules, last_winner, declarer, first_out)


def _sudden_death_verdict(
    deal_winner: int, before: Standing, after: Standing, rules: Rules
) -> Verdict | None:
    """A26 "先升级的为获胜方": the deal's winners win only if they went up; a deal that was
    a failed attempt at A (or reset its team to 2) settles nothing, and play goes on."""
    went_up = after.rank_key(deal_winner) > before.rank_key(deal_winner)
    if went_up or rules.sudden_death is SuddenDeath.DEAL_WINNER:
        return Verdict(deal_winner, EndReason.TIME)
    return None


def points_verdict(
    standing: Standing, deals_played: int, last_winner: int | None, rules: Rules, time_up: bool = False
) -> Verdict | None:
    """docs/rules.md §1.13: the target reached, or the scheduled deals played (None: play on)."""
    points, target = standing.points, rules.points_target
    if target is not None and last_winner is not None and points[last_winner] >= target:
        return Verdict(last_winner, EndReason.POINTS)
    if deals_played < rules.points_deals and not time_up:
        return None
    leader = _leader(points)
    if leader is None and rules.points_tie_break is PointsTieBreak.MORE_THREES_THEN_EXTRA:
        leader = _leader(standing.threes)
    return _tie_or(leader, EndReason.POINTS)


def time_verdict(
    standing: Standing, rules: Rules, last_winner: int | None, declarer: int, first_out: int | None
) -> Verdict:
    """V34/V35 / A26: at time-out the higher level wins; ties per the preset.

    ``declarer`` is the 台上 team and ``first_out`` the team of a player already out
    when the time ran out (002-A). Under :attr:`TimeWinner.NONE` (001-B) only passing A
    wins, so a time-out has no winner whatever the levels (A17).
    """
    if rules.time_winner is TimeWinner.NONE:
        return Verdict(None, EndReason.TIME)
    leader = _leader((standing.rank_key(0), standing.rank_key(1)))
    if leader is not None:
        return Verdict(leader, EndReason.TIME)
    return _tie_or(_time_tie_winner(standing, rules, last_winner, declarer, first_out), EndReason.TIME)


def _time_tie_winner(
    standing: Standing, rules: Rules, last_winner: int | None, declarer: int, first_out: int | None
) -> int | None:
    rule = rules.time_tie_break
    if rule is TimeTieBreak.LAST_FIRST_PLACE:
        return last_winner
    if rule is TimeTieBreak.DECLARER:
        return declarer
    if rule is TimeTieBreak.NON_DECLARER:
        return 1 - declarer
    if rule is TimeTieBreak.FIRST_TO_LEVEL:
        since = standing.level_since
        return _leader((-since[0], -since[1]))
    if rule is TimeTieBreak.PLAYER_OUT:
        return first_out
    return None


def _leader(values: tuple[_Comparable, _Comparable]) -> int | None:
    """The team with the larger value, or None on a tie."""
    if values[0] == values[1]:
        return None
    return 0 if values[0] > values[1] else 1


def round_score(standing: Standing, winner: int | None, rules: Rules) -> tuple[int, int]:
    """What a finished match is worth in a multi-round contest (docs/rules.md §1.14, A17).

    001-B: the winner scores 100 + the level difference (the winner counting as past
    A, 13 steps; at most 15), the loser its own steps climbed (at most 12); with no
    winner each side scores its own steps. 002-D / 003-A: 2 for a win, 0 for a loss.
    """
    if rules.round_score is RoundScore.MATCH_POINTS_TWO:
        return (0, 0) if winner is None else ((2, 0) if winner == 0 else (0, 2))
    if rules.round_score is RoundScore.NONE:
        return (0, 0)
    steps = [min(12, int(level) - int(Rank.TWO)) for level in standing.levels]
    if winner is not None:
        steps[winner] = 100 + min(15, 13 - steps[1 - winner])
    return (steps[0], steps[1])
