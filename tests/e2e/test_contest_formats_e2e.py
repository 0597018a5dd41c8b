"""One contest of each family through the emulator, from sign-up to the final places and prizes.

* **精方 knockout with repechage** (000-L/002-B, docs/rules.md §4.3): eleven pairs, as in the seed's
  third round — a qualifying round of five matches and a bye, the five losers and the bye
  drawn into a repechage of three matches, 复赛 of the eight, best-of-three semi-finals,
  the final and the 3rd/4th match; places 1–4 with the seed's four prizes.
* **积分编排 Swiss** (003-A/000-B, docs/rules.md §4.6): six pairs, three rounds paired by score, never a
  rematch; places by 积分, then 级差, then 对手分.
* **Grouped movement** (001-B, docs/rules.md §4.5): eight pairs in two groups of four, three rounds by the
  movement table (the pair listed first sits North–South), total score 100 + 级差.

In each, one match is played through the bot by four simulated people (提示 then 出牌 in
their private chats, no AI), its rules shortened so that one or two deals decide a game
(every deal is worth 12 levels). The others are entered as at a physical table: typed
``掼蛋N组`` lines confirmed by the opponents, and the recorders' score sheets — in round 1
(drawn for the bot, so without sheets) the recorder's final levels given by the organiser's
``/result … levels=…``; in the later rounds, at a fixed time and place, the pairing
message's ``📝 N桌记分`` sheet pressed deal by deal by a player or the organiser and ✅
submitted. The movement test also has a late pair (noted, then a walkover), ``/round start``
and its time-up job run once the test clock reaches the end, entered on the open sheet (a
match nobody won: each pair its levels, A17), and a pair asking for leave (请假). Each test
checks the standings text and the ``/contest export`` CSV against figures it adds up itself.

The group's message budget (18 a minute) and the Bot API rate limiter are lifted for these
bots (:func:`~tests.e2e.contest_support.running_bot`'s ``group_limit``): the budget is
measured by ``test_contest_e2e`` and the table tests, and at 18 a minute a 16-match contest
would spend most of its run waiting for it.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from engine.contest import Contest, ContestMatch, MatchKind, official_line
from engine.contest.movement import MOVEMENT_FOUR
from engine.contest.seating import RANKS, seating
from engine.rules import MatchFormat, Rules, SeatAssignment
from tests.e2e.contest_support import (
    BOT,
    CARD,
    Clock,
    contest_in,
    details_of,
    play_table,
    press,
    running_bot,
    sides_of,
    sign_up_pairs,
    wait_text,
)
from tests.e2e.test_match_e2e import Table

GROUP_LIMIT = 600  # messages a minute: no wait for the budget (see the module docstring)


def twelve_levels(contest: Contest, number: int) -> Rules:
    """A bot table's rules for round ``number`` cut short: every deal is worth 12 levels (2 → A)."""
    return contest.round_rules(number).replace(level_ups=(12, 12, 12))


def people(first_id: int, prefix: str, pairs: int) -> list[tuple[User, User]]:
    return [
        (
            User(first_id + 2 * i, f"{prefix}{i}a", username=f"{prefix.lower()}{i}a"),
            User(first_id + 2 * i + 1, f"{prefix}{i}b", username=f"{prefix.lower()}{i}b"),
        )
        for i in range(pairs)
    ]


