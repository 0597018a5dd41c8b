"""What the bot shows of a person's name or unit tag: without the characters that rewrite the
screen around it.

A right-to-left override (U+202E) in a display name turns the rest of a line around
("…报名 ‮组3蛋掼" reads as something else), and zero-width characters make two names that
look the same differ, or hide text. They are removed from every name and tag the bot stores
or shows, in text and pictures (pictures also drop every other invisible character, see
:func:`render.text.printable`).
"""

from __future__ import annotations

import re
from typing import Final

HIDDEN: Final = re.compile(
    "["
    "\u202a-\u202e"  # bidi embeddings and overrides (LRE, RLE, PDF, LRO, RLO)
    "\u2066-\u2069"  # bidi isolates (LRI, RLI, FSI, PDI)
    "\u200e\u200f\u061c"  # left-to-right, right-to-left and Arabic letter marks
    "\u200b-\u200d"  # zero-width space, non-joiner, joiner
    "\u2060\ufeff"  # word joiner, zero-width no-break space (BOM)
    "]"
)


def clean_name(text: str) -> str:
    """``text`` without bidi controls and zero-width characters."""
    return HIDDEN.sub("", text)
