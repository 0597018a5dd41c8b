"""Records turned into picture views: the 战绩 card and each 复盘 step. No Telegram here."""

from __future__ import annotations

from collections.abc import Sequence

from app.records import texts
from app.table.texts import _
from engine.review import DealReview, Frame
from players.coach import SHOWN, Coaching
from render.records import ReviewRow, ReviewView, StatsCardView
from render.words import place_name, rank_text, seat_name
from storage.records import PlayerTotals


def stats_card(name: str, totals: PlayerTotals, scope: str, locale: str) -> StatsCardView:
    f = totals.figures
    decided = totals.matches - totals.drawn
    deals = f.deals
    return StatsCardView(
        title=_("{name} · 战绩", locale, name=name),
        subtitle=scope,
        figures=(
            (str(totals.matches), _("matches", locale)),
            (texts.percent(totals.won, decided), _("won", locale)),
            (str(deals), _("deals", locale)),
        ),
        places=(f.firsts, f.seconds, f.thirds, f.lasts),
        place_names=(
            place_name(1, locale),
            place_name(2, locale),
            place_name(3, locale),
            place_name(4, locale),
        ),
        lines=(
            (_("上游 rate", locale), texts.percent(f.firsts, deals)),
            (_("双下 won / suffered", locale), f"{f.double_down_won} / {f.double_down_suffered}"),
            (_("Levels per deal", locale), f"{f.levels_gained / deals:.2f}" if deals else "–"),
            (_("Tributes paid / received", locale), f"{f.tributes_paid} / {f.tributes_received}"),
            (_("抗贡", locale), str(f.anti_tributes)),
        ),
    )


def seat_label(seat: int, names: Sequence[str]) -> str:
    return f"{seat_name(seat)} {names[seat]}".strip()


def review_view(
    table_id: int,
    deals: Sequence[DealReview],
    steps: Sequence[Frame],
    index: int,
    names: Sequence[str],
    locale: str,
    coaching: Coaching | None = None,
) -> ReviewView:
    """Step ``index`` of a match's replay as a picture view; ``coaching`` (the viewer's own
    点评 of the deal shown) marks its decisions and shows the master's play under each."""
    frame = steps[index]
    deal = deals[frame.deal]
    labels = [f"{seat_name(seat, locale)} {names[seat]}".strip() for seat in range(4)]
    title = texts.frame_title(table_id, deal.deal_number, rank_text(deal.level, locale), locale)
    step = texts.frame_step(index + 1, len(steps), locale)
    if frame.kind == "hands":
        rows = tuple(
            ReviewRow(
                seat, labels[seat], texts.cards_left_note(len(deal.hands[seat]), locale), deal.hands[seat]
            )
            for seat in range(4)
        )
        return ReviewView(f"{title}", f"{texts.hands_heading(locale)} · {step}", deal.level, rows)
    if frame.kind == "tribute":
        return ReviewView(
            title,
            f"{texts.tribute_heading(locale)} · {step}",
            deal.level,
            _tribute_rows(deal, labels, locale),
        )
    trick = deal.tricks[frame.trick]
    rows = _trick_rows(
        frame, deal, labels, locale, coaching if coaching and coaching.deal == frame.deal else None
    )
    counts = " · ".join(
        f"{seat_name(seat, locale)} {texts.cards_left_note(trick.cards_left[seat], locale)}"
        for seat in range(4)
    )
    if trick.winner is not None:
        footer = f"{texts.trick_won_note(trick.winner, names[trick.winner], locale)} · {counts}"
    elif deal.result is not None:
        footer = texts.deal_over_note(deal.result.finish_order, list(names), locale)
    else:
        footer = counts
    heading = texts.trick_heading(trick.number, len(deal.tricks), locale)
    return ReviewView(title, f"{heading} · {step}", deal.level, rows, footer)


def _trick_rows(
    frame: Frame, deal: DealReview, labels: list[str], locale: str, coaching: Coaching | None
) -> tuple[ReviewRow, ...]:
    """A trick's turns in order; a marked decision is numbered and the master's play follows it."""
    marks = {
        d.turn: (number, d)
        for number, d in enumerate(coaching.decisions if coaching else (), start=1)
        if d.trick == frame.trick
    }
    rows: list[ReviewRow] = []
    for turn, (seat, play) in enumerate(deal.tricks[frame.trick].turns):
        note = texts.play_note(play, deal.level, locale)
        marked = marks.get(turn)
        if marked is None:
            rows.append(ReviewRow(seat, labels[seat], note, play.cards if play else ()))
            continue
        number, decision = marked
        rows.append(
            ReviewRow(seat, labels[seat], note, play.cards if play else (), mark=texts.circled(number))
        )
        suggested = decision.suggested
        gain = texts.suggestion_note(decision.price if decision.sure else None, locale)
        rows.append(
            ReviewRow(
                seat,
                texts.suggestion_label(locale),
                gain if suggested else f"{texts.passed_word(locale)} · {gain}",
                suggested.cards if suggested else (),
                suggested=True,
            )
        )
    return tuple(rows)


def marked_steps(steps: Sequence[Frame], coaching: Coaching) -> list[int]:
    """The replay steps that show the coaching's decisions (a trick with two shows once)."""
    tricks = {d.trick for d in coaching.decisions}
    return [
        i
        for i, frame in enumerate(steps)
        if frame.deal == coaching.deal and frame.kind == "trick" and frame.trick in tricks
    ]


def coaching_caption(deal: DealReview, coaching: Coaching, names: Sequence[str], locale: str) -> str:
    """The 点评 written under the deal's pictures: the marked decisions and how they were judged."""
    lines = [
        (
            d.trick + 1,
            texts.play_note(d.played, deal.level, locale),
            texts.play_note(d.suggested, deal.level, locale),
            d.price if d.sure else None,
        )
        for d in coaching.decisions
    ]
    seat = f"{seat_name(coaching.seat, locale)} {names[coaching.seat]}".strip()
    return texts.coaching_caption(deal.deal_number, seat, lines, coaching.weighed, locale, SHOWN)


def _tribute_rows(deal: DealReview, labels: list[str], locale: str) -> tuple[ReviewRow, ...]:
    rows = [
        ReviewRow(
            payer, labels[payer], texts.tribute_note(labels[payer], labels[receiver], card, locale), (card,)
        )
        for payer, receiver, card in deal.tributes
    ]
    rows += [
        ReviewRow(
            giver, labels[giver], texts.return_note(labels[giver], labels[receiver], card, locale), (card,)
        )
        for giver, receiver, card in deal.returns
    ]
    if deal.anti_tribute:
        seat = deal.anti_tribute[0]
        rows.append(ReviewRow(seat, labels[seat], texts.anti_tribute_note(deal.anti_tribute, locale)))
    return tuple(rows)