class Organised:
    """One contest as its organiser and players see it in their group."""

    def __init__(
        self,
        telegram: Telegram,
        group: Chat,
        club: Chat,
        organiser: User,
        pairs: Sequence[tuple[User, User]],
        db_path: Path,
    ) -> None:
        self.telegram = telegram
        self.group = group
        self.club = club  # the bot-played matches are played in groups numbered after it
        self.clubs = 0
        self.organiser = organiser
        self.pairs = pairs
        self.db_path = db_path
        self.everyone = [organiser, *(u for pair in pairs for u in pair)]

    async def contest(self) -> Contest:
        return await contest_in(self.db_path, self.group)

    def sides(self, contest: Contest, match: ContestMatch) -> list[list[User]]:
        return sides_of(self.everyone, contest, match)

    async def open(self, command: str) -> None:
        """The organiser creates the contest; every pair signs up together; the draw."""
        await self.telegram.set_admins(self.group, [self.organiser, BOT])
        for person in self.everyone:  # the bot may write to them: tables' hands, score sheets
            await self.telegram.send(person, Chat.private(person), "/start")
        await self.telegram.send(self.organiser, self.group, command)
        await wait_text(self.telegram, self.group, CARD)
        await sign_up_pairs(self.telegram, self.group, self.pairs)
        await self.telegram.send(self.organiser, self.group, "/draw")

    async def pairing_message(self, number: int) -> BotMessage:
        message = await wait_text(self.telegram, self.group, f"第 {number} 轮对阵")
        contest = await self.contest()
        for match in contest.rounds[number - 1].matches:
            assert match.code in message.content, (match.code, message.content)
        return message

    async def next_round(self, number: int, schedule: str = "") -> Contest:
        await self.telegram.send(self.organiser, self.group, f"/round next {schedule}".strip())
        await self.pairing_message(number)
        return await self.contest()

    async def newest_id(self) -> int:
        shown = await self.telegram.messages(self.group)
        return shown[-1].message_id if shown else 0

    async def posted_after(self, after: int, fits: Callable[[BotMessage], bool]) -> BotMessage:
        async def found() -> BotMessage | None:
            shown = await self.telegram.messages(self.group)
            return next((m for m in shown if m.message_id > after and fits(m)), None)

        return await wait_for(found, timeout=70, what="a new message in the group")

    async def official(self, after: int, winner: int) -> None:
        """The official line ``掼蛋N组`` was posted after message ``after``."""
        line = official_line(winner)
        await self.posted_after(after, lambda m: m.content == line)

    async def typed(self, match: ContestMatch, winner: int) -> None:
        """A player of the winning pair types the line; an opponent confirms it."""
        contest = await self.contest()
        sides = self.sides(contest, match)
        reporter = sides[match.pairs.index(winner)][1]
        opponent = sides[1 - match.pairs.index(winner)][0]
        after = await self.newest_id()
        await self.telegram.send(reporter, self.group, official_line(winner))
        await self.official(after, winner)
        details = await details_of(self.telegram, self.group, match)
        text, alert = await press(self.telegram, opponent, details, "确认")
        assert not alert, text
        await self.posted_after(after, lambda m: f"{opponent.first_name} 已确认" in m.content)

    async def recorded(
        self, match: ContestMatch, winner: int, levels: str = "", *, lost_at: str = "10"
    ) -> None:
        """The table's recorder wrote the final levels: entered by the organiser's ``/result``
        with the figures (``levels`` the winner's first, with ``time`` when the clock ended it;
        else the winner passed A and the losers reached ``lost_at``)."""
        after = await self.newest_id()
        # the winner's figures first, whichever pair the pairing message lists first
        figures = f"levels={levels} time" if levels else f"levels=A:{lost_at}"
        await self.telegram.send(
            self.organiser, self.group, f"/result {match.code} {winner} {figures} 记分表"
        )
        await self.posted_after(after, lambda m: f"组织者裁定比赛 {match.code}" in m.content)
        await self.official(after, winner)

    async def on_sheet(
        self,
        match: ContestMatch,
        winner: int,
        *,
        losers_deals: int = 0,
        recorder: User | None = None,
        leader: bool = False,
    ) -> BotMessage:
        """The table's recorder (a player of the winning pair unless named) opens the score sheet
        from the pairing message's 📝 button, enters the deals by its buttons — the losers win
        ``losers_deals`` deals 1·3 (two levels each), then the winners 双下 until the sheet says
        the match is decided — and ✅ submits: the group gets the official line."""
        contest = await self.contest()
        won, lost = await self.sides_at_table(match, winner)
        who = recorder or self.sides(contest, match)[match.pairs.index(winner)][0]
        deals = [f"{lost} 1·3"] * losers_deals + [f"{won} 双下"] * 12
        sheet = await self.enter_deals(match, who, deals, leader=leader)
        after = await self.newest_id()
        text, alert = await press(self.telegram, who, sheet, "✅ 提交")
        assert not alert, text
        await self.official(after, winner)
        done = (await self.contest()).match_by_code(match.code)
        assert done.winner == winner and done.result is not None and done.result.figures is not None
        return sheet

    async def sides_at_table(self, match: ContestMatch, winner: int) -> tuple[str, str]:
        """The winners' and the losers' seats at the table ("南北", "东西"), as the sheet names them."""
        contest = await self.contest()
        seats = seating(contest.seed, match, contest.round_rules(match.round).seat_assignment)
        return ("南北", "东西") if winner == seats.ns else ("东西", "南北")

    async def enter_deals(
        self, match: ContestMatch, who: User, deals: Sequence[str], *, leader: bool = False
    ) -> BotMessage:
        """``who`` opens the sheet and presses the ``deals`` in order, until the sheet offers ✅."""
        sheet = await self.open_sheet(match, who)
        if leader:  # docs/rules.md §4.9's first-leader draw, from the published seed
            await press(self.telegram, who, sheet, "🎴 首出")
            sheet = await self.sheet(who, match, 0, "🎴 第1副")
        for version, label in enumerate(deals, start=1):
            if any(b.text == "✅ 提交" for row in sheet.buttons for b in row):
                break
            text, alert = await press(self.telegram, who, sheet, label)
            assert not alert, text
            sheet = await self.sheet(who, match, version)
        return sheet

    async def open_sheet(self, match: ContestMatch, who: User) -> BotMessage:
        """``📝 N桌记分`` on the round's pairing message: the sheet arrives in ``who``'s private chat."""
        pairing = await self.pairing_message(match.round)
        text, alert = await press(self.telegram, who, pairing, f"📝 {match.table}桌记分")
        assert not alert and "私聊" in text, text
        return await self.sheet(who, match, 0)

    async def sheet(self, who: User, match: ContestMatch, version: int, shows: str = "") -> BotMessage:
        """The match's sheet in ``who``'s private chat once its buttons carry ``version``."""

        def fits(message: BotMessage) -> bool:
            datas = [b.data or "" for row in message.buttons for b in row]
            fresh = any(f"{match.code}.{version}." in data for data in datas)
            return (
                "📝" in message.content
                and match.code in message.content
                and fresh
                and shows in message.content
            )

        return await self.telegram.wait_message(Chat.private(who), fits, timeout=30)

    async def played(self, match: ContestMatch) -> int:
        """The match's four people open its table in a club group of their own (a new one
        for each match: a table's end is read from its group) and play it out; the result
        reports itself in the contest's group. Returns the winner."""
        self.clubs += 1
        club = Chat.group(self.club.id - self.clubs, f"球友群{self.clubs}")
        contest = await self.contest()
        sides = self.sides(contest, match)
        after = await self.newest_id()
        await self.telegram.send(sides[0][0], club, f"/newgame match={match.code}")
        table = Table(self.telegram, club, self.db_path)
        lobby = await table.lobby()
        assert match.code in lobby.content and contest.name in lobby.content
        await play_table(self.telegram, table, sides)
        finished = (await self.contest()).match_by_code(match.code)
        assert finished.winner is not None and finished.result is not None
        assert finished.result.figures is not None  # the engine's own 级差 and round score
        await self.official(after, finished.winner)
        return finished.winner

    async def round_complete(self, number: int) -> None:
        await wait_text(self.telegram, self.group, f"第 {number} 轮结束")

    async def close(self) -> BotMessage:
        """/contest close announces the final places once; a second close posts nothing more."""
        await self.telegram.send(self.organiser, self.group, "/contest close")
        places = await wait_text(self.telegram, self.group, "比赛结束。最终名次")
        before = await self.newest_id()
        await self.telegram.send(self.organiser, self.group, "/contest close")
        await self.telegram.wait_idle()
        await self.posted_after(before, lambda m: True)  # the second close's answer
        shown = await self.telegram.messages(self.group)
        assert sum("比赛结束。最终名次" in m.content for m in shown) == 1
        return places

    async def standings(self) -> str:
        """/standings: the picture, and the text (its caption, or a message of its own when long)."""
        after = await self.newest_id()
        await self.telegram.send(self.organiser, self.group, "/standings")
        picture = await self.posted_after(after, lambda m: m.photo_id is not None)
        assert (await self.telegram.photo(picture)).startswith(b"\x89PNG")
        text = await self.posted_after(after, lambda m: "积分榜" in m.content)
        return text.content

    async def exported_standings(self) -> dict[int, dict[str, str]]:
        """/contest export: the CSV's standings section, group number → column → cell."""
        after = await self.newest_id()
        await self.telegram.send(self.organiser, self.group, "/contest export")
        exported = await self.posted_after(after, lambda m: m.document is not None)
        rows = list(csv.reader(io.StringIO((await self.telegram.document(exported)).decode("utf-8-sig"))))
        start = rows.index(["# standings"])
        header, table = rows[start + 1], {}
        for row in rows[start + 2 :]:
            if not row or row[0].startswith("#"):
                break
            table[int(row[0])] = dict(zip(header, row, strict=True))
        return table


