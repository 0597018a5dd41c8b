"""The verifiable draw: recomputable from the published seed with the standard library alone."""

from __future__ import annotations

import hashlib
import hmac
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.contest import (
    DrawRefused,
    DrawSeed,
    Entry,
    Refusal,
    draw,
    draw_pairs,
    verify_commitment,
)
from engine.contest.lots import Lots

from .support import ON_TIME, SEED, player, signed_up


def reference_shuffle(seed_hex: str, label: str, items: list[int]) -> list[int]:
    """The module docstring's algorithm, written out again from the text (not imported)."""
    key = bytes.fromhex(seed_hex)

    def integers():
        for block in itertools.count():
            digest = hmac.new(key, f"{label}:{block}".encode(), hashlib.sha256).digest()
            for i in range(0, 32, 8):
                yield int.from_bytes(digest[i : i + 8], "big")

    stream = integers()

    def below(n: int) -> int:
        while (u := next(stream)) >= 2**64 - 2**64 % n:
            pass
        return u % n

    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def test_commitment_is_sha256_of_the_seed_and_verifies() -> None:
    assert SEED.commitment == hashlib.sha256(SEED.secret).hexdigest()
    assert verify_commitment(SEED.hex, SEED.commitment)
    other = DrawSeed(bytes(32))
    assert not verify_commitment(other.hex, SEED.commitment)
    assert SEED.hex not in repr(SEED)  # the secret never leaks through a log line


def test_generated_seeds_differ_and_are_32_bytes() -> None:
    a, b = DrawSeed.generate(), DrawSeed.generate()
    assert len(a.secret) == 32 and a != b


@given(st.binary(min_size=16, max_size=40), st.text(max_size=10), st.lists(st.integers(), max_size=30))
def test_shuffle_matches_the_documented_algorithm(secret: bytes, label: str, items: list[int]) -> None:
    assert list(Lots(secret, label).shuffle(items)) == reference_shuffle(secret.hex(), label, items)


def test_known_answer_pins_the_algorithm() -> None:
    """A golden value: changing the lots would silently change every published draw."""
    assert Lots(SEED.secret, "numbers").shuffle(range(1, 9)) == (6, 8, 1, 7, 3, 5, 4, 2)


def test_labels_give_independent_streams() -> None:
    items = list(range(20))
    assert SEED.lots("round:1").shuffle(items) != SEED.lots("round:2").shuffle(items)


def test_the_draw_is_recomputed_from_the_published_seed() -> None:
    """What a sceptical entrant does after the draw, from the docstrings only."""
    contest = signed_up(pairs=4, singles=4)
    contest, events = draw(contest, now=ON_TIME)
    assert contest.published_seed == SEED.hex == events[0].seed_hex  # type: ignore[union-attr]
    singles = reference_shuffle(contest.published_seed, "singles", [500, 501, 502, 503])
    lot_pairs = [sorted(singles[i : i + 2]) for i in (0, 2)]
    everyone = sorted([[100, 101], [102, 103], [104, 105], [106, 107], *lot_pairs])
    numbered = reference_shuffle(contest.published_seed, "numbers", list(range(len(everyone))))
    expected = {k + 1: everyone[index] for k, index in enumerate(numbered)}
    assert {p.number: sorted(p.user_ids) for p in contest.pairs} == expected
    round1 = reference_shuffle(contest.published_seed, "round:1", sorted(expected))
    assert [m.pairs for m in contest.rounds[0].matches] == [
        (round1[i], round1[i + 1]) for i in range(0, len(round1), 2)
    ]


def test_singles_are_paired_by_lot_and_pairs_numbered_one_to_n() -> None:
    contest, _ = draw(signed_up(pairs=6, singles=4), now=ON_TIME)
    numbers = sorted(p.number for p in contest.pairs)
    assert numbers == list(range(1, 9))
    by_lot = [p for p in contest.pairs if p.by_lot]
    assert len(by_lot) == 2
    assert sorted(uid for p in by_lot for uid in p.user_ids) == [500, 501, 502, 503]
    registered = {tuple(sorted(p.user_ids)) for p in contest.pairs if not p.by_lot}
    assert registered == {(100 + 2 * k, 101 + 2 * k) for k in range(6)}


def test_sign_up_order_does_not_change_the_draw() -> None:
    entries = [
        Entry(player(1), player(2), True),
        Entry(player(3)),
        Entry(player(4)),
        Entry(player(5), player(6), True),
    ]
    reference = draw_pairs(entries, SEED)
    for order in itertools.permutations(entries):
        assert draw_pairs(order, SEED) == reference


def test_another_seed_gives_another_draw() -> None:
    entries = [Entry(player(k)) for k in range(16)]
    assert draw_pairs(entries, SEED) != draw_pairs(entries, DrawSeed(bytes(range(32))))


def test_an_unconfirmed_invitation_leaves_the_inviter_single() -> None:
    entries = [
        Entry(player(1), player(2), confirmed=False),
        Entry(player(3)),
        Entry(player(4), player(5), True),
    ]
    pairs = draw_pairs(entries, SEED)
    drawn = next(p for p in pairs if p.by_lot)
    assert sorted(drawn.user_ids) == [1, 3]
    assert all(2 not in p.user_ids for p in pairs)


@pytest.mark.parametrize(
    ("entries", "code"),
    [
        ([Entry(player(1)), Entry(player(2)), Entry(player(3))], Refusal.ODD_SINGLES),
        ([Entry(player(1), player(2), True)], Refusal.TOO_FEW_PAIRS),
        ([Entry(player(1)), Entry(player(2))], Refusal.TOO_FEW_PAIRS),
    ],
)
def test_undrawable_entrants_are_refused(entries: list[Entry], code: Refusal) -> None:
    with pytest.raises(DrawRefused) as refused:
        draw_pairs(entries, SEED)
    assert refused.value.code is code
