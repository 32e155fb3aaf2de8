"""``audit.index.ahead``: a forked helper's chunk facts give the index the build gives alone, byte for byte.

The rule (docs/audit-rules.md, "Indexing a big corpus file"): the build takes a helper's facts of a chunk only
when they are that chunk's (number, documents, texts) and well-formed; anything else is ignored, and the
stored index is the same file either way.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from claimgate.audit.index import ahead as ahead_module
from claimgate.audit.index import build as index_build
from claimgate.audit.index import cache as index_cache
from claimgate.audit.index.ahead import ChunksAhead, chunk_record, chunks_ahead_for, facts_of_record
from claimgate.audit.index.build import build_corpus_index, chunk_ranges
from claimgate.audit.index.chunk_facts import chunk_facts
from claimgate.audit.text.normalize import normalized_chunk
from claimgate.runtime.helper_process import helper_available
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.index.test_index_build import _TEXT, TOKEN_SCAN_DOCS
from tests.audit.text.strategies import TRIGGER_TEXT, real_docstrings

needs_fork = pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")


def stored_bytes(index, documents: dict, folder: Path) -> bytes:
    """The index as the cache stores it: every array and the vocabulary in its numbering."""
    folder.mkdir(exist_ok=True)
    return index_cache.store_index(folder, index_cache.corpus_key(documents), index).read_bytes()


class RecordsAhead:
    """Facts of chosen chunks passed through their records (as the helper's are), without a process."""

    def __init__(self, documents: dict, chunks: set[int] | None = None, damage=None) -> None:
        doc_ids = sorted(documents)
        self.records = {}
        for number, numbers in enumerate(chunk_ranges(doc_ids, documents)):
            if chunks is None or number in chunks:
                originals = [documents[doc_ids[k]] for k in numbers]
                record = chunk_record(number, numbers, chunk_facts(normalized_chunk(originals)))
                self.records[number] = record if damage is None else damage(record)
        self.taken = self.stops = 0

    def facts(self, number: int, numbers: range, originals: list[str]):
        record = self.records.get(number)
        facts = None if record is None else facts_of_record(record, number, numbers, originals)
        self.taken += facts is not None
        return facts

    def stop(self) -> None:
        self.stops += 1


def _documents(texts: list[str]) -> dict:
    return {f"d{i:03d}": t for i, t in enumerate(texts)}


@settings(max_examples=150, deadline=None)
@given(st.lists(_TEXT | TRIGGER_TEXT, max_size=12), st.sets(st.integers(0, 12)), st.integers(40, 400))
def test_any_chunks_taken_from_records_give_the_same_stored_index(tmp_path_factory, texts, chunks, chunk_chars):
    documents = {**_documents(texts), **({"z-scan": TOKEN_SCAN_DOCS[next(iter(TOKEN_SCAN_DOCS))]} if chunks else {})}
    saved = index_build.CHUNK_CHARS
    index_build.CHUNK_CHARS = chunk_chars  # several chunks of a few documents
    try:
        ahead = RecordsAhead(documents, chunks)
        with_ahead = build_corpus_index(documents, ahead)
        alone = build_corpus_index(documents)
    finally:
        index_build.CHUNK_CHARS = saved
    assert ahead.taken == len(ahead.records) and ahead.stops == 1
    folder = tmp_path_factory.mktemp("stored")
    assert stored_bytes(with_ahead, documents, folder / "a") == stored_bytes(alone, documents, folder / "b")


def test_every_chunk_of_real_docstrings_taken_from_records_gives_the_same_stored_index(monkeypatch, tmp_path):
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 50_000)
    documents = {**_documents(real_docstrings(600)), **TOKEN_SCAN_DOCS}
    ahead = RecordsAhead(documents)
    with_ahead = build_corpus_index(documents, ahead)
    assert ahead.taken == len(chunk_ranges(sorted(documents), documents)) > 5
    alone = build_corpus_index(documents)
    assert stored_bytes(with_ahead, documents, tmp_path / "a") == stored_bytes(alone, documents, tmp_path / "b")


def _truncated(record: bytes) -> bytes:
    return record[: len(record) // 2]


def _garbage(record: bytes) -> bytes:
    return bytes(len(record))


@pytest.mark.parametrize("damage", [_truncated, _garbage, lambda r: b"", lambda r: r[:-1] + bytes([r[-1] ^ 1])])
def test_a_damaged_record_is_ignored_and_the_index_is_the_same(damage, monkeypatch, tmp_path):
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 30_000)
    documents = _documents(real_docstrings(200))
    ahead = RecordsAhead(documents, damage=damage)
    with_ahead = build_corpus_index(documents, ahead)
    assert ahead.taken == 0
    assert stored_bytes(with_ahead, documents, tmp_path / "a") == stored_bytes(
        build_corpus_index(documents), documents, tmp_path / "b"
    )


def test_facts_of_other_texts_or_another_chunk_are_not_taken(monkeypatch):
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 5_000)
    documents = _documents(real_docstrings(100))
    doc_ids = sorted(documents)
    ranges = chunk_ranges(doc_ids, documents)
    assert len(ranges) > 2
    numbers = ranges[1]
    originals = [documents[doc_ids[k]] for k in numbers]
    record = chunk_record(1, numbers, chunk_facts(normalized_chunk(originals)))
    assert facts_of_record(record, 1, numbers, originals) is not None
    edited = [*originals[:-1], originals[-1] + " not"]  # the file changed between the two reads
    assert facts_of_record(record, 1, numbers, edited) is None
    assert facts_of_record(record, 2, numbers, originals) is None  # another chunk's number
    assert facts_of_record(record, 1, range(numbers.start, numbers.stop - 1), originals[:-1]) is None


