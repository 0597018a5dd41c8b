"""The Mini App's settings: without ``GUANDAN_WEBAPP_URL`` there is no Mini App and the bot runs
exactly as before (no server, no 🃏 button).

- ``GUANDAN_WEBAPP_URL``: the page's public HTTPS address, as registered with @BotFather (a TLS
  proxy in front forwards it to the port below);
- ``GUANDAN_WEBAPP_PORT`` (default 8443) and ``GUANDAN_WEBAPP_LISTEN`` (default 127.0.0.1: the
  proxy is on the same machine; ``0.0.0.0`` in a container);
- ``GUANDAN_WEBAPP_MAX_AGE``: seconds an ``initData`` stays good (default a day).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from webapp.initdata import DEFAULT_MAX_AGE

DEFAULT_PORT = 8443


@dataclass(frozen=True, slots=True)
class WebAppConfig:
    url: str
    port: int = DEFAULT_PORT
    host: str = "127.0.0.1"
    max_age: float = DEFAULT_MAX_AGE

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> WebAppConfig | None:
        """None without a URL; :class:`ValueError` (said plainly) for a setting that is wrong."""
        url = env.get("GUANDAN_WEBAPP_URL", "").strip()
        if not url:
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http") or not parts.netloc:
            raise ValueError(f"GUANDAN_WEBAPP_URL={url!r} is not an http(s) address")
        port = env.get("GUANDAN_WEBAPP_PORT", "").strip() or str(DEFAULT_PORT)
        if not port.isdigit() or not 0 <= int(port) < 65536:  # 0: any free port (tests)
            raise ValueError(f"GUANDAN_WEBAPP_PORT={port!r} is not a port number (0-65535)")
        age = env.get("GUANDAN_WEBAPP_MAX_AGE", "").strip() or str(DEFAULT_MAX_AGE)
        try:
            max_age = float(age)
        except ValueError:
            raise ValueError(f"GUANDAN_WEBAPP_MAX_AGE={age!r} is not a number of seconds") from None
        host = env.get("GUANDAN_WEBAPP_LISTEN", "").strip() or "127.0.0.1"
        return cls(url, int(port), host, max_age)

    @property
    def origin(self) -> str:
        """``scheme://host[:port]`` of the public URL: the Origin a genuine page sends."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    def table_url(self, table_id: int) -> str:
        """The page for one table (the 🃏 button's URL); the seat still comes from initData."""
        return f"{self.url.split('#', 1)[0].split('?', 1)[0]}?t={table_id}"
