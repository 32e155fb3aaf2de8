"""With a judge configured, the audit row records what each ellipsis left out; without one the row keeps its shape."""

from __future__ import annotations

import json

from claimgate.audit import standin_judge
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote
from claimgate.execution import drivers

TEXT = "No patients had serious adverse events.\nThe drug did not lower pressure in most patients we saw."


def test_elided_negation_is_reported_with_its_span():
    idx = build_corpus_index({"d": TEXT})
    r = audit_quote("The drug did ... lower pressure in most patients", "d", idx, report_elided=True)
    assert (r["verdict"], r["reason"]) == ("not_found", "elision_drops_negation")
    (gap,) = r["elided"]
    assert gap["position"] == "between" and gap["text"] == "not"
    assert TEXT[gap["start"] : gap["end"]] == "not" and gap["start_line"] == gap["end_line"] == 2


def test_found_elided_quote_reports_every_ellipsis_in_order():
    idx = build_corpus_index({"d": TEXT})
    r = audit_quote("The drug did not lower ... in most patients we saw ...", "d", idx, report_elided=True)
    assert r["verdict"] == "found"
    assert [(e["position"], e["text"]) for e in r["elided"]] == [("between", "pressure"), ("after", "")]


def test_leading_ellipsis_reports_the_tokens_it_checked():
    idx = build_corpus_index({"d": TEXT})
    r = audit_quote("... patients had serious adverse events", "d", idx, report_elided=True)
    assert r["reason"] == "elision_drops_negation"
    assert [(e["position"], e["text"]) for e in r["elided"]] == [("before", "No")]


def test_without_report_elided_the_result_keeps_its_keys():
    idx = build_corpus_index({"d": TEXT})
    r = audit_quote("The drug did not lower ... in most patients", "d", idx)
    assert list(r) == ["verdict", "reason", "match_kind", "matched_doc_ids", "spans"]


def test_judged_rows_carry_elided_and_plain_rows_do_not(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"d": TEXT}))
    citations = tmp_path / "citations.jsonl"
    rows = [
        {"citation_id": "c1", "claim": "x", "doc_id": "d", "quote": "The drug did not lower ... in most patients"},
        {"citation_id": "c2", "claim": "y", "doc_id": "d", "quote": "... patients had serious adverse events"},
    ]
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows))
    plain = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(corpus)))
    assert all("elided" not in row for row in plain)
    judged = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(corpus), llm_call=standin_judge.judge))
    assert list(judged[0])[9:12] == ["spans", "elided", "judge"]  # after claim and quote
    assert [e["text"] for e in judged[0]["elided"]] == ["pressure"]
    assert judged[1]["gate_verdict"] == "not_found" and [e["text"] for e in judged[1]["elided"]] == ["No"]
