"""Deltas of the index cache: an edited corpus is a small file on an immutable base, checked as any cache file."""

from __future__ import annotations

import hashlib
import json
import mmap
import os
from pathlib import Path

import numpy as np
import pytest
from claimgate.api import Audit
from claimgate.audit.index import cache as index_cache
from claimgate.audit.index import delta as index_delta
from claimgate.audit.index.build import build_corpus_index
from claimgate.errors import OutputError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.audit.index.test_index_cache import _counting_build, damaged_copy
from tests.audit.index.test_index_reuse import BASE, CITATIONS, EDITS, IDS, _assert_as_cold

COLD = {kind: Audit.from_corpus(EDITS[kind](BASE)).check(CITATIONS).to_json() for kind in ("edit", "addition")}


def _files(folder: Path, prefix: str) -> list[Path]:
    return sorted(folder.glob(f"{prefix}-*.bin"))


def _with_delta(folder: Path, kind: str = "edit") -> tuple[dict[str, str], Path]:
    """``folder`` holding the base's full file and the delta of ``EDITS[kind]``; the edited corpus and the delta."""
    Audit.from_corpus(BASE, cache=folder)
    documents = EDITS[kind](BASE)
    Audit.from_corpus(documents, cache=folder)
    (path,) = _files(folder, "corpus-delta")
    return documents, path


def _warnings(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]


# ------------------------------------------------------------------ what is written, what is read


def test_one_edit_writes_a_small_delta_and_no_second_full_index(tmp_path: Path) -> None:
    documents, path = _with_delta(tmp_path)
    (full,) = _files(tmp_path, "corpus-index")
    assert full == index_cache.cache_path(tmp_path, index_cache.corpus_key(BASE))  # the base is left as it was
    assert path == index_delta.delta_path(tmp_path, index_cache.corpus_key(documents))
    assert path.stat().st_size < full.stat().st_size / 4
    assert path.stat().st_mode & 0o777 == 0o600
    header = json.loads(path.read_bytes().split(b"\n")[1])
    assert header["base_key"] == index_cache.corpus_key(BASE) and header["documents"] == len(documents)


@pytest.mark.parametrize("kind", ["edit", "addition"])
def test_a_delta_is_loaded_without_a_build_and_gives_the_cold_rows(tmp_path: Path, monkeypatch, kind: str) -> None:
    documents, _ = _with_delta(tmp_path, kind)
    calls = _counting_build(monkeypatch)
    assert Audit.from_corpus(documents, cache=tmp_path).check(CITATIONS).to_json() == COLD[kind]
    assert calls == []
    _assert_as_cold(index_cache.load_index(tmp_path, index_cache.corpus_key(documents), documents), documents)


def test_the_unedited_corpus_still_loads_its_full_index(tmp_path: Path, monkeypatch) -> None:
    _with_delta(tmp_path)
    calls = _counting_build(monkeypatch)
    Audit.from_corpus(BASE, cache=tmp_path)
    assert calls == []


def test_an_edit_of_more_than_the_delta_share_writes_a_full_index(tmp_path: Path, monkeypatch) -> None:
    Audit.from_corpus(BASE, cache=tmp_path)
    many = {**BASE, **{d: BASE[d] + " and one more sentence here." for d in IDS[:10]}}  # 10 of 45: over 5%
    calls = _counting_build(monkeypatch)
    Audit.from_corpus(many, cache=tmp_path)
    assert calls == [10] and _files(tmp_path, "corpus-delta") == []
    assert index_cache.cache_path(tmp_path, index_cache.corpus_key(many)).exists()  # the compacted next base


def test_a_damaged_full_file_is_written_again_not_left_beside_a_new_delta(tmp_path: Path, capsys) -> None:
    # Two full files that share most documents (BASE, then a corpus past the delta share); BASE's file damaged.
    Audit.from_corpus(BASE, cache=tmp_path)
    many = {**BASE, **{d: BASE[d] + " and one more sentence here." for d in IDS[:10]}}
    Audit.from_corpus(many, cache=tmp_path)
    damaged = index_cache.cache_path(tmp_path, index_cache.corpus_key(BASE))
    damaged.write_bytes(damaged.read_bytes()[:-7])
    capsys.readouterr()
    for run in range(3):  # the first run warns and writes the full file again; the next ones read it silently
        assert (
            Audit.from_corpus(BASE, cache=tmp_path).check(CITATIONS).to_json()
            == Audit.from_corpus(BASE).check(CITATIONS).to_json()
        )
        assert len(_warnings(capsys)) == (1 if run == 0 else 0)
    assert _files(tmp_path, "corpus-delta") == []  # BASE is a full file again, not a delta on ``many``


