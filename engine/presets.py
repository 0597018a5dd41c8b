"""The rule presets: what each organising document of docs/rules.md §2.9 chooses, as data.

Each :class:`Document` lists only its departures from docs/rules.md §3 (the defaults of
:class:`engine.rules.Rules`), so a reader compares documents setting by setting. This module
names the choices (:mod:`engine.variants`) and nothing else: ``engine.rules`` builds a
:class:`engine.rules.Preset` from each document, and ``Rules.preset(name)`` looks them up there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from engine.variants import (
    AFailureCount,
    APass,
    AReset,
    CountVisibility,
    DoubleDownLeader,
    EqualTribute,
    ExposedCards,
    FirstLeader,
    JiefengScope,
    MatchFormat,
    Misconduct,
    NoTributeLeader,
    OutOfTurn,
    Overflow,
    PlayedCardsView,
    PointsTieBreak,
    ReturnLimit,
    RoundScore,
    SeatAssignment,
    ShuffleProcedure,
    TimeTieBreak,
    TimeUp,
    TimeWinner,
    TributeAssignment,
    TributeViolation,
    WildcardDeclaration,
)

CASUAL_PRESET: Final = "default"
"""The preset of a casual table (``/newgame`` without one); every other preset is a contest's."""


@dataclass(frozen=True, slots=True)
class Document:
    """One organising document's choices, with titles for the lobby.

    ``changes`` are keyword arguments of :class:`engine.rules.Rules`, checked when
    ``engine.rules`` builds them (at import).
    """

    name: str
    title_zh: str
    title_en: str
    description: str
    sources: tuple[str, ...]  # docs/rules.md §2.9 keys
    changes: Mapping[str, Any]  # keyword arguments of Rules, of as many types as its fields


def _document(
    name: str, zh: str, en: str, description: str, sources: tuple[str, ...], **changes: object
) -> Document:
    changes.setdefault("card_counter", name == CASUAL_PRESET)  # 记牌器: casual tables only
    return Document(name, zh, en, description, sources, changes)


_TIMED = {"time_up": TimeUp.FINISH_DEAL}

