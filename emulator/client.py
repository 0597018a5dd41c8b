"""The emulator's Python client: the Telegram Bot API emulator and the people who use the bot.

The bot under test is a real python-telegram-bot ``Application`` talking real HTTP to
``emulator/server.js`` (the npm package telegram-test-api 4.2.1 with our patches, see
``emulator/patches/``), which runs on a free loopback port for the whole test session.
Tests play the users: they send messages and commands, press inline buttons, and read
what the bot showed in each chat. Everything a test waits for has a timeout, so a
broken bot fails a test instead of hanging the run.

Starting (the ``emulator`` and ``telegram`` fixtures in ``conftest.py`` do this)::

    emulator = Emulator.start()              # node emulator/server.js, stopped by .stop()
    app = emulator.application_builder(token).build()   # add handlers, then:
    async with polling(app):                 # initialize, start, poll; stop on exit
        ...
    telegram = Telegram(emulator, token)     # the users' side, bound to one bot token

One token per test keeps tests apart: updates and bot messages are kept per token.

People and chats (frozen values)::

    alice = User(1, "Alice")                 # optional username=..., language_code="en"
    table = Chat.group(-100, "牌桌")          # a group chat
    dm = Chat.private(alice)                 # alice's private chat with the bot

The users' side (all ``async``)::

    await telegram.send(alice, table, "/newgame")    # -> message_id; "/..." is a command
    await telegram.press(alice, message, "join")     # press the button with that
                                                     # callback data; -> callback query id
    await telegram.press_text(alice, message, "加入")  # the same, by the button's label
    await telegram.messages(table)                   # -> list[BotMessage], oldest first
    await telegram.last_message(table)               # -> BotMessage | None
    await telegram.wait_message(table, lambda m: "开始" in m.content)  # -> BotMessage
    await telegram.answer(query_id)                  # -> CallbackAnswer | None
    await telegram.wait_answer(query_id)             # -> CallbackAnswer
    await telegram.photo(message)                    # -> the picture's bytes
    await telegram.document(message)                 # -> a document's file (sendDocument)
    await telegram.send(bob, table, "3组", reply_to=message)  # a reply to a bot message
    await telegram.set_admins(table, [alice])        # first one is the group's owner
    await telegram.block_bot(alice)                  # my_chat_member; 403 until she writes again
    await telegram.leave(alice, table)               # left_chat_member (+ chat_member if asked)
    await telegram.join(alice, table)                # new_chat_members (+ chat_member if asked)
    await telegram.wait_idle()                       # the bot fetched every update
    await telegram.delay_edits(300, 800)             # the bot's edits now take 300-800 ms
    await telegram.set_privacy(True)                 # privacy mode: see below
    await telegram.set_latency(80)                   # 80 ms round trip per Bot API request
    await telegram.enforce_limits()                  # Telegram's rate limits: see below
    await telegram.limit_stats()                     # -> LimitStats (429s given, by limit/chat)
    await wait_for(some_async_check, timeout=10)     # generic: poll until truthy

``BotMessage`` is the message as the chat shows it now (after edits): ``text``,
``caption``, ``content`` (text or caption), ``photo_id``, ``document``, ``buttons`` (rows of
``Button(text, data, url, copy_text)``), ``edit_count``, ``deleted``, ``sent_at_ms`` and
``edited_at_ms`` (when the emulator stored it and each edit, in ms since the epoch) and the
``raw`` Bot API dict. ``most_in_window(times_ms, 60_000)`` is the most of those times in any
60 s, for asserting "never more than 20 group messages a minute".

Emulated Telegram rules worth knowing, because the real bot must cope with them: a bot
cannot write to a private chat before the user wrote to it (403, so have each player
send ``/start`` first); ``parse_mode="HTML"`` is parsed and malformed HTML is refused;
an edit that changes nothing is refused ("message is not modified"); an edit without
``reply_markup`` removes the inline keyboard; callback data is at most 64 bytes; a
callback query can be answered once; only buttons a message currently shows can be
pressed (``EmulatorError`` otherwise), or, for a moment after an edit, the buttons it
replaced (a phone shows the old keyboard until the edit reaches it): one second, or the
longest edit delay if that is longer.

Phone speed: ``delay_edits(min_ms, max_ms)`` makes every edit of the bot's messages (for
this token) wait a random time in that range before it is applied and answered, as edits
on real Telegram take hundreds of milliseconds to reach the phone; the chat shows the old
message meanwhile. ``delay_edits(0, 0)`` turns it off.

Privacy mode: off by default (the bot receives every group message, and ``getMe`` says
``can_read_all_group_messages``). ``set_privacy(True)`` turns it on for this token, as
@BotFather's /setprivacy does: in a group the bot then receives only commands, replies to
its own messages, service messages and button presses, and every message only in groups
where it is an administrator (``set_admins``); ``getMe`` says so.

Latency: ``GUANDAN_EMULATOR_LATENCY_MS=80`` (read by ``Emulator.start``, passed on as
``node server.js --latency-ms 80``) adds an 80 ms round trip to every Bot API request the bot
makes, getUpdates included (half before the emulator handles it, half before the answer
leaves); ``set_latency(ms)`` sets it for one token (``None``: the server's default again).
The tests' own calls (this class) are never delayed.

Telegram's limits: off by default. ``enforce_limits()`` turns them on for this token
(``GUANDAN_EMULATOR_LIMITS=1`` / ``--limits`` for every token): more than 20 new messages in
a group in any 60 s, more than about one message or edit a second in a chat (a token bucket
allowing bursts of 3) or more than 30 messages and edits a second for the token get 429
``Too Many Requests: retry after N`` with ``parameters.retry_after`` and have no effect; an
edit counts toward a group's 20 a minute with ``group_edit_weight`` (0 by default).
``answerCallbackQuery`` more than 15 s after the press gets 400 "query is too old".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self, TypeVar

import httpx
from telegram.ext import Application, ApplicationBuilder

EMULATOR_DIR = Path(__file__).resolve().parent
POLL_INTERVAL = 0.02
DEFAULT_TIMEOUT = 10.0
BOT_USERNAME = "GuandanTestBot"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})

T = TypeVar("T")


class EmulatorError(RuntimeError):
    """The emulator refused a user's action (e.g. pressing a button that is not shown)."""


