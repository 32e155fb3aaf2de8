"""The on-disk corpus index: loaded only for the same documents and normalizer, never changing a result."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from claimgate.api import Audit
from claimgate.audit.index import cache as index_cache
from claimgate.audit.index.build import build_corpus_index
from claimgate.synthetic.audit_inputs import make_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.audit.index.test_index_build import _readable
from tests.helpers import FIXTURES, run_cli

DOCS, _, _, _ = make_corpus(60, 5)
CITATIONS = [
    {"citation_id": "real", "doc_id": "doc000003", "quote": " ".join(DOCS["doc000003"].split()[10:22])},
    {"citation_id": "elsewhere", "doc_id": "doc000004", "quote": " ".join(DOCS["doc000007"].split()[30:40])},
]


def _counting_build(monkeypatch) -> list[int]:
    calls: list[int] = []

    def build(documents):
        calls.append(len(documents))
        return build_corpus_index(documents)

    monkeypatch.setattr("claimgate.audit.stages.build_corpus_index", build)
    return calls


def test_cached_index_equals_the_built_index(tmp_path: Path) -> None:
    key = index_cache.corpus_key(DOCS)
    index_cache.store_index(tmp_path, key, build_corpus_index(DOCS))
    loaded = index_cache.load_index(tmp_path, key, DOCS)
    assert loaded is not None
    assert _readable(loaded) == _readable(build_corpus_index(DOCS))


def test_second_audit_of_the_same_corpus_loads_the_index_and_gives_the_same_rows(tmp_path, monkeypatch) -> None:
    calls = _counting_build(monkeypatch)
    first = Audit.from_corpus(DOCS, cache=tmp_path).check(CITATIONS)
    second = Audit.from_corpus(dict(DOCS), cache=tmp_path).check(CITATIONS)
    assert calls == [len(DOCS)]  # built once, then loaded
    assert first.to_json() == second.to_json()
    assert list(first["gate_verdict"]) == ["found", "misattributed"]


def test_edited_corpus_is_not_loaded_and_only_the_edited_document_is_built(tmp_path, monkeypatch) -> None:
    calls = _counting_build(monkeypatch)
    Audit.from_corpus(DOCS, cache=tmp_path)
    edited = dict(DOCS, doc000003=DOCS["doc000003"].replace(DOCS["doc000003"].split()[12], "zzzedited", 1))
    rows = Audit.from_corpus(edited, cache=tmp_path).check(CITATIONS)
    assert calls == [len(DOCS), 1]  # the other 59 documents' parts come from the first index
    assert rows.to_json() == Audit.from_corpus(edited).check(CITATIONS).to_json()  # as a cold run
    assert rows["gate_verdict"][0] == "not_found"  # the quote's word is gone from the edited document


def test_renamed_document_is_a_different_corpus() -> None:
    renamed = {("x" + k if k == "doc000001" else k): v for k, v in DOCS.items()}
    assert index_cache.corpus_key(renamed) != index_cache.corpus_key(DOCS)


def test_other_normalizer_version_is_not_loaded(tmp_path, monkeypatch) -> None:
    key = index_cache.corpus_key(DOCS)
    index_cache.store_index(tmp_path, key, build_corpus_index(DOCS))
    monkeypatch.setattr(index_cache, "NORMALIZER_VERSION", index_cache.NORMALIZER_VERSION + 1)
    assert index_cache.corpus_key(DOCS) != key
    assert index_cache.load_index(tmp_path, key, DOCS) is None  # same file, header of another version


@pytest.mark.parametrize("damage", ["truncate", "garbage", "other_key_header"])
def test_damaged_cache_file_is_ignored_and_rebuilt(tmp_path, monkeypatch, damage) -> None:
    key = index_cache.corpus_key(DOCS)
    path = index_cache.store_index(tmp_path, key, build_corpus_index(DOCS))
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not an index")
    else:
        lines = data.split(b"\n", 2)
        header = json.loads(lines[1])
        header["key"] = "0" * 64
        path.write_bytes(lines[0] + b"\n" + json.dumps(header).encode() + b"\n" + lines[2])
    assert index_cache.load_index(tmp_path, key, DOCS) is None
    calls = _counting_build(monkeypatch)
    rows = Audit.from_corpus(DOCS, cache=tmp_path).check(CITATIONS)
    assert calls == [len(DOCS)] and list(rows["gate_verdict"]) == ["found", "misattributed"]
    assert index_cache.load_index(tmp_path, key, DOCS) is not None  # written again


def test_unwritable_cache_folder_warns_and_audits(tmp_path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    rows = Audit.from_corpus(DOCS, cache=blocker / "cache").check(CITATIONS)
    assert list(rows["gate_verdict"]) == ["found", "misattributed"]
    assert "warning: index cache not written" in capsys.readouterr().err


def test_audit_command_with_cache_writes_the_same_bytes_cold_and_warm(tmp_path: Path) -> None:
    corpus, citations = FIXTURES / "audit" / "corpus.json", FIXTURES / "audit" / "citations.jsonl"
    outputs = []
    for run in ("cold", "warm", "plain"):
        out = tmp_path / f"{run}.jsonl"
        cache = [] if run == "plain" else ["--cache", str(tmp_path / "cache")]
        args = ("audit", "--corpus", str(corpus), "--citations", str(citations), "--output", str(out), "--quiet")
        done = run_cli(*args, *cache)
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    assert len(list((tmp_path / "cache").glob("corpus-index-*.bin"))) == 1


def test_cached_index_keeps_the_stops_of_negator_prefixes_and_unlisted_scripts(tmp_path: Path) -> None:
    from tests.audit.index.test_index_build import TOKEN_SCAN_DOCS

    key = index_cache.corpus_key(TOKEN_SCAN_DOCS)
    index_cache.store_index(tmp_path, key, build_corpus_index(TOKEN_SCAN_DOCS))
    loaded = index_cache.load_index(tmp_path, key, TOKEN_SCAN_DOCS)
    assert loaded is not None
    built = build_corpus_index(TOKEN_SCAN_DOCS)
    assert _readable(loaded) == _readable(built)
    # the matcher reads "stops are the negations object" as "no unlisted-script token": keep that too
    assert [d.elision_stops is d.negations for d in loaded.docs] == [d.elision_stops is d.negations for d in built.docs]
    assert [d.elision_stops is d.negations for d in loaded.docs].count(False) == 1  # the Georgian document


def test_loading_a_cached_index_runs_no_per_document_rule(tmp_path: Path) -> None:
    from claimgate.audit.text import negation
    from claimgate.audit.text import reference as normalize

    from tests.audit.index.test_index_build import TOKEN_SCAN_DOCS

    docs = dict(DOCS, **TOKEN_SCAN_DOCS)
    key = index_cache.corpus_key(docs)
    index_cache.store_index(tmp_path, key, build_corpus_index(docs))
    rules = {
        f.__code__
        for f in (negation.needs_token_scan, negation.negation_positions, negation.unchecked_script_positions,
                  normalize.normalize_text_reference)
    }  # fmt: skip
    ran: list[str] = []

    def watch(frame, event, arg):  # by code object: whatever name a module imported the rule under
        if event == "call" and frame.f_code in rules:
            ran.append(frame.f_code.co_name)

    sys.setprofile(watch)
    try:
        loaded = index_cache.load_index(tmp_path, key, docs)
    finally:
        sys.setprofile(None)
    assert loaded is not None and len(loaded) == len(docs)
    assert ran == []


def _format_1_file(tmp_path: Path, monkeypatch, docs) -> tuple[str, Path]:
    """A cache file laid out as format 1 wrote it (per-document arrays, one key per posting); its key and path."""
    index = build_corpus_index(docs)
    table = list(index.docs)
    uni_keys, uni_docs = index.token_postings.expanded()
    bi_keys, bi_docs = index.pair_postings.expanded()
    payload = {
        "doc_ids": index.doc_ids,
        "strings": index.strings,
        "token_ids": b"".join(d.token_bytes for d in table),
        "starts": b"".join(d.starts.tobytes() for d in table),
        "ends": b"".join(d.ends.tobytes() for d in table),
        "token_counts": np.array([d.n_tokens for d in table], dtype=np.int64),
        "negations": b"".join(d.negations.tobytes() for d in table),
        "negation_counts": np.array([len(d.negations) for d in table], dtype=np.int64),
        "has_ellipsis": np.array([d.has_ellipsis for d in table], dtype=bool),
        "brackets": {k: sorted(d.brackets) for k, d in enumerate(table) if d.brackets},
        "joined_words": {k: d.joined_words for k, d in enumerate(table) if d.joined_words},
        "postings": (uni_keys, uni_docs, bi_keys, bi_docs),
    }
    with monkeypatch.context() as patch:
        patch.setattr(index_cache, "INDEX_FORMAT", 1)
        key = index_cache.corpus_key(docs)
    return key, _file_with_payload(tmp_path, key, len(docs), pickle.dumps(payload, protocol=5), index_format=1)


def _file_with_payload(folder: Path, key: str, n_documents: int, payload: bytes, index_format: int) -> Path:
    """A cache file with a well-formed header of ``index_format`` (its digest right) before ``payload``'s bytes."""
    header = {
        "documents": n_documents,
        "format": index_format,
        "key": key,
        "normalizer": index_cache.NORMALIZER_VERSION,
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
    }
    path = index_cache.cache_path(folder, key)
    path.write_bytes(b"claimgate-corpus-index\n" + json.dumps(header, sort_keys=True).encode() + b"\n" + payload)
    return path


