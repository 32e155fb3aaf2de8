"""The array-built corpus index equals the reference build, document for document and posting for posting."""

from __future__ import annotations

import json

import numpy as np
import pytest
from claimgate.audit.index import build as index_build
from claimgate.audit.index import postings as postings_module
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.index.reference import build_corpus_index_reference
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.text.normalize import folded_with_maps
from claimgate.audit.text.reference import _normalized_string
from claimgate.synthetic.audit_inputs import make_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.text.strategies import TRIGGER_TEXT, real_docstrings
from tests.helpers import FIXTURES

_TRICKY = [*"aeEnt019.,'’-‐–−%±× \n\r\t\u00a0\u00adﬁßİоé⁶₁<_^人…[]", "not ", "don't ", "n’", "-\n", "...", "[sic]"]
_TEXT = st.lists(st.sampled_from(_TRICKY) | st.characters(max_codepoint=0x2400), max_size=40).map("".join)


def _ascending(postings) -> bool:
    """Keys distinct and ascending, documents ascending within each key, offsets spanning the documents."""
    steps = np.diff(postings.docs.astype(np.int64))
    within = np.ones(len(steps), dtype=bool)
    within[postings.offsets[1:-1] - 1] = False
    return bool(
        np.all(np.diff(postings.keys) > 0)
        and np.all(steps[within] > 0)
        and postings.offsets[0] == 0
        and postings.offsets[-1] == len(postings.docs)
        and np.all(np.diff(postings.offsets) > 0)
    )


def _readable(index: CorpusIndex) -> dict:
    """Everything an index holds, with token ids spelled as their strings (id numbering may differ)."""
    word = index.strings.__getitem__
    docs = {}
    for d in index.docs:
        docs[d.doc_id] = (
            d.original,
            [word(i) for i in np.frombuffer(d.token_bytes, dtype=np.int32)],
            list(d.starts),
            list(d.ends),
            {p: [(word(w), end) for w, end in r] for p, r in d.joined_words.items()},
            list(d.negations),
            list(d.elision_stops),
            d.has_ellipsis,
            d.brackets,
        )
    uni_keys, uni_docs = index.token_postings.expanded()
    bi_keys, bi_docs = index.pair_postings.expanded()
    uni = sorted((word(k), int(n)) for k, n in zip(uni_keys.tolist(), uni_docs))
    bi = sorted((word(k >> 32), word(k & 0xFFFFFFFF), int(n)) for k, n in zip(bi_keys.tolist(), bi_docs))
    ascending = all(_ascending(p) for p in (index.token_postings, index.pair_postings))
    return {"ids": index.doc_ids, "docs": docs, "uni": uni, "bi": bi, "sorted": ascending}


def test_array_build_equals_the_reference_on_the_benchmark_corpus(monkeypatch) -> None:
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 20_000)  # several chunks
    docs, _, _, _ = make_corpus(120, 3)
    assert _readable(build_corpus_index(docs)) == _readable(build_corpus_index_reference(docs))


def test_array_build_equals_the_reference_on_the_fixture_corpus() -> None:
    docs = json.loads((FIXTURES / "audit" / "corpus.json").read_text())
    assert _readable(build_corpus_index(docs)) == _readable(build_corpus_index_reference(docs))


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=6))
def test_array_build_equals_the_reference_on_random_documents(texts: list[str]) -> None:
    docs = {f"d{i}": t for i, t in enumerate(texts)}
    assert _readable(build_corpus_index(docs)) == _readable(build_corpus_index_reference(docs))


@settings(max_examples=500, deadline=None)
@given(_TEXT)
def test_offset_maps_built_by_numpy_equal_the_reference(text: str) -> None:
    norm, start, end = folded_with_maps(text)
    ref_norm, ref_start, ref_end = _normalized_string(text)
    assert norm == ref_norm
    assert (start is None) == (ref_start is None)
    if start is not None:
        assert start.tolist() == list(ref_start) and end.tolist() == list(ref_end)


def test_empty_corpus_gives_an_empty_index() -> None:
    index = build_corpus_index({})
    assert len(index) == 0 and len(index.token_postings) == 0 and len(index.pair_postings) == 0


