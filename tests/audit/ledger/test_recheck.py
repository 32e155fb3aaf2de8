"""Recheck statuses (docs/recheck-rules.md): unchanged, intact (moved spans), invalid (diagnosed, removed)."""

from __future__ import annotations

import pytest
from claimgate.api import Audit
from claimgate.audit.ledger import NEIGHBOURS, corpus_identity, document_hashes
from claimgate.audit.recheck import recheck_citations
from claimgate.errors import IngestionError
from claimgate.io.ledger_lines import read_ledger
from hypothesis import given, settings
from hypothesis import strategies as st

OLD = {
    "install": "Install the package with pip.\nThe cache keeps 40 entries by default.\nSee the guide.",
    "retries": "Retries are not enabled unless you set the flag explicitly.",
    "limits": "Each request may upload at most 25 files at once.",
    "stable": "This page never changes and holds enough words for a quote.",
}
CITATIONS = [
    {"citation_id": "cache", "doc_id": "install", "quote": "The cache keeps 40 entries"},
    {"citation_id": "retry", "doc_id": "retries", "quote": "Retries are not enabled unless"},
    {"citation_id": "limit", "doc_id": "limits", "quote": "upload at most 25 files"},
    {"citation_id": "same", "doc_id": "stable", "quote": "holds enough words for a quote"},
]


def ledger_of(tmp_path, documents=OLD, citations=CITATIONS):
    path = tmp_path / "ledger.jsonl"
    Audit.from_corpus(documents).check(citations, ledger=path)
    return read_ledger(path)


def by_id(rows):
    return {r["citation_id"]: r for r in rows}


def test_ledger_rows_record_hash_spans_fingerprint_and_corpus(tmp_path):
    rows = by_id(ledger_of(tmp_path))
    row = rows["cache"]
    assert row["schema"] == "claimgate.ledger/1" and row["kind"] == "citation"
    assert row["sources"] == {"install": document_hashes(OLD)["install"]}
    assert row["corpus_sha256"] == corpus_identity(document_hashes(OLD))
    (span,) = row["spans"]
    assert OLD["install"][span["start"] : span["end"]] == "The cache keeps 40 entries"
    assert row["fingerprint"]["tokens"] == ["the", "cache", "keeps", "40", "entries"]
    assert row["fingerprint"]["after"] == ["by", "default", "see"][:NEIGHBOURS]
    assert row["fingerprint"]["before"] == ["package", "with", "pip"]


def test_same_bytes_are_unchanged_for_every_row(tmp_path):
    rows = recheck_citations(ledger_of(tmp_path), OLD)
    assert {r["status"] for r in rows} == {"unchanged"}
    assert [r["ledger_line"] for r in rows] == [1, 2, 3, 4]


def test_moved_quote_is_intact_with_new_spans_that_slice_to_the_quote(tmp_path):
    new = {**OLD, "install": "# Install\n\nA new first paragraph.\n\n" + OLD["install"]}
    row = by_id(recheck_citations(ledger_of(tmp_path), new))["cache"]
    assert row["status"] == "intact" and row["moved"] is True and row["verdict"] == "found"
    (span,) = row["spans"]
    assert new["install"][span["start"] : span["end"]] == "The cache keeps 40 entries"


def test_changed_page_with_quote_in_place_is_intact_not_moved(tmp_path):
    new = {**OLD, "install": OLD["install"].replace("See the guide.", "See the new guide.")}
    row = by_id(recheck_citations(ledger_of(tmp_path), new))["cache"]
    assert (row["status"], row["moved"], row["context_changed"]) == ("intact", False, False)


def test_neighbour_edit_is_intact_with_context_changed(tmp_path):
    new = {**OLD, "install": OLD["install"].replace("by default", "unless configured")}
    row = by_id(recheck_citations(ledger_of(tmp_path), new))["cache"]
    assert (row["status"], row["moved"], row["context_changed"]) == ("intact", False, True)


@pytest.mark.parametrize(
    ("doc_id", "citation_id", "edited", "kind"),
    [
        ("install", "cache", OLD["install"].replace("40", "64"), "number_changed"),
        ("limits", "limit", OLD["limits"].replace("25", "250"), "number_changed"),
        ("retries", "retry", OLD["retries"].replace("not enabled", "enabled"), "negation_changed"),
    ],
)
def test_changed_quote_is_invalid_with_the_diagnosis(tmp_path, doc_id, citation_id, edited, kind):
    row = by_id(recheck_citations(ledger_of(tmp_path), {**OLD, doc_id: edited}))[citation_id]
    assert row["status"] == "invalid" and row["verdict"] == "not_found"
    assert row["diagnosis"]["kind"] == kind
    assert row["diagnosis"]["nearest"]["doc_id"] == doc_id