def test_format_1_cache_is_rebuilt_not_misread(tmp_path: Path, monkeypatch) -> None:
    from tests.audit.index.test_index_build import TOKEN_SCAN_DOCS

    old_key, old_path = _format_1_file(tmp_path, monkeypatch, TOKEN_SCAN_DOCS)
    assert index_cache.corpus_key(TOKEN_SCAN_DOCS) != old_key  # another key, so another file
    assert index_cache.load_index(tmp_path, old_key, TOKEN_SCAN_DOCS) is None  # its header names format 1
    new_key = index_cache.corpus_key(TOKEN_SCAN_DOCS)
    index_cache.cache_path(tmp_path, new_key).write_bytes(old_path.read_bytes())  # even under the new name
    assert index_cache.load_index(tmp_path, new_key, TOKEN_SCAN_DOCS) is None
    calls = _counting_build(monkeypatch)
    Audit.from_corpus(TOKEN_SCAN_DOCS, cache=tmp_path)
    assert calls == [len(TOKEN_SCAN_DOCS)]  # rebuilt
    assert index_cache.load_index(tmp_path, new_key, TOKEN_SCAN_DOCS) is not None  # and written in this format


# ------------------------------------------------------------------ damaged files (a bit, a cut, a bad payload)


def _stored_file(folder: Path) -> tuple[Path, bytes]:
    path = index_cache.store_index(folder, index_cache.corpus_key(DOCS), build_corpus_index(DOCS))
    return path, path.read_bytes()


