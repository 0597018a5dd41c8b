"""Buttons at phone speed: the bot's edits take 300-800 ms to reach the phone (the emulator's
edit delay), so a player's taps land on keyboards the bot has already replaced.

A player taps five cards 150 ms apart (each tap on whatever keyboard the chat shows at
that moment) and plays them; after a 双下 both winners press 还贡 at the same time. No
press may be answered with an alert, and exactly the cards pressed are played or returned.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiosqlite

from emulator.client import BotMessage, CallbackAnswer, Chat, Emulator, Telegram, User
from engine.actions import Action, PlayCards, ReturnTribute
from engine.cards import CARDS, Card
from engine.match import Match, action_from_json
from engine.moves import legal_plays
from engine.plays import PlayKind
from engine.rules import Rules
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    Table,
    buttons_by_op,
    callback_op,
    running_bot,
    set_up,
)

EDIT_DELAY_MS = (300, 800)
TAP_INTERVAL = 0.15


class Presses:
    """Every press of the test and its answer, so the test can say: zero alerts."""

    def __init__(self, telegram: Telegram) -> None:
        self.telegram = telegram
        self.answers: list[CallbackAnswer] = []

    async def press(self, user: User, message: BotMessage, data: str) -> CallbackAnswer:
        answer = await self.telegram.wait_answer(await self.telegram.press(user, message, data))
        self.answers.append(answer)
        return answer

    @property
    def alerts(self) -> list[str]:
        return [answer.text for answer in self.answers if answer.show_alert]


async def current_hand(telegram: Telegram, user: User) -> BotMessage:
    return await telegram.wait_message(Chat.private(user), lambda m: bool(m.photo_id and m.buttons))


async def card_button(telegram: Telegram, user: User, card: Card) -> tuple[BotMessage, str]:
    """The button of ``card`` on the keyboard the chat shows now (the phone's view)."""
    hand = await current_hand(telegram, user)
    for row in hand.buttons:
        for button in row:
            parts = (button.data or "").split(":")
            if callback_op(button.data) == "t" and int(parts[5]) == card.index:
                return hand, str(button.data)
    raise LookupError(f"no button for {card} in {[b.text for row in hand.buttons for b in row]}")


async def stored_match(db_path: Path) -> tuple[Rules, int]:
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT rules_json, seed FROM game_tables") as cursor,
    ):
        rules_json, seed = await cursor.fetchone()
    return Rules.from_json(rules_json), int(seed)


async def logged(db_path: Path, kind: type[Action]) -> list[tuple[int, Action]]:
    """The logged actions of one kind as (seat, action), in order."""
    async with (
        aiosqlite.connect(db_path) as db,
        db.execute("SELECT seat, action_json FROM actions ORDER BY version") as cursor,
    ):
        rows = await cursor.fetchall()
    actions = [(int(seat), action_from_json(json.loads(text))) for seat, text in rows if seat is not None]
    return [(seat, action) for seat, action in actions if isinstance(action, kind)]


def five_faces(hand: tuple[Card, ...], rules: Rules, seed: int) -> tuple[Card, ...]:
    """A lead of five different card faces (a straight if the hand has one)."""
    level = Match.new(rules, seed).level
    plays = [p for p in legal_plays(hand, level, None) if len(set(p.cards)) == 5 and not p.is_bomb]
    plays.sort(key=lambda p: p.kind is not PlayKind.STRAIGHT)
    return plays[0].cards


async def test_five_fast_taps_then_play_with_slow_edits(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4101, "手速桌"), tmp_path / "g.db")
    presses = Presses(telegram)
    async with running_bot(emulator, token, table.db_path, seed=2):  # seed 2: Alice (north) leads
        await set_up(telegram, table, [ALICE, BOB])
        first = await current_hand(telegram, ALICE)
        assert "轮到你" in first.content
        rules, seed = await stored_match(table.db_path)
        cards = five_faces(Match.new(rules, seed).hand(0), rules, seed)
        await telegram.delay_edits(*EDIT_DELAY_MS)
        taps = []
        for card in cards:
            message, data = await card_button(telegram, ALICE, card)
            taps.append(asyncio.create_task(presses.press(ALICE, message, data)))
            await asyncio.sleep(TAP_INTERVAL)
        await asyncio.gather(*taps)
        for _attempt in range(40):  # 出牌 as the chat shows it; a toast says when it was out of date
            hand = await current_hand(telegram, ALICE)
            answer = await presses.press(ALICE, hand, buttons_by_op(hand)["p"][0])
            if await logged(table.db_path, PlayCards):
                break
            assert answer.text.startswith("没有出牌"), answer.text
            await asyncio.sleep(0.2)
        assert presses.alerts == []
        [(seat, play), *_later] = await logged(table.db_path, PlayCards)
        assert seat == 0 and isinstance(play, PlayCards)
        assert sorted(card.index for card in play.play.cards) == sorted(card.index for card in cards)
        await telegram.delay_edits(0, 0)


