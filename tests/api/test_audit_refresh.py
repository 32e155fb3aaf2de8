"""``Audit.refresh`` / ``Audit.refreshed``: a long-lived audit re-indexes only the documents that changed."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from claimgate import Audit
from claimgate.errors import IngestionError
from claimgate.synthetic.audit_inputs import make_corpus

DOCS, _, _, _ = make_corpus(30, 21)
IDS = sorted(DOCS)
CITATIONS = [
    {"citation_id": "kept", "doc_id": IDS[2], "quote": " ".join(DOCS[IDS[2]].split()[4:14])},
    {"citation_id": "edited", "doc_id": IDS[3], "quote": " ".join(DOCS[IDS[3]].split()[4:14])},
    {"citation_id": "moved", "doc_id": IDS[4], "quote": " ".join(DOCS[IDS[5]].split()[8:18])},
    {"citation_id": "new", "doc_id": "new.md", "quote": "a page written after the audit began"},
]


@pytest.fixture
def built(monkeypatch) -> list[list[str]]:
    """The documents each index build was given (a refresh must give it only the changed ones)."""
    from claimgate.audit import stages
    from claimgate.audit.index.build import build_corpus_index

    calls: list[list[str]] = []

    def build(documents):
        calls.append(sorted(documents))
        return build_corpus_index(documents)

    monkeypatch.setattr(stages, "build_corpus_index", build)
    return calls


def _edited(documents: dict[str, str]) -> dict[str, str]:
    out = {k: v for k, v in documents.items() if k != IDS[6]}
    out[IDS[3]] = "This page was rewritten entirely and says something else now."
    out["new.md"] = "Here is a page written after the audit began, in its own words."
    return out


def _rows(audit: Audit) -> str:
    return audit.check(CITATIONS).to_json()


#: The citations with the doc ids of a folder made by ``_folder`` (``.txt`` added).
FOLDER_CITATIONS = [
    {**c, "doc_id": c["doc_id"] if c["doc_id"].endswith(".md") else c["doc_id"] + ".txt"} for c in CITATIONS
]


def test_refreshed_builds_only_changed_documents_and_checks_as_a_cold_audit(built) -> None:
    audit = Audit.from_corpus(DOCS)
    before = _rows(audit)
    built.clear()
    fresh = audit.refreshed(_edited(DOCS))
    assert built == [[IDS[3], "new.md"]]
    assert _rows(fresh) == _rows(Audit.from_corpus(_edited(DOCS)))
    assert _rows(audit) == before  # the first audit is unchanged
    assert fresh.documents == _edited(DOCS)


def test_refreshed_with_the_same_documents_builds_nothing(built) -> None:
    audit = Audit.from_corpus(DOCS)
    built.clear()
    assert _rows(audit.refreshed(dict(DOCS))) == _rows(audit)
    assert built == []


def test_refreshed_renamed_and_copied_texts_keep_their_parts(built) -> None:
    audit = Audit.from_corpus(DOCS)
    documents = {("renamed" if k == IDS[2] else k): v for k, v in DOCS.items()}
    documents["copy"] = DOCS[IDS[5]]
    built.clear()
    fresh = audit.refreshed(documents)
    assert built == []
    assert _rows(fresh) == _rows(Audit.from_corpus(documents))


def test_refreshed_refuses_a_bad_corpus_as_from_corpus_does() -> None:
    audit = Audit.from_corpus(DOCS)
    with pytest.raises(IngestionError) as caught:
        audit.refreshed({**DOCS, IDS[0]: b"bytes"})
    assert caught.value.reason == "invalid_corpus"
    with pytest.raises(IngestionError):
        audit.refreshed({"": "an empty id"})


def _folder(tmp_path: Path, documents: dict[str, str]) -> Path:
    folder = tmp_path / "docs"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for doc_id, text in documents.items():
        (folder / (doc_id if doc_id.endswith(".md") else doc_id + ".txt")).write_text(text, encoding="utf-8")
    return folder


def test_refresh_rereads_a_folder_and_reports_what_changed(tmp_path: Path, built) -> None:
    folder = _folder(tmp_path, DOCS)
    audit = Audit.from_corpus(folder)
    (folder / f"{IDS[3]}.txt").write_text(_edited(DOCS)[IDS[3]], encoding="utf-8")
    (folder / f"{IDS[6]}.txt").unlink()
    (folder / "new.md").write_text(_edited(DOCS)["new.md"], encoding="utf-8")
    built.clear()
    changes = audit.refresh()
    assert changes == {"added": ["new.md"], "changed": [f"{IDS[3]}.txt"], "removed": [f"{IDS[6]}.txt"]}
    assert built == [[f"{IDS[3]}.txt", "new.md"]]
    rows = audit.check(FOLDER_CITATIONS)
    assert rows.to_json() == Audit.from_corpus(folder).check(FOLDER_CITATIONS).to_json()
    assert list(rows["gate_verdict"]) == ["found", "not_found", "misattributed", "found"]
    assert audit.extractors == Audit.from_corpus(folder).extractors  # the new page's extractor is known
    assert audit.refresh() == {"added": [], "changed": [], "removed": []}


def test_refresh_rereads_a_corpus_file(tmp_path: Path, built) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(DOCS), encoding="utf-8")
    audit = Audit.from_corpus(path)
    path.write_text(json.dumps(_edited(DOCS)), encoding="utf-8")
    built.clear()
    assert audit.refresh()["changed"] == [IDS[3]]
    assert built == [[IDS[3], "new.md"]]
    assert _rows(audit) == _rows(Audit.from_corpus(_edited(DOCS)))


def test_refresh_of_an_audit_made_from_a_dict_is_refused() -> None:
    with pytest.raises(ValueError, match="refreshed"):
        Audit.from_corpus(DOCS).refresh()


def test_refresh_of_a_corpus_that_can_no_longer_be_read_leaves_the_audit_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(DOCS), encoding="utf-8")
    audit = Audit.from_corpus(path)
    before = _rows(audit)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(IngestionError):
        audit.refresh()
    assert _rows(audit) == before


def test_refresh_with_a_cache_stores_the_new_index_for_the_next_process(tmp_path: Path, built) -> None:
    folder = _folder(tmp_path, DOCS)
    cache = tmp_path / "cache"
    audit = Audit.from_corpus(folder, cache=cache)
    (folder / f"{IDS[3]}.txt").write_text("Rewritten text of one page.", encoding="utf-8")
    built.clear()
    audit.refresh()
    assert built == [[f"{IDS[3]}.txt"]]
    again = Audit.from_corpus(folder, cache=cache)
    assert built == [[f"{IDS[3]}.txt"]]  # the next audit loads the refreshed index: no build
    assert again.check(FOLDER_CITATIONS).to_json() == audit.check(FOLDER_CITATIONS).to_json()


def test_checks_running_during_a_refresh_see_one_whole_index(tmp_path: Path) -> None:
    folder = _folder(tmp_path, DOCS)
    audit = Audit.from_corpus(folder)
    old = audit.check(FOLDER_CITATIONS).to_json()
    (folder / f"{IDS[3]}.txt").write_text(_edited(DOCS)[IDS[3]], encoding="utf-8")
    new = Audit.from_corpus(folder).check(FOLDER_CITATIONS).to_json()
    seen: list[str] = []
    checker = threading.Thread(target=lambda: seen.extend(audit.check(FOLDER_CITATIONS).to_json() for _ in range(5)))
    checker.start()
    audit.refresh()
    checker.join()
    assert old != new and set(seen) <= {old, new}


def test_refresh_with_a_cache_stores_a_delta_on_the_full_index_and_it_loads_in_the_next_process(
    tmp_path: Path, built
) -> None:
    folder = _folder(tmp_path, DOCS)
    cache = tmp_path / "cache"
    audit = Audit.from_corpus(folder, cache=cache)
    (full,) = cache.glob("corpus-index-*.bin")
    (folder / f"{IDS[3]}.txt").write_text("Rewritten text of one page.", encoding="utf-8")
    audit.refresh()
    assert sorted(cache.glob("corpus-index-*.bin")) == [full]  # the base is left as it was
    (delta,) = cache.glob("corpus-delta-*.bin")
    assert delta.stat().st_size < full.stat().st_size
    built.clear()
    again = Audit.from_corpus(folder, cache=cache)
    assert built == []  # loaded from the delta and its base
    assert again.check(FOLDER_CITATIONS).to_json() == audit.check(FOLDER_CITATIONS).to_json()
    assert again.check(FOLDER_CITATIONS).to_json() == Audit.from_corpus(folder).check(FOLDER_CITATIONS).to_json()
