"""A run of documents normalized together (``normalized_chunk``) gives each document the reference's tokens.

The case rule reads the run's texts at once and spells the mixed-case words of ASCII
documents as written without a Python call (docs/audit-rules.md, "Case"); a non-ASCII
document before an ASCII one shifts the folded text against the original, so runs mix both.
"""

from __future__ import annotations

from claimgate.audit.text.normalize import normalized_chunk
from claimgate.audit.text.reference import NormalizedText, normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.text.strategies import TRIGGER_TEXT, real_docstrings

_CASE_PIECES = ["readTimeout", "HTTPServer", "iPhone", "ABc", "aB", "DataFrame", "5 MB", "5MB", "10 ms", "x_Y",
                "fooBar++", "Straße", "ﬁle", "İstanbul", "Ünïcode", "naïveBayes", "½", "ⅫB", "−5 MB", "Ms"]  # fmt: skip
_CASE_TEXT = st.lists(st.sampled_from(_CASE_PIECES) | st.sampled_from([" ", "\n", ", ", "-\n", "."]), max_size=20)


def _documents(chunk) -> list[NormalizedText | None]:
    """Each document of ``chunk`` as a ``NormalizedText`` (``None``: left to the reference tokenizer)."""
    tokens, starts, ends = chunk.tokens.to_pylist(), chunk.starts.tolist(), chunk.ends.tolist()
    out = []
    for k, text in enumerate(chunk.originals):
        if k in chunk.reference:
            out.append(None)
            continue
        lo, hi = int(chunk.first[k]), int(chunk.first[k + 1])
        joins = tuple(chunk.joins.get(k, ()))
        out.append(NormalizedText(text, tuple(tokens[lo:hi]), tuple(starts[lo:hi]), tuple(ends[lo:hi]), joins))
    return out


def _assert_equal_to_reference(texts: list[str]) -> None:
    for text, got in zip(texts, _documents(normalized_chunk(texts)), strict=True):
        if got is not None:
            assert got == normalize_text_reference(text), text[:200]


@settings(max_examples=400, deadline=None)
@given(st.lists(TRIGGER_TEXT | _CASE_TEXT.map("".join), min_size=1, max_size=6))
def test_chunk_of_ascii_and_other_documents_equals_the_reference(texts: list[str]) -> None:
    _assert_equal_to_reference(texts)


def test_mixed_case_words_of_an_ascii_document_after_a_folded_one_keep_their_case() -> None:
    texts = ["ﬁne Straße ½ İ", "call readTimeout on HTTPServer, not readtimeout", "5 MB and 5 mb"]
    docs = _documents(normalized_chunk(texts))
    assert docs[1].tokens == ("call", "readTimeout", "on", "HTTPServer", "not", "readtimeout")
    assert docs[2].tokens == ("5", "MB", "and", "5", "mb")
    _assert_equal_to_reference(texts)


def test_a_link_keeps_no_case_even_when_mixed() -> None:
    texts = ["é", "see https://Example.com/readTimeout or readTimeout"]
    tokens = _documents(normalized_chunk(texts))[1].tokens
    assert tokens == ("see", "https://example.com/readtimeout", "or", "readTimeout")


def test_chunks_of_real_docstrings_equal_the_reference() -> None:
    docs = real_docstrings()
    for lo in range(0, len(docs), 250):
        _assert_equal_to_reference(docs[lo : lo + 250])


def _surrogates(token: str) -> list[str]:
    return [c for c in token if 0xD800 <= ord(c) <= 0xDFFF]


@settings(max_examples=300, deadline=None)
@given(st.lists(TRIGGER_TEXT, min_size=1, max_size=4))
def test_no_token_holds_a_lone_surrogate(texts: list[str]) -> None:
    # docs/audit-rules.md, "Normalization", 7: a lone surrogate separates tokens, a URL's included
    for text in texts:
        assert not any(_surrogates(t) for t in normalize_text_reference(text).tokens), text
    chunk = normalized_chunk(texts)
    assert not any(_surrogates(t) for t in chunk.tokens.to_pylist())


def test_a_lone_surrogate_separates_words_and_ends_a_link() -> None:
    text = "see https://x.org/a\ud800b or x\udfffy"
    assert normalize_text_reference(text).tokens == ("see", "https://x.org/a", "b", "or", "x", "y")
    _assert_equal_to_reference([text, "plain words", "é \udc80 é"])