@dataclass(frozen=True)
class User:
    """A Telegram user who talks to the bot."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None

    def to_api(self) -> dict[str, Any]:
        user: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.username:
            user["username"] = self.username
        if self.language_code:
            user["language_code"] = self.language_code
        return user


@dataclass(frozen=True)
class Chat:
    """A chat the bot is in: a group, or one user's private chat with the bot."""

    id: int
    type: str
    title: str | None = None
    user: User | None = None

    @classmethod
    def group(cls, chat_id: int, title: str) -> Chat:
        if chat_id >= 0:
            raise ValueError("group chat ids are negative in the Bot API")
        return cls(chat_id, "supergroup", title=title)

    @classmethod
    def private(cls, user: User) -> Chat:
        return cls(user.id, "private", user=user)

    def to_api(self) -> dict[str, Any]:
        if self.user is None:
            return {"id": self.id, "type": self.type, "title": self.title}
        chat = {"id": self.id, "type": self.type, "first_name": self.user.first_name}
        return chat | ({"username": self.user.username} if self.user.username else {})


@dataclass(frozen=True)
class Button:
    """One inline keyboard button: its label and its callback data or link."""

    text: str
    data: str | None
    url: str | None = None
    copy_text: str | None = None  # a CopyTextButton's text
    style: str | None = None  # Bot API 9.4's colour: primary, success or danger (None: the app's)


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot answered to a button press (a toast, or an alert if show_alert)."""

    text: str
    show_alert: bool
    pressed_at_ms: int | None = None  # when the press reached the emulator (ms since the epoch)
    answered_at_ms: int | None = None  # when the bot's answer did
    url: str | None = None  # a link the user's app opens at once (t.me/<bot>?start=…)

    @property
    def seconds(self) -> float | None:
        """Press to answer, as the emulator saw them (no polling in between)."""
        if self.pressed_at_ms is None or self.answered_at_ms is None:
            return None
        return (self.answered_at_ms - self.pressed_at_ms) / 1000


@dataclass(frozen=True)
class LimitStats:
    """What Telegram's limits (``Telegram.enforce_limits``) did for one token so far."""

    enabled: bool
    too_many_requests: int  # 429s given
    by_limit: dict[str, int]  # group_per_minute, chat_per_second, global_per_second -> 429s
    by_chat: dict[int, int]  # chat id -> 429s
    too_old_callbacks: int  # answerCallbackQuery refused as too old
    max_retry_after: int  # the longest retry_after given (s)


