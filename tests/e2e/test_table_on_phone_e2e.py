"""The private hand message as a phone app's table (issue 20), through the emulator.

Two people and two 标准 computer players; the people take turns with 提示 then 出牌 (demo.py's
``take_turn``) until the situation a test wants comes up, which the test recognises by
replaying the stored log (what the seat saw, and what the 标准 player would do).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiosqlite
import pytest

import demo
from app.table.counter import cards_out
from app.table.selection import can_beat
from app.table.texts import counter_line
from demo import take_turn
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from engine.actions import Action, Pass, Passed
from engine.match import Match, action_from_json, observe
from engine.observation import Observation
from engine.rules import Rules
from players.policies import seeded
from render.hand import render_hand
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    Table,
    answer_to,
    buttons_by_op,
    callback_op,
    cancel_autoplay,
    logged_count,
    running_bot,
    seat_flags,
    set_up,
    settled_hand,
)

NORMAL = seeded("normal")
SEED = 9
MAX_TURNS = 400


async def stored_log(db_path: Path) -> tuple[Rules, int, list[tuple[int | None, Action]]]:
    async with aiosqlite.connect(db_path) as db:
        async with db.execute("SELECT rules_json, seed FROM game_tables") as cursor:
            rules_json, seed = await cursor.fetchone()
        async with db.execute("SELECT seat, action_json FROM actions ORDER BY version") as cursor:
            history = [(seat, action_from_json(json.loads(text))) for seat, text in await cursor.fetchall()]
    return Rules.from_json(rules_json), int(seed), history


async def stored(db_path: Path) -> tuple[Match, Rules]:
    rules, seed, history = await stored_log(db_path)
    return Match.replay(rules, seed, history), rules


async def passes_on_nothing(db_path: Path, seats: tuple[int, ...]) -> int:
    """Passes by ``seats`` on a play nothing in the hand could beat (要不起)."""
    rules, seed, history = await stored_log(db_path)
    match, count = Match.new(rules, seed), 0
    for seat, action in history:
        if isinstance(action, Pass) and seat in seats:
            obs = observe(match, seat)
            count += obs.table_play is not None and not can_beat(obs.hand, obs.level, obs.table_play)
        match.apply(seat, action)
    return count


def to_beat(obs: Observation) -> bool:
    return obs.table_play is not None and obs.table_seat != obs.seat


def play_row(message: BotMessage) -> tuple[str, str | None]:
    """The play button (the row after the cards): its label and op."""
    for row in message.buttons:
        if len(row) == 1 and callback_op(row[0].data) in ("p", "x"):
            return row[0].text, callback_op(row[0].data)
    raise LookupError("no play button")


async def mover(telegram: Telegram) -> tuple[User, int, BotMessage]:
    """Whichever person's hand message says it is their turn (after the bot went quiet)."""
    while True:
        for user, seat in ((ALICE, 0), (BOB, 1)):
            hand = await settled_hand(telegram, user)
            if "轮到你" in hand.content:
                return user, seat, hand


async def passes_logged(db_path: Path, seat: int) -> int:
    match, _rules = await stored(db_path)
    return sum(isinstance(e, Passed) and e.seat == seat for e in match.events)


