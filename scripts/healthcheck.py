"""The Docker image's HEALTHCHECK: exit 0 when the bot's /healthz answers 200, 1 otherwise.

Standard library only (the slim image has no curl): asks ``http://127.0.0.1:$GUANDAN_METRICS_PORT/healthz``
and prints the answer (the reasons, when unhealthy), which ``docker inspect`` shows.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

TIMEOUT = 9.0
"""Seconds to wait for the answer: the bot's own checks take at most about 9 s."""


def main() -> int:
    port = os.environ.get("GUANDAN_METRICS_PORT", "").strip()
    if not port:
        print("GUANDAN_METRICS_PORT is not set: the bot serves no /healthz")
        return 1
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
            print(answer.read().decode(errors="replace").strip())
            return 0
    except urllib.error.HTTPError as refused:
        print(f"{refused.code}: {refused.read().decode(errors='replace').strip()}")
    except OSError as error:
        print(f"no answer from {url}: {error}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
