"""Match codes: the short key a pairing is opened by (``/newgame match=K7QXM3RT``).

Derived from the contest's seed, the round and the table, so a draw recomputed from
the published seed also reproduces its codes, and nothing extra has to be kept
secret or random. Eight symbols from an alphabet without look-alikes (no 0/O, 1/I/L)
give 31⁸ ≈ 8.5·10¹¹ codes: storage still enforces uniqueness, but a clash between
two contests' codes is not a practical concern. Typed codes are read leniently
(case, spaces and dashes ignored).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Final

ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
LENGTH: Final = 8


def match_code(secret: bytes, round_number: int, table: int) -> str:
    """The code of table ``table`` in round ``round_number``: HMAC-SHA256(seed, "code:r:t")."""
    digest = hmac.new(secret, f"code:{round_number}:{table}".encode(), hashlib.sha256).digest()
    value = int.from_bytes(digest, "big")
    symbols = []
    for _ in range(LENGTH):
        value, index = divmod(value, len(ALPHABET))
        symbols.append(ALPHABET[index])
    return "".join(symbols)


def normalize_code(text: str) -> str:
    """A typed code in canonical form: upper case, no spaces or dashes."""
    return "".join(ch for ch in text.upper() if ch not in " -_")