COLD_ROWS = Audit.from_corpus(DOCS).check(CITATIONS).to_json()


def damaged_copy(good: bytes, data) -> bytes:
    """``good`` cut short or with one bit flipped, as hypothesis's ``data`` draws it."""
    damaged = bytearray(good)
    if data.draw(st.booleans(), label="truncate"):
        return bytes(damaged[: data.draw(st.integers(0, len(good) - 1), label="length")])
    bit = data.draw(st.integers(0, 8 * len(good) - 1), label="bit")
    damaged[bit // 8] ^= 1 << (bit % 8)
    return bytes(damaged)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_flipped_bit_or_truncated_cache_file_gives_the_cold_rows_and_is_rewritten(tmp_path, capsys, data) -> None:
    path, good = _stored_file(tmp_path)
    path.write_bytes(damaged_copy(good, data))
    capsys.readouterr()
    rows = Audit.from_corpus(DOCS, cache=tmp_path).check(CITATIONS)  # never raises
    assert rows.to_json() == COLD_ROWS
    assert path.read_bytes() == good  # rebuilt and written again, not left damaged
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "is damaged, rebuilt" in warnings[0]


def test_every_flipped_bit_of_a_small_cache_file_is_detected(tmp_path) -> None:
    # the whole file, byte by byte (one bit of each): magic, header and payload alike
    docs = {"a": "alpha beta gamma delta", "b": "the quick brown fox does not jump"}
    key = index_cache.corpus_key(docs)
    path = index_cache.store_index(tmp_path, key, build_corpus_index(docs))
    good = path.read_bytes()
    for offset in range(len(good)):
        damaged = bytearray(good)
        damaged[offset] ^= 1 << (offset % 8)
        path.write_bytes(bytes(damaged))
        with pytest.raises(index_cache.DamagedCacheError):
            index_cache.read_index(tmp_path, key, docs)


def test_damaged_payload_is_never_decoded(tmp_path, monkeypatch) -> None:
    path, good = _stored_file(tmp_path)
    damaged = bytearray(good)
    damaged[-100] ^= 0x10
    path.write_bytes(bytes(damaged))

    def refuse(*args, **kwargs):
        raise AssertionError("damaged bytes reached the decoder")

    monkeypatch.setattr(index_cache, "_read_arrays", refuse)
    with pytest.raises(index_cache.DamagedCacheError, match="digest"):
        index_cache.read_index(tmp_path, index_cache.corpus_key(DOCS), DOCS)


def test_bad_payload_under_a_matching_digest_is_rebuilt_not_raised(tmp_path, monkeypatch, capsys) -> None:
    # a file another (buggy) writer made: the digest is right but the payload is not an index
    key = index_cache.corpus_key(DOCS)
    with monkeypatch.context() as patch:
        bad = {"records": {"doc_ids": sorted(DOCS), "segments": [0], "arrays": []}, "arrays": {}}
        patch.setattr(index_cache, "_payload", lambda index, digests: bad)
        path = index_cache.store_index(tmp_path, key, build_corpus_index(DOCS))
    rows = Audit.from_corpus(DOCS, cache=tmp_path).check(CITATIONS)
    assert rows.to_json() == COLD_ROWS
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "cannot be loaded" in err and "\n" == err[-1]
    assert index_cache.load_index(tmp_path, key, DOCS) is not None and path.exists()


def test_audit_command_with_a_flipped_bit_in_its_cache_warns_and_writes_the_cold_bytes(tmp_path: Path) -> None:
    corpus, citations = FIXTURES / "audit" / "corpus.json", FIXTURES / "audit" / "citations.jsonl"
    base = ("audit", "--corpus", str(corpus), "--citations", str(citations), "--cache", str(tmp_path / "c"), "--quiet")
    assert run_cli(*base, "--output", str(tmp_path / "cold.jsonl")).returncode == 0
    (path,) = (tmp_path / "c").glob("corpus-index-*.bin")
    good = path.read_bytes()
    for offset in (244, 1694, len(good) - 1):  # the tester's two offsets (a verdict changed; an IndexError)
        damaged = bytearray(good)
        damaged[offset] ^= 1
        path.write_bytes(bytes(damaged))
        done = run_cli(*base, "--output", str(tmp_path / "flipped.jsonl"))
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "flipped.jsonl").read_bytes() == (tmp_path / "cold.jsonl").read_bytes()
        assert [line.split(":")[0] for line in done.stderr.splitlines()] == ["warning"]
        assert path.read_bytes() == good