async def until_return(telegram: Telegram, user: User) -> BotMessage:
    """Take turns (提示 then 出牌, 不出 when nothing beats) until the hand message offers
    还贡 buttons, and return it without pressing them. Each turn plays the AI's pick (the
    first 提示), so the seed decides the deal."""
    chat = Chat.private(user)
    while True:
        hand = await telegram.last_message(chat)
        ops = buttons_by_op(hand) if hand is not None else {}
        if hand is not None and "b" in ops:
            return hand
        if hand is None or "h" not in ops or "轮到你" not in hand.content:
            await asyncio.sleep(0.05)
            continue
        hint = await telegram.wait_answer(await telegram.press(user, hand, ops["h"][0]))
        if "不出" in hint.text:  # 提示 suggests 不出 (the AI's choice): pass
            await telegram.press(user, hand, ops["x"][0])
            continue
        if hint.show_alert or "手牌正在更新" in hint.text:  # refused, or pressed on a keyboard on its way out
            continue
        await play_selection(telegram, user)


async def play_selection(telegram: Telegram, user: User) -> None:
    """Press 出牌 once the chat shows the selection (a toast means: not yet, look again)."""
    chat = Chat.private(user)
    for _attempt in range(600):  # up to 30 s: a loaded machine shows the selection late
        hand = await telegram.last_message(chat)
        play = buttons_by_op(hand).get("p") if hand is not None else None
        selected = hand is not None and any(b.text.startswith("✓") for row in hand.buttons for b in row)
        if hand is not None and play and selected:
            answer = await telegram.wait_answer(await telegram.press(user, hand, play[0]))
            if not answer.text:
                await telegram.wait_message(chat, lambda m, before=hand: m.raw != before.raw)
                return
        await asyncio.sleep(0.05)
    raise TimeoutError("the hinted selection was never played")


async def test_both_winners_return_at_once_after_a_double_down(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    """Seed 76: Alice (north) and Bob (south), playing 提示 then 出牌, finish first and
    second in the first deal; both owe a return when the second deal starts."""
    table = Table(telegram, Chat.group(-4102, "双下桌"), tmp_path / "g.db")
    presses = Presses(telegram)
    async with running_bot(emulator, token, table.db_path, seed=76):
        await telegram.set_admins(table.group, [ALICE])
        await telegram.send(ALICE, table.group, "/newgame wechat-6-deals points_deals=2")
        await table.lobby()
        await table.join(ALICE, 0)
        await table.join(BOB, 2)
        await table.add_ai(ALICE)
        await table.add_ai(ALICE)
        await table.start(ALICE)
        turns = asyncio.gather(until_return(telegram, ALICE), until_return(telegram, BOB))
        alice, bob = await asyncio.wait_for(turns, 120)
        await telegram.delay_edits(*EDIT_DELAY_MS)
        pressed = {0: buttons_by_op(alice)["b"][0], 2: buttons_by_op(bob)["b"][0]}
        answers = await asyncio.gather(
            presses.press(ALICE, alice, pressed[0]), presses.press(BOB, bob, pressed[2])
        )
        assert presses.alerts == [], answers
        returns = await logged(table.db_path, ReturnTribute)
        returned = {seat: action.card for seat, action in returns if isinstance(action, ReturnTribute)}
        assert len(returns) == 2
        assert returned == {seat: CARDS[int(data.split(":")[5])] for seat, data in pressed.items()}
        await telegram.delay_edits(0, 0)