def assert_valid_round(contest: Contest, number: int) -> None:
    """Nobody twice in a round; every pair in a match or a bye at most once."""
    played = contest.rounds[number - 1]
    seen = Counter(n for m in played.matches for n in m.pairs) + Counter(played.byes)
    assert all(count == 1 for count in seen.values()), (number, seen)


def signed(value: Fraction) -> str:
    """级差 as the standings write it: +6, −7 (a minus sign), 0."""
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "0"


def place_lines(message: BotMessage) -> list[str]:
    return [line for line in message.content.splitlines() if line[:1].isdigit()]


def has_place(lines: list[str], place: int, number: int, prize: str) -> bool:
    return any(x.startswith(f"{place}. {number}组") and x.endswith(prize) for x in lines)


# ---------------------------------------------------------------- 精方 knockout with repechage

JINGFANG_GROUP = Chat.group(-7001, "精方药业群")
JINGFANG_CLUB = Chat.group(-7002, "精方球友群")
JINGFANG_ORGANISER = User(7000, "Jing", username="jing7")
JINGFANG_PAIRS = people(7001, "J", 11)


async def test_jingfang_knockout_with_repechage_to_four_prizes(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "jingfang.db"
    cup = Organised(telegram, JINGFANG_GROUP, JINGFANG_CLUB, JINGFANG_ORGANISER, JINGFANG_PAIRS, db_path)
    clock = Clock()
    async with running_bot(emulator, token, db_path, clock, match=twelve_levels, group_limit=GROUP_LIMIT):
        await cup.open("/contest new 精方杯 format=jingfang")
        first = await cup.pairing_message(1)
        contest = await cup.contest()
        assert len(contest.pairs) == 11 and contest.seed.hex in first.content

        # qualifying: five matches and a bye; the bye does not advance (docs/rules.md §4.3)
        qualifying = contest.rounds[0]
        assert qualifying.stage == "qualifying" and len(qualifying.matches) == 5
        (bye,) = qualifying.byes
        assert f"{bye}组" in first.content and "轮空" in first.content
        assert_valid_round(contest, 1)
        bot_match, *rest = qualifying.matches
        await cup.played(bot_match)
        for match, enter in zip(rest, (cup.typed, cup.recorded, cup.typed, cup.recorded), strict=True):
            if enter == cup.typed:
                await cup.typed(match, match.pairs[0])
            else:
                await cup.recorded(match, match.pairs[1])
        await cup.round_complete(1)
        contest = await cup.contest()
        winners = {m.winner for m in contest.rounds[0].matches}
        losers = {m.opponent(m.winner) for m in contest.rounds[0].matches if m.winner is not None}

        # repechage (附加赛): the five losers and the bye play for the three places left
        contest = await cup.next_round(2, f"at={clock.typed(18, '14:00')} place=精方药业会议室")
        repechage = contest.rounds[1]
        assert repechage.stage == "repechage" and len(repechage.matches) == 3
        assert {n for m in repechage.matches for n in m.pairs} == losers | {bye}
        assert set(repechage.byes) == winners  # the qualified wait, shown as byes
        assert_valid_round(contest, 2)
        pairing = await cup.pairing_message(2)  # at the tables: seats by drawn card (docs/rules.md §4.3)
        assert "小牌坐南北" in pairing.content
        for match in repechage.matches:
            seats = seating(contest.seed, match, SeatAssignment.CARD_DRAW)
            ns_card, ew_card = seats.cards[-2:] if seats.ns == match.pairs[0] else seats.cards[:-3:-1]
            line = next(x for x in pairing.content.splitlines() if x.strip().startswith(f"南北 {seats.ns}组"))
            assert ns_card < ew_card and line.endswith(RANKS[ns_card - 1]) and "🃏" in line, (line, seats)
        first_table, second_table, third_table = repechage.matches
        await cup.on_sheet(first_table, first_table.pairs[0], losers_deals=2)  # a player's sheet
        await cup.on_sheet(second_table, second_table.pairs[1], recorder=JINGFANG_ORGANISER)
        await cup.typed(third_table, third_table.pairs[0])
        await cup.round_complete(2)

        # 复赛: the five qualified and the three repechage winners, down to four
        contest = await cup.next_round(3, f"at={clock.typed(18, '16:00')} place=精方药业会议室")
        quarter = contest.rounds[2]
        rescued = {m.winner for m in contest.rounds[1].matches}
        assert quarter.stage == "quarter" and len(quarter.matches) == 4 and not quarter.byes
        assert {n for m in quarter.matches for n in m.pairs} == winners | rescued
        assert_valid_round(contest, 3)
        for match, by_sheet in zip(quarter.matches, (True, False, True, False), strict=True):
            if by_sheet:
                await cup.on_sheet(match, match.pairs[1], losers_deals=3)
            else:
                await cup.typed(match, match.pairs[1])
        await cup.round_complete(3)

        # semi-finals and final best of three: one semi-final through the bot (a deal a game), the
        # other and the final on the score sheet
        contest = await cup.next_round(4, f"at={clock.typed(19, '14:00')} place=精方药业会议室")
        semi = contest.rounds[3]
        assert semi.stage == "semi" and len(semi.matches) == 2
        assert contest.round_rules(4).match_format is MatchFormat.BEST_OF
        assert contest.round_rules(3).match_format is MatchFormat.LEVEL_RACE
        bot_semi, sheet_semi = semi.matches
        await cup.played(bot_semi)  # the stage's rules reach the bot's table: best of three
        result = (await cup.contest()).match_by_code(bot_semi.code).result
        figures = result.figures if result is not None else None
        assert figures is not None and figures.reason == "best_of" and max(figures.games_won) == 2
        sheet = await cup.on_sheet(sheet_semi, sheet_semi.pairs[0])  # two games of four 双下
        assert sheet.content.count("双下") >= 8, sheet.content
        await cup.round_complete(4)
        contest = await cup.next_round(5, f"at={clock.typed(19, '16:00')} place=精方药业会议室")
        semi, final_round = contest.rounds[3:]
        assert final_round.stage == "final"
        final = next(m for m in final_round.matches if m.kind is MatchKind.MAIN)
        third = next(m for m in final_round.matches if m.kind is MatchKind.THIRD_PLACE)
        semi_losers = {m.opponent(m.winner) for m in semi.matches if m.winner is not None}
        assert set(final.pairs) == {m.winner for m in semi.matches} and set(third.pairs) == semi_losers
        await cup.on_sheet(final, final.pairs[1], losers_deals=1, recorder=JINGFANG_ORGANISER)
        await cup.typed(third, third.pairs[0])
        await wait_text(telegram, JINGFANG_GROUP, "比赛已决出名次")

        await telegram.send(JINGFANG_ORGANISER, JINGFANG_GROUP, "/bracket")
        bracket = await telegram.wait_message(
            JINGFANG_GROUP, lambda m: m.photo_id is not None and "精方杯" in m.content, timeout=70
        )
        assert (await telegram.photo(bracket)).startswith(b"\x89PNG")
        contest = await cup.contest()
        reached = {n: "决赛" for n in final.pairs} | {n: "三四名决赛" for n in third.pairs}
        standings = (await cup.standings()).splitlines()
        out_in = {3: ("复赛", 5), 2: ("附加赛", 9)}  # round → the stage its losers reached, their place
        for number, (stage, place) in out_in.items():
            for match in contest.rounds[number - 1].matches:
                assert match.winner is not None
                reached[match.opponent(match.winner)] = stage
                line = next(x for x in standings if f" {match.opponent(match.winner)}组 " in f" {x}")
                assert line.startswith(f"{place}. ") and f" — {stage} · " in line, line
        for number, stage in reached.items():
            line = next(x for x in standings if f" {number}组 " in f" {x}")
            assert f" — {stage} · " in line, line
        exported = await cup.exported_standings()  # the CSV: the stage reached, places, prizes
        stages = {"决赛": "final", "三四名决赛": "third_place", "复赛": "quarter", "附加赛": "repechage"}
        prizes = {
            final.pairs[1]: "冠军",
            final.pairs[0]: "亚军",
            third.pairs[0]: "季军",
            third.pairs[1]: "第四名",
        }
        for number, stage in reached.items():
            row = exported[number]
            assert (row["reached"], row["prize"]) == (stages[stage], prizes.get(number, "")), row
        assert sorted(int(row["place"]) for row in exported.values()) == [1, 2, 3, 4, 5, 5, 5, 5, 9, 9, 9]
        places = place_lines(await cup.close())
        for place, number, prize in (
            (1, final.pairs[1], "冠军"),
            (2, final.pairs[0], "亚军"),
            (3, third.pairs[0], "季军"),
            (4, third.pairs[1], "第四名"),
        ):
            assert has_place(places, place, number, prize), places


# ---------------------------------------------------------------- 积分编排 Swiss

SWISS_GROUP = Chat.group(-7101, "工会掼蛋群")
SWISS_CLUB = Chat.group(-7102, "工会球友群")
SWISS_ORGANISER = User(7100, "Su", username="su71")
SWISS_PAIRS = people(7101, "S", 6)


def swiss_places(contest: Contest) -> dict[int, tuple[int, Fraction, int]]:
    """积分, Σ 级差 and 对手分 of every pair, summed from the stored results (2/0, docs/rules.md §4.6)."""
    points: Counter[int] = Counter()
    difference: dict[int, Fraction] = {p.number: Fraction(0) for p in contest.pairs}
    opponents: dict[int, list[int]] = {p.number: [] for p in contest.pairs}
    for played in contest.rounds:
        for match in played.matches:
            assert match.winner is not None and match.result is not None
            loser = match.opponent(match.winner)
            points[match.winner] += 2
            figures = match.result.figures
            step = figures.level_difference if figures is not None else Fraction(0)
            difference[match.winner] += step
            difference[loser] -= step
            opponents[match.winner].append(loser)
            opponents[loser].append(match.winner)
    return {n: (points[n], difference[n], sum(points[o] for o in opponents[n])) for n in difference}


def top_down(order: Sequence[int], met: set[frozenset[int]]) -> list[frozenset[int]] | None:
    """docs/rules.md §4.6's pairing, written out again: each pair in score order meets the highest pair below
    it that it has not met, backtracking when a later pair would be left without an opponent."""
    if not order:
        return []
    first, rest = order[0], list(order[1:])
    for index, other in enumerate(rest):
        if frozenset((first, other)) not in met:
            tail = top_down(rest[:index] + rest[index + 1 :], met)
            if tail is not None:
                return [frozenset((first, other)), *tail]
    return None


def assert_paired_by_score(contest: Contest, number: int) -> None:
    """Round ``number`` pairs the field in score order (积分, 级差, 对手分 after the rounds before
    it) without a rematch; checked where those keys leave no tie (a tie is ordered by lot)."""
    before = replace(contest, rounds=contest.rounds[: number - 1])
    keys = swiss_places(before)
    order = sorted(keys, key=lambda n: keys[n], reverse=True)
    met = {frozenset(m.pairs) for r in before.rounds for m in r.matches}
    drawn = [frozenset(m.pairs) for m in contest.rounds[number - 1].matches]
    assert not set(drawn) & met, (number, drawn)
    if len(set(keys.values())) == len(keys):
        assert drawn == top_down(order, met), (number, keys, drawn)


async def test_swiss_three_rounds_by_score_without_a_rematch(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "swiss.db"
    cup = Organised(telegram, SWISS_GROUP, SWISS_CLUB, SWISS_ORGANISER, SWISS_PAIRS, db_path)
    clock = Clock()
    async with running_bot(emulator, token, db_path, clock, match=twelve_levels, group_limit=GROUP_LIMIT):
        await cup.open("/contest new 工会杯 format=swiss")
        await cup.pairing_message(1)
        contest = await cup.contest()
        assert contest.settings.match_preset == "jiangsu-union" and len(contest.rounds[0].matches) == 3

        # round 1 (drawn for the bot, no score sheets): one match through the bot, one recorded at
        # the table and given by the organiser with its figures, one typed
        bot_match, recorded, typed = contest.rounds[0].matches
        await cup.played(bot_match)
        await cup.recorded(recorded, recorded.pairs[0], lost_at="5")
        await cup.typed(typed, typed.pairs[1])
        await cup.round_complete(1)

        # round 2 pairs by score: two winners meet, no rematch
        contest = await cup.next_round(2, f"at={clock.typed(4, '09:00')} place=工会活动室")
        winners = {m.winner for m in contest.rounds[0].matches}
        assert any(set(m.pairs) <= winners for m in contest.rounds[1].matches)
        first, second, third = contest.rounds[1].matches
        await cup.on_sheet(first, first.pairs[0], losers_deals=5)  # a player's sheet: 级差 3
        await cup.on_sheet(second, second.pairs[1], recorder=SWISS_ORGANISER)  # 级差 13
        await cup.typed(third, third.pairs[0])
        await cup.round_complete(2)

        # round 3: the clock decided one table (the leader at time wins, 001-E's copy of 003-A)
        contest = await cup.next_round(3, f"at={clock.typed(4, '10:30')} place=工会活动室")
        first, second, third = contest.rounds[2].matches
        await cup.recorded(first, first.pairs[0], "K:10")
        await cup.on_sheet(second, second.pairs[1], losers_deals=3, leader=True)
        await cup.typed(third, third.pairs[1])
        await cup.round_complete(3)
        await wait_text(telegram, SWISS_GROUP, "比赛已决出名次")  # three rounds: decided

        contest = await cup.contest()
        met = [frozenset(m.pairs) for r in contest.rounds for m in r.matches]
        assert len(met) == len(set(met)) == 9  # no rematch (docs/rules.md §4.6)
        for number in (1, 2, 3):
            assert_valid_round(contest, number)
        assert_paired_by_score(contest, 2)
        assert_paired_by_score(contest, 3)
        keys = swiss_places(contest)
        assert sum(k[1] for k in keys.values()) == 0  # 级差 adds up to zero
        standings = (await cup.standings()).splitlines()
        ranked = sorted(keys, key=lambda n: keys[n], reverse=True)
        assert len({keys[n] for n in ranked}) == 6, keys  # these results leave no tie
        for place, number in enumerate(ranked, start=1):  # the Swiss columns, in the places' order
            points, difference, opponents = keys[number]
            line = next(x for x in standings if x.startswith(f"{place}. {number}组"))
            assert f"积分 {points} · 级差 {signed(difference)} · 对手分 {opponents}" in line, line
        exported = await cup.exported_standings()  # the CSV: the same Swiss columns, the places
        for place, number in enumerate(ranked, start=1):
            points, difference, opponents = keys[number]
            row = exported[number]
            figures = (row["match_points"], row["level_difference"], row["opponents_score"], row["place"])
            assert figures == (str(points), str(difference), str(opponents), str(place)), row
        assert [exported[n]["prize"] for n in ranked] == ["冠军", "亚军", "季军", "", "", ""]
        places = place_lines(await cup.close())
        for place, number, prize in zip((1, 2, 3), ranked, ("冠军", "亚军", "季军"), strict=False):
            assert has_place(places, place, number, prize), (places, keys)


# ---------------------------------------------------------------- grouped movement, total score

MOVEMENT_GROUP = Chat.group(-7201, "建大掼蛋群")
MOVEMENT_CLUB = Chat.group(-7202, "建大球友群")
MOVEMENT_ORGANISER = User(7200, "Mo", username="mo72")
MOVEMENT_PAIRS = people(7201, "M", 8)


def movement_positions(contest: Contest) -> list[tuple[int, ...]]:
    """Each group's pairs by position 1–4, read from round 1 (its tables play 1–2 and 3–4)."""
    first = contest.rounds[0].matches
    return [(*first[t].pairs, *first[t + 1].pairs) for t in range(0, len(first), 2)]


def assert_movement_table(contest: Contest) -> None:
    """Every round follows the movement table (移位表), the pair listed first sitting NS; each
    pair meets the other three of its group once."""
    groups = movement_positions(contest)
    for played in contest.rounds:
        for g, group in enumerate(groups):
            tables = played.matches[2 * g : 2 * g + 2]
            expected = [(group[ns - 1], group[ew - 1]) for ns, ew in MOVEMENT_FOUR[played.number - 1]]
            assert [m.pairs for m in tables] == expected, (played.number, group)
            assert [m.table for m in tables] == [2 * g + 1, 2 * g + 2]
    for group in groups:
        met = Counter(frozenset(m.pairs) for r in contest.rounds for m in r.matches if m.pairs[0] in group)
        assert len(met) == 6 and set(met.values()) == {1}, met


def swapped(scores: tuple[int, int]) -> tuple[int, int]:
    """Round scores for a match whose winners are listed second."""
    return (scores[1], scores[0])


def passed_a_scores(lost_at: int) -> tuple[int, int]:
    """001-B's round score when the winner passed A and the losers reached ``lost_at``: 100 +
    级差 (at most 15) for the winner, the levels climbed (at most 12) for the losers."""
    climbed = lost_at - 2
    return (100 + min(15, 13 - climbed), min(12, climbed))


async def test_movement_three_rounds_total_score(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "movement.db"
    clock = Clock()
    cup = Organised(telegram, MOVEMENT_GROUP, MOVEMENT_CLUB, MOVEMENT_ORGANISER, MOVEMENT_PAIRS, db_path)
    expected: dict[str, tuple[int, int]] = {}  # match code → round scores worked out by hand
    async with running_bot(
        emulator, token, db_path, clock, match=twelve_levels, group_limit=GROUP_LIMIT
    ) as app:
        await cup.open("/contest new 移位杯 format=movement")
        await cup.pairing_message(1)
        contest = await cup.contest()
        assert len(contest.rounds[0].matches) == 4 and not contest.rounds[0].byes

        # round 1 (drawn for the bot, no score sheets): through the bot, and at tables whose
        # recorders' final levels the organiser gives with /result
        bot_match, *recorded = contest.rounds[0].matches
        await cup.played(bot_match)
        for match, (winner, lost_at) in zip(recorded, ((0, "10"), (1, "3"), (0, "Q")), strict=True):
            await cup.recorded(match, match.pairs[winner], lost_at=lost_at)
            scores = passed_a_scores(12 if lost_at == "Q" else int(lost_at))
            expected[match.code] = scores if winner == 0 else swapped(scores)
        await cup.round_complete(1)

        # round 2 at the club's tables: seats by the movement table, a late pair, the clock
        contest = await cup.next_round(2, f"at={clock.typed(11, '09:00')} place=建大活动中心")
        pairing = await cup.pairing_message(2)
        assert "排前坐南北" in pairing.content
        for match in contest.rounds[1].matches:
            ns, ew = (contest.pair(n) for n in match.pairs)
            assert f"南北 {ns.number}组" in pairing.content and f"东西 {ew.number}组" in pairing.content
        on_time, late, *timed = contest.rounds[1].matches
        await telegram.send(MOVEMENT_ORGANISER, MOVEMENT_GROUP, f"/late {on_time.code} {on_time.pairs[0]} 5")
        await wait_text(telegram, MOVEMENT_GROUP, f"在对局 {on_time.code} 迟到 5 分钟，未满 10 分钟")
        after = await cup.newest_id()
        await telegram.send(MOVEMENT_ORGANISER, MOVEMENT_GROUP, f"/late {late.code} {late.pairs[1]} 12")
        walkover = await cup.posted_after(after, lambda m: f"组织者裁定比赛 {late.code}" in m.content)
        assert "迟到 12 分钟" in walkover.content
        await cup.official(after, late.pairs[0])
        expected[late.code] = (113, 0)  # a walkover: past A against 2 (级差 12 → 100 + 13 capped at 15)

        await telegram.send(MOVEMENT_ORGANISER, MOVEMENT_GROUP, "/round start")
        started = await wait_text(telegram, MOVEMENT_GROUP, "开始计时")
        clocked = "、".join(str(m.table) for m in (on_time, *timed))  # not the walkover's table
        assert f"{clocked}号桌开始计时，60 分钟" in started.content, started.content
        await cup.on_sheet(on_time, on_time.pairs[1], losers_deals=4, leader=True)  # losers at 10
        expected[on_time.code] = swapped(passed_a_scores(10))
        first_timed, last_timed = timed
        await cup.on_sheet(first_timed, first_timed.pairs[0], recorder=MOVEMENT_ORGANISER)  # at 2
        expected[first_timed.code] = passed_a_scores(2)
        # the last table: the leaders at K, the others at 10, when the clock stops the deal
        leaders, others = await cup.sides_at_table(last_timed, last_timed.pairs[0])
        recorder = cup.sides(contest, last_timed)[1][0]
        deals = [f"{others} 1·3"] * 4 + [f"{leaders} 双下"] * 3 + [f"{leaders} 1·3"]
        await cup.enter_deals(last_timed, recorder, deals)
        contest = await cup.contest()
        (running,) = {c.ends_at for c in contest.rounds[1].clocks}
        clock.now = running  # the test's clock reaches the end; the armed job runs now
        ends = [j for j in app.job_queue.get_jobs_by_name("contest:1:clock") if j.data[-1] == "time_up"]
        assert len(ends) == 1
        await ends[0].run(app)
        time_up = await wait_text(telegram, MOVEMENT_GROUP, "时间到：第 2 轮")
        assert (
            f"{last_timed.table}号桌" in time_up.content and f"{first_timed.table}号桌" not in time_up.content
        )
        # the clock's end is entered on the open sheet: nobody passed A, so nobody won (001-B, A17)
        # and each pair scores its levels; submitted, the group gets the details, no 掼蛋N组 line
        stopped = await cup.sheet(recorder, last_timed, len(deals) + 1, "无胜方")
        after = await cup.newest_id()
        text, alert = await press(telegram, recorder, stopped, "✅ 提交")
        assert not alert, text
        drawn = await cup.posted_after(
            after, lambda m: last_timed.code in m.content and "无胜方" in m.content
        )
        assert "级别 K : 10 · 级差 0 · 本轮得分 11 : 8" in drawn.content, drawn.content
        shown = await telegram.messages(MOVEMENT_GROUP)
        assert not any(m.message_id > after and m.content.startswith("掼蛋") for m in shown)
        expected[last_timed.code] = (11, 8)  # K is 11 levels climbed, 10 is 8; no 100 for anybody
        await cup.round_complete(2)

        # round 3: a player asks for leave before the match (请假: a walkover, the pair is out);
        # the other tables on their score sheets, by a player or the organiser
        contest = await cup.next_round(3, f"at={clock.typed(11, '10:30')} place=建大活动中心")
        *sheets, leave = contest.rounds[2].matches
        after = await cup.newest_id()
        await telegram.send(cup.sides(contest, leave)[0][1], MOVEMENT_GROUP, "/leave")
        await cup.posted_after(after, lambda m: f"{leave.pairs[0]}组请假，退出本次比赛" in m.content)
        await cup.official(after, leave.pairs[1])
        expected[leave.code] = (0, 113)
        for match, losers_deals in zip(sheets, (4, 2, 3), strict=True):
            by = MOVEMENT_ORGANISER if losers_deals % 2 else None
            await cup.on_sheet(match, match.pairs[1], losers_deals=losers_deals, recorder=by)
            expected[match.code] = swapped(passed_a_scores(2 + 2 * losers_deals))  # 1·3: two levels
        await cup.round_complete(3)
        await wait_text(telegram, MOVEMENT_GROUP, "比赛已决出名次")

        contest = await cup.contest()
        assert_movement_table(contest)
        totals: Counter[int] = Counter()
        difference: dict[int, Fraction] = {p.number: Fraction(0) for p in contest.pairs}
        wins: Counter[int] = Counter()
        by_round: dict[int, list[str]] = {p.number: [] for p in contest.pairs}
        for played in contest.rounds:
            for match in played.matches:
                assert match.status.is_settled and match.result is not None
                figures = match.result.figures
                assert figures is not None and (match.code in expected or match.code == bot_match.code)
                assert figures.round_score == expected.get(match.code, figures.round_score), match
                if match.winner is not None:
                    wins[match.winner] += 1
                for index, number in enumerate(match.pairs):
                    totals[number] += figures.round_score[index]
                    by_round[number].append(str(figures.round_score[index]))
                    won = number == match.winner
                    difference[number] += figures.level_difference if won else -figures.level_difference
        assert all(0 <= total <= 345 for total in totals.values())  # 001-B: 0 to 3 × 115
        # places: total score, then Σ 级差, then wins; pairs equal on all three share a place
        keys = {n: (totals[n], difference[n], wins[n]) for n in totals}
        place = {n: 1 + sum(other > keys[n] for other in keys.values()) for n in keys}
        assert sorted(place.values())[:3] == [1, 2, 3], keys  # no shared prize
        standings = (await cup.standings()).splitlines()
        for number in keys:
            line = next(x for x in standings if x.startswith(f"{place[number]}. {number}组"))
            columns = (
                f"总分 {totals[number]} · {'/'.join(by_round[number])} · 级差 {signed(difference[number])}"
            )
            assert columns in line and f"胜 {wins[number]}" in line, line
        exported = await cup.exported_standings()  # the CSV: total, each round's score, 级差, wins
        for number, row in exported.items():
            cells = [row["total_score"], *(row[f"round_{r}_score"] for r in (1, 2, 3))]
            cells += [row["level_difference"], row["won"], row["place"]]
            worked = [str(totals[number]), *by_round[number], str(difference[number]), str(wins[number])]
            assert cells == [*worked, str(place[number])], row
        places = place_lines(await cup.close())
        ranked = sorted(keys, key=lambda n: place[n])
        for number, prize in zip(ranked, ("冠军", "亚军", "季军"), strict=False):
            assert has_place(places, place[number], number, prize), (places, keys)
