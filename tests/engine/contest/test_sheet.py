"""engine.contest.sheet: a recorder's score sheet scores like a bot table (issue 11)."""

from __future__ import annotations

import doctest
import random

import pytest

import engine.contest.sheet
from engine.actions import DealEnded, TimeExpired, team_of
from engine.cards import Rank
from engine.contest.lots import DrawSeed
from engine.contest.seating import marker_card_draw
from engine.contest.sheet import (
    LeaderProcedure,
    ScoreSheet,
    SheetEntry,
    SheetRefusal,
    SheetRefused,
)
from engine.figures import PAST_A, match_figures
from engine.match import Match
from engine.rules import MatchFormat, Rules
from engine.scoring import Standing
from tools.selfplay import SimulatedClock, random_action

NS, EW = 0, 1


def sheet_of(preset: str | Rules, *entries: str) -> ScoreSheet:
    rules = Rules.preset(preset) if isinstance(preset, str) else preset
    sheet = ScoreSheet(rules, ns=3, ew=5)
    for text in entries:
        sheet = sheet.enter(SheetEntry.parse(text))
    return sheet


def test_module_examples() -> None:
    assert doctest.testmod(engine.contest.sheet).failed == 0


@pytest.mark.parametrize("text", ["NS 1·2", "EW 1·3", "NS 1·4", "time", "time NS", "time EW", "undo"])
def test_notation_round_trips(text: str) -> None:
    assert str(SheetEntry.parse(text)) == text


@pytest.mark.parametrize("text", ["NS 1·1", "SN 1·2", "EW 2·3", "", "time XY", "NS 1·5"])
def test_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(SheetRefused) as caught:
        SheetEntry.parse(text)
    assert caught.value.refusal is SheetRefusal.BAD_ENTRY


def test_levels_follow_321_from_two_and_the_level_played_is_the_last_winners() -> None:
    sheet = sheet_of("default", "NS 1·2")
    assert sheet.standing.levels == (Rank.FIVE, Rank.TWO) and sheet.level_in_hand is Rank.FIVE
    sheet = sheet.enter(SheetEntry.deal(EW, 4))
    assert sheet.standing.levels == (Rank.FIVE, Rank.THREE)
    assert sheet.rows[1].level is Rank.FIVE  # EW won a deal played at NS's 5 (A1)
    assert sheet.level_in_hand is Rank.THREE and sheet.declarer == EW
    sheet = sheet.enter(SheetEntry.deal(EW, 3))
    assert sheet.standing.levels == (Rank.FIVE, Rank.FIVE) and sheet.rows[2].level is Rank.THREE


def test_undo_takes_back_the_last_entry_and_counts_as_a_press() -> None:
    sheet = sheet_of("default", "NS 1·2", "EW 1·4")
    undone = sheet.undo()
    assert undone.standing == sheet_of("default", "NS 1·2").standing
    assert undone.version == 3 and len(undone.rows) == 1
    with pytest.raises(SheetRefused) as caught:
        sheet_of("default").undo()
    assert caught.value.refusal is SheetRefusal.NOTHING_TO_UNDO


def to_a(team: str) -> list[str]:
    """Four 双下 take a team from 2 to A (2 → 5 → 8 → J → A)."""
    return [f"{team} 1·2"] * 4


def test_three_failed_attempts_at_a_reset_the_team_to_two_a4() -> None:
    sheet = sheet_of("default", *to_a("NS"))
    assert sheet.standing.levels[NS] is Rank.ACE and sheet.level_in_hand is Rank.ACE
    sheet = sheet.enter(SheetEntry.deal(NS, 4))  # NS wins at A with its partner last: failure 1
    assert sheet.rows[-1].a_attempt == "failed" and sheet.standing.a_failures == (1, 0)
    sheet = sheet.enter(SheetEntry.deal(NS, 4))  # failure 2
    sheet = sheet.enter(SheetEntry.deal(EW, 4))  # EW wins the deal played at NS's A: failure 3
    assert sheet.rows[-1].a_attempt == "reset"
    assert sheet.standing.levels == (Rank.TWO, Rank.THREE) and sheet.standing.a_failures == (0, 0)
    assert not sheet.is_decided


def test_passing_a_wins_the_game_and_gives_the_figures() -> None:
    sheet = sheet_of("jiangsu-union", *to_a("EW"), "NS 1·4", "EW 1·3")
    # NS's 1·4 was played at EW's A (an EW failure), NS then at 3; EW's 1·3 was played at NS's 3
    assert not sheet.is_decided and sheet.standing.levels == (Rank.THREE, Rank.ACE)
    sheet = sheet.enter(SheetEntry.deal(EW, 3))  # at EW's A, 1·3: passed
    assert sheet.is_decided and sheet.winner_pair == 5
    figures = sheet.figures()
    assert (figures.winner, figures.reason, figures.deals) == (EW, "passed_a", 7)
    assert figures.steps == (1, PAST_A) and figures.level_difference == PAST_A - 1
    assert figures.round_score == (0, 2)  # 积分编排 2 / 0
    with pytest.raises(SheetRefused) as caught:
        sheet.enter(SheetEntry.deal(NS, 2))
    assert caught.value.refusal is SheetRefusal.DECIDED


