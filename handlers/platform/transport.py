"""How the bot's requests reach the Bot API: aiohttp instead of PTB's default httpx.

Every press costs two or three Bot API requests (the callback answer, the hand edit, the
next player's turn), so the HTTP client's own CPU is a large share of a press. Against
the emulator (1,500 ``getMe`` calls, 20 at a time) httpx spent 1.6–2.1 ms of CPU per
request — httpcore re-examines every pooled connection and queued request each time one
starts or ends — and aiohttp 0.4–0.5 ms. Requests and errors keep PTB's contract (:class:`BaseRequest`):
timeouts become :class:`~telegram.error.TimedOut`, connection failures
:class:`~telegram.error.NetworkError`.
"""

from __future__ import annotations

import errno
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp.abc import AbstractStreamWriter
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from common import metrics

Admit = Callable[[], Awaitable[None]]
"""Asked before every request: returns when the request may go, raises when it may not (the
lease, ``storage/lease.py``: a standby that just took over waits, one that lost it stops)."""
Fence = Callable[[], None]
"""Asked again once the request holds its connection, just before its bytes are written (the
lease's validity at that moment): raises when it may not go."""


class _Refused(Exception):
    """The fence refused a request that held its connection: nothing was written."""


class AiohttpRequest(BaseRequest):
    """A PTB request backend on one :class:`aiohttp.ClientSession` with a bounded pool.

    ``connections`` bounds the requests in flight; a request waits at most
    ``pool_timeout`` for one to free up. aiohttp has no write timeout: a request that
    cannot be written within its read timeout fails as timed out instead. ``admit``, when
    set, is awaited before each attempt; ``fence`` is asked once the attempt holds its
    connection (a pooled one or a new one: aiohttp's connection trace), so the lease is checked
    right before the bytes go out, not before the wait for a free connection (up to
    ``pool_timeout`` + ``connect_timeout``). What either raises fails the request as a
    :class:`~telegram.error.NetworkError`, sent nowhere.
    """

    admit: Admit | None = None
    fence: Fence | None = None

    def __init__(
        self,
        *,
        connections: int = 8,
        read_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 10.0,
    ) -> None:
        self._connections = connections
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._connections, keepalive_timeout=KEEPALIVE)
            self._session = aiohttp.ClientSession(
                connector=connector,
                headers={"User-Agent": self.USER_AGENT},
                trace_configs=[self._fence_trace()] if self.fence is not None else None,
            )

    def _fence_trace(self) -> aiohttp.TraceConfig:
        """:attr:`fence` asked when a request has its connection, just before aiohttp writes it.
        A refusal there releases the connector's slot (aiohttp's own cleanup); the connection
        itself is dropped unused, which only happens to a process stepping down."""
        fence = self.fence
        assert fence is not None

        async def check(*_: object) -> None:
            try:
                fence()
            except Exception as refused:
                raise _Refused(str(refused)) from refused

        trace = aiohttp.TraceConfig()
        trace.on_connection_reuseconn.append(check)
        trace.on_connection_create_end.append(check)
        return trace

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        timeout = self._timeout(read_timeout, connect_timeout, pool_timeout)
        for attempt in range(2):
            await self._admitted()  # before the retry too: the first attempt may have waited long
            try:
                body, headers = _body(request_data)
                if self.fence is not None:
                    body, headers = await _fenced(body, headers, self.fence), None
                async with self._session.request(
                    method, url, data=body, headers=headers, timeout=timeout
                ) as response:
                    answer = response.status, await response.read()
            except _Refused as refused:
                raise NetworkError(f"not sent: {refused}") from refused
            except TimeoutError as error:
                metrics.telegram_failed("timed out")
                raise TimedOut from error
            except aiohttp.ClientError as error:
                if (fenced := _refusal(error)) is not None:
                    raise NetworkError(f"not sent: {fenced}") from fenced
                if attempt == 0 and _never_sent(error):
                    continue  # a pooled connection the server had closed: once more, on a new one
                failure = f"aiohttp.{error.__class__.__name__}: {error}"
                metrics.telegram_failed(failure)
                raise NetworkError(failure) from error
            _noted(url, request_data, answer[0])
            return answer
        raise AssertionError("unreachable")

    def _timeout(
        self, read_timeout: ODVInput[float], connect_timeout: ODVInput[float], pool_timeout: ODVInput[float]
    ) -> aiohttp.ClientTimeout:
        """The request's timeouts, this transport's own where PTB passes its default."""
        read = self._read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect_timeout if isinstance(connect_timeout, DefaultValue) else connect_timeout
        pool = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        return aiohttp.ClientTimeout(
            total=None,
            connect=None if pool is None or connect is None else pool + connect,  # a free slot, then
            sock_connect=connect,  # the connection itself
            sock_read=read,
        )

    async def _admitted(self) -> None:
        if self.admit is not None:
            try:
                await self.admit()
            except Exception as refused:
                raise NetworkError(f"not sent: {refused}") from refused


ANSWER = "/answerCallbackQuery"


def _noted(url: str, request_data: RequestData | None, status: int) -> None:
    """Tell the metrics (and the health check) that the Bot API answered; a press's answer
    that Telegram took ends the press's latency."""
    metrics.telegram_answered(status)
    if status == 200 and url.endswith(ANSWER):
        alert = request_data is not None and request_data.parameters.get("show_alert") is True
        metrics.press_answered(alert)


