"""``make demo`` (``python demo.py``): watch the real bot host a deal, with no Telegram account.

Starts the Bot API emulator on loopback (``emulator/client.py``; ``make demo``
installs it), runs the real bot against it on a throw-away database, and plays a
one-deal table in a simulated group: one simulated human (小明) and three AI seats.
小明 plays as a person would on a phone: asks 提示 what to play, then taps those cards
one by one on the keyboard and presses 出牌 (or the play button's 不出). The group's
messages and 小明's private hand message — caption and keyboard — are printed as they
appear or change, with every tap; the pictures (the hand, each time it changes) are
saved to ``./demo-output/``.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from emulator.client import BotMessage, Chat, Emulator, EmulatorError, Telegram, User, callback_ops, polling

DEMO_TOKEN = "123456:DEMO"
OUTPUT = Path("demo-output")
YOU = User(7001, "小明")
GROUP = Chat.group(-7001, "掼蛋 demo")
DEMO_TABLE = "/newgame wechat-6-deals points_deals=1 turn_seconds=60"


async def press(telegram: Telegram, user: User, message: BotMessage, data: str) -> tuple[str, bool] | None:
    """Press a button and return the bot's answer (text, is_alert); None if it vanished."""
    try:
        query = await telegram.press(user, message, data)
        answer = await telegram.wait_answer(query)
    except EmulatorError:  # the keyboard changed between reading and pressing
        return None
    except TimeoutError:  # the bot is down (a restart test) and will answer late or never
        return None
    return answer.text, answer.show_alert


async def take_turn(telegram: Telegram, user: User) -> bool:
    """One step of a simulated player in its private chat; False when there was nothing to do."""
    chat = Chat.private(user)
    hand = await telegram.last_message(chat)
    ops = callback_ops(hand) if hand is not None else {}
    if hand is None or not ops:
        return False
    if "g" in ops or "b" in ops:
        await press(telegram, user, hand, (ops.get("g") or ops["b"])[0])
        return True
    if "r" in ops:
        await press(telegram, user, hand, ops["r"][0])
        return True
    if "h" not in ops or not ("轮到你" in hand.content or "Your turn" in hand.content):
        return False
    shown = _shown_hint(hand)
    if shown is not None:  # a 提示 of this turn already answered: play it, never 提示 again
        await press(telegram, user, hand, ops[shown][0])
        return True
    answer = await press(telegram, user, hand, ops["h"][0])
    if answer is None:
        return True
    if "x" in ops and ("不出" in answer[0] or "pass" in answer[0].lower()):  # 提示 suggests 不出
        await press_here_or_newest(telegram, user, hand, "x")
        return True
    if answer[1] or "手牌正在更新" in answer[0]:  # refused, or a keyboard on its way out: look again
        return True
    # The toast named the play: 出牌 on this keyboard plays it. If the hint's own keyboard has
    # replaced it meanwhile (a slow machine), 出牌 there — never 提示 again, which would move
    # on to the next suggestion.
    if "p" in ops and answer[0].startswith(("提示：", "Hint:")):
        await press_here_or_newest(telegram, user, hand, "p")
        return True
    await press_on_newest(telegram, user, hand, "p")
    return True


def _shown_hint(hand: BotMessage) -> str | None:
    """What the keyboard shows 提示 chose, as the op that plays it: ``p`` when cards are
    selected (✓: this simulated player selects only by 提示), ``x`` when the play button
    itself passes (提示 said 不出, or nothing beats the table); None when nothing is shown.

    Without this a 提示 whose answer came late (a busy machine) was pressed again, which
    moves on to the next suggestion: the same seed then played a different deal."""
    ops = callback_ops(hand)
    if "p" in ops and any(b.text.startswith("✓") for row in hand.buttons for b in row):
        return "p"
    if len(ops.get("x", ())) > 1:
        return "x"
    return None


async def press_here_or_newest(telegram: Telegram, user: User, hand: BotMessage, op: str) -> None:
    """Press ``op`` on ``hand``; if its keyboard is gone (replaced over a second ago), on the newest."""
    if await press(telegram, user, hand, callback_ops(hand)[op][0]) is None:
        await press_on_newest(telegram, user, hand, op)


