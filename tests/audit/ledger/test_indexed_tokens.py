"""A recheck's fingerprints read a changed document's tokens from its index (``audit.recheck.indexed_tokens``):
the tokens and starts ``normalize_text`` gives, so the fingerprints are the ones the ledger recorded."""

from __future__ import annotations

import inspect
import json
import textwrap

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.ledger import fingerprint
from claimgate.audit.recheck import indexed_tokens
from claimgate.audit.text.normalize import normalize_text
from hypothesis import given, settings
from hypothesis import strategies as st

#: Pieces that reach every rule: line-end hyphens, e-mail addresses and links, mixed case and units, numbers
#: with marks, symbols, combining marks, scripts written without spaces, ellipses and footnote markers.
PIECES = [
    "The cache keeps 40 entries", "Reli-\nable", "ops.team@corp.example", "https://example.org/a_b?x=1",
    "readTimeout", "HTTPServer", "5 MB", "10 ms", "3.14", "1,000", "x^2", "C++", "F#", "a <= b", "!=",
    "e\u0301t\u00e9", "\u65e5\u672c\u8a9e", "\u0e20\u0e32\u0e29\u0e32", "...", "\u2026", "[1]", "not", "never",
    "cannot", "\u00bd", "\u00b2", "\u2212", "snake_case", "(only)", "\u00ad", "-", "  ", "\n", "\t", ",", ".",
]  # fmt: skip


def assert_index_tokens_equal(texts: dict[str, str]) -> None:
    index = build_corpus_index(texts)
    for doc_id, text in texts.items():
        expected = normalize_text(text)
        got = indexed_tokens(index, index.doc_number(doc_id))
        assert got.tokens == list(expected.tokens)
        assert list(got.starts) == list(expected.starts)
        for start in range(0, len(text), max(1, len(text) // 4)):
            spans = [{"start": start, "end": min(len(text), start + 12)}]
            assert fingerprint(text, spans, got) == fingerprint(text, spans)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=14).map(" ".join), min_size=1, max_size=4))
def test_the_index_holds_the_tokens_normalize_text_gives(texts):
    assert_index_tokens_equal({f"d{i}": text for i, text in enumerate(texts)})


@pytest.mark.parametrize("module", [json, inspect, textwrap])
def test_the_index_holds_the_tokens_of_real_docstrings(module):
    texts = {name: obj.__doc__ for name, obj in vars(module).items() if callable(obj) and (obj.__doc__ or "").strip()}
    assert len(texts) > 3
    assert_index_tokens_equal(texts)
