"""Contest formats: data plus four small functions, in a registry like the rule presets.

A format (:class:`~engine.contest.pairing.ContestFormat`) says how a round is paired
(``pair_round``), who goes on after a complete round (``advance``), when the contest
is decided (``is_decided``, or ``fixed_rounds``) and how the pairs are ranked at the
end (``rank``). The contest state machine (:mod:`engine.contest.contest`) owns
everything else — sign-up, the draw of entrants, reports, deadlines — so each seed's
system is one entry of :data:`FORMATS`. The functions live in
:mod:`engine.contest.knockouts`, :mod:`engine.contest.swiss` and
:mod:`engine.contest.movement`, with each draw documented exactly there.
"""

from __future__ import annotations

from typing import Any

from engine.contest.errors import Refusal, UnknownFormat
from engine.contest.families import Family
from engine.contest.knockouts import (
    fixed_bracket_decided,
    fixed_bracket_pairing,
    jingfang_advance,
    jingfang_pairing,
    knockout_advance,
    knockout_decided,
    knockout_rank,
    pass_a_order_rank,
    redraw_knockout_pairing,
    scored_knockout_rank,
    slot_pairing,
    table_draw_decided,
)
from engine.contest.movement import MOVEMENT_ROUNDS, movement_advance, movement_pairing, movement_rank
from engine.contest.pairing import (
    ContestFormat,
    MatchPoints,
    Pairing,
    RankInput,
    RoundDraw,
    RoundInput,
    ThirdPlace,
    competition_ranking,
)
from engine.contest.rounds import Stage
from engine.contest.swiss import SWISS_ROUNDS, never_early, swiss_advance, swiss_pairing, swiss_rank
from engine.rules import MatchFormat

__all__ = [
    "FORMATS",
    "ContestFormat",
    "Family",
    "MatchPoints",
    "Pairing",
    "RankInput",
    "RoundDraw",
    "RoundInput",
    "ThirdPlace",
    "competition_ranking",
    "find_format",
    "knockout_advance",
    "knockout_rank",
    "redraw_knockout_pairing",
]

_BEST_OF_THREE = {"match_format": MatchFormat.BEST_OF, "best_of": 3}


def _knockout(name: str, zh: str, en: str, description: str, sources: tuple[str, ...], preset: str,
              **more: Any) -> ContestFormat:  # fmt: skip
    """A knockout redrawn every round (the 000-E functions) with its own data."""
    functions: dict[str, Any] = {"pair_round": redraw_knockout_pairing, "advance": knockout_advance,
                                 "is_decided": knockout_decided, "rank": knockout_rank}  # fmt: skip
    return ContestFormat(name, zh, en, description, sources, preset, **(functions | more))