async def press_on_newest(telegram: Telegram, user: User, seen: BotMessage, op: str) -> None:
    """Press ``op`` (出牌 ``p``, 不出 ``x``) on the hand message once it differs from ``seen``."""
    for _ in range(100):
        fresh = await telegram.last_message(Chat.private(user))
        if fresh is not None and fresh.raw != seen.raw:
            fresh_ops = callback_ops(fresh)
            if op in fresh_ops:
                await press(telegram, user, fresh, fresh_ops[op][0])
            return
        await asyncio.sleep(0.02)


async def play_until(
    telegram: Telegram, user: User, done: asyncio.Event, think: float = 0.0, taps: bool = False
) -> None:
    """Take turns until ``done``; ``think`` seconds before each turn let a watcher follow;
    ``taps``: tap the cards one by one (:func:`tap_turn`) instead of 提示 → 出牌."""
    while not done.is_set():
        await asyncio.sleep(think)
        if not await (tap_turn(telegram, user) if taps else take_turn(telegram, user)):
            await asyncio.sleep(0.05)


async def tap_turn(telegram: Telegram, user: User) -> bool:
    """One turn as a person plays it: 提示 shows which cards to play (✓ on their buttons);
    清空, then tap each of them (a face held twice: once per copy) and press the play button,
    which names the play (出牌：对子 9), or 不出 when 提示 suggests passing."""
    chat = Chat.private(user)
    hand = await telegram.last_message(chat)
    ops = callback_ops(hand) if hand is not None else {}
    if hand is None or "h" not in ops or not ("轮到你" in hand.content or "Your turn" in hand.content):
        return await take_turn(telegram, user)  # tributes, readings, or nothing to do
    answer = await press(telegram, user, hand, ops["h"][0])
    if answer is None:
        return True
    if "不出" in answer[0] or "pass" in answer[0].lower():
        print(f"👆 {user.first_name}: 提示 → {answer[0]}; taps 不出", flush=True)
        await press(telegram, user, hand, ops["x"][0])
        await _until(telegram, chat, _moved_on)
        return True
    hinted = await _until(telegram, chat, _any_selected)
    if hinted is None:
        return True
    chosen = [b.text for row in hinted.buttons for b in row if b.text.startswith("✓")]
    await press(telegram, user, hinted, callback_ops(hinted)["c"][0])
    current = await _until(telegram, chat, lambda m: not _any_selected(m))
    for label in chosen:
        face = label.lstrip("✓").rstrip("¹²")
        for copy in range(2 if label.endswith("²") else 1):
            if current is None:
                return True
            button = next(b for row in current.buttons for b in row if b.text.lstrip("✓").startswith(face))
            print(f"👆 {user.first_name} taps {button.text}", flush=True)
            await press(telegram, user, current, button.data or "")
            mark = f"✓{face}" + ("" if label[-1] not in "¹²" else "²" if copy else "¹")
            current = await _until(telegram, chat, partial(_shows, label=mark))
    play = callback_ops(current).get("p") if current is not None else None
    if current is not None and play:
        label = next(b.text for row in current.buttons for b in row if b.data == play[0])
        print(f"👆 {user.first_name} taps {label}", flush=True)
        await press(telegram, user, current, play[0])
        await _until(telegram, chat, _moved_on)
    return True


def _moved_on(message: BotMessage) -> bool:
    """The hand message no longer asks this player to act (their move's edit arrived)."""
    return "轮到你" not in message.content and "Your turn" not in message.content


def _any_selected(message: BotMessage) -> bool:
    return any(button.text.startswith("✓") for row in message.buttons for button in row)


def _shows(message: BotMessage, label: str) -> bool:
    return any(button.text == label for row in message.buttons for button in row)


async def _until(telegram: Telegram, chat: Chat, check: Callable[[BotMessage], bool]) -> BotMessage | None:
    """The chat's newest message once it passes ``check`` (the bot's edit arrived); None if
    it does not within 4 s (the turn moved on: the caller looks again)."""
    for _ in range(200):
        fresh = await telegram.last_message(chat)
        if fresh is not None and check(fresh):
            return fresh
        await asyncio.sleep(0.02)
    return None


