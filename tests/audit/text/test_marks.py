"""The marks' fast searches (text/marks.py) equal the plain regex searches, on random and real text."""

from __future__ import annotations

import numpy as np
from claimgate.audit.index.chunk_facts import chunk_marks as _chunk_marks
from claimgate.audit.text.marks import (
    _DOT_SPELLING_RE,
    DOT_SPELLINGS,
    ELLIPSIS_RE,
    FOOTNOTE_RE,
    ellipsis_starts,
    fold_ellipses,
    has_footnote_marker,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.text.strategies import TRIGGER_TEXT, real_docstrings

#: Pieces of ellipses and footnote markers in their spellings, and what stands around them.
MARK_PIECES = [
    ".", "..", "...", ". . .", ".\u00a0.", "\t", "[", "]", "[...]", "[ . . . ]", "[…]", "…", "⋯", "．", "‥",
    "[1]", "[^2]", "[3, 7]", "[12–14]", "[0]", "x", "rate", " ", "\n", "`", "1", "9", "^", ",", "-", "\x00",
]  # fmt: skip
MARK_TEXT = st.lists(st.sampled_from(MARK_PIECES) | st.text(alphabet=".[]^1x \n…", max_size=3), max_size=25).map(
    "".join
)


def _plain_ellipsis_documents(texts: list[str]) -> set[int]:
    return {k for k, t in enumerate(texts) if ELLIPSIS_RE.search(fold_ellipses(t))}


@settings(max_examples=400, deadline=None)
@given(MARK_TEXT | TRIGGER_TEXT)
def test_footnote_search_from_brackets_equals_the_plain_search(text: str) -> None:
    assert has_footnote_marker(text) == (FOOTNOTE_RE.search(text) is not None)


@settings(max_examples=300, deadline=None)
@given(st.lists(MARK_TEXT | TRIGGER_TEXT, max_size=6))
def test_chunk_ellipsis_documents_equal_a_search_per_document(texts: list[str]) -> None:
    assert _chunk_marks(texts)[0] == _plain_ellipsis_documents(texts)


@settings(max_examples=300, deadline=None)
@given(MARK_TEXT)
def test_ellipsis_starts_say_where_the_pattern_matches(text: str) -> None:
    """Every start is a match of the pattern's alternatives; none means no match at all."""
    starts = ellipsis_starts(text)
    assert bool(starts) == (ELLIPSIS_RE.search(text) is not None)
    assert all(ELLIPSIS_RE.match(text, p) for p in starts)


def test_ellipsis_starts_of_each_spelling() -> None:
    assert ellipsis_starts("a ... b") == [2]
    assert ellipsis_starts("see [ . . . ] and …") == [4, 6, 18]  # the dots inside the bracket match too
    assert ellipsis_starts("a. b. c") == []
    assert ellipsis_starts(".. note::") == []


def test_fold_ellipses_leaves_ascii_alone_and_folds_every_spelling() -> None:
    plain = "a ... b [1]"
    assert fold_ellipses(plain) is plain  # ASCII holds no other spelling: no pass over it
    for spelling, dots in DOT_SPELLINGS.items():
        assert fold_ellipses(f"a{spelling}b") == f"a{dots}b"
    assert fold_ellipses("é…") == _DOT_SPELLING_RE.sub(lambda m: DOT_SPELLINGS[m.group()], "é…")


def test_footnote_markers_found_only_after_a_word() -> None:
    assert has_footnote_marker("the rate[4] rose")
    assert has_footnote_marker("rose[^2].")
    assert not has_footnote_marker("x [4] rose")  # no word before the bracket
    assert not has_footnote_marker("a[0] = 1")  # numbers start at 1
    assert not has_footnote_marker("no brackets")


def test_marks_on_real_docstrings() -> None:
    docs = real_docstrings()
    assert [has_footnote_marker(d) for d in docs] == [FOOTNOTE_RE.search(d) is not None for d in docs]
    for lo in range(0, len(docs), 300):
        chunk = docs[lo : lo + 300]
        assert _chunk_marks(chunk)[0] == _plain_ellipsis_documents(chunk)
    assert any(_chunk_marks(docs)[0])  # the real text holds ellipses


def test_a_nul_inside_a_document_does_not_move_its_ellipsis_to_another() -> None:
    texts = ["a\x00...", "b", "c … d", "\x00", "x\x00. . .\x00"]
    assert _chunk_marks(texts)[0] == {0, 2, 4} == _plain_ellipsis_documents(texts)
    assert np.all(np.diff(ellipsis_starts("... x ...")) > 0)