def test_removed_document_is_invalid_document_removed(tmp_path):
    new = {k: v for k, v in OLD.items() if k != "limits"}
    rows = by_id(recheck_citations(ledger_of(tmp_path), new))
    assert rows["limit"]["status"] == "invalid"
    assert rows["limit"]["diagnosis"] == {"kind": "document_removed"}
    assert rows["same"]["status"] == "unchanged"


def test_quote_moved_to_another_changed_document_is_invalid_and_decided_in_the_cited_one(tmp_path):
    # Only changed documents are indexed, so a lookup in the others would search part of the corpus: the
    # verdict is the cited document's (docs/recheck-rules.md, "in the cited document alone").
    new = {**OLD, "limits": "Uploads are limited.", "stable": OLD["stable"] + " Each may upload at most 25 files."}
    row = by_id(recheck_citations(ledger_of(tmp_path), new))["limit"]
    assert (row["status"], row["verdict"], row["audit_reason"]) == ("invalid", "not_found", "no_verbatim_match")
    assert "occurs_in" not in row["diagnosis"]


def test_renamed_ids_after_a_re_pin_are_refused_not_guessed(tmp_path):
    ledger = ledger_of(tmp_path)
    renamed = {("limits-v2" if k == "limits" else k): v for k, v in OLD.items()}
    with pytest.raises(IngestionError) as info:
        recheck_citations(ledger, renamed)
    assert info.value.reason == "ledger_renamed_source" and "limits-v2" in str(info.value)


def test_a_ledger_from_another_corpus_is_refused(tmp_path):
    with pytest.raises(IngestionError) as info:
        recheck_citations(ledger_of(tmp_path), {"elsewhere": "Another corpus entirely, with other pages."})
    assert info.value.reason == "ledger_other_corpus"


def test_only_changed_documents_are_indexed(tmp_path, monkeypatch):
    from claimgate.audit import recheck

    seen = []
    real = recheck.build_corpus_index
    monkeypatch.setattr(recheck, "build_corpus_index", lambda docs: seen.append(sorted(docs)) or real(docs))
    recheck_citations(ledger_of(tmp_path), {**OLD, "retries": OLD["retries"] + " More."})
    assert seen == [["retries"]]


WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"])


@settings(max_examples=25, deadline=None)
@given(
    body=st.lists(WORDS, min_size=8, max_size=30),
    prefix=st.lists(WORDS, min_size=0, max_size=10),
    start=st.integers(0, 3),
)
def test_property_a_prefix_never_invalidates_a_quote_and_spans_slice_to_it(tmp_path_factory, body, prefix, start):
    text = " ".join(body) + "."
    quote = " ".join(body[start : start + 5])
    path = tmp_path_factory.mktemp("p") / "l.jsonl"
    Audit.from_corpus({"d": text}).check([{"citation_id": "q", "doc_id": "d", "quote": quote}], ledger=path)
    new = " ".join(prefix) + "\n" + text if prefix else text + " "
    (row,) = recheck_citations(read_ledger(path), {"d": new})
    assert row["status"] == "intact"
    # The first verbatim occurrence may start in the prefix (a body of repeated words), across its line
    # break: the span then holds the quote with that break for a space, which is still the quote's words.
    assert [" ".join(new[s["start"] : s["end"]].split()) for s in row["spans"]] == [quote]


def test_an_answers_citations_go_to_the_ledger_and_recheck(tmp_path):
    path = tmp_path / "answer.jsonl"
    answer = {
        "text": "The cache keeps 40 entries [1]. Retries are off [2].",
        "citations": [
            {"marker": "1", "doc_id": "install", "quote": "The cache keeps 40 entries"},
            {"marker": "2", "doc_id": "retries", "quote": "Retries are not enabled unless"},
        ],
    }
    Audit.from_corpus(OLD).check_answer(answer, ledger=path)
    ledger = read_ledger(path)
    assert [r["doc_id"] for r in ledger] == ["install", "retries"]
    new = {**OLD, "install": OLD["install"].replace("40", "80")}
    assert [r["status"] for r in recheck_citations(ledger, new)] == ["invalid", "unchanged"]
