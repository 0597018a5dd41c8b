"""Webhook mode end to end: ``python bot.py`` with ``TELEGRAM_WEBHOOK_URL`` set serves a webhook
on a free loopback port, registers it with the emulator (``setWebhook`` with the secret), and
the emulator posts the users' updates to it with the ``X-Telegram-Bot-Api-Secret-Token`` header,
as Telegram does. A request without the header, or with another secret, is refused (403) and
never handled, while an update of the same kind with the secret is answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from emulator.client import Chat, Emulator, Telegram, User, free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
SECRET = "webhook-test_0123456789abcdefghijklmnopqrstuv"
HEADER = "X-Telegram-Bot-Api-Secret-Token"
SENDERS = {  # who posts a forged /help, with which secret header (None: without one)
    User(511, "Bob"): None,
    User(512, "Carol"): "guessed",
    User(513, "Dave"): SECRET + "x",
    User(514, "Erin"): SECRET,
}
LATECOMER = User(515, "Fay")
"""Writes to the bot after the forged updates were refused."""


@contextlib.contextmanager
def webhook_bot(
    emulator: Emulator, token: str, db_path: Path, port: int
) -> Iterator[subprocess.Popen[bytes]]:
    """``python bot.py`` in webhook mode against the emulator; stopped with SIGINT (as systemd
    or ``docker stop`` would) at the end."""
    env = os.environ | {
        "TELEGRAM_BOT_TOKEN": token,
        "GUANDAN_DB": str(db_path),
        "TELEGRAM_API_BASE": emulator.base_url,
        "TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{port}/telegram-hook",
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "TELEGRAM_WEBHOOK_PORT": str(port),
    }
    process = subprocess.Popen([sys.executable, "bot.py"], cwd=ROOT, env=env)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def wait_listening(process: subprocess.Popen[bytes], hook: str, timeout: float = 30.0) -> None:
    """Until the webhook server answers. It listens only after ``post_init`` opened the services
    and ``setWebhook`` succeeded, so from then on the emulator posts updates to it."""
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(timeout=2.0) as http:
        while time.monotonic() < deadline:
            assert process.poll() is None, f"bot.py exited with {process.returncode} in webhook mode"
            with contextlib.suppress(httpx.TransportError):
                await http.post(hook, json={})
                return
            await asyncio.sleep(0.1)
    raise TimeoutError("the webhook server did not start listening")


def help_update(update_id: int, user: User) -> dict[str, Any]:
    """A /help from ``user`` in their private chat, as Telegram would post it."""
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": int(time.time()),
            "chat": Chat.private(user).to_api(),
            "from": user.to_api(),
            "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
        },
    }


async def test_webhook_handles_updates_with_the_secret_and_refuses_the_rest(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    port = free_port()
    hook = f"http://127.0.0.1:{port}/telegram-hook"
    with webhook_bot(emulator, token, tmp_path / "webhook.db", port) as process:
        await wait_listening(process, hook)

        # Through the emulator, which posts with the secret that setWebhook registered; each
        # reply is also what opens the private chat that a forged /help would be answered in.
        for user in SENDERS:
            await telegram.send(user, Chat.private(user), "/start")
        for user in SENDERS:
            await telegram.wait_message(Chat.private(user), timeout=15)
        assert await telegram.pending_updates() == 0  # delivered by webhook, not queued for polling

        # post_init opened the services as in polling mode: the command list was registered.
        async with httpx.AsyncClient(base_url=emulator.url) as http:
            commands = (await http.post(f"/bot{token}/getMyCommands")).json()["result"]
            assert {"newgame", "help"} <= {command["command"] for command in commands}

            statuses = {}
            for update_id, (user, secret) in enumerate(SENDERS.items(), start=900_001):
                headers = {} if secret is None else {HEADER: secret}
                response = await http.post(hook, json=help_update(update_id, user), headers=headers)
                statuses[user.first_name] = response.status_code
        assert statuses == {"Bob": 403, "Carol": 403, "Dave": 403, "Erin": 200}

        async def shown() -> dict[str, int]:
            return {user.first_name: len(await telegram.messages(Chat.private(user))) for user in SENDERS}

        async def erin_answered() -> bool:
            return (await shown())["Erin"] == 2

        await wait_for(erin_answered, timeout=10)
        # one more update, after the refused ones: had they been queued, they were taken
        # before it, and are answered by the time it is
        await telegram.send(LATECOMER, Chat.private(LATECOMER), "/start")
        await telegram.wait_message(Chat.private(LATECOMER), timeout=15)
        assert await shown() == {"Bob": 1, "Carol": 1, "Dave": 1, "Erin": 2}

        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
