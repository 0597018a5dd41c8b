"""The hand image: one seat's cards as a fan in rows (one, two, or three when the groups set
apart need the room), with a header.

The renderer reads card faces from ``obs.hand`` only, so it cannot draw another
seat's cards whatever else the observation carries.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw

from engine.actions import partner_of, team_of
from engine.cards import Card, Rank
from engine.observation import Observation
from render import theme
from render.arrange import hand_groups
from render.encode import table_png
from render.faces import STRIP, card_sprite, mark_of
from render.text import fit, fitting_font, font, printable
from render.words import is_english, rank_text, seat_name, team_name

WIDTH: Final = 1280
MARGIN: Final = 20
HEADER: Final = 144  # two lines of 50 px: ≥ 12 px tall on a 360-px-wide phone (issue 20.8)
HEADER_FONT: Final = 50
"""Header text size: the picture is 1280 px wide and a phone shows it 360 px wide, so 50 px
here is 14 px there (CJK glyphs ≈ 12.3 px tall); at the former 30 px it was about 7 px."""
LINE_ONE: Final = 40  # the middle of the header's first line: level, own seat, card count
LINE_TWO: Final = 108  # the second: partner and both sides' levels
RAISE: Final = 26  # a selected card sits this much higher
ROW_GAP: Final = 12
GROUP_GAP: Final = 32  # bare felt between a group's last card and the next group (9 px on a phone)
RANK_GAP: Final = 5  # space where the rank changes, where the row has room for it
MAX_STEP: Final = 88  # widest spacing, for short hands
MIN_STEP: Final = theme.HAND_CARD.px(STRIP)
"""Narrowest spacing: every card keeps its whole corner strip (rank, suit, label) in view; a
15-card row once squeezed it to 71 px and the next card hid a corner (♦3 under ♠6, issue 32)."""
ROW_LIMIT: Final = 15  # more cards than this go to two rows (or more, when groups need the room)
ROW_ROOM: Final = WIDTH - 2 * MARGIN
ROW_SPREAD: Final = 4  # how far a row break may move from an even share, to spare a rank or group
MAX_HAND: Final = 27  # the widest card count the header makes room for


@dataclass(frozen=True, slots=True)
class Slot:
    """One card's place on the canvas: its left edge, its row, and the run of cards it is
    drawn in (a group, or the part of one on this row): runs never overlap one another."""

    position: int  # index in obs.hand
    x: int
    row: int
    run: int  # counted over the whole picture

    def top(self) -> int:
        """The card's top edge when it is not raised."""
        return _card_top(self.row)


@dataclass(frozen=True, slots=True)
class _Style:
    """What every card of one picture shares."""

    level: Rank
    four_color: bool
    english: bool


def render_hand(
    obs: Observation,
    *,
    selected: Collection[int] = (),
    labels: Mapping[int, str] | None = None,
    locale: str = "zh",
    four_color: bool = False,
    names: Sequence[str] | None = None,
    group: bool = False,
) -> bytes:
    """PNG of ``obs.hand`` arranged by :func:`~render.arrange.arrange_hand`.

    ``selected`` and ``labels`` are keyed by position in ``obs.hand``; ``names``
    by seat. ``group`` sets bombs and straight flushes apart.
    """
    return table_png(
        hand_image(
            obs,
            selected=selected,
            labels=labels,
            locale=locale,
            four_color=four_color,
            names=names,
            group=group,
        )
    )


def hand_image(
    obs: Observation,
    *,
    selected: Collection[int] = (),
    labels: Mapping[int, str] | None = None,
    locale: str = "zh",
    four_color: bool = False,
    names: Sequence[str] | None = None,
    group: bool = False,
) -> Image.Image:
    """The hand as an RGB image (see :func:`render_hand`)."""
    hand = obs.hand
    slots = hand_layout(hand, obs.level, group=group)
    rows = 1 + max((slot.row for slot in slots), default=0)
    height = HEADER + MARGIN + rows * (RAISE + theme.HAND_CARD.height + ROW_GAP) + MARGIN - ROW_GAP
    image = Image.new("RGB", (WIDTH, height), theme.FELT)
    _draw_header(image, obs, locale, names)
    chosen, style = set(selected), _Style(obs.level, four_color, is_english(locale))
    for slot in slots:
        label = (labels or {}).get(slot.position)
        _draw_card(image, hand[slot.position], slot, style, slot.position in chosen, label)
    if not hand:
        _draw_empty(ImageDraw.Draw(image), locale)
    return image


def hand_layout(hand: Sequence[Card], level: Rank, *, group: bool = False) -> list[Slot]:
    """Where each card of ``hand`` is drawn, in drawing order (left to right, row by row).

    Within a run the cards fan out, each showing at least its corner strip (:data:`MIN_STEP`);
    a run's last card shows whole and the next run starts after it, across bare felt, so a
    bomb or a straight flush set apart reads as its own stack, as in the phone apps. Rows hold
    at most :data:`ROW_LIMIT` cards; a row that cannot hold its runs that way is split again.
    """
    rows = _split_rows(hand_groups(hand, level, group=group), hand)
    slots: list[Slot] = []
    for r, runs in enumerate(rows):
        slots += _place_row(runs, r, hand, first_run=1 + max((s.run for s in slots), default=-1))
    return slots


