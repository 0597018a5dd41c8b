"""Knockout formats (淘汰制, docs/rules.md §4.3): pairing, advancing and ranking functions.

Every draw is a documented function of the contest's seed (:mod:`engine.contest.lots`):
the input order is sorted by group number, then shuffled with a named label.

**Knockout redrawn every round** (000-E, 000-D, 000-I, 004-A), round ``r`` exactly:

1. The contenders (survivors of round ``r-1``, and its byes), sorted by group
   number, are shuffled with the label ``f"round:{r}"``.
2. With an odd count, the **bye** (轮空, docs/rules.md §4.3: "差额小组自动轮空进入下轮抽签") goes
   to the *last* pair in that order among those with the fewest byes so far — so
   nobody gets a second bye while another pair has had none.
3. The others play in shuffled order: 1st v 2nd at table 1, 3rd v 4th at table 2, …
   ("抽相同号码的两对选手在同桌比赛": the table number is the drawn number).
4. Winners and byes go on; a both-out match (000-E's deadline) sends neither.
5. **Third place** (configurable, :class:`ThirdPlace`): the pairs that *lost* a
   played match in the round that left two survivors (the semi-final) play for 3rd
   alongside the final (``PLAYOFF``, the default, 000-D "最后角逐一、二、三名"), or
   share 3rd (``SHARED``). A single such loser (3 survivors: a match and a bye) is
   3rd outright.

**Fixed bracket** (000-S "先分区，后定位"), drawn once with the label ``"bracket"``:
the bracket has ``2**k ≥ N`` slots. Units (the pairs' tags) with two teams, sorted by
unit name, send one team to each half — which one by the lot; the other pairs fill
the halves to ``ceil(N/2)`` / ``floor(N/2)`` in shuffled order. Within each half the
teams are shuffled into slot pairs, one bye slot per slot pair at most (the slot
pairs with a bye are drawn too). Round ``r`` plays the slot pairs of level ``r``.

**A v B by time slot** (002-E): pairs tagged A or B (others by lot into the smaller
group) are numbered A1, A2… and B1, B2… by lot (label ``"slots"``); A1 plays B1, and
the larger group's leftovers play each other. Later rounds are redrawn.

**Table numbers, round 2 by time** (002-C): round 1 as the redrawn knockout (the table
number is the number drawn); round 2 pairs the winners the same way, and places go by
the order in which the round-2 winners passed A ("以最先打过A为胜出，即按时间决出冠、
亚、季军"): the time of the result that stands.

**精方 multi-stage knockout with repechage** (000-L/002-B, docs/rules.md §4.3), stage by stage:
``prelim`` (round 1 drawn; later preliminary rounds pair the previous tables' winners
in table order, "1号与2号、3号与4号") while 16 or more pairs are left; ``qualifying``
once 9–15 are left (the winners go on, the losers *and the bye* go to the repechage);
``repechage`` (redrawn until 8 − winners remain; the qualifying winners wait, shown as
byes); ``quarter`` (复赛, down to 4); ``semi`` and ``final`` (best of three, with the
3rd/4th match).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from fractions import Fraction

from engine.contest.errors import DrawRefused, Refusal
from engine.contest.lots import Lots
from engine.contest.pairing import (
    Pairing,
    RankInput,
    RoundDraw,
    RoundInput,
    ThirdPlace,
    competition_ranking,
    pair_off,
)
from engine.contest.results import MatchKind, PlayMethod
from engine.contest.rounds import Round, Stage
from engine.contest.scores import pair_scores

# ---------------------------------------------------------------- redrawn every round


def redraw_knockout_pairing(view: RoundInput) -> RoundDraw:
    """Steps 1–3 and 5 of the module docstring."""
    order = view.lots.shuffle(sorted(view.contenders))
    byes: tuple[int, ...] = ()
    if len(order) % 2:
        bye = _bye_pick(order, view.previous)
        byes, order = (bye,), tuple(n for n in order if n != bye)
    return RoundDraw((*pair_off(order), *_third_place(view)), byes)


def _third_place(view: RoundInput) -> tuple[Pairing, ...]:
    third = _semi_final_losers(view.previous) if len(view.contenders) == 2 else ()
    if view.third_place is ThirdPlace.PLAYOFF and len(third) == 2:
        return (Pairing((third[0], third[1]), MatchKind.THIRD_PLACE),)
    return ()


def _bye_pick(order: Sequence[int], previous: Sequence[Round]) -> int:
    counts = {n: sum(n in r.byes for r in previous) for n in order}
    fewest = min(counts.values())
    return [n for n in order if counts[n] == fewest][-1]


def _semi_final_losers(previous: Sequence[Round]) -> tuple[int, ...]:
    """Pairs that lost a played main match in the last round (the one that left two)."""
    if not previous:
        return ()
    losers = (
        m.opponent(m.winner)
        for m in previous[-1].main_matches
        if m.winner is not None and m.result is not None and m.result.method is not PlayMethod.BOTH_OUT
    )
    return tuple(sorted(losers))


def knockout_advance(contenders: tuple[int, ...], played: Round) -> tuple[int, ...]:
    """Winners of main matches and the bye go on; both-out matches send nobody."""
    winners = {m.winner for m in played.main_matches if m.winner is not None}
    return tuple(sorted(n for n in contenders if n in winners or n in played.byes))


def knockout_decided(alive: tuple[int, ...], rounds: tuple[Round, ...]) -> bool:
    return len(alive) <= 1


def knockout_rank(view: RankInput) -> dict[int, int]:
    """Places by how far each pair got (see :func:`knockout_key`); equal keys share a place."""
    return competition_ranking({n: knockout_key(n, view.rounds, view.alive) for n in view.numbers})


def knockout_key(number: int, rounds: tuple[Round, ...], alive: tuple[int, ...]) -> tuple[int, ...]:
    """(champion, last round reached, last match was the main one, won it, not both-out)."""
    reached = [r for r in rounds if number in r.byes or r.match_of(number) is not None]
    if not reached:
        return (0, 0, 0, 0, 0)
    last = reached[-1]
    match = last.match_of(number)
    if match is None:  # a bye in the last round reached
        return (int(number in alive), last.number, 1, 1, 1)
    result = match.result
    both_out = result is not None and result.method is PlayMethod.BOTH_OUT
    return (
        int(number in alive),
        last.number,
        int(match.kind is MatchKind.MAIN),
        int(match.winner == number),
        int(not both_out),
    )


def scored_knockout_rank(view: RankInput) -> dict[int, int]:
    """积分淘汰制 (002-D) and 001-A: pairs out in the same round are ordered by Σ 级差, then
    积分, then points for (a knockout decides who goes on, the scores who places higher)."""
    scores = pair_scores(view.numbers, view.rounds, view.points)
    keys: dict[int, tuple[int | Fraction, ...]] = {
        n: (
            *knockout_key(n, view.rounds, view.alive),
            scores[n].level_difference,
            scores[n].match_points,
            scores[n].points_for - scores[n].points_against,
        )
        for n in view.numbers
    }
    return competition_ranking(keys)


# ---------------------------------------------------------------- fixed bracket (000-S)


def bracket_slots(view: RoundInput) -> tuple[int | None, ...]:
    """The drawn bracket: ``2**k`` slots, ``None`` for a bye (module docstring)."""
    lots = view.contest_lots("bracket")
    teams = sorted(view.pairs)
    size = 1
    while size < len(teams):
        size *= 2
    size = max(size, 2)
    halves = _split_halves(teams, view.tags, lots)
    slots: list[int | None] = []
    for half in halves:
        slots.extend(_fill_half(half, size // 2, lots))
    return tuple(slots)


def _split_halves(teams: Sequence[int], tags: Mapping[int, str], lots: Lots) -> tuple[list[int], list[int]]:
    """Each unit's two teams into different halves (上下半区), the rest by lot."""
    units: dict[str, list[int]] = {}
    for n in teams:
        if tags.get(n, "").strip():
            units.setdefault(tags[n].strip(), []).append(n)
    top: list[int] = []
    bottom: list[int] = []
    for unit in sorted(units):
        members = units[unit]
        if len(members) > 2:
            raise DrawRefused(Refusal.FIELD_SIZE, f"unit {unit!r} has {len(members)} teams; at most A and B")
        if len(members) == 2:
            first, second = lots.shuffle(members)
            top.append(first)
            bottom.append(second)
    placed = set(top) | set(bottom)
    rest = list(lots.shuffle([n for n in teams if n not in placed]))
    while rest:
        (top if len(top) <= len(bottom) else bottom).append(rest.pop(0))
    return top, bottom


