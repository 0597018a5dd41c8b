"""Verifiable lots (抽签): a secret seed committed to in advance, and HMAC-SHA256 draws.

Why: the organiser's draw must be fair *and* checkable. When sign-up opens the bot
publishes ``SHA-256(seed)`` (the commitment); after the draw it publishes the seed.
Anyone can then check the commitment and recompute every lot with a few lines of
Python's standard library, because each lot is this documented function:

1. **Byte stream** for a label (e.g. ``"singles"``, ``"numbers"``, ``"round:2"``): the
   concatenation of ``HMAC-SHA256(key=seed, msg=f"{label}:{i}".encode())`` for
   ``i = 0, 1, 2, …``.
2. **Integers** are read from the stream 8 bytes at a time, big-endian unsigned.
3. **A number below n** (``below(n)``): read integers ``u`` until
   ``u < 2**64 - (2**64 % n)`` (rejection, so no value is favoured), return ``u % n``.
4. **Shuffle** (Fisher–Yates): for ``i`` from ``len(xs) - 1`` down to ``1``, swap
   ``xs[i]`` with ``xs[below(i + 1)]``. Each shuffle uses a fresh stream for its label.

What is shuffled, and in which starting order, is documented where the lots are
drawn (:mod:`engine.contest.entrants`, :mod:`engine.contest.formats`); every input
list is first sorted by a stable key (user ids, group numbers), never by sign-up
time, so the result depends only on the seed and *who* entered.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

_T = TypeVar("_T")
_SPAN: Final = 2**64
SEED_BYTES: Final = 32  # 256 bits: the commitment cannot be brute-forced


@dataclass(frozen=True, slots=True)
class DrawSeed:
    """The organiser's secret; its SHA-256 is published before the draw, itself after."""

    secret: bytes

    def __post_init__(self) -> None:
        if len(self.secret) < 16:
            raise ValueError("a draw seed needs at least 16 bytes")

    @classmethod
    def generate(cls) -> DrawSeed:
        """A fresh random seed: the only non-deterministic step of a contest."""
        return cls(secrets.token_bytes(SEED_BYTES))

    @classmethod
    def from_hex(cls, text: str) -> DrawSeed:
        return cls(bytes.fromhex(text.strip()))

    @property
    def hex(self) -> str:
        return self.secret.hex()

    @property
    def commitment(self) -> str:
        """``SHA-256(seed)`` in hex: published when sign-up opens."""
        return hashlib.sha256(self.secret).hexdigest()

    def lots(self, label: str) -> Lots:
        return Lots(self.secret, label)

    def __repr__(self) -> str:
        return f"DrawSeed(commitment={self.commitment[:12]}…)"  # never print the secret


def verify_commitment(seed_hex: str, commitment: str) -> bool:
    """Whether a published seed matches the commitment published before the draw."""
    return hmac.compare_digest(hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest(), commitment.lower())


class Lots:
    """One labelled stream of lots (see the module docstring for the exact bytes)."""

    def __init__(self, secret: bytes, label: str) -> None:
        self._numbers = _integers(secret, label)

    def below(self, n: int) -> int:
        """A uniform number in ``range(n)``."""
        if n < 1:
            raise ValueError("below(n) needs n >= 1")
        limit = _SPAN - _SPAN % n
        while True:
            value = next(self._numbers)
            if value < limit:
                return value % n

    def shuffle(self, items: Sequence[_T]) -> tuple[_T, ...]:
        """A Fisher–Yates permutation of ``items`` (the input is not changed)."""
        order = list(items)
        for i in range(len(order) - 1, 0, -1):
            j = self.below(i + 1)
            order[i], order[j] = order[j], order[i]
        return tuple(order)


def _integers(secret: bytes, label: str) -> Iterator[int]:
    block = 0
    while True:
        digest = hmac.new(secret, f"{label}:{block}".encode(), hashlib.sha256).digest()
        for start in range(0, len(digest), 8):
            yield int.from_bytes(digest[start : start + 8], "big")
        block += 1