DOCUMENTS: tuple[Document, ...] = (
    _document(
        "default",
        "标准规则",
        "Standard rules",
        "The bot's defaults (docs/rules.md §3): 3/2/1, pass A with partner not last, "
        "3 failures at A reset to 2.",
        ("003-A", "001-E"),
    ),
    _document(
        "noshuffle",
        "不洗牌（休闲）",
        "No shuffle (不洗牌), casual",
        "The standard rules dealt 不洗牌, as the phone apps' casual mode: every deal after the first "
        "comes from the last deal's cards as they were played, cut once and dealt nine at a time.",
        ("003-A", "001-E"),  # the standard rules' sources; 不洗牌 itself is the apps', no seed's
        shuffle=ShuffleProcedure.NONE,
        card_counter=True,  # a casual table, like the default's
    ),
    _document(
        "jiangsu-union",
        "江苏省分行南京地区工会掼蛋规则",
        "Jiangsu branch union (Nanjing) rules",
        "3/2/1, A must be passed with partner not last, 3 total failures back to 2, 40 s first play.",
        ("003-A", "000-B", "001-E"),
        equal_tribute=EqualTribute.L1_TO_FIRST_L2_LEADS,
        returns_face_down=True,
        first_leader=FirstLeader.MARKER_CARD,
        count_visibility=CountVisibility.ON_REQUEST,
        turn_seconds=20,
        first_turn_seconds=40,
        wildcard_declaration=WildcardDeclaration.LOWEST,
        round_score=RoundScore.MATCH_POINTS_TWO,
    ),
    _document(
        "lujiang-school",
        "庐江县第二希望小学教职工掼蛋比赛",
        "Lujiang No. 2 Hope School staff contest",
        "30-minute knockout game, 3/2/1, 3 failures at A reset, tie: last deal's first place wins.",
        ("000-A",),
        a_pass=APass.ANY_WIN,
        equal_tribute=EqualTribute.SMALLER_RETURN_LEADS,
        jiefeng=JiefengScope.FIRST_ONLY,
        shuffle=ShuffleProcedure.LAST_DRAWS_FIRST,
        misdeal_double_last=True,
        late_forfeit_minutes=0,
        time_limit_minutes=30,
        time_tie_break=TimeTieBreak.LAST_FIRST_PLACE,
        **_TIMED,
    ),
    _document(
        "wechat-6-deals",
        "中心微信群“6局积分制”",
        "Centre WeChat group: six scored deals",
        "Six deals all at level 2, 3/2/1 points, tribute on, an extra deal on a tie (000-E).",
        ("000-E",),
        match_format=MatchFormat.POINTS,
        points_deals=6,
    ),
    _document(
        "jingfang",
        "精方药业掼蛋比赛",
        "Jingfang Pharma contest",
        "First to reach A wins, no tribute, first place leads the next deal.",
        ("000-L", "002-B"),
        a_pass=APass.REACH,
        tribute=False,
        first_leader=FirstLeader.MARKER_CARD,
        seat_assignment=SeatAssignment.CARD_DRAW,
        shuffle=ShuffleProcedure.FIRST_SHUFFLES,
        misconduct=Misconduct.DISQUALIFY,
    ),
    _document(
        "anhui-jianzhu",
        "安徽建筑大学教职工扑克牌（掼蛋）比赛",
        "Anhui Jianzhu University staff contest",
        "Ten deals at level 2 scored 3/2/1, no tribute, random leader each deal; ties: more 3s.",
        ("001-A",),
        match_format=MatchFormat.POINTS,
        points_deals=10,
        points_tie_break=PointsTieBreak.MORE_THREES_THEN_EXTRA,
        tribute=False,
        no_tribute_leader=NoTributeLeader.RANDOM,
        first_leader=FirstLeader.MARKER_CARD,
        out_of_turn=OutOfTurn.WARNING_OR_EXPOSED,
        exposed_cards=ExposedCards.LOSE_CHANCES,
        misconduct=Misconduct.GRADUATED_POINTS,
        played_cards_view=PlayedCardsView.FACE_DOWN,
        shuffle=ShuffleProcedure.LAST_SHUFFLES_FIRST_CUTS,
        min_shuffles=5,
        max_bomb_size=10,
    ),
    _document(
        "xiexiebang",
        "首届员工“掼蛋”比赛（xiexiebang）",
        "First staff contest (xiexiebang)",
        "90-minute game, levels cycle past A; at time the leader wins at once, on equal levels "
        "a side with a player out, else the first to go up; 报牌 at 10 cards.",
        ("002-A",),
        a_pass=APass.ORDINARY,
        overflow=Overflow.CYCLE,
        report_threshold=10,
        count_visibility=CountVisibility.ON_REQUEST,
        played_cards_view=PlayedCardsView.OWN_PILE_ONLY,
        shuffle=ShuffleProcedure.SECOND_SHUFFLES,
        retract_stray_card=True,
        false_report_replay=True,
        time_limit_minutes=90,
        time_up=TimeUp.STOP_AT_ONCE,  # 谁领先谁晋级: the deal in hand does not count
        time_tie_break=TimeTieBreak.PLAYER_OUT,
    ),
    _document(
        "nanjing-forestry",
        "南京林业大学研究生会“掼蛋”大赛",
        "Nanjing Forestry University graduate union contest",
        "5/3/1, first to reach A within 1 h, J must be played, 4th → 1st tribute, 30 s auto-play.",
        ("002-E",),
        level_ups=(5, 3, 1),
        a_pass=APass.REACH,
        a_reset=AReset.ONE_LOWER,
        must_play=(11,),
        tribute_assignment=TributeAssignment.BY_PLACE,
        return_limit=ReturnLimit.ANY,
        double_down_leader=DoubleDownLeader.LAST_PLACE,
        turn_seconds=30,
        late_forfeit_minutes=10,
        time_limit_minutes=60,
        **_TIMED,
    ),
    _document(
        "spring-festival",
        "春节联欢“扑克”比赛（工会）",
        "Spring Festival union contest",
        "6/4/2 level-ups, 40-minute games, any return after a double-down, 报牌 at 6.",
        ("004-A",),
        level_ups=(6, 4, 2),
        tribute_assignment=TributeAssignment.BY_PLACE,
        return_limit_double_down=ReturnLimit.ANY,
        returns_face_down=True,
        jiefeng=JiefengScope.FIRST_ONLY,
        late_forfeit_minutes=15,
        time_limit_minutes=40,
        **_TIMED,
    ),
    _document(
        "huaian",
        "掼蛋比赛（两副牌）规则（淮安网）",
        "Two-deck rules (Huai'an)",
        "Eight deals or 13 points (points = levels gained at 3/2/1); an extra deal on a tie.",
        ("000-H", "000-Q", "003-C"),
        match_format=MatchFormat.POINTS,
        points_deals=8,
        points_target=13,
        points_fixed_level=False,
        partner_tribute=False,
        double_down_leader=DoubleDownLeader.LAST_PLACE,
    ),
    _document(
        "wuyi-2015",
        "“五一”扑克牌比赛（局机关2015）",
        "May Day contest 2015 (bureau office)",
        "50-minute games, 2 consecutive failures at A reset, 末游 leads after 双下, tie: 台上 wins.",
        ("000-N",),
        a_failure_limit=2,
        a_failure_count=AFailureCount.CONSECUTIVE,
        runs_written_high_first=False,
        bonus_levels=True,
        double_down_leader=DoubleDownLeader.LAST_PLACE,
        time_limit_minutes=50,
        time_tie_break=TimeTieBreak.DECLARER,
        **_TIMED,
    ),
    _document(
        "canmou",
        "掼蛋竞赛规则（参谋版）",
        "Canmou rules (000-F/M/P)",
        "Never reset at A, A must be played, wildcards declared, 逆时针 equal tribute (000-M/P).",
        ("000-F", "000-M", "000-P"),
        a_failure_limit=None,
        equal_tribute=EqualTribute.L2_TO_FIRST,
        returns_face_down=True,
        wildcard_declaration=WildcardDeclaration.MUST_DECLARE,
        jiefeng=JiefengScope.FIRST_ONLY,
        tribute_violation=TributeViolation.GIVE_AGAIN_AND_FOUL,
    ),
    _document(
        "knockout-135",
        "掼蛋比赛规则（1-3-5 积分淘汰制）",
        "Knockout 1-3-5 (match points 2/0)",
        "5/3/1, 60-minute game, surplus at A demotes the opponents, tie: last first place wins.",
        ("002-D",),
        level_ups=(5, 3, 1),
        a_pass=APass.ANY_WIN,
        overflow=Overflow.DEMOTE_OPPONENTS,
        equal_tribute=EqualTribute.SMALLER_RETURN_LEADS,
        shuffle=ShuffleProcedure.LAST_DRAWS_FIRST,
        jiefeng=JiefengScope.FIRST_ONLY,
        out_of_turn=OutOfTurn.POINTED_OUT,
        partner_change=True,
        time_limit_minutes=60,
        time_tie_break=TimeTieBreak.LAST_FIRST_PLACE,
        round_score=RoundScore.MATCH_POINTS_TWO,
        **_TIMED,
    ),
    _document(
        "three-round-movement",
        "分组三轮移位总得分制",
        "Three-round movement, total score",
        "60-minute rounds stopped at once; passing A scores 100 + level difference, "
        "else no winner and each side its levels (A17); 30 s / 15 s clocks.",
        ("001-B",),
        a_pass=APass.ANY_WIN,
        count_visibility=CountVisibility.NEVER,
        turn_seconds=15,
        first_turn_seconds=30,
        seat_assignment=SeatAssignment.MOVEMENT_TABLE,
        shuffle=ShuffleProcedure.LAST_SHUFFLES_FIRST_CUTS,
        min_shuffles=5,
        out_of_turn=OutOfTurn.WARNING_OR_EXPOSED,
        exposed_cards=ExposedCards.SMALLEST_OF_SUIT,
        misconduct=Misconduct.GRADUATED_LEVELS,
        played_cards_view=PlayedCardsView.FACE_DOWN,
        time_limit_minutes=60,
        time_up=TimeUp.STOP_AT_ONCE,
        time_winner=TimeWinner.NONE,
        round_score=RoundScore.HUNDRED_PLUS_DIFFERENCE,
    ),
    _document(
        "best-of-3",
        "三局两胜制",
        "Best of three",
        "Best of three 2→A games, levels reset each game, A never reset (001-D).",
        ("000-G", "000-S", "001-D"),
        level_ups=(5, 3, 1),
        a_failure_limit=None,
        match_format=MatchFormat.BEST_OF,
        best_of=3,
    ),
)
"""Every preset, in the order ``/rules`` lists them."""