def _in(blocks, lo: int, hi: int):
    """``blocks`` restricted to keys whose first id is in ``lo..hi-1`` (what a pass asks for)."""
    for keys, docs in blocks:
        chosen = ((keys >> 32) >= lo) & ((keys >> 32) < hi)
        yield keys[chosen], docs[chosen]


def _pairs_of(postings) -> list[tuple[int, int]]:
    keys, docs = postings.expanded()
    return list(zip(keys.tolist(), docs.tolist()))


@pytest.mark.parametrize("n_docs", [60, 1 << 52])  # ids and document pack into one int64; then too wide to pack
def test_postings_in_passes_equal_a_lexsort_of_the_distinct_pairs(monkeypatch, n_docs) -> None:
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 50, size=(2, 400))
    keys = (ids[0] << 32) | ids[1]
    docs = rng.integers(7, 60, size=400)
    blocks = [(keys[:150], docs[:150]), (keys[150:], docs[150:]), (keys[:40], docs[:40])]  # pairs seen twice
    counts = np.bincount(np.concatenate([k >> 32 for k, _ in blocks]), minlength=50)
    expected = sorted(set(zip(keys.tolist(), docs.tolist())))
    assert (postings_module._Packing.fitting(50, n_docs) is None) == (n_docs > 60)
    for pass_keys in (1 << 22, 37):  # one pass, then many
        monkeypatch.setattr(postings_module, "PASS_KEYS", pass_keys)
        built = postings_module.postings_in_passes(lambda lo, hi: _in(blocks, lo, hi), counts, 50, n_docs)
        assert _pairs_of(built) == expected and _ascending(built)


def test_array_build_in_many_postings_passes_equals_the_reference(monkeypatch) -> None:
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 5_000)  # many token segments
    monkeypatch.setattr(postings_module, "PASS_KEYS", 300)  # and many passes over them
    docs, _, _, _ = make_corpus(40, 4)
    docs["hyphens"] = "A well-\nknown line-\nend hyphen, then a non-\nbreaking one."
    assert _readable(build_corpus_index(docs)) == _readable(build_corpus_index_reference(docs))


#: Documents the array rules tokenize but whose negations need the token scan: a negator prefix (Turkish
#: ``değil…``, Persian ``نمی…``) or a script with no negator list (Georgian), beside plain Latin text.
TOKEN_SCAN_DOCS = {
    "tr": "Bu yöntem güvenli değildir ve üretimde kullanılmamalıdır.",
    "fa": "این روش نمی‌تواند امن باشد.",
    "ka": "ეს მეთოდი არ არის უსაფრთხო production-ში.",
    "en": "The method is not safe for production use.",
}


def test_array_build_equals_the_reference_for_negator_prefixes_and_unlisted_scripts() -> None:
    built = build_corpus_index(TOKEN_SCAN_DOCS)
    assert _readable(built) == _readable(build_corpus_index_reference(TOKEN_SCAN_DOCS))
    stops = {d.doc_id: list(d.elision_stops) for d in built.docs}
    assert stops["ka"] and stops["tr"] and stops["fa"]  # each has a position no ellipsis may hide


@settings(max_examples=200, deadline=None)
@given(st.lists(TRIGGER_TEXT, max_size=6))
def test_array_build_equals_the_reference_on_what_real_documents_hold(texts: list[str]) -> None:
    docs = {f"d{i}": t for i, t in enumerate(texts)}
    assert _readable(build_corpus_index(docs)) == _readable(build_corpus_index_reference(docs))


def test_array_build_equals_the_reference_on_real_docstrings(monkeypatch) -> None:
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 100_000)  # several chunks
    docs = {f"doc{i:04d}": text for i, text in enumerate(real_docstrings(400))}
    assert _readable(build_corpus_index(docs)) == _readable(build_corpus_index_reference(docs))


def test_footnote_markers_get_their_reading_without_the_reference_tokenizer() -> None:
    docs = {"fn": "The rate[4] rose by 3%, as Smith[1, 2] said.", "code": "Set x[0] = 1 and a[1][2]."}
    built = build_corpus_index(docs)
    assert _readable(built) == _readable(build_corpus_index_reference(docs))
    assert built.docs[built.doc_ids.index("fn")].joined_words  # 'rate rose' is a reading too
