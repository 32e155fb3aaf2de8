"""``reuse._edited``, the splice of an edit, equals postings built from scratch of the same pairs (property)."""

from __future__ import annotations

import numpy as np
from claimgate.audit.index import reuse
from claimgate.audit.index.postings import Postings
from hypothesis import given, settings
from hypothesis import strategies as st

PAIRS = st.sets(st.tuples(st.integers(0, 40), st.integers(0, 12)), max_size=120)


def _postings(pairs) -> Postings:
    ordered = sorted(pairs)
    keys = np.array([k for k, _ in ordered], np.int64)
    docs = np.array([d for _, d in ordered], np.int32)
    return Postings.from_sorted(keys, docs)


@settings(max_examples=300, deadline=None)
@given(
    PAIRS,
    st.sets(st.integers(0, 12), min_size=1, max_size=4),
    PAIRS,
    st.sampled_from([1, 3, 1 << 20]),
    st.sampled_from([0, 5, 20_000]),  # the whole-array steps past EDIT_CUTS places, and the runs below it
)
def test_the_edit_splice_equals_a_build_of_the_kept_and_new_pairs(old, dropped, fresh, block, cuts):
    fresh = {(k, d) for k, d in fresh if d in dropped}  # the rebuilt documents' new pairs
    expected = _postings({(k, d) for k, d in old if d not in dropped} | fresh)
    new_keys = np.array([k for k, _ in sorted(fresh)], np.int64)
    new_docs = np.array([d for _, d in sorted(fresh)], np.int64)
    saved = reuse._RUN_BLOCK, reuse.EDIT_CUTS
    reuse._RUN_BLOCK, reuse.EDIT_CUTS = block, cuts  # small blocks: the block loops' seams are crossed
    try:
        got = reuse._edited(_postings(old), np.array(sorted(dropped), np.int32), new_keys[::-1], new_docs[::-1])
    finally:
        reuse._RUN_BLOCK, reuse.EDIT_CUTS = saved
    assert got.keys.dtype == np.int64 and got.docs.dtype == np.int32
    assert got.keys.tolist() == expected.keys.tolist()
    assert got.offsets.tolist() == expected.offsets.tolist()
    assert got.docs.tolist() == expected.docs.tolist()
