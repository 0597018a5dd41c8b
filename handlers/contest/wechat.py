"""The contest's WeChat mirror: one text message POSTed to an Enterprise WeChat group robot per
announcement, written in Chinese when the event happens (the organiser's 中心微信群, 000-E).

The mirror has its own outbox lane (a pseudo chat id per contest), so a webhook that fails never
holds up the group's messages.
"""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp

from app.contest.store import ContestStore
from handlers.platform.outbox import Outbox, Payload, TryLater

WECHAT = "contest_wechat"  # the outbox kind
MIRROR_LANE = -(2**52)
"""The WeChat mirror's outbox lane of contest *k* is chat id ``MIRROR_LANE - k``: below every
Telegram chat id (supergroups are about -10¹²), so it is never a real chat, and a lane of
its own, so retries of a failing webhook never hold up a group's messages."""
WEBHOOK_TIMEOUT = 10.0  # seconds for one POST to the WeChat webhook
WEBHOOK_PREFIX = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key="


class WebhookFailed(TryLater):
    """The mirror's POST failed: the outbox logs one line, tries again a few times, then gives up."""


def mirror_post(outbox: Outbox, contest_id: int, text: str, key: str | None = None) -> None:
    """Queue one message for contest ``contest_id``'s mirror, in its own lane."""
    payload = {"contest_id": contest_id, "text": text}
    outbox.post(MIRROR_LANE - contest_id, WECHAT, payload, key=key)


@dataclass
class WeChatMirror:
    store: ContestStore
    _http: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None

    async def send(self, chat_id: int, payload: Payload) -> None:
        """POST one text message to the contest's Enterprise WeChat group robot."""
        url = await self.store.mirror(int(payload["contest_id"]))
        if url is None:
            return  # the mirror was turned off meanwhile
        body = {"msgtype": "text", "text": {"content": str(payload["text"])}}
        if self._http is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WEBHOOK_TIMEOUT))
        try:
            async with self._http.post(url, json=body) as response:
                answer = await response.json(content_type=None) if response.status == 200 else None
                status = response.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            raise WebhookFailed(f"contest {payload['contest_id']}: {type(error).__name__}") from None
        if status != 200 or not isinstance(answer, dict) or answer.get("errcode", 0) != 0:
            errcode = answer.get("errcode") if isinstance(answer, dict) else None
            raise WebhookFailed(f"contest {payload['contest_id']}: HTTP {status}, errcode {errcode}")
