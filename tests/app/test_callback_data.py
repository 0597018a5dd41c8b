"""The callback-data codec: round trips, the 64-byte limit, forged payloads refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.table.callback_data import MAX_BYTES, Area, BadCallback, Op, Press


@given(
    area=st.sampled_from(Area),
    table_id=st.integers(0, 10**12),
    version=st.integers(0, 10**6),
    check=st.integers(0, 2**32 - 1),
    op=st.sampled_from(Op),
    arg=st.none() | st.integers(0, 99),
    count=st.none() | st.integers(0, 2),
)
def test_round_trip_within_64_bytes(area, table_id, version, check, op, arg, count) -> None:
    press = Press(area, table_id, version, check, op, arg, None if arg is None else count)
    data = press.encode()
    assert len(data.encode()) <= MAX_BYTES
    assert Press.decode(data) == press


@pytest.mark.parametrize(
    "data",
    [
        "",
        "h",
        "h:1:2:3",
        "q:1:2:3:t:5",  # unknown area
        "h:1:2:3:zz",  # unknown op
        "h:1:2:3:t:-5",  # negative argument
        "h:x:2:3:t",
        "h:1:2:3:t:5:6:7",
        "h:1:2:3:t:5:²",
        "h:1:2:3:t: 5",
        "h:99999999999999999999:2:3:t",
    ],
)
def test_forged_or_foreign_data_is_refused(data: str) -> None:
    with pytest.raises(BadCallback):
        Press.decode(data)


def test_overlong_payload_cannot_be_built() -> None:
    with pytest.raises(ValueError, match="too long"):
        Press(Area.HAND, 10**60, 10**10, 1, Op.TOGGLE, 1).encode()
