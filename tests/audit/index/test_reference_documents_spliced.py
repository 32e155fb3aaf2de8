"""Documents the array rules leave to the reference tokenizer get their tokens spliced in at their place
(index/build.py ``_spliced``), whatever stands next to them."""

from __future__ import annotations

import numpy as np
from claimgate.audit.index.build import _spliced, build_corpus_index
from claimgate.audit.index.reference import build_corpus_index_reference

from tests.audit.index.test_index_build import _readable

_MAIL, _SOFT = "write to ops.team@corp.example today", "a soft\u00ad\nhyphen here"


def test_adjacent_first_and_last_reference_documents_equal_the_reference_build() -> None:
    for texts in (
        [_MAIL, _SOFT, "plain words", "more words"],
        ["plain words", _MAIL, _SOFT],
        [_MAIL],
        [_MAIL, "", _SOFT, "x"],
        ["", "y", _SOFT],
    ):
        docs = {f"d{i}": t for i, t in enumerate(texts)}
        assert _readable(build_corpus_index(docs)) == _readable(build_corpus_index_reference(docs)), texts


def test_spliced_puts_each_piece_before_the_next_documents_tokens() -> None:
    first = np.array([0, 2, 2, 2, 3])  # documents 1 and 2 have no tokens here: their pieces go in
    ids = np.array([10, 11, 12], dtype=np.int32)
    pieces = {2: ([30], [0], [1]), 1: ([20, 21], [0, 2], [1, 3])}
    out_ids, starts, ends, new_first = _spliced(first, pieces, ids, ids * 0, ids * 0 + 1)
    assert out_ids.tolist() == [10, 11, 20, 21, 30, 12]
    assert starts.tolist() == [0, 0, 0, 2, 0, 0]
    assert new_first.tolist() == [0, 2, 4, 5, 6]
    assert out_ids.dtype == np.int32
