"""Compressed-row postings: the same (key, document) pairs and lookups as one key per posting."""

from __future__ import annotations

import numpy as np
import pytest
from claimgate.audit.index import postings as postings_module
from claimgate.audit.index.postings import Postings
from hypothesis import given, settings
from hypothesis import strategies as st

_PAIRS = st.sets(st.tuples(st.integers(-3, 40), st.integers(0, 12)), max_size=60)


def _from_pairs(pairs: set[tuple[int, int]]) -> Postings:
    ordered = sorted(pairs)
    keys = np.array([k for k, _ in ordered], dtype=np.int64)
    docs = np.array([d for _, d in ordered], dtype=np.int32)
    return Postings.from_sorted(keys, docs)


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])
@settings(max_examples=100, deadline=None)
@given(pairs=_PAIRS)
def test_postings_read_back_every_pair_across_pass_blocks(block, pairs) -> None:
    saved, postings_module._BLOCK = postings_module._BLOCK, block  # a pass over the keys in blocks of this size
    try:
        built = _from_pairs(pairs)
    finally:
        postings_module._BLOCK = saved
    keys, docs = built.expanded()
    assert list(zip(keys.tolist(), docs.tolist())) == sorted(pairs)
    assert built.keys.tolist() == sorted({k for k, _ in pairs})
    assert len(built.offsets) == len(built.keys) + 1 and len(built) == len(pairs)


@settings(max_examples=200, deadline=None)
@given(pairs=_PAIRS, wanted=st.lists(st.integers(-5, 45), max_size=12), doc=st.integers(0, 12))
def test_ranges_and_held_by_agree_with_the_pairs(pairs, wanted, doc) -> None:
    built = _from_pairs(pairs)
    lo, hi = built.ranges(np.array(wanted, dtype=np.int64))
    for key, first, end in zip(wanted, lo.tolist(), hi.tolist()):
        assert built.docs[first:end].tolist() == sorted(d for k, d in pairs if k == key)
    held = built.held_by(np.array(wanted, dtype=np.int64), doc)
    assert held.tolist() == [(key, doc) in pairs for key in wanted]
    gathered = built.gathered(lo, hi)
    assert gathered.tolist() == [d for key in wanted for d in sorted(d for k, d in pairs if k == key)]
