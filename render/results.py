"""Deal result and match summary boards for the group chat.

Inputs are small frozen views the bot fills from engine events (``DealEnded``,
``MatchEnded``), so this module needs no match state and no Telegram types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageDraw

from engine.actions import team_of
from engine.cards import Rank
from engine.observation import TributeView
from render import theme
from render.board import MARGIN, TITLE, WIDTH, Cell, Column, canvas, draw_table, draw_title
from render.encode import board_png
from render.text import fit, font, printable
from render.words import card_text, is_english, place_name, rank_text, seat_name, team_name

_PLACE_COLOURS: Final = ("#E0A100", "#8E989E", "#B0723A", "#5E676C")
_MAX_DEAL_ROWS: Final = 24
SUMMARY_TEXT: Final = 40
"""The match summary's text size: the picture is 1080 px wide and a phone shows it 360 px
wide, so 40 px here is 13 px there (CJK glyphs ≈ 12 px tall; issue 20.8). Its table names
seats only; the names are written once above it, in full."""


@dataclass(frozen=True, slots=True)
class DealResultView:
    """What the group sees after a deal: places, level changes, tributes, points."""

    deal_number: int
    level: Rank  # the level this deal was played at
    declarer_team: int  # 台上: whose level it was
    finish_order: tuple[int, ...]  # seats, 上游 first (the last seat may be left out)
    levels_before: tuple[Rank, Rank]
    levels_after: tuple[Rank, Rank]
    names: tuple[str, ...] = ("", "", "", "")  # by seat
    team_names: tuple[str, str] | None = None  # None: 南北 / 东西
    tribute_lines: tuple[str, ...] = ()  # worded by the caller, e.g. with tribute_line()
    points: tuple[int, int] | None = None  # points formats: running totals
    winner_team: int | None = None  # set when this deal ends the match
    notes: tuple[str, ...] = ()  # extra worded lines (A attempts, time-up)


@dataclass(frozen=True, slots=True)
class DealLine:
    """One deal in a match summary."""

    deal_number: int
    level: Rank
    declarer_team: int
    finish_order: tuple[int, ...]
    levels_after: tuple[Rank, Rank]
    points_after: tuple[int, int] | None = None  # points formats: the running totals after it


@dataclass(frozen=True, slots=True)
class MatchSummaryView:
    """The whole match at its end: every deal and the final levels."""

    deals: tuple[DealLine, ...]
    final_levels: tuple[Rank, Rank]
    winner_team: int | None
    names: tuple[str, ...] = ("", "", "", "")
    team_names: tuple[str, str] | None = None
    points: tuple[int, int] | None = None


def tribute_line(view: TributeView, names: Sequence[str] = (), locale: str = "zh") -> str:
    """``东 王五 → 北 李四 进贡 ♥A`` (the card left out when the viewer may not see it)."""
    verb = (
        ("returns" if view.is_return else "pays")
        if is_english(locale)
        else ("还贡" if view.is_return else "进贡")
    )
    card = f" {card_text(view.card, locale)}" if view.card is not None else ""
    giver, receiver = _player(view.giver, names, locale), _player(view.receiver, names, locale)
    return f"{giver} → {receiver} {verb}{card}"


def render_deal_result(result: DealResultView, *, locale: str = "zh") -> bytes:
    """PNG board of one deal's result."""
    return board_png(deal_result_image(result, locale=locale))


def render_match_summary(summary: MatchSummaryView, *, locale: str = "zh") -> bytes:
    """PNG board of a finished match: winner, final levels, a line per deal."""
    return board_png(match_summary_image(summary, locale=locale))


def deal_result_image(result: DealResultView, *, locale: str = "zh") -> Image.Image:
    """The deal result as an RGB image (see :func:`render_deal_result`)."""
    english = is_english(locale)
    image, draw = canvas(2400)
    title = f"Deal {result.deal_number}" if english else f"第 {result.deal_number} 副结果"
    declarer = _team(result.declarer_team, result.team_names, locale)
    subtitle = (
        f"Level {rank_text(result.level)} · {declarer} declaring"
        if english
        else f"打 {rank_text(result.level)} · {declarer} 台上"
    )
    draw_title(draw, title, subtitle)
    y = _draw_places(
        draw, TITLE + 24, _full_order(result.finish_order), result.names, result.team_names, locale
    )
    y = _draw_levels(draw, y + 20, result, locale)
    y = _draw_lines(draw, y, "Tribute" if english else "进贡 / 还贡", result.tribute_lines)
    y = _draw_lines(draw, y, "Notes" if english else "备注", result.notes)
    if result.winner_team is not None:
        y = _draw_winner(draw, y + 8, _team(result.winner_team, result.team_names, locale), english)
    return image.crop((0, 0, WIDTH, y + MARGIN))