def test_removing_most_of_the_base_writes_a_full_index(tmp_path: Path) -> None:
    Audit.from_corpus(BASE, cache=tmp_path)
    few = {d: BASE[d] for d in IDS[:5]}
    Audit.from_corpus(few, cache=tmp_path)
    assert _files(tmp_path, "corpus-delta") == []
    assert index_cache.cache_path(tmp_path, index_cache.corpus_key(few)).exists()


def test_a_second_edit_is_a_delta_on_the_same_base(tmp_path: Path, monkeypatch) -> None:
    documents, first = _with_delta(tmp_path)
    again = {**documents, IDS[9]: documents[IDS[9]] + " A second edit."}
    calls = _counting_build(monkeypatch)
    assert Audit.from_corpus(again, cache=tmp_path).check(CITATIONS).to_json() == (
        Audit.from_corpus(again).check(CITATIONS).to_json()
    )
    assert calls[0] == 1  # the second edit's document: the first's comes from the first delta
    (second,) = [p for p in _files(tmp_path, "corpus-delta") if p != first]
    assert json.loads(second.read_bytes().split(b"\n")[1])["base_key"] == index_cache.corpus_key(BASE)


# ------------------------------------------------------------------ damaged, foreign, stale: refused, rebuilt


def test_every_flipped_bit_of_a_small_delta_is_detected(tmp_path: Path) -> None:
    base = {"a": "alpha beta gamma delta", "b": "the quick brown fox does not jump", "c": "one two three"}
    base.update({f"z{i}": f"filler text number {i} for the share" for i in range(30)})
    index_cache.cached_corpus_index(base, tmp_path, build_corpus_index)
    documents = {**base, "b": "the quick brown fox jumps"}
    index_cache.cached_corpus_index(documents, tmp_path, build_corpus_index)
    (path,) = _files(tmp_path, "corpus-delta")
    good = path.read_bytes()
    key = index_cache.corpus_key(documents)
    for offset in range(len(good)):
        damaged = bytearray(good)
        damaged[offset] ^= 1 << (offset % 8)
        path.write_bytes(bytes(damaged))
        with pytest.raises(index_cache.DamagedCacheError):
            index_delta.read_delta(tmp_path, key, documents, None, index_cache._header)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_flipped_bit_or_truncated_delta_gives_the_cold_rows_and_is_rewritten(tmp_path, capsys, data) -> None:
    for stale in tmp_path.iterdir():
        stale.unlink()
    _, path = _with_delta(tmp_path)
    good = path.read_bytes()
    path.write_bytes(damaged_copy(good, data))
    capsys.readouterr()
    assert Audit.from_corpus(EDITS["edit"](BASE), cache=tmp_path).check(CITATIONS).to_json() == COLD["edit"]
    assert path.read_bytes() == good  # rebuilt and written again
    warnings = _warnings(capsys)
    assert len(warnings) == 1 and "is damaged, rebuilt" in warnings[0] and "corpus-delta-" in warnings[0]


def _forged(path: Path, payload: bytes, **header_changes) -> None:
    """``path`` with ``payload`` under a header whose digest is right (a consistent but forged file)."""
    lines = path.read_bytes().split(b"\n", 2)
    header = {**json.loads(lines[1]), **header_changes, "payload_sha256": hashlib.sha256(payload).hexdigest()}
    path.write_bytes(lines[0] + b"\n" + json.dumps(header, sort_keys=True).encode() + b"\n" + payload)


def _refused_then_rebuilt(folder: Path, monkeypatch, capsys, reason: str, built: tuple = (1,)) -> None:
    calls = _counting_build(monkeypatch)
    capsys.readouterr()
    assert Audit.from_corpus(EDITS["edit"](BASE), cache=folder).check(CITATIONS).to_json() == COLD["edit"]
    warnings = _warnings(capsys)
    assert len(warnings) == 1 and reason in warnings[0], warnings
    assert calls == list(built)  # the base still serves: at most the edited document is built again


def test_a_delta_whose_base_is_gone_is_rebuilt(tmp_path: Path, monkeypatch, capsys) -> None:
    _with_delta(tmp_path)
    index_cache.cache_path(tmp_path, index_cache.corpus_key(BASE)).unlink()
    calls = _counting_build(monkeypatch)
    capsys.readouterr()
    assert Audit.from_corpus(EDITS["edit"](BASE), cache=tmp_path).check(CITATIONS).to_json() == COLD["edit"]
    warnings = _warnings(capsys)
    assert len(warnings) == 1 and "base index is missing" in warnings[0]
    assert calls == [len(BASE)]  # no base left: a cold build, stored as a full file
    assert index_cache.cache_path(tmp_path, index_cache.corpus_key(EDITS["edit"](BASE))).exists()


