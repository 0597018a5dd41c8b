"""Pictures of the game for a phone: hands, plays, deal results, contest tables.

Pure functions from engine values to PNG bytes; nothing here imports Telegram, and
a hand image is drawn from an :class:`~engine.observation.Observation`, so it can
only ever show the observing seat's own cards.
"""

from render.arrange import arrange_hand, arrange_play, arrange_positions, hand_groups
from render.contest import (
    BracketMatch,
    BracketRound,
    BracketView,
    StandingLine,
    StandingsView,
    TableColumn,
    render_bracket,
    render_standings,
)
from render.hand import render_hand
from render.play import render_play
from render.results import (
    DealLine,
    DealResultView,
    MatchSummaryView,
    render_deal_result,
    render_match_summary,
    tribute_line,
)
from render.words import card_text, describe_play, place_name, play_kind_name, rank_text, seat_name, team_name

__all__ = [
    "BracketMatch",
    "BracketRound",
    "BracketView",
    "DealLine",
    "DealResultView",
    "MatchSummaryView",
    "StandingLine",
    "StandingsView",
    "TableColumn",
    "arrange_hand",
    "arrange_play",
    "arrange_positions",
    "card_text",
    "describe_play",
    "hand_groups",
    "place_name",
    "play_kind_name",
    "rank_text",
    "render_bracket",
    "render_deal_result",
    "render_hand",
    "render_match_summary",
    "render_play",
    "render_standings",
    "seat_name",
    "team_name",
    "tribute_line",
]