def keyboard_text(message: BotMessage) -> str:
    """The buttons as a phone shows them, a row a line: [♠9²] [✓♥9] … [出牌：对子 9]."""
    return "\n".join(" ".join(f"[{button.text}]" for button in row) for row in message.buttons)


class Printer:
    """Prints each group message when it appears or changes; saves your hand pictures."""

    def __init__(self, telegram: Telegram) -> None:
        self.telegram = telegram
        self.seen: dict[tuple[int, int], tuple[int, str]] = {}
        self.pictures = 0

    async def poll(self) -> bool:
        """Print what changed; True once the match result was posted."""
        over = False
        for message in await self.telegram.messages(GROUP):
            over |= "🏆" in message.content
            key = (message.chat_id, message.message_id)
            if self.seen.get(key, (-1, ""))[1] != message.content:
                self.seen[key] = (message.edit_count, message.content)
                print(
                    f"\n[group #{message.message_id} edit {message.edit_count}]\n{message.content}",
                    flush=True,
                )
                if message.photo_id:
                    await self.save(message, "group")
        for message in await self.telegram.messages(Chat.private(YOU)):
            key = (message.chat_id, -message.message_id)
            if message.photo_id and self.seen.get(key, (-1, ""))[1] != message.photo_id:
                self.seen[key] = (message.edit_count, message.photo_id)
                await self.save(message, "your-hand")
            caption_key = (message.chat_id, -message.message_id - 10**9)
            shown = f"{message.content}\n{keyboard_text(message)}"
            if self.seen.get(caption_key, (-1, ""))[1] != shown:
                self.seen[caption_key] = (message.edit_count, shown)
                print(f"\n[{YOU.first_name}'s private chat #{message.message_id}]\n{shown}", flush=True)
        return over

    async def save(self, message: BotMessage, what: str) -> None:
        self.pictures += 1
        path = OUTPUT / f"{self.pictures:03d}-{what}.png"
        path.write_bytes(await self.telegram.photo(message))
        print(f"[{what} picture → {path}]", flush=True)


async def demo() -> None:
    from bot import build_application, close_services, open_services

    OUTPUT.mkdir(exist_ok=True)
    emulator = Emulator.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            db_path = str(Path(folder) / "demo.db")
            app = build_application(
                DEMO_TOKEN,
                db_path=db_path,
                base_url=emulator.base_url,
                base_file_url=emulator.base_file_url,
                board_interval=1.0,
            )
            await open_services(app, db_path=db_path, board_interval=1.0)
            async with Telegram(emulator, DEMO_TOKEN) as telegram, polling(app):
                await run_table(telegram)
            await close_services(app)
    finally:
        emulator.stop()


async def run_table(telegram: Telegram, think: float = 0.7) -> None:
    await telegram.send(YOU, Chat.private(YOU), "/start")
    await telegram.send(YOU, GROUP, DEMO_TABLE)
    lobby = await telegram.wait_message(GROUP, lambda m: bool(m.buttons))
    await press(telegram, YOU, lobby, lobby.buttons[0][0].data or "")
    for _ in range(3):
        lobby = await telegram.wait_message(GROUP, lambda m: bool(m.buttons))
        await press(telegram, YOU, lobby, callback_ops(lobby)["i"][0])
    lobby = await telegram.wait_message(GROUP, lambda m: bool(m.buttons) and "AI 丁" in m.content)
    await press(telegram, YOU, lobby, callback_ops(lobby)["go"][0])
    printer = Printer(telegram)
    done = asyncio.Event()
    player = asyncio.create_task(play_until(telegram, YOU, done, think=think, taps=True))
    while not await printer.poll():
        await asyncio.sleep(0.5)
    done.set()
    await player
    print(f"\nThe match is over. Pictures: {OUTPUT.resolve()}")


def run_demo() -> int:
    """Entry point of ``make demo``."""
    try:
        asyncio.run(demo())
    except RuntimeError as error:
        print(f"demo: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run_demo())