def match_summary_image(summary: MatchSummaryView, *, locale: str = "zh") -> Image.Image:
    """The match summary as an RGB image (see :func:`render_match_summary`)."""
    english = is_english(locale)
    image, draw = canvas(TITLE + 460 + 70 * (_MAX_DEAL_ROWS + 2) + 2 * MARGIN)
    draw_title(draw, "Match over" if english else "比赛结束")
    y = TITLE + 20
    if summary.winner_team is not None:
        y = _draw_winner(draw, y, _team(summary.winner_team, summary.team_names, locale), english)
    face = font(SUMMARY_TEXT)
    for line in (_final_score(summary, locale), *_legend(summary, locale)):
        draw.text(
            (MARGIN, y + 30), fit(line, face, WIDTH - 2 * MARGIN), font=face, fill=theme.INK, anchor="lm"
        )
        y += 58
    columns, rows = _deal_table(summary, locale)
    y = draw_table(draw, y + 12, columns, rows, text=SUMMARY_TEXT)
    return image.crop((0, 0, WIDTH, y + MARGIN))


def _final_score(summary: MatchSummaryView, locale: str) -> str:
    """积分 南北 12 : 7 东西 in a points match (what decided it), else the final levels."""
    teams = [_team(t, summary.team_names, locale) for t in (0, 1)]
    if summary.points is not None:
        word, values = ("Points" if is_english(locale) else "积分"), summary.points
        return f"{word}  {teams[0]} {values[0]} : {values[1]} {teams[1]}"
    word = "Final levels" if is_english(locale) else "终局级数"
    levels = [rank_text(r) for r in summary.final_levels]
    return f"{word}  {teams[0]} {levels[0]} : {levels[1]} {teams[1]}"


def _legend(summary: MatchSummaryView, locale: str) -> list[str]:
    """南北：北 张三、南 李四 — the names in full, once (the table names seats only)."""
    english = is_english(locale)
    lines = []
    for team in (0, 1):
        members = (_player(seat, summary.names, locale) for seat in (team, team + 2))
        joined = (", " if english else "、").join(members)
        lines.append(f"{_team(team, summary.team_names, locale)}{': ' if english else '：'}{joined}")
    return lines


def _player(seat: int, names: Sequence[str], locale: str) -> str:
    name = printable(names[seat]) if seat < len(names) and names[seat] else ""
    return f"{seat_name(seat, locale)} {name}".strip()


def _team(team: int, team_names: tuple[str, str] | None, locale: str) -> str:
    return printable(team_names[team]) if team_names else team_name(team, locale)


def _full_order(order: tuple[int, ...]) -> tuple[int, ...]:
    """The finishing order with the seats still holding cards appended, seat order."""
    return order + tuple(s for s in range(4) if s not in order)


def _draw_places(
    draw: ImageDraw.ImageDraw,
    top: int,
    order: tuple[int, ...],
    names: Sequence[str],
    team_names: tuple[str, str] | None,
    locale: str,
) -> int:
    """One line per place: a coloured place badge, the player, the team in its colour."""
    y = top
    for place, seat in enumerate(order[:4], start=1):
        team = team_of(seat)
        draw.rounded_rectangle((MARGIN, y, WIDTH - MARGIN, y + 62), 12, fill=theme.TEAM_TINTS[team])
        draw.rounded_rectangle((MARGIN, y, MARGIN + 130, y + 62), 12, fill=_PLACE_COLOURS[place - 1])
        draw.text(
            (MARGIN + 65, y + 31),
            place_name(place, locale),
            font=font(32, bold=True),
            fill=theme.PAPER,
            anchor="mm",
        )
        face = font(32, bold=place == 1)
        draw.text(
            (MARGIN + 156, y + 31),
            fit(_player(seat, names, locale), face, 560),
            font=face,
            fill=theme.INK,
            anchor="lm",
        )
        team_face = font(28, bold=True)
        draw.text(
            (WIDTH - MARGIN - 20, y + 31),
            fit(_team(team, team_names, locale), team_face, 260),
            font=team_face,
            fill=theme.TEAM_COLOURS[team],
            anchor="rm",
        )
        y += 72
    return y


def _draw_levels(draw: ImageDraw.ImageDraw, top: int, result: DealResultView, locale: str) -> int:
    """Two boxes, one per team: its name, level before → after and the change."""
    box_width = (WIDTH - 3 * MARGIN) // 2
    for team in (0, 1):
        left = MARGIN + team * (box_width + MARGIN)
        _draw_level_box(draw, (left, top, left + box_width, top + 170), team, result, locale)
    return top + 170 + 16


