"""Seeded sample inputs for the benchmark, the golden-image tests and the demo.

Each sample is built from a seed only, so the same call always gives the same
picture; ``python -m render demo DIR`` writes them all for a look.
"""

from __future__ import annotations

import random

from engine.actions import Phase
from engine.cards import Card, Rank, full_deck, sort_hand
from engine.classify import classify
from engine.observation import Observation, SeatView, TributeView
from engine.plays import Play
from render.arrange import arrange_positions
from render.contest import BracketMatch, BracketRound, BracketView, StandingLine, StandingsView, TableColumn
from render.results import DealLine, DealResultView, MatchSummaryView, tribute_line

NAMES = ("李四", "王五", "张三", "赵六")
ENGLISH_NAMES = ("Bob", "Carol", "Alice", "Dave")


def deal(seed: int, size: int = 27) -> list[list[Card]]:
    """Four hands of ``size`` cards from a seeded shuffle of the two packs."""
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    return [deck[i * 27 : i * 27 + size] for i in range(4)]


def observation(hand: list[Card], level: Rank = Rank.SEVEN, seat: int = 2) -> Observation:
    """``seat``'s view holding ``hand`` in the play phase, everyone with cards."""
    seats = tuple(SeatView(s, 27, None, None, False) for s in range(4))
    return Observation(
        seat=seat,
        hand=tuple(sort_hand(hand, level)),
        level=level,
        team_levels=(level, Rank.FIVE),
        declarer_team=seat % 2,
        deal_number=3,
        phase=Phase.PLAY,
        to_act=(seat,),
        table_play=None,
        table_seat=None,
        seats=(seats[0], seats[1], seats[2], seats[3]),
        finish_order=(),
        tributes=(),
        points=(0, 0),
        a_failures=(0, 0),
        version=1,
    )


def display_labels(obs: Observation, *, group: bool = False) -> dict[int, str]:
    """Labels "1".."n" in display order, as the bot numbers its card buttons."""
    return {p: str(n + 1) for n, p in enumerate(arrange_positions(obs.hand, obs.level, group=group))}


def hand_observation(seed: int = 1, size: int = 27, level: Rank = Rank.SEVEN) -> Observation:
    """South's view of a seeded deal, ``size`` cards in hand."""
    return observation(deal(seed, size)[2], level)


def sample_plays(level: Rank = Rank.SEVEN) -> list[tuple[str, list[Card]]]:
    """Named card sets covering every kind, wildcards included."""
    texts = {
        "straight": "S3 H4 C5 D6 S7",
        "straight_flush": "S8 S9 ST SJ H7",
        "bomb": "S9 H9 C9 D9 S9 H9",
        "joker_bomb": "BJ BJ RJ RJ",
        "full_house": "H7 S5 H5 C8 D8",
        "pair_run": "S3 S3 S4 S4 H7 S5",
        "triple_run": "SQ SQ SQ SK SK SK",
        "single": "RJ",
        "pair": "DA CA",
        "triple": "C2 D2 S2",
    }
    return [(name, [Card.parse(t) for t in text.split()]) for name, text in texts.items()]


def play(name: str, level: Rank = Rank.SEVEN) -> Play:
    """The highest reading of the named sample play."""
    cards = dict(sample_plays(level))[name]
    return classify(cards, level)[-1]


def deal_result(english: bool = False) -> DealResultView:
    """Deal 3 at level 7: south first, north second, 南北 up three levels, with tributes."""
    names = ENGLISH_NAMES if english else NAMES
    tributes = (TributeView(1, 2, Card.parse("HA"), False), TributeView(2, 1, Card.parse("C4"), True))
    locale = "en" if english else "zh"
    return DealResultView(
        deal_number=3,
        level=Rank.SEVEN,
        declarer_team=0,
        finish_order=(2, 0, 1),
        levels_before=(Rank.SEVEN, Rank.FIVE),
        levels_after=(Rank.TEN, Rank.FIVE),
        names=names,
        tribute_lines=tuple(tribute_line(t, names, locale) for t in tributes),
    )


def match_summary() -> MatchSummaryView:
    """Ten seeded deals with levels climbing by the usual 3/2/1 rule."""
    levels = [(Rank.TWO, Rank.TWO)]
    lines: list[DealLine] = []
    rng = random.Random(5)
    for number in range(1, 11):
        order = tuple(rng.sample(range(4), 4))
        winner = order[0] % 2
        gain = 3 if order[1] % 2 == winner else 2 if order[2] % 2 == winner else 1
        before = levels[-1]
        after = tuple(Rank(min(14, int(r) + gain)) if t == winner else r for t, r in enumerate(before))
        levels.append((after[0], after[1]))
        declarer = 0 if number == 1 else lines[-1].finish_order[0] % 2
        lines.append(DealLine(number, before[declarer], declarer, order[:3], (after[0], after[1])))
    return MatchSummaryView(tuple(lines), levels[-1], 0, NAMES)


def standings() -> StandingsView:
    """Six pairs of a Swiss contest after three rounds: 积分, 级差, 对手分, 胜, 负."""
    columns = (
        TableColumn("队伍", bold=True),
        TableColumn("队员", "left", flex=True),
        TableColumn("积分", bold=True),
        TableColumn("级差"),
        TableColumn("对手分"),
        TableColumn("胜"),
        TableColumn("负"),
    )
    rows = tuple(
        StandingLine(
            i + 1,
            (
                f"{i + 1}组",
                f"{team}甲 · {team}乙",
                str(6 - 2 * (i // 2)),
                f"{9 - 3 * i:+d}".replace("+0", "0"),
                str(8 - i),
                str(3 - i // 2),
                str(i // 2),
            ),
        )
        for i, team in enumerate(("南京", "扬州", "淮安", "徐州", "苏州", "无锡"))
    )
    return StandingsView("掼蛋杯 积分榜", columns, rows, "第 3 轮后（最终）")


def bracket() -> BracketView:
    """Eight pairs: quarter-finals played, one semi-final played, the final open."""
    teams = ("南京", "扬州", "淮安", "徐州", "苏州", "无锡", "常州", "镇江")
    first = tuple(
        BracketMatch((teams[2 * i], teams[2 * i + 1]), ("A", "10") if i % 2 == 0 else ("9", "K"), i % 2)
        for i in range(4)
    )
    semis = (BracketMatch(("南京", "徐州"), ("2", "1"), 0), BracketMatch(("苏州", "镇江")))
    # the match for 3rd: the semi-finals' losers (徐州, and whoever loses 苏州 v 镇江)
    final = (BracketMatch(("南京", None)), BracketMatch(("徐州", None), label="三四名决赛"))
    return BracketView(
        "掼蛋杯 淘汰赛",
        (BracketRound("八强", first), BracketRound("半决赛", semis), BracketRound("决赛", final)),
        "三局两胜",
    )