def test_contest_figures_follow_the_contest_matchs_pair_order() -> None:
    sheet = sheet_of("jiangsu-union", *to_a("EW"), "EW 1·2")
    assert sheet.contest_figures((5, 3)).winner == 0 and sheet.contest_figures((5, 3)).steps == (PAST_A, 0)
    assert sheet.contest_figures((3, 5)) == sheet.figures()
    with pytest.raises(ValueError):
        sheet.contest_figures((3, 4))


def test_001b_stopped_at_time_with_nobody_past_a_gives_nobody_the_hundred() -> None:
    sheet = sheet_of("three-round-movement", "NS 1·2", "NS 1·3", "EW 1·2")
    sheet = sheet.enter(SheetEntry.time_up())  # 001-B stops at once: the deal in hand is ignored
    assert sheet.is_decided and sheet.winner_pair is None
    figures = sheet.figures()
    assert (figures.winner, figures.reason, figures.deals) == (None, "time", 3)
    assert figures.round_score == (5, 3)  # each side its own steps (NS at 7, EW at 5), no 100


def test_002d_finishes_the_deal_in_hand_and_the_leader_wins() -> None:
    sheet = sheet_of("knockout-135", "NS 1·3", "time")  # 5/3/1: NS at 5
    assert not sheet.is_decided and sheet.rows[-1].level is None
    sheet = sheet.enter(SheetEntry.deal(EW, 4))  # the deal in hand: EW to 3, NS still leads
    assert sheet.is_decided and sheet.winner_pair == 3
    figures = sheet.figures()
    assert figures.reason == "time" and figures.round_score == (2, 0) and figures.level_difference == 2


def test_002d_equal_levels_at_time_go_to_the_last_deals_first_place() -> None:
    sheet = sheet_of("knockout-135", "NS 1·3", "time", "EW 1·3")
    assert sheet.standing.levels == (Rank.FIVE, Rank.FIVE)
    assert sheet.is_decided and sheet.winner_pair == 5 and sheet.figures().level_difference == 0


def test_time_up_only_in_timed_formats_and_once() -> None:
    with pytest.raises(SheetRefused) as caught:
        sheet_of("default", "NS 1·2").enter(SheetEntry.time_up())
    assert caught.value.refusal is SheetRefusal.NOT_TIMED
    with pytest.raises(SheetRefused) as caught:
        sheet_of("knockout-135", "time").enter(SheetEntry.time_up())
    assert caught.value.refusal is SheetRefusal.TIME_ALREADY_UP


def test_a_10_deal_001a_tie_on_points_goes_to_more_threes() -> None:
    # NS: 3+1+1+1+1 = 7 (one 3); EW: 2+2+1+1+1 = 7 (no 3) → NS by the 3s
    deals = ["NS 1·2", "EW 1·3", "EW 1·3", "NS 1·4", "NS 1·4", "EW 1·4", "EW 1·4", "NS 1·4", "NS 1·4"]
    sheet = sheet_of("anhui-jianzhu", *deals)
    assert not sheet.is_decided and sheet.level_in_hand is Rank.TWO
    sheet = sheet.enter(SheetEntry.deal(EW, 4))
    assert sheet.standing.points == (7, 7) and sheet.standing.threes == (1, 0)
    assert sheet.is_decided and sheet.winner_pair == 3
    figures = sheet.figures()
    assert figures.points == (7, 7) and figures.three_point_deals == (1, 0) and figures.extra_deals == 0


def test_a_fully_tied_001a_sheet_needs_the_extra_deal() -> None:
    deals = ["NS 1·2", "EW 1·2"] + ["NS 1·3", "EW 1·3"] * 4
    sheet = sheet_of("anhui-jianzhu", *deals)
    assert sheet.standing.points == (11, 11) and sheet.standing.threes == (1, 1)
    assert not sheet.is_decided and sheet.state.sudden_death
    sheet = sheet.enter(SheetEntry.deal(EW, 4))  # 加赛一轮: its winner wins, any class
    assert sheet.is_decided and sheet.winner_pair == 5
    figures = sheet.figures()
    assert figures.deals == 11 and figures.extra_deals == 1 and figures.points == (11, 12)


def test_best_of_three_games_each_from_two() -> None:
    rules = Rules.preset("jingfang").replace(match_format=MatchFormat.BEST_OF, best_of=3)
    sheet = sheet_of(rules, *to_a("NS"))  # 精方: reaching A wins a game
    assert not sheet.is_decided and sheet.state.games_won == (1, 0)
    assert sheet.standing == Standing() and sheet.game == 2 and sheet.level_in_hand is Rank.TWO
    assert sheet.leader_draw_needed  # a new game's first deal
    sheet = sheet.enter(SheetEntry.deal(EW, 2))
    assert not sheet.leader_draw_needed
    for text in to_a("NS"):
        sheet = sheet.enter(SheetEntry.parse(text))
    assert sheet.is_decided and sheet.winner_pair == 3
    figures = sheet.figures()
    assert figures.games_won == (2, 0) and figures.reason == "best_of" and figures.deals == 9


