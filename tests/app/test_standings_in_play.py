"""Standings while a round is played (issue 18.12): a pair is out as soon as its loss is in,
and ranked below the pairs still in; before any result nobody has a rank."""

from __future__ import annotations

import csv
import io

from app.contest import texts
from app.contest.views import export_csv, standings_view
from engine.contest import draw
from engine.contest.standings import PairStatus, contest_standings
from tests.engine.contest.support import ON_TIME, report_win, signed_up


def _csv_ranks(contest) -> dict[str, str]:
    rows = list(csv.reader(io.StringIO(export_csv(contest).decode("utf-8-sig"))))
    start = next(i for i, row in enumerate(rows) if row == ["# standings"])
    header = rows[start + 1]
    return {row[0]: row[header.index("rank")] for row in rows[start + 2 :] if row}


def test_before_any_result_nobody_is_ranked_first() -> None:
    contest = draw(signed_up(8), now=ON_TIME).contest
    table = contest_standings(contest)
    assert not table.ranked
    text = texts.standings_text(contest, "zh")
    assert "1. " not in text and text.count("· <b>") == 8
    assert all(line.place is None for line in standings_view(contest, "zh").rows)
    assert set(_csv_ranks(contest).values()) == {""}


def test_a_loser_is_out_at_once_and_ranked_below_the_pairs_still_in() -> None:
    contest = draw(signed_up(8), now=ON_TIME).contest
    first = contest.rounds[0].matches[0]
    winner, loser = first.pairs
    contest = report_win(contest, winner)
    table = contest_standings(contest)
    assert table.ranked
    by_number = {row.number: row for row in table.rows}
    assert by_number[loser].status is PairStatus.OUT and by_number[winner].status is PairStatus.ALIVE
    pending = [n for n in by_number if n not in first.pairs]
    assert all(by_number[n].status is PairStatus.ALIVE for n in pending)
    assert by_number[winner].rank == 1
    assert all(by_number[loser].rank > by_number[n].rank for n in pending)  # not level with them
    assert table.rows[-1].number == loser
    line = next(line for line in texts.standings_text(contest, "zh").split("\n") if f"{loser}组</b>" in line)
    assert "出局" in line and "在赛" not in line
    assert next(v.out for v in standings_view(contest, "zh").rows if v.cells[0] == f"{loser}组")