class UpdatesRequest(AiohttpRequest):
    """The ``getUpdates`` connection: updates arrive slimmed (:func:`slim_update`)."""

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        data = BaseRequest.parse_json_payload(payload)
        result = data.get("result")
        if isinstance(result, list):
            for update in result:
                slim_update(update)
        return data


HAND_PRESS = "h:"
"""The callback data of a private hand message's buttons (``app.table.callback_data.Area.HAND``)."""


def slim_update(update: object) -> None:
    """Drop from a hand press's update the parts of the pressed message no handler reads.

    Telegram sends the whole message with every press: its photo sizes, caption and keyboard.
    python-telegram-bot builds a frozen object for each part, thirty-odd buttons included, and
    at 150 tables that parsing was a tenth of the event loop's time. The hand handlers read the
    press and the message's chat and id only (the hand's state is the bot's own), so the
    picture, the caption and the keyboard are dropped before parsing; other buttons (a contest
    sheet's copy row) keep theirs."""
    if not isinstance(update, dict):
        return
    query = update.get("callback_query")
    if not isinstance(query, dict) or not str(query.get("data", "")).startswith(HAND_PRESS):
        return
    message = query.get("message")
    if isinstance(message, dict):
        for part in ("reply_markup", "photo", "caption", "caption_entities"):
            message.pop(part, None)


KEEPALIVE = 4.0
"""Seconds an idle pooled connection is kept. Servers close idle connections on their own
schedule (Node's HTTP server after 5 s); a request written into a connection the server is
closing fails, so connections are dropped before a common server timeout."""


def _never_sent(error: aiohttp.ClientError) -> bool:
    """The connection dropped before any answer: almost always a pooled connection the server
    had just closed as idle, so the request was never read and sending it once more on a new
    connection loses nothing. In the rare case the server had read it and the connection
    dropped before the answer, the message is sent twice: the price the outbox pays too
    (the Bot API has no idempotency key), and a lost answer or result is worse."""
    if isinstance(error, aiohttp.ServerDisconnectedError | aiohttp.ClientConnectionResetError):
        return True
    return isinstance(error, aiohttp.ClientOSError) and (
        error.errno in (errno.ECONNRESET, errno.EPIPE) or "Can not write request body" in str(error)
    )


FORM = {"Content-Type": "application/x-www-form-urlencoded"}


class _FencedBody(aiohttp.BytesPayload):
    """A request's body that asks the fence once more as it is written. aiohttp holds the
    headers back and writes them with the body, in a task of its own one turn of the event
    loop after the connection's check: a process frozen in that turn (SIGSTOP, a blocked loop)
    sent its request on waking, after the new leader's first (tests/e2e/test_fencing_e2e.py).
    Asked here, nothing runs between the check and the bytes leaving."""

    def __init__(self, value: bytes, content_type: str, fence: Fence) -> None:
        super().__init__(value, content_type=content_type)
        self._fence = fence

    async def write(self, writer: AbstractStreamWriter) -> None:
        self._check()
        await super().write(writer)

    async def write_with_length(self, writer: AbstractStreamWriter, content_length: int | None) -> None:
        self._check()
        await super().write_with_length(writer, content_length)

    def _check(self) -> None:
        try:
            self._fence()
        except Exception as refused:
            raise _Refused(str(refused)) from refused


async def _fenced(body: Any, headers: dict[str, str] | None, fence: Fence) -> _FencedBody:
    """The body as bytes behind the fence (a multipart form serialized whole: a picture is a
    few hundred KB at most; a request without parameters gets an empty form)."""
    if isinstance(body, aiohttp.FormData):
        multipart = body()
        return _FencedBody(await multipart.as_bytes(), multipart.content_type, fence)
    return _FencedBody(body or b"", (headers or FORM)["Content-Type"], fence)


def _refusal(error: BaseException) -> _Refused | None:
    """The fence's refusal behind a failed write (aiohttp reports it as a connection error)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, _Refused):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _body(request_data: RequestData | None) -> tuple[Any, dict[str, str] | None]:
    """The request's parameters as PTB encodes them, and their headers: a form, multipart when
    files go along. A form without files is encoded here: aiohttp's ``FormData`` builds a
    multipart writer (and a random boundary) for every request even when it sends none, which
    was a fiftieth of the event loop's time at 150 tables."""
    if request_data is None:
        return None, None
    if not request_data.contains_files:
        return urlencode(request_data.json_parameters).encode(), FORM
    # quote_fields=False: names as RFC 7578 (and browsers, and PTB's own httpx) send them, raw
    # UTF-8 with " and \ escaped. aiohttp's default percent-encodes them, and Telegram shows
    # the encoding itself: 测试杯.csv arrived as %E6%B5%8B%E8%AF%95%E6%9D%AF.csv.
    form = aiohttp.FormData(quote_fields=False)
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mime_type) in request_data.multipart_data.items():
        form.add_field(name, content, filename=_header_safe(filename), content_type=mime_type)
    return form, None


_CONTROL = {code: f"%{code:02X}" for code in range(0x20) if code != 0x1B}


def _header_safe(filename: str) -> str:
    """A file name that cannot break its header line: control characters (CR, LF…)
    percent-encoded as httpx does; quotes and backslashes are escaped by aiohttp."""
    return filename.translate(_CONTROL)