@dataclass(frozen=True)
class BotMessage:
    """A message the bot sent, as the chat shows it now."""

    raw: dict[str, Any]
    edit_count: int
    deleted: bool
    sent_at_ms: int | None = None  # when the emulator stored it (ms since the epoch)
    edited_at_ms: tuple[int, ...] = ()  # when each edit was applied

    @property
    def message_id(self) -> int:
        return int(self.raw["message_id"])

    @property
    def chat_id(self) -> int:
        return int(self.raw["chat"]["id"])

    @property
    def text(self) -> str | None:
        return self.raw.get("text")

    @property
    def caption(self) -> str | None:
        return self.raw.get("caption")

    @property
    def content(self) -> str:
        """The text of a text message or the caption of a picture ('' if none)."""
        return self.text or self.caption or ""

    @property
    def photo_id(self) -> str | None:
        photo = self.raw.get("photo")
        return str(photo[-1]["file_id"]) if photo else None

    @property
    def document(self) -> dict[str, Any] | None:
        """The Document of a document message (``file_id``, ``file_name``, ``mime_type``…)."""
        return self.raw.get("document")

    @property
    def buttons(self) -> list[list[Button]]:
        markup = self.raw.get("reply_markup") or {}
        return [
            [
                Button(
                    button["text"],
                    button.get("callback_data"),
                    button.get("url"),
                    (button.get("copy_text") or {}).get("text"),
                    button.get("style"),
                )
                for button in row
            ]
            for row in markup.get("inline_keyboard", [])
        ]

    def button(self, text: str) -> Button:
        """The button whose label is `text`, or whose label contains it if only one does."""
        flat = [button for row in self.buttons for button in row]
        exact = [button for button in flat if button.text == text]
        close = exact or [button for button in flat if text in button.text]
        if len(close) != 1:
            labels = [button.text for button in flat]
            raise LookupError(f"{len(close)} buttons match {text!r} among {labels}")
        return close[0]


def callback_ops(message: BotMessage) -> dict[str, list[str]]:
    """The message's callback buttons grouped by operation.

    The bot's callback data reads ``area:table:version:check:op[:arg[:count]]`` (see
    ``app/table/callback_data.py``); simulated users pick buttons by ``op``.
    """
    found: dict[str, list[str]] = {}
    for row in message.buttons:
        for button in row:
            parts = (button.data or "").split(":")
            if len(parts) >= 5 and button.data:
                found.setdefault(parts[4], []).append(button.data)
    return found


def most_in_window(times_ms: Sequence[int], window_ms: int) -> int:
    """The most of `times_ms` that fall in any `window_ms` long window (e.g. a group's messages
    in any minute: ``most_in_window([m.sent_at_ms for m in shown], 60_000)``)."""
    ordered = sorted(times_ms)
    most, first = 0, 0
    for last, at in enumerate(ordered):
        while at - ordered[first] >= window_ms:
            first += 1
        most = max(most, last - first + 1)
    return most


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now, for a server a test starts (the bot's webhook, health or
    Mini App port)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def wait_for(
    check: Callable[[], Awaitable[T | None]],
    timeout: float = DEFAULT_TIMEOUT,
    what: str = "condition",
) -> T:
    """Awaits `check` every POLL_INTERVAL until it returns something truthy; returns that."""
    deadline = time.monotonic() + timeout
    while True:
        result = await check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.1f} s waiting for {what}")
        await asyncio.sleep(POLL_INTERVAL)