def _draw_level_box(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], team: int, result: DealResultView, locale: str
) -> None:
    left, top, right, _ = box
    colour = theme.TEAM_COLOURS[team]
    draw.rounded_rectangle(box, 16, fill=theme.PAPER, outline=colour, width=4)
    draw.rounded_rectangle((left, top, right, top + 50), 16, fill=colour)
    draw.rectangle((left, top + 34, right, top + 50), fill=colour)
    centre = (left + right) / 2
    name = fit(_team(team, result.team_names, locale), font(30, bold=True), right - left - 24)
    draw.text((centre, top + 25), name, font=font(30, bold=True), fill=theme.PAPER, anchor="mm")
    before, after = result.levels_before[team], result.levels_after[team]
    levels = f"{rank_text(before)} → {rank_text(after)}" if before != after else rank_text(after)
    draw.text((centre, top + 96), levels, font=font(56, bold=True), fill=theme.INK, anchor="mm")
    draw.text(
        (centre, top + 146),
        _change(before, after, result.points, team, locale),
        font=font(26),
        fill=theme.INK_SOFT,
        anchor="mm",
    )


def _change(before: Rank, after: Rank, points: tuple[int, int] | None, team: int, locale: str) -> str:
    english = is_english(locale)
    if after > before:
        text = (
            f"+{after - before} level{'s' if after - before > 1 else ''}"
            if english
            else f"升 {after - before} 级"
        )
    elif after < before:
        text = "reset" if english else "退回"
    else:
        text = "unchanged" if english else "不变"
    if points is not None:
        text += f" · {points[team]} pts" if english else f" · 积分 {points[team]}"
    return text


def _draw_lines(draw: ImageDraw.ImageDraw, top: int, heading: str, lines: tuple[str, ...]) -> int:
    if not lines:
        return top
    draw.text((MARGIN, top + 18), heading, font=font(28, bold=True), fill=theme.INK_SOFT, anchor="lm")
    y = top + 44
    face = font(30)
    for line in lines:
        draw.text(
            (MARGIN + 8, y + 22),
            fit(line, face, WIDTH - 2 * MARGIN - 8),
            font=face,
            fill=theme.INK,
            anchor="lm",
        )
        y += 46
    return y + 8


def _draw_winner(draw: ImageDraw.ImageDraw, top: int, team: str, english: bool) -> int:
    text = f"{team} win the match!" if english else f"{team} 获胜！"
    draw.rounded_rectangle((MARGIN, top, WIDTH - MARGIN, top + 76), 16, fill=theme.GOLD)
    draw.text(
        (WIDTH / 2, top + 38),
        fit(text, font(40, bold=True), WIDTH - 4 * MARGIN),
        font=font(40, bold=True),
        fill=theme.INK,
        anchor="mm",
    )
    return top + 76 + 8


def _deal_table(summary: MatchSummaryView, locale: str) -> tuple[list[Column], list[list[Cell]]]:
    english = is_english(locale)
    places = [Column(place_name(p, locale), 148) for p in range(1, 5)]
    teams = [Column(_team_header(t, summary.team_names, locale), 137) for t in (0, 1)]
    columns = [Column("#" if english else "副", 70), Column("Lvl" if english else "打", 80), *places, *teams]
    deals = summary.deals
    rows = [_deal_row(line, summary, locale) for line in deals[-_MAX_DEAL_ROWS:]]
    if len(deals) > _MAX_DEAL_ROWS:
        rows.insert(0, [Cell("…")] + [Cell("") for _ in columns[1:]])
    return columns, rows


def _team_header(team: int, team_names: tuple[str, str] | None, locale: str) -> str:
    """A team column's heading: 南北 / 东西, or NS / EW (North–South does not fit at 40 px)."""
    if team_names is None and is_english(locale):
        return ("NS", "EW")[team]
    return _team(team, team_names, locale)


def _deal_row(line: DealLine, summary: MatchSummaryView, locale: str) -> list[Cell]:
    seats = [
        Cell(
            seat_name(seat, locale),
            theme.TEAM_COLOURS[team_of(seat)],
            place == 0,
            theme.TEAM_TINTS[team_of(seat)],
        )
        for place, seat in enumerate(_full_order(line.finish_order)[:4])
    ]
    if line.points_after is not None:  # a points match is decided by points, not levels
        levels = [Cell(str(p), theme.TEAM_COLOURS[t], True) for t, p in enumerate(line.points_after)]
    else:
        levels = [Cell(rank_text(r), theme.TEAM_COLOURS[t], True) for t, r in enumerate(line.levels_after)]
    played = Cell(rank_text(line.level), theme.TEAM_COLOURS[line.declarer_team], True)
    return [Cell(str(line.deal_number)), played, *seats, *levels]