def test_the_leader_procedure_follows_the_rules() -> None:
    assert sheet_of("anhui-jianzhu").leader_procedure is LeaderProcedure.MARKER_CARD
    assert sheet_of("xiexiebang").leader_procedure is LeaderProcedure.CARD_TURN
    assert sheet_of("anhui-jianzhu", "NS 1·2").leader_draw_needed  # 001-A: a fresh card every deal
    assert not sheet_of("xiexiebang", "NS 1·2").leader_draw_needed  # then tribute decides


def test_the_face_up_card_is_reproducible_from_the_seed() -> None:
    seed = DrawSeed(bytes(range(32)))
    draws = [marker_card_draw(seed, "ABCD2345", deal) for deal in range(1, 200)]
    assert draws[0] == marker_card_draw(seed, "ABCD2345", 1)
    assert all(1 <= d.position <= 108 and d.drawer == (d.position - 1) % 4 + 1 for d in draws)
    assert len({d.position for d in draws}) > 50  # not a constant
    assert (
        marker_card_draw(seed, "ABCD2346", 1) != draws[0] or marker_card_draw(seed, "ABCD2346", 2) != draws[1]
    )


# ---------------------------------------------------------------- against the engine


def played_match(rules: Rules, seed: int) -> tuple[Match, list[SheetEntry]]:
    """A self-played match (random agents, the simulated referee's clock of tools.selfplay) and
    what its recorder would have entered: each deal's outcome and the time-out."""
    rng = random.Random(seed)
    match = Match.new(rules, seed)
    limit = rules.time_limit_minutes or 60
    clock = SimulatedClock(rules.time_limit_minutes, limit / (3 + seed % 9), rng)  # out after 3-11 deals
    clock.observe(match.events, match)
    entries: list[SheetEntry] = []
    while not match.is_over:
        if clock.expires_now(match):
            out = match.finish_order
            entries.append(SheetEntry.time_up(team_of(out[0]) if out else None))
            events = match.apply(None, TimeExpired())
        else:
            seat = match.to_act[0]
            events = match.apply(seat, random_action(match, seat, rng))
        clock.observe(events, match)
        for event in events:
            if isinstance(event, DealEnded):
                order = event.finish_order
                entries.append(SheetEntry.deal(team_of(order[0]), order.index((order[0] + 2) % 4) + 1))
    return match, entries


PRESETS = [
    "knockout-135",
    "three-round-movement",
    "jiangsu-union",
    "anhui-jianzhu",
    "wechat-6-deals",
    "xiexiebang",
    "lujiang-school",
    "nanjing-forestry",
    "huaian",
    "spring-festival",
    "canmou",
    "wuyi-2015",
]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("seed", range(9))
def test_a_sheet_fed_a_matchs_finishing_orders_ends_with_its_figures(preset: str, seed: int) -> None:
    rules = Rules.preset(preset).replace(bonus_levels=False)  # V30 needs the cards (module docstring)
    match, entries = played_match(rules, seed)
    sheet = ScoreSheet(rules, ns=1, ew=2)
    for entry in entries:
        sheet = sheet.enter(entry)
    assert sheet.is_decided
    assert sheet.figures() == match_figures(match)


@pytest.mark.parametrize("seed", range(4))
def test_jingfang_best_of_three_sheet_matches_the_engine(seed: int) -> None:
    rules = Rules.preset("jingfang").replace(match_format=MatchFormat.BEST_OF, best_of=3)
    match, entries = played_match(rules, seed)
    sheet = ScoreSheet(rules, ns=1, ew=2)
    for entry in entries:
        sheet = sheet.enter(entry)
    assert sheet.figures() == match_figures(match) and sum(sheet.figures().games_won) >= 2


def test_timed_best_of_sheet_matches_the_engine() -> None:
    rules = Rules.preset("best-of-3").replace(time_limit_minutes=30)
    for seed in range(4):
        match, entries = played_match(rules, seed)
        sheet = ScoreSheet(rules, ns=1, ew=2)
        for entry in entries:
            sheet = sheet.enter(entry)
        assert sheet.figures() == match_figures(match)


@pytest.mark.parametrize("preset", ["knockout-135", "three-round-movement", "anhui-jianzhu", "xiexiebang"])
def test_any_entry_then_undo_gives_the_sheet_back(preset: str) -> None:
    """Random presses (refused ones skipped): an undo always restores the rows and the state."""
    rules = Rules.preset(preset)
    rng = random.Random(preset)
    choices = [
        *(SheetEntry.deal(t, p) for t in (0, 1) for p in (2, 3, 4)),
        SheetEntry.time_up(),
        SheetEntry.undo(),
    ]
    sheet = ScoreSheet(rules, ns=1, ew=2)
    for _ in range(300):
        entry = rng.choice(choices)
        try:
            after = sheet.enter(entry)
        except SheetRefused:
            continue
        if entry.kind.value != "undo":
            back = after.undo()
            assert (back.rows, back.state) == (sheet.rows, sheet.state)
        sheet = after if not after.is_decided else ScoreSheet(rules, ns=1, ew=2)
