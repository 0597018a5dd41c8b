"""The aiohttp Bot API transport keeps PTB's request contract: replies, timeouts, failures."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from telegram import InputFile, Update
from telegram.error import NetworkError, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from handlers.platform.transport import AiohttpRequest, UpdatesRequest


async def _server(reply: bytes | None) -> tuple[asyncio.Server, str, list[bytes]]:
    """A one-route HTTP server on loopback: answers ``reply`` or never answers."""
    received: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        received.append(head + await reader.readexactly(length))
        if reply is None:  # never answer: hold the request until the client gives up and closes
            await reader.read()
            return
        writer.write(
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(reply), reply)
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/bot1:x/sendMessage", received


async def test_a_reply_comes_back_with_its_status_and_the_form_was_sent() -> None:
    server, url, received = await _server(b'{"ok":true,"result":true}')
    request = AiohttpRequest()
    await request.initialize()
    form = RequestData(
        [RequestParameter.from_input("chat_id", 7), RequestParameter.from_input("text", "出牌")]
    )
    status, body = await request.do_request(url, "POST", form)
    photo = InputFile(b"\x89PNG-bytes", filename="hand.png")
    upload = RequestData(
        [RequestParameter.from_input("chat_id", 7), RequestParameter.from_input("photo", photo)]
    )
    await request.do_request(url, "POST", upload)
    await request.shutdown()
    server.close()
    assert (status, body) == (200, b'{"ok":true,"result":true}')
    assert b"chat_id=7" in received[0] and b"text=%E5%87%BA%E7%89%8C" in received[0]
    assert b"multipart/form-data" in received[1] and b'filename="hand.png"' in received[1]
    assert b"\x89PNG-bytes" in received[1]


async def test_a_silent_server_times_out_and_a_closed_port_is_a_network_error() -> None:
    server, url, _ = await _server(None)
    request = AiohttpRequest(read_timeout=0.2)
    await request.initialize()
    with pytest.raises(TimedOut):
        await request.do_request(url, "POST", None)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with pytest.raises(NetworkError):
        await request.do_request(f"http://127.0.0.1:{closed}/bot1:x/getMe", "POST", None)
    await request.shutdown()
    server.close()


async def test_a_request_into_a_connection_the_server_dropped_is_sent_again_once() -> None:
    """A server drops an idle kept-alive connection while the next request is being written
    into it (Node's HTTP server closes idle ones after 5 s): the server never read that
    request, so it is sent once more on a new connection instead of failing the send."""
    served: list[int] = []
    connections = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        first_connection = connections == 1
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return
            length = next(
                int(v.split(b":")[1]) for v in head.split(b"\r\n") if v.lower().startswith(b"content-length")
            )
            if first_connection and served:  # the second request on the kept-alive connection
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                writer.transport.abort()  # a reset while the body is still being written
                return
            await reader.readexactly(length)
            served.append(length)
            body = b'{"ok":true,"result":true}'
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/bot1:x/sendPhoto"
    request = AiohttpRequest(connections=1)
    await request.initialize()
    photo = InputFile(b"\x89PNG" + bytes(4_000_000), filename="result.png")

    def upload() -> RequestData:
        return RequestData(
            [RequestParameter.from_input("chat_id", 7), RequestParameter.from_input("photo", photo)]
        )

    try:
        assert (await request.do_request(url, "POST", upload()))[0] == 200
        assert (await request.do_request(url, "POST", upload()))[0] == 200
    finally:
        await request.shutdown()
        server.close()
    assert len(served) == 2 and connections == 2  # the dropped request was read once, on a new connection


async def test_a_file_name_is_sent_as_raw_utf8_in_the_multipart_header() -> None:
    """RFC 7578, as browsers and httpx do: 测试杯.csv, not %E6%B5%8B…; " and \\ escaped."""
    server, url, received = await _server(b'{"ok":true,"result":true}')
    request = AiohttpRequest()
    await request.initialize()
    for filename in ("测试杯.csv", 'a"b\\c.csv', "x\r\ny.csv"):
        document = InputFile(b"group,name\r\n", filename=filename)
        upload = RequestData(
            [
                RequestParameter.from_input("chat_id", 7),
                RequestParameter.from_input("caption", "测试杯"),
                RequestParameter.from_input("document", document),
            ]
        )
        await request.do_request(url, "POST", upload)
    await request.shutdown()
    server.close()
    assert 'filename="测试杯.csv"'.encode() in received[0] and b"%E6%B5%8B" not in received[0]
    assert "测试杯".encode() in received[0]  # the caption as it is
    assert b'filename="a\\"b\\\\c.csv"' in received[1]
    assert b'filename="x%0D%0Ay.csv"' in received[2]


def _press_update(data: str) -> dict[str, object]:
    """A callback update as Telegram sends it: the pressed message whole, keyboard included."""
    keyboard = [[{"text": f"♠{n}", "callback_data": f"{data}:{n}"} for n in range(8)] for _ in range(5)]
    return {
        "update_id": 9,
        "callback_query": {
            "id": "77",
            "from": {"id": 5, "is_bot": False, "first_name": "Ann"},
            "chat_instance": "1",
            "data": data,
            "message": {
                "message_id": 42,
                "date": 1,
                "chat": {"id": 5, "type": "private"},
                "photo": [{"file_id": "p", "file_unique_id": "u", "width": 9, "height": 9}],
                "caption": "轮到你",
                "caption_entities": [{"type": "bold", "offset": 0, "length": 3}],
                "reply_markup": {"inline_keyboard": keyboard},
            },
        },
    }


def test_a_hand_press_arrives_without_the_pressed_messages_picture_caption_and_keyboard() -> None:
    """Parsing the pressed hand message's 40 buttons was a tenth of the loop's time at 150
    tables; the hand handlers read only the press, the chat and the message id."""
    payload = {"ok": True, "result": [_press_update("h:1:2:3:t"), _press_update("c:1:x")]}
    result = UpdatesRequest.parse_json_payload(json.dumps(payload).encode())["result"]
    hand, other = (Update.de_json(update, None) for update in result)
    assert hand.callback_query.data == "h:1:2:3:t" and hand.effective_chat.id == 5
    assert hand.callback_query.message.message_id == 42
    assert hand.callback_query.message.reply_markup is None and not hand.callback_query.message.photo
    assert other.callback_query.message.reply_markup is not None  # a contest sheet reads its own
    assert other.callback_query.message.caption == "轮到你"


async def test_the_lease_is_checked_once_a_request_holds_its_connection() -> None:
    """Issue 40: a request that waited for a free connection is checked again when it gets one,
    right before it is written; a refusal sends nothing and is a NetworkError."""
    server, url, received = await _server(None)  # never answers: its one connection stays busy
    request = AiohttpRequest(connections=1, read_timeout=5.0, pool_timeout=10.0)
    valid = True

    def fence() -> None:
        if not valid:
            raise RuntimeError("lease lost")

    async def admit() -> None:
        fence()

    request.admit, request.fence = admit, fence
    await request.initialize()
    form = RequestData([RequestParameter.from_input("chat_id", 7)])
    first = asyncio.create_task(request.do_request(url, "POST", form))
    while not received:
        await asyncio.sleep(0.01)
    queued = asyncio.create_task(request.do_request(url, "POST", form))  # admitted, then waits
    for _ in range(1000):
        if _waiting_for_a_connection(request) == 1:
            break
        await asyncio.sleep(0.01)
    assert _waiting_for_a_connection(request) == 1
    valid = False  # the lease is lost while it waits for the connection
    first.cancel()  # the connection frees up
    with pytest.raises(NetworkError, match="not sent: lease lost"):
        await asyncio.wait_for(queued, 10)
    assert len(received) == 1  # the queued request never reached the server
    with pytest.raises(NetworkError, match="not sent"):
        await request.do_request(url, "POST", form)
    await request.shutdown()
    server.close()


async def test_the_lease_is_checked_again_as_the_bytes_leave() -> None:
    """Issue 40: aiohttp writes a request's headers with its body, a turn of the event loop
    after the connection's check; a process frozen in that turn woke and sent it after the new
    leader's first request. The body asks the fence itself: nothing reaches the server."""
    written: list[bytes] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while chunk := await reader.read(65536):
            written.append(chunk)
        writer.close()

    server = await asyncio.start_server(record, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/bot1:x/sendMessage"
    checks: list[str] = []

    def fence() -> None:  # valid when the connection is taken, lost by the time it is written
        checks.append("checked")
        if len(checks) > 1:
            raise RuntimeError("lease lost while frozen")

    request = AiohttpRequest(connections=1, read_timeout=5.0)
    request.fence = fence
    await request.initialize()
    form = RequestData([RequestParameter.from_input("chat_id", 7)])
    with pytest.raises(NetworkError, match="not sent: lease lost while frozen"):
        await request.do_request(url, "POST", form)
    await request.shutdown()
    server.close()
    await server.wait_closed()
    assert checks == ["checked", "checked"] and b"".join(written) == b""


def _waiting_for_a_connection(request: AiohttpRequest) -> int:
    assert request._session is not None
    connector = request._session.connector
    return sum(len(waiting) for waiting in getattr(connector, "_waiters", {}).values())