Runs = list[tuple[int, ...]]  # one row's runs of positions in obs.hand


def _split_rows(groups: Runs, hand: Sequence[Card]) -> list[Runs]:
    """The fewest rows that hold the groups with every corner in view, broken where no rank is
    torn, then as evenly as possible."""
    flat = [(g, i) for g, group in enumerate(groups) for i in group]
    if not flat:
        return []

    def torn(cut: int) -> bool:
        (ga, a), (gb, b) = flat[cut - 1], flat[cut]
        return ga == gb and hand[a].rank == hand[b].rank

    for count in range(-(-len(flat) // ROW_LIMIT), len(flat) + 1):
        choices = [
            [_regroup(flat[a:b]) for a, b in itertools.pairwise((0, *cuts, len(flat)))]
            for cuts in _even_cuts(len(flat), count)
        ]
        fitting = [rows for rows in choices if all(_fits(runs) for runs in rows)]
        if fitting:
            return min(fitting, key=lambda rows: _row_cost(rows, torn))
    raise AssertionError("one card a row always fits")


def _even_cuts(cards: int, rows: int) -> list[tuple[int, ...]]:
    """Row breaks near an even share (within :data:`ROW_SPREAD`), no row over :data:`ROW_LIMIT`."""
    shares = [round(k * cards / rows) for k in range(1, rows)]
    near = [range(max(1, share - ROW_SPREAD), min(cards - 1, share + ROW_SPREAD) + 1) for share in shares]
    return [
        cuts
        for cuts in itertools.product(*near)
        if all(0 < b - a <= ROW_LIMIT for a, b in itertools.pairwise((0, *cuts, cards)))
    ]


def _row_cost(rows: list[Runs], torn: Callable[[int], bool]) -> tuple[int, int, tuple[int, ...]]:
    sizes = [sum(len(run) for run in runs) for runs in rows]
    cuts = tuple(itertools.accumulate(sizes[:-1]))
    return (sum(torn(cut) for cut in cuts), max(sizes) - min(sizes), cuts)


def _regroup(flat: list[tuple[int, int]]) -> Runs:
    groups: dict[int, list[int]] = {}
    for g, i in flat:
        groups.setdefault(g, []).append(i)
    return [tuple(members) for members in groups.values()]


def _fits(runs: Runs) -> bool:
    """Whether the runs fit one row with every strip at :data:`MIN_STEP` (rank gaps may shrink)."""
    return _fixed_width(runs) + (sum(map(len, runs)) - len(runs)) * MIN_STEP <= ROW_ROOM


def _fixed_width(runs: Runs) -> int:
    """Each run's whole last card, and the felt between runs."""
    return len(runs) * theme.HAND_CARD.width + (len(runs) - 1) * GROUP_GAP


def _place_row(runs: Runs, row: int, hand: Sequence[Card], *, first_run: int) -> list[Slot]:
    """Spread a row's cards evenly and centred: a little apart where the rank changes (so pairs
    and triples read as blocks, room allowing), and each run clear of the next."""
    changes = sum(hand[a].rank != hand[b].rank for run in runs for a, b in itertools.pairwise(run))
    fanned = sum(map(len, runs)) - len(runs)  # cards whose right part the next card covers
    spare = ROW_ROOM - _fixed_width(runs) - fanned * MIN_STEP
    rank_gap = min(RANK_GAP, spare / changes) if changes else 0.0
    step = min(MAX_STEP, (ROW_ROOM - _fixed_width(runs) - changes * rank_gap) / fanned) if fanned else 0.0
    width = _fixed_width(runs) + fanned * step + changes * rank_gap
    x = MARGIN + (ROW_ROOM - width) / 2
    slots: list[Slot] = []
    for r, run in enumerate(runs):
        for k, position in enumerate(run):
            if k:
                x += step + (rank_gap if hand[run[k - 1]].rank != hand[position].rank else 0.0)
            slots.append(Slot(position, round(x), row, first_run + r))
        x += theme.HAND_CARD.width + GROUP_GAP
    return slots


def _card_top(row: int) -> int:
    return HEADER + MARGIN + row * (RAISE + theme.HAND_CARD.height + ROW_GAP) + RAISE


def _draw_card(
    image: Image.Image, card: Card, slot: Slot, style: _Style, selected: bool, label: str | None
) -> None:
    mark = mark_of(card, style.level)
    sprite = card_sprite(
        card,
        theme.HAND_CARD,
        four_color=style.four_color,
        mark=mark,
        selected=selected,
        english=style.english,
    )
    top = _card_top(slot.row) - (RAISE if selected else 0)
    image.paste(sprite, (slot.x, top), sprite)
    if label:
        _draw_label(image, label, slot.x, top, selected)


def _draw_label(image: Image.Image, label: str, x: int, top: int, selected: bool) -> None:
    """The button label in a pill at the foot of the visible strip."""
    pill = _label_pill(label, selected)
    image.paste(pill, (x + 8, top + theme.HAND_CARD.height - 9 - pill.height), pill)


@lru_cache(maxsize=512)
def _label_pill(label: str, selected: bool) -> Image.Image:
    """Drawn at three times the size and scaled down, for smooth rounded ends."""
    scale = 3
    width, height = (theme.HAND_CARD.px(STRIP) - 10) * scale, 38 * scale
    pill = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(pill)
    fill = theme.SELECT if selected else theme.LABEL
    draw.rounded_rectangle((0, 0, width - 1, height - 1), 10 * scale, fill=fill)
    text = printable(label)
    face = fitting_font(text, width - 8 * scale, 28 * scale, bold=True)
    draw.text((width / 2, height / 2), text, font=face, fill=theme.PAPER, anchor="mm")
    return pill.reduce(scale)


def _draw_header(image: Image.Image, obs: Observation, locale: str, names: Sequence[str] | None) -> None:
    """The cached band, then the card count on top of it."""
    english = is_english(locale)
    me, rest = _who(obs, locale, names)
    image.paste(_header_band(rank_text(obs.level), me, rest, english), (0, 0))
    tally = _tally(len(obs.hand), english)
    draw = ImageDraw.Draw(image)
    draw.text(
        (WIDTH - MARGIN, LINE_ONE),
        tally,
        font=font(HEADER_FONT, bold=True),
        fill=theme.LIGHT_TEXT,
        anchor="rm",
    )


def _tally(count: int, english: bool) -> str:
    return f"{count} {'cards' if english else '张'}"


@lru_cache(maxsize=8)  # 8 × 1280×144 RGB ≈ 4.4 MB; the card count is drawn on a copy
def _header_band(level: str, me: str, rest: str, english: bool) -> Image.Image:
    """Level badge and own seat, room for the card count; below, partner and both sides' levels.

    The count is not part of the key: it changes with every play, and keying on it
    filled the cache with near-identical bands (hundreds of MB at a hundred tables). A band is
    reused by the pictures of one seat drawn close together (a hand and the one it leaves);
    across a hundred tables' seats no small cache would hit, so it stays small (32 held 18 MB).
    """
    band = Image.new("RGB", (WIDTH, HEADER), theme.FELT_DARK)
    draw = ImageDraw.Draw(band)
    badge = f"{'Level' if english else '打'} {level}"
    badge_face = font(HEADER_FONT, bold=True)
    badge_right = MARGIN + int(badge_face.getlength(badge)) + 32
    draw.rounded_rectangle((MARGIN, 8, badge_right, LINE_ONE * 2 - 8), 12, fill=theme.GOLD)
    draw.text(((MARGIN + badge_right) / 2, LINE_ONE), badge, font=badge_face, fill=theme.INK, anchor="mm")
    widest_tally = font(HEADER_FONT, bold=True).getlength(_tally(MAX_HAND, english))
    room = WIDTH - MARGIN - int(widest_tally) - 24 - (badge_right + 24)
    face = font(HEADER_FONT)
    draw.text(
        (badge_right + 24, LINE_ONE), fit(me, face, room), font=face, fill=theme.LIGHT_TEXT, anchor="lm"
    )
    draw.text(
        (MARGIN, LINE_TWO), fit(rest, face, WIDTH - 2 * MARGIN), font=face, fill=theme.LIGHT_TEXT, anchor="lm"
    )
    return band


def _who(obs: Observation, locale: str, names: Sequence[str] | None) -> tuple[str, str]:
    """The header's two texts: own seat and name; partner and both sides' levels."""
    english = is_english(locale)
    levels = obs.team_levels
    if obs.seat is None:
        return "", " · ".join(f"{team_name(t, locale)} {rank_text(levels[t])}" for t in (0, 1))
    mine, theirs = levels[team_of(obs.seat)], levels[1 - team_of(obs.seat)]
    me = _seat_label(obs.seat, locale, names)
    partner = _seat_label(partner_of(obs.seat), locale, names)
    if english:
        return me, f"Partner {partner}  ·  Us {rank_text(mine)} / Them {rank_text(theirs)}"
    return me, f"对家 {partner}  ·  我方 {rank_text(mine)} / 对方 {rank_text(theirs)}"


def _seat_label(seat: int, locale: str, names: Sequence[str] | None) -> str:
    name = names[seat] if names is not None and seat < len(names) else ""
    return f"{seat_name(seat, locale)} {printable(name)}" if name else seat_name(seat, locale)


def _draw_empty(draw: ImageDraw.ImageDraw, locale: str) -> None:
    text = "No cards left" if is_english(locale) else "手牌已出完"
    middle = HEADER + MARGIN + (RAISE + theme.HAND_CARD.height) / 2
    draw.text((WIDTH / 2, middle), text, font=font(40, bold=True), fill=theme.MUTED_TEXT, anchor="mm")
