"""An edited corpus re-indexes only what changed: the reused index equals a cold build, and a bad base costs a build."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path

import numpy as np
import pytest
from claimgate.api import Audit
from claimgate.audit.index import cache as index_cache
from claimgate.audit.index import delta as index_delta
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.index.reuse import document_digest, reused_index
from claimgate.errors import OutputError
from claimgate.synthetic.audit_inputs import make_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.audit.index.test_index_build import _TEXT, TOKEN_SCAN_DOCS, _readable
from tests.audit.index.test_index_cache import _counting_build

DOCS, _, _, _ = make_corpus(40, 11)
IDS = sorted(DOCS)
#: Texts that reach every per-document rule: joined words, negations, footnotes, brackets,
#: an ellipsis, an unlisted script, a negator prefix, the code literal None.
RULES = {
    "rules/hyphen": "The well-\nknown inter-\nnational stand-\nard holds.",
    "rules/negation": "It does not hold, and it isn't so; none of it is None in code.",
    "rules/footnote": "The rate [4] rose sharply in 2020 [sic] as noted [citation needed].",
    "rules/ellipsis": "First part … and then ... the rest of it.",
    "rules/scripts": "Mixed 人人 scripts ελληνικά and кириллица with non-trivial undo.",
    **TOKEN_SCAN_DOCS,
}
CITATIONS = [
    {"citation_id": "a", "doc_id": IDS[3], "quote": " ".join(DOCS[IDS[3]].split()[5:15])},
    {"citation_id": "b", "doc_id": IDS[4], "quote": " ".join(DOCS[IDS[8]].split()[20:30])},
    {"citation_id": "c", "doc_id": "rules/hyphen", "quote": "the well-known international standard holds"},
    {"citation_id": "d", "doc_id": "rules/negation", "quote": "it does hold"},
]


def _digests(documents: dict[str, str]) -> dict[str, bytes]:
    return {d: document_digest(t) for d, t in documents.items()}


def _reused(base_docs: dict[str, str], documents: dict[str, str], calls: list | None = None):
    base = build_corpus_index(base_docs)

    def build(subset):
        if calls is not None:
            calls.append(sorted(subset))
        return build_corpus_index(subset)

    return reused_index(
        base, [document_digest(base_docs[d]) for d in base.doc_ids], documents, _digests(documents), build
    )


def _assert_as_cold(index, documents: dict[str, str]) -> None:
    cold = build_corpus_index(documents)
    assert _readable(index) == _readable(cold)  # document for document, posting for posting
    assert sorted(index.strings) == sorted(cold.strings)  # the same vocabulary, no string of a removed document
    assert index.vocab == dict(zip(index.strings, range(len(index.strings))))


BASE = {**DOCS, **RULES}
EDITS = {
    "edit": lambda d: {**d, IDS[3]: d[IDS[3]].replace(d[IDS[3]].split()[7], "zzzedited")},
    "edit_a_rule_document": lambda d: {**d, "rules/hyphen": "No hyphen here, and no negation either."},
    "rules_into_a_plain_document": lambda d: {**d, IDS[5]: RULES["rules/footnote"] + " " + RULES["rules/negation"]},
    "addition": lambda d: {**d, "zz/new": "A wholly brand-\nnew document [2] with newtokenzz … not old."},
    "removal": lambda d: {k: v for k, v in d.items() if k != IDS[6]},
    "removal_of_every_rule_document": lambda d: {k: v for k, v in d.items() if not k.startswith("rules/")},
    "rename": lambda d: {("renamed/" + k if k == IDS[7] else k): v for k, v in d.items()},
    "rename_to_the_front": lambda d: {("0first" if k == IDS[-1] else k): v for k, v in d.items()},
    "duplicate_texts_under_two_ids": lambda d: {**d, "copy/one": d[IDS[2]], "copy/two": d["rules/hyphen"]},
    "swap_two_texts": lambda d: {**d, IDS[1]: d[IDS[9]], IDS[9]: d[IDS[1]]},
    "empty_text": lambda d: {**d, IDS[0]: ""},
    "all_removed_but_one": lambda d: {IDS[4]: d[IDS[4]]},
    "everything_removed": lambda d: {},
    "nothing_changed": lambda d: dict(d),
}


@pytest.mark.parametrize("kind", list(EDITS))
def test_reused_index_equals_a_cold_build(kind: str) -> None:
    documents = EDITS[kind](BASE)
    _assert_as_cold(_reused(BASE, documents), documents)


def test_only_changed_and_added_documents_are_built_not_renamed_or_duplicated_ones() -> None:
    calls: list = []
    documents = {k: v for k, v in BASE.items() if k != IDS[6]}
    documents = {("renamed" if k == IDS[7] else k): v for k, v in documents.items()}
    documents.update({"copy": BASE[IDS[2]], IDS[3]: "edited text", "new": "added text"})
    _assert_as_cold(_reused(BASE, documents, calls), documents)
    assert calls == [[IDS[3], "new"]]  # one build, of the new texts only


def test_empty_base_builds_everything() -> None:
    calls: list = []
    _assert_as_cold(_reused({}, BASE, calls), BASE)
    assert calls == [sorted(BASE)]


def test_a_removed_documents_only_token_leaves_the_vocabulary() -> None:
    base = {**DOCS, "odd": "uniquetokenqq joined-\nwordqq here"}
    index = _reused(base, DOCS)
    assert index.token_id("uniquetokenqq") == -1 and index.token_id("joinedwordqq") == -1
    _assert_as_cold(index, DOCS)


_SENTENCE = st.lists(
    st.sampled_from(["the", "rate", "rose", "not", "well-\nknown", "[4]", "…", "None", "人"]), max_size=12
)
_DOC_TEXT = _TEXT | _SENTENCE.map(" ".join)
_EDIT = st.tuples(st.sampled_from(["edit", "add", "remove", "rename", "copy"]), st.integers(0, 50), _DOC_TEXT)


def _applied(documents: dict[str, str], edit: tuple[str, int, str], step: int) -> dict[str, str]:
    kind, at, text = edit
    out = dict(documents)
    ids = sorted(out)
    target = ids[at % len(ids)] if ids else None
    if kind == "add" or target is None:
        out[f"added{step}"] = text
    elif kind == "edit":
        out[target] = text
    elif kind == "remove":
        del out[target]
    elif kind == "rename":
        out[f"renamed{step}"] = out.pop(target)
    else:
        out[f"copy{step}"] = out[target]
    return out


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from([f"d{i}" for i in range(8)]), _DOC_TEXT, max_size=6),
    st.lists(_EDIT, max_size=5),
    st.sampled_from([0.0, 0.2, 1.0]),
)
def test_cached_index_after_random_edit_sequences_equals_a_cold_index(start: dict, edits: list, share) -> None:
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_delta, "DELTA_SHARE", share)  # 0: full files only; 1: deltas whenever a base serves
        documents = start
        index_cache.cached_corpus_index(documents, folder, build_corpus_index)
        for step, edit in enumerate(edits):
            documents = _applied(documents, edit, step)
            _assert_as_cold(index_cache.cached_corpus_index(documents, folder, build_corpus_index), documents)
            # and what the next process loads: the full file or the delta on its base
            _assert_as_cold(index_cache.load_index(folder, index_cache.corpus_key(documents), documents), documents)
            # and the same from the previous index in memory (Audit.refreshed)
        if edits:
            in_memory = index_cache.cached_corpus_index(
                documents, None, build_corpus_index, base=build_corpus_index(start)
            )
            _assert_as_cold(in_memory, documents)


# ------------------------------------------------------------------ through the cache and the API


@pytest.mark.parametrize("kind", ["edit", "addition", "removal", "rename", "duplicate_texts_under_two_ids"])
def test_cached_run_after_an_edit_gives_the_bytes_of_a_cold_run(tmp_path: Path, monkeypatch, kind: str) -> None:
    Audit.from_corpus(BASE, cache=tmp_path)
    documents = EDITS[kind](BASE)
    calls = _counting_build(monkeypatch)
    cached = Audit.from_corpus(documents, cache=tmp_path)
    assert calls == ([1] if kind in ("edit", "addition") else [])  # renames and copies reuse, removals build nothing
    cold = Audit.from_corpus(documents)
    assert cached.check(CITATIONS).to_json() == cold.check(CITATIONS).to_json()
    calls.clear()
    assert Audit.from_corpus(documents, cache=tmp_path).check(CITATIONS).to_json() == cold.check(CITATIONS).to_json()
    assert calls == []  # the merged index was stored: the next run loads it


def test_a_cache_of_another_corpus_is_no_base_for_reuse(tmp_path: Path, monkeypatch) -> None:
    Audit.from_corpus(RULES, cache=tmp_path)
    calls = _counting_build(monkeypatch)
    Audit.from_corpus(DOCS, cache=tmp_path)
    assert calls == [len(DOCS)]  # nothing shared: one ordinary build


# ------------------------------------------------------------------ hostile and damaged bases


def _base_file(folder: Path) -> Path:
    index_cache.store_index(folder, index_cache.corpus_key(BASE), build_corpus_index(BASE))
    return index_cache.cache_path(folder, index_cache.corpus_key(BASE))


def _edited_run_after(folder: Path, monkeypatch, capsys) -> tuple[list[int], str]:
    documents = EDITS["edit"](BASE)
    calls = _counting_build(monkeypatch)
    rows = Audit.from_corpus(documents, cache=folder).check(CITATIONS)
    built = list(calls)
    assert rows.to_json() == Audit.from_corpus(documents).check(CITATIONS).to_json()  # never another verdict
    return built, capsys.readouterr().err


def _rewritten(path: Path, payload: bytes, **header_changes) -> None:
    """``path`` with ``payload`` under a header whose digest is right (a forged but consistent file)."""
    lines = path.read_bytes().split(b"\n", 2)
    header = {**json.loads(lines[1]), **header_changes, "payload_sha256": hashlib.sha256(payload).hexdigest()}
    path.write_bytes(lines[0] + b"\n" + json.dumps(header, sort_keys=True).encode() + b"\n" + payload)


def test_damaged_base_gives_one_warning_and_a_cold_build(tmp_path: Path, monkeypatch, capsys) -> None:
    path = _base_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls == [len(BASE)]
    assert err.count("\n") == 1 and err.startswith("warning: index cache") and "not reused" in err


def test_truncated_base_gives_one_warning_and_a_cold_build(tmp_path: Path, monkeypatch, capsys) -> None:
    path = _base_file(tmp_path)
    path.write_bytes(path.read_bytes()[:-100])
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls == [len(BASE)] and err.count("warning:") == 1


def test_planted_pickle_base_is_never_unpickled(tmp_path: Path, monkeypatch, capsys) -> None:
    path = _base_file(tmp_path)

    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    _rewritten(path, pickle.dumps(Boom()))
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls == [len(BASE)] and err.count("warning:") == 1
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "change",
    [lambda a: a[:-32], lambda a: a.view(np.int32), lambda a: a.reshape(-1, 32)],
    ids=["one_document_short", "int32_digests", "two_dimensions"],
)
def test_base_with_bad_text_digests_is_damaged(tmp_path: Path, monkeypatch, capsys, change) -> None:
    real = index_cache._payload

    def bad(index, digests):
        payload = real(index, digests)
        payload["arrays"]["documents_sha256"] = change(payload["arrays"]["documents_sha256"])
        return payload

    with monkeypatch.context() as patch:
        patch.setattr(index_cache, "_payload", bad)
        _base_file(tmp_path)  # written with a right payload digest: only the decoder can tell
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls == [len(BASE)] and err.count("warning:") == 1 and "cannot be loaded" in err


def test_consistent_base_whose_parts_do_not_fit_gives_one_warning_and_a_cold_build(tmp_path, monkeypatch, capsys):
    real = index_cache._payload

    def forged(index, digests):
        payload = real(index, digests)
        ids = payload["arrays"]["segments_token_ids"].astype(np.int32)  # uint16 where they fit
        payload["arrays"]["segments_token_ids"] = ids + 10**6  # past the vocabulary
        return payload

    with monkeypatch.context() as patch:
        patch.setattr(index_cache, "_payload", forged)
        _base_file(tmp_path)
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls[-1] == len(BASE) and err.count("warning:") == 1 and "base not reused" in err  # then built cold


def test_base_whose_header_names_another_key_is_damaged(tmp_path: Path, monkeypatch, capsys) -> None:
    path = _base_file(tmp_path)
    payload = path.read_bytes().split(b"\n", 2)[2]
    _rewritten(path, payload, key="0" * 64)
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls == [len(BASE)] and err.count("warning:") == 1


def test_base_of_another_normalizer_is_ignored_without_a_warning(tmp_path: Path, monkeypatch, capsys) -> None:
    path = _base_file(tmp_path)
    payload = path.read_bytes().split(b"\n", 2)[2]
    _rewritten(path, payload, normalizer="older-rules")
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls == [len(BASE)] and err == ""  # its parts were made by other rules: not reused, not damaged


def test_base_of_an_earlier_format_is_ignored_without_a_warning(tmp_path: Path, monkeypatch, capsys) -> None:
    path = _base_file(tmp_path)
    payload = path.read_bytes().split(b"\n", 2)[2]
    _rewritten(path, payload, format=index_cache.INDEX_FORMAT - 1)
    calls, err = _edited_run_after(tmp_path, monkeypatch, capsys)
    assert calls == [len(BASE)] and err == ""


def test_base_writable_by_others_refuses_the_run_before_any_work(tmp_path: Path) -> None:
    path = _base_file(tmp_path)
    os.chmod(path, 0o666)
    with pytest.raises(OutputError, match="writable by group or others"):
        Audit.from_corpus(EDITS["edit"](BASE), cache=tmp_path)


def test_newest_base_is_the_one_reused(tmp_path: Path, monkeypatch) -> None:
    Audit.from_corpus(RULES, cache=tmp_path)
    Audit.from_corpus(BASE, cache=tmp_path)  # newer, and a superset: built from the first in part
    calls = _counting_build(monkeypatch)
    Audit.from_corpus(EDITS["edit"](BASE), cache=tmp_path)
    assert calls == [1]
