"""The citation audit end to end: inputs, outputs, refusals, the demo, and executors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from claimgate.errors import IngestionError
from claimgate.execution import drivers

from ..helpers import FIXTURES, run_cli

DEMO = FIXTURES / "audit"
ROW_FIELDS = [
    "citation_id",
    "doc_id",
    "claim",
    "quote",
    "verdict",
    "reason",
    "gate_verdict",
    "match_kind",
    "matched_doc_ids",
    "spans",
    "judge",
    "model_calls",
]


def _citations() -> list[dict]:
    return [json.loads(line) for line in (DEMO / "citations.jsonl").read_text().splitlines()]


def test_audit_rows_have_the_documented_fields_and_spans_slice_the_original():
    run = drivers.run_audit(DEMO / "citations.jsonl", drivers.CorpusFile(DEMO / "corpus.json"))
    rows = drivers.audit_rows(run)
    corpus = json.loads((DEMO / "corpus.json").read_text())
    # rejected rows end with their diagnosis; the found row has none
    assert [list(r) for r in rows] == [[*ROW_FIELDS, "diagnosis"]] * 3 + [ROW_FIELDS]
    for row in rows:
        for span in row["spans"]:
            assert corpus[span["doc_id"]][span["start"] : span["end"]] == span["text"]
            assert 1 <= span["start_line"] <= span["end_line"]
    misattributed = rows[2]
    assert misattributed["matched_doc_ids"] == ["meta-summary"]
    assert misattributed["spans"][0]["doc_id"] == "meta-summary"


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
def test_every_citation_input_format_gives_the_same_rows(tmp_path, fmt):
    citations = _citations()
    path = tmp_path / f"citations.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(c) + "\n" for c in citations))
    elif fmt == "json":
        path.write_text(json.dumps(citations))
    else:
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["citation_id", "claim", "doc_id", "quote"])
            writer.writeheader()
            writer.writerows(citations)
    expected = drivers.audit_rows(drivers.run_audit(DEMO / "citations.jsonl", drivers.CorpusFile(DEMO / "corpus.json")))
    assert drivers.audit_rows(drivers.run_audit(path, drivers.CorpusFile(DEMO / "corpus.json"))) == expected


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
def test_every_audit_output_format_round_trips(tmp_path, fmt):
    out = tmp_path / f"audit.{fmt}"
    done = run_cli(
        "audit",
        "--corpus",
        str(DEMO / "corpus.json"),
        "--citations",
        str(DEMO / "citations.jsonl"),
        "--output",
        str(out),
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    expected = drivers.audit_rows(drivers.run_audit(DEMO / "citations.jsonl", drivers.CorpusFile(DEMO / "corpus.json")))
    if fmt == "jsonl":
        rows = [json.loads(line) for line in out.read_text().splitlines()]
    elif fmt == "json":
        rows = json.loads(out.read_text())
    else:
        with out.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows:
            for field in ("matched_doc_ids", "spans", "judge", "diagnosis"):
                row[field] = json.loads(row[field])
            row["model_calls"] = int(row["model_calls"])
            row["match_kind"] = row["match_kind"] or None
            if row["diagnosis"] is None:  # a CSV row has every column; JSON rows only a real diagnosis
                del row["diagnosis"]
    assert rows == expected


def test_audit_against_a_pinned_manifest_checks_hashes_and_finds_directive_quotes(tmp_path):
    citations = tmp_path / "c.jsonl"
    citations.write_text(
        json.dumps(
            {
                "citation_id": "a",
                "claim": "",
                "doc_id": "quill-guide",
                "quote": "the destination already exists, Quill 1.0 stops",
            }
        )
        + "\n"
        + json.dumps(
            {
                "citation_id": "b",
                "claim": "",
                "doc_id": "quill-guide",
                "quote": "an existing destination is now replaced",
            }
        )
        + "\n"
    )
    rows = drivers.audit_rows(drivers.run_audit(citations, drivers.PinnedManifest(FIXTURES / "manifest.json")))
    assert rows[0]["verdict"] == "found"
    assert rows[1]["verdict"] == "misattributed"
    assert rows[1]["matched_doc_ids"] == ["quill-new-version"]


def test_rows_without_quote_or_doc_id_are_invalid_citations_and_the_batch_goes_on(tmp_path):
    citations = tmp_path / "c.jsonl"
    rows = [
        {"citation_id": "no-quote", "claim": "x", "doc_id": "trial-report"},
        {"citation_id": "no-doc", "claim": "x", "quote": "Monthly migraine days fell by 4.1 days"},
        ["not", "an", "object"],
        {
            "citation_id": "ok",
            "claim": "x",
            "doc_id": "trial-report",
            "quote": "Monthly migraine days fell by 4.1 days",
        },
        {
            "citation_id": "ok",
            "claim": "x",
            "doc_id": "trial-report",
            "quote": "Monthly migraine days fell by 4.1 days",
        },
    ]
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(DEMO / "corpus.json")))
    assert [r["verdict"] for r in out] == [
        "invalid_citation",
        "invalid_citation",
        "invalid_citation",
        "found",
        "invalid_citation",
    ]
    assert all(r["model_calls"] == 0 for r in out)


def test_unknown_cited_document_is_never_found(tmp_path):
    citations = tmp_path / "c.jsonl"
    quote = "Monthly migraine days fell by 4.1 days with Veltrazine"
    citations.write_text(json.dumps({"citation_id": "u", "claim": "", "doc_id": "nope", "quote": quote}) + "\n")
    row = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(DEMO / "corpus.json")))[0]
    assert row["verdict"] == "misattributed"
    assert row["matched_doc_ids"] == ["trial-report"]


def test_unparseable_citation_table_is_refused_naming_the_line(tmp_path):
    citations = tmp_path / "c.jsonl"
    citations.write_text('{"citation_id": "a", "doc_id": "d", "quote": "q"}\n{broken\n')
    with pytest.raises(IngestionError) as caught:
        drivers.run_audit(citations, drivers.CorpusFile(DEMO / "corpus.json"))
    assert caught.value.reason == "invalid_citation_table"
    assert "line 2" in caught.value.detail


@pytest.mark.parametrize("corpus", ['["a list"]', '{"d": 3}', "not json", '{"": "empty id"}'])
def test_corpus_that_is_not_an_object_of_strings_is_invalid_corpus(tmp_path, corpus):
    path = tmp_path / "corpus.json"
    path.write_text(corpus)
    out = tmp_path / "out.jsonl"
    done = run_cli("audit", "--corpus", str(path), "--citations", str(DEMO / "citations.jsonl"), "--output", str(out))
    assert done.returncode == 3
    assert done.stderr.startswith("error: IngestionError: invalid_corpus: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not out.exists()


def test_audit_command_with_the_standin_judge_reports_free_and_paid(tmp_path):
    out = tmp_path / "audit.jsonl"
    done = run_cli(
        "audit",
        "--corpus",
        str(DEMO / "corpus.json"),
        "--citations",
        str(DEMO / "citations.jsonl"),
        "--output",
        str(out),
        "--judge",
        "claimgate.audit.standin_judge:judge",
    )
    assert done.returncode == 0, done.stderr
    assert "3 rejected for free, 1 reached the model" in done.stdout
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["model_calls"] for r in rows] == [0, 0, 0, 1]


def test_bad_judge_spec_is_a_usage_error(tmp_path):
    done = run_cli(
        "audit",
        "--corpus",
        str(DEMO / "corpus.json"),
        "--citations",
        str(DEMO / "citations.jsonl"),
        "--output",
        str(tmp_path / "a.jsonl"),
        "--judge",
        "nonexistent_module_q:fn",
    )
    assert done.returncode == 2
    assert "cannot import" in done.stderr


def test_default_run_writes_the_demo_rows_and_counts_calls(tmp_path):
    done = run_cli("--output", str(tmp_path / "gate_result.json"))
    assert done.returncode == 0, done.stderr
    assert "3 rejected for free, 1 reached the model" in done.stdout
    rows = [json.loads(line) for line in (tmp_path / "audit_result.jsonl").read_text().splitlines()]
    assert [r["gate_verdict"] for r in rows] == ["not_found", "not_found", "misattributed", "found"]
    assert (tmp_path / "audit_dag.dot").exists()


@pytest.mark.parametrize("executor", ["multiprocessing", "dask"])
def test_partitioned_audit_writes_the_same_bytes_as_local(tmp_path, executor):
    citations = tmp_path / "c.jsonl"
    base = _citations()
    rows = [{**c, "citation_id": f"{c['citation_id']}-{i}"} for i in range(5) for c in base]
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows))
    outputs: dict[str, bytes] = {}
    for name in ("local", executor):
        out = tmp_path / f"{name}.jsonl"
        done = run_cli(
            "audit",
            "--corpus",
            str(DEMO / "corpus.json"),
            "--citations",
            str(citations),
            "--output",
            str(out),
            "--executor",
            name,
            "--partition-rows",
            "3",
            "--quiet",
        )
        assert done.returncode == 0, done.stderr
        outputs[name] = Path(out).read_bytes()
    assert outputs["local"] == outputs[executor]
    assert len(outputs["local"].splitlines()) == 20


def test_every_output_row_carries_its_quote_and_claim_so_one_file_is_enough_to_review(tmp_path):
    citations = tmp_path / "c.jsonl"
    rows_in = [
        {
            "citation_id": "a",
            "claim": "Halves migraine days.",
            "doc_id": "meta-summary",
            "quote": "We pooled 17 randomized trials with 9,999 participants",
        },
        {"citation_id": "b", "doc_id": "trial-report", "quote": "another quote never written"},
        {"citation_id": "c", "claim": 7, "doc_id": "trial-report", "quote": "a bad claim"},
    ]
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows_in))
    rows = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(DEMO / "corpus.json")))
    assert [(r["quote"], r["claim"]) for r in rows] == [
        ("We pooled 17 randomized trials with 9,999 participants", "Halves migraine days."),
        ("another quote never written", ""),  # a missing claim is ""
        ("a bad claim", None),  # invalid_citation: a claim that is not a string is not copied
    ]
    assert rows[2]["verdict"] == "invalid_citation"
    edits = rows[0]["diagnosis"]["edits"]
    assert edits  # the diagnosis's quote spans point into the row's own quote
    for edit in edits:
        assert rows[0]["quote"][slice(*edit["quote_span"])] == edit["quote"]


def test_a_quote_refused_for_its_length_is_written_by_its_head_and_length(tmp_path):
    from claimgate.errors import MAX_DETAIL_CHARS

    citations = tmp_path / "c.jsonl"
    huge = "word " * 20_000  # 100,000 characters: over tables.MAX_QUOTE_CHARS
    citations.write_text(json.dumps({"citation_id": "h", "doc_id": "trial-report", "quote": huge}) + "\n")
    (row,) = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(DEMO / "corpus.json")))
    assert row["reason"] == "quote_too_long"
    assert len(row["quote"]) <= MAX_DETAIL_CHARS and row["quote"].endswith("(100000 characters)")
    assert huge.startswith(row["quote"][:900])