def test_a_delta_whose_base_was_replaced_is_rebuilt(tmp_path: Path, monkeypatch, capsys) -> None:
    _with_delta(tmp_path)
    base_path = index_cache.cache_path(tmp_path, index_cache.corpus_key(BASE))
    data = base_path.read_bytes()
    lines = data.split(b"\n", 2)
    _forged(base_path, lines[2] + b"")  # the same payload: a consistent base ...
    _forged(
        index_delta.delta_path(tmp_path, index_cache.corpus_key(EDITS["edit"](BASE))),
        index_delta.delta_path(tmp_path, index_cache.corpus_key(EDITS["edit"](BASE))).read_bytes().split(b"\n", 2)[2],
        base_payload_sha256="0" * 64,  # ... but not the one this delta was made on
    )
    _refused_then_rebuilt(tmp_path, monkeypatch, capsys, "not the one it was made on")


def test_a_delta_whose_base_is_damaged_is_rebuilt(tmp_path: Path, monkeypatch, capsys) -> None:
    _with_delta(tmp_path)
    base_path = index_cache.cache_path(tmp_path, index_cache.corpus_key(BASE))
    data = bytearray(base_path.read_bytes())
    data[len(data) // 2] ^= 0x04
    base_path.write_bytes(bytes(data))
    calls = _counting_build(monkeypatch)
    capsys.readouterr()
    assert Audit.from_corpus(EDITS["edit"](BASE), cache=tmp_path).check(CITATIONS).to_json() == COLD["edit"]
    warnings = _warnings(capsys)
    assert "its base is damaged" in warnings[0] and len(warnings) == 2  # the delta, then the base as a base
    assert calls == [len(BASE)]


@pytest.mark.parametrize(
    "change",
    [
        lambda a: np.where(a >= 0, (a + 1) % 45, a),  # every part moved by one document
        lambda a: a[:-1],  # one document short
        lambda a: np.where(a < 0, 0, a),  # the new document's part taken from the base's first
    ],
    ids=["shifted_sources", "one_source_short", "new_document_from_the_base"],
)
def test_a_consistent_delta_whose_parts_do_not_add_up_is_refused(tmp_path, monkeypatch, capsys, change) -> None:
    _, path = _with_delta(tmp_path)
    lines = path.read_bytes().split(b"\n", 2)
    records = json.loads(lines[2].split(b"\n", 1)[0])
    payload = index_cache.read_checked(path, lambda h: True, index_cache._read_arrays)
    arrays = {**payload["arrays"], "delta_sources": change(payload["arrays"]["delta_sources"])}
    header = json.loads(lines[1])
    path.unlink()
    index_delta.write_checked(path, lambda digest: {**header, "payload_sha256": digest}, records, arrays)
    # its own part passed every check: it serves as the previous delta's part, nothing is built
    _refused_then_rebuilt(tmp_path, monkeypatch, capsys, "cannot be loaded", built=())


def test_a_foreign_file_under_a_delta_name_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    _, path = _with_delta(tmp_path)
    path.write_bytes(b"PK\x03\x04 not an index at all\n" * 10)
    _refused_then_rebuilt(tmp_path, monkeypatch, capsys, "not an index cache file")


def test_a_delta_of_another_corpus_under_this_name_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    _, path = _with_delta(tmp_path)
    payload = path.read_bytes().split(b"\n", 2)[2]
    _forged(path, payload, key="1" * 64)
    _refused_then_rebuilt(tmp_path, monkeypatch, capsys, "header does not match")


def test_a_delta_of_another_normalizer_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    _, path = _with_delta(tmp_path)
    payload = path.read_bytes().split(b"\n", 2)[2]
    _forged(path, payload, normalizer="older-rules")
    _refused_then_rebuilt(tmp_path, monkeypatch, capsys, "header does not match")


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")
def test_a_delta_writable_by_others_refuses_the_run_before_any_work(tmp_path: Path) -> None:
    _, path = _with_delta(tmp_path)
    os.chmod(path, 0o666)
    with pytest.raises(OutputError, match="writable by group or others"):
        Audit.from_corpus(EDITS["edit"](BASE), cache=tmp_path)


def test_base_arrays_load_as_read_only_views_of_one_mapped_file(tmp_path: Path) -> None:
    key = index_cache.corpus_key(BASE)
    index_cache.store_index(tmp_path, key, build_corpus_index(BASE))
    loaded = index_cache.read_index(tmp_path, key, BASE)
    arrays = [s.token_ids for s in loaded.docs.segments] + [loaded.token_postings.docs, loaded.pair_postings.keys]

    def owner(a):
        while isinstance(a, np.ndarray | memoryview):
            a = a.obj if isinstance(a, memoryview) else a.base
        return a

    owners = {id(owner(a)) for a in arrays}
    assert len(owners) == 1 and isinstance(owner(arrays[0]), mmap.mmap)  # one read-only mapping, no copy
    assert not any(a.flags.writeable for a in arrays)  # immutable
    assert all(a.ctypes.data % a.itemsize == 0 for a in arrays)  # aligned