def _fill_half(half: Sequence[int], capacity: int, lots: Lots) -> list[int | None]:
    """Shuffle a half's teams into ``capacity`` slots; each bye shares a slot pair with a team."""
    teams: list[int | None] = list(lots.shuffle(half))
    if capacity == 1:
        return teams + [None] * (1 - len(teams))
    byes = capacity - len(teams)
    with_bye = set(lots.shuffle(range(capacity // 2))[:byes])
    slots: list[int | None] = []
    for slot_pair in range(capacity // 2):
        if slot_pair in with_bye:
            slots.extend((teams.pop(0), None))
        else:
            slots.extend((teams.pop(0), teams.pop(0)))
    return slots


def fixed_bracket_pairing(view: RoundInput) -> RoundDraw:
    """Round ``r`` plays the bracket's level ``r``: winners meet as the bracket says."""
    level: list[int | None] = list(bracket_slots(view))
    for played in view.previous:
        level = [_bracket_winner(a, b, played) for a, b in zip(level[::2], level[1::2], strict=True)]
    pairings: list[Pairing] = []
    byes: list[int] = []
    for a, b in zip(level[::2], level[1::2], strict=True):
        present = [n for n in (a, b) if n is not None and n in view.contenders]
        if len(present) == 2:
            pairings.append(Pairing((present[0], present[1])))
        byes.extend(present if len(present) == 1 else ())
    if len(level) == 2:
        pairings.extend(_third_place(view))
    return RoundDraw(tuple(pairings), tuple(byes))


def _bracket_winner(a: int | None, b: int | None, played: Round) -> int | None:
    if a is None or b is None:
        survivor = a if b is None else b
        return survivor if survivor is not None and survivor in played.byes else None
    match = played.match_of(a)
    return match.winner if match is not None and match.winner in (a, b) else None


def fixed_bracket_decided(alive: tuple[int, ...], rounds: tuple[Round, ...]) -> bool:
    return len(alive) <= 1


# ---------------------------------------------------------------- A v B by time slot (002-E)


def slot_groups(view: RoundInput) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Groups A and B, each in drawn order (A1, A2, …): the tag, else by lot into the smaller."""
    lots = view.contest_lots("slots")
    a = [n for n in sorted(view.pairs) if view.tags.get(n, "").strip().upper() == "A"]
    b = [n for n in sorted(view.pairs) if view.tags.get(n, "").strip().upper() == "B"]
    for n in lots.shuffle([n for n in sorted(view.pairs) if n not in a and n not in b]):
        (a if len(a) <= len(b) else b).append(n)
    return lots.shuffle(a), lots.shuffle(b)


def slot_pairing(view: RoundInput) -> RoundDraw:
    """Round 1: A1 v B1, A2 v B2, …; later rounds redrawn among the winners."""
    if view.number > 1:
        return redraw_knockout_pairing(view)
    a, b = slot_groups(view)
    a = tuple(n for n in a if n in view.contenders)
    b = tuple(n for n in b if n in view.contenders)
    common = min(len(a), len(b))
    pairings = [Pairing((a[k], b[k])) for k in range(common)]
    leftover = (*a[common:], *b[common:])
    pairings.extend(pair_off(leftover))
    byes = (leftover[-1],) if len(leftover) % 2 else ()
    return RoundDraw(tuple(pairings), byes, stage=Stage.A_V_B)


# ---------------------------------------------------------------- table numbers, round 2 by time (002-C)


def table_draw_decided(alive: tuple[int, ...], rounds: tuple[Round, ...]) -> bool:
    return len(alive) <= 1 or len(rounds) >= 2


def pass_a_order_rank(view: RankInput) -> dict[int, int]:
    """Round-2 winners by when their result came in (who passed A first), then by round reached."""
    finish: dict[int, datetime] = {}
    if len(view.rounds) >= 2:
        for match in view.rounds[1].main_matches:
            fact = match.decision or match.first_report
            if match.winner is not None and fact is not None:
                finish[match.winner] = fact.at
    order = sorted(finish, key=lambda n: (finish[n], n))
    keys: dict[int, tuple[int, ...]] = {}
    for n in view.numbers:
        timed = len(order) - order.index(n) if n in finish else 0
        keys[n] = (timed, *knockout_key(n, view.rounds, view.alive))
    return competition_ranking(keys)


# ---------------------------------------------------------------- 精方 with repechage (000-L / 002-B)

JINGFANG_FINALISTS = 8  # "取初赛的前8组参加复赛"
JINGFANG_LAST_FOUR = 4


def jingfang_pairing(view: RoundInput) -> RoundDraw:
    """The stages of the module docstring; ``previous[-1].stage`` says where the contest is."""
    n = len(view.contenders)
    stage = _jingfang_stage(view)
    if stage is Stage.REPECHAGE:
        return _repechage(view)
    if stage is Stage.PRELIM and view.previous and view.previous[-1].stage is Stage.PRELIM:
        return _in_table_order(view)
    if stage in (Stage.QUARTER, Stage.SEMI):
        target = JINGFANG_LAST_FOUR if stage is Stage.QUARTER else 2
        return _reduce(view, view.contenders, target, stage)
    drawn = redraw_knockout_pairing(view)
    return RoundDraw(drawn.pairings, drawn.byes, Stage.FINAL if n == 2 else stage)


def _jingfang_stage(view: RoundInput) -> Stage:
    n = len(view.contenders)
    last = view.previous[-1].stage if view.previous else Stage.NONE
    if last in (Stage.QUALIFYING, Stage.REPECHAGE) and len(_repechage_field(view)) > _repechage_places(view):
        return Stage.REPECHAGE
    if last in (Stage.NONE, Stage.PRELIM) and n > JINGFANG_FINALISTS:
        return Stage.PRELIM if n >= 2 * JINGFANG_FINALISTS else Stage.QUALIFYING
    if n > JINGFANG_LAST_FOUR:
        return Stage.QUARTER
    return Stage.SEMI if n > 2 else Stage.FINAL


def _qualified(view: RoundInput) -> tuple[int, ...]:
    """The qualifying round's winners: through to 复赛 whatever the repechage does."""
    qualifying = next(r for r in view.previous if r.stage is Stage.QUALIFYING)
    return tuple(sorted(m.winner for m in qualifying.main_matches if m.winner in view.contenders))


def _repechage_field(view: RoundInput) -> tuple[int, ...]:
    qualified = set(_qualified(view))
    return tuple(n for n in view.contenders if n not in qualified)


def _repechage_places(view: RoundInput) -> int:
    return max(0, JINGFANG_FINALISTS - len(_qualified(view)))


def _repechage(view: RoundInput) -> RoundDraw:
    """附加赛: the qualifying losers and bye, redrawn down to the places left; the qualified wait."""
    drawn = _reduce(view, _repechage_field(view), _repechage_places(view), Stage.REPECHAGE)
    return RoundDraw(drawn.pairings, tuple(sorted((*_qualified(view), *drawn.byes))), Stage.REPECHAGE)


def _reduce(view: RoundInput, field: Sequence[int], target: int, stage: Stage) -> RoundDraw:
    """Redraw ``field`` into just enough matches to leave ``target`` (the rest wait as byes)."""
    order = view.lots.shuffle(sorted(field))
    matches = min(len(order) // 2, max(0, len(order) - target))
    played = order[: 2 * matches]
    return RoundDraw(pair_off(played), tuple(sorted(order[2 * matches :])), stage)


def _in_table_order(view: RoundInput) -> RoundDraw:
    """The preliminary "1号与2号、3号与4号": the last round's winners numbered by table, then its byes."""
    last = view.previous[-1]
    winners = [m.winner for m in last.main_matches if m.winner in view.contenders]
    order = [n for n in winners if n is not None] + [n for n in last.byes if n in view.contenders]
    byes = (order.pop(),) if len(order) % 2 else ()
    return RoundDraw(pair_off(order), byes, Stage.PRELIM)


def jingfang_advance(contenders: tuple[int, ...], played: Round) -> tuple[int, ...]:
    """The qualifying round sends everyone who played or had the bye on (losers to the
    repechage); every other round is a knockout."""
    if played.stage is not Stage.QUALIFYING:
        return knockout_advance(contenders, played)
    out = {n for m in played.main_matches if m.winner is None for n in m.pairs}
    return tuple(n for n in contenders if n not in out)