FORMATS: dict[str, ContestFormat] = {
    f.name: f
    for f in (
        _knockout(
            "wechat-knockout",
            "中心微信群淘汰赛（每轮重新抽签）",
            "Centre WeChat group knockout, redrawn every round",
            "Knockout redrawn every round among the survivors; a leftover pair gets a bye into the "
            "next draw; round 1 self-scheduled before a deadline (both pairs out if not played or "
            "not reported); six scored deals per match; places 1-3.",
            ("000-E",),
            "wechat-6-deals",
            self_scheduled_rounds=frozenset({1}),
            description_zh=(
                "每轮在未淘汰的组中重新抽签；多出的一组轮空，进入下一轮抽签；"
                "第一轮在截止日前自行约时比赛（逾期未赛或未上报，两组均出局）；"
                "每场6局积分制；决出一、二、三名。"
            ),
        ),
        _knockout(
            "redraw-knockout",
            "淘汰赛（胜者每轮重新抽签，决出一、二、三名）",
            "Knockout, winners redrawn every round, places 1-3",
            "Winners are redrawn every round (the pairs drawing the same number share a table); a "
            "leftover pair gets a bye; the semi-final losers play for 3rd. Prizes 1/2/3 pairs.",
            ("000-D", "000-I", "000-O"),
            "default",
            prizes=(("一等奖", 1), ("二等奖", 2), ("三等奖", 3)),
            description_zh=(
                "胜者每轮重新抽签（抽到相同号码的两对同桌比赛）；"
                "多出的一组轮空；"
                "半决赛负者争第三名。奖励一、二、三等奖各1、2、3对。"
            ),
        ),
        _knockout(
            "five-round-knockout",
            "淘汰赛（共五轮，抽相同号码同桌）",
            "Five-round knockout (same number, same table)",
            "At most 32 pairs, redrawn every round, 40-minute games; prizes 1/2/4 pairs and 9 优胜奖.",
            ("004-A",),
            "spring-festival",
            max_pairs=32,
            prizes=(("一等奖", 1), ("二等奖", 2), ("三等奖", 4), ("优胜奖", 9)),
            description_zh=("最多32对，每轮重新抽签，每局40分钟；一、二、三等奖各1、2、4对，另设优胜奖9对。"),
        ),
        _knockout(
            "points-knockout",
            "积分淘汰制（10副牌，积3分次数多者胜）",
            "Ten-deal points knockout (more 3s wins a tie)",
            "Each match is 10 deals at level 2 scored 3/2/1; equal points: more 3-point deals, then "
            "an extra deal; pairs out in the same round are ordered by their points.",
            ("001-A",),
            "anhui-jianzhu",
            rank=scored_knockout_rank,
            family=Family.POINTS_KNOCKOUT,
            description_zh=(
                "每场打10副牌，均打2，按3/2/1积分；"
                "积分相同，积3分次数多者胜，再相同加赛一副；"
                "同轮淘汰的组按积分排名次。"
            ),
        ),
        _knockout(
            "score-knockout",
            "积分淘汰制（局分2/0，级差）",
            "Knockout with match points 2/0 and level difference",
            "One 60-minute game per round, 局分 2 to the winner, 0 to the loser, 级差 kept; a walkover "
            "is worth 级差 12 (A18; preset setting forfeit_difference=half for ½).",
            ("002-D",),
            "knockout-135",
            rank=scored_knockout_rank,
            family=Family.SCORE_KNOCKOUT,
            description_zh=(
                "每轮一局，限时60分钟，胜者局分2分、负者0分，保留级差；"
                "对手弃权按级差12计（A18；"
                "预设项 forfeit_difference=half 按½计）。"
            ),
        ),
        ContestFormat(
            "fixed-bracket",
            "固定对阵表淘汰赛（先分区后定位，三局两胜）",
            "Fixed bracket, units in different halves, best of three",
            "The bracket is drawn once: a unit's A and B teams go to different halves (sign up with "
            "tag=UNIT), then places within each half by lot; every match best of three; top 8.",
            ("000-S",),
            "best-of-3",
            pair_round=fixed_bracket_pairing,
            advance=knockout_advance,
            is_decided=fixed_bracket_decided,
            rank=knockout_rank,
            prizes=(("前八名", 8),),
            uses_tags="unit",
            description_zh=(
                "对阵表一次抽定：同一单位的A、B队分在上下不同半区（报名时 tag=单位名），再在半区内抽签定位；"
                "每场三局两胜；取前八名。"
            ),
        ),
        ContestFormat(
            "slot-groups",
            "A、B组按时段对阵（A1对B1）",
            "Groups A and B by time slot, A1 plays B1",
            "Pairs are in group A or B by time slot (tag=A / tag=B; others by lot), numbered by lot; "
            "A1 plays B1 and so on; winners go on and are redrawn; a 1-hour game per match.",
            ("002-E",),
            "nanjing-forestry",
            pair_round=slot_pairing,
            advance=knockout_advance,
            is_decided=knockout_decided,
            rank=knockout_rank,
            uses_tags="slot",
            description_zh=(
                "按时段分为A、B两组（tag=A / tag=B，其余抽签），组内抽签编号；"
                "A1对B1，依此类推；胜者晋级并重新抽签；"
                "每场一局，限时1小时。"
            ),
        ),
        ContestFormat(
            "table-draw",
            "抽桌号淘汰赛（第二轮按打过A的先后定名次）",
            "Drawn table numbers; round 2 ranked by who passes A first",
            "One player of each pair draws a table number; the winning pairs play a second round in "
            "which places go by the order the winners pass A.",
            ("002-C",),
            "default",
            pair_round=redraw_knockout_pairing,
            advance=knockout_advance,
            is_decided=table_draw_decided,
            rank=pass_a_order_rank,
            named_rounds=False,
            description_zh=("每对派一人抽桌号；获胜的组进行第二轮，按最先打过A的先后决出名次。"),
        ),
        ContestFormat(
            "jingfang",
            "精方药业多阶段淘汰赛（附加赛）",
            "Jingfang multi-stage knockout with repechage",
            "Preliminary knockout rounds down to 9-15 pairs; a qualifying round whose losers and bye "
            "play a repechage for the places left of 8; 复赛 down to 4; semi-finals, final and the "
            "3rd/4th match best of three; first to reach A; seats by drawn card.",
            ("000-L", "002-B"),
            "jingfang",
            pair_round=jingfang_pairing,
            advance=jingfang_advance,
            is_decided=knockout_decided,
            rank=knockout_rank,
            stage_rules={Stage.SEMI: _BEST_OF_THREE, Stage.FINAL: _BEST_OF_THREE},
            prizes=(("冠军", 1), ("亚军", 1), ("季军", 1), ("第四名", 1)),
            description_zh=(
                "初赛逐轮淘汰至9–15对；"
                "一轮晋级赛的负者与轮空组进行附加赛，补足8强；"
                "复赛淘汰至4强；半决赛、决赛及三四名赛三局两胜；"
                "先打到A者胜；抽牌定座位。"
            ),
        ),
        ContestFormat(
            "movement",
            "分组三轮移位总得分制",
            "Grouped three-round movement, total score",
            "Groups of four pairs play each other once by the movement table (first listed sits "
            "NS); 60-minute rounds stopped at once; 100 + level difference for passing A; total "
            "score over three rounds.",
            ("001-B",),
            "three-round-movement",
            pair_round=movement_pairing,
            advance=movement_advance,
            is_decided=never_early,
            rank=movement_rank,
            fixed_rounds=MOVEMENT_ROUNDS,
            min_pairs=3,
            family=Family.MOVEMENT,
            description_zh=(
                "每4对为一小组，按移位表与同组各组各赛一轮（排前坐南北）；"
                "每轮60分钟，时间到立即停止；过A者得100+级差；"
                "三轮得分之和为总分。"
            ),
        ),
        ContestFormat(
            "swiss",
            "积分编排制（3轮）",
            "Swiss points pairing, 3 rounds",
            "Pairs meet pairs on equal points, never twice; 2 points a win, 0 a loss, a bye scores a "
            "win; places by points, then level difference, then opponents' points.",
            ("003-A", "000-B"),
            "jiangsu-union",
            pair_round=swiss_pairing,
            advance=swiss_advance,
            is_decided=never_early,
            rank=swiss_rank,
            fixed_rounds=SWISS_ROUNDS,
            family=Family.SWISS,
            description_zh=(
                "积分相同的组相互对阵，不重复相遇；胜2分、负0分，轮空记胜；名次依次按积分、级差、对手分。"
            ),
        ),
    )
}
"""Format name → :class:`ContestFormat`; :func:`find_format` looks one up."""


def find_format(name: str) -> ContestFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormat(
            Refusal.UNKNOWN_FORMAT, f"{name!r}; known: {', '.join(sorted(FORMATS))}"
        ) from None
