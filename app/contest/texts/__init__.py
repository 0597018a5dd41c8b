"""Every sentence of a contest, built for one locale (Chinese first) from the pure contest value.

HTML messages escape whatever a person chose (contest and player names, units, prizes, the
venue, reasons, the event word: :func:`.words.report_example` for ``掼蛋3组`` in a sentence).
The official report line is never built here: it is :func:`engine.contest.official_line`,
``掼蛋{N}组`` and nothing else, posted as plain text.

By topic: :mod:`.refusals`, :mod:`.words`, :mod:`.card` (and sign-up), :mod:`.rounds` (and
table clocks), :mod:`.results` and :mod:`.standings`; this package gives them one name,
``texts``, as the handlers call them.
"""

from __future__ import annotations

from app.contest.texts.card import (
    card_text,
    format_help,
    formats_help,
    mask_url,
    mirror_off_text,
    mirror_set_for_text,
    partner_changed_text,
    privacy_text,
    result_help,
    signup_done_text,
    tag_text,
    which_contest_text,
)
from app.contest.texts.refusals import problem_text, refusal_text
from app.contest.texts.results import (
    both_out_text,
    confirmed_text,
    contradiction_text,
    copy_label,
    deadline_moved_text,
    decision_text,
    details_text,
    dispute_text,
    duplicate_text,
    late_noted_text,
    method_text,
    reason_text,
    reminder_dm_text,
    reminder_text,
    round_complete_text,
    withdrew_text,
)
from app.contest.texts.rounds import (
    clock_started_text,
    clock_warning_text,
    draw_message,
    draw_text,
    play_button_label,
    round_text,
    seats_legend,
    table_heading,
    table_label,
    time_up_rule,
    time_up_text,
)
from app.contest.texts.standings import (
    STANDINGS_TEXT_LIMIT,
    close_round_question,
    contest_list_text,
    decided_text,
    final_text,
    match_status_word,
    standings_text,
    status_text,
)
from app.contest.texts.words import TEXT_LIMIT, deadline_line, format_title, pair_label, pair_line, phase_text
from app.table.texts import _

__all__ = [
    "STANDINGS_TEXT_LIMIT",
    "TEXT_LIMIT",
    "_",
    "both_out_text",
    "card_text",
    "clock_started_text",
    "clock_warning_text",
    "close_round_question",
    "confirmed_text",
    "contest_list_text",
    "contradiction_text",
    "copy_label",
    "deadline_line",
    "deadline_moved_text",
    "decided_text",
    "decision_text",
    "details_text",
    "dispute_text",
    "draw_message",
    "draw_text",
    "duplicate_text",
    "final_text",
    "format_help",
    "format_title",
    "formats_help",
    "late_noted_text",
    "mask_url",
    "match_status_word",
    "method_text",
    "mirror_off_text",
    "mirror_set_for_text",
    "pair_label",
    "pair_line",
    "partner_changed_text",
    "phase_text",
    "play_button_label",
    "privacy_text",
    "problem_text",
    "reason_text",
    "refusal_text",
    "reminder_dm_text",
    "reminder_text",
    "result_help",
    "round_complete_text",
    "round_text",
    "seats_legend",
    "signup_done_text",
    "standings_text",
    "status_text",
    "table_heading",
    "table_label",
    "tag_text",
    "time_up_rule",
    "time_up_text",
    "which_contest_text",
    "withdrew_text",
]
