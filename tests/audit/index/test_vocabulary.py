"""The index build's vocabulary (index/build.py ``_Vocabulary``): ids in first-seen order, looked up in C."""

from __future__ import annotations

import pyarrow as pa
from claimgate.audit.index.build import _Vocabulary
from hypothesis import given, settings
from hypothesis import strategies as st


def _one_by_one(chunks: list[list[str]], between: list[list[str]]) -> tuple[list[list[int]], list[str]]:
    """The ids a token-by-token intern gives (the rule the array encoding must keep)."""
    vocab = _Vocabulary()
    out = []
    for chunk, extra in zip(chunks, between, strict=True):
        out.append([vocab.intern(t) for t in chunk])
        for t in extra:
            vocab.intern(t)
    return out, vocab.strings


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", "c", "é", "DataFrame", "", "≥", "x y"]), max_size=12),
            st.lists(st.sampled_from(["b", "joined", "é", "zz"]), max_size=3),
        ),
        max_size=5,
    )
)
def test_encode_gives_the_ids_of_interning_one_token_at_a_time(steps) -> None:
    chunks = [c for c, _ in steps]
    between = [e for _, e in steps]
    vocab = _Vocabulary()
    got = []
    for chunk, extra in zip(chunks, between, strict=True):
        got.append(vocab.encode(pa.array(chunk, pa.large_string())).tolist())
        for t in extra:  # words interned between chunks (reference documents, joined words)
            vocab.intern(t)
    want, strings = _one_by_one(chunks, between)
    assert got == want
    assert vocab.strings == strings
    assert vocab.ids == {t: i for i, t in enumerate(strings)}


def test_new_tokens_get_ids_in_the_order_they_are_first_seen() -> None:
    vocab = _Vocabulary()
    assert vocab.encode(pa.array(["b", "a", "b"], pa.large_string())).tolist() == [0, 1, 0]
    vocab.intern("c")
    assert vocab.encode(pa.array(["d", "c", "a", "d"], pa.large_string())).tolist() == [3, 2, 1, 3]
    assert vocab.encode(pa.array([], pa.large_string())).tolist() == []
