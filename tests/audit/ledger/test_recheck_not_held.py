"""``not_held`` (docs/recheck-rules.md, "Statuses"): a citation the ledger recorded as not holding never becomes
``invalid``, whatever became of its page; it carries its recorded verdict and is not audited again."""

from __future__ import annotations

import json

import pytest
from claimgate.api import Audit
from claimgate.audit.recheck import recheck_citations
from claimgate.audit.recheck_lines import recheck_lines
from claimgate.audit.recheck_statuses import RECHECK_STATUSES, row_reason
from claimgate.io.ledger_lines import read_ledger, read_ledger_lines
from claimgate.io.writers import jsonl_line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ...helpers import cli
from .test_recheck import OLD

CITES = [
    {"citation_id": "held", "doc_id": "install", "quote": "The cache keeps 40 entries"},
    {"citation_id": "made-up", "doc_id": "install", "quote": "The cache keeps 90 entries forever"},
    {"citation_id": "elsewhere", "doc_id": "retries", "quote": "upload at most 25 files"},
    {"citation_id": "gone", "doc_id": "limits", "quote": "Each request may upload 99 files"},
    {"citation_id": "ghost", "doc_id": "nowhere", "quote": "a page that was never there at all"},
]


def rechecked(tmp_path, today: dict, cites=CITES) -> dict:
    """The recheck rows by citation id, checked to be the command's path's rows byte for byte."""
    path = tmp_path / "ledger.jsonl"
    path.unlink(missing_ok=True)
    Audit.from_corpus(OLD).check(cites, ledger=path)
    rows = recheck_citations(read_ledger(path), today)
    assert recheck_lines(read_ledger_lines(path), today).lines == [jsonl_line(r) for r in rows]
    return {r["citation_id"]: r for r in rows}


def test_the_status_is_defined_with_the_others():
    assert list(RECHECK_STATUSES) == ["unchanged", "intact", "invalid", "not_held", "decision_changed"]


def test_a_rejected_citation_on_an_unchanged_page_is_not_held_with_its_recorded_verdict(tmp_path):
    rows = rechecked(tmp_path, OLD)
    assert (rows["made-up"]["status"], rows["made-up"]["old_verdict"], rows["made-up"]["verdict"]) == (
        "not_held",
        "not_found",
        "not_found",
    )
    assert rows["elsewhere"]["status"] == "not_held" and rows["elsewhere"]["verdict"] == "misattributed"
    assert rows["held"]["status"] == "unchanged"


def test_a_rejected_citation_on_an_edited_page_is_not_held_not_invalid(tmp_path):
    today = {**OLD, "install": "A new first line.\n\n" + OLD["install"].replace("40", "41")}
    rows = rechecked(tmp_path, today)
    assert rows["made-up"]["status"] == "not_held" and "diagnosis" not in rows["made-up"]
    assert rows["held"]["status"] == "invalid"  # the citation that held is rechecked as before


def test_a_rejected_citation_whose_words_now_appear_is_still_not_held(tmp_path):
    # It did not hold when the answer was given: an edit that makes it true later does not make that answer right.
    today = {**OLD, "install": OLD["install"] + " The cache keeps 90 entries forever."}
    assert rechecked(tmp_path, today)["made-up"]["status"] == "not_held"


def test_a_rejected_citation_of_a_removed_document_is_not_held_not_document_removed(tmp_path):
    today = {k: v for k, v in OLD.items() if k != "limits"}
    row = rechecked(tmp_path, today)["gone"]
    assert (row["status"], row["verdict"], row["spans"]) == ("not_held", "not_found", [])


def test_a_citation_of_an_unknown_document_is_not_held(tmp_path):
    row = rechecked(tmp_path, OLD)["ghost"]
    assert (row["status"], row["verdict"]) == ("not_held", "not_found")


def test_documents_cited_only_by_rejected_rows_are_not_indexed(tmp_path, monkeypatch):
    from claimgate.audit import recheck

    seen = []
    real = recheck.build_corpus_index
    monkeypatch.setattr(recheck, "build_corpus_index", lambda docs: seen.append(sorted(docs)) or real(docs))
    rechecked(tmp_path, {**OLD, "retries": OLD["retries"] + " More.", "limits": "Rewritten."})
    assert seen == [[], []]  # the statement's run and the command path's: neither indexes a page


