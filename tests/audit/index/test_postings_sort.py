"""The postings passes' sort (index/postings.py ``_sorted``): ascending int64 whatever the range of the values."""

from __future__ import annotations

import numpy as np
from claimgate.audit.index.postings import _sorted
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 1 << 62), max_size=60),
    st.integers(0, 1 << 40),
    st.sampled_from([1, 1 << 10, 1 << 31, (1 << 32) - 1, 1 << 32, 1 << 33, 1 << 62]),
)
def test_sorted_equals_numpy_sort_on_narrow_and_wide_ranges(values: list[int], base: int, width: int) -> None:
    packed = np.asarray([base + v % width for v in values], dtype=np.int64)
    got = _sorted(packed.copy())
    assert got.dtype == np.int64
    assert got.tolist() == sorted(packed.tolist())


def test_sorted_at_the_edges_of_the_narrow_range() -> None:
    edge = np.asarray([7 + (1 << 32) - 1, 7, 8], dtype=np.int64)  # a span of 2**32 - 1: fits in 32 bits
    assert _sorted(edge.copy()).tolist() == [7, 8, 7 + (1 << 32) - 1]
    wide = np.asarray([7 + (1 << 32), 7, 8], dtype=np.int64)  # one more: sorted as int64
    assert _sorted(wide.copy()).tolist() == [7, 8, 7 + (1 << 32)]
    assert _sorted(np.empty(0, np.int64)).tolist() == []
