"""The document table: documents made on access equal the build's, after pickling too."""

from __future__ import annotations

import pickle

import pytest
from claimgate.audit.index import build as index_build
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.index.document_table import DocumentTable
from claimgate.audit.index.reference import build_corpus_index_reference
from claimgate.synthetic.audit_inputs import make_corpus

from tests.audit.index.test_index_build import TOKEN_SCAN_DOCS, _readable


def _fields(doc) -> tuple:
    return (doc.doc_id, doc.original, doc.token_bytes, list(doc.starts), list(doc.ends), doc.joined_words,
            list(doc.negations), list(doc.elision_stops), doc.elision_stops is doc.negations, doc.has_ellipsis,
            doc.brackets)  # fmt: skip


def _corpus() -> dict[str, str]:
    docs, _, _, _ = make_corpus(30, 2)
    return {**docs, **TOKEN_SCAN_DOCS, "empty": "", "hyphens": "a well-\nknown word [sic] ... and more"}


def test_pickled_index_gives_the_same_documents(monkeypatch) -> None:
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 3_000)  # several segments
    index = build_corpus_index(_corpus())
    assert isinstance(index.docs, DocumentTable) and len(index.docs.segments) > 1
    index.docs[3]  # noqa: B018 - fills the table's views and recent documents, which must not travel
    copy = pickle.loads(pickle.dumps(index))
    assert [_fields(d) for d in copy.docs] == [_fields(d) for d in index.docs]
    assert _readable(copy) == _readable(build_corpus_index_reference(_corpus()))


def test_table_made_from_a_list_of_documents_gives_them_back() -> None:
    reference = build_corpus_index_reference(_corpus())
    table = DocumentTable.from_documents(reference.docs)
    assert [_fields(d) for d in table] == [_fields(d) for d in reference.docs]


def test_negative_and_out_of_range_numbers() -> None:
    table = build_corpus_index(_corpus()).docs
    assert _fields(table[-1]) == _fields(table[len(table) - 1])
    with pytest.raises(IndexError):
        table[len(table)]
    with pytest.raises(IndexError):
        table[-len(table) - 1]


def test_offsets_are_uint16_below_2_16_characters_and_int32_past_them(monkeypatch) -> None:
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 50_000)  # the long document has a segment of its own
    long_text = ("word " * 14_000) + "the end of a long page"  # about 70,000 characters
    docs = {**_corpus(), "long": long_text}
    index = build_corpus_index(docs)
    dtypes = {s.starts.dtype.name for s in index.docs.segments} | {s.ends.dtype.name for s in index.docs.segments}
    assert dtypes == {"uint16", "int32"}
    wide = [s for s in index.docs.segments if s.ends.dtype == "int32"]
    assert len(wide) == 1 and int(wide[0].ends.max()) >= 1 << 16
    assert _readable(index) == _readable(build_corpus_index_reference(docs))  # every offset as the reference's
    assert list(index.docs[index.doc_number("long")].ends)[-1] == len(long_text)


def test_narrowing_keeps_every_offset(monkeypatch) -> None:
    import numpy as np
    from claimgate.audit.index.document_table import narrow_offsets

    starts, ends = np.array([0, 5, 65_530], np.int32), np.array([4, 9, 65_535], np.int32)
    narrow = narrow_offsets(starts, ends)
    assert [a.dtype.name for a in narrow] == ["uint16", "uint16"]
    assert narrow[0].tolist() == starts.tolist() and narrow[1].tolist() == ends.tolist()
    wide = narrow_offsets(starts, np.array([4, 9, 65_536], np.int32))
    assert [a.dtype.name for a in wide] == ["int32", "int32"] and wide[0] is starts
    assert narrow_offsets(*narrow)[0] is narrow[0]  # no copy of what is narrow already


def test_token_ids_are_uint16_until_the_vocabulary_passes_2_16_strings(monkeypatch) -> None:
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 100_000)
    many = {f"w{k:03d}": " ".join(f"t{k}x{j}" for j in range(2_000)) for k in range(40)}  # 80,000 strings
    docs = {**_corpus(), **many}
    index = build_corpus_index(docs)
    kinds = [s.token_ids.dtype.name for s in index.docs.segments]
    assert kinds[0] == "uint16" and kinds[-1] == "int32" and len(index.strings) > 1 << 16
    assert all(int(s.token_ids.max()) < 1 << 16 for s in index.docs.segments if s.token_ids.dtype == "uint16")
    assert _readable(index) == _readable(build_corpus_index_reference(docs))