@dataclass
class Emulator:
    """The emulator process and its address; one per test session."""

    url: str
    process: subprocess.Popen[bytes] = field(repr=False)
    latency_ms: int = 0
    limits: bool = False

    @classmethod
    def start(
        cls, startup_timeout: float = 30.0, *, latency_ms: int | None = None, limits: bool | None = None
    ) -> Emulator:
        """Starts node emulator/server.js on a free loopback port (npm ci must have run).

        ``latency_ms``: a round trip added to every Bot API request (default: the environment's
        ``GUANDAN_EMULATOR_LATENCY_MS``, else 0). ``limits``: Telegram's rate limits for every
        token (default: ``GUANDAN_EMULATOR_LIMITS`` is 1/true/yes, else off)."""
        node = shutil.which("node")
        if node is None or not (EMULATOR_DIR / "node_modules" / "telegram-test-api").is_dir():
            raise RuntimeError("the emulator is not installed: run `make emulator` (npm ci in emulator/)")
        if latency_ms is None:
            latency_ms = int(os.environ.get("GUANDAN_EMULATOR_LATENCY_MS") or 0)
        if limits is None:
            limits = os.environ.get("GUANDAN_EMULATOR_LIMITS", "").strip().lower() in TRUE_WORDS
        arguments = [node, "server.js", "--bot-username", BOT_USERNAME, "--latency-ms", str(latency_ms)]
        process = subprocess.Popen(
            arguments + (["--limits"] if limits else []),
            cwd=EMULATOR_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert process.stdout is not None
        line = _read_line(process, startup_timeout)
        return cls(json.loads(line)["url"], process, latency_ms, limits)

    def stop(self) -> None:
        """Stops the emulator: closing its stdin ends it, a kill makes sure."""
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()

    @property
    def base_url(self) -> str:
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    def application_builder(self, token: str) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """An ApplicationBuilder pointed at the emulator (add handlers after build())."""
        return Application.builder().token(token).base_url(self.base_url).base_file_url(self.base_file_url)


def _read_line(process: subprocess.Popen[bytes], timeout: float) -> str:
    """The emulator's first stdout line (its address), or an error if it died or hung."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    deadline = time.monotonic() + timeout
    buffer = b""
    while b"\n" not in buffer:
        remaining = deadline - time.monotonic()
        readable, _, _ = select.select([descriptor], [], [], max(remaining, 0))
        chunk = os.read(descriptor, 4096) if readable else b""
        if not readable:
            process.kill()
            raise TimeoutError("the emulator did not start listening in time")
        if not chunk:
            code = process.wait()
            raise RuntimeError(f"the emulator exited with code {code} before it listened")
        buffer += chunk
    return buffer.split(b"\n", 1)[0].decode()


@contextlib.asynccontextmanager
async def polling(
    app: Application[Any, Any, Any, Any, Any, Any],
    timeout: int = 2,
    allowed_updates: Sequence[str] | None = None,
) -> AsyncIterator[None]:
    """Runs `app` with long polling against the emulator for the duration of the block.

    Updates sent before the block are delivered too, as Telegram keeps them for the bot.
    ``allowed_updates`` as in getUpdates (None: Telegram's default, without ``chat_member``).
    """
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(
            poll_interval=0.0,
            timeout=timeout,
            allowed_updates=list(allowed_updates) if allowed_updates else None,
        )
        try:
            yield
        finally:
            await app.updater.stop()
            await app.stop()
            if app.post_stop is not None:  # as run_polling does, before the HTTP session closes
                await app.post_stop(app)


class Telegram:
    """The users' side of the emulator for one bot token: what people do and see."""

    def __init__(self, emulator: Emulator, token: str, *, connections: int = 100) -> None:
        self.emulator = emulator
        self.token = token
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        self._http = httpx.AsyncClient(base_url=emulator.url, timeout=10.0, limits=limits)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _call(self, route: str, body: dict[str, Any]) -> Any:
        response = await self._http.post(route, json=body)
        payload = response.json()
        if not payload.get("ok"):
            raise EmulatorError(payload.get("description", response.text))
        return payload["result"]

    async def send(
        self,
        user: User,
        chat: Chat,
        text: str,
        *,
        reply_to: BotMessage | None = None,
        forwarded_from: User | None = None,
    ) -> int:
        """`user` writes `text` in `chat` (as a reply to a bot message if `reply_to`; forwarding
        a message of `forwarded_from` if given); a leading /word is a bot command. Returns message_id."""
        message: dict[str, Any] = {
            "botToken": self.token,
            "from": user.to_api(),
            "chat": chat.to_api(),
            "date": int(time.time()),
            "text": text,
        }
        if reply_to is not None:
            message["reply_to_message"] = reply_to.raw
        if forwarded_from is not None:
            origin = {"type": "user", "date": int(time.time()) - 60, "sender_user": forwarded_from.to_api()}
            message["forward_origin"] = origin
        route = "/sendMessage"
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
            route = "/sendCommand"
        result = await self._call(route, message)
        return int(result["message_id"])

    async def press(self, user: User, message: BotMessage, data: str) -> str:
        """`user` presses the button with callback data `data`; returns the query id."""
        query = {
            "botToken": self.token,
            "from": user.to_api(),
            "message": {"message_id": message.message_id, "chat": {"id": message.chat_id}},
            "data": data,
        }
        result = await self._call("/sendCallback", query)
        return str(result["callback_query_id"])

    async def press_text(self, user: User, message: BotMessage, text: str) -> str:
        """`user` presses the button labelled `text` (see BotMessage.button)."""
        data = message.button(text).data
        if data is None:
            raise LookupError(f"button {text!r} carries no callback data")
        return await self.press(user, message, data)

    async def messages(self, chat: Chat | None = None, include_deleted: bool = False) -> list[BotMessage]:
        """The bot's messages in `chat` (all chats if None), oldest first, as shown now."""
        body: dict[str, Any] = {"token": self.token}
        if chat is not None:
            body["chatId"] = chat.id
        rows = await self._call("/botMessages", body)
        found = [
            BotMessage(
                row["message"],
                row["edit_count"],
                row["deleted"],
                row.get("sent_at_ms"),
                tuple(row.get("edited_at_ms") or ()),
            )
            for row in rows
        ]
        return [message for message in found if include_deleted or not message.deleted]

    async def last_message(self, chat: Chat) -> BotMessage | None:
        shown = await self.messages(chat)
        return shown[-1] if shown else None

    async def wait_message(
        self,
        chat: Chat,
        matches: Callable[[BotMessage], bool] = lambda message: True,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> BotMessage:
        """The newest message in `chat` that `matches`, waiting until one does."""

        async def newest() -> BotMessage | None:
            return next((m for m in reversed(await self.messages(chat)) if matches(m)), None)

        return await wait_for(newest, timeout, f"a matching bot message in chat {chat.id}")

    async def answer(self, query_id: str) -> CallbackAnswer | None:
        result = await self._call("/callbackAnswer", {"callbackQueryId": query_id})
        if not result:
            return None
        return CallbackAnswer(
            result["text"],
            result["show_alert"],
            result.get("pressed_at_ms"),
            result.get("answered_at_ms"),
            result.get("url"),
        )

    async def wait_answer(self, query_id: str, timeout: float = DEFAULT_TIMEOUT) -> CallbackAnswer:
        return await wait_for(lambda: self.answer(query_id), timeout, f"an answer to query {query_id}")

    async def photo(self, message: BotMessage) -> bytes:
        """The picture of a photo message, downloaded as the bot's file URL serves it."""
        if message.photo_id is None:
            raise LookupError(f"message {message.message_id} has no photo")
        response = await self._http.get(f"/file/bot{self.token}/photos/{message.photo_id}")
        response.raise_for_status()
        return response.content

    async def document(self, message: BotMessage) -> bytes:
        """The file of a document message, downloaded as the bot's file URL serves it."""
        if message.document is None:
            raise LookupError(f"message {message.message_id} has no document")
        response = await self._http.get(f"/file/bot{self.token}/documents/{message.document['file_id']}")
        response.raise_for_status()
        return response.content

    async def set_admins(self, chat: Chat, users: Sequence[User]) -> None:
        """Makes `users` the group's administrators; the first is its owner (creator)."""
        await self._call("/setChatAdministrators", {"chatId": chat.id, "userIds": [u.id for u in users]})

    async def delay_edits(self, min_ms: int, max_ms: int) -> None:
        """From now on the bot's edits take min_ms..max_ms to be applied (0, 0: at once)."""
        await self._call("/setEditDelay", {"token": self.token, "minMs": min_ms, "maxMs": max_ms})

    async def advance_clock(self, seconds: float) -> None:
        """Move this bot's emulator clock `seconds` on, at once: a keyboard an edit replaced, and a
        press waiting for its answer, are that much older (the one-second window a phone shows a
        replaced keyboard, `callback_ttl_seconds`). Tests of a rule about a duration move it
        instead of sleeping; message dates and the rate limits stay on the wall clock."""
        await self._call("/advanceClock", {"token": self.token, "ms": round(seconds * 1000)})

    async def set_privacy(self, enabled: bool) -> None:
        """Privacy mode on or off for this bot (see the module docstring)."""
        await self._call("/setPrivacy", {"token": self.token, "enabled": enabled})

    async def set_latency(self, ms: int | None) -> None:
        """Every Bot API request of this bot now takes an extra `ms` round trip (None: the
        server's default, ``--latency-ms`` / GUANDAN_EMULATOR_LATENCY_MS, again)."""
        await self._call("/setLatency", {"token": self.token, "ms": ms})

    async def enforce_limits(
        self,
        enabled: bool = True,
        *,
        group_per_minute: float = 20,
        group_edit_weight: float = 0,
        chat_per_second: float = 1,
        chat_burst: float = 3,
        global_per_second: float = 30,
        callback_ttl_seconds: float = 15,
    ) -> None:
        """Telegram's limits on (or off) for this bot, with fresh budgets and counters: a group
        takes `group_per_minute` new messages in any 60 s (an edit weighs `group_edit_weight`);
        a chat `chat_per_second` messages or edits a second, in bursts of up to `chat_burst`;
        the bot `global_per_second` messages and edits a second. Over a limit the request gets
        429 with retry_after and has no effect. answerCallbackQuery more than
        `callback_ttl_seconds` after the press gets 400 "query is too old"."""
        settings = {
            "groupPerMinute": group_per_minute,
            "groupEditWeight": group_edit_weight,
            "chatPerSecond": chat_per_second,
            "chatBurst": chat_burst,
            "globalPerSecond": global_per_second,
            "callbackTtlSeconds": callback_ttl_seconds,
        }
        await self._call("/setLimits", {"token": self.token, "enabled": enabled} | settings)

    async def limit_stats(self) -> LimitStats:
        """What the limits refused so far (since they were last turned on)."""
        stats = await self._call("/limitStats", {"token": self.token})
        return LimitStats(
            enabled=bool(stats["enabled"]),
            too_many_requests=int(stats["too_many_requests"]),
            by_limit={str(k): int(v) for k, v in stats["by_limit"].items()},
            by_chat={int(k): int(v) for k, v in stats["by_chat"].items()},
            too_old_callbacks=int(stats["too_old_callbacks"]),
            max_retry_after=int(stats["max_retry_after"]),
        )

    async def block_bot(self, user: User) -> None:
        """`user` blocks the bot: it gets a `my_chat_member` update (member → kicked), and its
        sends and edits in their private chat fail with 403 ("bot was blocked by the user")
        until they write to it again (e.g. /start), which unblocks it (kicked → member)."""
        await self._call("/blockBot", {"token": self.token, "user": user.to_api()})

    async def leave(self, user: User, chat: Chat) -> None:
        """`user` leaves the group: the bot gets the `left_chat_member` service message, and a
        `chat_member` update if its polling asked for those in allowed_updates."""
        await self._call("/leaveChat", {"token": self.token, "chatId": chat.id, "user": user.to_api()})

    async def join(self, user: User, chat: Chat) -> None:
        """`user` joins (or rejoins) the group: `new_chat_members`, and `chat_member` if asked."""
        await self._call("/joinChat", {"token": self.token, "chatId": chat.id, "user": user.to_api()})

    async def pending_updates(self) -> int:
        return int(await self._call("/pendingUpdates", {"token": self.token}))

    async def poll_stats(self) -> tuple[int, int]:
        """(getUpdates calls, overlaps): an overlap is two calls of this token open together on
        live connections 100 ms after the later came, i.e. two processes polling at once."""
        stats = await self._call("/pollStats", {"token": self.token})
        return int(stats["polls"]), int(stats["overlaps"])

    async def wait_idle(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Waits until the bot has fetched (not necessarily handled) every update sent so far."""

        async def drained() -> bool:
            return await self.pending_updates() == 0

        await wait_for(drained, timeout, "the bot to fetch its updates")