def test_the_summary_reason_of_a_not_held_row_is_its_recorded_verdict():
    row = {"status": "not_held", "verdict": "misattributed", "old_verdict": "misattributed"}
    assert row_reason(row) == "misattributed"


def test_fail_on_invalid_exits_0_when_only_not_held_rows_remain(capsys, tmp_path):
    corpus = tmp_path / "v1.json"
    corpus.write_text(json.dumps(OLD), encoding="utf-8")
    cites = tmp_path / "c.jsonl"
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES[1:]), encoding="utf-8")  # every one rejected
    ledger, summary = tmp_path / "ledger.jsonl", tmp_path / "s.json"
    audit = ["audit", "--corpus", str(corpus), "--citations", str(cites), "--output", str(tmp_path / "a.jsonl")]
    assert cli(capsys, *audit, "--ledger", str(ledger), "--quiet")[0] == 0
    today = tmp_path / "v2.json"
    today.write_text(json.dumps({"install": "Rewritten.", "retries": OLD["retries"] + " More."}), encoding="utf-8")
    code, _, err = cli(capsys, "recheck", "--ledger", str(ledger), "--corpus", str(today), "--output",
                       str(tmp_path / "r.jsonl"), "--fail-on", "invalid", "--summary", str(summary),
                       "--report", str(tmp_path / "r.html"), "--quiet")  # fmt: skip
    assert code == 0, err
    counts = json.loads(summary.read_text(encoding="utf-8"))
    assert "not_held" in json.dumps(counts) and "invalid" not in json.dumps(counts)
    assert (tmp_path / "r.html").read_text(encoding="utf-8").count('data-verdict="not_held"') == 4


WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "9", "10", "not"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=st.lists(st.sampled_from(WORDS), min_size=6, max_size=20),
    quote=st.lists(st.sampled_from(WORDS), min_size=4, max_size=8),
    edit=st.sampled_from(["none", "append-quote", "prepend", "remove", "rewrite"]),
)
def test_property_a_row_recorded_as_not_found_is_never_invalid(tmp_path_factory, body, quote, edit):
    text, words, other = " ".join(body) + ".", " ".join(quote), "This other page stays the same always."
    path = tmp_path_factory.mktemp("p") / "l.jsonl"
    cites = [
        {"citation_id": "q", "doc_id": "d", "quote": words},
        {"citation_id": "k", "doc_id": "e", "quote": "other page stays the same"},  # keeps the corpus known
    ]
    Audit.from_corpus({"d": text, "e": other}).check(cites, ledger=path)
    today = {
        "none": {"d": text, "e": other},
        "append-quote": {"d": text + " " + words + ".", "e": other},
        "prepend": {"d": "A new line.\n" + text, "e": other},
        "remove": {"e": other},
        "rewrite": {"d": "nothing of it", "e": other},
    }[edit]
    ledger = read_ledger(path)
    rows = recheck_citations(ledger, today)
    assert recheck_lines(read_ledger_lines(path), today).lines == [jsonl_line(r) for r in rows]
    if ledger[0]["verdict"] != "found":
        assert rows[0]["status"] == "not_held" and rows[0]["verdict"] == ledger[0]["verdict"]
    else:
        assert rows[0]["status"] != "not_held"


@pytest.mark.parametrize("verdict", ["not_found", "misattributed", "insufficient_quote", "invalid_citation"])
def test_every_rejected_verdict_is_not_held_and_carried(verdict, tmp_path):
    from claimgate.io.ledger_append import append_ledger

    path = tmp_path / "l.jsonl"
    Audit.from_corpus(OLD).check(CITES[:1], ledger=path)
    row = read_ledger(path)[0] | {"verdict": verdict, "spans": []}
    path.unlink()
    append_ledger(path, [{k: v for k, v in row.items() if k not in ("schema", "row_sha256")}])
    today = {**OLD, "install": "Rewritten entirely."}
    (out,) = recheck_citations(read_ledger(path), today)
    assert (out["status"], out["old_verdict"], out["verdict"]) == ("not_held", verdict, verdict)
    assert recheck_lines(read_ledger_lines(path), today).lines == [jsonl_line(out)]
