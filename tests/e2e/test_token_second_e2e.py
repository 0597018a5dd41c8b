"""The token's 30 messages a second, as Telegram counts them: when they arrive.

The bot's scheduler lets thirty messages go at once, and the bot has fewer connections than
that: the rest wait for one, so a burst arrives spread out. Counted from the moment each was
let go, the next thirty went exactly a second later and some arrived less than a second after
the last ones of the burst before: the emulator, like Telegram, answered 429 (55 of 300 edits;
1,300–2,000 a run in bench/miniapp_load.py). Here a burst of edits into as many private chats
(no chat's own limit in play) goes through the bot's real request stack against the emulator's
limits, and none is refused.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot import build_application
from emulator.client import Chat, Emulator, Telegram, User

EDITS = 150  # five of the token's seconds


async def test_a_burst_of_edits_is_never_refused_for_the_tokens_second(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    players = [User(61_000 + n, f"P{n}") for n in range(EDITS)]
    await asyncio.gather(*(telegram.send(player, Chat.private(player), "/start") for player in players))
    app = build_application(
        token,
        db_path=str(tmp_path / "unused.db"),
        base_url=emulator.base_url,
        base_file_url=emulator.base_file_url,
    )
    async with app.bot as bot:
        hands = await asyncio.gather(*(bot.send_message(player.id, "手牌") for player in players))
        await telegram.enforce_limits()
        await asyncio.gather(
            *(bot.edit_message_text("新手牌", hand.chat_id, hand.message_id) for hand in hands)
        )
        stats = await telegram.limit_stats()
        await telegram.enforce_limits(False)
    assert stats.by_limit["global_per_second"] == 0, stats
    shown = await telegram.messages()
    assert sum(message.text == "新手牌" for message in shown) == EDITS
