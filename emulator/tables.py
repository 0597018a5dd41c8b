"""A group table seated through the emulator, as people seat one: the lobby, a tap on each seat
(and /start in the private chat the first time), the computer players added, the start.

The e2e tests' table (tests/e2e/test_match_e2e.py ``Table``) builds on it to play and check a
match; ``bench/failover.py`` uses it to open many tables before it kills the leader.
"""

from __future__ import annotations

from emulator.client import DEFAULT_TIMEOUT, BotMessage, Chat, Telegram, User, wait_for
from engine.names import clean_name

SHORT_MATCH = "/newgame wechat-6-deals points_deals=2"
"""Two deals (plus any tie-break deal): short, and with a tribute from the second deal on."""
STARTUP_WAIT = 60.0
"""The longest a test waits for a bot process it just started to answer: about 2 s on a quiet
machine, over 10 s (the default wait) beside a parallel run's other workers."""


def callback_op(data: str | None) -> str | None:
    """The operation a button's callback data names (``h:…:…:…:OP…``), if it has one."""
    return data.split(":")[4] if data and data.count(":") >= 4 else None


def buttons_by_op(message: BotMessage) -> dict[str, list[str]]:
    """A message's buttons' callback data, by the operation each names."""
    found: dict[str, list[str]] = {}
    for row in message.buttons:
        for button in row:
            op = callback_op(button.data)
            if op is not None and button.data is not None:
                found.setdefault(op, []).append(button.data)
    return found


class GroupTable:
    """One group's table, from its lobby until it starts."""

    def __init__(self, telegram: Telegram, group: Chat) -> None:
        self.telegram = telegram
        self.group = group

    async def lobby(self, timeout: float = DEFAULT_TIMEOUT) -> BotMessage:
        return await self.telegram.wait_message(
            self.group, lambda m: "/start" not in m.content and bool(m.buttons), timeout=timeout
        )

    async def join(self, user: User, seat: int) -> None:
        """Tap a seat; the first time the bot sends the player to the private chat."""
        lobby = await self.lobby()
        seat_data = lobby.buttons[seat // 2][seat % 2].data
        assert seat_data is not None
        query = await self.telegram.press(user, lobby, seat_data)
        answer = await self.telegram.wait_answer(query)
        if answer.url:  # the app opens the private chat; the player presses Start
            token = answer.url.split("start=", 1)[1]
            await self.telegram.send(user, Chat.private(user), f"/start {token}")
        shown = clean_name(user.first_name)  # as the bot shows it (no bidi or zero-width characters)
        await self.telegram.wait_message(self.group, lambda m: shown in m.content and bool(m.buttons))

    async def add_ai(self, user: User) -> None:
        lobby = await self.lobby()
        before = lobby.content
        await self.telegram.press(user, lobby, buttons_by_op(lobby)["i"][0])
        await wait_for(lambda: self._changed(before), what="an AI player to sit")

    async def _changed(self, before: str) -> bool:
        return (await self.lobby()).content != before

    async def start(self, user: User) -> None:
        lobby = await self.lobby()
        query = await self.telegram.press(user, lobby, buttons_by_op(lobby)["go"][0])
        answer = await self.telegram.wait_answer(query)
        assert not answer.show_alert, answer.text


async def set_up(
    telegram: Telegram, table: GroupTable, humans: list[User], command: str = SHORT_MATCH
) -> None:
    """The first human (made the group's admin) opens the table with ``command``; the humans sit
    in order, computer players fill the other seats, and the first human starts it."""
    await telegram.set_admins(table.group, [humans[0]])
    await telegram.send(humans[0], table.group, command)
    await table.lobby(STARTUP_WAIT)  # often the first answer of a bot process just started
    for seat, user in enumerate(humans):
        await table.join(user, seat)
    for _ in range(4 - len(humans)):
        await table.add_ai(humans[0])
    await table.start(humans[0])