# ------------------------------------------------------------------ hostile files and folders (issue 22, item 1)


class _RunsCode:
    """Unpickling this runs ``exec`` on a line that writes ``marker`` (what a planted cache file would do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


@pytest.mark.parametrize("header_format", [4, index_cache.INDEX_FORMAT])
def test_planted_cache_file_that_would_run_code_is_never_executed(tmp_path, capsys, header_format) -> None:
    # a pickle under a header whose key, document count and payload digest are all right
    marker, folder = tmp_path / "ran", tmp_path / "cache"
    folder.mkdir(mode=0o700)
    payload = pickle.dumps({"doc_ids": sorted(DOCS), "run": _RunsCode(marker)}, protocol=5)
    _file_with_payload(folder, index_cache.corpus_key(DOCS), len(DOCS), payload, header_format)
    with pytest.raises(index_cache.DamagedCacheError):
        index_cache.read_index(folder, index_cache.corpus_key(DOCS), DOCS)
    rows = Audit.from_corpus(DOCS, cache=folder).check(CITATIONS)
    assert not marker.exists()
    assert rows.to_json() == COLD_ROWS
    assert capsys.readouterr().err.count("warning:") == 1
    assert index_cache.load_index(folder, index_cache.corpus_key(DOCS), DOCS) is not None  # replaced by a real one


def test_planted_object_array_in_a_cache_file_is_never_unpickled(tmp_path) -> None:
    # the new layout itself: records naming an array, and that array an object array holding a pickle
    import io

    marker = tmp_path / "ran"
    records = {"doc_ids": sorted(DOCS), "strings": [], "segments": [], "joined_words": [], "ellipses": [],
               "brackets": [], "arrays": ["token_postings_keys"]}  # fmt: skip
    array_bytes = io.BytesIO()
    np.lib.format.write_array(array_bytes, np.array([_RunsCode(marker)], dtype=object), allow_pickle=True)
    payload = json.dumps(records).encode() + b"\n" + array_bytes.getvalue()
    key = index_cache.corpus_key(DOCS)
    _file_with_payload(tmp_path, key, len(DOCS), payload, index_cache.INDEX_FORMAT)
    with pytest.raises(index_cache.DamagedCacheError, match="cannot be loaded"):
        index_cache.read_index(tmp_path, key, DOCS)
    assert not marker.exists()


def test_cache_load_path_imports_no_pickle() -> None:
    import ast

    from claimgate.audit.index import cache_file, delta
    from claimgate.audit.index import payload as index_payload

    # the cache files' reader and writer, the deltas, and the payload's layout
    for module in (index_cache, cache_file, delta, index_payload):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not {"pickle", "cPickle", "dill", "cloudpickle", "marshal", "shelve"} & imported
        allow = [k.value.value for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords
                 if k.arg == "allow_pickle"]  # fmt: skip
        assert not any(allow)  # nothing asks numpy to unpickle
        called = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        assert not {"load", "read_array"} & called  # JSON and frombuffer only
    source = Path(index_payload.__file__).read_text(encoding="utf-8")
    assert "np.frombuffer(data, dtype" in source and "dtype.hasobject" in source  # views of checked dtypes only


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")
def test_world_writable_cache_folder_is_refused(tmp_path) -> None:
    from claimgate.errors import OutputError

    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(OutputError, match=r"^cache: the folder .* is writable by group or others \(mode 0777\)"):
        Audit.from_corpus(DOCS, cache=folder)
    with pytest.raises(OutputError, match="writable by group or others"):
        Audit(dict(DOCS), cache=folder)  # the plain constructor checks too
    assert list(folder.iterdir()) == []  # nothing read or written there


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")
def test_group_writable_cache_file_is_refused_and_one_found_on_opening_is_rebuilt(tmp_path) -> None:
    from claimgate.errors import OutputError

    key = index_cache.corpus_key(DOCS)
    path = index_cache.store_index(tmp_path / "cache", key, build_corpus_index(DOCS))
    path.chmod(0o664)
    with pytest.raises(OutputError, match=r"the cache file .* is writable by group or others \(mode 0664\)"):
        Audit.from_corpus(DOCS, cache=tmp_path / "cache")
    # changed between the folder's check and the load: treated as damaged (a warning, a rebuild)
    with pytest.raises(index_cache.DamagedCacheError, match="writable by group or others"):
        index_cache.read_index(tmp_path / "cache", key, DOCS)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_cache_file_of_another_user_is_refused(tmp_path) -> None:
    from claimgate.errors import OutputError

    key = index_cache.corpus_key(DOCS)
    path = index_cache.store_index(tmp_path / "cache", key, build_corpus_index(DOCS))
    os.chown(path, 65534, 65534)
    with pytest.raises(OutputError, match=r"owned by another user \(uid 65534\)"):
        Audit.from_corpus(DOCS, cache=tmp_path / "cache")
    with pytest.raises(index_cache.DamagedCacheError, match="owned by another user"):
        index_cache.read_index(tmp_path / "cache", key, DOCS)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX modes")
def test_cache_folder_and_file_are_made_private_whatever_the_umask(tmp_path) -> None:
    old = os.umask(0o002)
    try:
        Audit.from_corpus(DOCS, cache=tmp_path / "new" / "cache")
    finally:
        os.umask(old)
    (path,) = (tmp_path / "new" / "cache").glob("corpus-index-*.bin")
    assert (tmp_path / "new" / "cache").stat().st_mode & 0o777 == 0o700
    assert path.stat().st_mode & 0o777 == 0o600
    Audit.from_corpus(DOCS, cache=tmp_path / "new" / "cache")  # and the next run accepts them


def test_four_audits_sharing_one_cache_folder_agree_and_leave_one_loadable_file(tmp_path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    folder = tmp_path / "shared-cache"
    with ThreadPoolExecutor(4) as pool:  # cold and racing: each builds, stores and renames into place
        rows = list(pool.map(lambda _: Audit.from_corpus(DOCS, cache=folder).check(CITATIONS).to_json(), range(4)))
    assert rows == [COLD_ROWS] * 4
    assert [p.name for p in folder.iterdir()] == [index_cache.cache_path(folder, index_cache.corpus_key(DOCS)).name]
    with ThreadPoolExecutor(4) as pool:  # warm and racing: each loads
        rows = list(pool.map(lambda _: Audit.from_corpus(DOCS, cache=folder).check(CITATIONS).to_json(), range(4)))
    assert rows == [COLD_ROWS] * 4