def test_facts_with_an_array_of_another_dtype_or_length_are_not_taken():
    originals = ["The value is not None.", "A second [sic] text … with an ellipsis"]
    numbers = range(0, 2)

    def record_with(change) -> bytes:
        facts = chunk_facts(normalized_chunk(originals))
        change(facts)
        return chunk_record(0, numbers, facts)

    assert facts_of_record(record_with(lambda f: None), 0, numbers, originals) is not None
    changes = [
        lambda f: setattr(f.chunk, "starts", f.chunk.starts.astype(np.int64)),
        lambda f: setattr(f.chunk, "ends", f.chunk.ends[:-1]),
        lambda f: setattr(f.chunk, "first", f.chunk.first[::-1].copy()),
        lambda f: setattr(f, "negating", np.asarray([10**6], np.int64)),
        lambda f: setattr(f, "footnoted", {5}),
        lambda f: setattr(f.chunk, "tokens", f.chunk.tokens.dictionary),
    ]
    for change in changes:
        assert facts_of_record(record_with(change), 0, numbers, originals) is None


def _corpus_file(tmp_path: Path, documents: dict) -> Path:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(documents), encoding="utf-8")
    return path


def _wait_until_finished(ahead: ChunksAhead, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not ahead._helper.finished and time.monotonic() < deadline:
        ahead._places.update(_places_arrived(ahead))
        time.sleep(0.02)


def _places_arrived(ahead: ChunksAhead) -> dict:
    return {n: (o, length) for n, o, length in (ahead_module._NOTICE.unpack(m) for m in ahead._helper.arrived())}


@needs_fork
def test_a_forked_helper_normalizes_every_chunk_of_a_corpus_file_and_the_index_is_the_same(monkeypatch, tmp_path):
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 40_000)
    monkeypatch.setattr(ahead_module, "AHEAD_FROM_BYTES", 0)
    documents = {**_documents(real_docstrings(400)), **TOKEN_SCAN_DOCS}
    path = _corpus_file(tmp_path, documents)
    with chunks_ahead_for(path, 1 << 30, 1 << 30) as ahead:
        assert ahead._helper._process.pid != os.getpid()
        _wait_until_finished(ahead)  # then every chunk is there to take
        with_ahead = build_corpus_index(documents, ahead)
    assert ahead.taken == len(chunk_ranges(sorted(documents), documents)) > 3
    alone = build_corpus_index(documents)
    assert stored_bytes(with_ahead, documents, tmp_path / "a") == stored_bytes(alone, documents, tmp_path / "b")


@needs_fork
def test_a_helper_that_read_another_file_or_was_killed_changes_nothing(monkeypatch, tmp_path):
    monkeypatch.setattr(index_build, "CHUNK_CHARS", 40_000)
    monkeypatch.setattr(ahead_module, "AHEAD_FROM_BYTES", 0)
    documents = _documents(real_docstrings(300))
    first = documents["d000"]
    other = {**documents, "d000": ("X" if first[0] != "X" else "Y") + first[1:]}  # same length: the same chunks
    alone = stored_bytes(build_corpus_index(documents), documents, tmp_path / "alone")
    with chunks_ahead_for(_corpus_file(tmp_path, other), 1 << 30, 1 << 30) as ahead:
        _wait_until_finished(ahead)
        index = build_corpus_index(documents, ahead)
    assert ahead.taken == len(chunk_ranges(sorted(documents), documents)) - 1  # all but the edited document's
    assert stored_bytes(index, documents, tmp_path / "other") == alone
    with chunks_ahead_for(_corpus_file(tmp_path, documents), 1 << 30, 1 << 30) as ahead:
        os.kill(ahead._helper._process.pid, signal.SIGKILL)
        ahead._helper._process.join(30)
        index = build_corpus_index(documents, ahead)
    assert stored_bytes(index, documents, tmp_path / "killed") == alone


def test_no_helper_for_a_small_or_big_file_or_one_that_is_not_a_regular_file(monkeypatch, tmp_path):
    small = _corpus_file(tmp_path, {"a": "text"})
    assert chunks_ahead_for(small, 1 << 30, 1 << 30) is None  # below AHEAD_FROM_BYTES
    monkeypatch.setattr(ahead_module, "AHEAD_FROM_BYTES", 0)
    monkeypatch.setattr(ahead_module, "AHEAD_TO_BYTES", small.stat().st_size - 1)
    assert chunks_ahead_for(small, 1 << 30, 1 << 30) is None  # above AHEAD_TO_BYTES
    monkeypatch.setattr(ahead_module, "AHEAD_TO_BYTES", small.stat().st_size)
    with chunks_ahead_for(small, 1 << 30, 1 << 30) as ahead:
        assert isinstance(ahead, ChunksAhead)
    assert chunks_ahead_for(tmp_path, 1 << 30, 1 << 30) is None  # a folder
    assert chunks_ahead_for(tmp_path / "missing.json", 1 << 30, 1 << 30) is None