async def test_hint_suggests_the_ais_pass_and_a_pass_is_one_tap(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """1: when the 标准 player would let the table's play stand, 提示 says 不出 (a toast) and the
    play button becomes 不出 (2 taps). 2: when nothing beats, the play button already reads
    不出（要不起）: one tap, no alert."""
    table = Table(telegram, Chat.group(-4201, "手机桌"), tmp_path / "g.db")
    hinted = nothing_beats = False
    async with running_bot(emulator, token, table.db_path, seed=SEED):
        await set_up(telegram, table, [ALICE, BOB])
        for _turn in range(MAX_TURNS):
            if hinted and nothing_beats:
                break
            user, seat, hand = await mover(telegram)
            match, rules = await stored(table.db_path)
            obs = observe(match, seat)
            previous = obs.table_play if to_beat(obs) else None
            beatable = previous is not None and can_beat(obs.hand, obs.level, previous)
            if previous is not None and not beatable and not nothing_beats:
                label, op = play_row(hand)
                assert (label, op) == ("不出（要不起）", "x")
                before = await passes_logged(table.db_path, seat)
                assert await answer_to(telegram, user, hand, buttons_by_op(hand)["x"][0]) == (
                    "已不出",
                    False,
                )  # a toast: the look it leaves is a glance
                assert await passes_logged(table.db_path, seat) == before + 1
                nothing_beats = True
                continue
            if beatable and isinstance(NORMAL(obs, rules), Pass) and not hinted:
                text, alert = await answer_to(telegram, user, hand, buttons_by_op(hand)["h"][0])
                assert not alert and "不出" in text, text
                shown = await settled_hand(telegram, user)
                assert play_row(shown) == ("不出（提示）", "x")
                assert not any(b.text.startswith("✓") for row in shown.buttons for b in row)
                before = await passes_logged(table.db_path, seat)
                await answer_to(telegram, user, shown, buttons_by_op(shown)["x"][0])
                assert await passes_logged(table.db_path, seat) == before + 1
                hinted = True
                continue
            assert await take_turn(telegram, user)
        assert hinted and nothing_beats


async def test_autopass_passes_when_nothing_beats(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """2: with /autopass a person never gets a turn that nothing in their hand can beat; the
    bot passes for them (and the choice is kept: /autopass again turns it off)."""
    table = Table(telegram, Chat.group(-4202, "自动不出桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SEED):
        for user in (ALICE, BOB):
            await telegram.send(user, Chat.private(user), "/start")
            await telegram.send(user, Chat.private(user), "/autopass")
            await telegram.wait_message(Chat.private(user), lambda m: m.content.startswith("自动不出：开"))
        await set_up(telegram, table, [ALICE, BOB])
        auto_passes = 0
        for _turn in range(MAX_TURNS):
            user, seat, _hand = await mover(telegram)
            match, _rules = await stored(table.db_path)
            obs = observe(match, seat)
            assert not (to_beat(obs) and obs.table_play and not can_beat(obs.hand, obs.level, obs.table_play))
            auto_passes = await passes_on_nothing(table.db_path, (0, 1))
            if auto_passes:
                break
            assert await take_turn(telegram, user)
        assert auto_passes
        await telegram.send(ALICE, Chat.private(ALICE), "/autopass")
        await telegram.wait_message(Chat.private(ALICE), lambda m: m.content.startswith("自动不出：关"))


async def test_private_hand_shows_the_table_and_warns_before_the_clock(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """3: the private caption shows every other seat (name, count as 报牌 shows it, partner)
    and the turn clock; one edit warns before the clock runs out, then the bot acts."""
    table = Table(telegram, Chat.group(-4203, "时钟桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SEED):
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, "/newgame wechat-6-deals points_deals=2 turn_seconds=6")
        await table.lobby()
        await table.join(ALICE, 0)
        await table.join(BOB, 1)
        for _ in range(2):
            await table.add_ai(ALICE)
        await table.start(ALICE)
        bob = asyncio.create_task(table.play(BOB))
        try:
            chat = Chat.private(ALICE)
            turn = await telegram.wait_message(chat, lambda m: "轮到你" in m.content, timeout=60)
            assert "🂠 西 Bob" in turn.content and "南 " in turn.content and "（对家）" in turn.content
            assert "张" in turn.content.split("🂠", 1)[1].split("\n")[0]
            assert "⏳ 限时 6 秒" in turn.content and "⏰" not in turn.content
            warned = await telegram.wait_message(chat, lambda m: "⏰" in m.content, timeout=10)
            assert "还剩 2 秒" in warned.content and "超时由机器人代你出牌" in warned.content
            assert warned.edit_count == turn.edit_count + 1  # one edit, not a countdown
            await telegram.wait_message(
                chat, lambda m: "时间到" in m.content or "超时" in m.content, timeout=10
            )
        finally:
            table.over.set()
            await asyncio.gather(bob, return_exceptions=True)


async def test_the_caption_says_what_is_selected_without_a_new_picture(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """9: two taps on a face held twice select a pair; the caption says 已选：♠9 ♠9 → 对子 9
    and the picture stays the same (a caption edit, no redraw)."""
    table = Table(telegram, Chat.group(-4204, "已选桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=2):  # seed 2: Alice (north) leads
        await set_up(telegram, table, [ALICE, BOB])
        chat = Chat.private(ALICE)
        hand = await telegram.wait_message(chat, lambda m: "轮到你" in m.content and bool(m.buttons))
        button = next(b for row in hand.buttons for b in row if b.text.endswith("²"))
        face = button.text.removesuffix("²")
        for count in (1, 2):
            current = await settled_hand(telegram, ALICE)
            data = next(b.data for row in current.buttons for b in row if b.text.lstrip("✓").startswith(face))
            assert data is not None
            assert await answer_to(telegram, ALICE, current, data) == ("", False)
            shown = await telegram.wait_message(
                chat, lambda m, n=count: f"✓{face}{'¹²'[n - 1]}" in str(m.raw)
            )
        rank = face[1:] if face[0] in "♠♥♣♦" else face
        assert f"已选：{face} {face} → 对子 {rank}" in shown.content, shown.content
        assert shown.photo_id == hand.photo_id


async def test_autoplay_on_request_and_back(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """4: 🤖托管 hands the seat to the bot at once (it plays while the player is away), and
    取消托管 takes it back."""
    table = Table(telegram, Chat.group(-4205, "托管桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=2):  # seed 2: Alice (north) leads
        await set_up(telegram, table, [ALICE, BOB])
        chat = Chat.private(ALICE)
        hand = await telegram.wait_message(chat, lambda m: "轮到你" in m.content and bool(m.buttons))
        before = await logged_count(table.db_path)
        text, alert = await answer_to(telegram, ALICE, hand, buttons_by_op(hand)["o"][0])
        assert (text, alert) == ("已托管", False)
        away = await telegram.wait_message(chat, lambda m: "已托管：机器人替你出牌" in m.content)
        assert "a" in buttons_by_op(away) and "o" not in buttons_by_op(away)
        assert await seat_flags(table.db_path, 0) == (1, 0)
        assert await logged_count(table.db_path) > before  # the bot played Alice's lead
        await wait_for(lambda: cancel_autoplay(telegram, ALICE), timeout=20, what="取消托管 to be accepted")
        assert await seat_flags(table.db_path, 0) == (0, 0)
        back = await settled_hand(telegram, ALICE)
        assert "o" in buttons_by_op(back)


async def test_card_counter_is_a_table_setting(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """5: a contest preset has no 记牌器 unless the organiser turns it on (card_counter=on); the
    counter in the private caption matches the public history and the seat's own hand."""
    table = Table(telegram, Chat.group(-4206, "记牌桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=2):  # seed 2: Alice (north) leads
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, "/newgame wechat-6-deals points_deals=2 card_counter=on")
        await table.lobby()
        await table.join(ALICE, 0)
        await table.join(BOB, 1)
        for _ in range(2):
            await table.add_ai(ALICE)
        await table.start(ALICE)
        lead = await telegram.wait_message(Chat.private(ALICE), lambda m: "轮到你" in m.content)
        assert await take_turn(telegram, ALICE)
        bob = await telegram.wait_message(Chat.private(BOB), lambda m: "轮到你" in m.content)
        match, _rules = await stored(table.db_path)
        expected = counter_line(cards_out(observe(match, 1)), "zh")
        assert expected in bob.content, bob.content
        assert "🧮 记牌器：" in lead.content
    plain = Table(telegram, Chat.group(-4207, "比赛桌"), tmp_path / "p.db")
    async with running_bot(emulator, token, plain.db_path, seed=2):
        await set_up(telegram, plain, [ALICE, BOB])
        hand = await telegram.wait_message(Chat.private(ALICE), lambda m: "轮到你" in m.content)
        assert "记牌器" not in hand.content


async def seat_names(db_path: Path) -> list[str]:
    async with aiosqlite.connect(db_path) as db, db.execute("SELECT seat, name FROM seats") as cursor:
        names = {int(seat): str(name) for seat, name in await cursor.fetchall()}
    return [names.get(seat, "") for seat in range(4)]


async def test_arrange_is_kept_and_groups_the_bombs(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """6: /arrange (理牌), chosen before the match, sets the bombs apart in the hand picture;
    sent again mid-match, the picture goes back to strongest first at once."""
    table = Table(telegram, Chat.group(-4208, "理牌桌"), tmp_path / "g.db")
    chat = Chat.private(ALICE)
    async with running_bot(emulator, token, table.db_path, seed=2):  # Alice's hand holds a bomb
        await telegram.send(ALICE, chat, "/start")
        await telegram.send(ALICE, chat, "/arrange")
        await telegram.wait_message(chat, lambda m: m.content.startswith("理牌：炸弹和同花顺分开放"))
        await set_up(telegram, table, [ALICE, BOB])
        hand = await telegram.wait_message(chat, lambda m: "轮到你" in m.content and bool(m.photo_id))
        match, _rules = await stored(table.db_path)
        obs, names = observe(match, 0), await seat_names(table.db_path)
        grouped = render_hand(obs, locale="zh", names=names, group=True)
        assert grouped != render_hand(obs, locale="zh", names=names)
        assert await telegram.photo(hand) == grouped
        await telegram.send(ALICE, chat, "/arrange")
        await telegram.wait_message(chat, lambda m: m.content.startswith("理牌：从大到小"))
        plain = await telegram.wait_message(chat, lambda m: bool(m.photo_id) and m.photo_id != hand.photo_id)
        assert await telegram.photo(plain) == render_hand(obs, locale="zh", names=names)


async def test_the_lobby_writes_chinese_punctuation(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """10: full-width punctuation in Chinese text: 北：张老师 beside 西：入座, 南北：北 张老师、南 —."""
    table = Table(telegram, Chat.group(-4209, "标点桌"), tmp_path / "g.db")
    teacher = User(2009, "张老师")
    async with running_bot(emulator, token, table.db_path, seed=2):
        await telegram.send(teacher, table.group, "/newgame")
        await table.lobby()
        await table.join(teacher, 0)
        lobby = await table.lobby()
        labels = [button.text for row in lobby.buttons for button in row]
        assert labels[:2] == ["北：张老师", "西：入座"]
        assert "南北：北 张老师、南 —" in lobby.content and "东西：西 —、东 —" in lobby.content
        assert not any(": " in label or ", " in label for label in labels)


async def test_a_new_player_joins_in_two_taps(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """7: a player who never opened the private chat taps a seat: no alert, the answer opens
    t.me/<bot>?start=… at once, and Start there seats them (seat → Start, then back)."""
    table = Table(telegram, Chat.group(-4210, "入座桌"), tmp_path / "g.db")
    newcomer = User(2010, "小王")
    async with running_bot(emulator, token, table.db_path, seed=2):
        await telegram.send(newcomer, table.group, "/newgame")
        lobby = await table.lobby()
        answer = await telegram.wait_answer(
            await telegram.press(newcomer, lobby, buttons_by_op(lobby)["s"][1])
        )
        assert not answer.show_alert and answer.url is not None
        assert answer.url.startswith("https://t.me/") and "?start=" in answer.url
        await telegram.send(newcomer, Chat.private(newcomer), "/start " + answer.url.split("start=", 1)[1])
        seated = await telegram.wait_message(Chat.private(newcomer), lambda m: "你已入座" in m.content)
        assert "西" in seated.content
        await telegram.wait_message(table.group, lambda m: "东西：西 小王、东 —" in m.content)


async def test_the_demo_shows_the_keyboard_and_taps_cards(
    emulator: Emulator,
    telegram: Telegram,
    token: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    """11: ``make demo`` prints the private keyboard, its Chinese-named player taps the cards
    one by one and the play button names the play."""
    monkeypatch.chdir(tmp_path)
    demo.OUTPUT.mkdir()
    async with running_bot(emulator, token, tmp_path / "demo.db", seed=2):
        await asyncio.wait_for(demo.run_table(telegram, think=0.0), 240)
    out = capsys.readouterr().out
    assert "[小明's private chat" in out and "You" not in out
    assert "[提示] [不出] [清空] [🤖托管]" in out
    assert (
        "👆 小明 taps ♠" in out
        or "👆 小明 taps ♥" in out
        or "👆 小明 taps ♣" in out
        or "👆 小明 taps ♦" in out
    )
    assert "👆 小明 taps 出牌：" in out


async def test_a_slow_play_press_plays_the_hinted_play_on_the_newest_keyboard(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A 出牌 that reaches the emulator over a second after the hint's own keyboard replaced the
    one 提示 was pressed on is refused (a phone shows a replaced keyboard about that long). The
    simulated player (``demo.take_turn``) then presses 出牌 on the newest keyboard: pressing 提示
    again, as it once did, moved on to the next suggestion, so on a slow CI machine the
    four-human match ended 单下 instead of its seed's 双下.

    The slow thumb waits for the hint's keyboard (its ✓ cards) to be shown, then moves the
    emulator's clock past the one-second window instead of sleeping through it: every 出牌 of
    this player follows a 提示 that selected the cards, and one pressed on the keyboard 提示 was
    pressed on now always meets that keyboard replaced over a second ago."""
    press = telegram.press

    async def hint_shown(chat: Chat, message_id: int) -> bool:
        shown = next((m for m in await telegram.messages(chat) if m.message_id == message_id), None)
        return shown is not None and any(b.text.startswith("✓") for row in shown.buttons for b in row)

    async def slow_thumb(user: User, message: BotMessage, data: str) -> str:
        if callback_op(data) == "p":
            chat = Chat.private(user)
            await wait_for(lambda: hint_shown(chat, message.message_id), what="the hint's keyboard")
            await telegram.advance_clock(1.3)  # over the emulator's one-second window: the fault under test
        return await press(user, message, data)

    monkeypatch.setattr(telegram, "press", slow_thumb)
    table = Table(telegram, Chat.group(-4209, "慢手桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SEED):
        await set_up(telegram, table, [ALICE, BOB])
        plays = 0
        while plays < 3:
            user, seat, _hand = await mover(telegram)
            match, rules = await stored(table.db_path)
            choice = NORMAL(observe(match, seat), rules)
            before = len(match.history)
            assert await take_turn(telegram, user)
            if isinstance(choice, Pass):
                continue
            match, _rules = await stored(table.db_path)
            assert match.history[before : before + 1] == ((seat, choice),)
            plays += 1
